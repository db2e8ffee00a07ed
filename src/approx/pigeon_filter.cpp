// pigeon_filter.cpp — approximate search by the pigeonhole filter: P is cut into k+1 pieces,
// one of which occurs exactly in every occurrence with <= k errors (Wu & Manber 1992,
// "partition into exact search"); the windows of ends around each piece occurrence are
// merged and verified by Myers. O(n·(k+1)) filter work (SIMD) + O(m+k) per candidate.
#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>

#include "approx/approx_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::approx_detail {

void find_pieces_serial(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                        std::string_view pattern, std::span<const filter_piece> pieces,
                        std::vector<std::int64_t>& anchors) {
  const std::string_view t(reinterpret_cast<const char*>(text) + lo, hi - lo);
  for (const filter_piece& pc : pieces) {
    const std::string_view piece = pattern.substr(pc.off, pc.len);
    for (std::size_t at = t.find(piece); at != std::string_view::npos && lo + at < s_end; at = t.find(piece, at + 1))
      anchors.push_back(static_cast<std::int64_t>(lo + at) - static_cast<std::int64_t>(pc.off));
  }
}

bool pigeon_applicable(const compiled_pattern& p, std::uint32_t k) {
  if (p.m < k + 1) return false;
  // Every pattern row must be set for exactly one byte value.
  std::vector<int> count(p.m, 0);
  for (std::size_t c = 0; c < 256; ++c)
    for (std::size_t i = 0; i < p.m; ++i) count[i] += p.match(i, static_cast<unsigned char>(c)) ? 1 : 0;
  for (std::size_t i = 0; i < p.m; ++i)
    if (count[i] != 1 || static_cast<unsigned char>(p.bytes[i]) == 0 || !p.match(i, static_cast<unsigned char>(p.bytes[i])))
      return false;
  return true;
}

namespace {

constexpr std::size_t chunk = std::size_t{1} << 18;  // piece starts searched per round

struct window {
  std::int64_t lo, hi;  // candidate ends, inclusive
};

/// The ends in [lo, hi] at distance <= k, for a long pattern: the semi-global DP (text from ctx)
/// restricted to the diagonals within k of those ends' (every alignment of at most k errors
/// stays within k of its end's diagonal), values capped at k + 1. O(m·(hi - lo + 2k)), where
/// Myers costs O((m + hi - lo)·m/64) once the pattern matches along the window.
void verify_banded(const compiled_pattern& p, const unsigned char* text, std::int64_t ctx, std::int64_t lo,
                   std::int64_t hi, std::uint32_t k, end_sink& sink) {
  const auto m = static_cast<std::int64_t>(p.m), K = static_cast<std::int64_t>(k);
  const std::int64_t dlo = lo - m - K;      // diagonals c - i in [dlo, dlo + W)
  const auto W = static_cast<std::size_t>(hi - lo + 2 * K + 1);
  const std::uint32_t cap = k + 1;
  std::vector<std::uint32_t> prev(W + 1, 0), cur(W + 1, cap);  // row 0: a free start anywhere
  prev[W] = cap;
  for (std::int64_t i = 1; i <= m; ++i) {
    for (std::size_t o = 0; o < W; ++o) {
      const std::int64_t c = i + dlo + static_cast<std::int64_t>(o);
      if (c < ctx) {  // before the text: the pattern prefix against nothing
        cur[o] = static_cast<std::uint32_t>(std::min<std::int64_t>(i, cap));
        continue;
      }
      if (c > hi) {  // feeds no end <= hi
        cur[o] = cap;
        continue;
      }
      std::uint32_t v = prev[o] + (p.match(static_cast<std::size_t>(i - 1), text[c]) ? 0u : 1u);
      v = std::min(v, prev[o + 1] + 1);
      if (o > 0) v = std::min(v, cur[o - 1] + 1);
      cur[o] = std::min(v, cap);
    }
    std::swap(prev, cur);
  }
  for (std::size_t o = 0; o < W; ++o) {  // row m: column lo - k + o
    const std::int64_t c = lo - K + static_cast<std::int64_t>(o);
    if (c >= lo && c <= hi && prev[o] <= k) sink.on_end(static_cast<std::uint64_t>(c), prev[o]);
  }
}

}  // namespace

