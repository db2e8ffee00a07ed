// dispatch.hpp — the SIMD dispatch table: for each level (serial, AVX2, AVX-512) the kernel of
// every family the engines run, chosen here and nowhere else.
//
// A table is built once per level from the features cpu::at_level gives it; the AVX-512 table
// comes in two, with and without VBMI. An engine takes the table of its options' level
// (search_options::simd, exact_options::simd, best_options::simd) when it is built and runs
// only that table's kernels in every stage (scan, filter, start finding, hit writing), so a
// forced level is obeyed everywhere and a kernel of another level never runs.
#pragma once

#include "approx/approx_internal.hpp"
#include "common/cpu.hpp"
#include "common/dna_pack.hpp"
#include "exact/engines.hpp"
#include "exact/kmer_set.hpp"
#include "exact/teddy.hpp"

namespace trawl::simd {

struct kernels {
  simd_level level = simd_level::serial;  ///< serial, avx2 or avx512 (never automatic)
  cpu::features features;                 ///< what the kernels below may use: cpu::at_level(level)

  // ---- exact search (src/exact) ----
  exact_detail::engine_fn find = nullptr;                  ///< one pattern: SIMD filter + verification
  exact_detail::teddy_candidates_fn teddy = nullptr;       ///< Teddy's nibble filter
  exact_detail::kmer_candidates_fn kmer = nullptr;         ///< the k-mer set's sampled filter

  // ---- approximate search (src/approx) ----
  approx_detail::lanes_backend lanes{nullptr, 0};          ///< (pattern, stripe) jobs in lanes, m <= 64
  approx_detail::striped_kernels striped;                  ///< one pattern of m <= 32 over 64 stripes
  approx_detail::blocked_kernels blocked;                  ///< one pattern of m > 64 over 32 / 16 stripes
  approx_detail::piece_finder pieces = nullptr;            ///< the pigeonhole filter's exact pieces
  approx_detail::start_kernels starts;                     ///< leftmost starts of many ends at once
  approx_detail::run_writer write_runs = nullptr;          ///< cluster hits of the striped kernel's runs

  // ---- the GPU's transfer (cuda/dispatch) ----
  dna_pack::pack_fn pack = nullptr;                        ///< DNA text in two bits a base
};

/// The table of `level`; automatic is the best level cpu::active() allows. Throws
/// trawl::error(errc::unsupported) for a level this CPU (as narrowed by cpu::limit) lacks.
/// Tables live as long as the process; the one returned always follows the current
/// cpu::limit (VBMI included).
const kernels& kernels_at(simd_level level);

/// True when kernels_at(level) does not throw (automatic and serial always).
bool supported(simd_level level) noexcept;

}  // namespace trawl::simd
