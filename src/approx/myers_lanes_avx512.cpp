// myers_lanes_avx512.cpp — Myers' one-word bit-vector step in the eight 64-bit lanes of two
// AVX-512 registers (16 independent (pattern, stripe) jobs), Peq looked up by gather.
// O(steps) vector steps for 16 lanes. Compiled with -mavx512*; called only after a CPU check.
// GCC 12 warns "__Y may be used uninitialized" inside its own AVX-512 intrinsics (their
// _mm512_undefined_* placeholders, GCC bug 105593); the warning is about the header, not us.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <immintrin.h>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {
namespace {

// _mm512_ternarylogic_epi64 immediates, from the truth tables A = 0xF0, B = 0xCC, C = 0xAA:
constexpr int tl_xor_or = 0xBE;     // (A ^ B) | C
constexpr int tl_or_not_or = 0xF1;  // A | ~(B | C)

/// Per-lane constants of 8 jobs.
struct lanes8_const {
  __m512i hib, k, base, pos, lo, m;
};

lanes8_const load8(const lane_job* j) {
  alignas(64) std::uint64_t v[6][8];
  for (int l = 0; l < 8; ++l) {
    v[0][l] = j[l].hibit;
    v[1][l] = j[l].k;
    v[2][l] = j[l].peq_offset;
    v[3][l] = j[l].text_pos;
    v[4][l] = j[l].report_lo;
    v[5][l] = j[l].m;
  }
  return {_mm512_load_si512(v[0]), _mm512_load_si512(v[1]), _mm512_load_si512(v[2]),
          _mm512_load_si512(v[3]), _mm512_load_si512(v[4]), _mm512_load_si512(v[5])};
}

/// One Myers step (myers_word.cpp spells out every line) for 8 lanes on Peq words `eq`;
/// returns the lanes whose score is <= k. State is passed by value and returned through
/// references to locals of the (inlined) caller, so it stays in registers.
[[gnu::always_inline]] inline __mmask8 step8(__m512i eq, __m512i hib, __m512i k, __m512i& pv, __m512i& mv,
                                             __m512i& score) {
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i xv = _mm512_or_si512(eq, mv);
  // xh = (((eq & pv) + pv) ^ pv) | eq
  const __m512i sum = _mm512_add_epi64(_mm512_and_si512(eq, pv), pv);
  const __m512i xh = _mm512_ternarylogic_epi64(sum, pv, eq, tl_xor_or);
  // ph = mv | ~(xh | pv);  mh = pv & xh
  __m512i ph = _mm512_ternarylogic_epi64(mv, xh, pv, tl_or_not_or);
  __m512i mh = _mm512_and_si512(pv, xh);
  // if (ph & hib) ++score;  if (mh & hib) --score;   (as lane masks)
  score = _mm512_mask_add_epi64(score, _mm512_test_epi64_mask(ph, hib), score, one);
  score = _mm512_mask_sub_epi64(score, _mm512_test_epi64_mask(mh, hib), score, one);
  ph = _mm512_slli_epi64(ph, 1);
  mh = _mm512_slli_epi64(mh, 1);
  // pv = mh | ~(xv | ph);  mv = ph & xv
  pv = _mm512_ternarylogic_epi64(mh, xv, ph, tl_or_not_or);
  mv = _mm512_and_si512(ph, xv);
  return _mm512_cmple_epu64_mask(score, k);
}

/// The rare path: records the lanes of `hit` whose position is in their report range.
[[gnu::noinline]] void report8(__mmask8 hit, std::size_t t, std::uint32_t lane0, const std::uint64_t* sc,
                               const std::uint64_t* ps, const std::uint64_t* lw, std::vector<lane_hit>& hits) {
  for (std::uint32_t l = 0; l < 8; ++l)
    if ((hit >> l) & 1u) {
      const std::uint64_t p = ps[l] + t;
      if (p >= lw[l]) hits.push_back({p, static_cast<std::uint32_t>(sc[l]), lane0 + l});
    }
}

}  // namespace

void myers_lanes_avx512(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                        std::vector<lane_hit>& hits) {
  const lanes8_const ca = load8(jobs), cb = load8(jobs + 8);
  __m512i pva = _mm512_set1_epi64(-1), mva = _mm512_setzero_si512(), sca = ca.m;
  __m512i pvb = pva, mvb = mva, scb = cb.m;
  alignas(64) std::uint64_t pos_a[8], pos_b[8], lo_a[8], lo_b[8];
  _mm512_store_si512(pos_a, ca.pos);
  _mm512_store_si512(pos_b, cb.pos);
  _mm512_store_si512(lo_a, ca.lo);
  _mm512_store_si512(lo_b, cb.lo);
  auto report = [&](__mmask8 ha, __mmask8 hb, std::size_t t) {
    alignas(64) std::uint64_t s[8];
    if (ha) {
      _mm512_store_si512(s, sca);
      report8(ha, t, 0, s, pos_a, lo_a, hits);
    }
    if (hb) {
      _mm512_store_si512(s, scb);
      report8(hb, t, 8, s, pos_b, lo_b, hits);
    }
  };
  const __m512i low = _mm512_set1_epi64(0xFF);
  std::size_t t = 0;
  for (; t + 8 <= steps; t += 8) {
    // Eight text bytes per lane at once; then one byte per step from the low end.
    const __m512i off = _mm512_set1_epi64(static_cast<long long>(t));
    __m512i ta = _mm512_i64gather_epi64(_mm512_add_epi64(ca.pos, off), seq, 1);
    __m512i tb = _mm512_i64gather_epi64(_mm512_add_epi64(cb.pos, off), seq, 1);
#pragma GCC unroll 8
    for (std::size_t u = 0; u < 8; ++u) {
      const __m512i ea = _mm512_i64gather_epi64(_mm512_add_epi64(ca.base, _mm512_and_si512(ta, low)), peq, 8);
      const __m512i eb = _mm512_i64gather_epi64(_mm512_add_epi64(cb.base, _mm512_and_si512(tb, low)), peq, 8);
      const __mmask8 ha = step8(ea, ca.hib, ca.k, pva, mva, sca);
      const __mmask8 hb = step8(eb, cb.hib, cb.k, pvb, mvb, scb);
      ta = _mm512_srli_epi64(ta, 8);
      tb = _mm512_srli_epi64(tb, 8);
      if ((ha | hb) != 0) [[unlikely]]
        report(ha, hb, t + u);
    }
  }
  for (; t < steps; ++t) {  // the last < 8 bytes, one at a time (never read past a stripe)
    alignas(64) std::uint64_t xa[8], xb[8];
    for (int l = 0; l < 8; ++l) {
      xa[l] = peq[jobs[l].peq_offset + seq[jobs[l].text_pos + t]];
      xb[l] = peq[jobs[8 + l].peq_offset + seq[jobs[8 + l].text_pos + t]];
    }
    const __mmask8 ha = step8(_mm512_load_si512(xa), ca.hib, ca.k, pva, mva, sca);
    const __mmask8 hb = step8(_mm512_load_si512(xb), cb.hib, cb.k, pvb, mvb, scb);
    if ((ha | hb) != 0) report(ha, hb, t);
  }
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
