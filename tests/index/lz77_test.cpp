// lz77_test.cpp — the LZ77 parse against a naive greedy oracle written here (quadratic).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "text_gen.hpp"
#include "trawl/index.hpp"
#include "trawl/detail/testing.hpp"

namespace {

/// Greedy longest previous factor by trying every earlier start: O(n^2) per phrase at worst.
std::vector<std::uint64_t> naive_phrase_lengths(std::string_view t) {
  std::vector<std::uint64_t> lens;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t best = 0;
    for (std::size_t s = 0; s < i; ++s) {
      std::size_t l = 0;
      while (i + l < t.size() && t[s + l] == t[i + l]) ++l;
      best = std::max(best, l);
    }
    lens.push_back(best == 0 ? 1 : best);
    i += best == 0 ? 1 : best;
  }
  return lens;
}

void check_parse(const std::string& t, bool force64) {
  const auto ph = trawl::index::lz77_parse(t, force64);
  const auto lens = naive_phrase_lengths(t);
  ASSERT_EQ(ph.size(), lens.size()) << "text size " << t.size();
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    ASSERT_EQ(ph[i].pos, at);
    ASSERT_EQ(ph[i].len, lens[i]) << "phrase " << i;
    if (ph[i].literal) {
      ASSERT_EQ(ph[i].len, 1u);
      ASSERT_EQ(t.substr(0, at).find(t[at]), std::string::npos);  // a byte never seen before
    } else {
      ASSERT_LT(ph[i].src, ph[i].pos);
      for (std::uint64_t k = 0; k < ph[i].len; ++k) ASSERT_EQ(t[ph[i].src + k], t[at + k]);
    }
    at += ph[i].len;
  }
  ASSERT_EQ(at, t.size());
}

TEST(Lz77, TinyCases) {
  for (const char* s : {"", "a", "aa", "aaaaaaa", "ab", "abab", "abababa", "abcabcabcx", "mississippi",
                        "abracadabra", "banana", "aabaabaab"})
    for (bool f : {false, true}) check_parse(s, f);
}

TEST(Lz77, RandomAndRepetitive) {
  std::mt19937_64 rng(7);
  for (const std::string& alpha : {std::string("ab"), std::string("acgt"), std::string("abcdefghijklmnopqrstuvwxyz"),
                                   std::string()}) {
    for (std::size_t n : {1u, 2u, 17u, 100u, 700u}) {
      check_parse(oracle::random_text(rng, n, alpha), false);
      check_parse(oracle::random_text(rng, n, alpha), true);
    }
  }
  check_parse(textgen::fibonacci(600), false);
  check_parse(textgen::mutated_copies(rng, 150, 6, 0.01, "acgt"), true);
  check_parse(std::string(500, 'x'), false);
}

}  // namespace
