// delivery.cpp — see delivery.hpp.
#include "hits/delivery.hpp"

namespace trawl::hits {

slice_summary summarize(std::span<const hit> hits, std::span<const detail::open_mark> open, bool one_id) {
  slice_summary sum;
  if (hits.empty()) return sum;
  sum.any_open = !open.empty();
  if (one_id) return sum;
  const std::uint32_t pattern = hits[0].pattern;
  const strand dir = hits[0].dir;
  bool same = true;
  for (const hit& h : hits) same &= h.pattern == pattern && h.dir == dir;  // no early exit: the loop vectorizes
  sum.one_id = same;
  return sum;
}

}  // namespace trawl::hits
