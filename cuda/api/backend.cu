// cuda/api/backend.cu — device queries, the best-substring driver and the device-resident
// engine used by the benchmarks.
#include <algorithm>
#include <array>

#include "api/backend.hpp"
#include "common/check.cuh"
#include "dispatch/plans.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

device_status query_device(int device) noexcept {
  device_status s;
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || device < 0 || device >= count) {
    cudaGetLastError();
    return s;
  }
  cudaDeviceProp p{};
  if (cudaGetDeviceProperties(&p, device) != cudaSuccess) {
    cudaGetLastError();
    return s;
  }
  s.present = true;
  s.name = p.name;
  s.sm_count = p.multiProcessorCount;
  s.global_memory = p.totalGlobalMem;
  s.shared_per_block_optin = p.sharedMemPerBlockOptin;
  return s;
}

void start_device(int device) noexcept {
  int count = 0;
  if (cudaGetDeviceCount(&count) == cudaSuccess && device >= 0 && device < count && cudaSetDevice(device) == cudaSuccess)
    cudaFree(nullptr);  // the runtime creates the context on the first call that needs one
  cudaGetLastError();
}

best_ends best_substring_ends(std::string_view x, std::string_view y, best_engine engine, std::size_t slice_length,
                              int device) {
  select_device(device);
  const device_status dev = query_device(device);
  best_ends result;
  const std::size_t n = y.size();
  const auto m = static_cast<std::uint32_t>(x.size());
  if (n == 0 || m == 0) return result;
  stream_owner stream;
  device_array<std::uint8_t> d_y(n + 128), d_x(m + 16);
  TRAWL_CUDA_CHECK(cudaMemset(d_y.get(), 0, n + 128));
  TRAWL_CUDA_CHECK(cudaMemcpy(d_y.get(), y.data(), n, cudaMemcpyHostToDevice));
  TRAWL_CUDA_CHECK(cudaMemcpy(d_x.get(), x.data(), m, cudaMemcpyHostToDevice));
  device_array<std::uint32_t> scores(n);
  std::unique_ptr<approx_device_plan::multi_group> group;
  device_array<std::uint8_t> d_map;
  if (engine == best_engine::wavefront) {
    launch_asm_wavefront(d_x.get(), m, d_y.get(), n, scores.get(), slice_length, dev.sm_count, stream.get());
  } else {
    // byte classes: one code per distinct byte of x, one for all others
    approx_plan plan;
    std::array<int, 256> code{};
    code.fill(-1);
    std::uint32_t sigma = 1;  // code 0 = bytes not in x
    for (unsigned char c : x)
      if (code[c] < 0) code[c] = static_cast<int>(sigma++);
    if (sigma > 256) {  // x holds all 256 byte values: no "other" class is needed
      for (int c = 0; c < 256; ++c) code[c] = c;
      sigma = 256;
    }
    for (int c = 0; c < 256; ++c) plan.code[c] = static_cast<std::uint8_t>(code[c] < 0 ? 0 : code[c]);
    plan.sigma = sigma;
    plan.lengths = {m};
    plan.k = m;
    const std::uint32_t W = (m + 63) / 64;
    plan.peq.assign(1, std::vector<std::uint64_t>(static_cast<std::size_t>(sigma) * W, 0));
    for (std::uint32_t i = 0; i < m; ++i)
      plan.peq[0][static_cast<std::size_t>(plan.code[static_cast<unsigned char>(x[i])]) * W + i / 64] |= 1ull << (i % 64);
    group = make_multi_group(plan, {0u});
    std::vector<std::uint8_t> map(plan.code.begin(), plan.code.end());
    d_map = upload(map);
    approx_common common;
    common.code_map = d_map.get();
    common.sigma = sigma;
    common.k = m;
    common.sm_count = dev.sm_count;
    text_window w{d_y.get(), n, 0, n, 0};
    launch_myers_warp(group->view, common, w, candidate_sink{}, scores.get(), slice_length, stream.get());
  }
  device_array<std::uint32_t> d_min(1);
  device_array<unsigned long long> d_count(1);
  TRAWL_CUDA_CHECK(cudaMemsetAsync(d_min.get(), 0xff, sizeof(std::uint32_t), stream.get()));
  launch_min_reduce(scores.get(), n, d_min.get(), stream.get());
  std::size_t capacity = 1 << 16;
  for (;;) {
    device_array<std::uint64_t> ends(capacity);
    TRAWL_CUDA_CHECK(cudaMemsetAsync(d_count.get(), 0, sizeof(unsigned long long), stream.get()));
    launch_collect_equal(scores.get(), n, d_min.get(), ends.get(), d_count.get(), capacity, stream.get());
    unsigned long long count = 0;
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(&count, d_count.get(), sizeof count, cudaMemcpyDeviceToHost, stream.get()));
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(&result.distance, d_min.get(), sizeof(std::uint32_t), cudaMemcpyDeviceToHost,
                                     stream.get()));
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    if (count <= capacity) {
      result.ends.resize(count);
      if (count)
        TRAWL_CUDA_CHECK(cudaMemcpy(result.ends.data(), ends.get(), count * sizeof(std::uint64_t), cudaMemcpyDeviceToHost));
      break;
    }
    capacity = static_cast<std::size_t>(count);
  }
  std::sort(result.ends.begin(), result.ends.end());
  return result;
}

struct approx_device_engine::state {
  device_status dev;
  approx_device_plan plan;
  device_array<unsigned long long> count{1};
  stream_owner stream;
  state(const approx_plan& p, const device_status& d) : dev(d), plan(p, d) {}
};

approx_device_engine::approx_device_engine(const approx_plan& plan, int device) : s_(nullptr) {
  select_device(device);
  s_ = new state(plan, query_device(device));
}

approx_device_engine::~approx_device_engine() { delete s_; }

std::uint64_t approx_device_engine::scan(const std::uint8_t* d_text, std::size_t len, candidate* d_out,
                                         std::size_t capacity) {
  TRAWL_CUDA_CHECK(cudaMemsetAsync(s_->count.get(), 0, sizeof(unsigned long long), s_->stream.get()));
  s_->plan.launch(text_window{d_text, len, 0, len, 0}, candidate_sink{d_out, s_->count.get(), capacity},
                  s_->stream.get());
  unsigned long long count = 0;
  TRAWL_CUDA_CHECK(cudaMemcpyAsync(&count, s_->count.get(), sizeof count, cudaMemcpyDeviceToHost, s_->stream.get()));
  TRAWL_CUDA_CHECK(cudaStreamSynchronize(s_->stream.get()));
  TRAWL_CUDA_CHECK(cudaGetLastError());
  return count;
}

}  // namespace trawl::cuda
