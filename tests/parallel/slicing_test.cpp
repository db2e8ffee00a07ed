// slicing_test.cpp — the parallel slicing driver: no hit lost or doubled at a slice edge,
// output in text order and identical for every thread count and slice size.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace {

std::vector<trawl::hit> expected_hits(const std::string& text, const std::vector<std::string>& pats, bool both) {
  std::vector<trawl::hit> v;
  for (std::uint32_t i = 0; i < pats.size(); ++i) {
    for (auto s : oracle::naive_find(text, pats[i])) v.push_back({s, s + pats[i].size(), i, 0, trawl::strand::forward});
    if (both)
      for (auto s : oracle::naive_find(text, oracle::reverse_complement(pats[i])))
        v.push_back({s, s + pats[i].size(), i, 0, trawl::strand::reverse});
  }
  std::sort(v.begin(), v.end(), [](const trawl::hit& a, const trawl::hit& b) {
    return std::tie(a.start, a.pattern, a.dir) < std::tie(b.start, b.pattern, b.dir);
  });
  return v;
}

TEST(Slicing, EveryThreadCountAndSliceSizeGivesTheOracleInOrder) {
  std::mt19937_64 rng(42);
  const std::string text = oracle::random_text(rng, 20000, "ACGT");
  std::vector<std::string> pats;
  for (std::size_t m : {1, 3, 5, 9, 17}) pats.push_back(text.substr(rng() % (text.size() - m), m));
  pats.push_back("ACGTACG");
  for (bool both : {false, true}) {
    const auto want = expected_hits(text, pats, both);
    for (unsigned threads = 1; threads <= 8; ++threads)
      for (std::size_t slice : {1, 2, 3, 7, 16, 64, 1000, 0}) {
        trawl::search_options o;
        o.threads = threads;
        o.slice_size = slice;
        o.both_strands = both;
        o.exact = slice % 2 ? trawl::exact_algorithm::sunday : trawl::exact_algorithm::automatic;
        ASSERT_EQ(trawl::search(text, pats, o), want) << "threads=" << threads << " slice=" << slice << " both=" << both;
      }
  }
}

TEST(Slicing, PatternLongerThanSliceStillFound) {
  const std::string text = std::string(1000, 'a') + "needle-in-a-haystack" + std::string(1000, 'b');
  trawl::search_options o;
  o.threads = 4;
  o.slice_size = 3;
  auto hits = trawl::search(text, {"needle-in-a-haystack"}, o);
  ASSERT_EQ(hits.size(), 1u);
  EXPECT_EQ(hits[0].start, 1000u);
  EXPECT_EQ(hits[0].end, 1020u);
}

TEST(Slicing, MaxHitsStopsEarlyWithTheFirstHitsInOrder) {
  const std::string text(100000, 'a');
  for (unsigned threads : {1u, 2u, 5u}) {
    trawl::search_options o;
    o.threads = threads;
    o.slice_size = 97;
    o.max_hits = 1234;
    auto hits = trawl::search(text, {"aa"}, o);
    ASSERT_EQ(hits.size(), 1234u);
    for (std::size_t i = 0; i < hits.size(); ++i) ASSERT_EQ(hits[i].start, i);
  }
}

TEST(Slicing, CallbackCanStopTheSearch) {
  const std::string text(50000, 'x');
  auto m = trawl::make_matcher({"x"}, {});
  trawl::search_options o;
  o.threads = 3;
  o.slice_size = 100;
  std::uint64_t seen = 0;
  const auto delivered = trawl::search_sequence(*m, text, o, [&](std::span<const trawl::hit> hs) {
    seen += hs.size();
    return false;
  });
  EXPECT_EQ(delivered, seen);
  EXPECT_LT(seen, 50000u);
}

TEST(Slicing, RejectsBadPatterns) {
  EXPECT_THROW(trawl::make_matcher({}, {}), trawl::error);
  EXPECT_THROW(trawl::make_matcher({""}, {}), trawl::error);
  EXPECT_THROW(trawl::make_matcher({std::string("a\0b", 3)}, {}), trawl::error);
  trawl::search_options neg;
  neg.max_errors = -1;
  EXPECT_THROW(trawl::make_matcher({"abc"}, neg), trawl::error);
}

TEST(ReverseComplement, DnaAndIupac) {
  EXPECT_EQ(trawl::reverse_complement("ACGTN"), "NACGT");
  EXPECT_EQ(trawl::reverse_complement("aacg"), "cgtt");
  EXPECT_EQ(trawl::reverse_complement("RYKM"), "KMRY");
  EXPECT_EQ(trawl::reverse_complement(""), "");
}

}  // namespace

namespace {

// IUPAC exact search against an oracle that expands the codes by hand.
bool iupac_oracle_match(char p, char t) {
  const std::string bases = [&]() -> std::string {
    switch (p) {
      case 'A': return "Aa"; case 'C': return "Cc"; case 'G': return "Gg"; case 'T': return "Tt";
      case 'R': return "AGag"; case 'Y': return "CTct"; case 'N': return "ACGTacgt"; case 'W': return "ATat";
      default: return std::string(1, p);
    }
  }();
  return bases.find(t) != std::string::npos || p == t;
}

TEST(IupacExact, MatchesTheExpandedOracleInStartOrderForEverySlicing) {
  std::mt19937_64 rng(99);
  const std::string text = oracle::random_text(rng, 5000, "ACGTacgtN");
  const std::vector<std::string> pats = {"ANNT", "RY", "GWAC", "NNNNNNNNNN"};
  std::vector<trawl::hit> want;
  for (std::uint32_t i = 0; i < pats.size(); ++i)
    for (std::size_t s = 0; s + pats[i].size() <= text.size(); ++s) {
      bool ok = true;
      for (std::size_t j = 0; j < pats[i].size() && ok; ++j) ok = iupac_oracle_match(pats[i][j], text[s + j]);
      if (ok) want.push_back({s, s + pats[i].size(), i, 0, trawl::strand::forward});
    }
  std::sort(want.begin(), want.end(), [](const trawl::hit& a, const trawl::hit& b) {
    return std::tie(a.start, a.pattern) < std::tie(b.start, b.pattern);
  });
  for (unsigned threads : {1u, 3u})
    for (std::size_t slice : {1, 7, 100, 0}) {
      trawl::search_options o;
      o.iupac = true;
      o.threads = threads;
      o.slice_size = slice;
      ASSERT_EQ(trawl::search(text, pats, o), want) << "threads=" << threads << " slice=" << slice;
    }
}

}  // namespace

namespace {

TEST(Slicing, AnExceptionFromTheCallbackReachesTheCallerOnEveryThreadCount) {
  const std::string text(200000, 'x');
  auto m = trawl::make_matcher({"x"}, {});
  for (unsigned threads : {1u, 2u, 4u}) {
    trawl::search_options o;
    o.threads = threads;
    o.slice_size = 1000;
    int calls = 0;
    EXPECT_THROW(trawl::search_sequence(*m, text, o,
                                        [&](std::span<const trawl::hit>) -> bool {
                                          if (++calls == 3) throw std::runtime_error("sink failed");
                                          return true;
                                        }),
                 std::runtime_error);
    EXPECT_EQ(calls, 3);
  }
}

}  // namespace
