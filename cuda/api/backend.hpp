// cuda/api/backend.hpp — the C++ face of trawl_cuda, included by the host glue (src/gpu, g++)
// and by the benchmarks. No CUDA type appears here.
//
// The host glue turns patterns and options into plans (which byte matches which pattern
// symbol is decided there, once); this layer moves text to the device in chunks and runs the
// kernels, handing back unordered candidates per chunk. Every failing CUDA call throws
// trawl::error(errc::gpu_error); nothing here aborts or prints.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/dna_pack.hpp"

namespace trawl::cuda {

struct device_status {
  bool present = false;
  std::string name;
  int sm_count = 0;
  std::size_t global_memory = 0;
  std::size_t shared_per_block_optin = 0;
};

/// Properties of device `device`; present = false when there is none. Never throws.
device_status query_device(int device) noexcept;

/// Creates device `device`'s primary context (the driver started first), as a first
/// allocation would. Does nothing when there is no such device. Never throws.
void start_device(int device) noexcept;

/// One (position, task, score) found by a kernel. `pos` is absolute in the sequence: the
/// start of an exact hit, the last byte (inclusive end) of an approximate one.
struct candidate {
  std::uint64_t pos = 0;
  std::uint32_t task = 0;
  std::uint32_t score = 0;
};

/// Exact search: one task = one (canonical) pattern. `fold` folds ASCII A-Z of the text to
/// a-z before comparing (the patterns are already folded).
struct exact_plan {
  std::vector<std::string> patterns;
  bool fold = false;
  /// hashed: the starts looked up in hash tables of the patterns' first (up to) 8 bytes, for
  /// sets; filter: every pattern tested at every start
  enum class engine { filter, sunday, hashed } algo = engine::filter;
  std::size_t slice_length = 0;  ///< Sunday: starts per thread; 0 = automatic
};

/// The site test of offtarget's candidate ends with bulges (src/offtarget/offtarget.cpp's
/// has_site: the PAMs the end implies, each with the bulge-aware alignment of its guide), run
/// on the device over each chunk's ends before they are copied back. An end without a site is
/// dropped; an end with one comes back with `confirmed` set in its score; an end whose bases
/// reach past the chunk's bytes comes back as it was, for the host to test; with more bulges
/// than a row of src/offtarget/site_rows.hpp holds, every end does.
struct site_end_test {
  static constexpr std::uint32_t confirmed = 1u << 31;  ///< candidate::score flag
  bool three_prime = true;
  std::uint32_t pam_limit = 0, dna_bulges = 0, rna_bulges = 0;
  std::int32_t max_edits = -1;                    ///< < 0: none
  std::vector<std::vector<std::uint8_t>> guides;  ///< per guide: IUPAC bits (A 1, C 2, G 4, T 8) from the PAM outward
  std::vector<std::int32_t> limits;               ///< per guide: mismatches allowed
  std::vector<std::vector<std::uint8_t>> pams;    ///< per PAM: IUPAC bits, 5' -> 3'
  std::vector<std::uint32_t> guide_of, pam_of;    ///< per task
  std::vector<std::uint8_t> reverse;              ///< per task: 1 on the reverse strand
};

/// The seed filter of a set of approximate tasks (src/approx/seed_filter.hpp, whose tables these
/// fields copy): text bytes of four classes roll into a two-bit code; a code whose last
/// tail_len bytes are set in `bitmap` is looked up in the open-addressing table (slot_*, Fibonacci
/// hash >> slot_shift) and compared with its entries (entry_*); each entry that matches bounds
/// its member's ends to [t + rest - k, t + rest + k] (clipped at t), which Myers verifies with
/// its task's Peq (approx_plan::peq, over approx_plan::code). Every member is also verified
/// around each run of bytes of no class (code 4).
struct seed_plan {
  std::array<std::uint8_t, 256> code{};
  std::uint32_t tail_len = 0, slot_shift = 0;
  std::vector<std::uint64_t> bitmap;
  std::vector<std::uint64_t> slot_tail;
  std::vector<std::uint32_t> slot_first, slot_count;
  std::vector<std::uint64_t> entry_key;
  std::vector<std::uint32_t> entry_member, entry_rest, entry_len;
  std::vector<std::uint32_t> member_task, member_m, member_k;
};

/// Approximate search. Text bytes are mapped to class codes (`code`, `sigma` classes); task
/// t's pattern has length lengths[t] and match bit-vectors peq[t][c * words(t) + w] (bit i of
/// word w set when pattern symbol 64w+i matches code c), words(t) = ceil(lengths[t] / 64).
struct approx_plan {
  std::array<std::uint8_t, 256> code{};
  std::uint32_t sigma = 1;
  std::vector<std::uint32_t> lengths;
  std::vector<std::vector<std::uint64_t>> peq;
  std::uint32_t k = 0;
  bool hamming = false;
  /// tiled and automatic run a lone pattern of m <= 64 through the single-pattern kernel;
  /// tiled_grouped never does (the generic tiled kernel, for comparison).
  enum class engine { automatic, tiled, warp, tiled_grouped } algo = engine::automatic;
  std::size_t slice_length = 0;  ///< ends per thread (tiled) / per warp (warp); 0 = automatic
  /// When set, the ends are site-tested on the device (with at most as many bulges as a row
  /// of src/offtarget/site_rows.hpp holds; past that the host tests them all)
  std::shared_ptr<const site_end_test> sites;
  /// When set, every task is a member of this seed filter, which scans a chunk instead of the
  /// kernels above unless its windows there are too many (then they scan it).
  std::shared_ptr<const seed_plan> seeds;
};

/// Where the time of one streamed search went (host clocks; filled when stream_config::stats
/// is set). fill_s is the wall time the fill jobs ran (first part start to last part end,
/// summed over chunks); the waits are time the calling thread was blocked.
struct stream_stats {
  std::uint64_t bytes = 0;   ///< bytes uploaded (chunks with their overlaps; packed, where they were)
  std::uint64_t chunks = 0;
  std::uint64_t packed_chunks = 0;  ///< chunks sent two bits a base
  double fill_s = 0;         ///< host → pinned fills, summed
  double fill_wait_s = 0;    ///< caller waiting for a fill to finish
  double gpu_wait_s = 0;     ///< caller waiting for a chunk's copy + kernels
  double sink_s = 0;         ///< in the chunk sink (host hit processing)
  double setup_s = 0;        ///< plan upload and staging (re)allocation
  double total_s = 0;
};

/// The device tables of one plan, kept per device between the stream calls given it
/// (stream_config::plans): a caller that scans many windows with the same plan (a matcher,
/// chunk after chunk) uploads it once per device, not once per call. Thread-safe; the tables
/// are freed with the cache. A cache serves the one plan it was first used with: a call with
/// another throws std::logic_error.
class plan_cache {
 public:
  plan_cache();
  ~plan_cache();
  plan_cache(const plan_cache&) = delete;
  plan_cache& operator=(const plan_cache&) = delete;
  struct impl;
  [[nodiscard]] impl& get() const noexcept { return *impl_; }

