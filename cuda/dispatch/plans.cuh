// cuda/dispatch/plans.cuh — host plans uploaded to the device (once per search, or once per
// plan_cache), and the one place that decides which kernel runs which pattern.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <vector>

#include "api/backend.hpp"
#include "common/check.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

template <class T>
device_array<T> upload(const std::vector<T>& v) {
  device_array<T> d(v.size());
  if (!v.empty()) {
    TRAWL_CUDA_CHECK(cudaMemcpy(d.get(), v.data(), v.size() * sizeof(T), cudaMemcpyHostToDevice));
    // a copy from pageable memory may return before its DMA ends, and the kernels run on
    // non-blocking streams that do not wait for the legacy stream: wait for it here
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(cudaStreamLegacy));
  }
  return d;
}

struct exact_device_plan {
  device_array<std::uint8_t> bytes;
  device_array<std::uint64_t> offsets;
  device_array<std::uint32_t> lengths;
  std::vector<std::uint32_t> host_lengths;
  std::vector<std::uint32_t> global_id;  ///< local (sorted by length) → plan task
  exact_device_tasks view;
  device_array<exact_hash_entry> tables[exact_hash_tasks::max_groups];
  device_array<std::uint32_t> hash_ids;
  exact_hash_tasks hash;
  exact_plan::engine algo = exact_plan::engine::filter;
  std::size_t slice_length = 0;
  std::uint32_t max_length = 0;

  explicit exact_device_plan(const exact_plan& plan);
  /// The hash tables of the hashed engine (the patterns as stored: folded with -i).
  void build_hash(const exact_plan& plan);
  void launch(const text_window& w, const candidate_sink& sink, cudaStream_t stream) const;
  void remap(std::vector<candidate>& found) const {
    for (auto& c : found) c.task = global_id[c.task];
  }
};

/// The seed filter's pass 1 output and its counts (approx_device_plan::launch_seeds): one set
/// per stream that runs it, since the streams run at once; grown to each window it serves.
struct seed_scratch {
  device_array<seed_hit> windows;
  device_array<seed_edge> edges;
  device_array<unsigned long long> counts{2};
  device_array<unsigned> dense{1};
};

struct approx_device_plan {
  struct tiled_group {
    device_array<unsigned char> peq;
    device_array<std::uint32_t> lengths, ids;
    tiled_device_tasks view;
  };
  struct multi_group {
    device_array<std::uint64_t> peq, offsets;
    device_array<std::uint32_t> lengths, ids;
    multi_device_tasks view;
  };
  /// The site test of the ends (approx_plan::sites), uploaded.
  struct site_group {
    device_array<std::uint8_t> guide_bits, pam_bits, reverse;
    device_array<std::uint32_t> guide_offset, pam_offset, guide_of, pam_of;
    device_array<std::int32_t> limits;
    site_test_tasks view;
  };
  /// The seed filter (approx_plan::seeds), its tables uploaded; null: the kernels above.
  struct seed_group {
    device_array<std::uint8_t> code;
    device_array<std::uint64_t> bitmap, slot_tail, entry_key, peq;
    device_array<std::uint32_t> slot_first, slot_count, entry_member, entry_rest, entry_len, member_task, member_m,
        member_k;
    seed_device_tasks view;
  };
  device_array<std::uint8_t> map;
  approx_common common;
  std::unique_ptr<seed_group> seeds;
  /// The scratch of launches given none (approx_device_engine, benchmarks), one per stream
  mutable std::mutex seed_mutex;
  mutable std::map<cudaStream_t, std::unique_ptr<seed_scratch>> seed_scratch_of;
  std::vector<std::unique_ptr<tiled_group>> tiled;
  std::unique_ptr<multi_group> warp, hamming;
  std::unique_ptr<site_group> sites;  ///< null: every end goes to the host
  std::size_t slice_length = 0;
  bool single_pattern = true;  ///< a lone m <= 64 pattern runs the single-pattern kernel
  std::uint32_t max_length = 0;

  approx_device_plan(const approx_plan& plan, const device_status& dev);
  void upload_sites(const site_end_test& test);
  /// The kernels over w on `stream`; the seed filter's pass uses `scratch` (the stream's own),
  /// or with none a set the plan keeps for the stream. `pam_gate`: the ends go to test_sites()
  /// next, and those whose PAMs cannot fit are not written (approx_common::pam_gate).
  void launch(const text_window& w, const candidate_sink& sink, cudaStream_t stream, seed_scratch* scratch = nullptr,
              bool pam_gate = false) const;
  /// Candidates carry global task ids already; the seed filter's windows may overlap and
  /// report an end twice: kept once.
  void remap(std::vector<candidate>& found) const {
    if (!seeds) return;
    std::sort(found.begin(), found.end(), [](const candidate& a, const candidate& b) {
      return a.pos != b.pos ? a.pos < b.pos : a.task < b.task;
    });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const candidate& a, const candidate& b) { return a.pos == b.pos && a.task == b.task; }),
                found.end());
  }
  /// Runs the seed filter over w; false (nothing emitted) when its windows there are too many,
  /// and the kernels must scan it.
  const unsigned* launch_seeds(const text_window& w, const candidate_sink& sink, cudaStream_t stream,
                               seed_scratch* scratch) const;
  /// Whether launch()'s ends go through test_sites() before they are taken.
  [[nodiscard]] bool tests_sites() const { return sites != nullptr; }
  /// The site test of the ends in[0, min(*in_count, capacity)), those that may have a site
  /// appended to `sink`.
  void test_sites(const text_window& w, const candidate* in, const unsigned long long* in_count, std::size_t capacity,
                  const candidate_sink& sink, cudaStream_t stream) const {
    launch_site_test(sites->view, w, in, in_count, capacity, sink, common.sm_count, stream);
  }
};

struct site_device_plan {
  device_array<std::uint8_t> pam_bits;
  device_array<std::uint32_t> pam_offset, lengths, first, ids, always;
  device_array<std::int32_t> limits;
  device_array<std::uint64_t> words;
  site_device_tasks view;
  /// The direct test (site_plan::direct_up_to), when it serves the plan. The tables above stay
  /// uploaded for a window that does not start 16-byte aligned, which the direct test's loads
  /// need (launch).
  struct direct_tasks {
    device_array<std::uint32_t> pam_offset, group_first;
    device_array<std::uint8_t> pam_text;
    device_array<site_direct_guide> guides;
    site_direct_tasks view;
  };
  std::unique_ptr<direct_tasks> direct;

  explicit site_device_plan(const site_plan& plan);
  void make_direct(const site_plan& plan);
  void launch(const text_window& w, const candidate_sink& sink, cudaStream_t stream) const {
    if (direct && reinterpret_cast<std::uintptr_t>(w.data) % 16 == 0) launch_sites_direct(direct->view, w, sink, stream);
    else launch_sites(view, w, sink, stream);
  }
  void remap(std::vector<candidate>&) const {}
};

/// Builds the multi-word group of `tasks` (global task ids) of `plan`.
std::unique_ptr<approx_device_plan::multi_group> make_multi_group(const approx_plan& plan,
                                                                  const std::vector<std::uint32_t>& tasks);

}  // namespace trawl::cuda
