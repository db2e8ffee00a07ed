// approx_internal.hpp — what the approximate engines share: the compiled pattern (match
// bit-vectors Peq), the sink that receives (end, score) pairs, and every engine's entry.
// Building a pattern is O(256·⌈m/64⌉ + 256·m).
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/approx.hpp"
#include "trawl/hit.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::approx_detail {

/// One pattern (already reverse-complemented for the reverse strand), with Peq: for every
/// byte c and 64-row block b, bit i of peq[c * words + b] is set when pattern byte
/// b·64 + i matches c. Bits beyond m are 0.
struct compiled_pattern {
  std::string bytes;
  std::uint32_t index = 0;
  strand dir = strand::forward;
  std::size_t m = 0;
  std::size_t words = 0;
  std::vector<std::uint64_t> peq;
  std::vector<std::uint64_t> rpeq;  ///< Peq of the reversed pattern (bit i = byte m-1-i)

  [[nodiscard]] const std::uint64_t* eq(unsigned char c) const noexcept { return peq.data() + c * words; }
  /// Does pattern byte i match text byte c?
  [[nodiscard]] bool match(std::size_t i, unsigned char c) const noexcept {
    return ((peq[c * words + i / 64] >> (i % 64)) & 1u) != 0;
  }
};

/// Mismatches of p against the p.m bytes at w (Hamming distance), counted until they pass k.
inline std::uint32_t window_mismatches(const compiled_pattern& p, const unsigned char* w, std::uint32_t k) {
  std::uint32_t mism = 0;
  for (std::size_t i = 0; i < p.m && mism <= k; ++i) mism += p.match(i, w[i]) ? 0u : 1u;
  return mism;
}

/// Checks a pattern (non-empty, no NUL) and builds its Peq under `rules` (case, IUPAC).
compiled_pattern compile_pattern(std::string_view bytes, std::uint32_t index, strand dir, const match_rules& rules);

/// The pattern-strands of a search: each pattern (index i), then with options.both_strands its
/// reverse complement, each with its error bound min(options.max_errors, m) in `ks`.
std::vector<compiled_pattern> compile_strands(const std::vector<std::string>& patterns, const search_options& options,
                                              std::vector<std::uint32_t>& ks);

struct lane_hit;

/// The striped cluster kernel's output: runs of consecutive ends [first, last] with score <= k
/// (a run cut by a stripe's edge comes in pieces that the sink joins; best = its leftmost end
/// of smallest score). Per stripe s, count[s] runs recs[s·cap, s·cap + count[s]) in
/// step order, steps relative to the stripe's first byte (all below 2^16).
struct striped_cluster {
  std::uint16_t first, last, best, score;
};
struct striped_clusters {
  std::vector<striped_cluster> recs;
  std::size_t cap = 0;
  std::array<std::uint32_t, 64> count{};
};

/// Receives end positions j (inclusive) with their score, ascending in j.
class end_sink {
 public:
  virtual ~end_sink() = default;
  virtual void on_end(std::uint64_t j, std::uint32_t score) = 0;
  /// A batch of ends, ascending (the SIMD kernels' output); default: on_end each.
  virtual void on_ends(const lane_hit* ends, std::size_t n);
  /// True when the sink wants runs (on_runs) rather than every end, where a kernel can form
  /// them.
  [[nodiscard]] virtual bool wants_clusters() const { return false; }
  /// The runs of a striped_clusters (below) whose stripe s starts at text position
  /// base + s·stride, ascending, after every end or run given before; only called when
  /// wants_clusters().
  virtual void on_runs(const striped_clusters&, std::uint64_t, std::size_t) {}
};

/// A sink collecting into a vector (tests, approx_end_scores).
class vector_sink final : public end_sink {
 public:
  std::vector<end_score> ends;
  void on_end(std::uint64_t j, std::uint32_t score) override { ends.push_back({j, score}); }
};

// ---- single-pattern engines ------------------------------------------------------------
// Each computes the DP from a fresh column at `from` (as if the text started there) and
// calls sink.on_end(j, score_j) for every j in [report_from, to) with score_j <= k, ascending.
// Only seq[from, to) is read. Requires from <= report_from <= to <= seq.size().

/// Sellers' DP, one column of m+1 cells per byte. O(n·m). dp_sellers.cpp
void scan_dp_sellers(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink);
/// Myers' bit-vector algorithm in one 64-bit word (m <= 64). O(n). myers_word.cpp
void scan_myers_word(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink);
/// Blocked Myers with Ukkonen's cut-off, any m. O(n·⌈m/64⌉) worst, O(n·⌈k/64⌉) expected.
/// myers_blocked.cpp
void scan_myers_blocked(const compiled_pattern& p, std::string_view seq, std::size_t from,
                        std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);

