// blocked_stripes_plan.hpp — what the striped blocked kernels (myers_blocked_avx512.cpp: 32
// stripes, myers_blocked_avx2.cpp: 16) share: their Peq layout, and how they cut a range of
// ends (one plan and one length rule for both, and for best_myers.cpp's question whether a
// piece is long enough for them). O(1) to plan;
// the kernel's O(n·⌈m/64⌉ / stripes) vector block steps, the scalar loop's O((m + k)·⌈k/64⌉)
// for the ends it keeps, and O(hits) to order the stripes' ends.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

/// The kernels' 64·nb-row layout: Peq of byte c, block b, with the pattern shifted up by
/// d = 64·nb - m rows (multi-word shift left by d). The d rows above it match nothing, so their
/// cells are D[i][j] = i and row d is the constant d: every score below is the true score + d,
/// and the bottom row of every block is bit 63.
inline std::uint64_t shifted_peq(const compiled_pattern& p, std::size_t c, std::size_t b, std::size_t d) {
  const std::uint64_t* eq = p.eq(static_cast<unsigned char>(c));
  if (d == 0) return eq[b];
  return (eq[b] << d) | (b > 0 ? eq[b - 1] >> (64 - d) : 0);
}

/// The fewest ends per stripe the kernels take (a multiple of 8): their warm-up of w = m + k - 1
/// bytes per stripe is then at most a quarter of the work.
inline std::size_t blocked_stripe_min_len(std::size_t w) { return std::max<std::size_t>(4 * w, 1024); }

/// A kernel's report after step t >= w for the lanes in m of a group of stripes s0, s0 + 1, ...:
/// lane l's end a0 + (s0 + l)·len + t - w with its score sc[l] - d (sc: the group's score
/// register, stored).
inline void report_lanes(unsigned m, const std::uint64_t* sc, std::size_t s0, std::size_t a0, std::size_t len,
                         std::size_t t, std::size_t w, std::size_t d, std::vector<lane_hit>& hits) {
  for (; m != 0; m &= m - 1) {
    const auto l = static_cast<std::uint32_t>(__builtin_ctz(m));
    const std::size_t s = s0 + l;
    hits.push_back({a0 + s * len + (t - w), static_cast<std::uint32_t>(sc[l] - d), static_cast<std::uint32_t>(s)});
  }
}

/// Runs `kernel(a0, len, w, hits)` over `stripes` stripes of len ends each, stripe s owning the
/// ends [a0 + s·len, a0 + (s + 1)·len) and reading from w bytes before them, with a0 =
/// max(report_from, from + w); kernel appends (end, score, stripe) in step order. The ends
/// before a0 and after the stripes go to the scalar blocked loop, and the sink gets every end
/// ascending. False (nothing done) when m <= 64 or the stripes would be shorter than
/// blocked_stripe_min_len.
template <class Kernel>
bool plan_blocked_stripes(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                          std::size_t to, std::uint32_t k, std::size_t stripes, end_sink& sink, Kernel&& kernel) {
  const std::size_t w = p.m + k - 1;  // warm-up: the longest occurrence is m + k bytes
  const std::size_t a0 = std::max(report_from, from + w);
  const std::size_t len = to > a0 ? (to - a0) / stripes / 8 * 8 : 0;
  if (p.m <= 64 || len < blocked_stripe_min_len(w)) return false;
  // Ends before a0 (stripe 0 would lack its warm-up) and after the stripes: the scalar kernel.
  if (report_from < a0) scan_myers_blocked(p, seq, from, report_from, a0, k, sink);
  std::vector<lane_hit> hits, sorted;
  kernel(a0, len, w, hits);
  sort_by_lane(hits, stripes, sorted);  // stripes are in text order
  sink.on_ends(sorted.data(), sorted.size());
  const std::size_t tail = a0 + stripes * len;
  if (tail < to) scan_myers_blocked(p, seq, tail - w, tail, to, k, sink);
  return true;
}

}  // namespace trawl::approx_detail
