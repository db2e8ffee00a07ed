// starts_avx512.cpp — leftmost starts of many requests at once: the reverse global Myers pass
// of leftmost_start (align.cpp spells it out), lane i over seq[j_i], seq[j_i - 1], ...
// - m <= 32: 64 requests in the 8/16/32-bit lanes of AVX-512BW registers, laid out like the
//   striped kernel's 64 stripes (striped_avx512.hpp): each request is a "stripe" read
//   backwards from its end, 8 bytes per load. O(max length) vector steps for 64 requests.
// - m <= 64: 8 requests in the 64-bit lanes of one AVX-512F register.
// Compiled with -mavx512*; called only through the dispatch table (common/dispatch.hpp), which
// picks the Vbmi instantiation from the features of the table's level.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <limits>

#include "approx/approx_internal.hpp"
#include "approx/striped_avx512.hpp"

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


namespace {

using namespace striped512;

/// One column of the reverse global Myers DP on W-bit lanes, the pattern in the low m bits;
/// d (the last row's value) follows bit m-1 (hib).
template <int W>
[[gnu::always_inline]] inline void global_step(__m512i eq, __m512i hib, __m512i one, __m512i& pv, __m512i& mv,
                                               __m512i& d) {
  __m512i xv, ph, mh;
  myers_horizontal<W>(eq, pv, mv, xv, ph, mh);
  if constexpr (W == 8) {
    d = _mm512_mask_add_epi8(d, _mm512_test_epi8_mask(ph, hib), d, one);
    d = _mm512_mask_sub_epi8(d, _mm512_test_epi8_mask(mh, hib), d, one);
  } else if constexpr (W == 16) {
    d = _mm512_mask_add_epi16(d, _mm512_test_epi16_mask(ph, hib), d, one);
    d = _mm512_mask_sub_epi16(d, _mm512_test_epi16_mask(mh, hib), d, one);
  } else {
    d = _mm512_mask_add_epi32(d, _mm512_test_epi32_mask(ph, hib), d, one);
    d = _mm512_mask_sub_epi32(d, _mm512_test_epi32_mask(mh, hib), d, one);
  }
  // Row 0 grows by one per column.
  myers_vertical(xv, _mm512_or_si512(shl1<W>(ph), one), shl1<W>(mh), pv, mv);
}

using F = start_fields;

/// The lane-layout registers (as the striped kernel's eq) of a transposed row whose word q
/// holds the byte values of stripes A(q) (low) and A(q) + 1 (high).
/// V (W = 8 with AVX512_VBMI): the byte lanes are the row's own bytes (stripe_of_byte), as in
/// the striped kernel.
template <int W, bool V>
[[gnu::always_inline]] inline void row_to_lanes(__m512i row, __m512i out[regs<W>]) {
  if constexpr (V) {
    out[0] = row;
    return;
  }
  const __m512i a = _mm512_and_si512(row, _mm512_set1_epi16(0xFF)), b = _mm512_srli_epi16(row, 8);
  if constexpr (W == 8) {
    out[0] = _mm512_packus_epi16(a, b);
  } else if constexpr (W == 16) {
    out[0] = a;
    out[1] = b;
  } else {
    const __m512i z = _mm512_setzero_si512();
    out[0] = _mm512_unpacklo_epi16(a, z);
    out[1] = _mm512_unpackhi_epi16(a, z);
    out[2] = _mm512_unpacklo_epi16(b, z);
    out[3] = _mm512_unpackhi_epi16(b, z);
  }
}

/// The inverse: the lane-layout registers (values above 0xFF read as 0xFF) to 64 bytes, byte
/// i = the value of stripe i.
template <int W, bool V>
[[gnu::always_inline]] inline __m512i lanes_to_bytes(const __m512i in[regs<W>]) {
  const __m512i z = _mm512_setzero_si512(), ff = _mm512_set1_epi16(0xFF);
  __m512i a, b;  // words: the "a" and "b" stripes of each transposed word
  if constexpr (V) {  // already a row: word q = the bytes of stripes A(q), A(q) + 1
    a = _mm512_and_si512(in[0], ff);
    b = _mm512_srli_epi16(in[0], 8);
  } else if constexpr (W == 8) {
    a = _mm512_unpacklo_epi8(in[0], z);
    b = _mm512_unpackhi_epi8(in[0], z);
  } else if constexpr (W == 16) {
    a = _mm512_min_epu16(in[0], ff);
    b = _mm512_min_epu16(in[1], ff);
  } else {
    const __m512i ff32 = _mm512_set1_epi32(0xFF);  // packus saturates signed: clamp first
    a = _mm512_packus_epi32(_mm512_min_epu32(in[0], ff32), _mm512_min_epu32(in[1], ff32));
    b = _mm512_packus_epi32(_mm512_min_epu32(in[2], ff32), _mm512_min_epu32(in[3], ff32));
  }
  const __m512i row = _mm512_or_si512(a, _mm512_slli_epi16(b, 8));
  // Word q of the row holds stripes A(q) = 8 (q % 8) + 2 (q / 8) and A(q) + 1: word w of the
  // result (stripes 2w, 2w + 1) is word 8 (w % 4) + w / 4.
  alignas(64) static constexpr std::array<std::uint16_t, 32> from = [] {
    std::array<std::uint16_t, 32> f{};
    for (std::uint16_t w = 0; w < 32; ++w) f[w] = static_cast<std::uint16_t>(8 * (w % 4) + w / 4);
    return f;
  }();
  return _mm512_permutexvar_epi16(_mm512_load_si512(from.data()), row);
}

/// 64 requests (the first g real, the rest copies of the first); false (nothing done) when
/// one lies too close to the text's start for its 8-byte loads. Request i is "stripe" i of
/// the striped kernel's layout: its fields go through the same transpose as its text bytes.
template <int W, unsigned Q, bool V, class Req>
bool starts64(const compiled_pattern& p, const unsigned char* text, std::uint64_t lo, Req* rq, std::size_t g,
              const quarter_tables* qt) {
  constexpr int R = regs<W>;
  alignas(64) std::uint64_t js[64], sc[64];
  for (std::size_t i = 0; i < g; ++i) {
    js[i] = F::j(rq[i]);
    sc[i] = F::score(rq[i]);
  }
  for (std::size_t i = g; i < 64; ++i) js[i] = js[0], sc[i] = sc[0];
  // Per request (8 at a time): the columns to run, n = min(m + score, j + 1 - lo) <= 64, and
  // the qword score | n << 8 that the transpose turns into lanes.
  const __m512i vm = _mm512_set1_epi64(static_cast<long long>(p.m));
  const __m512i vlo = _mm512_set1_epi64(static_cast<long long>(lo)), one64 = _mm512_set1_epi64(1);
  __m512i maxn = _mm512_setzero_si512(), minj = _mm512_set1_epi64(-1);
  __m512i gth[8], rows[8];
  for (int i = 0; i < 8; ++i) {
    const __m512i j = _mm512_load_si512(js + 8 * i), score = _mm512_load_si512(sc + 8 * i);
    const __m512i n = _mm512_min_epu64(_mm512_add_epi64(vm, score), _mm512_sub_epi64(_mm512_add_epi64(j, one64), vlo));
    maxn = _mm512_max_epu64(maxn, n);
    minj = _mm512_min_epu64(minj, j);
    gth[i] = _mm512_or_si512(score, _mm512_slli_epi64(n, 8));
  }
  const auto steps = static_cast<std::int64_t>(_mm512_reduce_max_epu64(maxn));
  const auto min_j = static_cast<std::int64_t>(_mm512_reduce_min_epu64(minj));
  // Every load reads the 8 bytes ending 8b bytes before j: none may begin before the text.
  if (min_j + 1 < (steps + 7) / 8 * 8) return false;
  transpose8(gth, rows);  // row 0: scores, row 1: n
  __m512i pv[R], mv[R], d[R], vwant[R], vlen[R], vbest[R];
  row_to_lanes<W, V>(rows[0], vwant);
  row_to_lanes<W, V>(rows[1], vlen);
  const __m512i none = splat<W>(~0u), vmw = splat<W>(static_cast<std::uint32_t>(p.m));
  for (int r = 0; r < R; ++r) {
    pv[r] = _mm512_set1_epi32(-1);
    mv[r] = _mm512_setzero_si512();
    d[r] = vmw;
    // score == m: the empty substring (column 0) already achieves it.
    if constexpr (W == 8) vbest[r] = _mm512_mask_mov_epi8(none, _mm512_cmpeq_epi8_mask(vwant[r], vmw), _mm512_setzero_si512());
    else if constexpr (W == 16) vbest[r] = _mm512_mask_mov_epi16(none, _mm512_cmpeq_epi16_mask(vwant[r], vmw), _mm512_setzero_si512());
    else vbest[r] = _mm512_mask_mov_epi32(none, _mm512_cmpeq_epi32_mask(vwant[r], vmw), _mm512_setzero_si512());
  }
  const __m512i hib = splat<W>(std::uint32_t{1} << (p.m - 1)), one = splat<W>(1);
  // 9 to 16 columns (m <= 16 and k <= 8, the usual case): one 16-byte load per request gives
  // the rows of both blocks (its high qword block 0, its low one block 1).
  __m512i rows1[8];
  const bool two_blocks = steps > 8 && steps <= 16;
  if (two_blocks) {
    const __m512i lo_q = _mm512_set_epi64(14, 12, 10, 8, 6, 4, 2, 0), hi_q = _mm512_set_epi64(15, 13, 11, 9, 7, 5, 3, 1);
    __m512i g1[8];
    const unsigned char* at0 = text - 15;
    for (int i = 0; i < 8; ++i) {
      auto load4 = [&](int q) {  // the windows of requests 8i + q .. 8i + q + 3
        const std::uint64_t* jj = js + 8 * i + q;
        __m512i v = _mm512_castsi128_si512(_mm_loadu_si128(reinterpret_cast<const __m128i*>(at0 + jj[0])));
        v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(at0 + jj[1])), 1);
        v = _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(at0 + jj[2])), 2);
        return _mm512_inserti32x4(v, _mm_loadu_si128(reinterpret_cast<const __m128i*>(at0 + jj[3])), 3);
      };
      const __m512i a = load4(0), b = load4(4);
      gth[i] = _mm512_permutex2var_epi64(a, hi_q, b);
      g1[i] = _mm512_permutex2var_epi64(a, lo_q, b);
    }
    transpose8(g1, rows1);
  }
  for (std::int64_t b = 0; 8 * b < steps; ++b) {
    // Row u holds text[j - 8b - 7 + u] of every request: column l = 8b + 8 - u.
    // Plain 8-byte loads: a gather of 8 lanes costs more than 8 loads and inserts.
    if (two_blocks && b == 1) {
      for (int u = 0; u < 8; ++u) rows[u] = rows1[u];
    } else {
      if (!two_blocks) {
        const unsigned char* at_b = text - 7 - 8 * b;
        // Opaque per block: GCC would otherwise hoist the 64 loads of js out of the loop over
        // the blocks, above the two-block test, and spill them (a copy of js on every call).
        const std::uint64_t* jp = js;
        asm("" : "+r"(jp));
        for (int i = 0; i < 8; ++i) {
          auto at = [&](int q) {
            std::uint64_t w;
            __builtin_memcpy(&w, at_b + jp[8 * i + q], 8);
            return static_cast<long long>(w);
          };
          gth[i] = _mm512_set_epi64(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
        }
      }
      transpose8(gth, rows);
    }
    for (int u = 7; u >= 0; --u) {
      const std::int64_t col = 8 * b + 8 - u;
      if (col > steps) break;
      const __m512i xa = rows[u], xb = _mm512_srli_epi16(rows[u], 8);
      __m512i eq[R];
      if constexpr (V) {  // one vpermb on the row's bytes
        eq[0] = lookup8<Q, true>(rows[u], qt);
      } else if constexpr (W == 8) {  // m <= 8: the a / b Peq words packed into the bytes of one register
        eq[0] = _mm512_packus_epi16(lookup16<Q, true>(xa, qt, false), lookup16<Q, true>(xb, qt, false));
      } else if constexpr (W == 16) {
        eq[0] = lookup16<Q, true>(xa, qt, false);
        eq[1] = lookup16<Q, true>(xb, qt, false);
      } else {
        const __m512i alo = lookup16<Q, true>(xa, qt, false), ahi = lookup16<Q, true>(xa, qt, true);
        const __m512i blo = lookup16<Q, true>(xb, qt, false), bhi = lookup16<Q, true>(xb, qt, true);
        eq[0] = _mm512_unpacklo_epi16(alo, ahi);
        eq[1] = _mm512_unpackhi_epi16(alo, ahi);
        eq[2] = _mm512_unpacklo_epi16(blo, bhi);
        eq[3] = _mm512_unpackhi_epi16(blo, bhi);
      }
      const __m512i lv = splat<W>(static_cast<std::uint32_t>(col));
      for (int r = 0; r < R; ++r) {
        global_step<W>(eq[r], hib, one, pv[r], mv[r], d[r]);
        if constexpr (W == 8) {
          const __mmask64 hit = _mm512_mask_cmpeq_epu8_mask(_mm512_cmple_epu8_mask(lv, vlen[r]), d[r], vwant[r]);
          vbest[r] = _mm512_mask_mov_epi8(vbest[r], hit, lv);
        } else if constexpr (W == 16) {
          const __mmask32 hit = _mm512_mask_cmpeq_epu16_mask(_mm512_cmple_epu16_mask(lv, vlen[r]), d[r], vwant[r]);
          vbest[r] = _mm512_mask_mov_epi16(vbest[r], hit, lv);
        } else {
          const __mmask16 hit = _mm512_mask_cmpeq_epu32_mask(_mm512_cmple_epu32_mask(lv, vlen[r]), d[r], vwant[r]);
          vbest[r] = _mm512_mask_mov_epi32(vbest[r], hit, lv);
        }
      }
    }
  }
  // Back to request order: start = j + 1 - best column (an exact occurrence: exactly m bytes;
  // "none" (0xFF here) cannot happen when score == score_j; it gives j + 1).
  alignas(64) std::uint8_t bb[64];
  _mm512_store_si512(bb, lanes_to_bytes<W, V>(vbest));
  alignas(64) std::uint64_t st[64];
  const __m512i ff = _mm512_set1_epi64(0xFF);
  for (int i = 0; i < 8; ++i) {
    const __m512i j1 = _mm512_add_epi64(_mm512_load_si512(js + 8 * i), one64);
    __m512i back = _mm512_cvtepu8_epi64(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(bb + 8 * i)));
    back = _mm512_maskz_mov_epi64(_mm512_cmpneq_epu64_mask(back, ff), back);
    back = _mm512_mask_mov_epi64(back, _mm512_testn_epi64_mask(_mm512_load_si512(sc + 8 * i), _mm512_load_si512(sc + 8 * i)), vm);
    _mm512_store_si512(st + 8 * i, _mm512_sub_epi64(j1, back));
  }
  for (std::size_t i = 0; i < g; ++i) F::set(rq[i], st[i]);
  return true;
}

