// myers_blocked_avx512.cpp — one pattern of m > 64 (search -k, and the ends of the best
// approximate substring): blocked Myers (Hyyrö's blocks of 64 rows, as myers_block_step.hpp,
// every block, no cut-off) over 32 text stripes at once, 4 groups of 8 stripes in the 64-bit
// lanes of AVX-512F registers. Within a column the blocks form a chain (the horizontal delta
// goes down); the four groups' chains are independent and interleave. O(n·⌈m/64⌉ / 32)
// vector block steps, against the scalar cut-off's O(n·⌈k/64⌉): for ASM, whose bound k is a
// sizable part of m, and for search with k large enough that the cut-off keeps most blocks
// anyway, the stripes win.
// Peq, one of three ways (make_byte_codes):
//  - small alphabets, any bytes (at most 8 byte values with a Peq in at most 7 distinct Peq
//    rows: DNA, 0/1 texts; blocked_byte_codes): the text becomes 3-bit codes 64 bytes at a
//    time by a two-nibble one-hot vpshufb lookup (AVX-512BW), and a block's Peq is one vpermq
//    from a register of its 8 entries;
//  - otherwise, on VBMI CPUs, at most 15 byte values all in 0x40-0x7F (letters): 4-bit codes
//    by one vpermb, Peq a vpermt2q from two registers of 8;
//  - otherwise a gather from a block-major table of 256 entries.
// Where both codes apply (DNA on a VBMI CPU) the 3-bit ones take the pattern: they are a
// little faster, and DNA then runs one path on every AVX-512BW CPU. The 4-bit codes are
// several times as fast as the gathers (tuned on Zen 5, the kernel alone:
// bench/records/approx-stripes-d8cbe46-zen4-zen5-h100.csv).
// Compiled with -mavx512*; called only through the dispatch table (common/dispatch.hpp), which
// picks the Vbmi instantiation from the features of the table's level.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/blocked_stripes_plan.hpp"
#include "approx/striped_avx512.hpp"

