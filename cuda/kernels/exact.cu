// cuda/kernels/exact.cu — exact-search kernels: the first/last-byte filter (default, bound by
// memory bandwidth) and Sunday's quick search per thread over overlapping slices
// (gpu::exact_engine::sunday). Sunday: O(n·m) worst case, O(n/m) typical per pattern.
#include <algorithm>

#include "agents/emit.cuh"
#include "agents/exact_filter.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

__global__ void exact_filter_kernel(exact_device_tasks tasks, text_window w, candidate_sink sink) {
  const std::size_t p0 = (w.own_begin & ~std::size_t{15}) + 16 * (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  exact_filter_agent{tasks, w, sink}.run(p0);
}

void launch_exact_filter(const exact_device_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const std::size_t first = w.own_begin & ~std::size_t{15};
  const std::size_t threads = (w.own_end - first + 15) / 16;
  const unsigned block = 256;
  const std::size_t grid = (threads + block - 1) / block;
  exact_filter_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(tasks, w, sink);
  TRAWL_CUDA_CHECK_LAUNCH("exact_filter_kernel");
}

/// One thread per start: the 8 bytes from it (folded with -i) looked up in each key length's
/// table, the tasks found verified byte by byte past the key.
__global__ void exact_hashed_kernel(exact_device_tasks tasks, exact_hash_tasks hash, text_window w,
                                    candidate_sink sink) {
  const std::size_t pos = w.own_begin + static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (pos >= w.own_end) return;
  std::uint64_t word = 0;
  const std::size_t have = w.len - pos < 8 ? w.len - pos : 8;
  for (std::size_t i = 0; i < have; ++i) {
    unsigned char c = w.data[pos + i];
    if (tasks.fold) c = fold1(c);
    word |= static_cast<std::uint64_t>(c) << (8 * i);
  }
  for (std::uint32_t g = 0; g < hash.groups; ++g) {
    const std::uint32_t q = hash.q[g];
    if (q > have) continue;
    const std::uint64_t key = q == 8 ? word : word & ((std::uint64_t{1} << (8 * q)) - 1);
    const exact_hash_entry* table = hash.table[g];
    for (std::uint64_t at = exact_hash_slot(key, hash.mask[g]);; at = (at + 1) & hash.mask[g]) {
      const exact_hash_entry e = table[at];
      if (e.count == 0) break;
      if (e.key != key) continue;
      for (std::uint32_t j = e.first; j < e.first + e.count; ++j) {
        const std::uint32_t t = hash.ids[j];
        const std::uint32_t m = tasks.lengths[t];
        if (pos + m > w.len) continue;
        const std::uint8_t* pat = tasks.bytes + tasks.offsets[t];
        bool ok = true;
        for (std::uint32_t i = q; i < m && ok; ++i) {
          unsigned char c = w.data[pos + i];
          if (tasks.fold) c = fold1(c);
          ok = c == pat[i];
        }
        if (ok) emit_candidate(sink.out, sink.count, sink.capacity, w.base + pos, t, 0);
      }
      break;
    }
  }
}

void launch_exact_hashed(const exact_device_tasks& tasks, const exact_hash_tasks& hash, const text_window& w,
                         const candidate_sink& sink, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const unsigned block = 256;
  const std::size_t grid = (w.own_end - w.own_begin + block - 1) / block;
  exact_hashed_kernel<<<static_cast<unsigned>(grid), block, 0, stream>>>(tasks, hash, w, sink);
  TRAWL_CUDA_CHECK_LAUNCH("exact_hashed_kernel");
}

/// One thread scans the starts [a, a + slice) with Sunday's shift (the byte after the window).
__global__ void exact_sunday_kernel(exact_device_tasks tasks, text_window w, candidate_sink sink, std::size_t slice) {
  __shared__ std::uint32_t shift[256];
  const std::uint32_t t = blockIdx.y;
  const std::uint32_t m = tasks.lengths[t];
  const std::uint8_t* pat = tasks.bytes + tasks.offsets[t];
  for (unsigned c = threadIdx.x; c < 256; c += blockDim.x) shift[c] = m + 1;
  __syncthreads();
  if (threadIdx.x == 0) {
    for (std::uint32_t i = 0; i < m; ++i) {
      shift[pat[i]] = m - i;
      if (tasks.fold && pat[i] >= 'a' && pat[i] <= 'z') shift[pat[i] - 32] = m - i;
    }
  }
  __syncthreads();
  const std::size_t a = w.own_begin + slice * (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x);
  if (a >= w.own_end) return;
  const std::size_t b = std::min(a + slice, w.own_end);
  std::size_t pos = a;
  while (pos < b && pos + m <= w.len) {
    std::uint32_t i = 0;
    while (i < m) {
      unsigned char c = w.data[pos + i];
      if (tasks.fold) c = fold1(c);
      if (c != pat[i]) break;
      ++i;
    }
    if (i == m) emit_candidate(sink.out, sink.count, sink.capacity, w.base + pos, t, 0);
    if (pos + m >= w.len) break;
    pos += shift[w.data[pos + m]];
  }
}

void launch_exact_sunday(const exact_device_tasks& tasks, const text_window& w, const candidate_sink& sink,
                         std::size_t slice_length, cudaStream_t stream) {
  if (w.own_end <= w.own_begin || tasks.ntasks == 0) return;
  const std::size_t slice = slice_length ? slice_length : 256;
  const std::size_t threads = (w.own_end - w.own_begin + slice - 1) / slice;
  const unsigned block = 128;
  const std::size_t grid = (threads + block - 1) / block;
  // one task per grid row (grid.y <= 65535); task ids are the rows
  if (tasks.ntasks > 65535) throw trawl::error(errc::unsupported, "the Sunday engine takes at most 65535 patterns");
  dim3 g(static_cast<unsigned>(grid), tasks.ntasks);
  exact_sunday_kernel<<<g, block, 0, stream>>>(tasks, w, sink, slice);
  TRAWL_CUDA_CHECK_LAUNCH("exact_sunday_kernel");
}

}  // namespace trawl::cuda
