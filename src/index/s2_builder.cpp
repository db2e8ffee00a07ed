// s2_builder.cpp — the segments of S'': the text within M-1 bytes of every phrase start.
//
// Phrases shorter than 2M are not kept as copies: their bytes are literal. An occurrence
// [x, x+m), m <= M, not inside one kept phrase either holds a literal byte q — then it lies
// in [q - M + 1, q + M), inside the window of q's phrase [p - M + 1, p + len + M - 1) — or
// crosses the start b of a kept phrase (x < b < x+m) and lies in [b - M + 1, b + M).
// Windows are merged where they overlap or touch, so every text position appears at most
// once in S'' and an S'' hit maps back to one text position. (Ferrada, Gagie, Hirvola,
// Puglisi 2014, the "K_M" string.) O(z) time.
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
    const std::uint64_t e = std::min<std::uint64_t>(n, kept_phrase(ph, max_len) ? ph.pos + max_len
                                                                                 : ph.pos + ph.len + max_len - 1);
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
