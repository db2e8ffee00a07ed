// devices.cpp — see devices.hpp.
#include "devices.hpp"

#include <cstdio>

#include "mpi.hpp"
#include "trawl/error.hpp"

namespace trawl::cli {

device_choice parse_device(const std::string& device) {
  device_choice out;
  try {
    out.kind = gpu::parse_device(device, out.gpu);
  } catch (const error& e) {
    throw error(e.code(), std::string("--") + e.what());
  }
  return out;
}

std::future<device_choice> start_device(const std::string& device, bool verbose) {
  return std::async(std::launch::async, [device, verbose] {
    device_choice out = parse_device(device);
    out.verbose = verbose;
    if (out.kind == device_kind::gpu) gpu::prepare(out.gpu);
    return out;
  });
}

stream_result search_on_device(const matcher& cpu, const std::vector<std::string>& patterns, io::source& input,
                               search_options options, const stream_options& stream, const device_choice& device,
                               search_sink& sink, const gpu_maker& make_gpu) {
  options.device = device.kind;
  const std::uint64_t bytes = input.expected_size();
  const search_plan plan = plan_search(options, patterns.size(), input, stream, device.gpu.devices.size());
  const bool on_gpu = plan.device == device_kind::gpu;
  if (device.verbose && mpi::rank() == 0)
    std::fprintf(stderr, "trawl: %s: %s (%zu pattern%s%s over %s bytes; --device %s)\n", input.name().c_str(),
                 on_gpu ? "GPU" : "CPU", patterns.size(), patterns.size() == 1 ? "" : "s",
                 options.both_strands ? " x 2 strands" : "", bytes ? std::to_string(bytes).c_str() : "an unknown number of",
                 device.kind == device_kind::automatic ? "auto: the cost model's choice" : "as asked");
  if (!on_gpu) return mpi::search(cpu, input, plan.options, plan.stream, sink, device.verbose);
  const auto gpu = make_gpu ? make_gpu(plan.options, device.gpu) : gpu::make_matcher(patterns, plan.options, device.gpu);
  return mpi::search(*gpu, input, plan.options, plan.stream, sink, device.verbose);
}

}  // namespace trawl::cli
