// myers_striped_avx2.cpp — the striped kernel (myers_striped_avx512.cpp explains the layout)
// for CPUs with AVX2 but no AVX-512 (AMD Zen 2/3, Intel client cores): one pattern of
// m <= 32 over 64 text stripes, 8-bit lanes (m <= 8: 2 registers of 32), 16-bit lanes
// (m <= 16: 4 registers of 16) or 32-bit lanes (m <= 32: 8 registers of 8). O(steps) vector
// steps for 64 stripes. Two outputs: every end at <= k (all-ends mode), or the runs of
// consecutive ends formed in registers, one record per run (clusters_out, the default mode).
//
// AVX2 has no 16-bit permute, so Peq is looked up one byte at a time with vpshufb: the text
// byte's low nibble indexes a 16-entry table per Peq byte, and its high nibble selects among
// the tables of the high nibbles at which the pattern has any match (2 for upper-case DNA,
// 4 with lower case); a byte whose high nibble has no table gets Peq = 0.
//
// Text: every 8 steps 8 bytes of each stripe (plain loads); the 64 x 8 bytes are transposed into 8 rows
// per half (stripes 0-31, 32-63) in which word q holds the bytes of two stripes.
// Compiled with -mavx2; called only after a CPU check.
#include <immintrin.h>

#include <array>
#include <type_traits>

#include "approx/approx_internal.hpp"
#include "approx/striped_avx2.hpp"

