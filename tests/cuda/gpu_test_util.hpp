// gpu_test_util.hpp — shared helpers of the CUDA tests: device check, expected hits built
// from the naive oracles only (no library code), random inputs with planted occurrences.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <initializer_list>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.hpp"
#include "trawl/gpu.hpp"
#include "trawl/hit.hpp"

#define TRAWL_REQUIRE_GPU() \
  do {                      \
    if (!trawl::gpu::available()) GTEST_SKIP() << "no CUDA device"; \
  } while (0)

namespace gputest {

inline std::string fold(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return s;
}

inline bool key_less_start(const trawl::hit& a, const trawl::hit& b) {
  return std::tie(a.start, a.pattern, a.dir, a.end) < std::tie(b.start, b.pattern, b.dir, b.end);
}
inline bool key_less_end(const trawl::hit& a, const trawl::hit& b) {
  return std::tie(a.end, a.pattern, a.dir, a.start) < std::tie(b.end, b.pattern, b.dir, b.start);
}

/// Planted copies of patterns (optionally mutated) in a random text.
inline std::string text_with_plants(std::mt19937_64& rng, std::size_t n, std::string_view alphabet,
                                    const std::vector<std::string>& patterns, int plants, int mutations) {
  std::string t = oracle::random_text(rng, n, alphabet);
  if (patterns.empty()) return t;
  for (int i = 0; i < plants; ++i) {
    std::string p = patterns[rng() % patterns.size()];
    for (int e = 0; e < mutations && !p.empty(); ++e) {
      const std::size_t at = rng() % p.size();
      switch (rng() % 3) {
        case 0: p[at] = alphabet[rng() % alphabet.size()]; break;
        case 1: p.erase(at, 1); break;
        default: p.insert(at, 1, alphabet[rng() % alphabet.size()]); break;
      }
    }
    if (p.size() >= t.size()) continue;
    const std::size_t at = rng() % (t.size() - p.size());
    t.replace(at, p.size(), p);
  }
  return t;
}

/// Leftmost z with ED(p, t[z..j]) == score, by trying every z (substrings longer than
/// m + score cannot reach the score).
inline std::uint64_t naive_leftmost(std::string_view p, std::string_view t, std::uint64_t j, std::uint32_t score) {
  const std::uint64_t lo = j + 1 >= p.size() + score ? j + 1 - p.size() - score : 0;
  for (std::uint64_t z = lo; z <= j + 1; ++z)
    if (oracle::edit_distance(p, t.substr(z, j + 1 - z)) == score) return z;
  ADD_FAILURE() << "no start for end " << j;
  return 0;
}

/// Expected approximate hits of one searched pattern `p` (already in the searched strand).
inline void expected_approx(std::string_view p, std::string_view t, std::uint32_t k, bool all_ends,
                            std::uint32_t pattern, trawl::strand dir, std::vector<trawl::hit>& out) {
  const std::vector<std::uint32_t> s = oracle::end_scores(p, t);
  auto emit = [&](std::size_t j) {
    out.push_back(trawl::hit{naive_leftmost(p, t, j, s[j]), j + 1, pattern, s[j], dir});
  };
  for (std::size_t j = 0; j < t.size();) {
    if (s[j] > k) {
      ++j;
      continue;
    }
    if (all_ends) {
      emit(j++);
      continue;
    }
    std::size_t best = j;
    while (j < t.size() && s[j] <= k) {
      if (s[j] < s[best]) best = j;
      ++j;
    }
    emit(best);
  }
}

inline std::vector<trawl::hit> collect(const std::vector<std::string>& patterns, std::string_view text,
                                       const trawl::search_options& o, const trawl::gpu::gpu_options& g) {
  return trawl::gpu::search(text, patterns, o, g);
}

/// collect() with each of `chunks` as the chunk size gives `want`.
inline void expect_at_chunks(const std::vector<std::string>& patterns, std::string_view text,
                             const trawl::search_options& o, const std::vector<trawl::hit>& want,
                             std::initializer_list<std::size_t> chunks) {
  for (const std::size_t chunk : chunks) {
    trawl::gpu::gpu_options g;
    g.chunk_size = chunk;
    EXPECT_EQ(collect(patterns, text, o, g), want) << "chunk " << chunk;
  }
}

}  // namespace gputest
