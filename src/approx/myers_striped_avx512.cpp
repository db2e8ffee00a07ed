// myers_striped_avx512.cpp — one pattern of m <= 32 over 64 text stripes at once, in the
// 16-bit (m <= 16: 2 registers of 32 lanes) or 32-bit (m <= 32: 4 registers of 16 lanes)
// lanes of AVX-512BW registers. O(steps) vector steps for 64 stripes.
//
// Why it is fast where the 64-bit lanes kernel (myers_lanes_avx512.cpp) is not: Peq comes
// from a register-resident table by vpermi2w (64 entries of 16 bits per instruction) instead
// of a gather per step, and narrow lanes put 2-4x more text bytes into every instruction.
//
// Text: every 8 steps one gather per 8 stripes loads 8 bytes of each stripe; a byte-shuffle
// and three rounds of unpacks transpose the 64 x 8 bytes into 8 rows, one per step, in
// which 16-bit word q holds the byte of stripe A(q) in its low half and of stripe A(q)+1 in
// its high half (A(q) below). Each word is used directly as the permute index (the permute
// reads only its low 6 bits) for the "a" stripes, and shifted right by 8 for the "b" ones.
//
// Peq: the pattern sits in the top m bits of a lane (bits W-m .. W-1); the W-m rows above it
// never match, so every score is the true score plus d = W-m (a constant row offset of the
// DP) and row W-1 is the sign bit. The 256 byte values form 4 quarters of 64; a quarter whose
// Peq is all zero needs no lookup (a masked zero), so DNA and letters cost one permute per
// register and step, ASCII text with spaces and punctuation two.
//
// Compiled with -mavx512*; called only after a CPU check (striped_available).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <array>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {
namespace {

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
/// and (32-bit lanes) high 16 bits of Peq.
struct quarter_tables {
  __m512i lo16_a, lo16_b, hi16_a, hi16_b;
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

/// Lane-width arithmetic: 16- or 32-bit lanes.
template <int W>
[[gnu::always_inline]] inline __m512i add(__m512i a, __m512i b) {
  if constexpr (W == 16) return _mm512_add_epi16(a, b);
  else return _mm512_add_epi32(a, b);
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
  if constexpr (W == 16) return _mm512_slli_epi16(a, 1);
  else return _mm512_slli_epi32(a, 1);
}

/// One Myers step (myers_word.cpp spells out every line) on W-bit lanes; the pattern's last
/// row is the lane's sign bit.
template <int W>
[[gnu::always_inline]] inline void step(__m512i eq, __m512i& pv, __m512i& mv, __m512i& score) {
  const __m512i xv = _mm512_or_si512(eq, mv);
  const __m512i sum = add<W>(_mm512_and_si512(eq, pv), pv);
  const __m512i xh = _mm512_ternarylogic_epi32(sum, pv, eq, tl_xor_or);
  __m512i ph = _mm512_ternarylogic_epi32(mv, xh, pv, tl_or_not_or);
  __m512i mh = _mm512_and_si512(pv, xh);
  score = sub<W>(add<W>(score, top_bit<W>(ph)), top_bit<W>(mh));
  ph = shl1<W>(ph);
  mh = shl1<W>(mh);
  pv = _mm512_ternarylogic_epi32(mh, xv, ph, tl_or_not_or);
  mv = _mm512_and_si512(ph, xv);
}

/// Lanes per register and registers per step.
template <int W>
constexpr int lanes_per_reg = W == 16 ? 32 : 16;
template <int W>
constexpr int regs = 64 / lanes_per_reg<W>;

/// Stripe of lane l of register r (W = 16: r = 0 "a", 1 "b"; W = 32: r = 0/1 "a" low/high
/// words, 2/3 "b").
template <int W>
constexpr std::uint32_t stripe_of_lane(int r, std::uint32_t l) {
  if constexpr (W == 16) {
    return stripe_of_word(l) + static_cast<std::uint32_t>(r);
  } else {
    // unpacklo/hi_epi16 of two word vectors: dword d of chunk c = word 8c + d (lo) or 8c + 4 + d (hi)
    const std::uint32_t c = l / 4, d = l % 4;
    const std::uint32_t q = 8 * c + d + ((r & 1) ? 4u : 0u);
    return stripe_of_word(q) + ((r & 2) ? 1u : 0u);
  }
}

/// The rare path: appends the hits of register r's lanes in `mask` at step t.
template <int W>
[[gnu::noinline]] void report(__m512i score, std::uint64_t mask, std::size_t t, const std::uint32_t* stripe,
                              std::size_t stride, std::uint64_t pos0, std::uint32_t d, std::vector<lane_hit>& hits) {
  alignas(64) std::uint32_t s32[16];
  alignas(64) std::uint16_t s16[32];
  if constexpr (W == 16)
    _mm512_store_si512(s16, score);
  else
    _mm512_store_si512(s32, score);
  while (mask) {
    const auto l = static_cast<std::uint32_t>(__builtin_ctzll(mask));
    mask &= mask - 1;
    const std::uint32_t s = W == 16 ? s16[l] : s32[l];
    hits.push_back({pos0 + stripe[l] * stride + t, s - d, stripe[l]});
  }
}

/// Myers state of the R registers of 64 stripes.
template <int W>
struct striped_state {
  __m512i pv[regs<W>], mv[regs<W>], sc[regs<W>];
};

/// One step for all 64 stripes on transposed row x.
template <int W, unsigned Q, bool Masked>
[[gnu::always_inline]] inline void step_all(__m512i x, const quarter_tables* qt, striped_state<W>& st) {
  const __m512i xa = x;
  const __m512i xb = _mm512_srli_epi16(x, 8);
  if constexpr (W == 16) {
    step<16>(lookup16<Q, Masked>(xa, qt, false), st.pv[0], st.mv[0], st.sc[0]);
    step<16>(lookup16<Q, Masked>(xb, qt, false), st.pv[1], st.mv[1], st.sc[1]);
  } else {
    const __m512i alo = lookup16<Q, Masked>(xa, qt, false), ahi = lookup16<Q, Masked>(xa, qt, true);
    const __m512i blo = lookup16<Q, Masked>(xb, qt, false), bhi = lookup16<Q, Masked>(xb, qt, true);
    step<32>(_mm512_unpacklo_epi16(alo, ahi), st.pv[0], st.mv[0], st.sc[0]);
    step<32>(_mm512_unpackhi_epi16(alo, ahi), st.pv[1], st.mv[1], st.sc[1]);
    step<32>(_mm512_unpacklo_epi16(blo, bhi), st.pv[2], st.mv[2], st.sc[2]);
    step<32>(_mm512_unpackhi_epi16(blo, bhi), st.pv[3], st.mv[3], st.sc[3]);
  }
}

template <int W>
[[gnu::always_inline]] inline __m512i min_score(__m512i a, __m512i b) {
  if constexpr (W == 16)
    return _mm512_min_epu16(a, b);
  else
    return _mm512_min_epu32(a, b);
}
template <int W>
[[gnu::always_inline]] inline std::uint64_t at_most(__m512i a, __m512i kk) {
  if constexpr (W == 16)
    return _mm512_cmple_epu16_mask(a, kk);
  else
    return _mm512_cmple_epu32_mask(a, kk);
}

/// What the checked path needs besides the state.
template <int W>
struct report_context {
  const quarter_tables* qt;
  __m512i kk;
  std::size_t warm, stride;
  std::uint64_t pos0;
  std::uint32_t d;
  const std::array<std::array<std::uint32_t, lanes_per_reg<W>>, regs<W>>* stripe;
  std::vector<lane_hit>* hits;
};

/// Steps with a check of every lane after each (the tail, and blocks whose minimum says that
/// some lane reached <= k), from state `st`; out of line so the hot loop keeps its state in
/// registers.
template <int W, unsigned Q, bool Masked>
[[gnu::noinline]] void checked_steps(striped_state<W>& st, const __m512i* rows, std::size_t t, std::size_t count,
                                     const report_context<W>& c) {
  for (std::size_t u = 0; u < count; ++u) {
    step_all<W, Q, Masked>(rows[u], c.qt, st);
    if (t + u < c.warm) continue;
    for (int r = 0; r < regs<W>; ++r)
      if (const std::uint64_t m = at_most<W>(st.sc[r], c.kk))
        report<W>(st.sc[r], m, t + u, (*c.stripe)[static_cast<std::size_t>(r)].data(), c.stride, c.pos0, c.d,
                  *c.hits);
  }
}

template <int W, unsigned Q, bool Masked>
void run(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
         std::size_t warm, std::uint64_t pos0, std::vector<lane_hit>& hits) {
  constexpr int R = regs<W>;
  constexpr int L = lanes_per_reg<W>;
  quarter_tables qt[4];
  for (unsigned q = 0; q < 4; ++q) {
    alignas(64) std::uint16_t lo[64], hi[64];
    for (unsigned e = 0; e < 64; ++e) {
      lo[e] = static_cast<std::uint16_t>(sp.peq[q * 64 + e]);
      hi[e] = static_cast<std::uint16_t>(sp.peq[q * 64 + e] >> 16);
    }
    qt[q] = {_mm512_load_si512(lo), _mm512_load_si512(lo + 32), _mm512_load_si512(hi), _mm512_load_si512(hi + 32)};
  }
  std::array<std::array<std::uint32_t, L>, R> stripe{};
  for (int r = 0; r < R; ++r)
    for (int l = 0; l < L; ++l)
      stripe[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] =
          stripe_of_lane<W>(r, static_cast<std::uint32_t>(l));

  striped_state<W> st;
  const __m512i kk =
      W == 16 ? _mm512_set1_epi16(static_cast<short>(sp.kk)) : _mm512_set1_epi32(static_cast<int>(sp.kk));
  for (int r = 0; r < R; ++r) {
    st.pv[r] = _mm512_set1_epi32(-1);
    st.mv[r] = _mm512_setzero_si512();
    st.sc[r] = W == 16 ? _mm512_set1_epi16(W) : _mm512_set1_epi32(W);
  }
  alignas(64) std::int64_t offs[64];
  for (std::size_t i = 0; i < 64; ++i) offs[i] = static_cast<std::int64_t>(i * stride);
  const report_context<W> ctx{qt, kk, warm, stride, pos0, sp.d, &stripe, &hits};
  // 64 sequential streams are more than the hardware prefetchers follow: each block of 8
  // steps prefetches one line ahead for 8 of the stripes, so every stripe gets one line per
  // 64 bytes it reads.
  constexpr std::size_t ahead = 512;
  std::size_t pf = 0;
  std::size_t t = 0;
  bool dense = false;  // hits in the last block: dense output, check every step directly
  __m512i g[8], rows[8];
  for (; t + 8 <= steps; t += 8) {
    for (std::size_t s = pf; s < pf + 8; ++s)
      _mm_prefetch(reinterpret_cast<const char*>(text0 + static_cast<std::size_t>(offs[s]) + t + ahead), _MM_HINT_T0);
    pf = (pf + 8) & 63;
    const __m512i off = _mm512_set1_epi64(static_cast<long long>(t));
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i)
      g[i] = _mm512_i64gather_epi64(_mm512_add_epi64(_mm512_load_si512(offs + 8 * i), off), text0, 1);
    transpose8(g, rows);
    if (dense) [[unlikely]] {
      // The last block had hits: check every step of this one at once rather than run it twice.
      alignas(64) __m512i block[8];
      for (int u = 0; u < 8; ++u) block[u] = rows[u];
      striped_state<W> cur = st;
      const std::size_t before = hits.size();
      checked_steps<W, Q, Masked>(cur, block, t, 8, ctx);
      st = cur;
      dense = hits.size() != before;
      continue;
    }
    // The fast path checks once per 8 steps, on the minimum score of each lane; a block in
    // which some lane got to <= k is run again from its saved state with every step checked.
    const striped_state<W> saved = st;
    __m512i mn[R];
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) mn[r] = st.sc[r];
#pragma GCC unroll 8
    for (std::size_t u = 0; u < 8; ++u) {
      step_all<W, Q, Masked>(rows[u], qt, st);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) mn[r] = min_score<W>(mn[r], st.sc[r]);
    }
    std::uint64_t any = 0;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) any |= at_most<W>(mn[r], kk);
    if (any != 0) [[unlikely]] {
      alignas(64) __m512i block[8];
      for (int u = 0; u < 8; ++u) block[u] = rows[u];
      striped_state<W> redo = saved;
      const std::size_t before = hits.size();
      checked_steps<W, Q, Masked>(redo, block, t, 8, ctx);
      st = redo;
      dense = hits.size() != before;
    }
  }
  if (t < steps) {  // the last < 8 bytes of each stripe, never read past it
    alignas(64) std::uint64_t tail[64];
    for (std::size_t s = 0; s < 64; ++s) {
      std::uint64_t w = 0;
      __builtin_memcpy(&w, text0 + s * stride + t, steps - t);
      tail[s] = w;
    }
    for (int i = 0; i < 8; ++i) g[i] = _mm512_load_si512(tail + 8 * i);
    transpose8(g, rows);
    striped_state<W> cur = st;  // a copy: the hot loop's state never has its address taken
    checked_steps<W, Q, Masked>(cur, rows, t, steps - t, ctx);
  }
}

}  // namespace

