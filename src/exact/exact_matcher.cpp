// exact_matcher.cpp — the matcher for exact search of a pattern set (both strands optional).
// One exact_searcher per (pattern, strand); a slice scan is O(P·slice) with the chosen engine.
#include <algorithm>

#include "trawl/detail/engine.hpp"
#include "exact/engines.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

/// Pattern-strands from which one pass of a set engine beats one SIMD pass per pattern-strand:
/// Vectorscan, the k-mer filter (DNA), Teddy (at most teddy_max_literals) and Aho–Corasick
/// (at least aho_min_literals).
constexpr std::size_t literal_set_min_strands = 4;
constexpr std::size_t kmer_set_min_strands = 2;

class exact_matcher final : public detail::engine {
 public:
  exact_matcher(const std::vector<std::string>& patterns, const search_options& options) {
    const exact_options eo{options.exact, options.ignore_case, options.simd};
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      entries_.push_back({exact_searcher(patterns[i], eo), static_cast<std::uint32_t>(i), strand::forward});
      if (options.both_strands)
        entries_.push_back({exact_searcher(reverse_complement(patterns[i]), eo), static_cast<std::uint32_t>(i),
                            strand::reverse});
      max_len_ = std::max(max_len_, patterns[i].size());
    }
  }

  [[nodiscard]] std::size_t lookbehind() const override { return 0; }
  [[nodiscard]] std::size_t lookahead() const override { return max_len_ - 1; }
  [[nodiscard]] hit_key key() const override { return hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override { return entries_.size() == 1; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    const std::size_t first = out.size();
    std::vector<std::uint64_t> starts;
    for (const auto& e : entries_) {
      starts.clear();
      e.searcher.find(seq, own_begin, own_end, starts);
      const std::uint64_t m = e.searcher.size();
      for (std::uint64_t s : starts) out.push_back(hit{s, s + m, e.pattern, 0, e.dir});
    }
    if (entries_.size() > 1)
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order{hit_key::start});
  }

 private:
  struct entry {
    exact_searcher searcher;
    std::uint32_t pattern;
    strand dir;
  };
  std::vector<entry> entries_;
  std::size_t max_len_ = 1;
};

}  // namespace

std::unique_ptr<detail::engine> detail::make_exact_engine(const std::vector<std::string>& patterns,
                                                          const search_options& options) {
  // The set engines pick their own instruction sets (Vectorscan) or follow options.simd (k-mer
  // filter); the automatic choice takes them only when no SIMD level is forced.
  const std::size_t strands = patterns.size() * (options.both_strands ? 2 : 1);
  switch (options.exact) {
    case exact_algorithm::vectorscan: return make_literal_set_matcher(make_literal_table(patterns, options), options);
    case exact_algorithm::teddy: return make_teddy_matcher(make_literal_table(patterns, options), options);
    case exact_algorithm::aho: return make_aho_matcher(make_literal_table(patterns, options), options);
    case exact_algorithm::kmer: {
      literal_table table = make_literal_table(patterns, options);
      if (!kmer_set_applies(table))
        throw error(errc::invalid_argument, "the kmer engine needs DNA patterns (A, C, G, T) of at least 4 bases");
      return make_kmer_set_matcher(std::move(table), options);
    }
    case exact_algorithm::automatic:
      if (options.simd == simd_level::automatic && strands >= kmer_set_min_strands) {
        literal_table table = make_literal_table(patterns, options);
        if (kmer_set_fits(table)) return make_kmer_set_matcher(std::move(table), options);
        if (teddy_fits(table, options.simd)) return make_teddy_matcher(std::move(table), options);
        if (aho_fits(table)) return make_aho_matcher(std::move(table), options);
        if (strands >= literal_set_min_strands) return make_literal_set_matcher(std::move(table), options);
      }
      break;
    default: break;
  }
  return std::make_unique<exact_matcher>(patterns, options);
}

}  // namespace trawl