namespace trawl::approx_detail {
namespace {

using namespace striped256;

constexpr int lanes_per_reg(int w) { return 256 / w; }
constexpr int regs(int w) { return 64 / lanes_per_reg(w); }  // 2, 4 or 8 for 64 stripes

/// Transposes 8 gathered registers (register i, qword j: 8 bytes of stripe 4i + j of this
/// half) into 8 rows: word q = 8c + w of row u holds byte u of stripe 4w + 2c (low half) and
/// of stripe 4w + 2c + 1 (high half).
[[gnu::always_inline]] inline void transpose8(const __m256i g[8], __m256i r[8]) {
  const __m256i inter = _mm256_setr_epi8(0, 8, 1, 9, 2, 10, 3, 11, 4, 12, 5, 13, 6, 14, 7, 15, 0, 8, 1, 9, 2, 10,
                                         3, 11, 4, 12, 5, 13, 6, 14, 7, 15);
  __m256i s[8];
  for (int i = 0; i < 8; ++i) s[i] = _mm256_shuffle_epi8(g[i], inter);
  __m256i a[4], b[4];
  for (int p = 0; p < 4; ++p) {
    a[p] = _mm256_unpacklo_epi16(s[2 * p], s[2 * p + 1]);
    b[p] = _mm256_unpackhi_epi16(s[2 * p], s[2 * p + 1]);
  }
  const __m256i c0 = _mm256_unpacklo_epi32(a[0], a[1]), c1 = _mm256_unpackhi_epi32(a[0], a[1]);
  const __m256i c2 = _mm256_unpacklo_epi32(a[2], a[3]), c3 = _mm256_unpackhi_epi32(a[2], a[3]);
  const __m256i c4 = _mm256_unpacklo_epi32(b[0], b[1]), c5 = _mm256_unpackhi_epi32(b[0], b[1]);
  const __m256i c6 = _mm256_unpacklo_epi32(b[2], b[3]), c7 = _mm256_unpackhi_epi32(b[2], b[3]);
  r[0] = _mm256_unpacklo_epi64(c0, c2);
  r[1] = _mm256_unpackhi_epi64(c0, c2);
  r[2] = _mm256_unpacklo_epi64(c1, c3);
  r[3] = _mm256_unpackhi_epi64(c1, c3);
  r[4] = _mm256_unpacklo_epi64(c4, c6);
  r[5] = _mm256_unpackhi_epi64(c4, c6);
  r[6] = _mm256_unpacklo_epi64(c5, c7);
  r[7] = _mm256_unpackhi_epi64(c5, c7);
}

/// Stripe of the low byte of word q of a row of half h.
constexpr std::uint32_t stripe_of_word(int h, std::uint32_t q) {
  return 32 * static_cast<std::uint32_t>(h) + 4 * (q % 8) + 2 * (q / 8);
}

template <int W>
struct state {
  __m256i pv[regs(W)], mv[regs(W)], sc[regs(W)];
};

template <int W>
[[gnu::always_inline]] inline __m256i top_bit(__m256i a) {  // a >> (W - 1), per lane
  if constexpr (W == 16) return _mm256_srli_epi16(a, 15);
  else return _mm256_srli_epi32(a, 31);
}
template <int W>
[[gnu::always_inline]] inline __m256i shl1(__m256i a) {
  if constexpr (W == 8) return _mm256_add_epi8(a, a);  // no byte shifts in AVX2
  else if constexpr (W == 16) return _mm256_slli_epi16(a, 1);
  else return _mm256_slli_epi32(a, 1);
}

/// One Myers step (myers_word.cpp spells out every line) on W-bit lanes.
template <int W>
[[gnu::always_inline]] inline void step(__m256i eq, __m256i& pv, __m256i& mv, __m256i& score) {
  const __m256i ones = _mm256_set1_epi32(-1);
  const __m256i xv = _mm256_or_si256(eq, mv);
  const __m256i sum = add<W>(_mm256_and_si256(eq, pv), pv);
  const __m256i xh = _mm256_or_si256(_mm256_xor_si256(sum, pv), eq);
  __m256i ph = _mm256_or_si256(mv, _mm256_andnot_si256(_mm256_or_si256(xh, pv), ones));
  __m256i mh = _mm256_and_si256(pv, xh);
  if constexpr (W == 8) {  // the sign bits as -1 / 0 bytes
    const __m256i z = _mm256_setzero_si256();
    score = add<8>(sub<8>(score, _mm256_cmpgt_epi8(z, ph)), _mm256_cmpgt_epi8(z, mh));
  } else {
    score = sub<W>(add<W>(score, top_bit<W>(ph)), top_bit<W>(mh));
  }
  ph = shl1<W>(ph);
  mh = shl1<W>(mh);
  pv = _mm256_or_si256(mh, _mm256_andnot_si256(_mm256_or_si256(xv, ph), ones));
  mv = _mm256_and_si256(ph, xv);
}

/// One step for the 32 stripes of one half on row x; registers [first, first + regs/2).
/// W = 8: register h is the row itself (byte 2q + i: stripe A(q) + i). W = 16: register 2h =
/// "a" words (low bytes), 2h+1 = "b" (high bytes). W = 32: 4h + 0/1 = "a" lanes from words
/// 0-3 / 4-7 of each chunk, 4h + 2/3 the same for "b".
template <int W, int NG>
[[gnu::always_inline]] inline void step_half(__m256i x, int h, const nibble_tables* nt, int ng, state<W>& st) {
  constexpr int NB = W / 8;
  __m256i acc[NB];
  lookup<NG, NB>(x, nt, ng, acc);
  if constexpr (W == 8) {
    step<8>(acc[0], st.pv[h], st.mv[h], st.sc[h]);
    return;
  }
  const __m256i lowbyte = _mm256_set1_epi16(0x00FF);
  const __m256i highbyte = _mm256_set1_epi16(static_cast<short>(0xFF00));
  // a: Peq byte b of stripe "a" sits in the low byte of each word of acc[b]; b: in the high byte.
  const __m256i a01 = _mm256_or_si256(_mm256_and_si256(acc[0], lowbyte), _mm256_slli_epi16(acc[1], 8));
  const __m256i b01 = _mm256_or_si256(_mm256_srli_epi16(acc[0], 8), _mm256_and_si256(acc[1], highbyte));
  if constexpr (W == 16) {
    step<16>(a01, st.pv[2 * h], st.mv[2 * h], st.sc[2 * h]);
    step<16>(b01, st.pv[2 * h + 1], st.mv[2 * h + 1], st.sc[2 * h + 1]);
  } else {
    const __m256i a23 = _mm256_or_si256(_mm256_and_si256(acc[2], lowbyte), _mm256_slli_epi16(acc[3], 8));
    const __m256i b23 = _mm256_or_si256(_mm256_srli_epi16(acc[2], 8), _mm256_and_si256(acc[3], highbyte));
    step<32>(_mm256_unpacklo_epi16(a01, a23), st.pv[4 * h], st.mv[4 * h], st.sc[4 * h]);
    step<32>(_mm256_unpackhi_epi16(a01, a23), st.pv[4 * h + 1], st.mv[4 * h + 1], st.sc[4 * h + 1]);
    step<32>(_mm256_unpacklo_epi16(b01, b23), st.pv[4 * h + 2], st.mv[4 * h + 2], st.sc[4 * h + 2]);
    step<32>(_mm256_unpackhi_epi16(b01, b23), st.pv[4 * h + 3], st.mv[4 * h + 3], st.sc[4 * h + 3]);
  }
}

/// Stripe of lane l of register r.
template <int W>
constexpr std::uint32_t stripe_of_lane(int r, std::uint32_t l) {
  if constexpr (W == 8) {
    return stripe_of_word(r, l / 2) + l % 2;
  } else if constexpr (W == 16) {
    return stripe_of_word(r / 2, l) + static_cast<std::uint32_t>(r % 2);
  } else {
    // unpacklo/hi_epi16: dword d of chunk c = word 8c + d (lo) or 8c + 4 + d (hi)
    const int h = r / 4, k = r % 4;
    const std::uint32_t c = l / 4, d = l % 4;
    const std::uint32_t q = 8 * c + d + ((k & 1) ? 4u : 0u);
    return stripe_of_word(h, q) + ((k & 2) ? 1u : 0u);
  }
}

template <int W>
[[gnu::always_inline]] inline __m256i min_score(__m256i a, __m256i b) {
  if constexpr (W == 8) return _mm256_min_epu8(a, b);
  else if constexpr (W == 16) return _mm256_min_epu16(a, b);
  else return _mm256_min_epu32(a, b);
}

/// Lanes with all bits set in the compare result v, one bit per lane.
template <int W>
[[gnu::always_inline]] inline std::uint32_t lane_bits(__m256i v) {
  if constexpr (W == 8) return static_cast<std::uint32_t>(_mm256_movemask_epi8(v));
  else if constexpr (W == 16) {
    // Words to bytes (each 128-bit half packed with itself): no pext, which is microcoded on
    // Zen 1/2 and needs BMI2.
    const auto b = static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_packs_epi16(v, v)));
    return (b & 0xFFu) | ((b >> 8) & 0xFF00u);
  }
  else return static_cast<std::uint32_t>(_mm256_movemask_ps(_mm256_castsi256_ps(v)));
}
/// Lanes of register `sc` with score <= kk, one bit per lane.
template <int W>
[[gnu::always_inline]] inline std::uint32_t at_most(__m256i sc, __m256i kk) {
  return lane_bits<W>(same<W>(min_score<W>(sc, kk), sc));
}

