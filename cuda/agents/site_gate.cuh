// cuda/agents/site_gate.cuh — the PAM step of offtarget's site test of a candidate end with
// bulges (kernels/site_test.cu): the PAM positions an end implies and whether the PAM fits at
// one. The site test starts with it; the approximate kernels run it before they write an end
// (approx_common::pam_gate), so that the ends with no PAM (most of them) are never written.
#pragma once

#include <cstdint>

#include "agents/bases.cuh"
#include "agents/emit.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

enum class pam_fit { none, fits, unknown };

/// Whether PAM p fits at window byte ps, read on the reverse strand when `reverse`: unknown
/// when its bytes are not all in the window.
__device__ __forceinline__ pam_fit pam_at(const site_test_tasks& t, const text_window& w, std::uint32_t p, bool reverse,
                                          long long ps) {
  const std::uint8_t* pam = t.pam_bits + t.pam_offset[p];
  const long long P = t.pam_offset[p + 1] - t.pam_offset[p];
  if (ps < 0 || ps + P > static_cast<long long>(w.len)) return pam_fit::unknown;
  std::uint32_t mm = 0;
  for (long long i = 0; i < P; ++i) {
    const unsigned b = base_bit(w.data[reverse ? ps + P - 1 - i : ps + i]);
    mm += (pam[i] & (reverse ? complement_bit(b) : b)) == 0 ? 1u : 0u;
  }
  return mm > t.pam_limit ? pam_fit::none : pam_fit::fits;
}

/// Calls fn(ps) for each window byte ps where the PAM of a candidate of `task` ending before
/// window byte `end` may start (offtarget's site_finder::pam_starts), until fn returns false.
template <class Fn>
__device__ __forceinline__ void pam_starts_of(const site_test_tasks& t, std::uint32_t task, long long end, Fn&& fn) {
  const std::uint32_t g = t.guide_of[task], p = t.pam_of[task];
  const bool reverse = t.reverse[task] != 0;
  const long long P = t.pam_offset[p + 1] - t.pam_offset[p];
  if (t.three_prime == !reverse) {  // the PAM at the hit's right end
    fn(end - P);
    return;
  }
  // the PAM on the left, m - RNA .. m + DNA bulges before the far end
  const long long m = t.guide_offset[g + 1] - t.guide_offset[g];
  for (long long len = m - (m < t.rna_bulges ? m : t.rna_bulges); len <= m + t.dna_bulges; ++len)
    if (!fn(end - len - P)) return;
}

/// Whether the end (one past its last byte, in the window) of a candidate of `task` may have a
/// site: a PAM it implies fits or is not all in the window.
__device__ __forceinline__ bool pam_may_fit(const site_test_tasks& t, const text_window& w, std::uint32_t task,
                                            long long end) {
  const std::uint32_t p = t.pam_of[task];
  const bool reverse = t.reverse[task] != 0;
  bool may = false;
  pam_starts_of(t, task, end, [&](long long ps) {
    may = pam_at(t, w, p, reverse, ps) != pam_fit::none;
    return !may;
  });
  return may;
}

/// Writes an approximate kernel's end at window byte j of `task`, unless the kernels' PAM gate
/// (approx_common::pam_gate) finds that it has no site.
__device__ __forceinline__ void emit_end(const approx_common& c, const text_window& w, const candidate_sink& sink,
                                         std::size_t j, std::uint32_t task, std::uint32_t score) {
  if (c.pam_gate && !pam_may_fit(c.sites, w, task, static_cast<long long>(j) + 1)) return;
  emit_candidate(sink.out, sink.count, sink.capacity, w.base + j, task, score);
}

}  // namespace trawl::cuda
