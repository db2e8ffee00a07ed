// cuda/kernels/sites.cu — off-target sites without bulges (site_plan): one thread per PAM
// start, both strands and every PAM; where a PAM fits, the guides listed under the exact
// blocks of the bases outward from it are tested by their mismatches. The host's PAM scan
// (src/offtarget/pam_scan.cpp) does the same per position; both read bases as base_bit does
// (A, C, G, T in either case; every other byte matches nothing).
#include "agents/emit.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {
namespace {

constexpr std::uint32_t kPerWord = 16;
constexpr std::uint32_t kMaxWords = site_plan::max_longest / kPerWord;

/// A genome byte's base bit (A 1, C 2, G 4, T 8), complemented on the reverse strand; 0 for a
/// byte that is not a base.
__device__ __forceinline__ unsigned base_bits(unsigned char c, bool reverse) {
  unsigned b = 0;
  switch (c | 0x20) {
    case 'a': b = 1; break;
    case 'c': b = 2; break;
    case 'g': b = 4; break;
    case 't': b = 8; break;
    default: return 0;  // (c | 0x20) is a lower-case base only for that base in either case
  }
  return reverse ? ((b & 1u) << 3) | ((b & 2u) << 1) | ((b & 4u) >> 1) | ((b & 8u) >> 3) : b;
}

/// How many of the 16 nibbles of x are not zero.
__device__ __forceinline__ unsigned nonzero_nibbles(std::uint64_t x) {
  x |= x >> 1;
  x |= x >> 2;
  return static_cast<unsigned>(__popcll(x & 0x1111111111111111ull));
}

__global__ void sites_kernel(site_device_tasks t, text_window w, candidate_sink sink) {
  const std::size_t reach = std::size_t{t.longest} + t.longest_pam;
  const std::size_t start = w.own_begin > reach ? w.own_begin - reach : 0;
  const std::size_t ps = start + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (ps >= w.own_end) return;
  const std::size_t n = w.len;
  const std::uint32_t keys = 1u << (2 * t.block_len);
  for (unsigned d = 0; d < 2; ++d) {
    const bool reverse = d == 1;
    const bool left = t.three_prime == !reverse;  // the protospacer lies left of the PAM
    for (std::uint32_t pi = 0; pi < t.npams; ++pi) {
      const std::uint8_t* pam = t.pam_bits + t.pam_offset[pi];
      const std::size_t P = t.pam_offset[pi + 1] - t.pam_offset[pi];
      if (ps + P > n) continue;
      if (left ? ps + P <= w.own_begin || ps + P > w.own_end
               : ps + P + t.longest <= w.own_begin || ps + P + t.shortest > w.own_end)
        continue;
      std::uint32_t pmm = 0;
      for (std::size_t i = 0; i < P && pmm <= t.pam_limit; ++i)
        pmm += (pam[i] & base_bits(w.data[reverse ? ps + P - 1 - i : ps + i], reverse)) == 0 ? 1u : 0u;
      if (pmm > t.pam_limit) continue;
      const std::size_t avail = left ? (ps < t.longest ? ps : t.longest) : (n - ps - P < t.longest ? n - ps - P : t.longest);
      if (avail < t.shortest) continue;
      // the bases outward from the PAM, packed as the guides are
      std::uint64_t tw[kMaxWords] = {};
      for (std::size_t i = 0; i < avail; ++i) {
        const unsigned char c = w.data[left ? ps - 1 - i : ps + P + i];
        tw[i / kPerWord] |= std::uint64_t{base_bits(c, reverse)} << (4 * (i % kPerWord));
      }
      const auto test = [&](std::uint32_t g) {
        const std::uint32_t m = t.lengths[g];
        if (m > avail) return;
        const std::size_t end = left ? ps + P : ps + P + m;
        if (end <= w.own_begin || end > w.own_end) return;
        unsigned matches = 0;
        for (std::uint32_t k = 0; k < t.stride; ++k) matches += nonzero_nibbles(t.words[std::size_t{g} * t.stride + k] & tw[k]);
        const int mm = static_cast<int>(m - matches);
        if (mm > t.limits[g]) return;
        emit_candidate(sink.out, sink.count, sink.capacity, w.base + end - 1, 2 * (g * t.npams + pi) + d,
                       static_cast<std::uint32_t>(mm) + pmm);
      };
      for (std::uint32_t b = 0; b < t.blocks; ++b) {
        std::uint32_t key = 0;
        bool bases = true;
        for (std::uint32_t i = 0; i < t.block_len; ++i) {
          const unsigned bit = static_cast<unsigned>((tw[(b * t.block_len + i) / kPerWord] >> (4 * ((b * t.block_len + i) % kPerWord))) & 15u);
          bases = bases && bit != 0;
          key |= static_cast<std::uint32_t>((__ffs(static_cast<int>(bit | 16u)) - 1) & 3) << (2 * i);
        }
        if (!bases) continue;
        const std::uint32_t at = b * keys + key;
        for (std::uint32_t j = t.first[at]; j < t.first[at + 1]; ++j) test(t.ids[j]);
      }
      for (std::uint32_t j = 0; j < t.nalways; ++j) test(t.always[j]);
    }
  }
}

}  // namespace

void launch_sites(const site_device_tasks& tasks, const text_window& w, const candidate_sink& sink, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.npams == 0) return;
  const std::size_t reach = std::size_t{tasks.longest} + tasks.longest_pam;
  const std::size_t start = w.own_begin > reach ? w.own_begin - reach : 0;
  const unsigned block = 256;
  const std::size_t grid = (w.own_end - start + block - 1) / block;
  sites_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(tasks, w, sink);
  TRAWL_CUDA_CHECK_LAUNCH("sites_kernel");
}

}  // namespace trawl::cuda
