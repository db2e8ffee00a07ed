// cuda/kernels/myers_tiled.cu — Myers over shared-memory text tiles, one pattern per thread:
// single word (m <= 32 / 64) and 2 or 4 words (m <= 256), the fast path of approximate
// search, O(n·⌈m/64⌉·patterns) word steps.
#include <algorithm>

#include "agents/myers_tiled.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

template <class Word, int W, bool Raw>
__global__ void __launch_bounds__(256) myers_tiled_kernel(tiled_device_tasks tasks, approx_common common, text_window w,
                                                          candidate_sink sink, tiled_shape shape) {
  extern __shared__ __align__(16) unsigned char smem[];
  if (!gate_open(common)) return;
  myers_tiled_agent<Word, W, Raw>{tasks, common, w, sink, shape, smem}.run();
}

namespace {

std::uint32_t next_pow2(std::uint32_t x) {
  std::uint32_t p = 1;
  while (p < x) p <<= 1;
  return p;
}

template <class Word, int W, bool Raw>
void launch_shape(const tiled_device_tasks& tasks, const approx_common& common, const text_window& w,
                  const candidate_sink& sink, tiled_shape shape, std::size_t slice_length, cudaStream_t stream) {
  auto kernel = myers_tiled_kernel<Word, W, Raw>;
  // Slice: long enough that the warm-up costs little (ov/SL <= 1/16), short enough that
  // every SM gets several blocks, rather than slices cut to fill whole waves of resident
  // blocks (tuned on an H200).
  std::size_t sl = slice_length;
  if (sl == 0) {
    sl = std::max<std::size_t>(16 * static_cast<std::size_t>(shape.ov), shape.S == 1 ? 8192 : 1024);
    const std::size_t n = w.own_end - w.own_begin;
    while (sl > 64 && n / (static_cast<std::size_t>(shape.S) * sl) < static_cast<std::size_t>(common.sm_count) * 8) sl /= 2;
  }
  if (shape.S == 1) sl = std::min<std::size_t>(sl, 64 * 1024);  // the whole slice sits in shared memory
  shape.SL = static_cast<std::uint32_t>((sl + 15) / 16 * 16);
  const std::size_t smem = tiled_peq_bytes(shape.G, common.sigma, sizeof(Word) * W, Raw) +
                           tiled_rows_bytes(shape.S, shape.SL, shape.ov);
  if (smem > common.smem_optin)
    throw trawl::error(errc::gpu_error, "myers_tiled: shared memory " + std::to_string(smem) + " exceeds the device limit");
  // The cap is the kernel's, for the whole process: every search sets the device's limit (not
  // its own need), so a concurrent search's smaller setting never fails a larger launch.
  cudaFuncAttributes attr{};
  TRAWL_CUDA_CHECK(cudaFuncGetAttributes(&attr, kernel));
  const int cap = static_cast<int>(common.smem_optin) - static_cast<int>(attr.sharedSizeBytes);
  TRAWL_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                        std::max(cap, static_cast<int>(smem))));
  const std::size_t TL = static_cast<std::size_t>(shape.S) * shape.SL;
  const std::size_t tiles = (w.own_end - w.own_begin + TL - 1) / TL;
  if (tiles > 0x7fffffffu) throw trawl::error(errc::gpu_error, "myers_tiled: text too large for one launch");
  const std::uint32_t groups = (tasks.ntasks + shape.G - 1) / shape.G;
  for (std::uint32_t y0 = 0; y0 < groups; y0 += 65535) {
    tiled_device_tasks sub = tasks;
    const std::uint32_t ny = std::min<std::uint32_t>(65535, groups - y0);
    sub.peq = static_cast<const Word*>(tasks.peq) + static_cast<std::size_t>(y0) * shape.G * common.sigma * W;
    sub.lengths += static_cast<std::size_t>(y0) * shape.G;
    sub.ids += static_cast<std::size_t>(y0) * shape.G;
    sub.ntasks = std::min<std::uint32_t>(tasks.ntasks - y0 * shape.G, ny * shape.G);
    dim3 grid(static_cast<unsigned>(tiles), ny);
    kernel<<<grid, shape.G * shape.S, smem, stream>>>(sub, common, w, sink, shape);
    TRAWL_CUDA_CHECK_LAUNCH("myers_tiled_kernel");
  }
}

}  // namespace

void launch_myers_tiled(const tiled_device_tasks& tasks, const approx_common& common, const text_window& w,
                        const candidate_sink& sink, std::size_t slice_length, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const std::size_t word_bytes = tasks.words > 1 ? 8 * tasks.words : (tasks.wide ? 8 : 4);
  tiled_shape shape;
  shape.ov = tasks.max_length + common.k - 1;
  const bool raw = tasks.ntasks <= (tasks.words > 1 ? 2u : 8u);
  if (raw) {
    shape.G = next_pow2(tasks.ntasks);
    shape.S = 256 / shape.G;
  } else {
    // as many patterns per block as fit a 48 KiB Peq table, at most 256; then spread the
    // patterns evenly over the groups (a multiple of 32 per block) so no group runs half empty
    std::uint32_t g = 256;
    while (g > 1 && static_cast<std::size_t>(common.sigma) * g * word_bytes > 48 * 1024) g >>= 1;
    while (g > 1 && g / 2 >= tasks.ntasks) g >>= 1;
    if (g >= 32 || (g >= 8 && tasks.words > 4)) {
      const std::uint32_t groups = (tasks.ntasks + g - 1) / g;
      const std::uint32_t even = (tasks.ntasks + groups - 1) / groups;
      g = std::min<std::uint32_t>(g, (even + 31) / 32 * 32);
      shape.G = g;
      shape.S = 1;
    } else {
      shape.G = g;
      shape.S = 256 / g;
    }
  }
  if (tasks.words == 16) {
    if (raw) launch_shape<std::uint64_t, 16, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint64_t, 16, false>(tasks, common, w, sink, shape, slice_length, stream);
  } else if (tasks.words == 8) {
    if (raw) launch_shape<std::uint64_t, 8, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint64_t, 8, false>(tasks, common, w, sink, shape, slice_length, stream);
  } else if (tasks.words == 2) {
    if (raw) launch_shape<std::uint64_t, 2, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint64_t, 2, false>(tasks, common, w, sink, shape, slice_length, stream);
  } else if (tasks.words == 4) {
    if (raw) launch_shape<std::uint64_t, 4, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint64_t, 4, false>(tasks, common, w, sink, shape, slice_length, stream);
  } else if (tasks.wide) {
    if (raw) launch_shape<std::uint64_t, 1, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint64_t, 1, false>(tasks, common, w, sink, shape, slice_length, stream);
  } else {
    if (raw) launch_shape<std::uint32_t, 1, true>(tasks, common, w, sink, shape, slice_length, stream);
    else launch_shape<std::uint32_t, 1, false>(tasks, common, w, sink, shape, slice_length, stream);
  }
}

}  // namespace trawl::cuda