struct context {
  const nibble_tables* nt;
  int ng;
  std::size_t warm, stride;
  std::uint64_t pos0;
  std::uint32_t d;
  const std::uint32_t* stripe;  ///< [register][lane]
  std::vector<lane_hit>* hits;
};

template <int W>
[[gnu::noinline]] void report(__m256i score, std::uint32_t mask, std::size_t t, const std::uint32_t* stripe,
                              const context& c) {
  alignas(32) std::uint8_t s8[32];
  alignas(32) std::uint16_t s16[16];
  alignas(32) std::uint32_t s32[8];
  if constexpr (W == 8)
    _mm256_store_si256(reinterpret_cast<__m256i*>(s8), score);
  else if constexpr (W == 16)
    _mm256_store_si256(reinterpret_cast<__m256i*>(s16), score);
  else
    _mm256_store_si256(reinterpret_cast<__m256i*>(s32), score);
  while (mask) {
    const auto l = static_cast<std::uint32_t>(__builtin_ctz(mask));
    mask &= mask - 1;
    const std::uint32_t s = W == 8 ? s8[l] : W == 16 ? s16[l] : s32[l];
    c.hits->push_back({c.pos0 + stripe[l] * c.stride + t, s - c.d, stripe[l]});
  }
}

template <int W, int NG>
[[gnu::noinline]] void checked_steps(state<W>& st, const __m256i* rows0, const __m256i* rows1, std::size_t t,
                                     std::size_t count, __m256i kk, const context& c) {
  constexpr int R = regs(W), L = lanes_per_reg(W);
  for (std::size_t u = 0; u < count; ++u) {
    step_half<W, NG>(rows0[u], 0, c.nt, c.ng, st);
    step_half<W, NG>(rows1[u], 1, c.nt, c.ng, st);
    if (t + u < c.warm) continue;
    for (int r = 0; r < R; ++r)
      if (const std::uint32_t m = at_most<W>(st.sc[r], kk)) report<W>(st.sc[r], m, t + u, c.stripe + r * L, c);
  }
}

