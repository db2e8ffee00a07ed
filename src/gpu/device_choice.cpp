// device_choice.cpp — the one place that decides between the CPU and the GPU (search.hpp), and
// what a --device / device= spelling means (device.hpp).
#include <algorithm>
#include <string>
#include <thread>

#include "approx/plan.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl {

namespace {

/// The cores a CPU search of `options` runs on.
double cpu_cores(const search_options& options) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  return options.threads != 0 ? std::min(options.threads, hw) : hw;
}

/// The GPU's fixed cost, context and first copy, in seconds: the work the CPU does in it stays there.
constexpr double gpu_start_s = 0.4;

}  // namespace

device_kind choose_device(const search_options& options, std::size_t patterns, std::uint64_t bytes) {
  if (options.device == device_kind::cpu) return device_kind::cpu;
  if (options.regex) {
    if (options.device == device_kind::gpu)
      throw error(errc::invalid_argument, "search_options::regex runs on the CPU (device = cpu or automatic)");
    return device_kind::cpu;
  }
  if (options.device == device_kind::gpu) {
    if (!gpu::available()) throw error(errc::no_device, "no CUDA device found (or trawl was built without CUDA)");
    return device_kind::gpu;
  }
  // The GPU pays for its start-up (context and first copy) only on compute-heavy work:
  // approximate search of several patterns (the CRISPR-guide workload) over a long text. The
  // cores are modelled at cpu_rate below (bench/records/approx-device-d8cbe46-h100.csv), and the GPU
  // takes the search when pattern-strands x bytes passes what they do in about its start-up. Below 8 pattern-strands the CPU runs faster
  // engines per pattern (the pigeonhole filter, the striped kernel). Exact search is
  // memory-bound and stays on the CPU.
  const bool approximate = options.max_errors > 0 || options.all_ends;
  const double strands = static_cast<double>(patterns) * (options.both_strands ? 2 : 1);
  if (!approximate || strands < 8 || bytes == 0) return device_kind::cpu;
  const double cpu_rate = 1.9e9 * cpu_cores(options);  // pattern-strand x bytes per second: 23-nt guides, k <= 3
  if (strands * static_cast<double>(bytes) < gpu_start_s * cpu_rate) return device_kind::cpu;
  return gpu::available() ? device_kind::gpu : device_kind::cpu;
}

device_kind choose_device(const search_options& options, const std::vector<std::string>& patterns, std::uint64_t bytes) {
  const device_kind by_count = choose_device(options, patterns.size(), bytes);
  if (by_count != device_kind::gpu || options.device != device_kind::automatic) return by_count;
  // A set the CPU runs through the seed filter costs it a pass over the text and a
  // verification per seed hit, whatever the number of patterns: the GPU takes it only when
  // that passes its start-up (about 5 ns a byte and 300 ns a hit on a core, 312 guides of 23
  // and of 20 nt: bench/records/offtarget-sassy-685c370-h200.csv, genome-*-h200.csv).
  const std::optional<double> density = approx_detail::seeded_density(patterns, options);
  if (!density) return by_count;
  const double cpu_seconds = static_cast<double>(bytes) * (5e-9 + *density * 3e-7) / cpu_cores(options);
  return cpu_seconds < gpu_start_s ? device_kind::cpu : device_kind::gpu;
}

device_spec parse_device(std::string_view spec) {
  const std::string s(spec);
  if (s == "auto") return device_kind::automatic;
  if (s == "cpu") return device_kind::cpu;
  const bool list = s.rfind("gpu:", 0) == 0 && s.size() > 4 && s.find_first_not_of("0123456789,", 4) == std::string::npos &&
                    s.find(",,") == std::string::npos && s.back() != ',' && s[4] != ',';
  if (s != "gpu" && s != "gpu:all" && !list)
    throw error(errc::invalid_argument, "device " + s + " is not auto, cpu, gpu, gpu:all or gpu:N[,N...]");
  if (!gpu::available())
    throw error(errc::no_device, "device " + s + ": no CUDA device found (or trawl was built without CUDA)");
  const int count = gpu::device_count();
  device_spec out(device_kind::gpu);
  if (s == "gpu") {
    out.gpus = {0};
  } else if (s == "gpu:all") {
    for (int d = 0; d < count; ++d) out.gpus.push_back(d);
  } else {
    for (std::size_t at = 4; at < s.size();) {
      std::size_t end = s.find(',', at);
      if (end == std::string::npos) end = s.size();
      const std::string n = s.substr(at, end - at);
      if (n.size() > 4 || std::stoi(n) >= count)
        throw error(errc::no_device, "device " + s + ": there is no GPU " + n + " (" + std::to_string(count) + " found)");
      out.gpus.push_back(std::stoi(n));
      at = end + 1;
    }
  }
  return out;
}

std::string to_string(const device_spec& device) {
  switch (device.kind) {
    case device_kind::automatic: return "auto";
    case device_kind::cpu: return "cpu";
    case device_kind::gpu: break;
  }
  if (device.gpus.empty()) return "gpu";
  std::string s = "gpu:";
  for (std::size_t i = 0; i < device.gpus.size(); ++i) {
    if (i != 0) s += ',';
    s += std::to_string(device.gpus[i]);
  }
  return s;
}

namespace {

search_plan plan_on(device_kind device, const search_options& options, const io::source& input,
                    const stream_options& stream) {
  search_plan plan{device_kind::cpu, options, stream};
  if (device != device_kind::gpu) return plan;
  plan.device = device_kind::gpu;
  const std::size_t workers = options.device.workers().size();
  // A mapped FASTA file's chunks are parsed into fresh buffers: 32 MiB kept them few and
  // recycled (bench/records/gpu-fasta-37faf0f-vs-de76109-h100.csv). A .2bit's are decoded on
  // all cores, where 128 MiB was the fastest (bench/records/gpu-2bit-chunks-6828238-h200.csv);
  // a stream's come whole from its reader.
  const bool twobit = !input.twobit().empty() &&
                      (stream.format == io::format::automatic || stream.format == io::format::fasta);
  if (plan.stream.chunk_size == 0)
    plan.stream.chunk_size = input.is_mapped() ? std::size_t{32} << 20 : twobit ? std::size_t{128} << 20 : std::size_t{256} << 20;
  plan.options.slice_size = input.is_mapped() ? input.mapped().size() / workers + 1 : plan.stream.chunk_size;
  plan.options.threads = static_cast<unsigned>(workers + 1);
  // the scans wait on the devices; a FASTA file's parse takes the host's cores (as the fills do)
  if (plan.stream.parse_threads == 0) plan.stream.parse_threads = std::max(1u, std::thread::hardware_concurrency());
  return plan;
}

}  // namespace

search_plan plan_search(const search_options& options, std::size_t patterns, const io::source& input,
                        const stream_options& stream) {
  return plan_on(choose_device(options, patterns, input.expected_size()), options, input, stream);
}

search_plan plan_search(const search_options& options, const std::vector<std::string>& patterns,
                        const io::source& input, const stream_options& stream) {
  return plan_on(choose_device(options, patterns, input.expected_size()), options, input, stream);
}

}  // namespace trawl
