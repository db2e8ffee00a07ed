// cuda/kernels/myers_single.cu — Myers for one pattern of m <= 64 (one 32- or 64-bit word),
// the fast path of single-pattern approximate search: O(n·1) word steps, text read once.
#include <algorithm>

#include "agents/myers_single.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

template <class Word>
__global__ void __launch_bounds__(256) myers_single_kernel(tiled_device_tasks task, approx_common common,
                                                             text_window w, candidate_sink sink, single_shape shape) {
  if (!gate_open(common)) return;
  myers_single_agent<Word>{task, common, w, sink, shape}.run();
}

namespace {

template <class Word>
void launch_word(const tiled_device_tasks& task, const approx_common& common, const text_window& w,
                 const candidate_sink& sink, std::size_t slice_length, cudaStream_t stream) {
  constexpr std::size_t kThreads = 256;
  auto kernel = myers_single_kernel<Word>;
  single_shape shape;
  shape.ov = task.max_length + common.k - 1;
  shape.word_bytes = sizeof(Word);
  const std::size_t n = w.own_end - w.own_begin;
  std::size_t sl = slice_length;
  if (sl == 0) {
    // Slices long enough that the warm-up costs little (ov + 15 <= SL / 16) and the tiles
    // cut into whole waves of resident blocks (a last wave 3/4 full would cost 1/32).
    int per_sm = 0;
    TRAWL_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, kernel, static_cast<int>(kThreads), 0));
    const std::size_t resident = static_cast<std::size_t>(std::max(per_sm, 1)) * static_cast<std::size_t>(common.sm_count);
    const std::size_t min_sl = std::max<std::size_t>(1024, 16 * (static_cast<std::size_t>(shape.ov) + 15));
    const std::size_t tiles_min = (n + kThreads * min_sl - 1) / (kThreads * min_sl);
    if (tiles_min >= resident) {
      const std::size_t tiles = tiles_min / resident * resident;
      sl = (n + tiles * kThreads - 1) / (tiles * kThreads);
    } else {  // less than a wave: spread, but keep the warm-up below a fifth
      sl = std::max<std::size_t>({4 * (static_cast<std::size_t>(shape.ov) + 15), 64,
                                  (n + resident * kThreads - 1) / (resident * kThreads)});
    }
  }
  sl = std::min<std::size_t>(sl, std::size_t{1} << 24);
  shape.SL = static_cast<std::uint32_t>(sl);
  shape.rounds = static_cast<std::uint32_t>((sl + shape.ov + 15 + 63) / 64);
  const std::size_t tiles = (n + kThreads * sl - 1) / (kThreads * sl);
  if (tiles > 0x7fffffffu) throw trawl::error(errc::gpu_error, "myers_single: text too large for one launch");
  kernel<<<static_cast<unsigned>(tiles), static_cast<unsigned>(kThreads), 0, stream>>>(task, common, w, sink, shape);
  TRAWL_CUDA_CHECK_LAUNCH("myers_single_kernel");
}

}  // namespace

void launch_myers_single(const tiled_device_tasks& task, const approx_common& common, const text_window& w,
                         const candidate_sink& sink, std::size_t slice_length, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || task.ntasks != 1 || task.words != 1) return;
  if (task.wide) launch_word<std::uint64_t>(task, common, w, sink, slice_length, stream);
  else launch_word<std::uint32_t>(task, common, w, sink, slice_length, stream);
}

}  // namespace trawl::cuda
