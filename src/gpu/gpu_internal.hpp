// src/gpu/gpu_internal.hpp — host side of the CUDA backend (compiled by the C++ compiler):
// turning patterns and options into kernel plans, and candidates back into ordered hits.
// Pure C++; the tests use it to check the plans without a device.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "../../cuda/api/backend.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/gpu.hpp"
#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::gpu::detail {

/// A test of a candidate end: (seq, end, pattern, strand) -> keep it (gpu_knobs::keep_end).
using end_test = std::function<bool(std::string_view seq, std::uint64_t end, std::uint32_t pattern, strand dir)>;

/// The GPU search's knobs and what the library's own callers add to them.
struct gpu_knobs : gpu_options {
  gpu_knobs() = default;
  gpu_knobs(const gpu_options& o) : gpu_options(o) {}  // NOLINT: the public knobs, nothing added
  /// A file descriptor holding the bytes of `seq` at source_offset (the file `seq` was mapped
  /// from): the chunks are read with pread() straight into pinned staging memory instead of
  /// being copied from `seq`; `seq` is still used to finish hits. -1: none.
  int source_fd = -1;
  std::uint64_t source_offset = 0;
  /// For searches with search_options::all_ends: a cheap test of each candidate end the device
  /// reports, before the host sorts and finishes it; ends it rejects are not reported.
  /// keep_end(seq, end, pattern, dir): `end` is one past the hit's last byte in the
  /// coordinates of the sequence `seq` being searched. Called from several threads at once.
  end_test keep_end;
  /// With keep_end: the same test on the device (offtarget with bulges), its guide_of and
  /// pam_of indexed by pattern (the matcher makes them per task); ends it confirms skip
  /// keep_end.
  std::shared_ptr<const trawl::cuda::site_end_test> device_end_test;
  /// Offtarget without bulges: cuda::site_plan::direct_up_to in place of its default.
  std::optional<std::uint32_t> site_direct_up_to;
  /// Chunks of DNA cross the bus two bits a base (cuda::stream_config::pack); false sends
  /// every chunk as bytes (the tests compare both).
  bool pack_dna = true;
};

/// gpu::make_matcher and gpu::search_sequence with the added knobs.
std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options,
                                      const gpu_knobs& gpu);
std::uint64_t search_sequence(const std::vector<std::string>& patterns, std::string_view seq,
                              const search_options& options, const hit_callback& on_hits, const gpu_knobs& gpu);

/// One (pattern, strand) searched: the pattern as searched (reverse-complemented for the
/// reverse strand), in the order (pattern, strand) that hits are sorted by.
struct task {
  std::string text;
  std::uint32_t pattern = 0;
  strand dir = strand::forward;
};

/// Throws trawl::error(invalid_argument) on an empty pattern, a NUL byte or k < 0.
std::vector<task> make_tasks(const std::vector<std::string>& patterns, const search_options& options);

/// The 256×256 symbol-match table: eq[pc * 256 + tc] = 1 when text byte tc matches pattern
/// byte pc under the options (ignore_case folds ASCII letters; iupac expands pattern codes).
std::vector<std::uint8_t> match_table(const search_options& options);

/// True when some pattern byte is an IUPAC code other than A, C, G, T (so plain byte
/// comparison would be wrong).
bool needs_iupac(const std::vector<task>& tasks, const search_options& options);

/// The GPU's PAM scan (cuda::site_plan, offtarget without bulges) as an engine: the hits of the
/// CPU's PAM scan (src/offtarget/pam_scan.hpp) of the same tables; a pool of one per GPU of
/// device.workers(). Throws unsupported without the CUDA backend or past 64-base guides.
std::unique_ptr<trawl::detail::engine> make_site_engine(const trawl::cuda::site_plan& plan, const device_spec& device,
                                                        const gpu_knobs& gpu);

trawl::cuda::exact_plan make_exact_plan(const std::vector<task>& tasks, const search_options& options);
trawl::cuda::approx_plan make_approx_plan(const std::vector<task>& tasks, const std::vector<std::uint8_t>& eq,
                                          std::uint32_t k, bool hamming);

}  // namespace trawl::gpu::detail
