// striped_avx512.hpp — what the AVX-512BW kernels over 64 stripes share (the striped Myers
// kernel, myers_striped_avx512.cpp, and the batched leftmost starts, starts_avx512.cpp): the
// 64 x 8-byte transpose, the register-resident Peq lookup by vpermi2w, lane-width helpers,
// and where each stripe sits in the lanes. Include only from files compiled with -mavx512*.
#pragma once
#include <immintrin.h>

#include <array>
#include <cstdint>

namespace trawl::approx_detail::striped512 {

constexpr int tl_xor_or = 0xBE;     // (A ^ B) | C
constexpr int tl_or_not_or = 0xF1;  // A | ~(B | C)

/// Stripe of the low byte of word q in a transposed row (see the file comment); the high
/// byte belongs to stripe A(q) + 1.
constexpr std::uint32_t stripe_of_word(std::uint32_t q) { return 8 * (q % 8) + 2 * (q / 8); }

/// Transposes 8 gathered registers (register i, qword j: 8 bytes of stripe 8i + j) into 8 rows.
[[gnu::always_inline]] inline void transpose8(const __m512i g[8], __m512i r[8]) {
  // Per 128-bit chunk c of register i: word u = (byte u of stripe 8i+2c) | (byte u of 8i+2c+1) << 8.
  const __m512i inter = _mm512_broadcast_i32x4(_mm_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15));
  __m512i s[8];
  for (int i = 0; i < 8; ++i) s[i] = _mm512_shuffle_epi8(g[i], inter);
  // dword d of a[p] (per chunk) = word d of s[2p], s[2p+1]; b[p]: words 4..7.
  __m512i a[4], b[4];
  for (int p = 0; p < 4; ++p) {
    a[p] = _mm512_unpacklo_epi16(s[2 * p], s[2 * p + 1]);
    b[p] = _mm512_unpackhi_epi16(s[2 * p], s[2 * p + 1]);
  }
  // qword h of c*[..] (per chunk) = one step over registers 0-3 (or 4-7).
  const __m512i c0 = _mm512_unpacklo_epi32(a[0], a[1]), c1 = _mm512_unpackhi_epi32(a[0], a[1]);
  const __m512i c2 = _mm512_unpacklo_epi32(a[2], a[3]), c3 = _mm512_unpackhi_epi32(a[2], a[3]);
  const __m512i c4 = _mm512_unpacklo_epi32(b[0], b[1]), c5 = _mm512_unpackhi_epi32(b[0], b[1]);
  const __m512i c6 = _mm512_unpacklo_epi32(b[2], b[3]), c7 = _mm512_unpackhi_epi32(b[2], b[3]);
  r[0] = _mm512_unpacklo_epi64(c0, c2);
  r[1] = _mm512_unpackhi_epi64(c0, c2);
  r[2] = _mm512_unpacklo_epi64(c1, c3);
  r[3] = _mm512_unpackhi_epi64(c1, c3);
  r[4] = _mm512_unpacklo_epi64(c4, c6);
  r[5] = _mm512_unpackhi_epi64(c4, c6);
  r[6] = _mm512_unpacklo_epi64(c5, c7);
  r[7] = _mm512_unpackhi_epi64(c5, c7);
}

/// Peq tables of one quarter as permute operands: lo/hi = entries 0-31 / 32-63, for the low
/// and (32-bit lanes) high 16 bits of Peq; b8 = the low bytes of its 64 entries (m <= 8).
struct quarter_tables {
  __m512i lo16_a, lo16_b, hi16_a, hi16_b, b8;
};

/// The Peq words (16 bits) of 32 index words, over the quarters in Q (bit q = quarter q used).
/// `half` selects the low or high 16 bits of Peq.
template <unsigned Q, bool Masked>
[[gnu::always_inline]] inline __m512i lookup16(__m512i idx, const quarter_tables* qt, bool high) {
  if constexpr (!Masked) {  // every text byte is in quarter 1, the only one with a Peq
    static_assert(Q == 2u);
    return high ? _mm512_permutex2var_epi16(qt[1].hi16_a, idx, qt[1].hi16_b)
                : _mm512_permutex2var_epi16(qt[1].lo16_a, idx, qt[1].lo16_b);
  }
  const __m512i sel = _mm512_and_si512(idx, _mm512_set1_epi16(0xC0));
  __m512i eq = _mm512_setzero_si512();
  for (unsigned q = 0; q < 4; ++q) {
    if (!((Q >> q) & 1u)) continue;
    const __mmask32 in_q = _mm512_cmpeq_epi16_mask(sel, _mm512_set1_epi16(static_cast<short>(q << 6)));
    const __m512i ta = high ? qt[q].hi16_a : qt[q].lo16_a;
    const __m512i tb = high ? qt[q].hi16_b : qt[q].lo16_b;
    if (Q == (1u << q)) return _mm512_maskz_permutex2var_epi16(in_q, ta, idx, tb);
    eq = _mm512_or_si512(eq, _mm512_maskz_permutex2var_epi16(in_q, ta, idx, tb));
  }
  return eq;
}

