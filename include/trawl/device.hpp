// trawl/device.hpp — where a search runs: one value, parsed once, carried whole.
//
// A device_spec names the kind of device and, for the GPU, the GPUs whose workers run the
// search. It travels inside the options of every search (search_options, best_options,
// offtarget::options) to the engine that runs, so a list given by a user reaches the GPUs it
// names whatever the front end (CLI, Python, index, offtarget, MPI ranks).
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace trawl {

/// The kind of device a search runs on.
enum class device_kind {
  automatic,  ///< the GPU when the work pays for its start-up and one is present (choose_device)
  cpu,
  gpu,
};

/// Where a search runs: a kind, and the GPUs a GPU search uses (one worker each; a GPU listed
/// twice runs two workers on one card). An empty list means GPU 0.
struct device_spec {
  device_kind kind = device_kind::automatic;
  std::vector<int> gpus;

  device_spec() = default;
  device_spec(device_kind k) : kind(k) {}  // NOLINT(google-explicit-constructor): a kind is a spec
  device_spec(device_kind k, std::vector<int> g) : kind(k), gpus(std::move(g)) {}

  /// The GPU workers of a GPU search: `gpus`, or GPU 0 when none is listed.
  [[nodiscard]] std::vector<int> workers() const { return gpus.empty() ? std::vector<int>{0} : gpus; }
  /// The first GPU of workers() (the one a single-device job, such as best_substring, uses).
  [[nodiscard]] int first_gpu() const { return gpus.empty() ? 0 : gpus.front(); }

  friend bool operator==(const device_spec&, const device_spec&) = default;
  friend bool operator==(const device_spec& d, device_kind k) { return d.kind == k; }
};

/// Parses "auto", "cpu", "gpu" (GPU 0), "gpu:all" (every GPU present) or "gpu:N[,N...]".
/// Throws trawl::error(invalid_argument) on another spelling, and no_device when a GPU is asked
/// for and none (or not one listed) is present.
device_spec parse_device(std::string_view spec);

/// The spelling parse_device reads back: "auto", "cpu", "gpu" or "gpu:N[,N...]".
std::string to_string(const device_spec& device);

}  // namespace trawl