namespace trawl::approx_detail {
namespace {

using striped512::tl_or_not_or;
using striped512::tl_xor_or;
constexpr std::size_t groups = 4, stripes = 8 * groups;
static_assert(stripes == blocked_stripes_avx512_count);

struct alignas(64) vec {
  __m512i v;
};

/// One block of 8 lanes advanced by one column (myers_block_step.hpp, lane-wise). The
/// horizontal delta enters as 0/1 vectors hpos / hneg (hin = hpos - hneg) and leaves the same
/// way from bit 63, every block's bottom row (shifted_peq), not as masks: a mask would cross
/// to the next block through a general register (GCC moves __mmask8 arrays through them), on
/// the chain down the column. First: block 0, whose top row is row 0 (hin = 0).
template <bool First>
[[gnu::always_inline]] inline void block_step8(__m512i eq, __m512i& pv, __m512i& mv, __m512i& hpos, __m512i& hneg) {
  const __m512i xv = _mm512_or_si512(eq, mv);
  if constexpr (!First) eq = _mm512_or_si512(eq, hneg);  // a -1 from above: row 1 goes down for free
  const __m512i sum = _mm512_add_epi64(_mm512_and_si512(eq, pv), pv);
  const __m512i xh = _mm512_ternarylogic_epi64(sum, pv, eq, tl_xor_or);
  __m512i ph = _mm512_ternarylogic_epi64(mv, xh, pv, tl_or_not_or);
  __m512i mh = _mm512_and_si512(pv, xh);
  const __m512i out_pos = _mm512_srli_epi64(ph, 63), out_neg = _mm512_srli_epi64(mh, 63);
  ph = _mm512_slli_epi64(ph, 1);
  mh = _mm512_slli_epi64(mh, 1);
  if constexpr (!First) {
    ph = _mm512_or_si512(ph, hpos);
    mh = _mm512_or_si512(mh, hneg);
  }
  pv = _mm512_ternarylogic_epi64(mh, xv, ph, tl_or_not_or);
  mv = _mm512_and_si512(ph, xv);
  hpos = out_pos;
  hneg = out_neg;
}

/// How a block's Peq is found for a group's 8 lanes.
enum class lookup {
  gather,  ///< vpgatherqq from the block's 256 entries, index = the byte
  codes3,  ///< 3-bit codes (blocked_byte_codes, any bytes): one vpermq from the block's 8 entries
  codes4,  ///< 4-bit codes of bytes 0x40-0x7F (VBMI): one vpermt2q from the block's 16 entries
};

/// The codes a pattern's text bytes become, and how its Peq is then read.
struct byte_codes {
  lookup how = lookup::gather;
  // codes3: text byte -> one-hot bit i (bc.nib_lo / nib_hi) -> code: onehot_lo[oh & 15] |
  // onehot_hi[oh >> 4] (value[i]'s code at entry 1 << i, or 1 << (i - 4) for i >= 4).
  blocked_byte_codes bc;
  alignas(16) std::uint8_t onehot_lo[16] = {}, onehot_hi[16] = {};
  // codes4: code8[c - 0x40] of the bytes c in 0x40-0x7F (0: no Peq), and a byte of each code.
  alignas(64) std::uint8_t code8[64] = {};
  std::uint8_t code4_byte[16] = {};
};

/// 4-bit codes when the kernel may use VBMI (`vbmi`) and p has at most 15 byte values with a
/// Peq, all in 0x40-0x7F (one code per value, equal rows or not).
bool make_codes4(const compiled_pattern& p, byte_codes& r, bool vbmi) {
  if (!vbmi) return false;
  const std::size_t nb = p.words;
  for (std::size_t c = 0, n = 0; c < 256; ++c) {
    const std::uint64_t* eq = p.eq(static_cast<unsigned char>(c));
    if (std::all_of(eq, eq + nb, [](std::uint64_t x) { return x == 0; })) continue;
    if (c < 0x40 || c > 0x7F || n == 15) return false;
    r.code8[c - 0x40] = static_cast<std::uint8_t>(++n);
    r.code4_byte[n] = static_cast<std::uint8_t>(c);
  }
  return true;
}

/// The 3-bit codes where they apply (faster than the 4-bit ones where both do, see the file
/// comment, and no VBMI needed), else the 4-bit ones, else gathers.
byte_codes make_byte_codes(const compiled_pattern& p, bool vbmi) {
  byte_codes r;
  r.bc = make_blocked_byte_codes(p);
  if (r.bc.small) {
    r.how = lookup::codes3;
    for (std::size_t i = 0; i < std::min<std::size_t>(r.bc.values, 8); ++i)  // (GCC cannot see values <= 8)
      (i < 4 ? r.onehot_lo[1u << i] : r.onehot_hi[1u << (i - 4)]) = r.bc.code[i];
  } else if (make_codes4(p, r, vbmi)) {
    r.how = lookup::codes4;
  }
  return r;
}

/// The kernel over the stripes of [a0, a0 + stripes·len), warm-up w, for one lookup.
/// PrefixMin: report only the ends no worse than every earlier end of their stripe
/// (best_ends_blocked_avx512); otherwise every end <= k (scan_myers_blocked_avx512).
template <lookup L, bool PrefixMin>
void stripes_kernel(const compiled_pattern& p, const byte_codes& bc, const unsigned char* text, std::size_t a0,
                    std::size_t len, std::size_t w, std::uint32_t k, std::vector<lane_hit>& hits) {
  const std::size_t nb = p.words, d = 64 * nb - p.m;
  // Peq tables (shifted_peq), block-major: gather: 256 qwords per block; codes3: one register of the
  // codes' 8 qwords per block; codes4: two registers of 8 per block (codes 0-7, 8-15).
  std::vector<std::uint64_t> peq_t(L == lookup::gather ? nb * 256 : 0);
  std::vector<vec> tabs(L == lookup::codes3 ? nb : L == lookup::codes4 ? 2 * nb : 0);
  for (std::size_t b = 0; b < nb; ++b) {
    if constexpr (L == lookup::gather) {
      for (std::size_t c = 0; c < 256; ++c) peq_t[b * 256 + c] = shifted_peq(p, c, b, d);
    } else {
      alignas(64) std::uint64_t t[16] = {};
      if constexpr (L == lookup::codes3)
        for (std::size_t c = 1; c <= bc.bc.rows; ++c) t[c] = shifted_peq(p, bc.bc.row_byte[c], b, d);
      else
        for (std::size_t c = 1; c < 16 && bc.code4_byte[c] != 0; ++c) t[c] = shifted_peq(p, bc.code4_byte[c], b, d);
      tabs[L == lookup::codes3 ? b : 2 * b].v = _mm512_load_si512(t);
      if constexpr (L == lookup::codes4) tabs[2 * b + 1].v = _mm512_load_si512(t + 8);
    }
  }
  const __m512i nib = _mm512_set1_epi8(0x0F);
  const __m512i tab_lo = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(bc.bc.nib_lo)));
  const __m512i tab_hi = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(bc.bc.nib_hi)));
  const __m512i oh_lo = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(bc.onehot_lo)));
  const __m512i oh_hi = _mm512_broadcast_i32x4(_mm_load_si128(reinterpret_cast<const __m128i*>(bc.onehot_hi)));
  const __m512i code_table = _mm512_load_si512(bc.code8);
  const __m512i q_sel = _mm512_set1_epi8(static_cast<char>(0xC0)), q1 = _mm512_set1_epi8(0x40);
  const unsigned char* start[stripes];  // stripe s reads from its first end - w
  for (std::size_t s = 0; s < stripes; ++s) start[s] = text + a0 + s * len - w;
  std::vector<vec> pv(groups * nb, vec{_mm512_set1_epi64(-1)}), mv(groups * nb, vec{_mm512_setzero_si512()});
  __m512i score[groups], lmin[groups];
  const __m512i ff = _mm512_set1_epi64(0xFF);
  for (std::size_t g = 0; g < groups; ++g) {
    score[g] = _mm512_set1_epi64(static_cast<long long>(64 * nb));  // D[m'][0] = m', m' = m + d
    lmin[g] = _mm512_set1_epi64(static_cast<long long>(k + d));
  }
  const std::size_t cols = w + len;  // a multiple of 8 beyond the first w % 8
  for (std::size_t t0 = 0; t0 < cols; t0 += 8) {
    const std::size_t n8 = std::min<std::size_t>(8, cols - t0);
    __m512i bytes[groups];
    for (std::size_t g = 0; g < groups; ++g) {
      alignas(64) std::uint64_t q[8] = {};
      if (n8 == 8)  // a fixed-size copy is one load
        for (std::size_t l = 0; l < 8; ++l) __builtin_memcpy(&q[l], start[8 * g + l] + t0, 8);
      else
        for (std::size_t l = 0; l < 8; ++l) __builtin_memcpy(&q[l], start[8 * g + l] + t0, n8);
      const __m512i x = _mm512_load_si512(q);
      if constexpr (L == lookup::gather) {
        bytes[g] = x;
      } else if constexpr (L == lookup::codes3) {
        // x -> one-hot bit i (0: no Peq) -> code. vpshufb reads the low 4 bits of an index
        // byte and gives 0 where its bit 7 is set, so oh needs no mask for onehot_lo: bits
        // 0-3 index entries 1, 2, 4, 8; bits 4-6 entry 0 (= 0); bit 7 gives 0.
        const __m512i oh = _mm512_and_si512(_mm512_shuffle_epi8(tab_lo, _mm512_and_si512(x, nib)),
                                            _mm512_shuffle_epi8(tab_hi, _mm512_and_si512(_mm512_srli_epi16(x, 4), nib)));
        bytes[g] = _mm512_or_si512(_mm512_shuffle_epi8(oh_lo, oh),
                                   _mm512_shuffle_epi8(oh_hi, _mm512_and_si512(_mm512_srli_epi16(oh, 4), nib)));
      } else {  // vpermb reads the low 6 bits: bytes outside 0x40-0x7F are masked to code 0
        bytes[g] = striped512::maskz_permb(_mm512_cmpeq_epi8_mask(_mm512_and_si512(x, q_sel), q1), x, code_table);
      }
    }
    for (std::size_t u = 0; u < n8; ++u) {
      // Column u: byte u of each qword lane, to the lane's low byte. vpermq reads the low 3 bits
      // of an index qword and vpermt2q the low 4: only the gather's index needs the mask.
      __m512i c[groups], hpos[groups], hneg[groups];
      for (std::size_t g = 0; g < groups; ++g) {
        c[g] = _mm512_srli_epi64(bytes[g], static_cast<unsigned>(8 * u));
        if constexpr (L == lookup::gather) c[g] = _mm512_and_si512(c[g], ff);
      }
      auto peq = [&](std::size_t b, std::size_t g) {
        if constexpr (L == lookup::gather)
          return _mm512_i64gather_epi64(c[g], reinterpret_cast<const long long*>(peq_t.data() + b * 256), 8);
        else if constexpr (L == lookup::codes3)
          return _mm512_permutexvar_epi64(c[g], tabs[b].v);
        else
          return _mm512_permutex2var_epi64(tabs[2 * b].v, c[g], tabs[2 * b + 1].v);
      };
#pragma GCC unroll 4
      for (std::size_t g = 0; g < groups; ++g) block_step8<true>(peq(0, g), pv[g * nb].v, mv[g * nb].v, hpos[g], hneg[g]);
      for (std::size_t b = 1; b < nb; ++b) {
#pragma GCC unroll 4
        for (std::size_t g = 0; g < groups; ++g)
          block_step8<false>(peq(b, g), pv[g * nb + b].v, mv[g * nb + b].v, hpos[g], hneg[g]);
      }
      const std::size_t t = t0 + u;
      for (std::size_t g = 0; g < groups; ++g) {
        score[g] = _mm512_sub_epi64(_mm512_add_epi64(score[g], hpos[g]), hneg[g]);
        if (t < w) continue;
        // PrefixMin: only ends that may be the best, <= k and <= every earlier end of their
        // stripe (lmin); otherwise every end <= k (lmin stays k + d).
        if (__mmask8 m = _mm512_cmple_epu64_mask(score[g], lmin[g])) {
          if constexpr (PrefixMin) lmin[g] = _mm512_min_epu64(lmin[g], score[g]);
          alignas(64) std::uint64_t sc[8];
          _mm512_store_si512(sc, score[g]);
          report_lanes(m, sc, 8 * g, a0, len, t, w, d, hits);
        }
      }
    }
  }
}