bool bytes_in_quarter1_avx512(const unsigned char* p, std::size_t n) {
  // OR of (byte ^ 0x40) over the range: bits 6-7 stay clear iff every byte is in 0x40-0x7F.
  __m512i acc = _mm512_setzero_si512();
  const __m512i q1 = _mm512_set1_epi8(0x40);
  std::size_t i = 0;
  for (; i + 64 <= n; i += 64)
    acc = _mm512_ternarylogic_epi32(acc, _mm512_loadu_si512(p + i), q1, 0xF6);  // A | (B ^ C)
  if (i < n) {
    const __mmask64 tail = n - i == 64 ? ~__mmask64{0} : (__mmask64{1} << (n - i)) - 1;
    acc = _mm512_ternarylogic_epi32(acc, _mm512_maskz_loadu_epi8(tail, p + i), _mm512_maskz_mov_epi8(tail, q1), 0xF6);
  }
  return _mm512_test_epi8_mask(acc, _mm512_set1_epi8(static_cast<char>(0xC0))) == 0;
}

void myers_striped_avx512(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                          std::size_t steps, std::size_t warm, std::uint64_t pos0, bool text_in_quarter1,
                          std::vector<lane_hit>& hits) {
  const unsigned used = sp.quarters;
  const bool only1 = (used & ~2u) == 0;
  if (sp.width == 16) {
    if (only1 && text_in_quarter1) return run<16, 2u, false>(sp, text0, stride, steps, warm, pos0, hits);
    if (only1) return run<16, 2u, true>(sp, text0, stride, steps, warm, pos0, hits);
    if ((used & ~3u) == 0) return run<16, 3u, true>(sp, text0, stride, steps, warm, pos0, hits);
    return run<16, 15u, true>(sp, text0, stride, steps, warm, pos0, hits);
  }
  if (only1 && text_in_quarter1) return run<32, 2u, false>(sp, text0, stride, steps, warm, pos0, hits);
  if (only1) return run<32, 2u, true>(sp, text0, stride, steps, warm, pos0, hits);
  if ((used & ~3u) == 0) return run<32, 3u, true>(sp, text0, stride, steps, warm, pos0, hits);
  return run<32, 15u, true>(sp, text0, stride, steps, warm, pos0, hits);
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
