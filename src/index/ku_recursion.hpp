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
#include <span>
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
  // empty ranges are not pushed: a chain of copies (a run of one letter) keeps the stack short
  if (it.lo < j) stack.push_back({it.x, it.lo, j});
  if (j + 1 < it.hi) stack.push_back({it.x, j + 1, it.hi});
  const ku_item next = ku_root(ix, y);
  if (next.lo < next.hi) stack.push_back(next);
}

/// Hands `out` to `sink` once it holds locate_flush_at occurrences, or whatever it holds when
/// `last`, and empties it. Without a sink, `out` keeps everything.
inline void flush_occurrences(std::vector<std::uint64_t>& out, const occurrence_sink* sink, bool last = false) {
  if (sink == nullptr || out.empty() || (!last && out.size() < locate_flush_at)) return;
  (*sink)(out);
  out.clear();
}

}  // namespace trawl::index
