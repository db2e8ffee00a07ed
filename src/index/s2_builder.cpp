// s2_builder.cpp — the segments of S'': the text within M-1 bytes of every phrase start.
//
// Phrases shorter than 2M are not kept as copies: their bytes are literal. An occurrence
// [x, x+m), m <= M, not inside one kept phrase either holds a literal byte q — then it lies
// in [q - M + 1, q + M), inside the window of q's phrase [p - M + 1, p + len + M - 1) — or
// crosses the start b of a kept phrase (x < b < x+m) and lies in [b - M + 1, b + M).
// Merged, these windows leave out exactly the interior [p + M, e - M + 1) of every kept phrase
// [p, e) (non-empty, as e - p >= 2M), so S'' is the text minus those gaps: segment 0 starts at
// text offset 0 and segment k >= 1 at e_{k-1} - M + 1, one segment after every kept phrase
// (the last one empty when M = 1 and a kept phrase ends the text). The text side of the
// segment map is therefore not stored: it is read from the kept phrase ends. Every text
// position appears at most once in S'', so an S'' hit maps back to one text position.
// (Ferrada, Gagie, Hirvola, Puglisi 2014, the "K_M" string.) O(z) time.
#include <algorithm>

#include "index/index_impl.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::index {

std::vector<std::pair<std::uint64_t, std::uint64_t>> s2_segments(const std::vector<lz77_phrase>& phrases,
                                                                 std::uint64_t n, std::uint32_t max_len) {
  std::vector<std::pair<std::uint64_t, std::uint64_t>> segs;  // (text start, length)
  if (n == 0) return segs;
  std::uint64_t begin = 0;
  for (const auto& ph : phrases) {
    if (!kept_phrase(ph, max_len)) continue;
    segs.emplace_back(begin, ph.pos + max_len - begin);  // up to the gap [pos + M, end - M + 1)
    begin = ph.pos + ph.len - (max_len - 1u);
  }
  segs.emplace_back(begin, n - begin);
  return segs;
}

}  // namespace trawl::index