/// Output of the all-ends kernel: a checked block runs out of line (checked_steps) on a copy
/// of the state, so the hot loop keeps its state in registers.
template <int W, int NG>
struct ends_out {
  context c;
  __m256i kk;
  /// Steps rows [0, count) from st with every lane checked; true when some lane was at <= k.
  bool checked(state<W>& st, const __m256i* rows0, const __m256i* rows1, std::size_t t, std::size_t count) {
    state<W> cur = st;  // a copy: the hot loop's state never has its address taken
    const std::size_t before = c.hits->size();
    checked_steps<W, NG>(cur, rows0, rows1, t, count, kk, c);
    st = cur;
    return c.hits->size() != before;
  }
  void finish(std::size_t) {}
};

/// Output of the cluster kernel (the default report mode): per lane the run of consecutive
/// steps at <= k is followed in registers (its best score so far and that score's leftmost
/// step, `at`; best is reset to the maximum when the run ends). The step that ends runs logs
/// their lanes with those registers, and after each checked block the log is written out as
/// records (a call per block: a call per step would spill the state every step). The records
/// are those of myers_striped_clusters_avx512: first = warm for a stripe's first run that began
/// at step warm (the planner joins it to the previous stripe's last run), else its best step;
/// last = its true last step.
template <int W, int NG>
struct clusters_out {
  static constexpr int R = regs(W), L = lanes_per_reg(W);
  /// `at` (16-bit steps) registers per score register: bytes widen to two.
  static constexpr int A = W == 8 ? 2 : 1;
  /// The log: one entry per step of a block with runs that ended, and the open runs at the end;
  /// mask bit r·L + l = lane l of register r (all 64 stripes in one word, so writing it out
  /// takes one loop per step, not one per register).
  struct entry {
    __m256i best[R], at[R * A];
    std::uint64_t mask;
    std::uint32_t last;
  };
  static constexpr int cap = 9;
  const nibble_tables* nt;
  int ng;
  __m256i kk;
  std::uint32_t d, warm;
  const std::uint32_t* stripe;  ///< [register][lane]
  striped_clusters* out;
  __m256i best[R], at[R * A], open[R];
  std::uint64_t began = 0;  ///< lanes at <= k at step warm
  entry log[cap];
  int n = 0;

