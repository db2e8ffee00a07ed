// trawl/hit.hpp — one reported occurrence, shared by every engine and backend.
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string_view>

namespace trawl {

/// Which strand a hit was found on. Coordinates are always on the forward strand.
enum class strand : std::uint8_t { forward = 0, reverse = 1 };

/// One occurrence: the half-open range [start, end) of the searched sequence (0-based),
/// the index of the pattern that matched (in the order the patterns were given), the
/// number of edit (or Hamming) errors, and the strand.
struct hit {
  std::uint64_t start = 0;
  std::uint64_t end = 0;
  std::uint32_t pattern = 0;
  std::uint32_t errors = 0;
  strand dir = strand::forward;

  friend bool operator==(const hit& a, const hit& b) {
    return a.start == b.start && a.end == b.end && a.pattern == b.pattern && a.errors == b.errors &&
           a.dir == b.dir;
  }
};

/// What a search's hits are ordered by first: their first byte (exact search) or their last
/// byte (approximate search, where engines find end positions). It is also the position a
/// matcher owns a hit by (search.hpp).
enum class hit_key { start, last };

/// The one order of hits, in which every engine, the slicing driver, the GPU, the index and
/// the MPI ranks hand them over: by key position (start, or end for hit_key::last), then
/// pattern, strand, start, end. A search's hits differ in at least one of these, so the order
/// is total. Hits of several records come record by record (index::record_hit_order).
struct hit_order {
  hit_key key = hit_key::start;
  /// The order of a search: by end when it is approximate, else by start.
  static constexpr hit_order of(bool approximate) noexcept { return {approximate ? hit_key::last : hit_key::start}; }
  constexpr bool operator()(const hit& a, const hit& b) const noexcept {
    const std::uint64_t ka = key == hit_key::start ? a.start : a.end;
    const std::uint64_t kb = key == hit_key::start ? b.start : b.end;
    if (ka != kb) return ka < kb;
    if (a.pattern != b.pattern) return a.pattern < b.pattern;
    if (a.dir != b.dir) return a.dir < b.dir;
    if (a.start != b.start) return a.start < b.start;
    return a.end < b.end;
  }
};

/// Receives hits in text order, a batch at a time. Return false to stop the search early.
using hit_callback = std::function<bool(std::span<const hit>)>;

}  // namespace trawl
