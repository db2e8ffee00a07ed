// cuda/dispatch/stream.cu — texts of any size through the device in chunks: chunk i owns
// positions [c_i, c_i + chunk) and carries `lookbehind` bytes before and `lookahead` after,
// so every key position is decided by exactly one chunk and results do not depend on the
// chunk size. Two slots (pinned host buffer, device buffer, candidate buffer, stream)
// alternate: while the kernels of chunk i run, the host copies chunk i+1 into the other
// pinned buffer and its stream uploads it. Cost: one host copy and one H2D copy per byte.
#include <algorithm>
#include <cstring>
#include <thread>
#include <vector>

#include "api/backend.hpp"
#include "common/check.cuh"
#include "dispatch/plans.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

namespace {

constexpr std::size_t kPadding = 128;
constexpr std::size_t kDefaultChunk = std::size_t{64} << 20;

/// memcpy on several threads for large blocks (pageable → pinned is bound by one core).
void parallel_copy(void* dst, const void* src, std::size_t n) {
  const std::size_t per = std::size_t{4} << 20;
  const unsigned hw = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  const std::size_t parts = std::min<std::size_t>(hw, (n + per - 1) / per);
  if (parts <= 1) {
    std::memcpy(dst, src, n);
    return;
  }
  std::vector<std::thread> pool;
  const std::size_t step = (n + parts - 1) / parts;
  for (std::size_t i = 0; i < parts; ++i) {
    const std::size_t a = i * step, b = std::min(n, a + step);
    if (a >= b) break;
    pool.emplace_back([=] { std::memcpy(static_cast<char*>(dst) + a, static_cast<const char*>(src) + a, b - a); });
  }
  for (auto& t : pool) t.join();
}

struct slot {
  pinned_array<std::uint8_t> host;
  device_array<std::uint8_t> text;
  device_array<candidate> out;
  device_array<unsigned long long> count;
  pinned_array<unsigned long long> host_count;
  stream_owner stream;
  std::size_t c0 = 0, c1 = 0, b0 = 0, len = 0;
};

template <class Plan>
void run_stream(const Plan& plan, std::string_view seq, std::size_t lookbehind, std::size_t lookahead,
                const stream_config& config, const chunk_sink& sink) {
  const std::size_t n = seq.size();
  if (n == 0) return;
  const std::size_t chunk = std::min(n, config.chunk_size ? config.chunk_size : kDefaultChunk);
  const std::size_t max_len = std::min(n, chunk + lookbehind + lookahead);
  std::size_t capacity = std::clamp<std::size_t>(chunk / 16, 4096, std::size_t{1} << 22);
  slot slots[2];
  for (auto& s : slots) {
    s.host.set_write_combined(true);
    s.host.reset(max_len);
    s.text.reset(max_len + kPadding);
    TRAWL_CUDA_CHECK(cudaMemset(s.text.get() + max_len, 0, kPadding));
    s.out.reset(capacity);
    s.count.reset(1);
    s.host_count.reset(1);
  }
  auto run_kernels = [&](slot& s) {
    TRAWL_CUDA_CHECK(cudaMemsetAsync(s.count.get(), 0, sizeof(unsigned long long), s.stream.get()));
    text_window w{s.text.get(), s.len, s.c0 - s.b0, s.c1 - s.b0, s.b0};
    plan.launch(w, candidate_sink{s.out.get(), s.count.get(), s.out.size()}, s.stream.get());
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.host_count.get(), s.count.get(), sizeof(unsigned long long),
                                     cudaMemcpyDeviceToHost, s.stream.get()));
  };
  auto issue = [&](slot& s, std::size_t c0) {
    s.c0 = c0;
    s.c1 = std::min(n, c0 + chunk);
    s.b0 = c0 - std::min(c0, lookbehind);
    s.len = std::min(n, s.c1 + lookahead) - s.b0;
    // the previous user of this slot has been finalized (its stream is idle)
    parallel_copy(s.host.get(), seq.data() + s.b0, s.len);
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.text.get(), s.host.get(), s.len, cudaMemcpyHostToDevice, s.stream.get()));
    run_kernels(s);
  };
  auto finalize = [&](slot& s) -> bool {
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
    std::size_t total = static_cast<std::size_t>(*s.host_count.get());
    if (total > s.out.size()) {  // grow and run this chunk again: its text is still on the device
      s.out.reset(total + total / 4);
      run_kernels(s);
      TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
      total = static_cast<std::size_t>(*s.host_count.get());
    }
    std::vector<candidate> found(total);
    if (total) {
      TRAWL_CUDA_CHECK(cudaMemcpyAsync(found.data(), s.out.get(), total * sizeof(candidate), cudaMemcpyDeviceToHost,
                                       s.stream.get()));
      TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
    }
    plan.remap(found);
    return sink(s.c0, s.c1, found);
  };
  std::size_t cur = 0;
  issue(slots[0], 0);
  for (std::size_t next = chunk;; next += chunk) {
    const bool more = next < n;
    if (more) issue(slots[1 - cur], next);
    if (!finalize(slots[cur])) {
      if (more) TRAWL_CUDA_CHECK(cudaStreamSynchronize(slots[1 - cur].stream.get()));
      return;
    }
    if (!more) return;
    cur = 1 - cur;
  }
}

}  // namespace

void stream_exact(const exact_plan& plan, std::string_view seq, const stream_config& config, const chunk_sink& sink) {
  select_device(config.device);
  if (plan.patterns.empty() || seq.empty()) return;
  exact_device_plan dplan(plan);
  run_stream(dplan, seq, 0, dplan.max_length - 1, config, sink);
}

void stream_approx(const approx_plan& plan, std::string_view seq, const stream_config& config,
                   const chunk_sink& sink) {
  select_device(config.device);
  if (plan.lengths.empty() || seq.empty()) return;
  const device_status dev = query_device(config.device);
  approx_device_plan dplan(plan, dev);
  run_stream(dplan, seq, dplan.max_length + plan.k - 1, 0, config, sink);
}

}  // namespace trawl::cuda
