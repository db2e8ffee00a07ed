// best_myers.cpp — best approximate substring by Myers (the fast path): every score_j <= a
// known upper bound of ASM (so Ukkonen's cut-off skips the blocks that cannot reach it), the
// minimum of those, then the leftmost start of each best end by reverse Myers. The ends come
// from the search engines: the striped SIMD kernel for |X| <= 32, the SIMD lanes for <= 64,
// blocked Myers above (over 32 stripes in AVX-512 lanes, or 16 in AVX2 lanes, where it can).
// O(|Y|·⌈min(bound, |X|)/64⌉) expected + O(⌈|X|/64⌉·|X|) per occurrence.
#include <algorithm>

#include "approx/approx_internal.hpp"
#include "approx/blocked_stripes_plan.hpp"
#include "common/dispatch.hpp"

namespace trawl::approx_detail {
namespace {

class min_sink final : public end_sink {
 public:
  std::uint32_t best = ~std::uint32_t{0};
  std::vector<std::uint64_t> ends;
  void on_end(std::uint64_t j, std::uint32_t score) override {
    if (score < best) {
      best = score;
      ends.clear();
    }
    if (score == best) ends.push_back(j);
  }
};

}  // namespace

bool best_bound_unneeded(std::size_t m, std::size_t piece, simd_level simd) {
  // The striped blocked kernels' own length rule (plan_blocked_stripes) for k = m: `stripes`
  // stripes of at least blocked_stripe_min_len(w) ends (rounded down to 8) after a warm-up of
  // w = 2m - 1 bytes.
  const simd::kernels& ks = simd::kernels_at(simd);
  const std::size_t w = 2 * m - 1;
  return ks.blocked.best != nullptr && m > 64 && piece >= w + ks.blocked.stripes * (blocked_stripe_min_len(w) + 8);
}

best_piece best_piece_myers(std::string_view x, std::string_view y, std::size_t ctx, std::size_t lo, std::size_t hi,
                            std::uint32_t bound, simd_level simd) {
  // The kernels of simd's table: the striped kernel for |X| <= 32, the lanes for <= 64, and
  // for longer X the striped blocked kernel (none at serial: the scalar blocked loop).
  const simd::kernels& ks = simd::kernels_at(simd);
  const compiled_pattern p = compile_pattern(x, 0, strand::forward, match_rules{});
  min_sink sink;
  const auto k = static_cast<std::uint32_t>(std::min<std::size_t>(bound, p.m));
  if (p.m <= 32 && ks.striped.ends != nullptr) {
    scan_myers_striped(ks.striped, p, y, ctx, lo, hi, k, sink);
  } else if (p.m <= 64 && ks.lanes.kernel != myers_lanes_serial) {
    const compiled_pattern* pp = &p;
    end_sink* sp = &sink;
    scan_myers_lanes(ks.lanes, {&pp, 1}, {&k, 1}, y, ctx, lo, hi, {&sp, 1});
  } else if (p.m <= 64) {
    scan_myers_word(p, y, ctx, lo, hi, k, sink);
  } else if (ks.blocked.best == nullptr || !ks.blocked.best(p, y, ctx, lo, hi, k, sink)) {
    scan_myers_blocked(p, y, ctx, lo, hi, k, sink);
  }
  best_piece r;
  r.distance = sink.best;
  for (std::uint64_t j : sink.ends)
    r.occurrences.push_back(hit{leftmost_start(p, y, j, sink.best, ctx), j + 1, 0, sink.best, strand::forward});
  return r;
}

}  // namespace trawl::approx_detail
