// devices.cpp — see devices.hpp.
#include "devices.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <cstdio>

#include "mpi.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"

namespace trawl::cli {

std::future<device_choice> start_device(const std::string& device, bool verbose) {
  return std::async(std::launch::async, [device, verbose] {
    device_choice out;
    try {
      out.spec = parse_device(device);
    } catch (const error& e) {
      throw error(e.code(), std::string("--") + e.what());
    }
    out.verbose = verbose;
    if (out.spec.kind == device_kind::gpu) gpu::prepare(out.spec);
    return out;
  });
}

std::function<void(const search_plan&)> said_plan(const device_choice& device, const io::source& input,
                                                  std::size_t patterns, bool both_strands) {
  if (!device.verbose || mpi::rank() != 0) return {};
  return [&device, &input, patterns, both_strands](const search_plan& plan) {
    const std::uint64_t bytes = input.expected_size();
    const bool on_gpu = plan.device == device_kind::gpu;
    // the GPU workers, e.g. "GPU 0" or "GPU 0,0" (two workers on one card)
    const std::string where = on_gpu ? fmt::format("GPU {}", fmt::join(plan.options.device.workers(), ",")) : "CPU";
    std::fprintf(stderr, "trawl: %s: %s (%zu pattern%s%s over %s bytes; --device %s)\n", input.name().c_str(),
                 where.c_str(), patterns, patterns == 1 ? "" : "s", both_strands ? " x 2 strands" : "",
                 bytes ? std::to_string(bytes).c_str() : "an unknown number of",
                 device.spec.kind == device_kind::automatic ? "auto: the cost model's choice" : "as asked");
  };
}

std::function<void(const search_plan&)> with_progress(std::function<void(const search_plan&)> then,
                                                      progress_line* progress) {
  if (progress == nullptr) return then;
  return [then = std::move(then), progress](const search_plan& plan) {
    if (then) then(plan);
    progress->where(plan.device == device_kind::gpu ? fmt::format("GPU {}", fmt::join(plan.options.device.workers(), ","))
                                                    : std::string("CPU"));
  };
}

stream_result search_on_device(const matcher& cpu, const std::vector<std::string>& patterns, io::source& input,
                               search_options options, const stream_options& stream, const device_choice& device,
                               search_sink& sink, progress_line* progress) {
  options.device = device.spec;
  options.processes = mpi::processes();  // under MPI, the search shared by the ranks
  mpi::set_verbose(device.verbose);
  run_steps steps;
  steps.cpu = &cpu;
  steps.planned = with_progress(said_plan(device, input, patterns.size(), options.both_strands), progress);
  if (progress == nullptr) return run_search(patterns, input, options, stream, sink, steps);
  stream_options told = stream;
  told.progress = [progress](std::uint64_t bytes) { progress->update(bytes); };
  return run_search(patterns, input, options, told, sink, steps);
}

}  // namespace trawl::cli