void scan_pigeon(const compiled_pattern& p, piece_finder finder, const lanes_backend* lanes, std::string_view seq,
                 std::size_t from, std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  if (report_from >= to) return;
  const std::size_t m = p.m;
  // k+1 pieces of lengths m/(k+1) or one more.
  std::vector<filter_piece> pieces;
  const std::size_t np = k + 1;
  std::size_t max_len = 0;
  for (std::size_t i = 0, off = 0; i < np; ++i) {
    const std::size_t len = m / np + (i < m % np ? 1 : 0);
    pieces.push_back({static_cast<std::uint32_t>(off), static_cast<std::uint32_t>(len)});
    max_len = std::max(max_len, len);
    off += len;
  }
  const std::int64_t o_max = pieces.back().off;
  const auto w = static_cast<std::int64_t>(m + k - 1);  // warm-up before a verified window
  const auto shift_lo = static_cast<std::int64_t>(m) - 1 - static_cast<std::int64_t>(k);
  const auto shift_hi = static_cast<std::int64_t>(m) - 1 + static_cast<std::int64_t>(k);
  const auto rf = static_cast<std::int64_t>(report_from), last = static_cast<std::int64_t>(to) - 1;
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());

  std::vector<std::int64_t> anchors;
  std::vector<window> pending, merged;
  auto verify = [&](const window& win) {
    const auto ctx = static_cast<std::size_t>(std::max<std::int64_t>(static_cast<std::int64_t>(from), win.lo - w));
    if (lanes != nullptr && m <= 64 && win.hi - win.lo >= 4096) {  // long window: SIMD lanes are faster
      const compiled_pattern* pp = &p;
      end_sink* sp = &sink;
      scan_myers_lanes(*lanes, {&pp, 1}, {&k, 1}, seq, ctx, static_cast<std::size_t>(win.lo),
                       static_cast<std::size_t>(win.hi) + 1, {&sp, 1});
    } else if (m <= 64)
      scan_myers_word(p, seq, ctx, static_cast<std::size_t>(win.lo), static_cast<std::size_t>(win.hi) + 1, k, sink);
    else if (16 * (win.hi - win.lo + 2 * static_cast<std::int64_t>(k) + 1) < static_cast<std::int64_t>(m))
      verify_banded(p, text, static_cast<std::int64_t>(ctx), win.lo, win.hi, k, sink);  // a long pattern, a narrow window
    else
      scan_myers_blocked(p, seq, ctx, static_cast<std::size_t>(win.lo), static_cast<std::size_t>(win.hi) + 1, k, sink);
  };
  // Sorts pending windows, merges those closer than a warm-up, verifies every window ending
  // before `bound` (no later piece occurrence can reach below it) and keeps the rest.
  auto flush = [&](std::int64_t bound) {
    std::sort(pending.begin(), pending.end(), [](const window& a, const window& b) { return a.lo < b.lo; });
    merged.clear();
    for (const window& x : pending) {
      if (!merged.empty() && x.lo <= merged.back().hi + w)
        merged.back().hi = std::max(merged.back().hi, x.hi);
      else
        merged.push_back(x);
    }
    pending.clear();
    std::size_t i = 0;
    for (; i < merged.size() && merged[i].hi + w < bound; ++i) verify(merged[i]);
    pending.assign(merged.begin() + static_cast<std::ptrdiff_t>(i), merged.end());
  };
  auto add = [&](std::int64_t lo, std::int64_t hi) {
    lo = std::max(lo, rf);
    hi = std::min(hi, last);
    if (lo <= hi) pending.push_back({lo, hi});
  };
  // Text where candidates are dense tends to stay so (repeats, common words): after a dense
  // round the next ones skip the finder and verify the whole round, re-probing every 8th.
  std::size_t skip_rounds = 0;
  for (std::size_t cs = from; cs < to; cs += chunk) {
    const std::size_t ce = std::min(to, cs + chunk);
    const std::size_t hi = std::min(to, ce + max_len - 1);
    bool dense = skip_rounds > 0;
    if (dense) {
      --skip_rounds;
    } else {
      anchors.clear();
      finder(text, cs, ce, hi, p.bytes, pieces, anchors);
      // Verifying one candidate costs about m+3k scalar Myers steps, so past one per 128
      // positions (tuned with bench/approx) a single pass over the whole round is cheaper.
      dense = anchors.size() > chunk / 128;
      if (dense) skip_rounds = 7;
    }
    if (dense) {
      add(static_cast<std::int64_t>(cs) - o_max + shift_lo, static_cast<std::int64_t>(ce) - 1 + shift_hi);
    } else {
      for (std::int64_t a : anchors) add(a + shift_lo, a + shift_hi);
    }
    // Later piece starts are >= ce, so their windows start at >= ce - o_max + shift_lo.
    flush(static_cast<std::int64_t>(ce) - o_max + shift_lo);
  }
  flush(std::numeric_limits<std::int64_t>::max() / 2);
}

}  // namespace trawl::approx_detail
