// cpu.hpp — the one place that reads the CPU's SIMD features and decides what a search may use.
//
// Features are read once. at_level() gives the features a level may use (a level this CPU
// lacks is one error); the dispatch table (dispatch.hpp) turns them into the kernels every
// engine runs, so nothing else reads these features to choose a kernel. limit() narrows what
// the whole process sees, for tests (a CPU without VBMI, without AVX-512).
#pragma once

#include "trawl/exact.hpp"

namespace trawl::cpu {

struct features {
  bool avx2 = false;        ///< AVX2 + BMI1/2 + POPCNT: what the *_avx2.cpp files are built for
  bool avx512 = false;      ///< AVX-512 F, BW, VL, DQ + the AVX2 set: the *_avx512.cpp files
  bool avx512vbmi = false;  ///< AVX-512 VBMI (vpermb), used inside the AVX-512 kernels
};

/// What this CPU has, as narrowed by limit().
features active() noexcept;

/// The features a search at `level` uses: active() for automatic, none for serial, only the
/// AVX2 set for avx2, the AVX-512 set (with VBMI if present) for avx512. Throws
/// trawl::error(errc::unsupported) when this CPU lacks a forced level.
features at_level(simd_level level);

/// Tests: narrows active() for the whole process to `allowed` (and what the CPU has); limit
/// with every flag true restores it. Not for use while searches run.
void limit(features allowed) noexcept;

}  // namespace trawl::cpu
