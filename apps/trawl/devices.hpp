// devices.hpp — `--device auto|cpu|gpu|gpu:all|gpu:N[,N...]` for the commands that search
// inputs (search, offtarget): the option read on a thread of its own while the GPUs start, and
// one input searched through the library's entry (run_search) on the device it plans.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "progress.hpp"
#include "trawl/device.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {

/// What --device asked for.
struct device_choice {
  device_spec spec;      ///< trawl::parse_device's value, carried whole to the search
  bool verbose = false;  ///< --verbose: say on stderr where each input runs and how it is split
};

/// trawl::parse_device on a thread of its own, which then starts the GPUs a --device gpu...
/// names (gpu::prepare): the caller loads an index meanwhile, and get() gives the choice or
/// throws the parse's error (naming the option). With `auto` it starts no GPU: the cost model
/// may pick the CPU.
std::future<device_choice> start_device(const std::string& device, bool verbose);

/// With device.verbose (on rank 0), a run_steps::planned that says on stderr where `input`
/// runs: CPU or GPU workers, `patterns` (x 2 strands), its size, and why; else empty.
std::function<void(const search_plan&)> said_plan(const device_choice& device, const io::source& input,
                                                  std::size_t patterns, bool both_strands);

/// Searches `input` through run_search with options.device = device.spec: `cpu` on the CPU,
/// the GPU's matcher of `patterns` when the plan picks the GPU,
/// its scans spread over the MPI ranks. With device.verbose, says on stderr where it runs.
/// With `progress`, the search tells it where it runs and how far it has come.
stream_result search_on_device(const matcher& cpu, const std::vector<std::string>& patterns, io::source& input,
                               search_options options, const stream_options& stream, const device_choice& device,
                               search_sink& sink, progress_line* progress = nullptr);

/// A run_steps::planned that names where the plan runs in `progress` (if any) after `then`.
std::function<void(const search_plan&)> with_progress(std::function<void(const search_plan&)> then,
                                                      progress_line* progress);

}  // namespace trawl::cli
