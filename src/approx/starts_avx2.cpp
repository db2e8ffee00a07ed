// starts_avx2.cpp — leftmost starts of many requests at once on AVX2 (starts_avx512.cpp does
// the same on AVX-512BW): the reverse global Myers pass of leftmost_start (align.cpp spells
// it out), 32 requests per group in 8-bit (m <= 8: one register), 16-bit (m <= 16: two) or
// 32-bit (m <= 32: four) lanes. O(max length) vector steps for 32 requests.
//
// Text: per block of 16 columns, one 16-byte load per request (the bytes ending 16b before
// its end j); requests q and q + 16 share a register (its two 128-bit halves), and a 16 x 16
// byte transpose per half gives 16 rows in which byte q is request q's byte. Peq of a row is
// looked up one byte at a time by vpshufb, as in the AVX2 striped kernel
// (myers_striped_avx2.cpp): the low nibble indexes a table per Peq byte, the high nibble
// selects among the tables of the high nibbles at which the pattern matches anything. The
// Peq bytes are then unpacked into the lanes (to_lanes), which puts the requests of a
// register in an order that the fields (score, length) and the results go through as well.
//
// Compiled with -mavx2; called only after a CPU check.
#include <immintrin.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <limits>
#include <utility>

#include "approx/approx_internal.hpp"
#include "approx/striped_avx2.hpp"

