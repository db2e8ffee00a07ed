// myers_striped_avx512.cpp — one pattern of m <= 32 over 64 text stripes at once, in the
// 8-bit (m <= 8: the 64 bytes of one register), 16-bit (m <= 16: 2 registers of 32 lanes) or
// 32-bit (m <= 32: 4 registers of 16 lanes) lanes of AVX-512BW registers. O(steps) vector
// steps for 64 stripes.
//
// Why it is fast where the 64-bit lanes kernel (myers_lanes_avx512.cpp) is not: Peq comes
// from a register-resident table by vpermi2w (64 entries of 16 bits per instruction) instead
// of a gather per step, and narrow lanes put 2-4x more text bytes into every instruction.
//
// Text: every 8 steps one 8-byte load per stripe (plain loads: a gather costs more, and more
// still under the gather microcode fix), 8 stripes per register; a byte-shuffle
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
// Output: every end at <= k (all-ends mode, reported by an out-of-line checked path), or for
// the default mode the runs of consecutive ends, followed in registers and written one record
// per run (clusters_out): dense outputs then cost a few vector operations per step, not a
// report per end.
//
// Compiled with -mavx512*; called only through the dispatch table (common/dispatch.hpp), which
// picks the Vbmi instantiation from the features of the table's level.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC bug 105593 inside the intrinsics headers
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include <array>
#include <atomic>
#include <cstddef>

#include "approx/approx_internal.hpp"
#include "approx/striped_avx512.hpp"

