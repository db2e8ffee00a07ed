// plan.hpp — the one place that decides how each approximate pattern is scanned: which filter
// (pigeonhole pieces, a suffix, none) and which kernel (Sellers' DP, one-word Myers, blocked
// Myers, the striped kernel, the SIMD lanes, the striped blocked kernel), from the patterns,
// their error bounds, the options (a forced engine) and the kernels of the SIMD level. Its
// tuning constants are here, each with the bench record it came from.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/seed_filter.hpp"
#include "common/dispatch.hpp"
#include "trawl/search.hpp"

namespace trawl::approx_detail {

namespace tuning {
// pigeonhole pieces of at least this many bytes are selective enough for auto's filter
// (bench/records/approx-stripes-d8cbe46-zen4-zen5-h100.csv, m = 128 over DNA)
inline constexpr std::size_t pigeon_min_piece = 5;
// ... and of at least this many where a striped kernel would take the pattern (ibid.)
inline constexpr std::size_t pigeon_min_piece_striped = 8;
// auto filters at most this many pattern-strands of m <= 64 (more share the SIMD lanes better)
inline constexpr std::size_t pigeon_max_short_patterns = 4;
// the striped kernel takes patterns of at most this many bytes (16/32-bit lanes)
inline constexpr std::size_t striped_max_m = 32;
// one machine word of Myers: the lanes and one-word kernels take m <= 64
inline constexpr std::size_t word_max_m = 64;
// auto's seed filter takes sets of at least this many pattern-strands (23-nt guides, k = 3: it
// ties the suffix filter at 16; bench/records/seed-filter-crossover-a8809f5-h200.csv)
inline constexpr std::size_t seed_min_patterns = 16;
// ... whose seeds together hit at most this often per text byte, half the rate at which the
// scan gives a block up (312 20-nt guides, k = 3: 0.05; on both strands 0.1)
inline constexpr double seed_max_density = 1.0 / 8;
// striped blocked kernel against the scalar blocked loop, break-even block factor per kernel
// flavour (bench/records/approx-stripes-d8cbe46-zen4-zen5-h100.csv, Zen 4, Zen 5, Sapphire Rapids)
inline constexpr std::size_t stripes_factor_avx2_coded = 8;
inline constexpr std::size_t stripes_factor_avx2_gather = 2;
inline constexpr std::size_t stripes_factor_avx512_3bit = 16;
inline constexpr std::size_t stripes_factor_avx512_4bit = 12;
inline constexpr std::size_t stripes_factor_avx512_gather = 4;
}  // namespace tuning

/// What scans one pattern after its filter (or alone).
enum class kernel_kind : std::uint8_t {
  dp,               ///< Sellers' DP
  word,             ///< one-word Myers (m <= 64)
  blocked,          ///< blocked Myers
  striped,          ///< the striped kernel (m <= 32)
  lanes,            ///< the SIMD lanes, with the other lane patterns of the scan
  blocked_stripes,  ///< the striped blocked kernel (m > 64), blocked Myers where it declines
};

/// A filter in front of the kernel.
enum class filter_kind : std::uint8_t { none, pigeon, suffix, seeds };

struct pattern_plan {
  filter_kind filter = filter_kind::none;
  kernel_kind kernel = kernel_kind::word;
  std::size_t suffix_len = 0;  ///< filter == suffix: the suffix's length
};

/// The kernels a matcher runs, taken from one dispatch table, and each pattern's plan.
struct approx_plan {
  lanes_backend lanes{myers_lanes_serial, 8};
  piece_finder finder = nullptr;   ///< the pigeonhole filter's piece search, when a pattern may use it
  striped_kernels striped;         ///< the striped kernels, when a pattern may use them
  blocked_kernel blocked = nullptr;  ///< the striped blocked kernel, when a pattern may use it
  std::optional<seed_index> seeds;   ///< the seed filter of the patterns whose filter is seeds
  std::vector<std::size_t> seed_patterns;  ///< the pattern of each member of `seeds`
  std::vector<pattern_plan> patterns;
};

/// Whether options.approx lets the seed filter take a set (automatic, myers, myers_seeds).
bool seeds_allowed(const search_options& options);

/// The seed filter of those of `pats` (m <= 64, error bounds `ks`) it can take, when it pays:
/// forced, whenever it takes one; else for at least tuning::seed_min_patterns members whose
/// seeds hit at most tuning::seed_max_density per byte together. The CPU plan below and the
/// GPU's (gpu_search.cpp) both ask here.
std::optional<seed_index> plan_seeds(std::span<const compiled_pattern* const> pats, std::span<const std::uint32_t> ks,
                                     bool forced);

/// The seeds' hits per text byte of the seed filter the CPU would run `patterns` with (every
/// pattern-strand a member), or nothing when it would not (device_choice.cpp prices the CPU's
/// work with it).
std::optional<double> seeded_density(const std::vector<std::string>& patterns, const search_options& options);

/// The plan for `pats` (k: `ks`) under options.approx with the kernels `ks_table`. Throws
/// trawl::error(invalid_argument) when a forced engine cannot run (striped kernels without
/// AVX2/AVX-512, one-word Myers with m > 64).
approx_plan plan_approx(const std::vector<compiled_pattern>& pats, const std::vector<std::uint32_t>& ks,
                        const search_options& options, const simd::kernels& ks_table);

}  // namespace trawl::approx_detail
