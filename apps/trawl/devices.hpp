// devices.hpp — `--device auto|cpu|gpu|gpu:all|gpu:N[,N...]` for the commands that search
// inputs (search, offtarget): the option's parser, and one input searched on the device
// the library's cost model picks.
#pragma once

#include <functional>
#include <future>
#include <memory>
#include <string>
#include <vector>

#include "trawl/gpu.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {

/// What --device asked for.
struct device_choice {
  device_kind kind = device_kind::automatic;
  gpu::gpu_options gpu;  ///< the GPUs listed (gpu: {0}; gpu:all: every one)
  bool verbose = false;  ///< --verbose: say on stderr where each input runs and how it is split
};

/// Parses a --device value (gpu::parse_device; its errors name the option).
device_choice parse_device(const std::string& device);

/// parse_device on a thread of its own, which then starts the GPUs a --device gpu... names
/// (gpu::prepare): the caller loads an index meanwhile, and get() gives the choice or throws
/// parse_device's error. With `auto` it starts no GPU: the cost model may pick the CPU.
std::future<device_choice> start_device(const std::string& device, bool verbose);

/// The GPU's matcher of a search planned with the given options (plan_search's), on the given GPUs.
using gpu_maker = std::function<std::unique_ptr<matcher>(const search_options&, const gpu::gpu_options&)>;

/// Searches `input` with `cpu` on the CPU, or on the GPUs of `device` when choose_device
/// picks the GPU for this input (its matcher made by `make_gpu` if given, else from `patterns`
/// and the planned options). Returns the stream result.
stream_result search_on_device(const matcher& cpu, const std::vector<std::string>& patterns, io::source& input,
                               search_options options, const stream_options& stream, const device_choice& device,
                               search_sink& sink, const gpu_maker& make_gpu = {});

}  // namespace trawl::cli