template <bool PrefixMin, bool Vbmi>
bool blocked_stripes(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink) {
  return plan_blocked_stripes(
      p, seq, from, report_from, to, k, stripes, sink,
      [&](std::size_t a0, std::size_t len, std::size_t w, std::vector<lane_hit>& hits) {
        const byte_codes bc = make_byte_codes(p, Vbmi);
        const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
        switch (bc.how) {
          case lookup::gather: return stripes_kernel<lookup::gather, PrefixMin>(p, bc, text, a0, len, w, k, hits);
          case lookup::codes3: return stripes_kernel<lookup::codes3, PrefixMin>(p, bc, text, a0, len, w, k, hits);
          case lookup::codes4: return stripes_kernel<lookup::codes4, PrefixMin>(p, bc, text, a0, len, w, k, hits);
        }
      });
}

}  // namespace

template <bool Vbmi>
bool best_ends_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                              std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<true, Vbmi>(p, seq, from, report_from, to, k, sink);
}

int blocked_stripes_code_bits(const compiled_pattern& p, bool vbmi) {
  const lookup how = make_byte_codes(p, vbmi).how;
  return how == lookup::codes3 ? 3 : how == lookup::codes4 ? 4 : 0;
}

template <bool Vbmi>
bool scan_myers_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                               std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<false, Vbmi>(p, seq, from, report_from, to, k, sink);
}

template bool best_ends_blocked_avx512<false>(const compiled_pattern&, std::string_view, std::size_t, std::size_t,
                                              std::size_t, std::uint32_t, end_sink&);
template bool best_ends_blocked_avx512<true>(const compiled_pattern&, std::string_view, std::size_t, std::size_t,
                                             std::size_t, std::uint32_t, end_sink&);
template bool scan_myers_blocked_avx512<false>(const compiled_pattern&, std::string_view, std::size_t, std::size_t,
                                               std::size_t, std::uint32_t, end_sink&);
template bool scan_myers_blocked_avx512<true>(const compiled_pattern&, std::string_view, std::size_t, std::size_t,
                                              std::size_t, std::uint32_t, end_sink&);

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