namespace trawl::approx_detail {
namespace {

using namespace striped512;

/// One Myers step (myers_word.cpp spells out every line) on W-bit lanes; the pattern's last
/// row is the lane's sign bit (W = 8: no byte shift, so the sign bits are read as masks).
template <int W>
[[gnu::always_inline]] inline void step(__m512i eq, __m512i& pv, __m512i& mv, __m512i& score) {
  __m512i xv, ph, mh;
  myers_horizontal<W>(eq, pv, mv, xv, ph, mh);
  if constexpr (W == 8) {
    const __m512i one = _mm512_set1_epi8(1);
    score = _mm512_mask_add_epi8(score, _mm512_movepi8_mask(ph), score, one);
    score = _mm512_mask_sub_epi8(score, _mm512_movepi8_mask(mh), score, one);
  } else {
    score = sub<W>(add<W>(score, top_bit<W>(ph)), top_bit<W>(mh));
  }
  myers_vertical(xv, shl1<W>(ph), shl1<W>(mh), pv, mv);
}

/// Myers state of the R registers of 64 stripes.
template <int W>
struct striped_state {
  __m512i pv[regs<W>], mv[regs<W>], sc[regs<W>];
};

/// The lane width the outputs see: the byte DP's scores are widened to 16-bit lanes in the
/// 16-bit kernel's layout (so its stripe table, ends and runs code serve both).
template <int W>
constexpr int out_width = W == 8 ? 16 : W;

/// The scores of st as the outputs read them (W = 8: unpacked into the a / b words; V: the
/// byte lanes are in row order, see step_all).
template <int W, bool V>
[[gnu::always_inline]] inline const striped_state<out_width<W>>& scores_view(const striped_state<W>& st,
                                                                               striped_state<16>& tmp) {
  if constexpr (W == 8 && V) {  // byte 2q: stripe A(q) ("a"), byte 2q + 1: A(q) + 1 ("b")
    tmp.sc[0] = _mm512_and_si512(st.sc[0], _mm512_set1_epi16(0xFF));
    tmp.sc[1] = _mm512_srli_epi16(st.sc[0], 8);
    return tmp;
  } else if constexpr (W == 8) {
    // packus_epi16(a, b) put a's words 8c..8c+7 in bytes 16c..16c+7 and b's in 16c+8..16c+15.
    tmp.sc[0] = _mm512_unpacklo_epi8(st.sc[0], _mm512_setzero_si512());
    tmp.sc[1] = _mm512_unpackhi_epi8(st.sc[0], _mm512_setzero_si512());
    return tmp;
  } else {
    return st;
  }
}

/// One step for all 64 stripes on transposed row x. V (W = 8 on CPUs with AVX512_VBMI): Peq
/// by one vpermb on the row's bytes, so byte lane l is the stripe of row byte l
/// (stripe_of_byte), instead of two 16-bit lookups packed to bytes.
template <int W, unsigned Q, bool Masked, bool V>
[[gnu::always_inline]] inline void step_all(__m512i x, const quarter_tables* qt, striped_state<W>& st) {
  if constexpr (V) {
    static_assert(W == 8);
    step<8>(lookup8<Q, Masked>(x, qt), st.pv[0], st.mv[0], st.sc[0]);
    return;
  }
  const __m512i xa = x;
  const __m512i xb = _mm512_srli_epi16(x, 8);
  if constexpr (W == 8) {
    // Peq of m <= 8 fits a byte: the a / b words packed into the bytes of one register.
    step<8>(_mm512_packus_epi16(lookup16<Q, Masked>(xa, qt, false), lookup16<Q, Masked>(xb, qt, false)), st.pv[0],
            st.mv[0], st.sc[0]);
  } else if constexpr (W == 16) {
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

/// Where each register lane's stripe is.
template <int W>
using stripe_table = std::array<std::array<std::uint32_t, lanes_per_reg<W>>, regs<W>>;

template <int W>
[[gnu::always_inline]] inline std::uint64_t less(__m512i a, __m512i b) {
  if constexpr (W == 16) return in_register(_cvtmask32_u32(_mm512_cmplt_epu16_mask(a, b)));  // as at_most
  else return in_register(_cvtmask16_u32(_mm512_cmplt_epu32_mask(a, b)));
}
template <int W>
[[gnu::always_inline]] inline __m512i blend(__m512i a, std::uint64_t m, __m512i b) {  // m ? b : a
  if constexpr (W == 16) return _mm512_mask_mov_epi16(a, static_cast<__mmask32>(m), b);
  else return _mm512_mask_mov_epi32(a, static_cast<__mmask16>(m), b);
}
/// Lane l of v.
template <int W>
struct lanes_of {
  alignas(64) std::conditional_t<W == 16, std::uint16_t, std::uint32_t> v[lanes_per_reg<W>];
  explicit lanes_of(__m512i x) { _mm512_store_si512(v, x); }
};

/// Output of the all-ends kernel: every (step, score <= k) of every stripe, as lane_hits.
template <int W>
struct ends_out {
  static constexpr bool inline_checks = false;
  __m512i kk;
  std::size_t stride;
  std::uint64_t pos0;
  std::uint32_t d;
  const stripe_table<W>* stripe;
  std::vector<lane_hit>* hits;

  struct log_type {};
  /// After step t: reports the lanes at <= k; true when there were any.
  bool on_step(const striped_state<W>& st, std::size_t t, log_type&) {
    bool any = false;
    for (int r = 0; r < regs<W>; ++r)
      if (std::uint64_t m = at_most<W>(st.sc[r], kk)) {
        any = true;
        const lanes_of<W> sc(st.sc[r]);
        const std::uint32_t* s = (*stripe)[static_cast<std::size_t>(r)].data();
        for (; m; m &= m - 1) {
          const auto l = static_cast<std::uint32_t>(__builtin_ctzll(m));
          hits->push_back({pos0 + s[l] * stride + t, sc.v[l] - d, s[l]});
        }
      }
    return any;
  }
  void flush(log_type&) {}
  void finish(std::size_t, log_type&) {}
};

/// Runs that ended in one checked block, kept in memory until the block is done: writing
/// them out calls a function, which would spill every vector register in the hot loop.
template <int W>
struct run_log {
  // Per block and register: at most one entry a step, one at the block's end, two at the end.
  static constexpr int cap = 12 * regs<W>;
  __m512i best[cap], at[cap];
  std::uint64_t mask[cap], began[cap];
  std::uint32_t reg[cap];
  bool to_end[cap];  ///< the runs reach the last step (else they ended before it)
  int n = 0;
};

inline void write_items(const std::uint32_t* val, const std::uint32_t* key, int items, std::uint32_t warm,
                        striped_clusters& out);

/// Writes the logged runs: entry e = the lanes in mask[e] of register reg[e], each with its
/// best score + d and that score's leftmost step (at). Its last step is only needed where it
/// may touch the next stripe's first run, or the slice's end: a run that reaches the last step
/// gets last = last_step, any other last = at (below last_step, which is all the join test
/// and the end flag ask). A stripe's first run that
/// began at step warm gets first = warm (the planner joins it to the previous stripe's last
/// run); any other run gets first = at, which is enough for the join test, as it lies after
/// the previous run's last + 1.
/// The lanes of every entry are first packed into one flat list (vpcompressd, 16 lanes at a
/// time), so the records are then written by one loop without a branch per entry or lane.
/// noipa, not just noinline: GCC 12's interprocedural analysis drops the caller's stores into
/// the log before the call at -O2 (stale runs are written; the tests catch it), so the call
/// stays opaque.
template <int W>
[[gnu::noipa]] void write_runs(run_log<W>& log, const stripe_table<W>& stripe, std::uint32_t warm,
                               std::uint32_t last_step, std::uint32_t d, striped_clusters& out) {
  // Per run: val = at | (score << 16), key = stripe | began-at-warm << 8 | last << 16.
  constexpr int max_items = 64 * 6 + 16;  // a lane ends at most 4 runs per block, +1 at the end
  alignas(64) std::uint32_t val[max_items], key[max_items];
  int items = 0;
  const __m512i vd = _mm512_set1_epi32(static_cast<int>(d));
  auto widen = [](__m512i v, int h) {  // lanes 16h .. 16h + 15 as 32-bit
    if constexpr (W == 16)
      return _mm512_cvtepu16_epi32(h == 0 ? _mm512_castsi512_si256(v) : _mm512_extracti64x4_epi64(v, 1));
    else
      return v;
  };
  for (int e = 0; e < log.n; ++e) {
    const std::uint32_t* s = stripe[log.reg[e]].data();
    for (int h = 0; h < lanes_per_reg<W> / 16; ++h) {
      const auto m = static_cast<__mmask16>(log.mask[e] >> (16 * h));
      const auto began = static_cast<__mmask16>(log.began[e] >> (16 * h));
      const __m512i at32 = widen(log.at[e], h), best32 = widen(log.best[e], h);
      const __m512i last32 = log.to_end[e] ? _mm512_set1_epi32(static_cast<int>(last_step)) : at32;
      const __m512i v = _mm512_or_si512(at32, _mm512_slli_epi32(_mm512_sub_epi32(best32, vd), 16));
      __m512i k = _mm512_or_si512(_mm512_loadu_si512(s + 16 * h), _mm512_slli_epi32(last32, 16));
      k = _mm512_mask_or_epi32(k, began, k, _mm512_set1_epi32(0x100));
      _mm512_storeu_si512(val + items, _mm512_maskz_compress_epi32(m, v));
      _mm512_storeu_si512(key + items, _mm512_maskz_compress_epi32(m, k));
      items += __builtin_popcount(m);
    }
  }
  log.n = 0;
  write_items(val, key, items, warm, out);
}

/// The records of a flat list of runs (write_runs) into their stripes' parts.
inline void write_items(const std::uint32_t* val, const std::uint32_t* key, int items, std::uint32_t warm,
                        striped_clusters& out) {
  striped_cluster* recs = out.recs.data();
  for (int i = 0; i < items; ++i) {
    const std::uint32_t st = key[i] & 0xFF;
    const std::uint32_t n = out.count[st];
    const auto at = static_cast<std::uint16_t>(val[i]);
    const bool joinable = n == 0 && (key[i] & 0x100) != 0;
    recs[st * out.cap + n] = {joinable ? static_cast<std::uint16_t>(warm) : at, static_cast<std::uint16_t>(key[i] >> 16),
                              at, static_cast<std::uint16_t>(val[i] >> 16)};
    out.count[st] = n + 1;
  }
}

/// Output of the cluster kernel: per lane, runs of consecutive steps at <= k are followed in
/// registers (the best score so far and its leftmost step; best is reset to the maximum when
/// a run ends). A run that ends waits in registers too (done: one per lane) and goes to the
/// log at the end of the block, or when a second run of its lane ends first; the log is then
/// written into each stripe's part of a striped_clusters. A run costs a few vector
/// operations per step, whatever its length, and one record. Lives in registers: run() holds
/// it by value and inlines every use.
template <int W>
struct clusters_out {
  static constexpr bool inline_checks = true;
  using log_type = run_log<W>;
  __m512i kk;
  std::uint32_t d, warm;
  const stripe_table<W>* stripe;
  striped_clusters* out;
  __m512i best[regs<W>], at[regs<W>];
  __m512i done_best[regs<W>], done_at[regs<W>];
  std::uint64_t open[regs<W>] = {};
  std::uint64_t done[regs<W>] = {};
  std::uint64_t began[regs<W>] = {};  ///< lanes at <= k at step warm

  /// Logs the runs of register r's lanes in m (none when m = 0: the entry is written anyway
  /// and not kept, which costs less than a branch that goes either way).
  [[gnu::always_inline]] void log_runs(log_type& log, int r, std::uint64_t m, __m512i b, __m512i a,
                                       bool to_end = false) {
    const int e = log.n;
    log.best[e] = b;
    log.at[e] = a;
    log.to_end[e] = to_end;
    log.mask[e] = m;
    log.began[e] = began[r];
    log.reg[e] = static_cast<std::uint32_t>(r);
    log.n = e + (m != 0 ? 1 : 0);
  }
  [[gnu::always_inline]] bool on_step(const striped_state<W>& st, std::size_t t, log_type& log) {
    const __m512i tv = splat<W>(static_cast<std::uint32_t>(t));
    std::uint64_t any = 0;
#pragma GCC unroll 4
    for (int r = 0; r < regs<W>; ++r) {
      const std::uint64_t h = at_most<W>(st.sc[r], kk);
      // Strictly smaller: the leftmost end wins ties. A new run starts from best = maximum.
      const std::uint64_t better = h & less<W>(st.sc[r], best[r]);
      best[r] = blend<W>(best[r], better, st.sc[r]);
      at[r] = blend<W>(at[r], better, tv);
      if (t == warm) began[r] = h;
      const std::uint64_t closed = open[r] & ~h;
      // A lane whose earlier run of this block still waits: that one goes to the log first
      // (rare: runs are at least two steps apart and a block has eight).
      if (const std::uint64_t again = closed & done[r]) [[unlikely]]
        log_runs(log, r, again, done_best[r], done_at[r]);
      done_best[r] = blend<W>(done_best[r], closed, best[r]);
      done_at[r] = blend<W>(done_at[r], closed, at[r]);
      done[r] |= closed;
      best[r] = blend<W>(best[r], closed, splat<W>(~0u));
      open[r] = h;
      any |= h;
    }
    return any != 0;
  }
  /// The waiting runs to the log.
  [[gnu::always_inline]] void log_waiting(log_type& log) {
#pragma GCC unroll 4
    for (int r = 0; r < regs<W>; ++r) {
      log_runs(log, r, done[r], done_best[r], done_at[r]);
      done[r] = 0;
    }
  }
  /// After a checked block: the waiting runs to the log, and the log written out.
  [[gnu::always_inline]] void flush(log_type& log) {
    log_waiting(log);
    if (log.n != 0) write_runs<W>(log, *stripe, warm, 0, d, *out);
  }
  /// Writes the runs still open after the last step. (A block checked only by its minimum
  /// never has open runs: it follows a checked block without hits, whose first step closed them.)
  void finish(std::size_t steps, log_type& log) {
    log_waiting(log);
    for (int r = 0; r < regs<W>; ++r) {
      log_runs(log, r, open[r], best[r], at[r], true);
      open[r] = 0;
    }
    if (log.n != 0) write_runs<W>(log, *stripe, warm, static_cast<std::uint32_t>(steps - 1), d, *out);
  }
};

/// The byte-lane (m <= 8) form of run_log: one entry holds all 64 lanes, best in bytes and
/// its step in two 16-bit registers (lanes 0-31, 32-63). It also keeps, per lane, where its
/// next record goes (write_runs8 scatters by it) and which lanes have written one.
struct run_log8 {
  // Entries of several blocks: the log is written out (a call, which spills the hot loop's
  // registers) only once it may not hold another block's (at most 9: 8 steps and the end).
  static constexpr int cap = 48, block_max = 9;
  __m512i best[cap], at_lo[cap], at_hi[cap];
  std::uint64_t mask[cap], began[cap];
  bool to_end[cap];
  int n = 0;
  /// Lanes with a record written.
  std::uint64_t written = 0;
  /// Slot j: the next record's index in out.recs for lane lane_of_slot(j), in the order
  /// write_runs8 builds records in (so it reads 8 slots with one load).
  alignas(64) std::uint32_t next[64];
  /// write_runs8 assembles the records of 32 lanes (half g) in four registers of 8 qwords,
  /// r = 0-3, by 16- and 32-bit unpacks: qword q of register r is lane 8(q/2) + 2r + q%2.
  static constexpr std::uint32_t lane_of_slot(std::uint32_t j) {
    const std::uint32_t g = j / 32, r = j / 8 % 4, q = j % 8;
    return 32 * g + 8 * (q / 2) + 2 * r + q % 2;
  }
};

/// write_runs for run_log8 (the same records), 32 lanes at a time: each record is built whole
/// in vector registers together with its place (the lane's next slot), so the loop per run is
/// one load and one store.
[[gnu::noipa]] void write_runs8(run_log8& log, std::uint32_t warm, std::uint32_t last_step, std::uint32_t d,
                                striped_clusters& out) {
  const __m512i vd = _mm512_set1_epi16(static_cast<short>(d)), vwarm = _mm512_set1_epi16(static_cast<short>(warm));
  const __m256i one = _mm256_set1_epi32(1);
  std::uint64_t* const recs = reinterpret_cast<std::uint64_t*>(out.recs.data());
  constexpr int max_items = 64 * 8;
  alignas(64) std::uint64_t rec[max_items];
  alignas(64) std::uint32_t at[max_items];
  int items = 0;
  // Plain stores: the vectorizer would turn them into scatters, which cost more here.
  auto store = [&] {
    for (int i = 0; i < items; ++i) {
      recs[at[i]] = rec[i];
      asm volatile("");
    }
    items = 0;
  };
  for (int e = 0; e < log.n; ++e) {
    if (items > max_items - 64) store();  // an entry adds at most 64
    // A stripe's first run that began at step warm: first = warm (see write_runs).
    const std::uint64_t fresh = log.began[e] & ~log.written;
    log.written |= log.mask[e];
    for (int g = 0; g < 2; ++g) {
      const auto m = static_cast<std::uint32_t>(log.mask[e] >> (32 * g));
      const __m512i at16 = g == 0 ? log.at_lo[e] : log.at_hi[e];
      const __m512i b16 = _mm512_cvtepu8_epi16(g == 0 ? _mm512_castsi512_si256(log.best[e])
                                                        : _mm512_extracti64x4_epi64(log.best[e], 1));
      const __m512i score = _mm512_sub_epi16(b16, vd);
      const __m512i first = _mm512_mask_mov_epi16(at16, static_cast<__mmask32>(fresh >> (32 * g)), vwarm);
      const __m512i last = log.to_end[e] ? _mm512_set1_epi16(static_cast<short>(last_step)) : at16;
      const __m512i fl_lo = _mm512_unpacklo_epi16(first, last), fl_hi = _mm512_unpackhi_epi16(first, last);
      const __m512i as_lo = _mm512_unpacklo_epi16(at16, score), as_hi = _mm512_unpackhi_epi16(at16, score);
      const __m512i q[4] = {_mm512_unpacklo_epi32(fl_lo, as_lo), _mm512_unpackhi_epi32(fl_lo, as_lo),
                            _mm512_unpacklo_epi32(fl_hi, as_hi), _mm512_unpackhi_epi32(fl_hi, as_hi)};
#pragma GCC unroll 4
      for (int r = 0; r < 4; ++r) {
        const auto mr = static_cast<__mmask8>(_pext_u32(m, 0x03030303u << (2 * r)));
        std::uint32_t* const slot = log.next + 32 * g + 8 * r;
        const __m256i pos = _mm256_load_si256(reinterpret_cast<const __m256i*>(slot));
        _mm512_storeu_si512(rec + items, _mm512_maskz_compress_epi64(mr, q[r]));
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(at + items), _mm256_maskz_compress_epi32(mr, pos));
        _mm256_store_si256(reinterpret_cast<__m256i*>(slot), _mm256_mask_add_epi32(pos, mr, pos, one));
        items += __builtin_popcount(mr);
      }
    }
  }
  log.n = 0;
  store();
}

/// clusters_out on the byte lanes of the m <= 8 DP itself (no widening per step). Per step it
/// follows, per lane, the best score of the open run (bytes; 0xFF outside a run) and the
/// step within the block where that score was reached (u_best, a byte: 0xFF when reached in
/// an earlier block, whose step is then in the 16-bit at_lo / at_hi, updated once per block).
/// A run that closes waits until the block's end in one of two slots per lane, a and b (a
/// lane often closes two runs in a block: over DNA with m = 8, k = 3, one run in eight is a
/// lane's second of its block); a third close of a lane in one block first sends both slots
/// to the log. No branch that goes either way in the step.
struct clusters_out8 {
  static constexpr bool inline_checks = true;
  static constexpr int width = 8;  ///< reads the byte state directly
  using log_type = run_log8;
  __m512i kk;
  std::uint32_t d, warm;
  const std::array<std::uint32_t, 64>* stripe;
  striped_clusters* out;
  __m512i best, u_best, at_lo, at_hi;
  __m512i a_best, a_u, b_best, b_u;  ///< the waiting runs
  std::uint64_t open = 0, a = 0, b = 0, began = 0;
  std::uint32_t base = 0;  ///< first step of the current block (blocks start at multiples of 8)

  /// The steps of lanes whose best was reached at step-in-block u (0xFF: at_lo / at_hi).
  [[gnu::always_inline]] void steps_of(__m512i u, __m512i& lo, __m512i& hi) const {
    const __m512i bv = _mm512_set1_epi16(static_cast<short>(base));
    const std::uint64_t here = _mm512_cmpneq_epu8_mask(u, _mm512_set1_epi8(-1));
    lo = _mm512_mask_add_epi16(at_lo, static_cast<__mmask32>(here), bv,
                               _mm512_cvtepu8_epi16(_mm512_castsi512_si256(u)));
    hi = _mm512_mask_add_epi16(at_hi, static_cast<__mmask32>(here >> 32), bv,
                               _mm512_cvtepu8_epi16(_mm512_extracti64x4_epi64(u, 1)));
  }
  [[gnu::always_inline]] void log_runs(log_type& log, std::uint64_t m, __m512i bst, __m512i lo, __m512i hi,
                                       bool to_end = false) {
    const int e = log.n;
    log.best[e] = bst;
    log.at_lo[e] = lo;
    log.at_hi[e] = hi;
    log.to_end[e] = to_end;
    log.mask[e] = m;
    log.began[e] = began;
    log.n = e + (m != 0 ? 1 : 0);
  }
  /// The waiting runs to the log, slot a before slot b (a lane's runs in order).
  [[gnu::always_inline]] void log_waiting(log_type& log) {
    __m512i lo, hi;
    steps_of(a_u, lo, hi);  // written whether a has lanes or not: a test here goes either way
    log_runs(log, a, a_best, lo, hi);
    if (b != 0) {
      steps_of(b_u, lo, hi);
      log_runs(log, b, b_best, lo, hi);
    }
    a = b = 0;
  }
  /// Each lane's first record goes to the start of its stripe's part.
  void init(log_type& log) const {
    for (std::uint32_t j = 0; j < 64; ++j)
      log.next[j] = (*stripe)[run_log8::lane_of_slot(j)] * static_cast<std::uint32_t>(out->cap);
  }
  [[gnu::always_inline]] bool on_step(const striped_state<8>& st, std::size_t t, log_type& log) {
    const __m512i sc = st.sc[0];
    base = static_cast<std::uint32_t>(t) & ~7u;
    const std::uint64_t h = _mm512_cmple_epu8_mask(sc, kk);
    // Strictly smaller: the leftmost end wins ties (a new run starts from best = 0xFF).
    const std::uint64_t better = _mm512_mask_cmplt_epu8_mask(h, sc, best);
    if (t == warm) began = h;
    const std::uint64_t closed = open & ~h;
    if ((closed & b) != 0) [[unlikely]] log_waiting(log);  // a lane's third close in the block
    const std::uint64_t to_b = closed & a, to_a = closed & ~a;
    a_best = _mm512_mask_mov_epi8(a_best, to_a, best);
    a_u = _mm512_mask_mov_epi8(a_u, to_a, u_best);
    b_best = _mm512_mask_mov_epi8(b_best, to_b, best);
    b_u = _mm512_mask_mov_epi8(b_u, to_b, u_best);
    a |= to_a;
    b |= to_b;
    u_best = _mm512_mask_set1_epi8(u_best, better, static_cast<char>(t & 7));
    best = _mm512_mask_min_epu8(_mm512_set1_epi8(-1), h, best, sc);  // 0xFF outside a run
    open = h;
    return h != 0;
  }
  /// After a checked block: the waiting runs to the log, the block's best steps into at_lo /
  /// at_hi.
  [[gnu::always_inline]] void flush(log_type& log) {
    log_waiting(log);
    steps_of(u_best, at_lo, at_hi);
    u_best = _mm512_set1_epi8(-1);
    if (log.n > run_log8::cap - run_log8::block_max) [[unlikely]]
      write_runs8(log, warm, 0, d, *out);
  }
  void finish(std::size_t steps, log_type& log) {
    log_waiting(log);
    __m512i lo, hi;
    steps_of(u_best, lo, hi);
    log_runs(log, open, best, lo, hi, true);
    open = 0;
    if (log.n != 0) write_runs8(log, warm, static_cast<std::uint32_t>(steps - 1), d, *out);
    for (std::uint32_t j = 0; j < 64; ++j) {
      const std::uint32_t s = (*stripe)[run_log8::lane_of_slot(j)];
      out->count[s] = log.next[j] - s * static_cast<std::uint32_t>(out->cap);
    }
  }
};

/// The state as Out reads it: the byte DP's own, or widened to the 16-bit layout.
template <int W, bool V, class Out>
[[gnu::always_inline]] inline bool on_step_of(Out& out, const striped_state<W>& st, std::size_t t,
                                              typename Out::log_type& log) {
  if constexpr (requires { Out::width; }) {
    return out.on_step(st, t, log);
  } else {
    striped_state<16> view;
    return out.on_step(scores_view<W, V>(st, view), t, log);
  }
}

/// Steps with a check of every lane after each (the tail, and blocks whose minimum says that
/// some lane reached <= k), from state `st`. True when some lane was at <= k.
template <int W, unsigned Q, bool Masked, bool V, class Out>
[[gnu::always_inline]] inline bool checked_steps_inline(striped_state<W>& st, const __m512i* rows, std::size_t t,
                                                        std::size_t count, const quarter_tables* qt,
                                                        std::size_t warm, Out& out,
                                                        typename Out::log_type& log) {
  bool any = false;
  if (count == 8 && t >= warm) {  // the usual block: unrolled, its rows stay in registers
#pragma GCC unroll 8
    for (std::size_t u = 0; u < 8; ++u) {
      step_all<W, Q, Masked, V>(rows[u], qt, st);
      any |= on_step_of<W, V>(out, st, t + u, log);
    }
    return any;
  }
  for (std::size_t u = 0; u < count; ++u) {
    step_all<W, Q, Masked, V>(rows[u], qt, st);
    if (t + u >= warm) any |= on_step_of<W, V>(out, st, t + u, log);
  }
  return any;
}
/// The same out of line (the all-ends output), so the hot loop keeps its state in registers.
template <int W, unsigned Q, bool Masked, bool V, class Out>
[[gnu::noinline]] bool checked_steps(striped_state<W>& st, const __m512i* rows, std::size_t t, std::size_t count,
                                     const quarter_tables* qt, std::size_t warm, Out& out,
                                     typename Out::log_type& log) {
  return checked_steps_inline<W, Q, Masked, V>(st, rows, t, count, qt, warm, out, log);
}

/// A checked block from state st, inline or out of line as Out wants; logged output is
/// written after it.
template <int W, unsigned Q, bool Masked, bool V, class Out>
[[gnu::always_inline]] inline bool checked_block(striped_state<W>& st, const __m512i* rows, std::size_t t,
                                                 std::size_t count, const quarter_tables* qt, std::size_t warm,
                                                 Out& out, typename Out::log_type& log) {
  if constexpr (Out::inline_checks) {
    const bool any = checked_steps_inline<W, Q, Masked, V>(st, rows, t, count, qt, warm, out, log);
    out.flush(log);
    return any;
  } else {
    alignas(64) __m512i block[8];
    for (std::size_t u = 0; u < count; ++u) block[u] = rows[u];
    striped_state<W> cur = st;  // a copy: the hot loop's state never has its address taken
    const bool any = checked_steps<W, Q, Masked, V>(cur, block, t, count, qt, warm, out, log);
    st = cur;
    return any;
  }
}

/// Runs the kernel; false when it ran without the quarter mask (Masked = false) and some byte
/// read was not in 0x40-0x7F after all (the caller then runs it again with the mask).
template <int W, unsigned Q, bool Masked, bool V, class Out>
bool run(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
         std::size_t warm, Out out) {  // by value: a local that can live in registers
  constexpr int R = regs<W>;
  // Without the mask, every byte read is checked on the way (OR of byte ^ 0x40: bits 6-7
  // stay clear iff all are in 0x40-0x7F) instead of in a pass of its own over the text.
  const __m512i q1 = _mm512_set1_epi8(0x40);
  __m512i outside = _mm512_setzero_si512();
  typename Out::log_type log;
  if constexpr (requires { out.init(log); }) out.init(log);
  quarter_tables qt[4];
  load_quarter_tables(sp.peq.data(), qt);
  striped_state<W> st;
  const __m512i kk = splat<W>(sp.kk);
  for (int r = 0; r < R; ++r) {
    st.pv[r] = _mm512_set1_epi32(-1);
    st.mv[r] = _mm512_setzero_si512();
    st.sc[r] = splat<W>(W);
  }
  alignas(64) std::int64_t offs[64];
  for (std::size_t i = 0; i < 64; ++i) offs[i] = static_cast<std::int64_t>(i * stride);
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
    // Plain 8-byte loads: cheaper than gathers (and not slowed by gather microcode fixes).
    const unsigned char* at_t = text0 + t;
#pragma GCC unroll 8
    for (int i = 0; i < 8; ++i) {
      auto at = [&](int q) {
        std::uint64_t w;
        __builtin_memcpy(&w, at_t + offs[8 * i + q], 8);
        return static_cast<long long>(w);
      };
      g[i] = _mm512_set_epi64(at(7), at(6), at(5), at(4), at(3), at(2), at(1), at(0));
      if constexpr (!Masked) outside = _mm512_ternarylogic_epi32(outside, g[i], q1, 0xF6);  // A | (B ^ C)
    }
    transpose8(g, rows);
    if (dense) [[unlikely]] {
      // The last block had hits: check every step of this one at once rather than run it twice.
      dense = checked_block<W, Q, Masked, V>(st, rows, t, 8, qt, warm, out, log);
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
      step_all<W, Q, Masked, V>(rows[u], qt, st);
#pragma GCC unroll 4
      for (int r = 0; r < R; ++r) mn[r] = min_score<W>(mn[r], st.sc[r]);
    }
    std::uint64_t any = 0;
#pragma GCC unroll 4
    for (int r = 0; r < R; ++r) any |= at_most<W>(mn[r], kk);
    if (any != 0) [[unlikely]] {
      st = saved;
      dense = checked_block<W, Q, Masked, V>(st, rows, t, 8, qt, warm, out, log);
    }
  }
  if (t < steps) {  // the last < 8 bytes of each stripe, never read past it
    alignas(64) std::uint64_t tail[64];
    for (std::size_t s = 0; s < 64; ++s) {
      std::uint64_t w = 0x4040404040404040;  // bytes past the stripe: in quarter 1, never stepped on
      __builtin_memcpy(&w, text0 + s * stride + t, steps - t);
      tail[s] = w;
    }
    for (int i = 0; i < 8; ++i) {
      g[i] = _mm512_load_si512(tail + 8 * i);
      if constexpr (!Masked) outside = _mm512_ternarylogic_epi32(outside, g[i], q1, 0xF6);
    }
    transpose8(g, rows);
    checked_block<W, Q, Masked, V>(st, rows, t, steps - t, qt, warm, out, log);
  }
  out.finish(steps, log);
  return Masked || _mm512_test_epi8_mask(outside, _mm512_set1_epi8(static_cast<char>(0xC0))) == 0;
}

template <int W>
stripe_table<W> make_stripe_table() {
  stripe_table<W> stripe{};
  for (int r = 0; r < regs<W>; ++r)
    for (int l = 0; l < lanes_per_reg<W>; ++l)
      stripe[static_cast<std::size_t>(r)][static_cast<std::size_t>(l)] =
          stripe_of_lane<W>(r, static_cast<std::uint32_t>(l));
  return stripe;
}

/// Picks the instantiation for the pattern's Peq quarters and the text.
template <int W, bool V, class Out>
bool dispatch(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
              std::size_t warm, bool text_in_quarter1, const Out& out) {
  const unsigned used = sp.quarters;
  const bool only1 = (used & ~2u) == 0;
  if (only1 && text_in_quarter1) return run<W, 2u, false, V>(sp, text0, stride, steps, warm, out);
  if (only1) return run<W, 2u, true, V>(sp, text0, stride, steps, warm, out);
  if ((used & ~3u) == 0) return run<W, 3u, true, V>(sp, text0, stride, steps, warm, out);
  return run<W, 15u, true, V>(sp, text0, stride, steps, warm, out);
}


/// Where the byte lanes' stripes are in the VBMI kernel (stripe_of_byte).
stripe_table<8> make_byte_stripe_table() {
  stripe_table<8> stripe{};
  for (std::uint32_t l = 0; l < 64; ++l) stripe[0][l] = stripe_of_byte(l);
  return stripe;
}

template <int W, bool Vbmi>
bool ends(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
          std::size_t warm, std::uint64_t pos0, bool q1, std::vector<lane_hit>& hits) {
  constexpr int OW = out_width<W>;
  static const stripe_table<OW> stripe = make_stripe_table<OW>();
  ends_out<OW> out{splat<OW>(sp.kk), stride, pos0, sp.d, &stripe, &hits};
  if constexpr (W == 8 && Vbmi) return dispatch<W, true>(sp, text0, stride, steps, warm, q1, out);
  return dispatch<W, false>(sp, text0, stride, steps, warm, q1, out);
}

template <int W, bool Vbmi>
bool clusters(const striped_pattern& sp, const unsigned char* text0, std::size_t stride, std::size_t steps,
              std::size_t warm, bool q1, striped_clusters& res) {
  constexpr int OW = out_width<W>;
  // Runs are separated by at least one step above k: at most (steps - warm + 1) / 2 per stripe.
  res.cap = (steps - warm) / 2 + 1;
  if (res.recs.size() < 64 * res.cap) res.recs.resize(64 * res.cap);
  res.count.fill(0);
  if constexpr (W == 8) {
    static const stripe_table<8> stripe = make_stripe_table<8>(), byte_stripe = make_byte_stripe_table();
    constexpr bool v = Vbmi;
    const __m512i none = _mm512_set1_epi8(-1), none16 = _mm512_set1_epi16(-1);
    clusters_out8 out{_mm512_set1_epi8(static_cast<char>(sp.kk)), sp.d, static_cast<std::uint32_t>(warm),
                      v ? &byte_stripe[0] : &stripe[0], &res, none, none, none16, none16, none, none, none, none};
    return v ? dispatch<W, true>(sp, text0, stride, steps, warm, q1, out)
             : dispatch<W, false>(sp, text0, stride, steps, warm, q1, out);
  }
  static const stripe_table<OW> stripe = make_stripe_table<OW>();
  clusters_out<OW> out{splat<OW>(sp.kk), sp.d, static_cast<std::uint32_t>(warm), &stripe, &res, {}, {}, {}, {}, {}};
  for (int r = 0; r < regs<OW>; ++r)
    out.best[r] = out.at[r] = out.done_best[r] = out.done_at[r] = splat<OW>(~0u);
  return dispatch<W, false>(sp, text0, stride, steps, warm, q1, out);
}

}  // namespace

void write_run_hits_avx512(const striped_cluster* r, std::size_t n, std::uint64_t base, std::uint32_t pattern,
                           strand dir, hit* out) {
  static_assert(sizeof(hit) == 32 && offsetof(hit, end) == 8 && offsetof(hit, pattern) == 16 &&
                offsetof(hit, errors) == 20 && offsetof(hit, dir) == 24);
  static_assert(sizeof(striped_cluster) == 8 && offsetof(striped_cluster, best) == 4 &&
                offsetof(striped_cluster, score) == 6);
  // A hit as 4 qwords: start (= end until the starts are found, as make_hit), end,
  // pattern | errors << 32, dir (padding 0).
  const __m512i end0 = _mm512_set1_epi64(static_cast<long long>(base + 1));
  const __m512i pat = _mm512_set1_epi64(pattern), w16 = _mm512_set1_epi64(0xFFFF);
  const __m512i dirq = _mm512_maskz_set1_epi64(0x88, static_cast<long long>(dir));
  // Hits 2h, 2h + 1 from lanes 2h, 2h + 1 of end (index 0-7) and pe (8-15).
  const __m512i idx[4] = {_mm512_set_epi64(0, 9, 1, 1, 0, 8, 0, 0), _mm512_set_epi64(0, 11, 3, 3, 0, 10, 2, 2),
                          _mm512_set_epi64(0, 13, 5, 5, 0, 12, 4, 4), _mm512_set_epi64(0, 15, 7, 7, 0, 14, 6, 6)};
  auto emit8 = [&](__m512i rec, hit* o, int count) {
    const __m512i end = _mm512_add_epi64(end0, _mm512_and_si512(_mm512_srli_epi64(rec, 32), w16));
    const __m512i pe = _mm512_or_si512(pat, _mm512_slli_epi64(_mm512_srli_epi64(rec, 48), 32));
    for (int h = 0; 2 * h < count; ++h) {
      const __m512i v = _mm512_or_si512(_mm512_maskz_permutex2var_epi64(0x77, end, idx[h], pe), dirq);
      // Two 32-byte stores: a vector's hits are 16-byte aligned (operator new), so 64-byte
      // stores would all cross a cache line; of these, half do.
      _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + 2 * h), _mm512_castsi512_si256(v));
      if (2 * h + 2 <= count)
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + 2 * h + 1), _mm512_extracti64x4_epi64(v, 1));
    }
  };
  std::size_t i = 0;
  for (; i + 8 <= n; i += 8) emit8(_mm512_loadu_si512(r + i), out + i, 8);
  if (i < n) {
    const auto left = static_cast<int>(n - i);
    emit8(_mm512_maskz_loadu_epi64(static_cast<__mmask8>((1u << left) - 1), r + i), out + i, left);
  }
}

