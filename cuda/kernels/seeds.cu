// cuda/kernels/seeds.cu — the seed filter on the device (src/approx/seed_filter.hpp has the
// method): pass 1 rolls each text byte into a two-bit code and looks its seeds up, a thread
// per 64 ends; pass 2 verifies each window with one-word Myers (myers_step.cuh), a thread per
// window.
#include <algorithm>

#include "agents/emit.cuh"
#include "agents/myers_step.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

namespace {

constexpr std::uint32_t kEnds = 64;  // ends per thread in pass 1
constexpr std::uint32_t kThreads = 256;
constexpr std::uint8_t kNone = 4;
constexpr std::uint32_t kLongest = 32;  // a seed's longest

__device__ __forceinline__ std::uint64_t len_mask(std::uint32_t len) {
  return len >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * len)) - 1;
}

__global__ void __launch_bounds__(kThreads) seed_find_kernel(seed_device_tasks t, text_window w, seed_buffers out) {
  const std::uint64_t first = (static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x) * kEnds;
  if (first >= w.own_end) return;
  const std::uint64_t last = first + kEnds < w.own_end ? first + kEnds : w.own_end;
  const std::uint64_t tail_mask = len_mask(t.tail_len);
  std::uint64_t code = 0;
  std::uint32_t valid = 0, compares = 0;
  const std::uint64_t warm = first > kLongest ? first - kLongest : 0;
  bool prev_none = warm > 0 && t.code[w.data[warm - 1]] == kNone;
  for (std::uint64_t j = warm; j < last; ++j) {
    const std::uint8_t x = __ldg(t.code + w.data[j]);
    const bool none = x == kNone;
    // a run starts at j (or the window does, inside one), or one ended before j
    if (j >= first && (none ? !prev_none || j == 0 : prev_none)) {
      const unsigned long long at = atomicAdd(out.counts + 1, 1ull);
      if (at < out.edge_capacity) out.edges[at] = seed_edge{static_cast<std::uint32_t>(j), none ? 0u : 1u};
    }
    prev_none = none;
    if (none) {
      valid = 0;
      continue;
    }
    code = code << 2 | x;
    valid = valid < 64 ? valid + 1 : 64;
    if (j < first || valid < t.tail_len) continue;
    const std::uint64_t tail = code & tail_mask;
    if (((__ldg(t.bitmap + (tail >> 6)) >> (tail & 63)) & 1u) == 0) continue;
    std::uint64_t s = (tail * 0x9E3779B97F4A7C15ull) >> t.slot_shift;
    while (__ldg(t.slot_count + s) == 0 || __ldg(t.slot_tail + s) != tail) s = (s + 1) & t.slot_mask;
    const std::uint32_t e0 = __ldg(t.slot_first + s), e1 = e0 + __ldg(t.slot_count + s);
    // seeds that share a tail (many patterns with a common end, over text repeating it) cost
    // their compares whether or not they hit: past 16 a byte, the chunk counts as dense
    compares += e1 - e0;
    if (compares > 16 * kEnds) {
      atomicAdd(out.counts, static_cast<unsigned long long>(out.window_capacity) + 1);
      return;
    }
    for (std::uint32_t e = e0; e < e1; ++e) {
      const std::uint32_t len = __ldg(t.entry_len + e);
      if (len > valid || (code & len_mask(len)) != __ldg(t.entry_key + e)) continue;
      const unsigned long long at = atomicAdd(out.counts, 1ull);
      if (at < out.window_capacity) out.windows[at] = seed_hit{static_cast<std::uint32_t>(j), e};
    }
  }
}

__global__ void seed_decide_kernel(seed_buffers b, std::uint32_t members) {
  const unsigned long long windows = b.counts[0], edges = b.counts[1];
  *b.dense = windows > b.window_capacity || edges > b.edge_capacity || windows + edges * members > b.window_capacity;
}

