// boundary_matcher.cpp — whole words and whole lines (grep -w / -x) for exact search: a
// matcher around another that sees one byte more on each side and keeps the hits whose
// neighbours are boundaries. Exact hits are every occurrence, so filtering them gives the
// same set as matching with the boundary rule.
#include <algorithm>

#include "trawl/detail/engine.hpp"
#include "exact/engines.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

/// Letters, digits, '_' and every byte >= 0x80 (so UTF-8 letters are word bytes too).
bool word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

class boundary_matcher final : public detail::engine_wrapper {
 public:
  boundary_matcher(std::unique_ptr<detail::engine> inner, bool words, bool lines)
      : engine_wrapper(*inner), inner_(std::move(inner)), words_(words), lines_(lines) {}

  [[nodiscard]] std::size_t lookbehind() const override { return inner_->lookbehind() + 1; }
  [[nodiscard]] std::size_t lookahead() const override { return inner_->lookahead() + 1; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    const std::size_t first = out.size(), open_first = open.size();
    inner_->scan(seq, own_begin, own_end, out, open);
    // The window reaches one byte past every hit, unless the sequence ends there.
    const auto keep = [&](std::size_t i) {
      const hit& h = out[i];
      const int before = h.start == 0 ? -1 : static_cast<unsigned char>(seq[h.start - 1]);
      const int after = h.end >= seq.size() ? -1 : static_cast<unsigned char>(seq[h.end]);
      if (lines_ && !((before < 0 || before == '\n') && (after < 0 || after == '\n'))) return false;
      if (words_ && ((before >= 0 && word_byte(static_cast<unsigned char>(before))) ||
                     (after >= 0 && word_byte(static_cast<unsigned char>(after)))))
        return false;
      return true;
    };
    detail::keep_hits(out, first, open, open_first, keep);
  }

 private:
  std::unique_ptr<detail::engine> inner_;
  bool words_, lines_;
};

}  // namespace

std::unique_ptr<detail::engine> with_boundaries(std::unique_ptr<detail::engine> m, const search_options& options) {
  if (!options.whole_words && !options.whole_lines) return m;
  if (options.max_errors > 0 || options.all_ends)
    throw error(errc::invalid_argument, "whole words and whole lines need exact search (max_errors = 0)");
  return std::make_unique<boundary_matcher>(std::move(m), options.whole_words, options.whole_lines);
}

}  // namespace trawl
