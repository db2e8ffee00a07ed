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

struct lanes8 {
  __m512i pv, mv, score, hib, k, base, pos, lo;

  void load(const lane_job* j) {
    alignas(64) std::uint64_t v[6][8];
    for (int l = 0; l < 8; ++l) {
      v[0][l] = j[l].hibit;
      v[1][l] = j[l].k;
      v[2][l] = j[l].peq_offset;
      v[3][l] = j[l].text_pos;
      v[4][l] = j[l].report_lo;
      v[5][l] = j[l].m;
    }
    hib = _mm512_load_si512(v[0]);
    k = _mm512_load_si512(v[1]);
    base = _mm512_load_si512(v[2]);
    pos = _mm512_load_si512(v[3]);
    lo = _mm512_load_si512(v[4]);
    score = _mm512_load_si512(v[5]);
    pv = _mm512_set1_epi64(-1);
    mv = _mm512_setzero_si512();
  }

  /// One Myers step (myers_word.cpp spells out every line) on bytes c; returns lanes <= k.
  __mmask8 step(__m512i c, const std::uint64_t* peq) {
    const __m512i one = _mm512_set1_epi64(1);
    const __m512i eq = _mm512_i64gather_epi64(_mm512_add_epi64(base, c), peq, 8);
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

  void report(__mmask8 hit, std::size_t t, std::uint32_t lane0, std::vector<lane_hit>& hits) const {
    alignas(64) std::uint64_t sc[8], ps[8], lw[8];
    _mm512_store_si512(sc, score);
    _mm512_store_si512(ps, pos);
    _mm512_store_si512(lw, lo);
    for (std::uint32_t l = 0; l < 8; ++l)
      if ((hit >> l) & 1u) {
        const std::uint64_t p = ps[l] + t;
        if (p >= lw[l]) hits.push_back({p, static_cast<std::uint32_t>(sc[l]), lane0 + l});
      }
  }
};

}  // namespace

void myers_lanes_avx512(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                        std::vector<lane_hit>& hits) {
  lanes8 a, b;
  a.load(jobs);
  b.load(jobs + 8);
  const __m512i low = _mm512_set1_epi64(0xFF);
  std::size_t t = 0;
  for (; t + 8 <= steps; t += 8) {
    // Eight text bytes per lane at once; then one byte per step from the low end.
    const __m512i off = _mm512_set1_epi64(static_cast<long long>(t));
    __m512i ta = _mm512_i64gather_epi64(_mm512_add_epi64(a.pos, off), seq, 1);
    __m512i tb = _mm512_i64gather_epi64(_mm512_add_epi64(b.pos, off), seq, 1);
#pragma GCC unroll 8
    for (std::size_t u = 0; u < 8; ++u) {
      const __mmask8 ha = a.step(_mm512_and_si512(ta, low), peq);
      const __mmask8 hb = b.step(_mm512_and_si512(tb, low), peq);
      ta = _mm512_srli_epi64(ta, 8);
      tb = _mm512_srli_epi64(tb, 8);
      if ((ha | hb) != 0) [[unlikely]] {
        if (ha) a.report(ha, t + u, 0, hits);
        if (hb) b.report(hb, t + u, 8, hits);
      }
    }
  }
  for (; t < steps; ++t) {  // the last < 8 bytes, one at a time (never read past a stripe)
    alignas(64) std::uint64_t ca[8], cb[8];
    for (int l = 0; l < 8; ++l) {
      ca[l] = seq[jobs[l].text_pos + t];
      cb[l] = seq[jobs[8 + l].text_pos + t];
    }
    const __mmask8 ha = a.step(_mm512_load_si512(ca), peq);
    const __mmask8 hb = b.step(_mm512_load_si512(cb), peq);
    if (ha) a.report(ha, t, 0, hits);
    if (hb) b.report(hb, t, 8, hits);
  }
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
