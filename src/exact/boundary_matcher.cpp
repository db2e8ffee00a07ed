// boundary_matcher.cpp — whole words and whole lines (grep -w / -x) for exact search: a
// matcher around another that sees one byte more on each side and keeps the hits whose
// neighbours are boundaries. Exact hits are every occurrence, so filtering them gives the
// same set as matching with the boundary rule.
#include <algorithm>

#include "exact/engines.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

/// Letters, digits, '_' and every byte >= 0x80 (so UTF-8 letters are word bytes too).
bool word_byte(unsigned char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c >= 0x80;
}

class boundary_matcher final : public matcher {
 public:
  boundary_matcher(std::unique_ptr<matcher> inner, bool words, bool lines)
      : inner_(std::move(inner)), words_(words), lines_(lines) {}

  [[nodiscard]] std::size_t lookbehind() const override { return inner_->lookbehind() + 1; }
  [[nodiscard]] std::size_t lookahead() const override { return inner_->lookahead() + 1; }
  [[nodiscard]] hit_key key() const override { return inner_->key(); }
  [[nodiscard]] bool one_pattern_strand() const override { return inner_->one_pattern_strand(); }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out) const override {
    const std::size_t first = out.size();
    inner_->scan(seq, own_begin, own_end, out);
    // The window reaches one byte past every hit, unless the sequence ends there.
    const auto keep = [&](const hit& h) {
      const int before = h.start == 0 ? -1 : static_cast<unsigned char>(seq[h.start - 1]);
      const int after = h.end >= seq.size() ? -1 : static_cast<unsigned char>(seq[h.end]);
      if (lines_ && !((before < 0 || before == '\n') && (after < 0 || after == '\n'))) return false;
      if (words_ && ((before >= 0 && word_byte(static_cast<unsigned char>(before))) ||
                     (after >= 0 && word_byte(static_cast<unsigned char>(after)))))
        return false;
      return true;
    };
    out.erase(std::stable_partition(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), keep), out.end());
  }

 private:
  std::unique_ptr<matcher> inner_;
  bool words_, lines_;
};

}  // namespace

std::unique_ptr<matcher> with_boundaries(std::unique_ptr<matcher> m, const search_options& options) {
  if (!options.whole_words && !options.whole_lines) return m;
  if (options.max_errors > 0 || options.all_ends)
    throw error(errc::invalid_argument, "whole words and whole lines need exact search (max_errors = 0)");
  return std::make_unique<boundary_matcher>(std::move(m), options.whole_words, options.whole_lines);
}

}  // namespace trawl
