// cuda/agents/myers_step.cuh — one column of Myers' bit-vector edit-distance DP (Myers 1999,
// multi-word form by Hyyrö 2003, as in edlib's calculateMacroBlock).
//
// Pv/Mv hold the vertical deltas (+1 / -1) of one text column; Eq the pattern symbols that
// match the text symbol. The branchy equivalent of one step for row i is
//   D[i][j] = min(D[i-1][j-1] + (p_i != t_j), D[i-1][j] + 1, D[i][j-1] + 1)
// evaluated for 32/64 rows at once through the carry chain of one addition.
#pragma once

#include <cstdint>

namespace trawl::cuda {

/// Single word, searching (row 0 is all zeros, so no horizontal delta enters at the bottom).
/// The pattern is left-aligned: its last symbol is the word's top bit, and the rows below
/// the pattern are "free" rows (Eq = 1, Pv = Mv = 0) that stay equal to row 0. Returns the
/// change of the score D[m][j] - D[m][j-1] in {-1, 0, +1}.
template <class Word>
__device__ __forceinline__ int myers_search_step(Word eq, Word& pv, Word& mv) {
  constexpr int top = static_cast<int>(sizeof(Word) * 8 - 1);
  const Word xv = eq | mv;
  const Word xh = (((eq & pv) + pv) ^ pv) | eq;
  Word ph = mv | ~(xh | pv);
  Word mh = pv & xh;
  const int delta = static_cast<int>(ph >> top) - static_cast<int>(mh >> top);
  ph <<= 1;
  mh <<= 1;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return delta;
}

/// The same step without the score: for runs of columns where no end can reach k.
template <class Word>
__device__ __forceinline__ void myers_search_step_fast(Word eq, Word& pv, Word& mv) {
  const Word xv = eq | mv;
  const Word xh = (((eq & pv) + pv) ^ pv) | eq;
  const Word ph = (mv | ~(xh | pv)) << 1;
  const Word mh = (pv & xh) << 1;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
}

/// D[m][j] of a left-aligned column: row 0 is 0 and the free rows have no deltas, so the
/// score is the sum of the vertical deltas, popc(Pv) - popc(Mv).
__device__ __forceinline__ int column_score(std::uint32_t pv, std::uint32_t mv) { return __popc(pv) - __popc(mv); }
__device__ __forceinline__ int column_score(std::uint64_t pv, std::uint64_t mv) {
  return __popcll(pv) - __popcll(mv);
}

/// One 64-bit block of a multi-word column with horizontal input `hin` in {-1, 0, +1} from the
/// block below; returns the horizontal output of bit `out_bit` (63 for a full block, (m-1)%64
/// for the block holding the last pattern symbol).
__device__ __forceinline__ int myers_block_step(std::uint64_t eq, std::uint64_t& pv, std::uint64_t& mv, int hin,
                                                int out_bit) {
  const std::uint64_t xv = eq | mv;
  if (hin < 0) eq |= 1ull;
  const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
  std::uint64_t ph = mv | ~(xh | pv);
  std::uint64_t mh = pv & xh;
  const int hout = static_cast<int>((ph >> out_bit) & 1ull) - static_cast<int>((mh >> out_bit) & 1ull);
  ph <<= 1;
  mh <<= 1;
  if (hin < 0)
    mh |= 1ull;
  else if (hin > 0)
    ph |= 1ull;
  pv = mh | ~(xv | ph);
  mv = ph & xv;
  return hout;
}

}  // namespace trawl::cuda
