// device_choice.cpp — the one place that decides between the CPU and the GPU (search.hpp).
#include <thread>

#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/search.hpp"

namespace trawl {

device_kind choose_device(const search_options& options, std::size_t patterns, std::uint64_t bytes) {
  if (options.device == device_kind::cpu) return device_kind::cpu;
  if (options.device == device_kind::gpu) {
    if (!gpu::available()) throw error(errc::no_device, "no CUDA device found (or trawl was built without CUDA)");
    return device_kind::gpu;
  }
  // The GPU pays for its start-up (context and first copy) only on compute-heavy work:
  // approximate search of several patterns (the CRISPR-guide workload) over a long text. The
  // cores are modelled at cpu_rate below (bench/results/approx-h100host-spr16.md), and the GPU
  // takes the search when pattern-strands x bytes passes what they do in about its start-up. Below 8 pattern-strands the CPU runs faster
  // engines per pattern (the pigeonhole filter, the striped kernel). Exact search is
  // memory-bound and stays on the CPU.
  const bool approximate = options.max_errors > 0 || options.all_ends;
  const double strands = static_cast<double>(patterns) * (options.both_strands ? 2 : 1);
  if (!approximate || strands < 8 || bytes == 0) return device_kind::cpu;
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  const double cores = options.threads != 0 ? std::min(options.threads, hw) : hw;
  const double cpu_rate = 1.9e9 * cores;  // pattern-strand x bytes per second: 23-nt guides, k <= 3
  if (strands * static_cast<double>(bytes) < 0.4 * cpu_rate) return device_kind::cpu;
  return gpu::available() ? device_kind::gpu : device_kind::cpu;
}

}  // namespace trawl