  /// Logs the lanes in `mask` whose runs' last step is `last`, with every register's best and
  /// at; an entry with no lanes is written and not kept (cheaper than a branch either way).
  [[gnu::always_inline]] void log_runs(std::uint64_t mask, std::size_t last) {
    entry& e = log[n];
    for (int r = 0; r < R; ++r) e.best[r] = best[r];
    for (int a = 0; a < R * A; ++a) e.at[a] = at[a];
    e.mask = mask;
    e.last = static_cast<std::uint32_t>(last);
    n += mask != 0 ? 1 : 0;
  }
  /// Writes the logged runs as records, in log order (per lane, step order). Lane values are
  /// read straight from the log's registers in memory (stored steps before: a copy to a local
  /// array would make each read wait for a store-to-load forward from a vector store).
  /// noipa, not just noinline: as with the AVX-512 kernel's log writer, GCC 12 can drop the
  /// caller's stores into the log before the call (myers_striped_avx512.cpp).
  [[gnu::noipa]] void write_log() {
    striped_cluster* const recs = out->recs.data();
    using score_t = std::conditional_t<W == 8, std::uint8_t, std::conditional_t<W == 16, std::uint16_t, std::uint32_t>>;
    using step_t = std::conditional_t<W == 32, std::uint32_t, std::uint16_t>;
    auto lane = [](const auto* base, std::uint32_t i) {
      using T = std::remove_cvref_t<decltype(*base)>;
      T v;
      __builtin_memcpy(&v, base + i, sizeof v);
      return static_cast<std::uint32_t>(v);
    };
    for (int i = 0; i < n; ++i) {
      const entry& e = log[i];
      const auto* b = reinterpret_cast<const score_t*>(&e.best[0]);
      const auto* a = reinterpret_cast<const step_t*>(&e.at[0]);
      for (std::uint64_t m = e.mask; m; m &= m - 1) {
        const auto l = static_cast<std::uint32_t>(__builtin_ctzll(m));
        // W = 8: byte l of register r = l / 32 was widened into at[2r] (bytes 0-7, 16-23) and
        // at[2r + 1] (8-15, 24-31), 16 words each.
        const std::uint32_t step =
            lane(a, W == 8 ? (l & ~31u) + (l & 8 ? 16 : 0) + (l & 7) + (l & 16 ? 8 : 0) : l);
        const std::uint32_t s = stripe[l];
        const std::uint32_t c = out->count[s];
        const bool joinable = c == 0 && (began >> l & 1) != 0;
        recs[s * out->cap + c] = {static_cast<std::uint16_t>(joinable ? warm : step), static_cast<std::uint16_t>(e.last),
                                  static_cast<std::uint16_t>(step), static_cast<std::uint16_t>(lane(b, l) - d)};
        out->count[s] = c + 1;
      }
    }
    n = 0;
  }
  /// After step t: follows the runs of register r; returns its lanes at <= k (compare mask) and
  /// sets `closed` to the lanes whose runs ended at step t - 1.
  [[gnu::always_inline]] __m256i track(int r, __m256i sc, __m256i tv, std::size_t t, __m256i& closed) {
    const __m256i h = same<W>(min_score<W>(sc, kk), sc);  // the compare of at_most, kept as a vector
    // Strictly smaller: the leftmost end wins ties. A new run starts from best = maximum.
    const __m256i better = _mm256_andnot_si256(same<W>(min_score<W>(best[r], sc), best[r]), h);
    closed = _mm256_andnot_si256(h, open[r]);
    best[r] = _mm256_blendv_epi8(best[r], sc, better);
    if constexpr (W == 8) {
      at[2 * r] = _mm256_blendv_epi8(at[2 * r], tv, _mm256_unpacklo_epi8(better, better));
      at[2 * r + 1] = _mm256_blendv_epi8(at[2 * r + 1], tv, _mm256_unpackhi_epi8(better, better));
    } else {
      at[r] = _mm256_blendv_epi8(at[r], tv, better);
    }
    if (t == warm) began |= std::uint64_t{lane_bits<W>(h)} << (r * L);
    open[r] = h;
    return h;
  }
  [[gnu::always_inline]] bool checked(state<W>& st, const __m256i* rows0, const __m256i* rows1, std::size_t t,
                                      std::size_t count) {
    __m256i any = _mm256_setzero_si256();
    for (std::size_t u = 0; u < count; ++u) {
      step_half<W, NG>(rows0[u], 0, nt, ng, st);
      step_half<W, NG>(rows1[u], 1, nt, ng, st);
      if (t + u < warm) continue;
      const __m256i tv = W == 8 ? _mm256_set1_epi16(static_cast<short>(t + u)) : splat<W>(static_cast<std::uint32_t>(t + u));
      // The runs that ended go to the log with best and at as they were (a lane that is above
      // k now kept them), then their best is reset to the maximum.
      __m256i closed[R];
      std::uint64_t mask = 0;
      for (int r = 0; r < R; ++r) {
        any = _mm256_or_si256(any, track(r, st.sc[r], tv, t + u, closed[r]));
        mask |= std::uint64_t{lane_bits<W>(closed[r])} << (r * L);
      }
      log_runs(mask, t + u - 1);
      for (int r = 0; r < R; ++r) best[r] = _mm256_or_si256(best[r], closed[r]);
    }
    if (n != 0) write_log();
    return !_mm256_testz_si256(any, any);
  }
  /// Writes the runs still open after the last step. (A block checked only by its minimum
  /// never has open runs: it follows a checked block without hits, whose first step closed them.)
  void finish(std::size_t steps) {
    std::uint64_t mask = 0;
    for (int r = 0; r < R; ++r) mask |= std::uint64_t{lane_bits<W>(open[r])} << (r * L);
    log_runs(mask, steps - 1);
    if (n != 0) write_log();
  }
};