/// vpermb (AVX512_VBMI): byte i of the result = table[idx byte i & 63]. Written as inline
/// assembly because these files are compiled without -mavx512vbmi (they also run on
/// AVX-512BW CPUs without it, e.g. Skylake-SP); callers run it only after a CPU check.
[[gnu::always_inline]] inline __m512i permb(__m512i idx, __m512i table) {
  __m512i r;
  asm("vpermb %2, %1, %0" : "=v"(r) : "v"(idx), "v"(table));
  return r;
}
/// The same, zeroing the bytes outside mask k.
[[gnu::always_inline]] inline __m512i maskz_permb(__mmask64 k, __m512i idx, __m512i table) {
  __m512i r;
  asm("vpermb %2, %1, %0%{%3%}%{z%}" : "=v"(r) : "v"(idx), "v"(table), "Yk"(k));
  return r;
}

/// The Peq bytes (m <= 8) of 64 index bytes by vpermb, over the quarters in Q (as lookup16).
template <unsigned Q, bool Masked>
[[gnu::always_inline]] inline __m512i lookup8(__m512i idx, const quarter_tables* qt) {
  if constexpr (!Masked) {
    static_assert(Q == 2u);
    return permb(idx, qt[1].b8);
  }
  const __m512i sel = _mm512_and_si512(idx, _mm512_set1_epi8(static_cast<char>(0xC0)));
  __m512i eq = _mm512_setzero_si512();
  for (unsigned q = 0; q < 4; ++q) {
    if (!((Q >> q) & 1u)) continue;
    const __mmask64 in_q = _mm512_cmpeq_epi8_mask(sel, _mm512_set1_epi8(static_cast<char>(q << 6)));
    if (Q == (1u << q)) return maskz_permb(in_q, idx, qt[q].b8);
    eq = _mm512_or_si512(eq, maskz_permb(in_q, idx, qt[q].b8));
  }
  return eq;
}

/// Lane-width arithmetic: 8-, 16- or 32-bit lanes.
template <int W>
[[gnu::always_inline]] inline __m512i add(__m512i a, __m512i b) {
  if constexpr (W == 8) return _mm512_add_epi8(a, b);
  else if constexpr (W == 16) return _mm512_add_epi16(a, b);
  else return _mm512_add_epi32(a, b);
}
/// v in every W-bit lane.
template <int W>
[[gnu::always_inline]] inline __m512i splat(std::uint32_t v) {
  if constexpr (W == 8) return _mm512_set1_epi8(static_cast<char>(v));
  else if constexpr (W == 16) return _mm512_set1_epi16(static_cast<short>(v));
  else return _mm512_set1_epi32(static_cast<int>(v));
}
template <int W>
[[gnu::always_inline]] inline __m512i sub(__m512i a, __m512i b) {
  if constexpr (W == 16) return _mm512_sub_epi16(a, b);
  else return _mm512_sub_epi32(a, b);
}
template <int W>
[[gnu::always_inline]] inline __m512i top_bit(__m512i a) {  // a >> (W - 1), per lane
  if constexpr (W == 16) return _mm512_srli_epi16(a, 15);
  else return _mm512_srli_epi32(a, 31);
}
template <int W>
[[gnu::always_inline]] inline __m512i shl1(__m512i a) {
  if constexpr (W == 8) return _mm512_add_epi8(a, a);  // there is no byte shift
  else if constexpr (W == 16) return _mm512_slli_epi16(a, 1);
  else return _mm512_slli_epi32(a, 1);
}

/// What the forward (striped) and reverse (starts) Myers steps share: from Peq eq and the
/// vertical deltas (pv, mv), xv and the horizontal deltas ph, mh before their shift ...
template <int W>
[[gnu::always_inline]] inline void myers_horizontal(__m512i eq, __m512i pv, __m512i mv, __m512i& xv, __m512i& ph,
                                                    __m512i& mh) {
  xv = _mm512_or_si512(eq, mv);
  const __m512i sum = add<W>(_mm512_and_si512(eq, pv), pv);
  const __m512i xh = _mm512_ternarylogic_epi32(sum, pv, eq, tl_xor_or);
  ph = _mm512_ternarylogic_epi32(mv, xh, pv, tl_or_not_or);
  mh = _mm512_and_si512(pv, xh);
}
/// ... and, from the shifted ph, mh, the next vertical deltas.
[[gnu::always_inline]] inline void myers_vertical(__m512i xv, __m512i ph, __m512i mh, __m512i& pv, __m512i& mv) {
  pv = _mm512_ternarylogic_epi32(mh, xv, ph, tl_or_not_or);
  mv = _mm512_and_si512(ph, xv);
}

