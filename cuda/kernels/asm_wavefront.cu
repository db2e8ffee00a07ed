// cuda/kernels/asm_wavefront.cu — the faithful wavefront engine of the best approximate
// substring, and the reductions that turn per-end scores into (minimum, ends).
#include <algorithm>

#include "agents/asm_wavefront.cuh"
#include "agents/emit.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

__global__ void asm_wavefront_kernel(const std::uint8_t* x, std::uint32_t m, const std::uint8_t* y, std::size_t n,
                                     std::uint32_t* scores, std::size_t piece) {
  extern __shared__ std::uint32_t diag[];
  const std::size_t a = static_cast<std::size_t>(blockIdx.x) * piece;
  if (a >= n) return;
  const std::size_t b = std::min(a + piece, n);
  auto* ys = reinterpret_cast<std::uint8_t*>(diag + 3 * (static_cast<std::size_t>(m) + 1));
  asm_wavefront_agent{x, m, y, diag, ys}.run(a, b, scores);
}

void launch_asm_wavefront(const std::uint8_t* x, std::uint32_t m, const std::uint8_t* y, std::size_t n,
                          std::uint32_t* scores, std::size_t piece_length, int sm_count, cudaStream_t stream) {
  if (n == 0) return;
  if (m == 0 || m > 1024) throw trawl::error(errc::unsupported, "the wavefront engine needs 1 <= |X| <= 1024");
  const unsigned threads = (m + 31) / 32 * 32;
  std::size_t piece = piece_length;
  if (piece == 0) {
    // about two blocks' worth of threads per SM in flight, each piece at least 4m long
    const std::size_t blocks = static_cast<std::size_t>(sm_count) * std::min<std::size_t>(32, std::max<std::size_t>(1, 2048 / threads));  // one wave
    piece = std::max<std::size_t>((n + blocks - 1) / blocks, 4 * static_cast<std::size_t>(m));
  }
  piece = std::min<std::size_t>(piece, 96 * 1024);  // the piece and its context live in shared memory
  const std::size_t grid = (n + piece - 1) / piece;
  const std::size_t smem = 3 * (static_cast<std::size_t>(m) + 1) * sizeof(std::uint32_t) + piece + 2 * m + 16;
  // The cap is the kernel's, for the whole process: set to the device's limit (not this launch's
  // need), so a concurrent search's smaller setting never fails a larger launch.
  int device = 0, optin = 0;
  TRAWL_CUDA_CHECK(cudaGetDevice(&device));
  TRAWL_CUDA_CHECK(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device));
  cudaFuncAttributes attr{};
  TRAWL_CUDA_CHECK(cudaFuncGetAttributes(&attr, asm_wavefront_kernel));
  TRAWL_CUDA_CHECK(cudaFuncSetAttribute(asm_wavefront_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        std::max(optin - static_cast<int>(attr.sharedSizeBytes), static_cast<int>(smem))));
  asm_wavefront_kernel<<<static_cast<unsigned>(grid), threads, smem, stream>>>(x, m, y, n, scores, piece);
  TRAWL_CUDA_CHECK_LAUNCH("asm_wavefront_kernel");
}

__global__ void min_reduce_kernel(const std::uint32_t* scores, std::size_t n, std::uint32_t* out) {
  std::uint32_t v = 0xffffffffu;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x)
    v = min(v, scores[i]);
  for (int d = 16; d > 0; d >>= 1) v = min(v, __shfl_xor_sync(0xffffffffu, v, d));
  if ((threadIdx.x & 31u) == 0) atomicMin(out, v);
}

void launch_min_reduce(const std::uint32_t* scores, std::size_t n, std::uint32_t* d_min, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t grid = std::min<std::size_t>((n + 255) / 256, 4096);
  min_reduce_kernel<<<static_cast<unsigned>(grid), 256, 0, stream>>>(scores, n, d_min);
  TRAWL_CUDA_CHECK_LAUNCH("min_reduce_kernel");
}

__global__ void collect_equal_kernel(const std::uint32_t* scores, std::size_t n, const std::uint32_t* d_min,
                                     std::uint64_t* ends, unsigned long long* count, std::size_t capacity) {
  const std::uint32_t best = *d_min;
  for (std::size_t i = static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n;
       i += static_cast<std::size_t>(gridDim.x) * blockDim.x) {
    if (scores[i] == best) warp_append(ends, count, capacity, static_cast<std::uint64_t>(i));
  }
}

void launch_collect_equal(const std::uint32_t* scores, std::size_t n, const std::uint32_t* d_min,
                          std::uint64_t* ends, unsigned long long* count, std::size_t capacity, cudaStream_t stream) {
  if (n == 0) return;
  const std::size_t grid = std::min<std::size_t>((n + 255) / 256, 4096);
  collect_equal_kernel<<<static_cast<unsigned>(grid), 256, 0, stream>>>(scores, n, d_min, ends, count, capacity);
  TRAWL_CUDA_CHECK_LAUNCH("collect_equal_kernel");
}

}  // namespace trawl::cuda
