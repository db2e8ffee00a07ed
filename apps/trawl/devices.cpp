// devices.cpp — see devices.hpp.
#include "devices.hpp"

#include <algorithm>
#include <cstdio>

#include "mpi.hpp"
#include "trawl/error.hpp"

namespace trawl::cli {

CLI::Validator device_validator() {
  return CLI::Validator(
      [](std::string& s) -> std::string {
        if (s == "auto" || s == "cpu" || s == "gpu" || s == "gpu:all") return {};
        if (s.rfind("gpu:", 0) == 0 && s.size() > 4 && s.find_first_not_of("0123456789,", 4) == std::string::npos &&
            s.find(",,") == std::string::npos && s.back() != ',' && s[4] != ',')
          return {};
        return s + " is not auto, cpu, gpu, gpu:all or gpu:N[,N...]";
      },
      "DEVICE", "device");
}

device_choice parse_device(const std::string& device) {
  device_choice out;
  if (device == "cpu") {
    out.kind = device_kind::cpu;
    return out;
  }
  if (device.rfind("gpu", 0) != 0) return out;
  out.kind = device_kind::gpu;
  if (!gpu::available())
    throw error(errc::no_device, "--device " + device + ": no CUDA device found (or trawl was built without CUDA)");
  const int count = gpu::device_count();
  std::vector<int>& list = out.gpu.devices;
  if (device == "gpu") {
    list = {0};
  } else if (device == "gpu:all") {
    for (int d = 0; d < count; ++d) list.push_back(d);
  } else {
    for (std::size_t at = 4; at < device.size();) {
      std::size_t end = device.find(',', at);
      if (end == std::string::npos) end = device.size();
      const std::string n = device.substr(at, end - at);
      if (n.size() > 4 || std::stoi(n) >= count)
        throw error(errc::no_device,
                    "--device " + device + ": there is no GPU " + n + " (" + std::to_string(count) + " found)");
      list.push_back(std::stoi(n));
      at = end + 1;
    }
  }
  return out;
}

stream_result search_on_device(const matcher& cpu, const std::vector<std::string>& patterns, io::source& input,
                               search_options options, const stream_options& stream, const device_choice& device,
                               search_sink& sink, const matcher_wrap& wrap) {
  options.device = device.kind;
  const std::uint64_t bytes = input.expected_size();
  const bool host_bound = device.host_bound && device.kind == device_kind::automatic;
  const bool on_gpu = !host_bound && choose_device(options, patterns.size(), bytes) == device_kind::gpu;
  if (device.verbose && mpi::rank() == 0)
    std::fprintf(stderr, "trawl: %s: %s (%zu pattern%s%s over %s bytes; --device %s)\n", input.name().c_str(),
                 on_gpu ? "GPU" : "CPU", patterns.size(), patterns.size() == 1 ? "" : "s",
                 options.both_strands ? " x 2 strands" : "", bytes ? std::to_string(bytes).c_str() : "an unknown number of",
                 host_bound                                  ? "auto: the work on the hits, done on the host, dominates"
                 : device.kind == device_kind::automatic ? "auto: the cost model's choice"
                                                         : "as asked");
  if (!on_gpu) return mpi::search(cpu, input, options, stream, sink, device.verbose);
  // A device streams each slice in its own chunks: one slice per device for a mapped input, or
  // a chunk of a stream; one thread per device and one more, so the next chunk is read while
  // the devices search.
  const std::size_t workers = std::max<std::size_t>(1, device.gpu.devices.size());
  stream_options gst = stream;
  if (gst.chunk_size == 0) gst.chunk_size = std::size_t{256} << 20;
  options.slice_size = input.is_mapped() ? input.mapped().size() / workers + 1 : gst.chunk_size;
  options.threads = static_cast<unsigned>(workers + 1);
  const auto gpu = gpu::make_matcher(patterns, options, device.gpu);
  const auto wrapped = wrap ? wrap(*gpu) : nullptr;
  return mpi::search(wrapped ? *wrapped : *gpu, input, options, gst, sink, device.verbose);
}

}  // namespace trawl::cli
