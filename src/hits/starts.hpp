// starts.hpp — where an approximate hit starts: the step of the hit pipeline that turns a hit's
// end and distance into its leftmost start (align.cpp: reverse global Myers over the hit's
// window; the batched SIMD kernels of the caller's dispatch table where they apply). The CPU
// engines, the GPU glue, the index's approximate search and best() all fill their starts here.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string_view>
#include <vector>

#include <tbb/parallel_for.h>

#include "approx/approx_internal.hpp"
#include "trawl/hit.hpp"

namespace trawl::hits {

/// hits[i].start for hits of one pattern `p` over seq (end = j + 1, errors = the distance at
/// j), none starting below lo: the smallest start at that distance.
inline void fill_starts(const approx_detail::compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                        std::span<hit> hits, const approx_detail::start_kernels& ks) {
  approx_detail::leftmost_starts(p, seq, lo, hits, ks);
}

/// The same for hits of several patterns, pattern_of(hit) giving each one's compiled pattern:
/// the hits of one pattern go through the kernels together, in pieces spread over the calling
/// arena's workers.
template <class PatternOf>
void fill_starts(std::span<hit> hits, std::string_view seq, std::uint64_t lo, const approx_detail::start_kernels& ks,
                 PatternOf&& pattern_of) {
  std::vector<std::size_t> order(hits.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  const auto key = [&](std::size_t i) { return static_cast<const void*>(&pattern_of(hits[i])); };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return std::less<>{}(key(a), key(b)); });
  constexpr std::size_t piece = 4096;  // hits a worker takes at a time
  std::vector<std::size_t> firsts;     // pieces: runs of one pattern, cut every `piece` hits
  for (std::size_t i = 0; i < order.size(); ++i)
    if (i == 0 || key(order[i]) != key(order[i - 1]) || i - firsts.back() == piece) firsts.push_back(i);
  firsts.push_back(order.size());
  tbb::parallel_for(std::size_t{0}, firsts.size() - 1, [&](std::size_t q) {
    std::vector<hit> mine;
    for (std::size_t i = firsts[q]; i < firsts[q + 1]; ++i) mine.push_back(hits[order[i]]);
    fill_starts(pattern_of(mine.front()), seq, lo, mine, ks);
    for (std::size_t i = firsts[q]; i < firsts[q + 1]; ++i) hits[order[i]].start = mine[i - firsts[q]].start;
  });
}

}  // namespace trawl::hits
