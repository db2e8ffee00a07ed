// best_myers.cpp — best approximate substring by blocked Myers (the fast path): every score_j
// with k = |X| (no cut-off possible before the best is known), then the leftmost start of
// each best end by reverse Myers. O(|Y|·⌈|X|/64⌉) + O(⌈|X|/64⌉·|X|) per occurrence.
#include "approx/approx_internal.hpp"

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

best_piece best_piece_myers(std::string_view x, std::string_view y, std::size_t ctx, std::size_t lo, std::size_t hi) {
  const compiled_pattern p = compile_pattern(x, 0, strand::forward, search_options{});
  min_sink sink;
  scan_myers_blocked(p, y, ctx, lo, hi, static_cast<std::uint32_t>(p.m), sink);
  best_piece r;
  r.distance = sink.best;
  for (std::uint64_t j : sink.ends)
    r.occurrences.push_back(hit{leftmost_start(p, y, j, sink.best, ctx), j + 1, 0, sink.best, strand::forward, 0});
  return r;
}

}  // namespace trawl::approx_detail