/// Runs the kernel over 64 stripes, handing blocks with a lane at <= k to out.checked.
template <int W, int NG, class Out>
void run(const striped_pattern& sp, const nibble_tables* nt, int ng, const unsigned char* text0, std::size_t stride,
         std::size_t steps, Out& out) {
  constexpr int R = regs(W);
  state<W> st;
  const __m256i kk = splat<W>(sp.kk);
  for (int r = 0; r < R; ++r) {
    st.pv[r] = _mm256_set1_epi32(-1);
    st.mv[r] = _mm256_setzero_si256();
    st.sc[r] = splat<W>(W);
  }
  alignas(32) std::int64_t offs[64];
  for (std::size_t i = 0; i < 64; ++i) offs[i] = static_cast<std::int64_t>(i * stride);
  constexpr std::size_t ahead = 512;  // one prefetch per stripe per 64 bytes (see the AVX-512 kernel)
  std::size_t pf = 0, t = 0;
  bool dense = false;
  __m256i g[16], rows0[8], rows1[8];
  // Plain 8-byte loads: cheaper than gathers on the CPUs this kernel is for (Zen's gathers
  // are slow, Intel's are slowed by the gather microcode fix).
  auto gather = [&](std::size_t at) {
    const unsigned char* at_t = text0 + at;
    for (int i = 0; i < 16; ++i) {
      auto word = [&](int q) {
        std::uint64_t w;
        __builtin_memcpy(&w, at_t + offs[4 * i + q], 8);
        return static_cast<long long>(w);
      };
      g[i] = _mm256_set_epi64x(word(3), word(2), word(1), word(0));
    }
  };
  for (; t + 8 <= steps; t += 8) {
    for (std::size_t s = pf; s < pf + 8; ++s)
      _mm_prefetch(reinterpret_cast<const char*>(text0 + static_cast<std::size_t>(offs[s]) + t + ahead), _MM_HINT_T0);
    pf = (pf + 8) & 63;
    gather(t);
    transpose8(g, rows0);
    transpose8(g + 8, rows1);
    if (dense) [[unlikely]] {  // the last block had hits: check every step of this one at once
      dense = out.checked(st, rows0, rows1, t, 8);
      continue;
    }
    // The fast path checks once per 8 steps, on the minimum score of each lane; a block in
    // which some lane got to <= k is run again from its saved state with every step checked.
    const state<W> saved = st;
    __m256i mn[R];
    for (int r = 0; r < R; ++r) mn[r] = st.sc[r];
    for (std::size_t u = 0; u < 8; ++u) {
      step_half<W, NG>(rows0[u], 0, nt, ng, st);
      step_half<W, NG>(rows1[u], 1, nt, ng, st);
      for (int r = 0; r < R; ++r) mn[r] = min_score<W>(mn[r], st.sc[r]);
    }
    std::uint32_t any = 0;
    for (int r = 0; r < R; ++r) any |= at_most<W>(mn[r], kk);
    if (any != 0) [[unlikely]] {
      st = saved;
      dense = out.checked(st, rows0, rows1, t, 8);
    }
  }
  if (t < steps) {  // the last < 8 bytes of each stripe, never read past it
    alignas(32) std::uint64_t tail[64];
    for (std::size_t s = 0; s < 64; ++s) {
      std::uint64_t w = 0;
      __builtin_memcpy(&w, text0 + s * stride + t, steps - t);
      tail[s] = w;
    }
    for (int i = 0; i < 16; ++i) g[i] = _mm256_load_si256(reinterpret_cast<const __m256i*>(tail + 4 * i));
    transpose8(g, rows0);
    transpose8(g + 8, rows1);
    out.checked(st, rows0, rows1, t, steps - t);
  }
  out.finish(steps);
}

