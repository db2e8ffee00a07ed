// cuda/kernels/sites_direct.cu — off-target sites without bulges for guides of at most 32
// bases of A, C, G, T and N (site_plan's direct_up_to): each guide compared directly with the
// bases beside every PAM that fits, two bits a base.
//
// A block turns its bytes into three bit planes in shared memory, one bit a position: the two
// bits of each base's code (A 0, C 1, T 2, G 3: bits 1 and 2 of its ASCII letter) and whether
// the byte is a base at all. A thread owns 32 consecutive PAM starts. For each PAM and strand it
// finds, 32 starts at once, where the PAM fits (the planes shifted by each PAM base; with PAM
// mismatches, a bit-sliced count of them); then at each start where it does, the 32 bases
// beside the PAM, read once from the planes, are compared with every guide of that PAM and
// strand: mismatches = popcount(((bits0 ^ guide0) | (bits1 ^ guide1)) & care | not a base).
// The work grows with the guides times the PAMs that fit; the block tables (sites.cu) do
// better for many guides.
#include "agents/bases.cuh"
#include "agents/emit.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {
namespace {

constexpr unsigned kThreads = 256;
constexpr unsigned kStarts = 32 * kThreads;  // PAM starts per block, 32 per thread
constexpr std::size_t kSharedBytes = std::size_t{16} << 10;  // planes and guides, for several blocks an SM

/// Plane words a block keeps: a word before its starts (the protospacer left of a PAM), its
/// starts, and a PAM and 32 bases past them, and one word more for the shifted reads.
__host__ __device__ constexpr unsigned plane_words(unsigned longest_pam) { return 1 + kThreads + (longest_pam + 32 + 31) / 32 + 1; }

/// Bits 0, 8, 16, 24 of x as bits 0..3.
__device__ __forceinline__ std::uint32_t gather4(std::uint32_t x) { return ((x & 0x01010101u) * 0x10204080u) >> 28; }

/// The three planes' words of the 32 bytes at p (all of them inside the text, 16-byte aligned).
__device__ __forceinline__ void decode32(const std::uint8_t* p, std::uint32_t& b0, std::uint32_t& b1, std::uint32_t& v) {
  const uint4 q0 = *reinterpret_cast<const uint4*>(p), q1 = *reinterpret_cast<const uint4*>(p + 16);
  const std::uint32_t u[8] = {q0.x, q0.y, q0.z, q0.w, q1.x, q1.y, q1.z, q1.w};
  b0 = b1 = v = 0;
#pragma unroll
  for (int i = 0; i < 8; ++i) {
    const std::uint32_t f = u[i] | 0x20202020u;  // lower case; only A and a become a, and so on
    const std::uint32_t base = __vcmpeq4(f, 0x61616161u) | __vcmpeq4(f, 0x63636363u) | __vcmpeq4(f, 0x67676767u) |
                               __vcmpeq4(f, 0x74747474u);
    b0 |= gather4(u[i] >> 1) << (4 * i);
    b1 |= gather4(u[i] >> 2) << (4 * i);
    v |= gather4(base) << (4 * i);
  }
}

/// 32 bits of a plane from bit q on.
__device__ __forceinline__ std::uint32_t bits32(const std::uint32_t* plane, unsigned q) {
  return __funnelshift_r(plane[q / 32], plane[q / 32 + 1], q % 32);
}

/// Which of 32 bases (planes' bits e0, e1, ev) are in the IUPAC set `code` (A 1, C 2, G 4, T 8).
__device__ __forceinline__ std::uint32_t in_set(unsigned code, std::uint32_t e0, std::uint32_t e1, std::uint32_t ev) {
  if (code == 15u) return ev;
  std::uint32_t m = 0;
  if (code & 1u) m |= ~e0 & ~e1;
  if (code & 2u) m |= e0 & ~e1;
  if (code & 4u) m |= e0 & e1;
  if (code & 8u) m |= ~e0 & e1;
  return m & ev;
}

__global__ void sites_direct_kernel(site_direct_tasks t, text_window w, candidate_sink sink, std::int64_t first_start) {
  extern __shared__ std::uint32_t planes[];  // b0 at [0, W), b1 at [W, 2W), "a base" at [2W, 3W)
  const unsigned W = plane_words(t.longest_pam);
  // the guides follow the planes when they fit there, as the launch decided
  const site_direct_guide* guides = t.guides;
  if (t.shared_guides != 0) {
    auto* copy = reinterpret_cast<site_direct_guide*>(planes + 3 * W);
    for (unsigned i = threadIdx.x; i < t.shared_guides; i += kThreads) copy[i] = t.guides[i];
    guides = copy;
  }
  const std::int64_t block0 = first_start + static_cast<std::int64_t>(blockIdx.x) * kStarts;
  const std::int64_t row0 = block0 - 32;  // the text position of the planes' bit 0
  const auto n = static_cast<std::int64_t>(w.len);
  for (unsigned r = threadIdx.x; r < W; r += kThreads) {
    const std::int64_t at = row0 + 32 * static_cast<std::int64_t>(r);
    std::uint32_t b0 = 0, b1 = 0, v = 0;
    if (at >= 0 && at + 32 <= n) {
      decode32(w.data + at, b0, b1, v);
    } else {
      for (int i = 0; i < 32; ++i) {
        if (at + i < 0 || at + i >= n) continue;
        const unsigned char c = w.data[at + i];
        b0 |= static_cast<std::uint32_t>(c >> 1 & 1u) << i;
        b1 |= static_cast<std::uint32_t>(c >> 2 & 1u) << i;
        v |= static_cast<std::uint32_t>(base_bit(c) != 0) << i;
      }
    }
    planes[r] = b0;
    planes[W + r] = b1;
    planes[2 * W + r] = v;
  }
  __syncthreads();  // the only barrier: from here on each thread works alone
  const std::int64_t x0 = block0 + 32 * static_cast<std::int64_t>(threadIdx.x);  // the thread's first PAM start
  if (x0 >= static_cast<std::int64_t>(w.own_end)) return;
  const unsigned q0 = 32 * (threadIdx.x + 1);  // bit of x0 in the planes
  for (std::uint32_t group = 0; group < 2 * t.npams; ++group) {
    const std::uint32_t pi = group / 2;
    const std::uint32_t P = t.pam_offset[pi + 1] - t.pam_offset[pi];
    const bool reverse = group % 2 == 1;
    const bool left = t.three_prime == !reverse;  // the protospacer lies left of the PAM
    // where the PAM fits among the 32 starts, its mismatches counted (bit-sliced, 3 bits,
    // started at 7 - pam_limit so that the carry out marks a start past the limit)
    std::uint32_t live = ~0u, c0 = 0, c1 = 0, c2 = 0;
    const std::uint32_t s = 7u - t.pam_limit;
    c0 = s & 1u ? ~0u : 0u;
    c1 = s & 2u ? ~0u : 0u;
    c2 = s & 4u ? ~0u : 0u;
    for (std::uint32_t i = 0; i < P && live != 0; ++i) {
      // base i of the PAM in text order; on the reverse strand the PAM is read backwards, complemented
      const unsigned code = t.pam_text[t.pam_offset[pi] * 2 + (reverse ? P + i : i)];
      const unsigned q = q0 + i;
      const std::uint32_t miss = ~in_set(code, bits32(planes, q), bits32(planes + W, q), bits32(planes + 2 * W, q));
      if (t.pam_limit == 0) {
        live &= ~miss;
      } else {
        std::uint32_t x = miss & live, carry = c0 & x;
        c0 ^= x;
        x = carry, carry = c1 & x, c1 ^= x;
        x = carry, carry = c2 & x, c2 ^= x;
        live &= ~carry;
      }
    }
    const std::uint32_t g0 = t.group_first[group], g1 = t.group_first[group + 1];
    while (live != 0) {
      const unsigned b = static_cast<unsigned>(__ffs(static_cast<int>(live)) - 1);
      live &= live - 1;
      const std::int64_t ps = x0 + b;
      if (ps < 0 || ps + P > n) continue;
      const std::uint32_t pmm = t.pam_limit == 0 ? 0u : (((c0 >> b) & 1u) | ((c1 >> b) & 1u) << 1 | ((c2 >> b) & 1u) << 2) - s;
      // the 32 bases beside the PAM: before it (bit 31 next to it) or after it (bit 0 next to it)
      const unsigned q = left ? q0 + b - 32 : q0 + b + P;
      const std::uint32_t e0 = bits32(planes, q), e1 = bits32(planes + W, q), ev = ~bits32(planes + 2 * W, q);
      for (std::uint32_t k = g0; k < g1; ++k) {
        const site_direct_guide& g = guides[k];
        const int mm = __popc(((((e0 ^ g.bits0) | (e1 ^ g.bits1)) & g.care) | ev) & g.mask);
        if (mm > g.limit) continue;
        const std::int64_t end = left ? ps + P : ps + P + g.length;
        if ((left ? ps < g.length : end > n) || end <= static_cast<std::int64_t>(w.own_begin) ||
            end > static_cast<std::int64_t>(w.own_end))
          continue;
        emit_candidate(sink.out, sink.count, sink.capacity, w.base + static_cast<std::uint64_t>(end) - 1, g.task,
                       static_cast<std::uint32_t>(mm) + pmm);
      }
    }
  }
}

}  // namespace

void launch_sites_direct(const site_direct_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.npams == 0) return;
  // PAM starts from the first of an owned end (a protospacer and a PAM before it), on a
  // multiple of 32 so that the planes' rows are 16-byte aligned in the window
  const std::size_t reach = std::size_t{tasks.longest} + tasks.longest_pam;
  const std::size_t first = (w.own_begin > reach ? w.own_begin - reach : 0) / 32 * 32;
  const std::size_t grid = (w.own_end - first + kStarts - 1) / kStarts;
  site_direct_tasks t = tasks;
  std::size_t shared = 3 * plane_words(tasks.longest_pam) * sizeof(std::uint32_t);
  t.shared_guides = shared + tasks.nguides * sizeof(site_direct_guide) <= kSharedBytes ? tasks.nguides : 0;
  shared += t.shared_guides * sizeof(site_direct_guide);
  sites_direct_kernel<<<static_cast<unsigned>(grid), kThreads, shared, stream>>>(t, w, sink, static_cast<std::int64_t>(first));
  TRAWL_CUDA_CHECK_LAUNCH("sites_direct_kernel");
}

}  // namespace trawl::cuda
