// trawl/approx.hpp — approximate search (edit distance <= k) and best approximate substring.
//
// Semantics (Sellers / Myers): for a pattern P (length m) and text T, score_j is the smallest
// edit distance between P and any substring of T ending at position j (inclusive, 0-based;
// the empty substring counts, so score_j <= m always).
//  - all-ends mode reports every j with score_j <= k as hit{start = leftmost z achieving the
//    score, end = j + 1, errors = score_j}.
//  - cluster mode (default) groups maximal runs of consecutive j with score_j <= k and reports,
//    per run, the j with the smallest score (leftmost on ties), the leftmost start z achieving
//    it, and the score.
//  - Hamming mode (search_options::hamming): score_j = mismatches of P against T[j-m+1..j]
//    (only j >= m-1), start = j - m + 1; the same two report modes.
// Since score_j <= m, a bound k >= m behaves exactly like k = m (every position matches);
// engines use k' = min(k, m), so lookbehind() = max over patterns of m + k' - 1 (m - 1 for
// Hamming).
//
// Matching of one pattern byte p against a text byte t:
//  - default: p == t;  ignore_case: ASCII letters compare case-insensitively;
//  - iupac: a pattern IUPAC code (A C G T U R Y S W K M B D H V N, either case) matches the
//    bases of its set in the text, case-insensitively (U counts as T), and its own letter
//    (so N matches n); other pattern bytes follow the default / ignore_case rule.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl {

/// Builds the approximate matcher (options.max_errors >= 1, or all_ends). Key = last byte.
/// options.approx picks the engine: automatic (a set of at least 16 pattern-strands of
/// m <= 64 over at most four byte classes (DNA): the seed filter, one pass over the text
/// looking up every string within 0 or 1 edits of each pattern's pieces, each hit verified by
/// Myers, for the patterns whose seeds are selective (pieces of 6 bytes or more, hitting at
/// most 1/512 per text byte each and 1/8 together); then per pattern: the pigeonhole filter +
/// Myers verification when its k+1 pieces are >= 5 bytes (>= 8 for m <= 32 on AVX-512) and
/// there are at most 4 patterns (or m > 64); else, on a CPU with AVX-512BW or AVX2, for
/// 16 < m <= 64 and k <= 3 (k <= 10 for m > 32) the suffix filter (the pattern's last 16 or 32
/// bytes scanned by the striped kernel, every candidate end verified by Myers), and for m <= 32
/// the striped kernel (one pattern over 64 text stripes in 16/32-bit lanes); else SIMD lanes of
/// (pattern, stripe) jobs for m <= 64; else one-word / blocked Myers), myers (the same), dp
/// (Sellers' DP reference), or a single engine for tests and benchmarks: myers_word (m <= 64),
/// myers_blocked, myers_simd (lanes; options.simd forces avx2 / avx512 / serial),
/// myers_striped (AVX-512BW or AVX2 per options.simd, m <= 32; one-word / blocked Myers for
/// longer patterns), myers_filter (pigeonhole filter wherever it applies, i.e. plain bytes and
/// k < m; Myers elsewhere), myers_suffix (AVX-512BW or AVX2: the suffix filter for 16 < m <= 64
/// up to k = 8 (16 for m > 32); as myers_striped elsewhere), myers_seeds (the seed filter
/// wherever it applies, even for one pattern; elsewhere the striped kernel or one-word /
/// blocked Myers, without a filter).
/// Hamming mode always uses the Hamming engine.
/// Throws trawl::error(invalid_argument) on bad options (k < 0, empty pattern, NUL byte,
/// a SIMD level this CPU lacks).
/// Complexity: scan() is O(n·⌈m/64⌉) per pattern (Myers), O(n·m) ("dp").
std::unique_ptr<matcher> make_approx_matcher(const std::vector<std::string>& patterns,
                                             const search_options& options);

