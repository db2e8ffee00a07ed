// approx_test_util.hpp — expected hits built straight from the oracle's score arrays, and the
// engine list every test runs over.
#pragma once

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "trawl/approx.hpp"
#include "trawl/exact.hpp"
#include "trawl/detail/testing.hpp"

namespace approx_test {

/// Alphabets of 2, 4, 20 and 256 symbols ("" = every byte).
inline const std::vector<std::string>& alphabets() {
  static const std::vector<std::string> a = {"ab", "ACGT", "ACDEFGHIKLMNPQRSTVWY", ""};
  return a;
}

/// A pattern over `alphabet` (NUL bytes, illegal in patterns, become 1).
inline std::string random_pattern(std::mt19937_64& rng, std::size_t m, const std::string& alphabet) {
  std::string p = oracle::random_text(rng, m, alphabet);
  for (char& c : p)
    if (c == '\0') c = '\1';
  return p;
}

/// Randomly edited copy of p (up to `edits` substitutions / insertions / deletions).
inline std::string mutate(std::mt19937_64& rng, std::string p, std::size_t edits, const std::string& alphabet) {
  for (std::size_t e = 0; e < edits && !p.empty(); ++e) {
    const std::size_t at = rng() % p.size();
    const std::string c = random_pattern(rng, 1, alphabet);
    switch (rng() % 3) {
      case 0: p[at] = c[0]; break;
      case 1: p.insert(at, c); break;
      default: p.erase(at, 1); break;
    }
  }
  return p;
}

/// Random text with mutated copies of p planted about every `gap` bytes.
inline std::string text_with_copies(std::mt19937_64& rng, std::size_t n, const std::string& p, std::size_t k,
                                    const std::string& alphabet) {
  std::string t = oracle::random_text(rng, n, alphabet);
  if (n < 2 * p.size() + 2) return t;
  const std::size_t gap = std::max<std::size_t>(4 * p.size(), 64);
  for (std::size_t at = rng() % gap; at + p.size() + k < n; at += gap / 2 + rng() % gap) {
    const std::string copy = mutate(rng, p, rng() % (k + 2), alphabet);
    t.replace(at, std::min(copy.size(), n - at), copy.substr(0, n - at));
  }
  t.resize(n);
  return t;
}

/// What a striped blocked kernel of `stripes` stripes (blocked_stripes_plan.hpp: len ends each,
/// a multiple of 8, from a0 = max(report_from, from + m + k - 1); the ends around them from the
/// scalar loop) must report over [report_from, to), scores[j - from] being the oracle's score of
/// end j from a DP started at `from`: every end <= k (`all`), and what the best-substring kernel
/// passes on (`prefix_min`: in a stripe the ends no worse than every earlier end of that
/// stripe, outside the stripes every end <= k).
struct striped_blocked_ends {
  std::vector<trawl::end_score> all, prefix_min;
};
inline striped_blocked_ends expect_striped_blocked(const std::vector<std::uint32_t>& scores, std::size_t from,
                                                   std::size_t report_from, std::size_t to, std::size_t m,
                                                   std::uint32_t k, std::size_t stripes) {
  striped_blocked_ends r;
  const std::size_t w = m + k - 1, a0 = std::max(report_from, from + w);
  const std::size_t len = (to - a0) / stripes / 8 * 8;
  std::uint32_t lmin = k;
  for (std::size_t j = report_from; j < to; ++j) {
    const std::uint32_t s = scores[j - from];
    if (s <= k) r.all.push_back({j, s});
    const bool striped = j >= a0 && j < a0 + stripes * len;
    if (striped && (j - a0) % len == 0) lmin = k;  // a stripe's first end
    if (s <= (striped ? lmin : k)) r.prefix_min.push_back({j, s});
    if (striped) lmin = std::min(lmin, s);
  }
  return r;
}

struct expected_end {
  std::uint64_t j;
  std::uint32_t score;
};

inline std::vector<trawl::end_score> oracle_ends(const std::vector<std::uint32_t>& scores, std::uint32_t k) {
  std::vector<trawl::end_score> out;
  for (std::size_t j = 0; j < scores.size(); ++j)
    if (scores[j] <= k) out.push_back({j, scores[j]});
  return out;
}

/// The k values the striped blocked kernel tests run for a pattern of m bytes: 0 to m, across
/// the pigeonhole filter's and the kernels' ranges.
inline std::vector<std::uint32_t> blocked_k_values(std::size_t m) {
  const auto mm = static_cast<std::uint32_t>(m);
  return {0, 1, mm / 8, mm / 4, (mm - 1) / 2, mm / 2, 3 * mm / 4, mm};
}

/// Clusters (end = j + 1 of the min-score end, leftmost on ties; errors) from a score array;
/// starts are left 0 (checked separately).
inline std::vector<trawl::hit> oracle_clusters(const std::vector<std::uint32_t>& scores, std::uint32_t k) {
  std::vector<trawl::hit> out;
  for (std::size_t j = 0; j < scores.size();) {
    if (scores[j] > k) {
      ++j;
      continue;
    }
    std::size_t best = j;
    std::size_t e = j;
    while (e < scores.size() && scores[e] <= k) {
      if (scores[e] < scores[best]) best = e;
      ++e;
    }
    trawl::hit h;
    h.end = best + 1;
    h.errors = scores[best];
    out.push_back(h);
    j = e;
  }
  return out;
}

/// Every approximate engine name with the SIMD levels this CPU runs.
struct engine {
  std::string algorithm;
  trawl::simd_level simd;
  std::string name;
};
/// A hit as "[start,end) pattern p strand s errors e", for failure messages.
inline std::string show(const trawl::hit& h) {
  return "[" + std::to_string(h.start) + "," + std::to_string(h.end) + ") pattern " + std::to_string(h.pattern) +
         (h.dir == trawl::strand::reverse ? " -" : " +") + " errors " + std::to_string(h.errors);
}

/// The SIMD levels (AVX-512, AVX2) this CPU runs.
inline std::vector<trawl::simd_level> simd_levels() {
  std::vector<trawl::simd_level> levels;
  for (auto l : {trawl::simd_level::avx512, trawl::simd_level::avx2})
    if (trawl::cpu_supports(l)) levels.push_back(l);
  return levels;
}

inline std::vector<engine> engines(std::size_t m) {
  std::vector<engine> e = {{"dp", trawl::simd_level::automatic, "dp"},
                           {"myers-blocked", trawl::simd_level::automatic, "myers-blocked"},
                           {"auto", trawl::simd_level::automatic, "auto"},
                           {"myers-simd", trawl::simd_level::serial, "lanes-serial"},
                           {"myers-filter", trawl::simd_level::serial, "filter-serial"}};
  if (m <= 64) e.push_back({"myers-word", trawl::simd_level::automatic, "myers-word"});
  // the seed filter wherever its pieces can be seeded (at most four byte classes), else auto
  e.push_back({"myers-seeds", trawl::simd_level::automatic, "seeds"});
  if (trawl::cpu_supports(trawl::simd_level::avx2)) {
    e.push_back({"myers-simd", trawl::simd_level::avx2, "lanes-avx2"});
    e.push_back({"myers-filter", trawl::simd_level::avx2, "filter-avx2"});
  }
  if (trawl::cpu_supports(trawl::simd_level::avx512))
    e.push_back({"myers-simd", trawl::simd_level::avx512, "lanes-avx512"});
  if (trawl::cpu_supports(trawl::simd_level::avx512))
    e.push_back({"myers-filter", trawl::simd_level::avx512, "filter-avx512"});
  if (trawl::cpu_supports(trawl::simd_level::avx512))
    e.push_back({"myers-striped", trawl::simd_level::avx512, "striped-avx512"});
  if (trawl::cpu_supports(trawl::simd_level::avx2))
    e.push_back({"myers-striped", trawl::simd_level::avx2, "striped-avx2"});
  if (trawl::cpu_supports(trawl::simd_level::avx512))
    e.push_back({"myers-suffix", trawl::simd_level::avx512, "suffix-avx512"});
  if (trawl::cpu_supports(trawl::simd_level::avx2))
    e.push_back({"myers-suffix", trawl::simd_level::avx2, "suffix-avx2"});
  return e;
}

}  // namespace approx_test
