// myers_lanes_avx2.cpp — Myers' one-word bit-vector step in the four 64-bit lanes of two AVX2
// registers (8 independent (pattern, stripe) jobs), Peq looked up by gather.
// O(steps) vector steps for 8 lanes. Compiled with -mavx2; called only after a CPU check.
#include <immintrin.h>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {
namespace {

struct lanes4 {
  __m256i pv, mv, score, hib, kp1, base, pos, lo;

  void load(const lane_job* j) {
    alignas(32) std::uint64_t v[6][4];
    for (int l = 0; l < 4; ++l) {
      v[0][l] = j[l].hibit;
      v[1][l] = j[l].k + 1;
      v[2][l] = j[l].peq_offset;
      v[3][l] = j[l].text_pos;
      v[4][l] = j[l].report_lo;
      v[5][l] = j[l].m;
    }
    hib = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[0]));
    kp1 = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[1]));
    base = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[2]));
    pos = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[3]));
    lo = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[4]));
    score = _mm256_load_si256(reinterpret_cast<const __m256i*>(v[5]));
    pv = _mm256_set1_epi64x(-1);
    mv = _mm256_setzero_si256();
  }

  /// One Myers step (myers_word.cpp spells out every line) on bytes c; returns a bit per lane <= k.
  int step(__m256i c, const std::uint64_t* peq) {
    const __m256i ones = _mm256_set1_epi64x(-1);
    const __m256i eq =
        _mm256_i64gather_epi64(reinterpret_cast<const long long*>(peq), _mm256_add_epi64(base, c), 8);
    const __m256i xv = _mm256_or_si256(eq, mv);
    // xh = (((eq & pv) + pv) ^ pv) | eq
    const __m256i sum = _mm256_add_epi64(_mm256_and_si256(eq, pv), pv);
    const __m256i xh = _mm256_or_si256(_mm256_xor_si256(sum, pv), eq);
    // ph = mv | ~(xh | pv);  mh = pv & xh   (~x written x ^ ones)
    __m256i ph = _mm256_or_si256(mv, _mm256_xor_si256(_mm256_or_si256(xh, pv), ones));
    __m256i mh = _mm256_and_si256(pv, xh);
    // if (ph & hib) ++score; if (mh & hib) --score;  a true compare is -1 in a lane
    score = _mm256_sub_epi64(score, _mm256_cmpeq_epi64(_mm256_and_si256(ph, hib), hib));
    score = _mm256_add_epi64(score, _mm256_cmpeq_epi64(_mm256_and_si256(mh, hib), hib));
    ph = _mm256_slli_epi64(ph, 1);
    mh = _mm256_slli_epi64(mh, 1);
    // pv = mh | ~(xv | ph);  mv = ph & xv
    pv = _mm256_or_si256(mh, _mm256_xor_si256(_mm256_or_si256(xv, ph), ones));
    mv = _mm256_and_si256(ph, xv);
    // score <= k  <=>  k + 1 > score (scores are small, the signed compare is safe)
    return _mm256_movemask_pd(_mm256_castsi256_pd(_mm256_cmpgt_epi64(kp1, score)));
  }

  void report(int hit, std::size_t t, std::uint32_t lane0, std::vector<lane_hit>& hits) const {
    alignas(32) std::uint64_t sc[4], ps[4], lw[4];
    _mm256_store_si256(reinterpret_cast<__m256i*>(sc), score);
    _mm256_store_si256(reinterpret_cast<__m256i*>(ps), pos);
    _mm256_store_si256(reinterpret_cast<__m256i*>(lw), lo);
    for (std::uint32_t l = 0; l < 4; ++l)
      if ((hit >> l) & 1) {
        const std::uint64_t p = ps[l] + t;
        if (p >= lw[l]) hits.push_back({p, static_cast<std::uint32_t>(sc[l]), lane0 + l});
      }
  }
};

}  // namespace

void myers_lanes_avx2(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                      std::vector<lane_hit>& hits) {
  lanes4 a, b;
  a.load(jobs);
  b.load(jobs + 4);
  const __m256i low = _mm256_set1_epi64x(0xFF);
  const auto* base = reinterpret_cast<const long long*>(seq);
  std::size_t t = 0;
  for (; t + 8 <= steps; t += 8) {
    const __m256i off = _mm256_set1_epi64x(static_cast<long long>(t));
    __m256i ta = _mm256_i64gather_epi64(base, _mm256_add_epi64(a.pos, off), 1);
    __m256i tb = _mm256_i64gather_epi64(base, _mm256_add_epi64(b.pos, off), 1);
#pragma GCC unroll 8
    for (std::size_t u = 0; u < 8; ++u) {
      const int ha = a.step(_mm256_and_si256(ta, low), peq);
      const int hb = b.step(_mm256_and_si256(tb, low), peq);
      ta = _mm256_srli_epi64(ta, 8);
      tb = _mm256_srli_epi64(tb, 8);
      if ((ha | hb) != 0) [[unlikely]] {
        if (ha) a.report(ha, t + u, 0, hits);
        if (hb) b.report(hb, t + u, 4, hits);
      }
    }
  }
  for (; t < steps; ++t) {
    alignas(32) std::uint64_t ca[4], cb[4];
    for (int l = 0; l < 4; ++l) {
      ca[l] = seq[jobs[l].text_pos + t];
      cb[l] = seq[jobs[4 + l].text_pos + t];
    }
    const int ha = a.step(_mm256_load_si256(reinterpret_cast<const __m256i*>(ca)), peq);
    const int hb = b.step(_mm256_load_si256(reinterpret_cast<const __m256i*>(cb)), peq);
    if (ha) a.report(ha, t, 0, hits);
    if (hb) b.report(hb, t, 4, hits);
  }
}

}  // namespace trawl::approx_detail
