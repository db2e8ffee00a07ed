// s2_builder.cpp — the segments of S'': the text within M-1 bytes of every phrase start.
//
// An occurrence [x, x+m), m <= M, that is not inside one copied phrase either starts at a
// literal phrase p = x or contains a phrase start p with x < p < x+m; in both cases it lies
// in the window [p - M + 1, p + M). Windows are merged where they overlap or touch, so every
// text position appears at most once in S'' and an S'' hit maps back to one text position.
// (Ferrada, Gagie, Hirvola, Puglisi 2014, the "K_M" string.) O(z) time, |S''| <= z·(2M-1).
#include <algorithm>

#include "index/index_impl.hpp"

namespace trawl::index {

std::vector<std::pair<std::uint64_t, std::uint64_t>> s2_segments(const std::vector<lz77_phrase>& phrases,
                                                                 std::uint64_t n, std::uint32_t max_len) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segs;  // (text start, length)
  std::uint64_t cur_b = 0, cur_e = 0;
  bool open = false;
  for (const auto& ph : phrases) {
    const std::uint64_t b = ph.pos >= max_len - 1u ? ph.pos - (max_len - 1u) : 0;
    const std::uint64_t e = std::min<std::uint64_t>(n, ph.pos + max_len);
    if (open && b <= cur_e) {
      cur_e = std::max(cur_e, e);
    } else {
      if (open) segs.emplace_back(cur_b, cur_e - cur_b);
      cur_b = b;
      cur_e = e;
      open = true;
    }
  }
  if (open) segs.emplace_back(cur_b, cur_e - cur_b);
  return segs;
}

}  // namespace trawl::index
