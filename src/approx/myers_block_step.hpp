// myers_block_step.hpp — one 64-row block of Myers' bit-vector DP advanced by one text byte,
// with a horizontal delta entering at the top (Hyyrö 2003; as in edlib's calculateBlock).
// O(1) per call.
#pragma once

#include <cstdint>

namespace trawl::approx_detail {

/// Advances the block (pv, mv = vertical +1 / -1 deltas of its rows) by one column.
/// `hin` in {-1, 0, +1} is the horizontal delta D[top-1][j] - D[top-1][j-1] entering above the
/// block; returns the horizontal delta at the row whose bit is `hib` (the block's bottom row,
/// or row m in the last block).
inline int myers_block_step(std::uint64_t& pv, std::uint64_t& mv, std::uint64_t eq, int hin, std::uint64_t hib) {
  // Branchy equivalents: hin_neg = (hin == -1) ? 1 : 0;  hin_pos = (hin == +1) ? 1 : 0.
  const std::uint64_t hin_neg = hin < 0 ? 1u : 0u;
  const std::uint64_t hin_pos = hin > 0 ? 1u : 0u;
  const std::uint64_t xv = eq | mv;
  // A -1 coming in from above lets row 1 go down for free, exactly like a match does.
  eq |= hin_neg;
  // Carry down runs of +1 vertical deltas from matching rows (see myers_word.cpp).
  const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
  std::uint64_t ph = mv | ~(xh | pv);
  std::uint64_t mh = pv & xh;
  // hout = (ph & hib) ? +1 : (mh & hib) ? -1 : 0
  const int hout = static_cast<int>((ph & hib) != 0) - static_cast<int>((mh & hib) != 0);
  // Shift horizontal deltas one row down; the delta entering row 1 is hin.
  ph = (ph << 1) | hin_pos;
  mh = (mh << 1) | hin_neg;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

}  // namespace trawl::approx_detail
