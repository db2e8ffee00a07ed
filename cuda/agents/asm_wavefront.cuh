// cuda/agents/asm_wavefront.cuh — per-block agent of the anti-diagonal DP for the best
// approximate substring (D. Man, K. Nakano, Y. Ito, "The approximate string matching on the
// hierarchical memory machine, with performance evaluation", MCSoC 2013).
//
// Thread i owns DP row i+1 (pattern symbol x_i). At step s it computes D[i+1][s-i], the cell
// of anti-diagonal s+1, from anti-diagonals s and s-1 held with the one being written in three
// rolling shared-memory arrays (one barrier per step). Row 0 is 0 (a match starts anywhere),
// column -1 is D[r][-1] = r. The piece of Y is staged in shared memory first. A piece of Y starts 2m-1 columns before the ends it owns: an
// optimal substring is never longer than 2m. Cost: (L + 2m + m) steps of one cell per thread.
#pragma once

#include <cstdint>

namespace trawl::cuda {

struct asm_wavefront_agent {
  const std::uint8_t* x;
  std::uint32_t m;
  const std::uint8_t* y;
  std::uint32_t* diag;  ///< 3 · (m + 1) words of shared memory
  std::uint8_t* ys;     ///< the piece of y (b - s0 bytes) in shared memory

  __device__ void run(std::size_t a, std::size_t b, std::uint32_t* scores) const {
    const std::uint32_t i = threadIdx.x;
    const std::size_t ov = 2 * static_cast<std::size_t>(m) - 1;
    const std::size_t s0 = a >= ov ? a - ov : 0;
    const int L = static_cast<int>(b - s0);
    for (int q = static_cast<int>(i); q < L; q += static_cast<int>(blockDim.x)) ys[q] = y[s0 + static_cast<std::size_t>(q)];
    const std::uint8_t xi = i < m ? x[i] : 0;
    const int first_out = static_cast<int>(a - s0);  // local column of the first owned end
    std::uint32_t* A = diag + 2 * (m + 1);  // anti-diagonal st-1
    std::uint32_t* B = diag;                // anti-diagonal st
    std::uint32_t* C = diag + (m + 1);      // anti-diagonal st+1 (written)
    __syncthreads();
    const int steps = L + static_cast<int>(m) - 1;
    const int row = static_cast<int>(i);
    for (int st = 0; st < steps; ++st) {
      const int c = st - row;
      if (i < m && c >= 0 && c < L) {
        const std::uint32_t up_left = c == 0 ? i : (i == 0 ? 0u : A[i]);
        const std::uint32_t up = i == 0 ? 0u : B[i];
        const std::uint32_t left = c == 0 ? i + 1 : B[i + 1];
        const std::uint32_t v = min(up_left + (xi != ys[c] ? 1u : 0u), min(up, left) + 1u);
        C[i + 1] = v;
        if (i == m - 1 && c >= first_out) scores[s0 + static_cast<std::size_t>(c)] = v;
      }
      std::uint32_t* t = A;
      A = B;
      B = C;
      C = t;
      __syncthreads();
    }
  }
};

}  // namespace trawl::cuda
