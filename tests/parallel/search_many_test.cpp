// search_many_test.cpp — search_many against the oracles (naive search, Sellers' DP) over many
// small texts, and against each text searched alone on the paths the oracles do not reach
// (clusters with their starts, Hamming windows, whole lines): both of its ways (texts joined
// with gaps, texts scanned whole) and an early stop.
#include <gtest/gtest.h>

#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.hpp"
#include "trawl/search.hpp"

namespace {

using found = std::vector<std::tuple<std::uint32_t, trawl::hit>>;

found run_many(const std::vector<std::string>& patterns, const std::vector<std::string>& texts,
               const trawl::search_options& o) {
  std::vector<std::string_view> views(texts.begin(), texts.end());
  found out;
  trawl::search_many(patterns, views, o, [&](std::uint32_t t, std::span<const trawl::hit> hs) {
    for (const auto& h : hs) out.emplace_back(t, h);
    return true;
  });
  return out;
}

std::vector<std::string> random_texts(std::mt19937_64& rng, std::size_t count) {
  std::vector<std::string> texts;
  for (std::size_t i = 0; i < count; ++i)
    texts.push_back(oracle::random_text(rng, rng() % 5 == 0 ? rng() % 4 : rng() % 300, "ACGT"));
  return texts;
}

TEST(SearchMany, ExactHitsAreTheNaiveOnesOfEachText) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 20; ++round) {
    const auto texts = random_texts(rng, 1 + rng() % 700);  // past one block of 256 texts too
    const std::vector<std::string> patterns = {oracle::random_text(rng, 3, "ACGT"), oracle::random_text(rng, 5, "ACGT")};
    trawl::search_options o;
    o.threads = 1 + static_cast<unsigned>(round % 3);
    std::set<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>> want, got;
    for (std::uint32_t t = 0; t < texts.size(); ++t)
      for (std::uint32_t p = 0; p < patterns.size(); ++p)
        for (const auto s : oracle::naive_find(texts[t], patterns[p])) want.emplace(t, s, p);
    std::uint32_t last = 0;
    for (const auto& [t, h] : run_many(patterns, texts, o)) {
      EXPECT_GE(t, last) << "texts out of order";
      last = t;
      EXPECT_EQ(h.end - h.start, patterns[h.pattern].size());
      got.emplace(t, h.start, h.pattern);
    }
    EXPECT_EQ(got, want) << "round " << round;
  }
}

TEST(SearchMany, EveryEndIsSellersOfEachText) {
  std::mt19937_64 rng(12);
  for (int round = 0; round < 10; ++round) {
    const auto texts = random_texts(rng, 1 + rng() % 300);
    const std::string p = oracle::random_text(rng, 8, "ACGT");
    trawl::search_options o;
    o.max_errors = 2;
    o.all_ends = true;
    std::set<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>> want, got;
    for (std::uint32_t t = 0; t < texts.size(); ++t) {
      const auto score = oracle::end_scores(p, texts[t]);
      for (std::uint64_t j = 0; j < score.size(); ++j)
        if (score[j] <= 2) want.emplace(t, j + 1, score[j]);
    }
    for (const auto& [t, h] : run_many({p}, texts, o)) got.emplace(t, h.end, h.errors);
    EXPECT_EQ(got, want) << "round " << round;
  }
}

TEST(SearchMany, TheSameHitsAsEachTextAlone) {
  std::mt19937_64 rng(13);
  for (int variant = 0; variant < 4; ++variant) {
    auto texts = random_texts(rng, 400);
    for (auto& t : texts)  // lines, for whole_lines
      for (std::size_t i = 7; i < t.size(); i += 13 + rng() % 40) t[i] = '\n';
    trawl::search_options o;
    o.max_errors = variant == 3 ? 0 : 2;
    o.hamming = variant == 1;
    o.both_strands = variant != 2;
    o.whole_lines = variant == 3;
    const std::vector<std::string> patterns = {texts[5].substr(0, std::min<std::size_t>(texts[5].size(), 9)) + "ACG",
                                               "GATTACA"};
    found want;
    for (std::uint32_t t = 0; t < texts.size(); ++t)
      for (const auto& h : trawl::search(texts[t], patterns, o)) want.emplace_back(t, h);
    EXPECT_EQ(run_many(patterns, texts, o), want) << "variant " << variant;
  }
}

TEST(SearchMany, StopsWhenTold) {
  const std::vector<std::string> texts = {"ACGTACGT", "", "ACGT", "TTTT", "ACGACGT"};
  for (const int k : {0, 1}) {
    trawl::search_options o;
    o.max_errors = k;
    std::vector<std::string_view> views(texts.begin(), texts.end());
    std::vector<std::uint32_t> seen;
    trawl::search_many({"ACGT"}, views, o, [&](std::uint32_t t, std::span<const trawl::hit>) {
      seen.push_back(t);
      return seen.size() < 2;
    });
    EXPECT_EQ(seen, (std::vector<std::uint32_t>{0, 2})) << "k " << k;
  }
}

}  // namespace
