// hits/clusters.hpp — the one rule that turns the end positions of an approximate search into
// hits (approx.hpp): a cluster is a run of consecutive ends of one (pattern, strand) with score
// <= k, reported by its best end (the smallest score, the leftmost on ties). The CPU engines'
// streaming sinks, the GPU's candidates, the index's ends and the slicing driver's merge of
// clusters cut by slice edges all apply it through these helpers.
#pragma once

#include <cstddef>
#include <cstdint>

#include "trawl/hit.hpp"

namespace trawl::hits {

/// Which of two pieces of one cluster gives the cluster's hit: `earlier` (the one that ends
/// first) unless `later` has a strictly smaller score. The same for two ends.
inline bool later_is_better(std::uint32_t earlier_score, std::uint32_t later_score) noexcept {
  return later_score < earlier_score;
}

/// The hit of a cluster whose pieces `earlier` and `later` a slice edge cut apart.
inline const hit& join(const hit& earlier, const hit& later) noexcept {
  return later_is_better(earlier.errors, later.errors) ? later : earlier;
}

/// A run of consecutive ends [first, last] of one (pattern, strand) and its best end.
struct end_run {
  std::uint64_t first = 0, last = 0;
  std::uint64_t best = 0;        ///< the best end's position
  std::uint32_t best_score = 0;  ///< its score

  /// The run of the one end j.
  static end_run at(std::uint64_t j, std::uint32_t score) noexcept { return {j, j, j, score}; }
  /// True when `next`, a run beginning after this one, continues it (it begins right after
  /// this one's last end); then it is joined to this one.
  bool absorb(const end_run& next) noexcept {
    if (next.first != last + 1) return false;
    if (later_is_better(best_score, next.best_score)) best = next.best, best_score = next.best_score;
    last = next.last;
    return true;
  }
  /// Bits of the edges of the owned positions [own_begin, own_end) the run touches: 1 its
  /// first end is own_begin, 2 its last is own_end - 1. The run may go on past such an edge in
  /// the neighbouring slice (detail::open_mark).
  [[nodiscard]] std::uint8_t sides(std::uint64_t own_begin, std::uint64_t own_end) const noexcept {
    return static_cast<std::uint8_t>((first == own_begin ? 1u : 0u) | (last + 1 == own_end ? 2u : 0u));
  }
};

/// Calls emit(best index, run) for each cluster of ends[0, n): ends sorted by (group, position),
/// where same_group(a, b) tells two ends of one (pattern, strand) (and record) apart from the
/// rest, pos(e) and score(e) read an end. With clusters false, every end is its own run.
template <class End, class SameGroup, class Pos, class Score, class Emit>
void for_each_run(const End* ends, std::size_t n, bool clusters, SameGroup&& same_group, Pos&& pos, Score&& score,
                  Emit&& emit) {
  for (std::size_t i = 0; i < n;) {
    end_run run = end_run::at(pos(ends[i]), score(ends[i]));
    std::size_t best = i, e = i + 1;
    if (clusters)
      for (; e < n && same_group(ends[i], ends[e]); ++e) {
        const std::uint64_t before = run.best;
        if (!run.absorb(end_run::at(pos(ends[e]), score(ends[e])))) break;
        if (run.best != before) best = e;
      }
    emit(best, run);
    i = e;
  }
}

}  // namespace trawl::hits