// ---- SIMD lanes: several (pattern, text stripe) jobs at once, m <= 64 -------------------

/// One lane's job for `steps` text bytes starting at text_pos. Peq of the lane's pattern is
/// peq[peq_offset + c]. A lane reports (pos, score) when score <= k and pos >= report_lo.
struct lane_job {
  std::uint64_t text_pos = 0;
  std::uint64_t report_lo = 0;
  std::uint64_t peq_offset = 0;
  std::uint64_t hibit = 0;  ///< 1 << (m - 1)
  std::uint64_t m = 0;
  std::uint64_t k = 0;
};
struct lane_hit {
  std::uint64_t pos;
  std::uint32_t score;
  std::uint32_t lane;
};
/// Stable bucket sort of `hits` (each lane's hits in step order) by lane into `sorted`: with
/// lanes in text order, this gives ascending positions. O(hits + lanes). myers_lanes.cpp
void sort_by_lane(const std::vector<lane_hit>& hits, std::size_t lanes, std::vector<lane_hit>& sorted);
/// Runs `lanes` jobs for `steps` bytes each; appends hits in step order.
using lanes_kernel = void (*)(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq,
                              const unsigned char* seq, std::vector<lane_hit>& hits);

void myers_lanes_serial(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                        std::vector<lane_hit>& hits);  // 8 lanes, myers_lanes_serial.cpp
void myers_lanes_avx2(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                      std::vector<lane_hit>& hits);  // 8 lanes (2 × 4), myers_lanes_avx2.cpp
void myers_lanes_avx512(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                        std::vector<lane_hit>& hits);  // 16 lanes (2 × 8), myers_lanes_avx512.cpp

/// A lanes kernel and how many lanes it runs (the dispatch table's choice per SIMD level,
/// common/dispatch.hpp).
struct lanes_backend {
  lanes_kernel kernel;
  std::size_t lanes;
};

/// Scans several patterns (all m <= 64) over seq[report_from, to) with context from `from`,
/// packing (pattern, stripe) jobs into the backend's lanes; sinks[i] receives pattern i's
/// ends, ascending. ks[i] = k for pattern i. myers_lanes.cpp
void scan_myers_lanes(const lanes_backend& backend, std::span<const compiled_pattern* const> patterns,
                      std::span<const std::uint32_t> ks, std::string_view seq, std::size_t from,
                      std::size_t report_from, std::size_t to, std::span<end_sink* const> sinks);

// ---- striped SIMD: one pattern (m <= 32) over 64 text stripes in 16/32-bit lanes ------

/// A pattern laid out for the striped kernel: lanes of `width` bits (16 for m <= 16, else
/// 32), the pattern in the top m bits (Peq shifted left by d = width - m), so every lane's
/// score is the true score + d and is compared with kk = k + d.
struct striped_pattern {
  int width = 16;
  std::uint32_t d = 0;
  std::uint32_t kk = 0;
  std::array<std::uint32_t, 256> peq{};
  unsigned quarters = 0;  ///< bit q: some byte in [64q, 64q + 64) has a non-zero Peq
};
/// Builds the striped layout of p (m <= 32) for error bound k <= m.
striped_pattern make_striped_pattern(const compiled_pattern& p, std::uint32_t k);
/// The striped kernels' common signature (myers_striped_avx512 below).
using striped_kernel = bool (*)(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                std::size_t steps, std::size_t warm, std::uint64_t pos0, bool text_in_quarter1,
                                std::vector<lane_hit>& hits);
/// Runs 64 stripes: stripe s reads text0[s·stride, s·stride + steps) and reports (pos0 +
/// s·stride + t, score, s) for every step t >= warm with score <= k, in step order.
/// `text_in_quarter1`: assume every byte read is in 0x40-0x7F (letters, DNA without line
/// breaks) and skip the quarter mask; the kernel checks the bytes on the way and returns
/// false when one was not (the output is then wrong: run it again with false). Otherwise
/// true. `Vbmi`: byte lanes (m <= 8) look Peq up by vpermb, for a CPU with AVX512_VBMI (Ice
/// Lake, Sapphire Rapids, Zen 4 and later); otherwise by two 16-bit lookups packed to bytes.
/// myers_striped_avx512.cpp (both instantiated there)
template <bool Vbmi>
bool myers_striped_avx512(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                          std::size_t steps, std::size_t warm, std::uint64_t pos0, bool text_in_quarter1,
                          std::vector<lane_hit>& hits);