namespace trawl::approx_detail {
namespace {

using namespace striped256;

using F = start_fields;

template <int W>
constexpr int regs = W / 8;  // 32 requests in lanes of W bits

/// 16 x 16 byte transpose in each 128-bit half: byte c of a[r] goes to byte r of out[c].
[[gnu::always_inline]] inline void transpose16(const __m256i a[16], __m256i out[16]) {
  __m256i b[16], c[16];
  for (int i = 0; i < 8; ++i) {
    b[i] = _mm256_unpacklo_epi8(a[2 * i], a[2 * i + 1]);      // columns 0-7 of rows 2i, 2i + 1
    b[i + 8] = _mm256_unpackhi_epi8(a[2 * i], a[2 * i + 1]);  // columns 8-15
  }
  for (int h = 0; h < 2; ++h)  // h: columns 0-7 / 8-15
    for (int i = 0; i < 4; ++i) {
      c[8 * h + i] = _mm256_unpacklo_epi16(b[8 * h + 2 * i], b[8 * h + 2 * i + 1]);      // columns 8h + 0-3, rows 4i-4i+3
      c[8 * h + i + 4] = _mm256_unpackhi_epi16(b[8 * h + 2 * i], b[8 * h + 2 * i + 1]);  // columns 8h + 4-7
    }
  // c[4g + i]: columns 4g .. 4g + 3 of rows 4i .. 4i + 3 (a dword per column).
  for (int g = 0; g < 4; ++g) {
    const __m256i d0 = _mm256_unpacklo_epi32(c[4 * g], c[4 * g + 1]);      // columns 4g, 4g + 1; rows 0-7
    const __m256i d1 = _mm256_unpackhi_epi32(c[4 * g], c[4 * g + 1]);      // columns 4g + 2, 4g + 3; rows 0-7
    const __m256i d2 = _mm256_unpacklo_epi32(c[4 * g + 2], c[4 * g + 3]);  // columns 4g, 4g + 1; rows 8-15
    const __m256i d3 = _mm256_unpackhi_epi32(c[4 * g + 2], c[4 * g + 3]);
    out[4 * g] = _mm256_unpacklo_epi64(d0, d2);
    out[4 * g + 1] = _mm256_unpackhi_epi64(d0, d2);
    out[4 * g + 2] = _mm256_unpacklo_epi64(d1, d3);
    out[4 * g + 3] = _mm256_unpackhi_epi64(d1, d3);
  }
}

/// Lane-layout registers from W/8 byte rows (byte b of each lane's value in acc[b]):
/// W = 8: acc[0] itself; W = 16: words of requests 0-7 | 16-23 and 8-15 | 24-31; W = 32:
/// dwords of 0-3 | 16-19, 4-7 | 20-23, 8-11 | 24-27, 12-15 | 28-31.
template <int W>
[[gnu::always_inline]] inline void to_lanes(const __m256i acc[regs<W>], __m256i out[regs<W>]) {
  if constexpr (W == 8) {
    out[0] = acc[0];
  } else if constexpr (W == 16) {
    out[0] = _mm256_unpacklo_epi8(acc[0], acc[1]);
    out[1] = _mm256_unpackhi_epi8(acc[0], acc[1]);
  } else {
    const __m256i lo01 = _mm256_unpacklo_epi8(acc[0], acc[1]), hi01 = _mm256_unpackhi_epi8(acc[0], acc[1]);
    const __m256i lo23 = _mm256_unpacklo_epi8(acc[2], acc[3]), hi23 = _mm256_unpackhi_epi8(acc[2], acc[3]);
    out[0] = _mm256_unpacklo_epi16(lo01, lo23);
    out[1] = _mm256_unpackhi_epi16(lo01, lo23);
    out[2] = _mm256_unpacklo_epi16(hi01, hi23);
    out[3] = _mm256_unpackhi_epi16(hi01, hi23);
  }
}

/// Values below 256 given per request (byte q of v) in the lane layout.
template <int W>
[[gnu::always_inline]] inline void bytes_to_lanes(__m256i v, __m256i out[regs<W>]) {
  __m256i acc[regs<W>];
  acc[0] = v;
  for (int b = 1; b < regs<W>; ++b) acc[b] = _mm256_setzero_si256();
  to_lanes<W>(acc, out);
}

/// The inverse of to_lanes for values below 256 (a lane above 255 reads as 255): byte q of
/// the result is the value of position q.
template <int W>
[[gnu::always_inline]] inline __m256i lanes_to_bytes(const __m256i in[regs<W>]) {
  if constexpr (W == 8) {
    return in[0];
  } else if constexpr (W == 16) {  // packus saturates signed words: clamp first
    const __m256i ff = _mm256_set1_epi16(0xFF);
    return _mm256_packus_epi16(_mm256_min_epu16(in[0], ff), _mm256_min_epu16(in[1], ff));
  } else {
    const __m256i ff = _mm256_set1_epi32(0xFF);
    const __m256i w01 = _mm256_packus_epi32(_mm256_min_epu32(in[0], ff), _mm256_min_epu32(in[1], ff));
    const __m256i w23 = _mm256_packus_epi32(_mm256_min_epu32(in[2], ff), _mm256_min_epu32(in[3], ff));
    return _mm256_packus_epi16(w01, w23);
  }
}

/// A group's 32 requests sit in 8 registers of 4 qwords (register r: requests 4r .. 4r + 3);
/// pack_bytes puts the low bytes of all 32 in one register, request 4r + k at byte position
/// 16 (k / 2) + 8 (k % 2) + slot(r), and that order of positions is the group's order
/// throughout (text loads, lanes). slot: 0, 4, 2, 6, 1, 5, 3, 7 for r = 0 .. 7.
constexpr int slot_of_reg[8] = {0, 4, 2, 6, 1, 5, 3, 7};
constexpr std::array<std::uint8_t, 32> request_at = [] {
  std::array<std::uint8_t, 32> a{};
  for (int r = 0; r < 8; ++r)
    for (int k = 0; k < 4; ++k) a[static_cast<std::size_t>(16 * (k / 2) + 8 * (k % 2) + slot_of_reg[r])] =
        static_cast<std::uint8_t>(4 * r + k);
  return a;
}();
/// Values below 256 in the qwords of q[0..7] to bytes in the group's position order.
[[gnu::always_inline]] inline __m256i pack_bytes(const __m256i q[8]) {
  // Dwords: q0 | q1 << 32 (slots 0 / 4 apart by 32 bits), then words, then bytes.
  const __m256i x01 = _mm256_or_si256(q[0], _mm256_slli_epi64(q[1], 32));
  const __m256i x23 = _mm256_or_si256(q[2], _mm256_slli_epi64(q[3], 32));
  const __m256i x45 = _mm256_or_si256(q[4], _mm256_slli_epi64(q[5], 32));
  const __m256i x67 = _mm256_or_si256(q[6], _mm256_slli_epi64(q[7], 32));
  const __m256i y0 = _mm256_or_si256(x01, _mm256_slli_epi32(x23, 16));
  const __m256i y1 = _mm256_or_si256(x45, _mm256_slli_epi32(x67, 16));
  return _mm256_or_si256(y0, _mm256_slli_epi16(y1, 8));
}
/// The inverse for register r: qword k = the byte at position 16 (k / 2) + 8 (k % 2) + slot(r).
template <int R>
[[gnu::always_inline]] inline __m256i unpack_bytes(__m256i z) {
  return _mm256_and_si256(_mm256_srli_epi64(z, 8 * slot_of_reg[R]), _mm256_set1_epi64x(0xFF));
}

/// Requests 4r .. 4r + 3 of a group: their ends j and scores in qwords.
[[gnu::always_inline]] inline void load4(const hit* h, __m256i& j, __m256i& score) {
  static_assert(sizeof(hit) == 32 && offsetof(hit, end) == 8 && offsetof(hit, errors) == 20);
  const __m256i a = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h));  // start, end | pattern+errors, dir
  const __m256i b = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + 1));
  const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + 2));
  const __m256i d = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(h + 3));
  const __m256i ab_hi = _mm256_unpackhi_epi64(a, b), cd_hi = _mm256_unpackhi_epi64(c, d);  // ends | dirs
  const __m256i ab_lo = _mm256_unpacklo_epi64(a, b), cd_lo = _mm256_unpacklo_epi64(c, d);  // starts | pattern+errors
  j = _mm256_sub_epi64(_mm256_permute2x128_si256(ab_hi, cd_hi, 0x20), _mm256_set1_epi64x(1));
  score = _mm256_srli_epi64(_mm256_permute2x128_si256(ab_lo, cd_lo, 0x31), 32);
}
[[gnu::always_inline]] inline void load4(const start_request* r, __m256i& j, __m256i& score) {
  j = _mm256_set_epi64x(static_cast<long long>(r[3].j), static_cast<long long>(r[2].j),
                        static_cast<long long>(r[1].j), static_cast<long long>(r[0].j));
  score = _mm256_set_epi64x(r[3].score, r[2].score, r[1].score, r[0].score);
}

