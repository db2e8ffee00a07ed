// cuda/kernels/myers_warp.cu — multi-word Myers (a warp per pattern × slice) and the Hamming
// kernel. O(n·⌈m/64⌉) word steps per pattern.
#include <algorithm>

#include "agents/myers_warp.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

template <int R>
__global__ void __launch_bounds__(128) myers_warp_kernel(multi_device_tasks tasks, approx_common common, text_window w,
                                                         candidate_sink sink, std::uint32_t* scores, std::size_t slice,
                                                         std::size_t pieces) {
  __shared__ std::uint8_t map_s[256];
  if (!gate_open(common)) return;
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) map_s[i] = common.code_map[i];
  __syncthreads();
  const std::size_t warp = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  const std::size_t t = warp / pieces, piece = warp % pieces;
  if (t >= tasks.ntasks) return;
  const std::size_t a = w.own_begin + piece * slice;
  if (a >= w.own_end) return;
  const std::size_t b = std::min(a + slice, w.own_end);
  myers_warp_agent<R>{tasks, common, w, sink, scores, map_s}.run(static_cast<std::uint32_t>(t), a, b);
}

void launch_myers_warp(const multi_device_tasks& tasks, const approx_common& common, const text_window& w,
                       const candidate_sink& sink, std::uint32_t* scores, std::size_t slice_length,
                       cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const std::size_t n = w.own_end - w.own_begin;
  const std::size_t ov = static_cast<std::size_t>(tasks.max_length) + common.k;
  std::size_t slice = slice_length;
  if (slice == 0) {
    const std::size_t target_warps = static_cast<std::size_t>(common.sm_count) * 64;
    const std::size_t per_task = std::max<std::size_t>(1, target_warps / tasks.ntasks);
    slice = std::max<std::size_t>({(n + per_task - 1) / per_task, 2 * ov, 256});
  }
  const std::size_t pieces = (n + slice - 1) / slice;
  const std::size_t warps = pieces * tasks.ntasks;
  const unsigned block = 128;
  const std::size_t grid = (warps * 32 + block - 1) / block;
  if (grid > 0x7fffffffu) throw trawl::error(errc::gpu_error, "myers_warp: grid too large");
  const std::uint32_t words = tasks.max_words;
  const std::uint32_t lanes_needed_r = (words + 31) / 32;
  auto go = [&](auto kernel) {
    kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(tasks, common, w, sink, scores, slice, pieces);
    TRAWL_CUDA_CHECK_LAUNCH("myers_warp_kernel");
  };
  if (lanes_needed_r <= 1) go(myers_warp_kernel<1>);
  else if (lanes_needed_r <= 2) go(myers_warp_kernel<2>);
  else if (lanes_needed_r <= 4) go(myers_warp_kernel<4>);
  else if (lanes_needed_r <= 8) go(myers_warp_kernel<8>);
  else if (lanes_needed_r <= 16) go(myers_warp_kernel<16>);
  else throw trawl::error(errc::unsupported, "GPU Myers supports patterns of at most 32768 symbols");
}

__global__ void hamming_kernel(multi_device_tasks tasks, approx_common common, text_window w, candidate_sink sink) {
  if (!gate_open(common)) return;
  __shared__ std::uint8_t map_s[256];
  for (unsigned i = threadIdx.x; i < 256; i += blockDim.x) map_s[i] = common.code_map[i];
  __syncthreads();
  const std::size_t j = w.own_begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= w.own_end) return;
  hamming_agent{tasks, common, w, sink, map_s}.run(blockIdx.y, j);
}

void launch_hamming(const multi_device_tasks& tasks, const approx_common& common, const text_window& w,
                    const candidate_sink& sink, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const unsigned block = 256;
  const std::size_t grid = (w.own_end - w.own_begin + block - 1) / block;
  for (std::uint32_t t0 = 0; t0 < tasks.ntasks; t0 += 65535) {
    multi_device_tasks sub = tasks;
    sub.lengths += t0;
    sub.offsets += t0;
    sub.ids += t0;
    sub.ntasks = std::min<std::uint32_t>(65535, tasks.ntasks - t0);
    hamming_kernel<<<dim3(static_cast<unsigned>(grid), sub.ntasks), block, 0, stream>>>(sub, common, w, sink);
    TRAWL_CUDA_CHECK_LAUNCH("hamming_kernel");
  }
}

}  // namespace trawl::cuda