template <int W, unsigned Q, bool V, class Req>
void starts_all(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<Req> reqs,
                const quarter_tables* qt) {
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  for (std::size_t first = 0; first < reqs.size(); first += 64) {
    const std::size_t g = std::min<std::size_t>(64, reqs.size() - first);
    Req* rq = reqs.data() + first;
    if (!starts64<W, Q, V>(p, text, lo, rq, g, qt))
      for (std::size_t i = 0; i < g; ++i) F::set(rq[i], leftmost_start(p, seq, F::j(rq[i]), F::score(rq[i]), lo));
  }
}

template <bool Vbmi, class Req>
void starts_avx512bw(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<Req> reqs) {
  alignas(64) std::uint32_t rpeq[256];
  unsigned quarters = 0;
  for (std::size_t c = 0; c < 256; ++c) {
    rpeq[c] = static_cast<std::uint32_t>(p.rpeq[c]);
    if (rpeq[c] != 0) quarters |= 1u << (c / 64);
  }
  quarter_tables qt[4];
  load_quarter_tables(rpeq, qt);
  // Lanes of 8 bits for m <= 8 (columns and scores stay below 2m + 1 <= 17), 16 for m <= 16.
  auto go = [&]<unsigned Q>() {
    if (p.m <= 8 && Vbmi) return starts_all<8, Q, true>(p, seq, lo, reqs, qt);
    if (p.m <= 8) return starts_all<8, Q, false>(p, seq, lo, reqs, qt);
    if (p.m <= 16) return starts_all<16, Q, false>(p, seq, lo, reqs, qt);
    return starts_all<32, Q, false>(p, seq, lo, reqs, qt);
  };
  if ((quarters & ~2u) == 0) return go.template operator()<2u>();
  if ((quarters & ~3u) == 0) return go.template operator()<3u>();
  return go.template operator()<15u>();
}

}  // namespace

template <bool Vbmi>
void leftmost_starts_avx512bw(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                              std::span<start_request> reqs) {
  starts_avx512bw<Vbmi>(p, seq, lo, reqs);
}

template <bool Vbmi>
void leftmost_starts_avx512bw(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                              std::span<hit> hits) {
  starts_avx512bw<Vbmi>(p, seq, lo, hits);
}

template void leftmost_starts_avx512bw<false>(const compiled_pattern&, std::string_view, std::uint64_t,
                                              std::span<start_request>);
template void leftmost_starts_avx512bw<true>(const compiled_pattern&, std::string_view, std::uint64_t,
                                             std::span<start_request>);
template void leftmost_starts_avx512bw<false>(const compiled_pattern&, std::string_view, std::uint64_t, std::span<hit>);
template void leftmost_starts_avx512bw<true>(const compiled_pattern&, std::string_view, std::uint64_t, std::span<hit>);

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
