// site_align.hpp — the alignment of a guide at a PAM with bulges, on the host: the reference
// DP over every state (align_bits, with or without its columns) and the same alignment one row
// of states at a time (align_counts, align_traced_into: site_rows.hpp) where the limits fit a row.
// What offtarget.cpp's site test, ranking and site building run.
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <tuple>

#include "common/line_vector.hpp"
#include "offtarget/site_rows.hpp"

namespace trawl::offtarget::site_align {

/// The best alignment of a guide at one PAM, read outward from the PAM: g = the guide from
/// its PAM side (reversed for a 3' PAM), t = the genome's bases on the guide's strand from the
/// PAM outward (as many as there are, up to m + DNA bulges). Global on the guide, free at the
/// far end of t; a bulge is never the first or last column, and a DNA bulge is never next to an
/// RNA bulge (that pair is a mismatch written as two bulges). Best: fewest edits, then fewest
/// bulges, then fewest mismatches, then fewest DNA bulges.
struct site_alignment {
  int mismatches = 0, dna_bulges = 0, rna_bulges = 0;
  std::size_t text_len = 0;  ///< genome bases used
  std::string ops;           ///< columns from the PAM outward: 'M' (match or mismatch), 'D' (DNA bulge), 'R' (RNA bulge)
};

/// The best alignment (site_alignment) of a guide's IUPAC codes gb (iupac_bits) against the
/// genome's bases tb (base_bits), both read outward from the PAM. Without `Trace` the counts
/// are filled and `ops` is not: the test of whether a site is there.
template <bool Trace>
std::optional<site_alignment> align_bits(std::span<const unsigned char> gb, std::span<const unsigned char> tb,
                                         int max_mm, int max_dna, int max_rna) {
  const int m = static_cast<int>(gb.size()), n = static_cast<int>(tb.size());
  constexpr int inf = 1 << 29;
  // state (i, d, r, last): i guide bases, d DNA and r RNA bulges used (so i + d - r genome
  // bases), the last column a base pair (last = 0), a DNA bulge (1) or an RNA bulge (2);
  // cost = fewest mismatches
  constexpr int lasts = 3;
  const int D = max_dna + 1, R = max_rna + 1, row = D * R * lasts;
  auto at = [&](int i, int d, int r, int last) { return ((i * D + d) * R + r) * lasts + last; };
  // scratch of this thread's last call: the classification runs once per candidate PAM
  thread_local trawl::detail::line_vector<int> cost, prev;
  thread_local trawl::detail::line_vector<char> op;
  const auto states = static_cast<std::size_t>((m + 1) * row);
  cost.assign(states, inf);
  if constexpr (Trace) {
    prev.assign(states, -1);
    op.assign(states, 0);
  }
  auto relax = [&](int to, int c, int from, char o) {
    if (c < cost[to]) {
      cost[to] = c;
      if constexpr (Trace) prev[to] = from, op[to] = o;
    }
  };
  cost[at(0, 0, 0, 0)] = 0;
  for (int i = 0; i <= m; ++i) {  // every move increases i or d: this order visits a state after its sources
    for (int d = 0; d < D; ++d)
      for (int r = 0; r < R; ++r)
        for (int last = 0; last < lasts; ++last) {
          const int here = at(i, d, r, last), c = cost[here];
          if (c >= inf) continue;
          const int j = i + d - r;
          if (i < m && j < n) {
            const int nc = c + ((gb[i] & tb[j]) != 0 ? 0 : 1);
            if (nc <= max_mm) relax(at(i + 1, d, r, 0), nc, here, 'M');
          }
          if (i == 0 || i == m) continue;  // no bulge as the first column, nor past the guide
          if (d + 1 < D && j < n && last != 2) relax(at(i, d + 1, r, 1), c, here, 'D');
          if (r + 1 < R && last != 1) relax(at(i + 1, d, r + 1, 2), c, here, 'R');
        }
    // row i + 1 is reached from row i only (and from itself by DNA bulges)
    if (i < m && std::all_of(cost.begin() + (i + 1) * row, cost.begin() + (i + 2) * row, [](int c) { return c >= inf; }))
      return std::nullopt;
  }
  std::optional<site_alignment> best;
  int best_state = -1;
  auto rank = [](const site_alignment& x) {
    return std::make_tuple(x.mismatches + x.dna_bulges + x.rna_bulges, x.dna_bulges + x.rna_bulges, x.mismatches,
                           x.dna_bulges);
  };
  for (int d = 0; d < D; ++d)
    for (int r = 0; r < R; ++r)
      if (const int c = cost[at(m, d, r, 0)]; c < inf) {  // the last column is not a bulge
        site_alignment x{c, d, r, static_cast<std::size_t>(m + d - r), {}};
        if (!best || rank(x) < rank(*best)) best = x, best_state = at(m, d, r, 0);
      }
  if constexpr (Trace) {
    if (!best) return best;
    for (int st = best_state; prev[st] >= 0; st = prev[st]) best->ops.push_back(op[st]);
    std::reverse(best->ops.begin(), best->ops.end());
  }
  return best;
}

/// Whether site_rows.hpp's row DP takes an alignment of these limits.
inline bool rows_fit(int max_mm, int max_dna, int max_rna) {
  return (max_dna + 1) * (max_rna + 1) * 3 <= site_rows::max_states && max_mm < 255;
}

/// align_bits<false> one row of states at a time (site_rows.hpp) where the limits fit: the same
/// counts. The test every candidate of a search with bulges takes, and the ranking of every
/// site.
inline std::optional<site_alignment> align_counts(std::span<const unsigned char> gb, std::span<const unsigned char> tb,
                                           int max_mm, int max_dna, int max_rna) {
  if (!rows_fit(max_mm, max_dna, max_rna)) return align_bits<false>(gb, tb, max_mm, max_dna, max_rna);
  const int m = static_cast<int>(gb.size()), n = static_cast<int>(tb.size());
  const auto c = site_rows::best_alignment(
      m, n, [&](int i) { return gb[static_cast<std::size_t>(i)]; }, [&](int j) { return tb[static_cast<std::size_t>(j)]; },
      max_mm, max_dna, max_rna);
  if (!c.found) return std::nullopt;
  return site_alignment{c.mismatches, c.dna_bulges, c.rna_bulges,
                        static_cast<std::size_t>(m + c.dna_bulges - c.rna_bulges), {}};
}

/// The most columns an alignment traced here has: the longest guide and DNA bulges.
inline constexpr int max_columns = site_rows::max_traced_guide + 64;

/// align_bits<true> the same way, its columns from the row DP's trace (the same alignment)
/// written to cols[0, len) (room for max_columns) instead of the returned alignment's ops.
/// At most 64 DNA bulges.
inline std::optional<site_alignment> align_traced_into(std::span<const unsigned char> gb, std::span<const unsigned char> tb,
                                                       int max_mm, int max_dna, int max_rna, char* cols, int& len) {
  const int m = static_cast<int>(gb.size()), n = static_cast<int>(tb.size());
  if (!rows_fit(max_mm, max_dna, max_rna) || m > site_rows::max_traced_guide) {
    auto al = align_bits<true>(gb, tb, max_mm, max_dna, max_rna);
    if (!al) return al;
    len = static_cast<int>(al->ops.size());
    std::copy(al->ops.begin(), al->ops.end(), cols);
    al->ops.clear();
    return al;
  }
  thread_local site_rows::trace_table table;
  const auto c = site_rows::best_alignment(
      m, n, [&](int i) { return gb[static_cast<std::size_t>(i)]; }, [&](int j) { return tb[static_cast<std::size_t>(j)]; },
      max_mm, max_dna, max_rna, &table, cols, &len);
  if (!c.found) return std::nullopt;
  return site_alignment{c.mismatches, c.dna_bulges, c.rna_bulges,
                        static_cast<std::size_t>(m + c.dna_bulges - c.rna_bulges), {}};
}

}  // namespace trawl::offtarget::site_align
