// iupac_matcher.cpp — exact search with IUPAC pattern codes (N, R, Y, ...): the approximate
// engine with k = 0 in all-ends mode (its match sets implement the IUPAC rules of approx.hpp),
// re-keyed by start so the output order is the exact-search order. O(n·⌈m/64⌉) per pattern.
#include <algorithm>

#include "trawl/detail/engine.hpp"
#include "trawl/approx.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

class iupac_exact_matcher final : public detail::engine {
 public:
  iupac_exact_matcher(const std::vector<std::string>& patterns, const search_options& options) {
    search_options o = options;
    o.max_errors = 0;
    o.all_ends = true;  // with k = 0 every end is its own occurrence; clusters would merge overlaps
    inner_ = detail::make_approx_engine(patterns, o);
    for (const auto& p : patterns) {
      min_len_ = std::min(min_len_, p.size());
      max_len_ = std::max(max_len_, p.size());
    }
  }

  [[nodiscard]] std::size_t lookbehind() const override { return inner_->lookbehind(); }
  [[nodiscard]] std::size_t lookahead() const override { return max_len_ - 1; }
  [[nodiscard]] hit_key key() const override { return hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override { return inner_->one_pattern_strand(); }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    // Hits starting in [own_begin, own_end) end (last byte) in [own_begin + min - 1, own_end + max - 1).
    const std::size_t first = out.size(), open_first = open.size();
    const std::size_t end_lo = std::min(seq.size(), own_begin + min_len_ - 1);
    const std::size_t end_hi = std::min(seq.size(), own_end + max_len_ - 1);
    if (end_lo < end_hi) inner_->scan(seq, end_lo, end_hi, out, open);
    open.resize(open_first);  // all ends: no clusters
    auto keep = std::remove_if(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
                               [&](const hit& h) { return h.start < own_begin || h.start >= own_end; });
    out.erase(keep, out.end());
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order{hit_key::start});
  }

 private:
  std::unique_ptr<detail::engine> inner_;
  std::size_t min_len_ = ~std::size_t{0};
  std::size_t max_len_ = 1;
};

}  // namespace

std::unique_ptr<detail::engine> detail::make_iupac_exact_engine(const std::vector<std::string>& patterns,
                                                                const search_options& options) {
  return std::make_unique<iupac_exact_matcher>(patterns, options);
}

}  // namespace trawl
