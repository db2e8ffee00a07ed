// ku_recursion.hpp — one step of the Kärkkäinen–Ukkonen secondary-occurrence recursion,
// shared by every locate engine (the engines differ only in how they schedule the steps).
//
// Kärkkäinen, Ukkonen, "Lempel-Ziv parsing and sublinear-size index structures" (1996);
// Letelier's Algorithm 2. A work item (x, lo, hi) asks: which copy phrases j in by_src[lo, hi)
// (all with source start <= x) have a source covering [x, x+m)? The range maximum of source
// ends answers one j per query: if even the maximum end is short, none does; otherwise j's
// target holds a new occurrence y, and [lo, j), (j, hi) and y's own sources are still to see.
// O(1) range-max query + O(log z) predecessor per reported occurrence.
#pragma once

#include <cstdint>
#include <vector>

#include "index/index_impl.hpp"

namespace trawl::index {

struct ku_item {
  std::uint64_t x, lo, hi;
};

/// The root item of occurrence x.
inline ku_item ku_root(const detail::index_impl& ix, std::uint64_t x) { return {x, 0, ix.sources_upto(x)}; }

/// Expands `it`: appends a found occurrence to `out` and its follow-up items to `stack`.
inline void ku_step(const detail::index_impl& ix, std::uint64_t m, const ku_item& it, std::vector<ku_item>& stack,
                    std::vector<std::uint64_t>& out) {
  if (it.lo >= it.hi) return;
  const std::uint64_t j = ix.furthest_source(it.lo, it.hi - 1);
  if (ix.source_end(j) + 1 < it.x + m) return;  // the furthest source in range ends before x+m-1
  const std::uint64_t y = it.x + ix.copy_distance(j);
  out.push_back(y);
  stack.push_back({it.x, it.lo, j});
  stack.push_back({it.x, j + 1, it.hi});
  stack.push_back(ku_root(ix, y));
}

}  // namespace trawl::index
