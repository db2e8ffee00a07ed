// teddy.cpp — the small literal-set matcher: Teddy's nibble filter (teddy.hpp) over the text,
// then each candidate compared with its buckets' literals. Every occurrence of every literal
// is reported (overlapping ones too), in (start, pattern, strand) order, like the other set
// engines. Cost: a few SIMD operations per 32 / 64 text bytes plus the candidates, whose rate
// grows with the literals per bucket (one bucket each up to 8 literals).
#include <algorithm>
#include <cstring>

#include "common/dispatch.hpp"
#include "exact/engines.hpp"
#include "exact/teddy.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace exact_detail {

void teddy_candidates_serial(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                             std::size_t limit, std::vector<teddy_candidate>& out) {
  for (std::size_t s = first; s < stop && s + m.f <= limit; ++s) {
    std::uint8_t b = 0xff;
    for (unsigned k = 0; k < m.f; ++k) b = static_cast<std::uint8_t>(b & m.lo[k][text[s + k] & 15] & m.hi[k][text[s + k] >> 4]);
    if (b != 0) out.push_back({s, b});
  }
}

}  // namespace exact_detail

namespace {

using exact_detail::teddy_candidate;

unsigned char fold_byte(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

class teddy_matcher final : public literal_engine {
 public:
  teddy_matcher(literal_table table, const search_options& options)
      : literal_engine(std::move(table)), fold_(options.ignore_case),
        candidates_(simd::kernels_at(options.simd).teddy) {
    const std::size_t n = table_.literals.size();
    masks_.f = static_cast<unsigned>(std::min<std::size_t>(3, table_.min_len));
    for (std::size_t i = 0; i < n; ++i) {
      // consecutive literals share a bucket when there are more than 8
      const auto b = static_cast<unsigned>(n <= teddy_max_literals ? i : i * teddy_max_literals / n);
      buckets_[b].push_back(static_cast<std::uint32_t>(i));
      const std::string& lit = table_.literals[i];
      for (unsigned k = 0; k < masks_.f; ++k) {
        const auto c = static_cast<unsigned char>(lit[k]);
        for (const unsigned char v : {c, fold_ ? fold_byte(c) : c, fold_ && c >= 'a' && c <= 'z' ? static_cast<unsigned char>(c - 32) : c}) {
          masks_.lo[k][v & 15] |= static_cast<std::uint8_t>(1u << b);
          masks_.hi[k][v >> 4] |= static_cast<std::uint8_t>(1u << b);
        }
      }
    }
    if (fold_)
      for (std::string& lit : table_.literals)
        for (char& c : lit) c = static_cast<char>(fold_byte(static_cast<unsigned char>(c)));
  }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    if (own_begin >= own_end || own_begin >= seq.size()) return;
    const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
    const std::size_t limit = read_limit(seq, own_end);
    thread_local std::vector<teddy_candidate> candidates;
    candidates.clear();
    candidates_(masks_, text, own_begin, own_end, limit, candidates);
    const std::size_t first = out.size();
    bool unsorted = false;
    for (const teddy_candidate& c : candidates)
      for (unsigned bits = c.buckets; bits != 0; bits &= bits - 1)
        for (const std::uint32_t id : buckets_[static_cast<unsigned>(__builtin_ctz(bits))]) {
          const std::string& lit = table_.literals[id];
          if (c.pos + lit.size() > limit || !equal(text + c.pos, lit)) continue;
          for (const literal_table::target& tg : table_.targets[id])
            append_in_start_order(out, first, hit{c.pos, c.pos + lit.size(), tg.pattern, 0, tg.dir}, unsorted);
        }
    finish_start_order(out, first, unsorted);
  }

 private:
  [[nodiscard]] bool equal(const unsigned char* t, const std::string& lit) const {
    if (!fold_) return std::memcmp(t, lit.data(), lit.size()) == 0;
    for (std::size_t i = 0; i < lit.size(); ++i)
      if (fold_byte(t[i]) != static_cast<unsigned char>(lit[i])) return false;
    return true;
  }

  bool fold_;
  exact_detail::teddy_candidates_fn candidates_;  ///< the filter of options.simd's dispatch table
  exact_detail::teddy_masks masks_;
  std::array<std::vector<std::uint32_t>, teddy_max_literals> buckets_;  ///< literal ids per bucket
};

}  // namespace

bool teddy_fits(const literal_table& table, simd_level level) {
  // on DNA a 3-byte fingerprint leaves about one position in 64 a candidate per literal: the
  // k-mer filter and the SIMD filter do better there
  const auto dna = [](const std::string& l) {
    return std::all_of(l.begin(), l.end(), [](char c) { return std::strchr("ACGTNacgtn", c) != nullptr && c != 0; });
  };
  return table.literals.size() <= teddy_max_literals && simd::kernels_at(level).features.avx2 &&
         !std::all_of(table.literals.begin(), table.literals.end(), dna);
}

std::unique_ptr<detail::engine> make_teddy_matcher(literal_table table, const search_options& options) {
  return std::make_unique<teddy_matcher>(std::move(table), options);
}

}  // namespace trawl
