// suffix_filter.cpp — approximate search by a suffix filter: an alignment of P with <= k errors
// ending at j, cut after P's first m - L bytes, leaves one of P's last L bytes with <= k errors
// ending at j. So the striped kernel scans that suffix alone, in narrower lanes (L = 16: the
// 16-bit lanes, twice the stripes per register of the 32-bit lanes a 17-32 byte pattern
// needs), and Myers verifies every candidate end with the whole pattern. A round whose
// candidates are dense (low-complexity text, a small alphabet) is scanned without the filter,
// and so are the next few. O(n) striped steps for the suffix + O(m + k) per candidate.
#include <algorithm>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

namespace {

// Ends per round, and the share of them a round first scans (a dense round stops there):
// 64 stripes of 448 and of 7744 ends, odd multiples of 64 bytes, which the striped planner
// takes in one kernel call each.
constexpr std::size_t round_ends = std::size_t{64} * 8192;
constexpr std::size_t probe_ends = std::size_t{64} * 448;
// Verifying a window costs about m + k one-word Myers steps; past one candidate per 1024 ends
// the striped kernel reruns so many blocks with every step checked that the round costs
// more than the unfiltered scan.
constexpr std::size_t dense_share = 1024;
// After a dense round the next rounds (first_skip of them) are scanned unfiltered; the skip
// doubles while the rounds that probe the text again stay dense, up to max_skip.
constexpr std::size_t first_skip = 7, max_skip = 127;

class end_collector final : public end_sink {
 public:
  explicit end_collector(std::vector<std::uint64_t>& ends) : ends_(ends) {}
  void on_end(std::uint64_t j, std::uint32_t) override { ends_.push_back(j); }
  void on_ends(const lane_hit* ends, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) ends_.push_back(ends[i].pos);
  }

 private:
  std::vector<std::uint64_t>& ends_;
};

}  // namespace

std::size_t suffix_filter_length(std::size_t m, std::uint32_t k, bool forced) {
  // The bounds where the filter still pays over DNA, the densest text it meets. 16 bytes: past
  // k = 3 the candidates grow fast, and the striped kernel reruns every block where a lane
  // reaches k with every step checked. 32 bytes: it beats the 64-bit lanes of 33-64 byte
  // patterns through k = 10 (tuned with bench/approx on the Zen 4 dev box).
  if (m > 16 && k <= (forced ? 8u : 3u)) return 16;
  if (m > 32 && k <= (forced ? 16u : 10u)) return 32;
  return 0;
}

compiled_pattern pattern_suffix(const compiled_pattern& p, std::size_t len) {
  compiled_pattern s;
  s.bytes = p.bytes.substr(p.m - len);
  s.index = p.index;
  s.dir = p.dir;
  s.m = len;
  s.words = 1;
  s.peq.assign(256, 0);
  s.rpeq.assign(256, 0);
  const std::uint64_t mask = len == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << len) - 1;
  for (std::size_t c = 0; c < 256; ++c)
    for (std::size_t i = 0; i < len; ++i)
      if (p.match(p.m - len + i, static_cast<unsigned char>(c))) s.peq[c] |= std::uint64_t{1} << i;
  // rpeq bit r is byte m - 1 - r: the suffix's reversed bits are the pattern's lowest ones.
  for (std::size_t c = 0; c < 256; ++c) s.rpeq[c] = p.rpeq[c * p.words] & mask;
  return s;
}

void scan_suffix_filter(const striped_kernels& kernel, const compiled_pattern& p, const compiled_pattern& suffix,
                        std::string_view seq, std::size_t from, std::size_t report_from, std::size_t to,
                        std::uint32_t k, end_sink& sink, const unfiltered_scan& unfiltered,
                        suffix_filter_state& state) {
  if (report_from >= to) return;
  const std::size_t w = p.m + k - 1;  // an end's occurrence lies in the w bytes before it
  // Per thread, kept between calls: the candidate ends of one round.
  thread_local std::vector<std::uint64_t> cands;
  end_collector collect(cands);
  const striped_pattern sp = make_striped_pattern(suffix, k);
  std::size_t& skip = state.skip;
  std::size_t& next_skip = state.next_skip;
  if (next_skip == 0) next_skip = first_skip;
  for (std::size_t a = report_from; a < to;) {
    const std::size_t b = std::min(to, a + round_ends);
    // Context from w bytes back (or `from`): every score <= k is then exact, as from `from`.
    const std::size_t ctx = a - from >= w ? a - w : from;
    if (skip > 0) {
      --skip;
      unfiltered(ctx, a, b);
      a = b;
      continue;
    }
    cands.clear();
    // A full round first scans its first ends, and stops there when they are dense. A shorter
    // range (a slice) is scanned whole: its planner then needs one kernel call.
    std::size_t mid = a;
    bool dense = false;
    if (b - a == round_ends) {
      mid = a + probe_ends;
      scan_myers_striped(kernel, suffix, seq, ctx, a, mid, k, collect, &sp);
      dense = cands.size() > probe_ends / dense_share;
    }
    if (!dense) scan_myers_striped(kernel, suffix, seq, mid - from >= w ? mid - w : from, mid, b, k, collect, &sp);
    if (dense || cands.size() > (b - a) / dense_share) {
      skip = next_skip;
      next_skip = std::min(max_skip, 2 * next_skip + 1);
      unfiltered(ctx, a, b);
      a = b;
      continue;
    }
    next_skip = first_skip;
    // Candidates closer than a warm-up share one verification run.
    for (std::size_t i = 0; i < cands.size();) {
      const std::uint64_t lo = cands[i];
      std::uint64_t hi = lo;
      for (++i; i < cands.size() && cands[i] <= hi + w; ++i) hi = cands[i];
      const std::size_t vctx = lo - from >= w ? lo - w : from;
      scan_myers_word(p, seq, vctx, lo, hi + 1, k, sink);
    }
    a = b;
  }
}

}  // namespace trawl::approx_detail