/// Lane-wise min / max of signed qwords, and their horizontal forms (values below 2^63).
[[gnu::always_inline]] inline __m256i min64(__m256i a, __m256i b) {
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(a, b));
}
[[gnu::always_inline]] inline __m256i max64(__m256i a, __m256i b) {
  return _mm256_blendv_epi8(a, b, _mm256_cmpgt_epi64(b, a));
}
template <bool Max>
[[gnu::always_inline]] inline std::uint64_t reduce64(__m256i v) {
  auto f = [](__m256i a, __m256i b) { return Max ? max64(a, b) : min64(a, b); };
  v = f(v, _mm256_permute4x64_epi64(v, 0x4E));  // the other half
  v = f(v, _mm256_shuffle_epi32(v, 0x4E));      // the other qword of the half
  return static_cast<std::uint64_t>(_mm256_extract_epi64(v, 0));
}

/// One column of the reverse global Myers DP, the pattern in the low m bits of each lane; d
/// (the last row's value) follows bit m - 1 (hib). Row 0 grows by one per column.
template <int W>
[[gnu::always_inline]] inline void global_step(__m256i e, __m256i hib, __m256i one, __m256i& pv, __m256i& mv,
                                               __m256i& d) {
  const __m256i ones = _mm256_set1_epi32(-1);
  const __m256i xv = _mm256_or_si256(e, mv);
  const __m256i sum = add<W>(_mm256_and_si256(e, pv), pv);
  const __m256i xh = _mm256_or_si256(_mm256_xor_si256(sum, pv), e);
  const __m256i ph = _mm256_or_si256(mv, _mm256_andnot_si256(_mm256_or_si256(xh, pv), ones));
  const __m256i mh = _mm256_and_si256(pv, xh);
  // The compare gives -1 in a lane whose bit m - 1 is set.
  d = add<W>(sub<W>(d, same<W>(_mm256_and_si256(ph, hib), hib)), same<W>(_mm256_and_si256(mh, hib), hib));
  const __m256i ph1 = _mm256_or_si256(add<W>(ph, ph), one), mh1 = add<W>(mh, mh);
  pv = _mm256_or_si256(mh1, _mm256_andnot_si256(_mm256_or_si256(xv, ph1), ones));
  mv = _mm256_and_si256(ph1, xv);
}

