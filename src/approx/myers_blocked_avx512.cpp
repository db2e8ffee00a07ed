// myers_blocked_avx512.cpp — one pattern of m > 64 (search -k, and the ends of the best
// approximate substring): blocked Myers (Hyyrö's blocks of 64 rows, as myers_block_step.hpp,
// every block, no cut-off) over 32 text stripes at once, 4 groups of 8 stripes in the 64-bit lanes of
// AVX-512F registers, Peq by gather from a block-major table (or, for small alphabets of
// letters on VBMI CPUs, by a permute of 4-bit byte codes). Within a column the blocks form a
// chain (the horizontal delta goes down); the four groups' chains are independent and
// interleave. O(n·⌈m/64⌉ / 32) vector block steps, against the scalar cut-off's
// O(n·⌈k/64⌉): for ASM, whose bound k is a sizable part of m, and for search with k large
// enough that the cut-off keeps most blocks anyway, the stripes win.
// Compiled with -mavx512*; called only after a CPU check.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#include <immintrin.h>

#include <algorithm>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/striped_avx512.hpp"

namespace trawl::approx_detail {
namespace {

using striped512::tl_or_not_or;
using striped512::tl_xor_or;
constexpr std::size_t groups = 4, stripes = 8 * groups;

struct alignas(64) vec {
  __m512i v;
};

/// One block of 8 lanes advanced by one column (myers_block_step.hpp, lane-wise); the
/// horizontal delta enters as the masks hin_pos / hin_neg and leaves as hout_pos / hout_neg.
[[gnu::always_inline]] inline void block_step8(__m512i eq, __m512i& pv, __m512i& mv, __mmask8& hpos, __mmask8& hneg,
                                               __m512i hib) {
  const __m512i one = _mm512_set1_epi64(1);
  const __m512i xv = _mm512_or_si512(eq, mv);
  eq = _mm512_mask_or_epi64(eq, hneg, eq, one);  // a -1 from above: row 1 goes down for free
  const __m512i sum = _mm512_add_epi64(_mm512_and_si512(eq, pv), pv);
  const __m512i xh = _mm512_ternarylogic_epi64(sum, pv, eq, tl_xor_or);
  __m512i ph = _mm512_ternarylogic_epi64(mv, xh, pv, tl_or_not_or);
  __m512i mh = _mm512_and_si512(pv, xh);
  const __mmask8 out_pos = _mm512_test_epi64_mask(ph, hib), out_neg = _mm512_test_epi64_mask(mh, hib);
  ph = _mm512_slli_epi64(ph, 1);
  mh = _mm512_slli_epi64(mh, 1);
  ph = _mm512_mask_or_epi64(ph, hpos, ph, one);
  mh = _mm512_mask_or_epi64(mh, hneg, mh, one);
  pv = _mm512_ternarylogic_epi64(mh, xv, ph, tl_or_not_or);
  mv = _mm512_and_si512(ph, xv);
  hpos = out_pos;
  hneg = out_neg;
}

/// The 4-bit codes of the bytes 0x40-0x7F (code8[c - 0x40]; 0: no Peq) when the kernel can
/// use them: a VBMI CPU, at most 15 byte values with a Peq, all in 0x40-0x7F.
bool byte_codes(const compiled_pattern& p, std::uint8_t code8[64]) {
  if (!striped_use_vbmi()) return false;
  const std::size_t nb = p.words;
  for (std::size_t c = 0, n = 0; c < 256; ++c) {
    bool any = false;
    for (std::size_t b = 0; b < nb; ++b) any = any || p.peq[c * nb + b] != 0;
    if (!any) continue;
    if (c < 0x40 || c > 0x7F || n == 15) return false;
    code8[c - 0x40] = static_cast<std::uint8_t>(++n);
  }
  return true;
}

/// The kernel. PrefixMin: report only the ends no worse than every earlier end of their stripe
/// (best_ends_blocked_avx512); otherwise every end <= k (scan_myers_blocked_avx512).
template <bool PrefixMin>
bool blocked_stripes(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink) {
  const std::size_t nb = p.words, w = p.m + k - 1;  // warm-up: the longest occurrence is m + k bytes
  const std::size_t a0 = std::max(report_from, from + w);
  const std::size_t len = to > a0 ? (to - a0) / stripes / 8 * 8 : 0;
  if (p.m <= 64 || len < std::max<std::size_t>(4 * w, 1024)) return false;
  // Ends before a0 (stripe 0 would lack its warm-up) and after the stripes: the scalar kernel.
  if (report_from < a0) scan_myers_blocked(p, seq, from, report_from, a0, k, sink);
  // Small alphabets of letters (DNA, protein: at most 15 byte values with a Peq, all in
  // 0x40-0x7F) on VBMI CPUs: a text byte becomes a 4-bit code by one vpermb per 64 bytes
  // (bytes outside 0x40-0x7F: code 0, no match), and Peq a vpermt2q from two registers of the
  // block's 16 entries, instead of a gather.
  alignas(64) std::uint8_t code8[64] = {};
  std::vector<vec> tabs;
  const bool coded = byte_codes(p, code8);
  if (coded) {
    tabs.resize(2 * nb, vec{_mm512_setzero_si512()});
    for (std::size_t b = 0; b < nb; ++b) {
      alignas(64) std::uint64_t t[16] = {};
      for (std::size_t c = 0x40; c < 0x80; ++c)
        if (code8[c - 0x40] != 0) t[code8[c - 0x40]] = p.peq[c * nb + b];
      tabs[2 * b].v = _mm512_load_si512(t);
      tabs[2 * b + 1].v = _mm512_load_si512(t + 8);
    }
  }
  // Otherwise Peq block-major, for gathers: the index of a byte is the byte itself.
  std::vector<std::uint64_t> peq_t(coded ? 0 : nb * 256);
  if (!coded)
    for (std::size_t c = 0; c < 256; ++c)
      for (std::size_t b = 0; b < nb; ++b) peq_t[b * 256 + c] = p.peq[c * nb + b];
  const __m512i code_table = _mm512_load_si512(code8);
  const __m512i q_sel = _mm512_set1_epi8(static_cast<char>(0xC0)), q1 = _mm512_set1_epi8(0x40);
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  const unsigned char* start[stripes];  // stripe s reads from its first end - w
  for (std::size_t s = 0; s < stripes; ++s) start[s] = text + a0 + s * len - w;
  std::vector<vec> pv(groups * nb, vec{_mm512_set1_epi64(-1)}), mv(groups * nb, vec{_mm512_setzero_si512()});
  __m512i score[groups], lmin[groups];
  const __m512i hib_mid = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{1} << 63));
  const __m512i hib_last = _mm512_set1_epi64(static_cast<long long>(std::uint64_t{1} << ((p.m - 1) % 64)));
  const __m512i one = _mm512_set1_epi64(1), ff = _mm512_set1_epi64(0xFF);
  for (std::size_t g = 0; g < groups; ++g) {
    score[g] = _mm512_set1_epi64(static_cast<long long>(p.m));
    lmin[g] = _mm512_set1_epi64(k);
  }
  std::vector<lane_hit> hits;
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
      bytes[g] = _mm512_load_si512(q);
      if (coded)
        bytes[g] = striped512::maskz_permb(_mm512_cmpeq_epi8_mask(_mm512_and_si512(bytes[g], q_sel), q1), bytes[g],
                                           code_table);
    }
    for (std::size_t u = 0; u < n8; ++u) {
      __m512i c[groups];
      __mmask8 hpos[groups] = {}, hneg[groups] = {};
      for (std::size_t g = 0; g < groups; ++g)
        c[g] = _mm512_and_si512(_mm512_srli_epi64(bytes[g], static_cast<unsigned>(8 * u)), ff);
      for (std::size_t b = 0; b < nb; ++b) {
        const long long* tab = reinterpret_cast<const long long*>(peq_t.data() + b * 256);
        const __m512i hib = b + 1 < nb ? hib_mid : hib_last;
        if (coded) {
          const __m512i lo = tabs[2 * b].v, hi = tabs[2 * b + 1].v;
#pragma GCC unroll 4
          for (std::size_t g = 0; g < groups; ++g)
            block_step8(_mm512_permutex2var_epi64(lo, c[g], hi), pv[g * nb + b].v, mv[g * nb + b].v, hpos[g],
                        hneg[g], hib);
        } else {
#pragma GCC unroll 4
          for (std::size_t g = 0; g < groups; ++g)
            block_step8(_mm512_i64gather_epi64(c[g], tab, 8), pv[g * nb + b].v, mv[g * nb + b].v, hpos[g], hneg[g],
                        hib);
        }
      }
      const std::size_t t = t0 + u;
      for (std::size_t g = 0; g < groups; ++g) {
        score[g] = _mm512_mask_add_epi64(score[g], hpos[g], score[g], one);
        score[g] = _mm512_mask_sub_epi64(score[g], hneg[g], score[g], one);
        if (t < w) continue;
        // PrefixMin: only ends that may be the best, <= k and <= every earlier end of their
        // stripe (lmin); otherwise every end <= k (lmin stays k).
        if (__mmask8 m = _mm512_cmple_epu64_mask(score[g], lmin[g])) {
          if constexpr (PrefixMin) lmin[g] = _mm512_min_epu64(lmin[g], score[g]);
          alignas(64) std::uint64_t sc[8];
          _mm512_store_si512(sc, score[g]);
          for (; m; m &= static_cast<__mmask8>(m - 1)) {
            const auto l = static_cast<std::uint32_t>(__builtin_ctz(m));
            const std::size_t s = 8 * g + l;
            hits.push_back({a0 + s * len + (t - w), static_cast<std::uint32_t>(sc[l]), static_cast<std::uint32_t>(s)});
          }
        }
      }
    }
  }
  std::vector<lane_hit> sorted;
  sort_by_lane(hits, stripes, sorted);  // stripes are in text order
  sink.on_ends(sorted.data(), sorted.size());
  const std::size_t tail = a0 + stripes * len;
  if (tail < to) scan_myers_blocked(p, seq, tail - w, tail, to, k, sink);
  return true;
}

}  // namespace

bool best_ends_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                              std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<true>(p, seq, from, report_from, to, k, sink);
}

bool blocked_stripes_coded(const compiled_pattern& p) {
  std::uint8_t code8[64] = {};
  return byte_codes(p, code8);
}

bool scan_myers_blocked_avx512(const compiled_pattern& p, std::string_view seq, std::size_t from,
                               std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  return blocked_stripes<false>(p, seq, from, report_from, to, k, sink);
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