/// Leftmost start z of an optimal occurrence of `pattern` ending at j (inclusive) with score
/// `score` (= score_j): the smallest z >= lo with ED(pattern, text[z..j]) == score, found by
/// a reverse bit-parallel global DP over text[max(lo, j+1-m-score) .. j]; returns j + 1 for
/// the empty substring. Complexity O(⌈m/64⌉·(m + score)).
std::uint64_t approx_leftmost_start(std::string_view pattern, std::string_view text, std::uint64_t j,
                                    std::uint32_t score, const match_rules& rules = {},
                                    std::uint64_t lo = 0);

/// CIGAR (=, X, I, D run-length, e.g. "10=1X3=") of an optimal global alignment of `pattern`
/// against `text` (I = byte in the pattern only, D = byte in the text only). Ties prefer
/// =/X over I over D. rules.ignore_case / iupac decide what "=" means. O(m·n) time and memory;
/// throws trawl::error(invalid_argument) when m·n exceeds 2^31 cells.
/// With rules.hamming the alignment is the diagonal (=/X only; lengths must be equal).
std::string align_cigar(std::string_view pattern, std::string_view text, const match_rules& rules = {});

/// Edit distance implied by a CIGAR (count of X, I, D).
std::uint32_t cigar_errors(std::string_view cigar);

/// Result of a best approximate substring query: ASM(X, Y) = min over substrings Y' of Y of
/// ED(X, Y'), and where Y achieves it. By default one occurrence per end position j with
/// score_j == ASM, start = the leftmost z achieving it; with best_options::every_start, every
/// [start, end) at distance ASM (all starts of each such end, the empty [j+1, j+1) among them
/// when ASM == |X|). Occurrences are in ascending (end, start) order. An empty Y gives distance
/// |X| and the single occurrence [0, 0).
struct best_result {
  std::uint32_t distance = 0;
  std::vector<hit> occurrences;
};

enum class best_algorithm { automatic, myers, wavefront };

/// Parses "auto", "myers", "wavefront"; throws trawl::error(invalid_argument) otherwise.
best_algorithm parse_best_algorithm(std::string_view name);

struct best_options {
  best_algorithm algorithm = best_algorithm::automatic;  ///< automatic = myers
  unsigned threads = 0;  ///< 0 = all cores (the wavefront engine cuts Y into pieces)
  /// The Myers engine's SIMD kernels: automatic = the best this CPU has; avx2 / avx512 force
  /// that level (tests, benchmarks: the AVX2 kernels on an AVX-512 machine); serial = the
  /// scalar loops. The wavefront engine ignores it.
  simd_level simd = simd_level::automatic;
  /// Every [start, end) achieving ASM rather than the leftmost start of each best end: a
  /// reverse global Myers pass per best end after the search, on the calling thread,
  /// O(⌈|X|/64⌉·(|X| + ASM)) each. The occurrences can number (|X| + 1) per end (ASM ==
  /// |X|: every short substring), all held in the result: for large outputs stream them with
  /// for_each_optimal_substring instead.
  bool every_start = false;
  /// cpu (and automatic): the CPU engines; gpu: gpu::best_substring on device.first_gpu().
  device_spec device = device_kind::cpu;
};

/// ASM(X, Y). X may be as long as Y (or longer). Throws trawl::error on an empty X, or
/// (invalid_argument) on a best_options::simd level this CPU lacks (Myers engine).
/// Complexity: myers O(|Y|·⌈|X|/64⌉) plus O(⌈|X|/64⌉·|X|) per occurrence; wavefront
/// O(|Y|·|X|) cells over anti-diagonals, in parallel pieces overlapping by 2|X|.
best_result best_substring(std::string_view x, std::string_view y, const best_options& options = {});

/// Every [start, end) of y at distance r.distance from x, in (end, start) order, to
/// on_occurrence (which returns false to stop; then this returns false): what
/// best_options::every_start collects, streamed, for r = best_substring(x, y) in either mode.
/// Memory O(|X|); the occurrences can number (|X| + 1) per optimal end.
bool for_each_optimal_substring(std::string_view x, std::string_view y, const best_result& r,
                                const std::function<bool(const hit&)>& on_occurrence);

}  // namespace trawl