/// Peq bytes (W/8 of them) of every byte of row x, in the lane layout.
template <int W, int NG>
[[gnu::always_inline]] inline void lookup_lanes(__m256i x, const nibble_tables* nt, int ng, __m256i out[regs<W>]) {
  __m256i acc[regs<W>];
  lookup<NG, regs<W>>(x, nt, ng, acc);
  to_lanes<W>(acc, out);
}

/// 32 requests; false (nothing done) when one lies too close to the text's start for its
/// 16-byte loads.
template <int W, int NG, class Req>
bool starts32(const compiled_pattern& p, const unsigned char* text, std::uint64_t lo, Req* rq,
              const nibble_tables* nt, int ng) {
  constexpr int R = regs<W>;
  // The requests in qwords, 4 per register, and what the DP needs of them: the columns to run,
  // n = min(m + score, j + 1 - lo) <= 2m <= 64, and the score, as bytes in position order.
  __m256i j[8], sc[8], n[8];
  __m256i maxn = _mm256_setzero_si256(), minj = _mm256_set1_epi64x(std::numeric_limits<long long>::max());
  const __m256i vm64 = _mm256_set1_epi64x(static_cast<long long>(p.m)), one64 = _mm256_set1_epi64x(1);
  const __m256i lo1 = _mm256_set1_epi64x(static_cast<long long>(lo) - 1);
  alignas(32) std::uint64_t js[32];
  for (int r = 0; r < 8; ++r) {
    load4(rq + 4 * r, j[r], sc[r]);
    _mm256_store_si256(reinterpret_cast<__m256i*>(js + 4 * r), j[r]);
    const __m256i a = _mm256_add_epi64(sc[r], vm64), b = _mm256_sub_epi64(j[r], lo1);
    n[r] = min64(a, b);
    maxn = max64(maxn, n[r]);
    minj = min64(minj, j[r]);
  }
  const std::uint64_t steps = reduce64<true>(maxn), min_j = reduce64<false>(minj);
  const std::uint64_t blocks = (steps + 15) / 16;
  // Block b reads the 16 bytes ending 16b before j: none may begin before the text.
  if (min_j + 1 < 16 * blocks) return false;
  __m256i vwant[R], vlen[R], pv[R], mv[R], d[R], best[R];
  bytes_to_lanes<W>(pack_bytes(sc), vwant);
  bytes_to_lanes<W>(pack_bytes(n), vlen);
  const __m256i none = _mm256_set1_epi32(-1), vm = splat<W>(static_cast<std::uint32_t>(p.m));
  for (int r = 0; r < R; ++r) {
    pv[r] = none;
    mv[r] = _mm256_setzero_si256();
    d[r] = vm;
    best[r] = _mm256_andnot_si256(same<W>(vwant[r], vm), none);  // score == m: column 0 (best 0)
  }
  const __m256i hib = splat<W>(std::uint32_t{1} << (p.m - 1)), one = splat<W>(1);
  for (std::uint64_t b = 0; b < blocks; ++b) {
    __m256i a[16], rows[16];
    // Offsets j - 15 - 16b >= 0 (checked above): no pointer before the text is formed.
    const std::uint64_t back = 15 + 16 * b;
    for (int i = 0; i < 16; ++i) {  // position i (low half) and 16 + i (high half)
      const __m128i x = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(text + (js[request_at[static_cast<std::size_t>(i)]] - back)));
      const __m128i y = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(text + (js[request_at[static_cast<std::size_t>(i + 16)]] - back)));
      a[i] = _mm256_inserti128_si256(_mm256_castsi128_si256(x), y, 1);
    }
    transpose16(a, rows);
    // Row u holds text[j - 16b - 15 + u] of every request: column l = 16b + 16 - u.
    for (int u = 15; u >= 0; --u) {
      const auto col = static_cast<std::uint32_t>(16 * b + 16 - static_cast<std::uint64_t>(u));
      if (col > steps) break;
      __m256i e[R];
      lookup_lanes<W, NG>(rows[u], nt, ng, e);
      const __m256i lv = splat<W>(col);
      for (int r = 0; r < R; ++r) {
        global_step<W>(e[r], hib, one, pv[r], mv[r], d[r]);
        // col <= len and d == want: the longest such column so far.
        const __m256i hit = _mm256_andnot_si256(greater<W>(lv, vlen[r]), same<W>(d[r], vwant[r]));
        best[r] = _mm256_blendv_epi8(best[r], lv, hit);
      }
    }
  }
  // The columns back in qwords: start = j + 1 - column ("none", 0xFF, cannot happen when score
  // == score_j; it gives j + 1); an exact occurrence has exactly m bytes.
  __m256i z = lanes_to_bytes<W>(best);
  z = _mm256_andnot_si256(_mm256_cmpeq_epi8(z, _mm256_set1_epi8(-1)), z);
  alignas(32) std::uint64_t st[32];
  auto out = [&]<int Q>() {
    const __m256i used = _mm256_blendv_epi8(unpack_bytes<Q>(z), vm64, _mm256_cmpeq_epi64(sc[Q], _mm256_setzero_si256()));
    _mm256_store_si256(reinterpret_cast<__m256i*>(st + 4 * Q), _mm256_sub_epi64(_mm256_add_epi64(j[Q], one64), used));
  };
  [&]<int... Q>(std::integer_sequence<int, Q...>) { (out.template operator()<Q>(), ...); }(
      std::make_integer_sequence<int, 8>{});
  for (int i = 0; i < 32; ++i) F::set(rq[i], st[i]);
  return true;
}