/// Lanes per register and registers per step (W = 8: the DP of m <= 8 in the bytes of one
/// register; its scores are read through a 16-bit view, see myers_striped_avx512.cpp).
template <int W>
constexpr int lanes_per_reg = W == 8 ? 64 : W == 16 ? 32 : 16;
template <int W>
constexpr int regs = 64 / lanes_per_reg<W>;

/// Stripe of lane l of register r (W = 8: one register, the a / b words packed to bytes;
/// W = 16: r = 0 "a", 1 "b"; W = 32: r = 0/1 "a" low/high words, 2/3 "b").
template <int W>
constexpr std::uint32_t stripe_of_lane(int r, std::uint32_t l) {
  if constexpr (W == 8) {
    // packus_epi16(a, b): bytes 16c..16c+7 = a's words 8c..8c+7, bytes 16c+8..16c+15 = b's.
    const std::uint32_t c = l / 16, j = l % 16;
    return j < 8 ? stripe_of_lane<16>(r, 8 * c + j) : stripe_of_lane<16>(1, 8 * c + j - 8);
  } else if constexpr (W == 16) {
    return stripe_of_word(l) + static_cast<std::uint32_t>(r);
  } else {
    // unpacklo/hi_epi16 of two word vectors: dword d of chunk c = word 8c + d (lo) or 8c + 4 + d (hi)
    const std::uint32_t c = l / 4, d = l % 4;
    const std::uint32_t q = 8 * c + d + ((r & 1) ? 4u : 0u);
    return stripe_of_word(q) + ((r & 2) ? 1u : 0u);
  }
}

/// Stripe of byte l of a transposed row (the byte lanes of the VBMI kernel, which looks Peq up
/// by vpermb on the row itself): the low and high bytes of word l / 2.
constexpr std::uint32_t stripe_of_byte(std::uint32_t l) { return stripe_of_word(l / 2) + l % 2; }

template <int W>
[[gnu::always_inline]] inline __m512i min_score(__m512i a, __m512i b) {
  if constexpr (W == 8)
    return _mm512_min_epu8(a, b);
  else if constexpr (W == 16)
    return _mm512_min_epu16(a, b);
  else
    return _mm512_min_epu32(a, b);
}
/// v, taken through a general register. GCC 12 with -fsanitize=address,undefined stored a
/// 16- or 32-bit compare mask widened to 64 bits with kmovw / kmovd and read it back as 64
/// bits, the high part garbage (lanes past the register); a value in a register is widened.
template <class T>
[[gnu::always_inline]] inline T in_register(T v) {
  asm("" : "+r"(v));
  return v;
}
/// The lanes of a at most kk, in the low lanes_per_reg<W> bits.
template <int W>
[[gnu::always_inline]] inline std::uint64_t at_most(__m512i a, __m512i kk) {
  if constexpr (W == 8)
    return _mm512_cmple_epu8_mask(a, kk);
  else if constexpr (W == 16)
    return in_register(_cvtmask32_u32(_mm512_cmple_epu16_mask(a, kk)));
  else
    return in_register(_cvtmask16_u32(_mm512_cmple_epu32_mask(a, kk)));
}


/// The quarter tables of a 256-entry Peq (16 or 32 bits per byte value).
inline void load_quarter_tables(const std::uint32_t* peq, quarter_tables qt[4]) {
  for (unsigned q = 0; q < 4; ++q) {
    alignas(64) std::uint16_t lo[64], hi[64];
    alignas(64) std::uint8_t b8[64];
    for (unsigned e = 0; e < 64; ++e) {
      lo[e] = static_cast<std::uint16_t>(peq[q * 64 + e]);
      hi[e] = static_cast<std::uint16_t>(peq[q * 64 + e] >> 16);
      b8[e] = static_cast<std::uint8_t>(peq[q * 64 + e]);
    }
    qt[q] = {_mm512_load_si512(lo), _mm512_load_si512(lo + 32), _mm512_load_si512(hi), _mm512_load_si512(hi + 32),
             _mm512_load_si512(b8)};
  }
}

}  // namespace trawl::approx_detail::striped512
