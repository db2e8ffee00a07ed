// engines.hpp — internal interface of the exact engines (src/exact/). Not installed.
//
// Every engine appends the starts s, from <= s < to and s + m <= n, of the compiled pattern
// in ascending order; it reads only text[from, min(to + m - 1, n)).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/detail/engine.hpp"
#include "trawl/exact.hpp"
#include "trawl/hit.hpp"

namespace trawl::exact_detail {

/// A pattern compiled for every engine: the tables are small (O(σ + m)) and built once.
struct compiled_pattern {
  std::string pat;                        ///< the pattern, ASCII-lowercased when folding
  bool fold = false;                      ///< compare through `tr`
  std::array<unsigned char, 256> tr{};    ///< byte translation: identity or ASCII lowercase
  std::vector<std::size_t> kmp_border;    ///< KMP failure function, kmp_border[i] for prefix length i
  std::array<std::size_t, 256> horspool{};  ///< shift by the last byte of the window
  std::array<std::size_t, 256> sunday{};    ///< shift by the byte just after the window
  // SIMD filter: compare these pattern offsets for 32/64 window starts at once.
  static constexpr int max_filter = 4;
  int filter_count = 2;
  std::array<std::size_t, max_filter> filter_offset{};
};

compiled_pattern compile(std::string_view pattern, bool fold);

/// True if text[s, s+m) equals the pattern (through the fold table when folding).
inline bool verify(const compiled_pattern& p, const unsigned char* t) {
  const std::size_t m = p.pat.size();
  const auto* q = reinterpret_cast<const unsigned char*>(p.pat.data());
  if (!p.fold) {
    for (std::size_t j = 0; j < m; ++j)
      if (t[j] != q[j]) return false;
    return true;
  }
  for (std::size_t j = 0; j < m; ++j)
    if (p.tr[t[j]] != q[j]) return false;
  return true;
}

using engine_fn = void (*)(const compiled_pattern&, std::string_view, std::size_t, std::size_t,
                           std::vector<std::uint64_t>&);

void find_brute_force(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_kmp(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_horspool(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_sunday(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_simd_serial(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_simd_avx2(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);
void find_simd_avx512(const compiled_pattern&, std::string_view, std::size_t, std::size_t, std::vector<std::uint64_t>&);

}  // namespace trawl::exact_detail

namespace trawl {

struct search_options;

/// The distinct literals of a pattern set (each pattern, and its reverse complement with
/// both strands; with ignore_case, literals equal up to ASCII case are one) and, for each,
/// the (pattern, strand) pairs it stands for, in (pattern, strand) order.
struct literal_table {
  struct target {
    std::uint32_t pattern;
    strand dir;
  };
  std::vector<std::string> literals;
  std::vector<std::vector<target>> targets;
  std::size_t min_len = 0, max_len = 0;
};
/// What the matchers of a literal table share (k-mer, Teddy, Aho–Corasick): exact hits keyed by
/// start, a slice read up to the longest literal past its end.
class literal_engine : public detail::engine {
 public:
  explicit literal_engine(literal_table table) : table_(std::move(table)) {}
  [[nodiscard]] std::size_t lookbehind() const override { return 0; }
  [[nodiscard]] std::size_t lookahead() const override { return table_.max_len - 1; }
  [[nodiscard]] hit_key key() const override { return hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override {
    return table_.targets.size() == 1 && table_.targets[0].size() == 1;
  }

 protected:
  /// The end of the bytes a scan of a slice that owns starts up to own_end may read.
  [[nodiscard]] std::size_t read_limit(std::string_view seq, std::size_t own_end) const {
    return std::min(seq.size(), own_end + table_.max_len - 1);
  }

  literal_table table_;
};

/// Appends `h` to out[first..) kept in (start, pattern, strand) order by moving it back past
/// later hits, for engines whose hits arrive nearly in that order (by end, or by sample
/// position). Past a few steps it gives up, sets `unsorted` and leaves the order to
/// finish_start_order.
inline void append_in_start_order(std::vector<hit>& out, std::size_t first, const hit& h, bool& unsorted) {
  constexpr int max_steps = 16;
  constexpr hit_order before{hit_key::start};
  out.push_back(h);
  if (unsorted) return;
  std::size_t i = out.size() - 1;
  for (int steps = 0; i > first && before(h, out[i - 1]); --i) {
    if (++steps > max_steps) {
      unsorted = true;
      break;
    }
    out[i] = out[i - 1];
  }
  out[i] = h;
}

/// Sorts out[first..) by (start, pattern, strand) when append_in_start_order gave up.
void finish_start_order(std::vector<hit>& out, std::size_t first, bool unsorted);

literal_table make_literal_table(const std::vector<std::string>& patterns, const search_options& options);

/// True when every literal is DNA (A, C, G, T in either case), at least 4 bases long.
bool kmer_set_applies(const literal_table& table);
/// True when the k-mer matcher applies and its filter pays for itself (long enough literals
/// for their number): the automatic choice over Vectorscan.
bool kmer_set_fits(const literal_table& table);

/// The DNA k-mer matcher for a literal table (kmer_set.cpp).
std::unique_ptr<detail::engine> make_kmer_set_matcher(literal_table table, const search_options& options);

/// `m` restricted to hits that are whole words / whole lines (options.whole_words,
/// whole_lines), or `m` itself when neither is asked. Throws trawl::error for approximate
/// searches.
std::unique_ptr<detail::engine> with_boundaries(std::unique_ptr<detail::engine> m, const search_options& options);

/// Literals up to which Teddy gives each its own bucket.
constexpr std::size_t teddy_max_literals = 8;
/// True when Teddy is the automatic choice for these literals at `level`: at most
/// teddy_max_literals, not all DNA, and a level of AVX2 or above (its dispatch table's features).
bool teddy_fits(const literal_table& table, simd_level level);
/// The Teddy matcher for a literal table (teddy.cpp): any number of literals, fastest with at
/// most teddy_max_literals (one bucket each).
std::unique_ptr<detail::engine> make_teddy_matcher(literal_table table, const search_options& options);
/// Literals from which the Aho–Corasick DFA is the automatic choice over Vectorscan (whose
/// cost grows with the occurrences: a set this large has many), and the most its table may
/// take (an upper bound from the literals' total length).
constexpr std::size_t aho_min_literals = 4096;
constexpr std::size_t aho_max_table_bytes = std::size_t{64} << 20;
/// True when the Aho–Corasick DFA is the automatic choice for these literals.
bool aho_fits(const literal_table& table);
/// The Aho–Corasick matcher for a literal table (aho_corasick.cpp): a full DFA over byte
/// classes, for sets whose occurrences are dense.
std::unique_ptr<detail::engine> make_aho_matcher(literal_table table, const search_options& options);
/// The Vectorscan matcher for a literal table (literal_set.cpp).
std::unique_ptr<detail::engine> make_literal_set_matcher(literal_table table, const search_options& options);

/// The matcher for search_options::regex (regex_matcher.cpp), whole words and lines included.
std::unique_ptr<detail::engine> make_regex_matcher(const std::vector<std::string>& patterns, const search_options& options);

}  // namespace trawl
