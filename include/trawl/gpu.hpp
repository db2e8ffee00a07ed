// trawl/gpu.hpp — the CUDA backend: the same searches as search.hpp / approx.hpp, on a GPU.
//
// Every entry point has exactly the contract and output of its CPU counterpart
// (trawl::search_sequence, trawl::best_substring): same hits, same order, same batching rules,
// for every chunk size. The CPU engines are the reference the GPU tests compare with.
//
// When the library was built without CUDA (TRAWL_CUDA=OFF or no nvcc), available() is false
// and every other function throws trawl::error(errc::unsupported). When no device is present
// they throw trawl::error(errc::no_device); a failing CUDA call throws errc::gpu_error. The
// library never aborts on a CUDA error.
//
// Cost: exact search is bound by memory bandwidth (host→device copy when the text comes from
// the host); approximate search is O(n·⌈m/w⌉·patterns) bit-parallel work (Myers 1999) plus an
// O(m·(m+k)) host DP per reported hit to find its leftmost start.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/approx.hpp"
#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::gpu {

/// Exact-search kernels.
enum class exact_engine {
  automatic,  ///< hashed for sets, filter for a few patterns (Myers with k = 0 for IUPAC codes)
  filter,     ///< coalesced 16-byte loads, first/last-byte filter, verify candidates
  sunday,     ///< Sunday's quick search, one thread per overlapping text slice
  hashed,     ///< each start's first (up to) 8 bytes looked up in hash tables of the patterns
};

/// Approximate-search kernels (edit distance; Hamming always uses its own kernel).
enum class approx_engine {
  automatic,  ///< tiled for m <= 256, warp for longer patterns
  tiled,      ///< Myers, one pattern per thread (1, 2 or 4 words), text tiles in shared memory
  warp,       ///< Myers multi-word, a warp per (pattern, slice), words pipelined across lanes
};

/// GPU-specific knobs. The defaults are right for production; tests force small sizes to
/// cross every chunk and slice edge. Which GPUs run is the search's options.device.gpus
/// (device.hpp): each listed GPU is a worker, each slice goes to the next free one.
struct gpu_options {
  std::size_t chunk_size = 0;    ///< owned text bytes per host→device chunk; 0 = automatic (16 MiB)
  std::size_t slice_length = 0;  ///< text bytes per thread / warp slice; 0 = automatic
  exact_engine exact = exact_engine::automatic;
  approx_engine approx = approx_engine::automatic;
};

/// True when the backend was compiled in and a CUDA device is present. Never throws.
bool available() noexcept;

/// Number of CUDA devices (0 without the backend or a device). Never throws.
int device_count() noexcept;

/// Name of device `device` (e.g. "NVIDIA H100 80GB HBM3"); "" when none. Never throws.
std::string device_name(int device = 0);

/// Starts the CUDA driver and the primary context of each GPU of device.workers(): the
/// start-up a first search would otherwise pay, about 0.1-0.3 s. Run it on a thread of its own
/// beside other work (loading an index, reading patterns). Does nothing for a CPU device,
/// without the backend or without a device. Never throws.
void prepare(const device_spec& device = {}) noexcept;

/// Keeps a copy of `text` on each GPU of device.workers() while the returned handle lives: a
/// GPU scan of a sequence that lies inside `text` (search_sequence, make_matcher's scans, the
/// offtarget site scan) reads it there instead of copying it from the host, with the same hits.
/// DNA of 64 KiB or more (text the stream would send two bits a base, every part of it) is kept
/// two bits a base, a quarter of its bytes plus its runs of other bytes, and unpacked on the
/// device a window at a time; other text as bytes. `text` must neither change nor move while
/// the handle lives. Throws unsupported without the backend, no_device without a GPU, gpu_error
/// when a copy fails (device memory short).
std::shared_ptr<const void> keep_resident(std::string_view text, const device_spec& device);
/// The device memory a keep_resident handle holds on each of its GPUs; 0 for none.
std::uint64_t resident_bytes(const std::shared_ptr<const void>& handle) noexcept;

/// The GPU as a trawl::matcher (search.hpp): scan() runs the device over the window of a
/// slice and reports the hits it owns, as the CPU matchers do, so search_sequence and
/// search_input (stream.hpp) order, merge and deliver GPU hits exactly as CPU hits. A slice
/// should be large (the device streams it in gpu.chunk_size pieces): search_options::slice_size
/// of a chunk or more. A pool of one matcher per GPU of options.device.workers(): run the
/// search with at least as many threads as workers. Throws as search_sequence below.
std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options,
                                      const gpu_options& gpu = {});

/// Same as trawl::search_sequence(make_matcher(patterns, options), seq, options, on_hits):
/// exact search when options.max_errors == 0 and !all_ends (sorted by start, then pattern, strand),
/// approximate otherwise (sorted by end; cluster or all-ends mode as in approx.hpp).
/// options.threads and options.slice_size are ignored (host work uses all cores).
/// Returns the number of hits delivered.
/// Exceptions: trawl::error invalid_argument (empty pattern, NUL byte, k < 0), unsupported,
/// no_device, gpu_error.
std::uint64_t search_sequence(const std::vector<std::string>& patterns, std::string_view seq,
                              const search_options& options, const hit_callback& on_hits,
                              const gpu_options& gpu = {});

/// Convenience: all hits of `patterns` in `text`, in text order.
std::vector<hit> search(std::string_view text, const std::vector<std::string>& patterns,
                        const search_options& options = {}, const gpu_options& gpu = {});

/// Same as trawl::best_substring, on GPU options.device.first_gpu() (trawl::best_substring
/// calls it when options.device.kind is gpu): ASM(X, Y) and every end of Y achieving it (with
/// the leftmost start). best_algorithm::wavefront runs the anti-diagonal DP of Man, Nakano and
/// Ito (one block of |X| threads per piece of Y; |X| <= 1024), myers (and automatic) the
/// multi-word bit-vector engine (|X| <= 32768). Y must fit in device memory.
best_result best_substring(std::string_view x, std::string_view y, const best_options& options = {},
                           const gpu_options& gpu = {});

}  // namespace trawl::gpu