/// Item i of pass 2: window i, or past the windows a (run edge, member) pair.
__device__ void verify_item(const seed_device_tasks& t, const approx_common& common, const text_window& w,
                            const seed_buffers& in, std::uint64_t windows, std::uint64_t i, const candidate_sink& sink) {
  std::uint32_t mi;
  std::uint64_t lo, hi;
  if (i < windows) {
    const seed_hit h = in.windows[i];
    mi = __ldg(t.entry_member + h.entry);
    const std::uint32_t rest = __ldg(t.entry_rest + h.entry), k = __ldg(t.member_k + mi);
    lo = h.pos + (rest > k ? rest - k : 0);
    hi = std::uint64_t{h.pos} + rest + k;
  } else {
    // An alignment that holds a byte of no class ends inside its run's first k bytes, or after
    // the run, starting at most k bytes before its end: within m + k of it.
    const seed_edge e = in.edges[(i - windows) / t.members];
    mi = static_cast<std::uint32_t>((i - windows) % t.members);
    const std::uint32_t k = __ldg(t.member_k + mi);
    if (k == 0) return;
    lo = e.pos;
    hi = e.end ? e.pos + __ldg(t.member_m + mi) + k : e.pos + k - 1;
  }
  if (lo < w.own_begin) lo = w.own_begin;
  if (hi >= w.own_end) hi = w.own_end - 1;
  if (lo > hi) return;
  const std::uint32_t m = __ldg(t.member_m + mi), k = __ldg(t.member_k + mi);
  const std::uint64_t warm = m + k - 1;  // an end's occurrence lies in the m + k - 1 bytes before it
  const std::uint64_t* peq = t.peq + static_cast<std::uint64_t>(mi) * common.sigma;  // left-aligned
  const std::uint32_t task = __ldg(t.member_task + mi);
  std::uint64_t pv = ~std::uint64_t{0} << (64 - m), mv = 0;  // D[i] = i in the pattern's rows
  int score = static_cast<int>(m);
  for (std::uint64_t j = lo > warm ? lo - warm : 0; j <= hi; ++j) {
    score += myers_search_step(__ldg(peq + __ldg(common.code_map + w.data[j])), pv, mv);
    if (j >= lo && score <= static_cast<int>(k))
      emit_candidate(sink.out, sink.count, sink.capacity, w.base + j, task, static_cast<std::uint32_t>(score));
  }
}

__global__ void __launch_bounds__(kThreads) seed_verify_kernel(seed_device_tasks t, approx_common common,
                                                               text_window w, seed_buffers in, candidate_sink sink) {
  if (*in.dense != 0) return;
  const std::uint64_t windows = in.counts[0], n = windows + in.counts[1] * t.members;
  const std::uint64_t stride = static_cast<std::uint64_t>(gridDim.x) * kThreads;
  for (std::uint64_t i = static_cast<std::uint64_t>(blockIdx.x) * kThreads + threadIdx.x; i < n; i += stride)
    verify_item(t, common, w, in, windows, i, sink);
}

}  // namespace

void launch_seed_find(const seed_device_tasks& tasks, const text_window& w, const seed_buffers& out,
                      cudaStream_t stream) {
  if (w.own_end <= w.own_begin) return;
  const std::size_t threads = (w.own_end + kEnds - 1) / kEnds;
  const std::size_t blocks = (threads + kThreads - 1) / kThreads;
  seed_find_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(tasks, w, out);
  TRAWL_CUDA_CHECK_LAUNCH("seed_find_kernel");
}

void launch_seed_verify(const seed_device_tasks& tasks, const approx_common& common, const text_window& w,
                        const seed_buffers& in, const candidate_sink& sink, cudaStream_t stream) {
  seed_decide_kernel<<<1, 1, 0, stream>>>(in, tasks.members);
  TRAWL_CUDA_CHECK_LAUNCH("seed_decide_kernel");
  if (w.own_end <= w.own_begin) return;
  // a grid-stride loop over at most window_capacity items (more make the chunk dense)
  const std::size_t blocks = std::clamp<std::size_t>((in.window_capacity + kThreads - 1) / kThreads, 1,
                                                     static_cast<std::size_t>(std::max(1, common.sm_count)) * 16);
  seed_verify_kernel<<<static_cast<unsigned>(blocks), kThreads, 0, stream>>>(tasks, common, w, in, sink);
  TRAWL_CUDA_CHECK_LAUNCH("seed_verify_kernel");
}

}  // namespace trawl::cuda
