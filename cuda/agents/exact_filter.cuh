// cuda/agents/exact_filter.cuh — per-thread agent of the default exact engine: 16 candidate
// starts per thread from one aligned 16-byte load (coalesced across the warp), filtered by
// the pattern's first, second and last byte with SIMD-within-a-word compares (__vcmpeq4), survivors
// verified byte by byte. Memory-bound: O(n) bytes read once, O(n·patterns/16) filter work.
#pragma once

#include <cstdint>

#include "agents/emit.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

/// words[q + i] for a run-time q in [0, 4) without indexing a register array at run time.
__device__ __forceinline__ std::uint32_t pick_word(const std::uint32_t (&w)[8], unsigned q, int i) {
  const std::uint32_t a = w[i], b = w[i + 1], c = w[i + 2], d = w[i + 3];
  return q == 0 ? a : (q == 1 ? b : (q == 2 ? c : d));
}

__device__ __forceinline__ void load16(const std::uint8_t* p, std::uint32_t* out, bool fold) {
  const uint4 v = *reinterpret_cast<const uint4*>(p);
  out[0] = v.x;
  out[1] = v.y;
  out[2] = v.z;
  out[3] = v.w;
  if (fold) {
    for (int i = 0; i < 4; ++i) out[i] = fold4(out[i]);
  }
}

struct exact_filter_agent {
  const exact_device_tasks& tasks;
  const text_window& w;
  const candidate_sink& sink;

  __device__ void run(std::size_t p0) const {
    if (p0 >= w.own_end) return;
    std::uint32_t first[4], second[4];
    load16(w.data + p0, first, tasks.fold);
    {
      std::uint32_t nxt[4];
      load16(w.data + p0 + 16, nxt, tasks.fold);  // bytes p0+1 .. p0+16 for the second-byte filter
#pragma unroll
      for (int i = 0; i < 4; ++i) second[i] = __funnelshift_r(first[i], i < 3 ? first[i + 1] : nxt[0], 8);
    }
    for (std::uint32_t t = 0; t < tasks.ntasks; ++t) {
      const std::uint32_t m = tasks.lengths[t];
      if (p0 + m > w.len) break;  // lengths are sorted ascending: no later task fits either
      const std::uint8_t* pat = tasks.bytes + tasks.offsets[t];
      const std::uint32_t f4 = 0x01010101u * pat[0];
      const std::uint32_t l4 = 0x01010101u * pat[m - 1];
      const std::uint32_t s4 = 0x01010101u * pat[m > 1 ? 1 : 0];
      // bytes p0+m-1 .. p0+m+14: two aligned loads and a funnel shift by (m-1) % 16 bytes
      const std::size_t q = p0 + m - 1;
      std::uint32_t win[8];
      load16(w.data + (q & ~std::size_t{15}), win, tasks.fold);
      load16(w.data + (q & ~std::size_t{15}) + 16, win + 4, tasks.fold);
      const unsigned r = static_cast<unsigned>(q & 15u);
      const unsigned qw = r >> 2, sh = 8u * (r & 3u);
      std::uint32_t hits = 0;  // bit b set: start p0 + b passes the filter
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::uint32_t lo = pick_word(win, qw, i), hi = pick_word(win, qw, i + 1);
        const std::uint32_t last = __funnelshift_r(lo, hi, sh);
        std::uint32_t mk = __vcmpeq4(first[i], f4) & __vcmpeq4(last, l4);
        if (m > 2) mk &= __vcmpeq4(second[i], s4);
        // one bit per byte lane
        std::uint32_t bits = ((mk >> 7) & 1u) | ((mk >> 14) & 2u) | ((mk >> 21) & 4u) | ((mk >> 28) & 8u);
        hits |= bits << (4 * i);
      }
      while (hits) {
        const int b = __ffs(static_cast<int>(hits)) - 1;
        hits &= hits - 1;
        const std::size_t pos = p0 + static_cast<std::size_t>(b);
        if (pos < w.own_begin || pos >= w.own_end || pos + m > w.len) continue;
        bool ok = true;
        for (std::uint32_t i = 2; i + 1 < m && ok; ++i) {
          unsigned char c = w.data[pos + i];
          if (tasks.fold) c = fold1(c);
          ok = c == pat[i];
        }
        if (ok) emit_candidate(sink.out, sink.count, sink.capacity, w.base + pos, t, 0);
      }
    }
  }
};

}  // namespace trawl::cuda