 private:
  std::unique_ptr<impl> impl_;
};

struct stream_config {
  int device = 0;
  /// When set, the plan's device tables are taken from it, or uploaded and kept there.
  const plan_cache* plans = nullptr;
  std::size_t chunk_size = 0;  ///< owned bytes per chunk; 0 = automatic (16 MiB)
  std::size_t slots = 0;       ///< chunks in flight (pinned + device buffers); 0 = automatic (4)
  /// When >= 0, the text bytes are read from this file descriptor at fd_offset + position
  /// with pread() into the pinned buffers instead of being copied from `seq` (which must
  /// still hold the same bytes: hits are finished against it).
  int fd = -1;
  std::uint64_t fd_offset = 0;
  bool populate = true;         ///< pre-fault `seq` per part (MADV_POPULATE_READ) before copying
  bool write_combined = false;  ///< staging buffers write-combined (a private pool is used when
                                ///< this differs from the device's persistent one)
  /// When set (and fd < 0), chunks of DNA are packed with it and sent two bits a base
  /// (src/common/dna_pack.hpp); a chunk that is not DNA enough goes as bytes, as does the
  /// rest of the stream.
  dna_pack::pack_fn pack = nullptr;
  stream_stats* stats = nullptr;
};

/// Copies seq[pos, pos + len) (or the same bytes of config.fd) into host memory `dst` the way
/// the streamer fills its pinned buffers: page-aligned parts on every core. For benchmarks.
void host_fill(void* dst, std::string_view seq, std::size_t pos, std::size_t len, const stream_config& config);

/// Frees the device's persistent staging buffers (pinned host and device memory); the next
/// streamed search allocates them again. Never throws.
void release_staging(int device) noexcept;

/// Keeps a copy of `text` in the memory of `device` while the returned handle lives: a
/// streamed search (stream_exact, stream_approx, stream_sites) of a sequence that lies inside
/// `text` reads it there instead of copying it from the host. With `pack`, DNA is packed
/// with it and kept two bits a base (src/common/dna_pack.hpp), and each window a search scans
/// is unpacked on the device; other text is kept as bytes. The bytes of `text` must not
/// change while the handle lives. Throws gpu_error (also when the device memory is short).
/// With `produce`, the bytes of `text` are not read where it lies: produce(pos, n, out) writes
/// bytes [pos, pos + n) (a text whose address only names it: src/common/reserved_text.hpp).
std::shared_ptr<const void> keep_resident(int device, std::string_view text, dna_pack::pack_fn pack,
                                          const std::function<void(std::uint64_t, std::size_t, char*)>& produce = {});
/// Whether a copy of a text that holds all of `seq` is kept on `device` (keep_resident).
bool is_resident(int device, std::string_view seq);
/// The device memory a keep_resident handle holds.
std::size_t resident_bytes(const void* handle) noexcept;

/// Receives one chunk's candidates (owned positions own_begin <= pos < own_end, unordered).
/// Chunks arrive in text order. Return false to stop.
using chunk_sink = std::function<bool(std::uint64_t own_begin, std::uint64_t own_end, std::vector<candidate>& found)>;

/// Exact search over `seq` in chunks overlapping by max m - 1. Chunks flow through a ring of
/// `slots` staging slots (pinned host buffer, device buffer, stream) that persists per device
/// across calls: while the GPU copies and scans chunks i-slots+1..i, every core fills chunk
/// i+1; the sink of a chunk runs while the next one is being filled.
void stream_exact(const exact_plan& plan, std::string_view seq, const stream_config& config, const chunk_sink& sink);

/// Approximate search over `seq` in chunks overlapping by max(m) + k - 1; reports every end
/// with score <= k.
void stream_approx(const approx_plan& plan, std::string_view seq, const stream_config& config,
                   const chunk_sink& sink);

/// Off-target sites without bulges (the PAM scan of src/offtarget/pam_scan.hpp, whose
/// pam_tables these fields copy): at each position where a PAM fits on either strand, the
/// guides one of whose protospacer blocks matches the genome exactly, tested in full. A
/// candidate is a site: pos = its last byte, task = 2 * pattern + strand (pattern = guide *
/// pams.size() + PAM; strand 1 reverse), score = its mismatches (protospacer and PAM). A guide
/// exact in two blocks is reported twice. Guides of at most max_longest bases.
struct site_plan {
  static constexpr std::uint32_t max_longest = 64;
  bool three_prime = true;
  std::uint32_t pam_limit = 0;
  std::vector<std::vector<std::uint8_t>> pams;  ///< per PAM: IUPAC bits (A 1, C 2, G 4, T 8), 5' -> 3'
  std::vector<std::uint32_t> lengths;           ///< per guide
  std::vector<std::int32_t> limits;             ///< per guide: mismatches allowed
  std::uint32_t stride = 0;                     ///< words per guide
  std::vector<std::uint64_t> words;             ///< per guide: 4-bit codes from the PAM outward, 16 per word
  /// Guide g's IUPAC bits at base i from the PAM outward.
  [[nodiscard]] unsigned code(std::size_t g, std::uint32_t i) const {
    return static_cast<unsigned>(words[g * stride + i / 16] >> (4 * (i % 16)) & 15u);
  }
  std::uint32_t shortest = 0, longest = 0, longest_pam = 0;
  std::uint32_t blocks = 0, block_len = 0;
  std::vector<std::uint32_t> first, ids, always;  ///< the block tables and the guides tested everywhere
  /// Patterns (guide x PAM) up to which each guide is compared directly with the bases beside
  /// every PAM that fits (guides of at most 32 bases of A, C, G, T, N; sites_direct.cu) instead
  /// of through the block tables: the direct test's work grows with the guides, the tables'
  /// hardly. Either gives the same sites.
  std::uint32_t direct_up_to = 64;  // the crossing on an H200: bench/records/sites-direct-*-h200.csv
};

/// Whether the direct test serves `plan` (site_plan::direct_up_to) rather than the block tables.
bool direct_serves(const site_plan& plan);

/// The sites of `plan` over `seq` in chunks overlapping by longest + longest_pam bytes.
void stream_sites(const site_plan& plan, std::string_view seq, const stream_config& config, const chunk_sink& sink);

/// Best approximate substring: the per-end scores of X against Y (Sellers), reduced on the
/// device to the minimum and the ends achieving it (ascending).
struct best_ends {
  std::uint32_t distance = 0;
  std::vector<std::uint64_t> ends;  ///< inclusive last byte of each optimal substring
};
enum class best_engine { myers, wavefront };
best_ends best_substring_ends(std::string_view x, std::string_view y, best_engine engine, std::size_t slice_length,
                              int device);

// ---- device-resident engines (benchmarks) --------------------------------------------------

/// An approximate plan uploaded once, scanning text already in device memory.
class approx_device_engine {
 public:
  approx_device_engine(const approx_plan& plan, int device);
  ~approx_device_engine();
  approx_device_engine(const approx_device_engine&) = delete;
  approx_device_engine& operator=(const approx_device_engine&) = delete;

  /// Scans device text `d_text` (len bytes, 128 readable bytes of padding after it) for ends
  /// in [0, len); writes up to `capacity` candidates to device memory `d_out` and returns the
  /// total number found (synchronous).
  std::uint64_t scan(const std::uint8_t* d_text, std::size_t len, candidate* d_out, std::size_t capacity);

  struct state;

 private:
  state* s_;
};

}  // namespace trawl::cuda
