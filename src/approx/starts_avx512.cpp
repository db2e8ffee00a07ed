// starts_avx512.cpp — leftmost starts of 8 one-word requests at once in the 64-bit lanes of an
// AVX-512 register: the reverse global Myers pass of leftmost_start (align.cpp spells it out),
// lane i over seq[j_i], seq[j_i - 1], ... O(max length) vector steps for 8 requests.
// Compiled with -mavx512*; called only after a CPU check.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

bool leftmost_starts8_avx512(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, start_request* rq,
                             std::size_t g) {
  alignas(64) std::uint64_t j[8], want[8], len[8], best0[8];
  std::uint64_t steps = 0, min_j = ~std::uint64_t{0};
  for (std::size_t i = 0; i < 8; ++i) {
    const start_request& r = rq[i < g ? i : 0];
    j[i] = r.j;
    want[i] = r.score;
    len[i] = std::min<std::uint64_t>(p.m + r.score, r.j + 1 - lo);
    best0[i] = p.m == r.score ? 0 : ~std::uint64_t{0};
    steps = std::max(steps, len[i]);
    min_j = std::min(min_j, r.j);
  }
  // Text bytes come 8 at a time from the qword ending at each lane's position; near the
  // text's start that qword would begin before it: the caller's scalar loop does those.
  if (min_j < steps + 8) return false;
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  const __m512i vwant = _mm512_load_si512(want), vlen = _mm512_load_si512(len);
  const __m512i hib = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{1} << (p.m - 1)));
  const __m512i one = _mm512_set1_epi64(1), ff = _mm512_set1_epi64(0xFF);
  __m512i pos = _mm512_load_si512(j);  // byte of the next column, per lane
  __m512i pv = _mm512_set1_epi64(-1), mv = _mm512_setzero_si512();
  __m512i d = _mm512_set1_epi64(static_cast<long long>(p.m));
  __m512i best = _mm512_load_si512(best0);
  __m512i bytes = _mm512_setzero_si512();
  for (std::uint64_t l = 1; l <= steps; ++l) {
    if ((l - 1) % 8 == 0) {  // the 8 bytes text[pos-7 .. pos], highest = text[pos]
      bytes = _mm512_i64gather_epi64(_mm512_sub_epi64(pos, _mm512_set1_epi64(7)), text, 1);
      pos = _mm512_sub_epi64(pos, _mm512_set1_epi64(8));
    }
    const __m512i c = _mm512_and_si512(_mm512_srli_epi64(bytes, 56), ff);
    bytes = _mm512_slli_epi64(bytes, 8);
    const __m512i eq = _mm512_i64gather_epi64(c, p.rpeq.data(), 8);
    const __m512i xv = _mm512_or_si512(eq, mv);
    const __m512i sum = _mm512_add_epi64(_mm512_and_si512(eq, pv), pv);
    const __m512i xh = _mm512_ternarylogic_epi64(sum, pv, eq, 0xBE);  // (sum ^ pv) | eq
    __m512i ph = _mm512_ternarylogic_epi64(mv, xh, pv, 0xF1);         // mv | ~(xh | pv)
    __m512i mh = _mm512_and_si512(pv, xh);
    d = _mm512_mask_add_epi64(d, _mm512_test_epi64_mask(ph, hib), d, one);
    d = _mm512_mask_sub_epi64(d, _mm512_test_epi64_mask(mh, hib), d, one);
    ph = _mm512_or_si512(_mm512_slli_epi64(ph, 1), one);  // row 0 grows by one per column
    mh = _mm512_slli_epi64(mh, 1);
    pv = _mm512_ternarylogic_epi64(mh, xv, ph, 0xF1);
    mv = _mm512_and_si512(ph, xv);
    const __m512i vl = _mm512_set1_epi64(static_cast<long long>(l));
    const __mmask8 hit = _mm512_cmpeq_epi64_mask(d, vwant) & _mm512_cmple_epu64_mask(vl, vlen);
    best = _mm512_mask_mov_epi64(best, hit, vl);
  }
  alignas(64) std::uint64_t out[8];
  _mm512_store_si512(out, best);
  for (std::size_t i = 0; i < g; ++i) {
    if (rq[i].score == 0)
      rq[i].start = rq[i].j + 1 - p.m;  // an exact occurrence has exactly m bytes
    else
      rq[i].start = out[i] == ~std::uint64_t{0} ? rq[i].j + 1 : rq[i].j + 1 - out[i];
  }
  return true;
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
