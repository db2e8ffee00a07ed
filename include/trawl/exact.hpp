// trawl/exact.hpp — exact single-pattern search engines (serial building blocks).
//
// Every engine reports every occurrence, overlapping ones included ("aa" occurs 3 times in
// "aaaa"), as 0-based start positions in ascending order.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trawl {

enum class exact_algorithm {
  automatic,    ///< the fastest engine for this CPU (the SIMD filter)
  brute_force,  ///< O(n·m) reference
  kmp,          ///< Knuth–Morris–Pratt, O(n + m)
  horspool,     ///< Boyer–Moore–Horspool, bad-character shift of the last window byte
  sunday,       ///< Sunday's quick search, shift by the byte after the window
  simd,         ///< SIMD candidate filter (AVX-512 / AVX2 / portable, chosen at run time)
  /// Pattern sets: every literal in one pass (Vectorscan's FDR / Teddy literal matchers).
  /// make_matcher only: a single-pattern exact_searcher refuses it.
  vectorscan,
  /// Pattern sets of DNA (A, C, G, T, at least 4 bases each): a sampled q-mer filter.
  /// make_matcher only.
  kmer,
  /// Small pattern sets: Teddy's SIMD nibble filter on the literals' first bytes (8 buckets),
  /// candidates compared byte by byte. make_matcher only.
  teddy,
  /// Pattern sets: an Aho–Corasick DFA over byte classes, one table step per text byte and one
  /// per occurrence (for sets with dense occurrences). make_matcher only.
  aho,
};

/// Parses "bf", "kmp", "horspool", "sunday", "simd", "vectorscan", "kmer", "teddy", "aho", "auto"; throws
/// trawl::error otherwise.
exact_algorithm parse_exact_algorithm(std::string_view name);
std::string_view to_string(exact_algorithm a);

/// Instruction set a search uses; `automatic` picks the best the CPU supports. A forced level
/// holds for every kernel of the search (scan, filter, start finding, hit writing): `avx2`
/// uses no AVX-512 instruction, `serial` no SIMD kernel. Forcing a level this CPU lacks is an
/// error: trawl::error(errc::unsupported) when the search (or matcher) is made.
enum class simd_level { automatic, serial, avx2, avx512 };

/// True if this CPU can run `level` (automatic and serial always can). AVX2 means AVX2 with
/// BMI1/2 and POPCNT; AVX-512 means F, BW, VL and DQ with those.
bool cpu_supports(simd_level level);

struct exact_options {
  exact_algorithm algorithm = exact_algorithm::automatic;
  bool ignore_case = false;  ///< fold ASCII letters A-Z / a-z
  simd_level simd = simd_level::automatic;
};

/// A compiled pattern. Construction is O(m + σ); find() is the engine's scan.
class exact_searcher {
 public:
  /// Throws trawl::error on an empty pattern or an unsupported simd level.
  explicit exact_searcher(std::string_view pattern, const exact_options& options = {});
  ~exact_searcher();
  exact_searcher(exact_searcher&&) noexcept;
  exact_searcher& operator=(exact_searcher&&) noexcept;

  /// Appends to `starts` every occurrence start s with from <= s < to and s + m <= text.size(),
  /// ascending. Only bytes in [from, min(to + m - 1, text.size())) are read.
  void find(std::string_view text, std::size_t from, std::size_t to, std::vector<std::uint64_t>& starts) const;

  /// Same as find over the whole text, returning the starts.
  [[nodiscard]] std::vector<std::uint64_t> find_all(std::string_view text) const;

  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] exact_algorithm algorithm() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace trawl