template <int W, int NG, class Req>
void starts_all(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<Req> reqs,
                const nibble_tables* nt, int ng) {
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  for (std::size_t first = 0; first < reqs.size(); first += 32) {
    const std::size_t g = std::min<std::size_t>(32, reqs.size() - first);
    Req* rq = reqs.data() + first;
    bool done;
    if (g == 32) {
      done = starts32<W, NG>(p, text, lo, rq, nt, ng);
    } else {  // the last group: a copy padded with copies of its first request
      Req pad[32];
      for (std::size_t i = 0; i < 32; ++i) pad[i] = rq[i < g ? i : 0];
      done = starts32<W, NG>(p, text, lo, pad, nt, ng);
      if (done)
        for (std::size_t i = 0; i < g; ++i) rq[i] = pad[i];
    }
    if (!done)
      for (std::size_t i = 0; i < g; ++i) F::set(rq[i], leftmost_start(p, seq, F::j(rq[i]), F::score(rq[i]), lo));
  }
}

template <class Req>
void starts_avx2(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<Req> reqs) {
  // One table set per high nibble at which some byte has a non-zero reversed Peq.
  nibble_tables nt[16];
  const int ng = make_nibble_tables([&](int c) { return p.rpeq[static_cast<std::size_t>(c)]; }, nt);
  auto go = [&]<int W>() {
    switch (ng) {
      case 1: return starts_all<W, 1>(p, seq, lo, reqs, nt, ng);
      case 2: return starts_all<W, 2>(p, seq, lo, reqs, nt, ng);
      default: return starts_all<W, 0>(p, seq, lo, reqs, nt, ng);
    }
  };
  // Lanes of 8 bits for m <= 8 (columns and scores stay below 2m + 1 <= 17), 16 for m <= 16.
  if (p.m <= 8) go.template operator()<8>();
  else if (p.m <= 16) go.template operator()<16>();
  else go.template operator()<32>();
}

}  // namespace

void leftmost_starts_avx2(const compiled_pattern& p, std::string_view seq, std::uint64_t lo,
                          std::span<start_request> reqs) {
  starts_avx2(p, seq, lo, reqs);
}

void leftmost_starts_avx2(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<hit> hits) {
  starts_avx2(p, seq, lo, hits);
}

}  // namespace trawl::approx_detail
