// trawl/detail/testing.hpp — engine internals that trawl's own tests, fuzzers and benchmarks
// reach from outside the library: serial references for other engines, the LZ77 parse, the
// index's primary occurrences. Not installed and not part of the API (see docs/API.md).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/approx.hpp"
#include "trawl/hit.hpp"
#include "trawl/index.hpp"
#include "trawl/search.hpp"

namespace trawl {

/// One end position j (inclusive, 0-based) of a pattern in a text with its score_j.
struct end_score {
  std::uint64_t end = 0;
  std::uint32_t errors = 0;
  friend bool operator==(const end_score&, const end_score&) = default;
};

/// Serial reference for other backends (GPU, SIMD): every j of `text` with score_j <= k for
/// one pattern (forward strand only), ascending, computed by the engine options.approx
/// names (k = options.max_errors; ignore_case / iupac / hamming honored).
/// Complexity: as make_approx_matcher; memory O(hits).
std::vector<end_score> approx_end_scores(std::string_view pattern, std::string_view text,
                                         const search_options& options);

/// All hits of one serial scan of `text` (one slice owning everything) — the matcher's
/// output without the parallel driver. Same options as make_approx_matcher.
std::vector<hit> approx_search_serial(std::string_view text, const std::vector<std::string>& patterns,
                                      const search_options& options);

}  // namespace trawl

namespace trawl::index {

/// One LZ77 phrase: S[pos, pos+len) copies S[src, src+len) (src < pos), or is the literal S[pos].
struct lz77_phrase {
  std::uint64_t pos = 0;
  std::uint64_t len = 0;
  std::uint64_t src = 0;  ///< unused (0) for a literal
  bool literal = false;
};

/// Exact greedy LZ77 parse (longest previous factor, self-overlap allowed; a byte never seen
/// before is a literal phrase of length 1). Kärkkäinen, Kempa, Puglisi, "Linear time
/// Lempel-Ziv factorization: simple, fast, small" (CPM 2013), KKP3: PSV/NSV over the suffix
/// array, LCPs by direct comparison at phrase heads only (sum of phrase lengths = n, so O(n)).
/// O(n) time after the suffix array; 13n bytes (n < 2^31) or 25n bytes (64-bit) peak.
std::vector<lz77_phrase> lz77_parse(std::string_view text, bool force_64bit = false,
                                    const progress_callback& progress = {});
/// Relative LZ: text[0, reference) parsed as lz77_parse does, each later phrase at least the
/// longest match of what follows in that reference: the longer of it and the co-linear sources
/// (earlier text copying the same stretch of the reference; lz77.cpp). A byte not in the
/// reference is a literal; no phrase crosses a multiple of 4 MiB past the reference. Peak: the
/// text + 16 bytes per reference byte (32-bit positions: reference < 2^31) + the first pass's
/// phrases. reference >= text.size() is lz77_parse.
std::vector<lz77_phrase> lz77_parse_relative(std::string_view text, std::uint64_t reference, bool force_64bit = false,
                                             const progress_callback& progress = {});

namespace detail {
/// How count reaches its answer: as it chooses, or forced (the tests check each against brute
/// force): the recursion over every kept phrase, the recursion over the inner ones with the
/// leaves counted in bulk (patterns up to 2M long), the phrase program, or the run-length BWT
/// (an index built with it; the others otherwise).
enum class count_path { automatic, recursion, leaves, phrases, runs };
struct index_access {
  /// The primary occurrences only (not inside one kept phrase), sorted.
  static std::vector<std::uint64_t> locate_primary(const hybrid_index& ix, std::string_view pattern);
  /// count (or one pattern of count_records, with in_records) by `path`, on `threads` threads.
  static std::uint64_t count(const hybrid_index& ix, std::string_view pattern, bool in_records, count_path path,
                             unsigned threads = 1);
  /// Number of kept phrases that count treats as leaves (their copies counted, not visited).
  static std::uint64_t leaf_phrases(const hybrid_index& ix);
};
}  // namespace detail

/// The primary occurrences of `pattern` in `ix` (not inside one kept phrase), sorted.
inline std::vector<std::uint64_t> locate_primary(const hybrid_index& ix, std::string_view pattern) {
  return detail::index_access::locate_primary(ix, pattern);
}

}  // namespace trawl::index