/// The striped kernel forming the runs of consecutive ends itself (the default report mode
/// needs one hit per run, not every end): the same scan and `text_in_quarter1` contract as
/// myers_striped_avx512, and a run that reaches step warm or steps - 1 is cut there.
/// Requires steps < 2^16.
template <bool Vbmi>
bool myers_striped_clusters_avx512(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                   std::size_t steps, std::size_t warm, bool text_in_quarter1,
                                   striped_clusters& out);
/// The clusters kernels' common signature.
using striped_clusters_kernel = bool (*)(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                         std::size_t steps, std::size_t warm, bool text_in_quarter1,
                                         striped_clusters& out);
/// The same on AVX2 (byte lanes for m <= 8, Peq by vpshufb per high nibble; `text_in_quarter1`
/// is ignored, returns true); myers_striped_avx2.cpp. Records the same runs as the AVX-512
/// kernel except that a run's last step is its true one (the AVX-512 kernel may give any step
/// below the stripe's last).
bool myers_striped_clusters_avx2(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                 std::size_t steps, std::size_t warm, bool text_in_quarter1, striped_clusters& out);
/// The byte-lane layout (width 8) of a 16-bit-lane pattern of m <= 8: the pattern in the top m
/// bits of a byte (Peq and the score offset d shift down by 8). myers_striped.cpp
striped_pattern narrow_striped_pattern(const striped_pattern& sp);
/// Writes the hits of n complete runs r[0, n) of a stripe starting at text position base
/// (end = base + best + 1, errors = score, start = end as make_hit, open 0), as cluster hits of pattern
/// `pattern` on strand dir, to out[0, n).
using run_writer = void (*)(const striped_cluster* r, std::size_t n, std::uint64_t base, std::uint32_t pattern,
                            strand dir, hit* out);
/// The run writer one hit at a time (any CPU); myers_striped.cpp.
void write_run_hits_serial(const striped_cluster* r, std::size_t n, std::uint64_t base, std::uint32_t pattern,
                           strand dir, hit* out);
/// The run writer 8 runs per vector (AVX-512F); myers_striped_avx512.cpp.
void write_run_hits_avx512(const striped_cluster* r, std::size_t n, std::uint64_t base, std::uint32_t pattern,
                           strand dir, hit* out);
/// The same contract on AVX2 (Peq by vpshufb per high nibble; `text_in_quarter1` is ignored,
/// returns true); myers_striped_avx2.cpp.
bool myers_striped_avx2(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
                        std::size_t warm, std::uint64_t pos0, bool text_in_quarter1, std::vector<lane_hit>& hits);
/// The striped kernels of one SIMD level (the dispatch table's choice, common/dispatch.hpp):
/// every end <= k, the runs of ends, and whether they take text_in_quarter1 (the AVX-512
/// ones; the AVX2 ones ignore it). `ends` is nullptr where the level has none.
struct striped_kernels {
  striped_kernel ends = nullptr;
  striped_clusters_kernel runs = nullptr;
  bool quarter1 = false;
};
/// Same contract as the single-pattern engines (p.m <= 32); the striped kernel for the bulk,
/// the one-word loop for the edges. `sp`: make_striped_pattern(p, k), if the caller has it.
/// myers_striped.cpp
void scan_myers_striped(const striped_kernels& kernel, const compiled_pattern& p, std::string_view seq,
                        std::size_t from, std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink,
                        const striped_pattern* sp = nullptr);

// ---- suffix filter + Myers verification (suffix_filter.cpp) ----------------------------
/// The suffix length L (16 or 32) the filter scans for a pattern of m bytes at error bound k,
/// or 0 where it does not apply (m <= L, or k too large for L to be selective: k <= L/4, or
/// L/2 when `forced`).
std::size_t suffix_filter_length(std::size_t m, std::uint32_t k, bool forced);
/// P's last `len` bytes (len <= m <= 64) as a pattern of its own, under P's rules.
compiled_pattern pattern_suffix(const compiled_pattern& p, std::size_t len);
/// How the caller scans P without the filter: (from, report_from, to) as the engines take them.
using unfiltered_scan = std::function<void(std::size_t, std::size_t, std::size_t)>;
/// What the filter carries from one call to the next over consecutive ranges of one text: how
/// many more rounds go unfiltered after a dense one, and the skip after the next dense one
/// (0: the first).
struct suffix_filter_state {
  std::size_t skip = 0, next_skip = 0;
};
/// Same contract as the single-pattern engines (p.m <= 64): `suffix` (pattern_suffix, at most
/// 32 bytes) is scanned by the striped kernel, its ends verified by one-word Myers; rounds
/// where candidates are dense go to `unfiltered`.
void scan_suffix_filter(const striped_kernels& kernel, const compiled_pattern& p, const compiled_pattern& suffix,
                        std::string_view seq, std::size_t from, std::size_t report_from, std::size_t to,
                        std::uint32_t k, end_sink& sink, const unfiltered_scan& unfiltered,
                        suffix_filter_state& state);