/// Where each register lane's stripe is: [register][lane].
template <int W>
const std::uint32_t* stripe_table() {
  static const std::array<std::uint32_t, 64> table = [] {
    std::array<std::uint32_t, 64> s{};
    for (int r = 0; r < regs(W); ++r)
      for (int l = 0; l < lanes_per_reg(W); ++l)
        s[static_cast<std::size_t>(r * lanes_per_reg(W) + l)] = stripe_of_lane<W>(r, static_cast<std::uint32_t>(l));
    return s;
  }();
  return table.data();
}

/// The kernel's pattern layout (m <= 8: byte lanes) and Peq tables: one table set per high
/// nibble at which some byte has a non-zero Peq.
struct prepared {
  striped_pattern sp;
  nibble_tables nt[16];
  int ng;
  explicit prepared(const striped_pattern& in)
      : sp(in.width == 16 && in.d >= 8 ? narrow_striped_pattern(in) : in),
        ng(make_nibble_tables([&](int c) { return sp.peq[static_cast<std::size_t>(c)]; }, nt)) {}
  /// Calls f.template operator()<W, NG>() for this pattern's lane width and table count.
  template <class F>
  void dispatch(F&& f) const {
    auto go = [&]<int W>() {
      switch (ng) {
        case 1: return f.template operator()<W, 1>();
        case 2: return f.template operator()<W, 2>();
        case 4: return f.template operator()<W, 4>();
        default: return f.template operator()<W, 0>();
      }
    };
    if (sp.width == 8) go.template operator()<8>();
    else if (sp.width == 16) go.template operator()<16>();
    else go.template operator()<32>();
  }
};

}  // namespace

bool myers_striped_avx2(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
                        std::size_t warm, std::uint64_t pos0, bool /*text_in_quarter1*/, std::vector<lane_hit>& hits) {
  const prepared pp(sp);
  pp.dispatch([&]<int W, int NG>() {
    ends_out<W, NG> out{{pp.nt, pp.ng, warm, stride, pos0, pp.sp.d, stripe_table<W>(), &hits}, splat<W>(pp.sp.kk)};
    run<W, NG>(pp.sp, pp.nt, pp.ng, text0, stride, steps, out);
  });
  return true;  // always masked: every byte is looked up by its own high nibble
}

bool myers_striped_clusters_avx2(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                 std::size_t steps, std::size_t warm, bool /*text_in_quarter1*/,
                                 striped_clusters& res) {
  // Runs are separated by at least one step above k: at most (steps - warm + 1) / 2 per stripe.
  res.cap = (steps - warm) / 2 + 1;
  if (res.recs.size() < 64 * res.cap) res.recs.resize(64 * res.cap);
  res.count.fill(0);
  const prepared pp(sp);
  pp.dispatch([&]<int W, int NG>() {
    clusters_out<W, NG> out{pp.nt, pp.ng, splat<W>(pp.sp.kk), pp.sp.d, static_cast<std::uint32_t>(warm),
                            stripe_table<W>(), &res, {}, {}, {}, 0, {}, 0};
    for (auto& b : out.best) b = _mm256_set1_epi32(-1);
    for (auto& a : out.at) a = _mm256_setzero_si256();
    for (auto& o : out.open) o = _mm256_setzero_si256();
    run<W, NG>(pp.sp, pp.nt, pp.ng, text0, stride, steps, out);
  });
  return true;
}

}  // namespace trawl::approx_detail
