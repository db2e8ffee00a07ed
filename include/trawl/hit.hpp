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

/// Receives hits in text order, a batch at a time. Return false to stop the search early.
using hit_callback = std::function<bool(std::span<const hit>)>;

}  // namespace trawl