// ---- pigeonhole filter + Myers verification (pigeon_filter.cpp) ----------------------
/// A piece P[off, off+len) of the pattern; k+1 disjoint pieces cover P, so any occurrence
/// with <= k errors contains one of them exactly (the pigeonhole principle).
struct filter_piece {
  std::uint32_t off, len;
};
/// Appends the anchor s - off (the implied pattern start) of every exact occurrence s of each
/// piece with lo <= s < s_end and s + len <= hi. Reads only text[lo, hi).
using piece_finder = void (*)(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                              std::string_view pattern, std::span<const filter_piece> pieces,
                              std::vector<std::int64_t>& anchors);
void find_pieces_serial(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                        std::string_view pattern, std::span<const filter_piece> pieces,
                        std::vector<std::int64_t>& anchors);
void find_pieces_avx2(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                      std::string_view pattern, std::span<const filter_piece> pieces,
                      std::vector<std::int64_t>& anchors);  // pigeon_filter_avx2.cpp
void find_pieces_avx512(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                        std::string_view pattern, std::span<const filter_piece> pieces,
                        std::vector<std::int64_t>& anchors);  // pigeon_filter_avx512.cpp
/// a[0, len) == b[0, len), inlined (8 bytes at a time; the last word may overlap).
inline bool same_bytes(const unsigned char* a, const unsigned char* b, std::size_t len) {
  if (len < 8) {
    for (std::size_t i = 0; i < len; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  auto word = [](const unsigned char* p) {
    std::uint64_t w;
    __builtin_memcpy(&w, p, 8);
    return w;
  };
  for (std::size_t i = 0; i + 8 < len; i += 8)
    if (word(a + i) != word(b + i)) return false;
  return word(a + len - 8) == word(b + len - 8);
}
/// True when the filter applies: every pattern byte matches exactly one text byte (no
/// ignore_case / IUPAC classes) and m >= k + 1.
bool pigeon_applicable(const compiled_pattern& p, std::uint32_t k);
/// Length of the shortest of the k+1 pieces.
inline std::size_t pigeon_piece_len(std::size_t m, std::uint32_t k) { return m / (k + 1); }
/// Same contract as the single-pattern engines: finds piece occurrences, merges their
/// candidate end windows and verifies them with Myers (word or blocked).
/// O(n·(k+1)/32) filter + O((m+k)·⌈m/64⌉) per candidate window.
/// Long verification windows (dense candidates) go to `lanes` when given (m <= 64).
void scan_pigeon(const compiled_pattern& p, piece_finder finder, const lanes_backend* lanes, std::string_view seq,
                 std::size_t from, std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);

// ---- starts and alignment (align.cpp) ------------------------------------------------
/// Smallest z >= lo with ED(p, seq[z..j]) == score (score must be score_j); j + 1 if only
/// the empty substring achieves it. Reverse global Myers over seq[max(lo, j+1-m-score)..j].
std::uint64_t leftmost_start(const compiled_pattern& p, std::string_view seq, std::uint64_t j, std::uint32_t score,
                             std::uint64_t lo);
/// Every z >= lo with ED(p, seq[z..j]) == score, ascending (j + 1: the empty substring), by
/// the same pass; into `starts` (cleared first).
void every_start(const compiled_pattern& p, std::string_view seq, std::uint64_t j, std::uint32_t score,
                 std::uint64_t lo, std::vector<std::uint64_t>& starts);
/// best_options::every_start: r's occurrences (one per best end, any start) become every
/// [start, end) at r.distance, in (end, start) order. best.cpp
void expand_every_start(std::string_view x, std::string_view y, best_result& r);
/// A leftmost-start question for leftmost_starts: in j, score; out start.
struct start_request {
  std::uint64_t j;
  std::uint32_t score;
  std::uint32_t slot = 0;  ///< the caller's (the hit it belongs to)
  std::uint64_t start = 0;
};
/// The two kinds of request the batched start kernels take: start_request, and a hit (end =
/// j + 1, errors = score) whose start is filled in place.
struct start_fields {
  static std::uint64_t j(const start_request& r) { return r.j; }
  static std::uint32_t score(const start_request& r) { return r.score; }
  static void set(start_request& r, std::uint64_t start) { r.start = start; }
  static std::uint64_t j(const hit& h) { return h.end - 1; }
  static std::uint32_t score(const hit& h) { return h.errors; }
  static void set(hit& h, std::uint64_t start) { h.start = start; }
};
/// The batched start kernels of one SIMD level (the dispatch table's choice,
/// common/dispatch.hpp); nullptr where the level has none. `reqs` and `hits` take patterns of
/// m <= 32, `reqs` only batches of at least `min_batch`; `eight` takes 8 requests of a one-word
/// pattern (leftmost_starts8_avx512's contract).
struct start_kernels {
  void (*reqs)(const compiled_pattern&, std::string_view, std::uint64_t, std::span<start_request>) = nullptr;
  void (*hits)(const compiled_pattern&, std::string_view, std::uint64_t, std::span<hit>) = nullptr;
  std::size_t min_batch = 0;
  bool (*eight)(const compiled_pattern&, std::string_view, std::uint64_t, start_request*, std::size_t) = nullptr;
};
/// leftmost_start for many ends of one pattern, with the kernels `ks` has (m <= 32: 64 or 32 at
/// a time; one-word patterns: 8 at a time in AVX-512 lanes), the rest one by one. align.cpp
void leftmost_starts(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<start_request> reqs,
                     const start_kernels& ks);
/// 8 requests (the first g real) of a one-word pattern in AVX-512 lanes; false (nothing
/// done) when one lies too close to the text's start for its 8-byte loads. starts_avx512.cpp
bool leftmost_starts8_avx512(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, start_request* rq,
                             std::size_t g);
/// leftmost_starts for a pattern of m <= 32 on AVX-512BW: 64 requests at a time in 16/32-bit
/// lanes, text bytes by 8-byte loads and transpose and Peq by vpermi2w as in the striped kernel
/// (`Vbmi`: m <= 8 in byte lanes by vpermb, as myers_striped_avx512). starts_avx512.cpp
template <bool Vbmi>
void leftmost_starts_avx512bw(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                              std::span<start_request> reqs);
/// The same for hits (end = j + 1, errors = score), their start filled in place.
template <bool Vbmi>
void leftmost_starts_avx512bw(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                              std::span<hit> hits);
/// leftmost_starts for a pattern of m <= 32 on AVX2: 32 requests at a time in 8/16/32-bit
/// lanes, text bytes by 16-byte loads and a byte transpose, Peq by vpshufb per high nibble as
/// in the AVX2 striped kernel. starts_avx2.cpp
void leftmost_starts_avx2(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                          std::span<start_request> reqs);
void leftmost_starts_avx2(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<hit> hits);
/// leftmost_starts for hits of p (end = j + 1, errors = score): fills in hit.start. align.cpp
void leftmost_starts(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<hit> hits,
                     const start_kernels& ks);
/// Start of a Hamming hit ending at j.
inline std::uint64_t hamming_start(const compiled_pattern& p, std::uint64_t j) { return j + 1 - p.m; }

// ---- best approximate substring (best.cpp, best_myers.cpp, best_wavefront.cpp) ----------
/// The best score among ends j in [lo, hi) of y, computed from a fresh DP at ctx
/// (ctx <= lo - 2|x| or 0), and one occurrence per end achieving it (leftmost start).
struct best_piece {
  std::uint32_t distance = ~std::uint32_t{0};
  std::vector<hit> occurrences;
};
/// Myers over the ends with score <= bound only (bound: a known upper bound of ASM(x, y);
/// pieces whose best is above it report none and distance stays ~0).
/// True when best_piece_myers of a pattern of m bytes over a piece of `piece` bytes at `simd`
/// needs no upper bound of ASM to be fast: the striped blocked engine computes every block anyway.
bool best_bound_unneeded(std::size_t m, std::size_t piece, simd_level simd = simd_level::automatic);
/// For the best approximate substring, m > 64 on AVX-512F: passes to sink, in ascending order,
/// every end j in [report_from, to) with score_j <= k that is no worse than any earlier end of
/// its stripe (a superset of the ends of the smallest score: what a minimum-keeping sink needs),
/// scanning from `from` as scan_myers_blocked does. False (nothing done) when the range is too
/// short for its 32 stripes or m <= 64. `Vbmi`: the 4-bit byte codes (below) may be used.
/// myers_blocked_avx512.cpp
inline constexpr std::size_t blocked_stripes_avx512_count = 32;
template <bool Vbmi>
bool best_ends_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                              std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);
/// The 3-bit byte codes of a small alphabet that both striped blocked kernels read Peq by
/// (from registers, by a permute, instead of a gather): at most 8 byte values with a Peq (any
/// bytes), in at most 7 distinct Peq rows; code r + 1 for the r-th distinct row in byte order,
/// code 0 for every byte without a Peq. The kernels turn text bytes into codes by a two-nibble
/// one-hot lookup: byte x -> bit i when x == value[i], as nib_lo[x & 15] & nib_hi[x >> 4] (bit
/// i is set in nib_lo only at value[i]'s low nibble and in nib_hi only at its high nibble, so
/// both hold it exactly for x = value[i]); then bit i -> code[i]. myers_blocked.cpp
struct blocked_byte_codes {
  bool small = false;              ///< false: more than 8 values or 7 rows (nothing else set)
  std::size_t values = 0;          ///< byte values with a Peq
  std::size_t rows = 0;            ///< distinct Peq rows among them: codes 1..rows
  std::uint8_t value[8] = {};      ///< the byte values, ascending
  std::uint8_t code[8] = {};       ///< the code of value[i]
  std::uint8_t row_byte[8] = {};   ///< row_byte[c]: a byte of code c (1..rows)
  std::uint8_t byte_code[256] = {};
  alignas(16) std::uint8_t nib_lo[16] = {}, nib_hi[16] = {};
};
blocked_byte_codes make_blocked_byte_codes(const compiled_pattern& p);
/// How scan_myers_blocked_avx512 reads p's Peq: 3 from 3-bit byte codes (blocked_byte_codes::
/// small, any CPU), else 4 from 4-bit ones (`vbmi`: the kernel runs with Vbmi; at most 15 byte
/// values with a Peq, all in 0x40-0x7F), else 0 by gathers. myers_blocked_avx512.cpp
int blocked_stripes_code_bits(const compiled_pattern& p, bool vbmi);
/// scan_myers_blocked's contract (every end <= k, ascending) over 32 stripes in AVX-512 lanes,
/// every block computed (no cut-off). False (nothing done) when the range is too short for
/// its stripes or m <= 64. myers_blocked_avx512.cpp
template <bool Vbmi>
bool scan_myers_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                               std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);
/// The AVX2 counterparts (myers_blocked_avx2.cpp): the same contracts over 16 stripes in the
/// 64-bit lanes of AVX2 registers (the same plan and length rule, blocked_stripes_plan.hpp).
/// Peq by gather, or, when
/// blocked_stripes_coded_avx2(p) (at most 8 byte values with a Peq in at most 7 distinct Peq
/// rows: DNA, 0/1 texts; any bytes), by vpermd from registers after byte codes.
inline constexpr std::size_t blocked_stripes_avx2_count = 16;
bool best_ends_blocked_avx2(const compiled_pattern& p, std::string_view seq, std::size_t from,
                            std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);
bool blocked_stripes_coded_avx2(const compiled_pattern& p);
bool scan_myers_blocked_avx2(const compiled_pattern& p, std::string_view seq, std::size_t from,
                             std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);
/// The striped blocked kernels' common signature.
using blocked_kernel = bool (*)(const compiled_pattern& p, std::string_view seq, std::size_t from,
                                std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink);
/// The striped blocked kernels of one SIMD level (the dispatch table's choice,
/// common/dispatch.hpp): every end <= k (scan), the best approximate substring's ends (best),
/// and their stripe count. nullptr and 0 where the level has none.
struct blocked_kernels {
  blocked_kernel scan = nullptr;
  blocked_kernel best = nullptr;
  std::size_t stripes = 0;
};
best_piece best_piece_myers(std::string_view x, std::string_view y, std::size_t ctx, std::size_t lo, std::size_t hi,
                            std::uint32_t bound, simd_level simd = simd_level::automatic);
best_piece best_piece_wavefront(std::string_view x, std::string_view y, std::size_t ctx, std::size_t lo,
                                std::size_t hi);

}  // namespace trawl::approx_detail
