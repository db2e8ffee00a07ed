// myers_blocked_avx2.cpp — one pattern of m > 64 (search -k, and the ends of the best
// approximate substring) on AVX2 CPUs: blocked Myers (Hyyrö 2001's blocks of 64 rows of
// Myers 1999's bit-vector DP, as myers_block_step.hpp, every block, no cut-off) over 16 text
// stripes at once, 4 groups of 4 stripes in the 64-bit lanes of AVX2 registers. Peq by gather
// from a block-major table, or, for small alphabets (at most 8 byte values with a Peq, at most
// 7 distinct Peq rows: DNA in either case, 0/1 texts), by vpermd from registers after the text
// bytes are turned into 3-bit codes 32 at a time. Within a column the blocks form a chain (the
// horizontal delta goes down); the four groups' chains are independent and interleave.
// O(n·⌈m/64⌉ / 16) vector block steps, against the scalar cut-off's O(n·⌈k/64⌉).
// Compiled with -mavx2; called only after a CPU check.
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/blocked_stripes_plan.hpp"

namespace trawl::approx_detail {
namespace {

constexpr std::size_t groups = 4, stripes = 4 * groups;
static_assert(stripes == blocked_stripes_avx2_count);

struct alignas(32) vec {
  __m256i v;
};

/// How a block's Peq is found for a group's 4 lanes.
enum class lookup {
  gather,  ///< _mm256_i64gather_epi64 from the block's 256 entries, index = the byte
  perm4,   ///< codes 0-3: one vpermd over the block's 4 qwords (index dwords 2c, 2c + 1)
  perm8,   ///< codes 0-7: vpermd over the 8 low dwords and over the 8 high dwords, then vpblendd
};

/// One block of 4 lanes advanced by one column: myers_block_step.hpp lane-wise, with the
/// horizontal delta entering as 0/1 vectors (nhpos = 1 - hin_pos, hneg = hin_neg) and leaving
/// the same way from bit 63 (every block's bottom row: the pattern sits in the top m of the
/// 64·nb rows, see shifted_peq). AVX2 has andnot but no NOT and no ternary logic, so ph is kept
/// complemented (nph = ~ph), which turns every ~ of the scalar step into an andnot:
///   ph = mv | ~(xh | pv)           ->  nph = (xh | pv) & ~mv
///   ph' = (ph << 1) | hin_pos      ->  nph' = (nph << 1) | (1 - hin_pos)
///   pv = mh' | ~(xv | ph')         ->  pv = mh' | (nph' & ~xv)
///   mv = ph' & xv                  ->  mv = xv & ~nph'
/// First: block 0, whose top row is row 0 (hin = 0: nhpos = 1, hneg = 0).
template <bool First>
[[gnu::always_inline]] inline void block_step4(__m256i eq, __m256i& pv, __m256i& mv, __m256i& nhpos, __m256i& hneg) {
  const __m256i xv = _mm256_or_si256(eq, mv);
  if constexpr (!First) eq = _mm256_or_si256(eq, hneg);  // a -1 from above: row 1 goes down for free
  // Carry down runs of +1 vertical deltas from matching rows: xh = (((eq & pv) + pv) ^ pv) | eq.
  const __m256i sum = _mm256_add_epi64(_mm256_and_si256(eq, pv), pv);
  const __m256i xh = _mm256_or_si256(_mm256_xor_si256(sum, pv), eq);
  __m256i nph = _mm256_andnot_si256(mv, _mm256_or_si256(xh, pv));
  __m256i mh = _mm256_and_si256(pv, xh);
  // hout = (ph & bit63) ? +1 : (mh & bit63) ? -1 : 0, as (1 - hout_pos, hout_neg).
  const __m256i nhpos_out = _mm256_srli_epi64(nph, 63), hneg_out = _mm256_srli_epi64(mh, 63);
  if constexpr (First) {
    nph = _mm256_or_si256(_mm256_slli_epi64(nph, 1), _mm256_set1_epi64x(1));
    mh = _mm256_slli_epi64(mh, 1);
  } else {
    nph = _mm256_or_si256(_mm256_slli_epi64(nph, 1), nhpos);
    mh = _mm256_or_si256(_mm256_slli_epi64(mh, 1), hneg);
  }
  pv = _mm256_or_si256(mh, _mm256_andnot_si256(xv, nph));
  mv = _mm256_andnot_si256(nph, xv);
  nhpos = nhpos_out;
  hneg = hneg_out;
}

/// How p's Peq is found, and for the perm lookups the map from a text byte's one-hot bit
/// (blocked_byte_codes: bit i for value[i]) to the lane byte e of its code: onehot_lo[oh & 15] |
/// onehot_hi[oh >> 4]. perm4 reads qword c by index dwords (2c, 2c + 1): e = 2c, and the kernel
/// adds 1 to the high dword; perm8 reads dword c of two tables: e = c.
struct byte_codes {
  lookup how = lookup::gather;
  blocked_byte_codes bc;
  alignas(16) std::uint8_t onehot_lo[16] = {}, onehot_hi[16] = {};
};

byte_codes make_byte_codes(const compiled_pattern& p) {
  byte_codes r;
  r.bc = make_blocked_byte_codes(p);
  if (!r.bc.small) return r;
  r.how = r.bc.rows + 1 <= 4 ? lookup::perm4 : lookup::perm8;
  for (std::size_t i = 0; i < std::min<std::size_t>(r.bc.values, 8); ++i) {  // (GCC cannot see values <= 8)
    const auto e = static_cast<std::uint8_t>(r.how == lookup::perm4 ? 2 * r.bc.code[i] : r.bc.code[i]);
    if (i < 4)
      r.onehot_lo[1u << i] = e;
    else
      r.onehot_hi[1u << (i - 4)] = e;
  }
  return r;
}

__m256i broadcast16(const std::uint8_t* t) {
  return _mm256_broadcastsi128_si256(_mm_load_si128(reinterpret_cast<const __m128i*>(t)));
}

/// The kernel over the stripes of [a0, a0 + stripes·len), warm-up w, for one lookup.
/// PrefixMin: report only the ends no worse than every earlier end of their stripe
/// (best_ends_blocked_avx2); otherwise every end <= k (scan_myers_blocked_avx2).
template <lookup L, bool PrefixMin>
void stripes_kernel(const compiled_pattern& p, const byte_codes& bc, const unsigned char* text, std::size_t a0,
                    std::size_t len, std::size_t w, std::uint32_t k, std::vector<lane_hit>& hits) {
  const std::size_t nb = p.words, d = 64 * nb - p.m;
  // Peq tables, block-major: gather: 256 qwords per block; perm4: one register of the codes'
  // 4 qwords per block; perm8: two registers per block, the codes' 8 low and 8 high dwords.
  std::vector<std::uint64_t> peq_t(L == lookup::gather ? nb * 256 : 0);
  std::vector<vec> tabs(L == lookup::perm4 ? nb : L == lookup::perm8 ? 2 * nb : 0);
  if constexpr (L == lookup::gather) {
    for (std::size_t b = 0; b < nb; ++b)
      for (std::size_t c = 0; c < 256; ++c) peq_t[b * 256 + c] = shifted_peq(p, c, b, d);
  } else {
    for (std::size_t b = 0; b < nb; ++b) {
      alignas(32) std::uint64_t q[8] = {};
      for (std::size_t c = 1; c <= bc.bc.rows; ++c) q[c] = shifted_peq(p, bc.bc.row_byte[c], b, d);
      if constexpr (L == lookup::perm4) {
        tabs[b].v = _mm256_load_si256(reinterpret_cast<const __m256i*>(q));
      } else {
        alignas(32) std::uint32_t lo[8], hi[8];
        for (std::size_t c = 0; c < 8; ++c) {
          lo[c] = static_cast<std::uint32_t>(q[c]);
          hi[c] = static_cast<std::uint32_t>(q[c] >> 32);
        }
        tabs[2 * b].v = _mm256_load_si256(reinterpret_cast<const __m256i*>(lo));
        tabs[2 * b + 1].v = _mm256_load_si256(reinterpret_cast<const __m256i*>(hi));
      }
    }
  }
  // Column u of a chunk of 8: byte u of each qword lane. gather: to byte 0, the rest zeroed
  // (pshufb writes 0 for a control byte with bit 7 set); perm: to all 8 bytes of the qword.
  __m256i sel[8];
  for (int u = 0; u < 8; ++u) {
    const auto lane0 = static_cast<long long>(L == lookup::gather ? 0x8080808080808000ULL | unsigned(u)
                                                                  : 0x0101010101010101ULL * unsigned(u));
    const auto lane1 = static_cast<long long>(L == lookup::gather ? 0x8080808080808000ULL | unsigned(8 + u)
                                                                  : 0x0101010101010101ULL * unsigned(8 + u));
    sel[u] = _mm256_set_epi64x(lane1, lane0, lane1, lane0);
  }
  const __m256i tab_lo = broadcast16(bc.bc.nib_lo), tab_hi = broadcast16(bc.bc.nib_hi);
  const __m256i oh_lo = broadcast16(bc.onehot_lo), oh_hi = broadcast16(bc.onehot_hi);
  const __m256i nib = _mm256_set1_epi8(0x0F), one = _mm256_set1_epi64x(1);
  const __m256i high_one = _mm256_set1_epi64x(static_cast<long long>(std::uint64_t{1} << 32));
  const unsigned char* start[stripes];  // stripe s reads from its first end - w
  for (std::size_t s = 0; s < stripes; ++s) start[s] = text + a0 + s * len - w;
  std::vector<vec> pv(groups * nb, vec{_mm256_set1_epi64x(-1)}), mv(groups * nb, vec{_mm256_setzero_si256()});
  __m256i score[groups], bound[groups];
  for (std::size_t g = 0; g < groups; ++g) {
    score[g] = _mm256_set1_epi64x(static_cast<long long>(64 * nb));  // D[m'][0] = m', m' = m + d
    bound[g] = _mm256_set1_epi64x(static_cast<long long>(k + d));
  }
  const std::size_t cols = w + len;  // a multiple of 8 beyond the first w % 8
  for (std::size_t t0 = 0; t0 < cols; t0 += 8) {
    const std::size_t n8 = std::min<std::size_t>(8, cols - t0);
    __m256i bytes[groups];
    for (std::size_t g = 0; g < groups; ++g) {
      std::uint64_t q[4] = {};
      if (n8 == 8)  // a fixed-size copy is one load
        for (std::size_t l = 0; l < 4; ++l) __builtin_memcpy(&q[l], start[4 * g + l] + t0, 8);
      else  // the last chunk: no byte beyond the stripe's end is read
        for (std::size_t l = 0; l < 4; ++l) __builtin_memcpy(&q[l], start[4 * g + l] + t0, n8);
      bytes[g] = _mm256_set_epi64x(static_cast<long long>(q[3]), static_cast<long long>(q[2]),
                                   static_cast<long long>(q[1]), static_cast<long long>(q[0]));
      if constexpr (L != lookup::gather) {  // bytes -> lane bytes e of their codes (make_byte_codes)
        const __m256i x = bytes[g];
        const __m256i oh = _mm256_and_si256(_mm256_shuffle_epi8(tab_lo, _mm256_and_si256(x, nib)),
                                            _mm256_shuffle_epi8(tab_hi, _mm256_and_si256(_mm256_srli_epi16(x, 4), nib)));
        bytes[g] = _mm256_or_si256(_mm256_shuffle_epi8(oh_lo, _mm256_and_si256(oh, nib)),
                                   _mm256_shuffle_epi8(oh_hi, _mm256_and_si256(_mm256_srli_epi16(oh, 4), nib)));
      }
    }
    for (std::size_t u = 0; u < n8; ++u) {
      __m256i idx[groups], nhpos[groups], hneg[groups];
      for (std::size_t g = 0; g < groups; ++g) {
        idx[g] = _mm256_shuffle_epi8(bytes[g], sel[u]);
        if constexpr (L == lookup::perm4) idx[g] = _mm256_or_si256(idx[g], high_one);  // dwords (2c, 2c + 1)
      }
      auto peq = [&](std::size_t b, std::size_t g) {
        if constexpr (L == lookup::gather)
          return _mm256_i64gather_epi64(reinterpret_cast<const long long*>(peq_t.data() + b * 256), idx[g], 8);
        else if constexpr (L == lookup::perm4)
          return _mm256_permutevar8x32_epi32(tabs[b].v, idx[g]);
        else  // the low dword from one table, the high dword from the other
          return _mm256_blend_epi32(_mm256_permutevar8x32_epi32(tabs[2 * b].v, idx[g]),
                                    _mm256_permutevar8x32_epi32(tabs[2 * b + 1].v, idx[g]), 0xAA);
      };
#pragma GCC unroll 4
      for (std::size_t g = 0; g < groups; ++g) block_step4<true>(peq(0, g), pv[g * nb].v, mv[g * nb].v, nhpos[g], hneg[g]);
      for (std::size_t b = 1; b < nb; ++b) {
#pragma GCC unroll 4
        for (std::size_t g = 0; g < groups; ++g)
          block_step4<false>(peq(b, g), pv[g * nb + b].v, mv[g * nb + b].v, nhpos[g], hneg[g]);
      }
      const std::size_t t = t0 + u;
      for (std::size_t g = 0; g < groups; ++g) {
        // score += hout = (1 - nhpos) - hneg
        score[g] = _mm256_sub_epi64(_mm256_add_epi64(score[g], one), _mm256_add_epi64(nhpos[g], hneg[g]));
        if (t < w) continue;
        // PrefixMin: only ends that may be the best, <= k and <= every earlier end of their
        // stripe (bound); otherwise every end <= k (bound stays k + d). Scores are small and
        // non-negative: the signed compare is exact.
        const __m256i over = _mm256_cmpgt_epi64(score[g], bound[g]);
        if (int m = _mm256_movemask_pd(_mm256_castsi256_pd(over)) ^ 0xF) {
          if constexpr (PrefixMin)  // bound = min(bound, score): score where it is not over
            bound[g] = _mm256_castpd_si256(_mm256_blendv_pd(_mm256_castsi256_pd(score[g]),
                                                            _mm256_castsi256_pd(bound[g]), _mm256_castsi256_pd(over)));
          alignas(32) std::uint64_t sc[4];
          _mm256_store_si256(reinterpret_cast<__m256i*>(sc), score[g]);
          report_lanes(static_cast<unsigned>(m), sc, 4 * g, a0, len, t, w, d, hits);
        }
      }
    }
  }
}

template <bool PrefixMin>
bool blocked_stripes(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink) {
  return plan_blocked_stripes(
      p, seq, from, report_from, to, k, stripes, sink,
      [&](std::size_t a0, std::size_t len, std::size_t w, std::vector<lane_hit>& hits) {
        const byte_codes bc = make_byte_codes(p);
        const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
        switch (bc.how) {
          case lookup::gather: return stripes_kernel<lookup::gather, PrefixMin>(p, bc, text, a0, len, w, k, hits);
          case lookup::perm4: return stripes_kernel<lookup::perm4, PrefixMin>(p, bc, text, a0, len, w, k, hits);
          case lookup::perm8: return stripes_kernel<lookup::perm8, PrefixMin>(p, bc, text, a0, len, w, k, hits);
        }
      });
}

}  // namespace

bool best_ends_blocked_avx2(const compiled_pattern& p, std::string_view seq, std::size_t from,
                            std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<true>(p, seq, from, report_from, to, k, sink);
}

bool blocked_stripes_coded_avx2(const compiled_pattern& p) { return make_byte_codes(p).how != lookup::gather; }

bool scan_myers_blocked_avx2(const compiled_pattern& p, std::string_view seq, std::size_t from,
                             std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<false>(p, seq, from, report_from, to, k, sink);
}

}  // namespace trawl::approx_detail
