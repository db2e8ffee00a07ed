// exact_test.cpp — every exact engine and SIMD backend against the naive oracle.
#include <gtest/gtest.h>

#include <random>

#include "guarded_text.hpp"
#include "oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/exact.hpp"

namespace {

using trawl::exact_algorithm;
using trawl::simd_level;

struct engine_case {
  exact_algorithm algorithm;
  simd_level simd;
  const char* name;
};

std::vector<engine_case> all_engines() {
  std::vector<engine_case> v = {{exact_algorithm::brute_force, simd_level::automatic, "bf"},
                                {exact_algorithm::kmp, simd_level::automatic, "kmp"},
                                {exact_algorithm::horspool, simd_level::automatic, "horspool"},
                                {exact_algorithm::sunday, simd_level::automatic, "sunday"},
                                {exact_algorithm::simd, simd_level::serial, "simd_serial"},
                                {exact_algorithm::automatic, simd_level::automatic, "auto"}};
  if (trawl::cpu_supports(simd_level::avx2)) v.push_back({exact_algorithm::simd, simd_level::avx2, "simd_avx2"});
  if (trawl::cpu_supports(simd_level::avx512)) v.push_back({exact_algorithm::simd, simd_level::avx512, "simd_avx512"});
  return v;
}

class ExactEngine : public ::testing::TestWithParam<engine_case> {};

std::vector<std::uint64_t> run(const engine_case& e, std::string_view text, std::string_view pat, bool fold = false) {
  trawl::exact_searcher s(pat, {e.algorithm, fold, e.simd});
  return s.find_all(text);
}

TEST_P(ExactEngine, TinyEdgeCases) {
  const auto& e = GetParam();
  EXPECT_EQ(run(e, "aaaa", "aa"), (std::vector<std::uint64_t>{0, 1, 2}));
  EXPECT_EQ(run(e, "abc", "abcd"), std::vector<std::uint64_t>{});
  EXPECT_EQ(run(e, "abc", "abc"), std::vector<std::uint64_t>{0});
  EXPECT_EQ(run(e, "", "a"), std::vector<std::uint64_t>{});
  EXPECT_EQ(run(e, "xab", "b"), std::vector<std::uint64_t>{2});
  EXPECT_EQ(run(e, "abababa", "aba"), (std::vector<std::uint64_t>{0, 2, 4}));
  EXPECT_EQ(run(e, "ABab", "ab", true), (std::vector<std::uint64_t>{0, 2}));
  EXPECT_EQ(run(e, std::string("a\0b\0a\0b", 7), std::string("\0b", 2)), (std::vector<std::uint64_t>{1, 5}));
}

// memchr/ripgrep style: seed cases padded on both sides to cross every vector boundary.
TEST_P(ExactEngine, PaddedSeedsHitEveryAlignment) {
  const auto& e = GetParam();
  const std::vector<std::pair<std::string, std::string>> seeds = {
      {"needle", "needle"}, {"aXa", "a"}, {"abcabcab", "cab"}, {"ACGTACGT", "GTAC"}, {"zz", "zz"}};
  for (const auto& [core, pat] : seeds)
    for (std::size_t left = 0; left < 70; left += 3)
      for (std::size_t right = 0; right < 70; right += 5) {
        const std::string text = std::string(left, '.') + core + std::string(right, '.');
        ASSERT_EQ(run(e, text, pat), oracle::naive_find(text, pat)) << e.name << " left=" << left << " right=" << right;
      }
}

TEST_P(ExactEngine, RandomAgainstOracle) {
  const auto& e = GetParam();
  std::mt19937_64 rng(20261122);
  const std::vector<std::string> alphabets = {"01", "ACGT", "abcdefghijklmnopqrstuvwxyz", ""};
  for (const auto& alpha : alphabets) {
    for (int iter = 0; iter < 60; ++iter) {
      const std::size_t n = std::uniform_int_distribution<std::size_t>(0, iter % 10 == 0 ? 200000 : 3000)(rng);
      std::string text = oracle::random_text(rng, n, alpha);
      std::size_t m = std::uniform_int_distribution<std::size_t>(1, iter % 3 == 0 ? 300 : 12)(rng);
      std::string pat;
      // Half the patterns are cut from the text so there are hits; the others are random.
      if (n >= m && iter % 2 == 0) pat = text.substr(std::uniform_int_distribution<std::size_t>(0, n - m)(rng), m);
      else pat = oracle::random_text(rng, m, alpha);
      const bool fold = alpha.size() == 26 && iter % 4 == 1;
      if (fold)
        for (auto& c : text)
          if (rng() % 2) c = static_cast<char>(c - 32);  // mixed case text
      ASSERT_EQ(run(e, text, pat, fold), oracle::naive_find(text, pat, fold))
          << e.name << " sigma=" << alpha.size() << " n=" << n << " m=" << m << " fold=" << fold;
    }
  }
}

TEST_P(ExactEngine, RangeRestrictedFind) {
  const auto& e = GetParam();
  std::mt19937_64 rng(7);
  const std::string text = oracle::random_text(rng, 5000, "AC");
  trawl::exact_searcher s("ACA", {e.algorithm, false, e.simd});
  const auto all = oracle::naive_find(text, "ACA");
  for (std::size_t from = 0; from < 5000; from += 397)
    for (std::size_t to = from; to <= 5000; to += 611) {
      std::vector<std::uint64_t> got;
      s.find(text, from, to, got);
      std::vector<std::uint64_t> want;
      for (auto p : all)
        if (p >= from && p < to) want.push_back(p);
      ASSERT_EQ(got, want) << e.name << " from=" << from << " to=" << to;
    }
}

// The text touches an inaccessible page before or after it: an engine that reads a byte
// outside it (a vector load past the end, a skip table probe) crashes the test.
TEST_P(ExactEngine, NoReadsOutsideTheText) {
  const auto& e = GetParam();
  std::mt19937_64 rng(21);
  for (std::size_t n : {std::size_t{1}, std::size_t{63}, std::size_t{1000}, std::size_t{9000}}) {
    const std::string t = oracle::random_text(rng, n, "ACGT");
    for (bool at_start : {true, false}) {
      const oracle::guarded_text g(t, at_start);
      for (std::size_t m : {std::size_t{1}, std::size_t{2}, std::size_t{5}, std::size_t{17}, std::size_t{40}}) {
        if (m > n) continue;
        for (const std::string& pat : {t.substr(0, m), t.substr(n - m, m)}) {
          SCOPED_TRACE(std::string(e.name) + " n=" + std::to_string(n) + " m=" + std::to_string(m));
          EXPECT_EQ(run(e, g.view(), pat), oracle::naive_find(t, pat));
          EXPECT_EQ(run(e, g.view(), pat, true), oracle::naive_find(t, pat, true));
        }
      }
    }
  }
}

INSTANTIATE_TEST_SUITE_P(AllEngines, ExactEngine, ::testing::ValuesIn(all_engines()),
                         [](const auto& p) { return std::string(p.param.name); });

TEST(ExactSearcher, RejectsEmptyPattern) {
  EXPECT_THROW(trawl::exact_searcher(""), trawl::error);
}

TEST(ExactSearcher, ParsesAlgorithmNames) {
  EXPECT_EQ(trawl::parse_exact_algorithm("sunday"), exact_algorithm::sunday);
  EXPECT_EQ(trawl::parse_exact_algorithm("bf"), exact_algorithm::brute_force);
  EXPECT_THROW(trawl::parse_exact_algorithm("boyer"), trawl::error);
}

}  // namespace
