// myers_word.cpp — Myers' bit-vector algorithm (J. ACM 1999) in Hyyrö's formulation, one
// 64-bit word per text byte for patterns of m <= 64. O(n) time, O(σ) space.
//
// Column j of Sellers' DP is kept as vertical deltas D[i][j] - D[i-1][j] in {-1, 0, +1}:
// bit i of Pv is set when the delta of row i+1 is +1, of Mv when it is -1. Row 0 is all
// zeros (search mode), so the horizontal delta entering row 1 is always 0.
#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

void scan_myers_word(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink) {
  const std::uint64_t hib = std::uint64_t{1} << (p.m - 1);  // row m
  std::uint64_t pv = ~std::uint64_t{0};                     // first column: D[i] = i, all +1
  std::uint64_t mv = 0;
  std::uint64_t score = p.m;
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  const std::uint64_t* peq = p.peq.data();  // words == 1
  for (std::size_t j = from; j < to; ++j) {
    const std::uint64_t eq = peq[text[j]];
    // Xv: row i "can go down for free": matches here, or the delta above was -1.
    const std::uint64_t xv = eq | mv;
    // Xh: the diagonal-difference bits of the new column. Branchy equivalent, per row i from
    // the top: xh[i] = eq[i] || (pv[i-1] && xh[i-1] chain) — a carry that runs down a run of
    // +1 deltas from a matching row. The addition (eq & pv) + pv propagates exactly that
    // carry through runs of set pv bits; the xor with pv leaves the rows the carry reached.
    const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
    // Horizontal deltas: ph[i] (+1) when the vertical delta was -1 or neither xh nor pv hold;
    // mh[i] (-1) when the vertical delta was +1 and xh holds.
    std::uint64_t ph = mv | ~(xh | pv);
    std::uint64_t mh = pv & xh;
    // score_j = score_{j-1} + horizontal delta at row m:  if (ph & hib) ++score; else if (mh & hib) --score;
    score += (ph & hib) != 0;
    score -= (mh & hib) != 0;
    // Shift the horizontal deltas one row down; row 0's delta is 0 (it is all zeros).
    ph <<= 1;
    mh <<= 1;
    // New vertical deltas: +1 where mh came in or neither xv nor ph hold; -1 where ph and xv.
    pv = mh | ~(xv | ph);
    mv = ph & xv;
    if (score <= k && j >= report_from) sink.on_end(j, static_cast<std::uint32_t>(score));
  }
}

}  // namespace trawl::approx_detail
