// cuda/kernels/sites.cu — off-target sites without bulges (site_plan): one thread per PAM
// start, both strands and every PAM, the block's bytes decoded once into shared memory; where a PAM fits, the guides listed under the exact
// blocks of the bases outward from it are tested by their mismatches. The host's PAM scan
// (src/offtarget/pam_scan.cpp) does the same per position; both read bases as base_bit does
// (A, C, G, T in either case; every other byte matches nothing).
#include "agents/bases.cuh"
#include "agents/emit.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {
namespace {

constexpr std::uint32_t kPerWord = 16;
constexpr std::uint32_t kMaxWords = site_plan::max_longest / kPerWord;

/// How many of the 16 nibbles of x are not zero.
__device__ __forceinline__ unsigned nonzero_nibbles(std::uint64_t x) {
  x |= x >> 1;
  x |= x >> 2;
  return static_cast<unsigned>(__popcll(x & 0x1111111111111111ull));
}

constexpr unsigned kThreads = 256;                 // threads per block
constexpr unsigned kWarps = kThreads / 32;
constexpr unsigned kRounds = 8;                     // PAM starts per thread
constexpr unsigned kWarpSpan = 32 * kRounds;        // PAM starts per warp, consecutive
constexpr unsigned kBlock = kWarps * kWarpSpan;     // PAM starts per block
/// Bytes a block reads around its PAM starts: a protospacer on either side and the longest
/// PAM; rounded up to a word, since the block table follows them.
__host__ __device__ constexpr std::size_t tile_bytes(std::size_t longest, std::size_t longest_pam) {
  return (kBlock + 2 * longest + longest_pam + 15) / 16 * 16;
}
/// The block table (first[]) is copied to shared memory when it takes at most this many bytes:
/// each PAM that fits looks up every block of its protospacer there.
constexpr std::size_t kSharedTable = std::size_t{24} << 10;  // with the tile and the queues, within 48 KiB
__host__ __device__ constexpr std::size_t table_entries(std::uint32_t blocks, std::uint32_t block_len) {
  return blocks == 0 ? 0 : std::size_t{blocks} * (std::size_t{1} << (2 * block_len)) + 1;
}

/// The block's bytes become base bits in shared memory first (coalesced loads, each byte
/// decoded once). Then, PAM by PAM, each warp tests the PAM starts of its span on both
/// strands, 32 at a time, and queues (in its own part of shared memory) the (start, strand)
/// pairs where the PAM fits; its lanes then take the queue's entries one each, so the
/// protospacer tests, needed at the few starts where a PAM fits, run with every lane busy,
/// and no warp waits for another.
__global__ void sites_kernel(site_device_tasks t, text_window w, candidate_sink sink) {
  extern __shared__ std::uint8_t tile[];
  __shared__ std::uint32_t queues[kWarps][2 * kWarpSpan];
  const unsigned lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  std::uint32_t* queue = queues[warp];
  const std::size_t reach = std::size_t{t.longest} + t.longest_pam;
  const std::size_t start = w.own_begin > reach ? w.own_begin - reach : 0;
  const std::size_t block0 = start + static_cast<std::size_t>(blockIdx.x) * kBlock;
  const std::size_t n = w.len;
  // tile[i] holds the base bit of window byte lo + i, for [lo, hi)
  const std::size_t lo = block0 > t.longest ? block0 - t.longest : 0;
  const std::size_t hi_want = block0 + kBlock + t.longest_pam + t.longest;
  const std::size_t hi = hi_want < n ? hi_want : n;
  for (std::size_t i = lo + threadIdx.x; i < hi; i += blockDim.x) tile[i - lo] = static_cast<std::uint8_t>(base_bit(w.data[i]));
  const std::size_t entries = table_entries(t.blocks, t.block_len);
  const std::uint32_t* first = t.first;
  if (entries * sizeof(std::uint32_t) <= kSharedTable) {
    auto* table = reinterpret_cast<std::uint32_t*>(tile + tile_bytes(t.longest, t.longest_pam));
    for (std::size_t i = threadIdx.x; i < entries; i += blockDim.x) table[i] = t.first[i];
    first = table;
  }
  __syncthreads();  // the only barrier: from here on each warp works alone
  const auto at = [&](std::size_t i, bool reverse) {
    const unsigned b = tile[i - lo];
    return reverse ? complement_bit(b) : b;
  };
  const std::uint32_t keys = 1u << (2 * t.block_len);
  const std::size_t span0 = block0 + warp * kWarpSpan;
  for (std::uint32_t pi = 0; pi < t.npams; ++pi) {
    const std::uint8_t* pam = t.pam_bits + t.pam_offset[pi];
    const std::size_t P = t.pam_offset[pi + 1] - t.pam_offset[pi];
    unsigned queued = 0;
    for (unsigned r = 0; r < kRounds; ++r) {
      const unsigned off = r * 32 + lane;
      const std::size_t ps = span0 + off;
      for (unsigned d = 0; d < 2; ++d) {
        bool fits = false;
        std::uint32_t pmm = 0;
        if (ps < w.own_end && ps + P <= n) {
          const bool reverse = d == 1;
          const bool left = t.three_prime == !reverse;  // the protospacer lies left of the PAM
          if (!(left ? ps + P <= w.own_begin || ps + P > w.own_end
                     : ps + P + t.longest <= w.own_begin || ps + P + t.shortest > w.own_end)) {
            for (std::size_t i = 0; i < P && pmm <= t.pam_limit; ++i)
              pmm += (pam[i] & at(reverse ? ps + P - 1 - i : ps + i, reverse)) == 0 ? 1u : 0u;
            const std::size_t avail = left ? (ps < t.longest ? ps : t.longest) : (n - ps - P < t.longest ? n - ps - P : t.longest);
            fits = pmm <= t.pam_limit && avail >= t.shortest;
          }
        }
        const unsigned ballot = __ballot_sync(0xffffffffu, fits);
        if (fits) queue[queued + __popc(ballot & ((1u << lane) - 1u))] = off | (d << 11) | (pmm << 12);
        queued += __popc(ballot);
      }
    }
    __syncwarp();
    for (unsigned q = lane; q < queued; q += 32) {
      const std::uint32_t e = queue[q];
      const std::size_t p0 = span0 + (e & 2047u);
      const unsigned d = (e >> 11) & 1u;
      const std::uint32_t pmm = e >> 12;
      const bool reverse = d == 1;
      const bool left = t.three_prime == !reverse;
      const std::size_t avail = left ? (p0 < t.longest ? p0 : t.longest) : (n - p0 - P < t.longest ? n - p0 - P : t.longest);
      // the bases outward from the PAM, packed as the guides are, in four registers (an
      // array indexed at run time would live in local memory)
      std::uint64_t tw0 = 0, tw1 = 0, tw2 = 0, tw3 = 0;
#pragma unroll
      for (unsigned i = 0; i < site_plan::max_longest; ++i) {
        if (i >= avail) break;
        const std::uint64_t b = std::uint64_t{at(left ? p0 - 1 - i : p0 + P + i, reverse)} << (4 * (i % kPerWord));
        if (i < kPerWord) tw0 |= b;
        else if (i < 2 * kPerWord) tw1 |= b;
        else if (i < 3 * kPerWord) tw2 |= b;
        else tw3 |= b;
      }
      const auto word = [&](std::uint32_t k) { return k == 0 ? tw0 : k == 1 ? tw1 : k == 2 ? tw2 : tw3; };
      const auto test = [&](std::uint32_t g) {
        const std::uint32_t m = t.lengths[g];
        if (m > avail) return;
        const std::size_t end = left ? p0 + P : p0 + P + m;
        if (end <= w.own_begin || end > w.own_end) return;
        unsigned matches = 0;
#pragma unroll
        for (std::uint32_t k = 0; k < kMaxWords; ++k)
          if (k < t.stride) matches += nonzero_nibbles(t.words[std::size_t{g} * t.stride + k] & word(k));
        const int mm = static_cast<int>(m - matches);
        if (mm > t.limits[g]) return;
        emit_candidate(sink.out, sink.count, sink.capacity, w.base + end - 1, 2 * (g * t.npams + pi) + d,
                       static_cast<std::uint32_t>(mm) + pmm);
      };
      for (std::uint32_t b = 0; b < t.blocks; ++b) {
        std::uint32_t key = 0;
        bool bases = true;
        for (std::uint32_t i = 0; i < t.block_len; ++i) {
          const unsigned bit = static_cast<unsigned>((word((b * t.block_len + i) / kPerWord) >> (4 * ((b * t.block_len + i) % kPerWord))) & 15u);
          bases = bases && bit != 0;
          key |= static_cast<std::uint32_t>((__ffs(static_cast<int>(bit | 16u)) - 1) & 3) << (2 * i);
        }
        if (!bases) continue;
        const std::uint32_t at_key = b * keys + key;
        for (std::uint32_t j = first[at_key]; j < first[at_key + 1]; ++j) test(t.ids[j]);
      }
      for (std::uint32_t j = 0; j < t.nalways; ++j) test(t.always[j]);
    }
    __syncwarp();  // the queue is read before the next PAM's
  }
}

}  // namespace

void launch_sites(const site_device_tasks& tasks, const text_window& w, const candidate_sink& sink, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.npams == 0) return;
  const std::size_t reach = std::size_t{tasks.longest} + tasks.longest_pam;
  const std::size_t start = w.own_begin > reach ? w.own_begin - reach : 0;
  const std::size_t grid = (w.own_end - start + kBlock - 1) / kBlock;
  const std::size_t entries = table_entries(tasks.blocks, tasks.block_len);
  const std::size_t shared = tile_bytes(tasks.longest, tasks.longest_pam) +
                             (entries * sizeof(std::uint32_t) <= kSharedTable ? entries * sizeof(std::uint32_t) : 0);
  sites_kernel<<<static_cast<unsigned>(grid), kThreads, shared, stream>>>(tasks, w, sink);
  TRAWL_CUDA_CHECK_LAUNCH("sites_kernel");
}

}  // namespace trawl::cuda
