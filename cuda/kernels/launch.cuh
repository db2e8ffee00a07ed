// cuda/kernels/launch.cuh — the launchers of every kernel (grid sizing and launch checks),
// called by the dispatch layer. Each kernel file holds its thin __global__ wrapper and its
// launcher; the per-thread/per-block work lives in cuda/agents/.
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

#include "api/backend.hpp"
#include "common/dna_pack.hpp"

namespace trawl::cuda {

/// A window of a sequence in device memory: bytes [0, len) are sequence positions
/// [base, base + len); at least 128 readable bytes follow. Owned key positions are
/// [own_begin, own_end) (relative).
struct text_window {
  const std::uint8_t* data = nullptr;
  std::size_t len = 0;
  std::size_t own_begin = 0;
  std::size_t own_end = 0;
  std::uint64_t base = 0;
};

struct candidate_sink {
  candidate* out = nullptr;
  unsigned long long* count = nullptr;
  std::size_t capacity = 0;
};

// ---- exact ----
struct exact_device_tasks {
  const std::uint8_t* bytes = nullptr;     ///< patterns, concatenated
  const std::uint64_t* offsets = nullptr;  ///< start of task t in bytes
  const std::uint32_t* lengths = nullptr;
  std::uint32_t ntasks = 0;
  std::uint32_t max_length = 0;
  bool fold = false;
  // host copies (the Sunday launcher runs one task per grid row)
  const std::uint32_t* host_lengths = nullptr;
};
void launch_exact_filter(const exact_device_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         cudaStream_t stream);
/// A pattern set in hash tables: the tasks grouped by key length q = min(m, 8), each group a
/// table from the first q bytes (little-endian in a word) to the tasks that start with them.
struct exact_hash_entry {
  std::uint64_t key = 0;
  std::uint32_t first = 0;  ///< into exact_hash_tasks::ids
  std::uint32_t count = 0;  ///< 0: an empty slot
};
/// Where a key lands in a table of mask + 1 slots (Fibonacci hashing), for the host that
/// builds a table and the kernel that reads it.
__host__ __device__ __forceinline__ std::uint64_t exact_hash_slot(std::uint64_t key, std::uint64_t mask) {
  return (key * 0x9E3779B97F4A7C15ull >> 32) & mask;
}
struct exact_hash_tasks {
  static constexpr int max_groups = 8;
  const exact_hash_entry* table[max_groups] = {};
  std::uint64_t mask[max_groups] = {};  ///< table size - 1 (a power of two)
  std::uint32_t q[max_groups] = {};
  std::uint32_t groups = 0;
  const std::uint32_t* ids = nullptr;  ///< local task indices, grouped by (group, key)
};
void launch_exact_hashed(const exact_device_tasks& tasks, const exact_hash_tasks& hash, const text_window& w,
                         const candidate_sink& sink, cudaStream_t stream);
void launch_exact_sunday(const exact_device_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         std::size_t slice_length, cudaStream_t stream);

/// The site test of candidate ends with bulges (site_end_test), on the device.
struct site_test_tasks {
  const std::uint8_t* guide_bits = nullptr;     ///< every guide's codes from the PAM outward
  const std::uint32_t* guide_offset = nullptr;  ///< guide g: guide_bits[guide_offset[g] .. guide_offset[g + 1])
  const std::int32_t* limits = nullptr;
  const std::uint8_t* pam_bits = nullptr;
  const std::uint32_t* pam_offset = nullptr;
  const std::uint32_t* guide_of = nullptr;  ///< per task
  const std::uint32_t* pam_of = nullptr;
  const std::uint8_t* reverse = nullptr;
  bool three_prime = true;
  std::uint32_t pam_limit = 0, dna_bulges = 0, rna_bulges = 0;
  std::int32_t max_edits = -1;
};

// ---- approximate ----
/// Tasks of the single-word tiled kernel: left-aligned Peq words, [task][sigma].
struct tiled_device_tasks {
  const void* peq = nullptr;  ///< std::uint32_t or std::uint64_t
  const std::uint32_t* lengths = nullptr;
  const std::uint32_t* ids = nullptr;  ///< global task id of each local task
  std::uint32_t ntasks = 0;
  std::uint32_t max_length = 0;
  bool wide = false;  ///< 64-bit words (else 32-bit)
  std::uint32_t words = 1;  ///< 64-bit words per pattern (2 or 4: multi-word, Peq [task][sigma][word])
};
/// Tasks of the multi-word kernels: code-major u64 Peq per task at offsets[t].
struct multi_device_tasks {
  const std::uint64_t* peq = nullptr;
  const std::uint64_t* offsets = nullptr;
  const std::uint32_t* lengths = nullptr;
  const std::uint32_t* ids = nullptr;
  std::uint32_t ntasks = 0;
  std::uint32_t max_length = 0;
  std::uint32_t max_words = 0;
};
struct approx_common {
  const std::uint8_t* code_map = nullptr;  ///< device, 256 entries
  std::uint32_t sigma = 1;
  std::uint32_t k = 0;
  int sm_count = 132;
  std::size_t smem_optin = 48 * 1024;
  /// When set, the kernels run only where *gate != 0, else return at once: the seed filter's
  /// fallback, decided on the device (seed_buffers::dense) without a wait on the host.
  const unsigned* gate = nullptr;
  /// With `pam_gate`, an end is kept only where a PAM of its site test may lie
  /// (agents/site_gate.cuh): the first step of that test, before the end is written.
  site_test_tasks sites;
  bool pam_gate = false;
};
/// The start of every approximate kernel: false when its launch is gated off.
__device__ __forceinline__ bool gate_open(const approx_common& c) { return c.gate == nullptr || *c.gate != 0; }
void launch_myers_tiled(const tiled_device_tasks& tasks, const approx_common& common, const text_window& w,
                        const candidate_sink& sink, std::size_t slice_length, cudaStream_t stream);
/// One pattern of m <= 64 (task.ntasks == 1, task.words == 1), 32- or 64-bit word: the
/// single-pattern engine (byte loads, Peq table at a fixed address, score checked per 8 ends).
void launch_myers_single(const tiled_device_tasks& task, const approx_common& common, const text_window& w,
                         const candidate_sink& sink, std::size_t slice_length, cudaStream_t stream);
/// When `scores` is non-null every owned end's score is written to scores[end - own_begin]
/// instead of emitting candidates (best-substring mode).
void launch_myers_warp(const multi_device_tasks& tasks, const approx_common& common, const text_window& w,
                       const candidate_sink& sink, std::uint32_t* scores, std::size_t slice_length,
                       cudaStream_t stream);
void launch_hamming(const multi_device_tasks& tasks, const approx_common& common, const text_window& w,
                    const candidate_sink& sink, cudaStream_t stream);

/// The seed filter's tables on the device (seed_plan) and the members' verification data.
struct seed_device_tasks {
  const std::uint8_t* code = nullptr;  ///< 256 entries: class 0-3, 4 none
  std::uint32_t tail_len = 0, slot_shift = 0;
  std::uint64_t slot_mask = 0;
  const std::uint64_t* bitmap = nullptr;
  const std::uint64_t* slot_tail = nullptr;
  const std::uint32_t *slot_first = nullptr, *slot_count = nullptr;
  const std::uint64_t* entry_key = nullptr;
  const std::uint32_t *entry_member = nullptr, *entry_rest = nullptr, *entry_len = nullptr;
  const std::uint32_t *member_task = nullptr, *member_m = nullptr, *member_k = nullptr;
  const std::uint64_t* peq = nullptr;  ///< [member][sigma] over approx_common's classes, left-aligned
  std::uint32_t members = 0;
};
/// A seed found: it ends at window position `pos` and is table entry `entry` (the window's
/// ends [pos + rest - k, pos + rest + k] follow from the entry). Windows are below 4 GiB.
struct seed_hit {
  std::uint32_t pos, entry;
};
/// A run edge: at `pos` a run of bytes of no class starts (end = 0) or ends (end = 1).
struct seed_edge {
  std::uint32_t pos, end;
};
/// Where pass 1 writes: counts[0] windows and counts[1] edges (past the capacities they are
/// counted, not written).
struct seed_buffers {
  seed_hit* windows = nullptr;
  seed_edge* edges = nullptr;
  unsigned long long* counts = nullptr;
  std::size_t window_capacity = 0, edge_capacity = 0;
  /// Set by pass 2: 1 when the windows and edges outgrew the capacities (or a thread of pass 1
  /// compared too many seeds): the chunk is dense, pass 2 verifies nothing and the kernels,
  /// gated by it, scan the chunk.
  unsigned* dense = nullptr;
};
/// Pass 1: every seed and run edge in the window.
void launch_seed_find(const seed_device_tasks& tasks, const text_window& w, const seed_buffers& out,
                      cudaStream_t stream);
/// Pass 2, on the counts pass 1 left on the device: sets *in.dense, and unless it is set runs
/// one-word Myers over each window and, for every member, after each run edge; ends of score
/// <= k in the window's owned range are emitted as candidates (windows that overlap emit an
/// end more than once).
void launch_seed_verify(const seed_device_tasks& tasks, const approx_common& common, const text_window& w,
                        const seed_buffers& in, const candidate_sink& sink, cudaStream_t stream);

// ---- off-target sites (site_plan) ----
struct site_device_tasks {
  const std::uint8_t* pam_bits = nullptr;     ///< every PAM's codes, concatenated
  const std::uint32_t* pam_offset = nullptr;  ///< PAM p: pam_bits[pam_offset[p] .. pam_offset[p + 1])
  std::uint32_t npams = 0;
  std::uint32_t pam_limit = 0;
  bool three_prime = true;
  const std::uint32_t* lengths = nullptr;
  const std::int32_t* limits = nullptr;
  const std::uint64_t* words = nullptr;
  std::uint32_t stride = 0;
  std::uint32_t shortest = 0, longest = 0, longest_pam = 0;
  std::uint32_t blocks = 0, block_len = 0;
  const std::uint32_t* first = nullptr;
  const std::uint32_t* ids = nullptr;
  const std::uint32_t* always = nullptr;
  std::uint32_t nalways = 0;
};
void launch_sites(const site_device_tasks& tasks, const text_window& w, const candidate_sink& sink, cudaStream_t stream);
/// One guide of the direct test (sites_direct.cu) on one PAM and strand: its bases beside the
/// PAM as 32 bases read from the planes hold them (the left protospacer in bits 32 - length ..
/// 31, the right one in bits 0 .. length - 1), in text order.
struct site_direct_guide {
  std::uint32_t bits0 = 0, bits1 = 0;  ///< the two bits of each base's code (A 0, C 1, T 2, G 3)
  std::uint32_t care = 0;              ///< the bases that are not N
  std::uint32_t mask = 0;              ///< the guide's bases
  std::int32_t length = 0, limit = 0;  ///< limit: protospacer mismatches allowed
  std::uint32_t task = 0;              ///< 2 * pattern + strand
};
struct site_direct_tasks {
  bool three_prime = true;
  std::uint32_t npams = 0, pam_limit = 0;  ///< pam_limit <= 7
  const std::uint32_t* pam_offset = nullptr;  ///< PAM p: pam_text[2 * pam_offset[p] ..), 2 * its length
  /// per PAM: its IUPAC bits in text order on the forward strand, then on the reverse one
  const std::uint8_t* pam_text = nullptr;
  /// per group 2 * PAM + strand: guides[group_first[g] .. group_first[g + 1])
  const std::uint32_t* group_first = nullptr;
  const site_direct_guide* guides = nullptr;
  std::uint32_t nguides = 0;
  std::uint32_t shared_guides = 0;  ///< set by the launch: the guides copied to shared memory (all or none)
  std::uint32_t longest = 0, longest_pam = 0;
};
void launch_sites_direct(const site_direct_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         cudaStream_t stream);

/// Tests the candidates in[0, min(*in_count, in_capacity)) of window `w` and appends to `sink`
/// those that may have a site (site_end_test).
void launch_site_test(const site_test_tasks& tasks, const text_window& w, const candidate* in,
                      const unsigned long long* in_count, std::size_t in_capacity, const candidate_sink& sink,
                      int sm_count, cudaStream_t stream);

// ---- the transfer ----
/// Writes text[0, n) from its two-bit packing (src/common/dna_pack.hpp): `packed` holds
/// (n + 3) / 4 bytes and at least 3 readable bytes after them, 4-byte aligned; `text` is
/// 16-byte aligned; runs[0, nruns) are positioned from text[0].
void launch_unpack_dna(const std::uint8_t* packed, const dna_pack::run* runs, std::size_t nruns, std::uint8_t* text,
                       std::size_t n, cudaStream_t stream);

/// A run of a text kept packed on the device (keep_resident): a dna_pack::run placed in the
/// whole text, with a position of 64 bits where a chunk's run has 32.
struct resident_run {
  std::uint64_t pos;
  std::uint32_t len;
  std::uint8_t byte;   ///< every byte of the run, unless `lower`
  std::uint8_t lower;  ///< 1: the bases' own letters in lower case
};
/// Writes text[0, n) from bases [from, from + n) of a whole text's two-bit packing: `packed`
/// 4-byte aligned, readable 4 bytes past the word of base from + n - 1; `text` 16-byte
/// aligned; runs[0, nruns): the text's runs that meet [from, from + n), in any order.
void launch_unpack_dna_window(const std::uint8_t* packed, std::uint64_t from, const resident_run* runs,
                              std::size_t nruns, std::uint8_t* text, std::size_t n, cudaStream_t stream);

// ---- best approximate substring ----
/// Man, Nakano, Ito: per-end Sellers scores of x (m <= 1024) over y, one block of m threads
/// per piece of y, three rolling anti-diagonals in shared memory.
void launch_asm_wavefront(const std::uint8_t* x, std::uint32_t m, const std::uint8_t* y, std::size_t n,
                          std::uint32_t* scores, std::size_t piece_length, int sm_count, cudaStream_t stream);
/// min over scores[0, n) into *d_min (which must hold UINT32_MAX), then every j with
/// scores[j] == *d_min appended to ends.
void launch_min_reduce(const std::uint32_t* scores, std::size_t n, std::uint32_t* d_min, cudaStream_t stream);
void launch_collect_equal(const std::uint32_t* scores, std::size_t n, const std::uint32_t* d_min,
                          std::uint64_t* ends, unsigned long long* count, std::size_t capacity, cudaStream_t stream);

}  // namespace trawl::cuda