// Only the byte lanes (m <= 8) have a VBMI path: the 16- and 32-bit ones are one instantiation.
template <bool Vbmi>
bool myers_striped_avx512(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                          std::size_t steps, std::size_t warm, std::uint64_t pos0, bool text_in_quarter1,
                          std::vector<lane_hit>& hits) {
  if (sp.width == 16 && sp.d >= 8) return ends<8, Vbmi>(narrow_striped_pattern(sp), text0, stride, steps, warm, pos0, text_in_quarter1, hits);
  if (sp.width == 16) return ends<16, false>(sp, text0, stride, steps, warm, pos0, text_in_quarter1, hits);
  return ends<32, false>(sp, text0, stride, steps, warm, pos0, text_in_quarter1, hits);
}

template <bool Vbmi>
bool myers_striped_clusters_avx512(const striped_pattern& sp, const unsigned char* text0, std::size_t stride,
                                   std::size_t steps, std::size_t warm, bool text_in_quarter1,
                                   striped_clusters& out) {
  if (sp.width == 16 && sp.d >= 8) return clusters<8, Vbmi>(narrow_striped_pattern(sp), text0, stride, steps, warm, text_in_quarter1, out);
  if (sp.width == 16) return clusters<16, false>(sp, text0, stride, steps, warm, text_in_quarter1, out);
  return clusters<32, false>(sp, text0, stride, steps, warm, text_in_quarter1, out);
}

template bool myers_striped_avx512<false>(const striped_pattern&, const unsigned char*, std::size_t, std::size_t,
                                          std::size_t, std::uint64_t, bool, std::vector<lane_hit>&);
template bool myers_striped_avx512<true>(const striped_pattern&, const unsigned char*, std::size_t, std::size_t,
                                         std::size_t, std::uint64_t, bool, std::vector<lane_hit>&);
template bool myers_striped_clusters_avx512<false>(const striped_pattern&, const unsigned char*, std::size_t,
                                                   std::size_t, std::size_t, bool, striped_clusters&);
template bool myers_striped_clusters_avx512<true>(const striped_pattern&, const unsigned char*, std::size_t,
                                                  std::size_t, std::size_t, bool, striped_clusters&);

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
