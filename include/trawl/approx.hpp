// trawl/approx.hpp — approximate search (edit distance <= k) and best approximate substring.
//
// Semantics (Sellers / Myers): for a pattern P (length m) and text T, score_j is the smallest
// edit distance between P and any substring of T ending at position j (inclusive, 0-based).
//  - all-ends mode reports every j with score_j <= k as hit{start = leftmost z achieving the
//    score, end = j + 1, errors = score_j}.
//  - cluster mode (default) groups maximal runs of consecutive j with score_j <= k and reports,
//    per run, the j with the smallest score (leftmost on ties), the leftmost start z achieving
//    it, and the score.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl {

/// Builds the approximate matcher (options.max_errors >= 1, or all_ends). Key = last byte.
/// Throws trawl::error on bad options (k < 0, empty pattern, NUL byte).
std::unique_ptr<matcher> make_approx_matcher(const std::vector<std::string>& patterns,
                                             const search_options& options);

/// CIGAR (=, X, I, D run-length, e.g. "10=1X3=") of an optimal global alignment of `pattern`
/// against `text` (I = byte in the pattern only, D = byte in the text only).
std::string align_cigar(std::string_view pattern, std::string_view text, const search_options& options = {});

/// Result of a best approximate substring query: ASM(X, Y) = min over substrings Y' of Y of
/// ED(X, Y'), and every [start, end) of Y achieving it.
struct best_result {
  std::uint32_t distance = 0;
  std::vector<hit> occurrences;
};

enum class best_algorithm { automatic, myers, wavefront };

struct best_options {
  best_algorithm algorithm = best_algorithm::automatic;
  unsigned threads = 0;  ///< 0 = all cores
};

/// ASM(X, Y). X may be as long as Y. Throws trawl::error on an empty X.
best_result best_substring(std::string_view x, std::string_view y, const best_options& options = {});

}  // namespace trawl
