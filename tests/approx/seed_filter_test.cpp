// seed_filter_test.cpp — the seed filter (src/approx/seed_filter.hpp) against Sellers' DP of
// the oracle, pattern by pattern: sets of DNA patterns of m = 8-64 and k = 0-5 over texts with
// planted edited copies, runs of N short and long, IUPAC letters and lowercase stretches (bytes
// of no class, which the filter verifies around), copies across those bytes and at the text's
// edges; one strand and both, every end and one hit per run, whole texts and slices on two
// threads; texts so repetitive that the seeds hit everywhere (the filter scans them unfiltered).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>
#include <string>
#include <string_view>
#include <tuple>
#include <vector>

#include "approx_test_util.hpp"
#include "oracle.hpp"
#include "trawl/approx.hpp"
#include "trawl/detail/testing.hpp"
#include "trawl/search.hpp"

namespace {

using row = std::tuple<std::uint32_t, int, std::uint64_t, std::uint32_t>;  // pattern, strand, end, errors

/// The oracle's hits of every pattern (and its reverse complement with both strands): every end
/// within k, or one per run of them.
std::vector<row> oracle_rows(const std::string& t, const std::vector<std::string>& pats, int k, bool both, bool all_ends) {
  std::vector<row> out;
  for (std::size_t i = 0; i < pats.size(); ++i)
    for (int dir = 0; dir < (both ? 2 : 1); ++dir) {
      const std::string p = dir == 0 ? pats[i] : oracle::reverse_complement(pats[i]);
      const auto kk = static_cast<std::uint32_t>(std::min<std::size_t>(static_cast<std::size_t>(k), p.size()));
      const auto scores = oracle::end_scores(p, t);
      if (all_ends) {
        for (const auto& e : approx_test::oracle_ends(scores, kk))
          out.emplace_back(static_cast<std::uint32_t>(i), dir, e.end + 1, e.errors);
      } else {
        for (const trawl::hit& h : approx_test::oracle_clusters(scores, kk))
          out.emplace_back(static_cast<std::uint32_t>(i), dir, h.end, h.errors);
      }
    }
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<row> rows_of(const std::vector<trawl::hit>& hits) {
  std::vector<row> out;
  for (const trawl::hit& h : hits)
    out.emplace_back(h.pattern, h.dir == trawl::strand::forward ? 0 : 1, h.end, h.errors);
  std::sort(out.begin(), out.end());
  return out;
}

/// The hits of search `o` with engine `a` instead: a reference the engine tests check against
/// the oracle, where the oracle lacks the rules (IUPAC) or the cases are large.
std::vector<row> rows_with(trawl::approx_algorithm a, const std::string& t, const std::vector<std::string>& pats,
                           trawl::search_options o) {
  o.approx = a;
  return rows_of(trawl::approx_search_serial(t, pats, o));
}

trawl::search_options seed_options(int k, bool both, bool all_ends, trawl::approx_algorithm a) {
  trawl::search_options o;
  o.max_errors = k;
  o.both_strands = both;
  o.all_ends = all_ends;
  o.approx = a;
  return o;
}

/// Random DNA with copies of the patterns (edited up to k + 1 times, some reverse-complemented)
/// and bytes of no class: long and short N runs, IUPAC letters, lowercase stretches, some
/// inside copies; copies at both ends of the text.
std::string planted_text(std::mt19937_64& rng, std::size_t n, const std::vector<std::string>& pats, int k) {
  std::string t = oracle::random_text(rng, n, "ACGT");
  auto copy_of = [&](std::size_t i) {
    std::string c = approx_test::mutate(rng, pats[i], rng() % static_cast<std::size_t>(k + 2), "ACGT");
    return rng() % 3 == 0 ? oracle::reverse_complement(c) : c;
  };
  for (std::size_t at = rng() % 200; at + 80 < n; at += 150 + rng() % 400) {
    const std::string c = copy_of(rng() % pats.size());
    t.replace(at, c.size(), c);
  }
  const std::string head = copy_of(0), tail = copy_of(pats.size() - 1);
  t.replace(0, head.size(), head);
  t.replace(t.size() - tail.size(), tail.size(), tail);
  t.replace(n / 3, 3000, std::string(3000, 'N'));
  for (int r = 0; r < 60; ++r) {  // short runs of N, IUPAC letters, lowercase stretches
    const std::size_t at = rng() % (n - 40);
    switch (r % 3) {
      case 0: t.replace(at, 1 + rng() % 4, std::string(1 + rng() % 4, 'N')); break;
      case 1: t[at] = "RYKMSWBDHV"[rng() % 10]; break;
      default:
        for (std::size_t i = at; i < at + 1 + rng() % 30; ++i) t[i] = static_cast<char>(t[i] | 0x20);
    }
  }
  t.resize(n);
  return t;
}

TEST(SeedFilter, PatternSetsAgainstTheOracle) {
  std::mt19937_64 rng(41);
  for (const int k : {0, 1, 2, 3, 4, 5}) {
    std::vector<std::string> pats;
    for (int i = 0; i < 20; ++i) {
      const std::size_t m = 8 + rng() % 57;
      pats.push_back(approx_test::random_pattern(rng, m, "ACGT"));
    }
    pats.push_back("ACGTACGTACGTACGTACGTACG");  // repeats itself: seeds that hit it in several places
    const std::string t = planted_text(rng, 40000 + rng() % 5000, pats, k);
    for (const bool both : {false, true})
      for (const bool all_ends : {true, false}) {
        const auto want = oracle_rows(t, pats, k, both, all_ends);
        for (const auto a : {trawl::approx_algorithm::myers_seeds, trawl::approx_algorithm::automatic}) {
          SCOPED_TRACE("k=" + std::to_string(k) + " both=" + std::to_string(both) + " all_ends=" +
                       std::to_string(all_ends) + " " + std::string(trawl::to_string(a)));
          trawl::search_options o = seed_options(k, both, all_ends, a);
          ASSERT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), want);
          o.threads = 2;
          o.slice_size = 7001;
          ASSERT_EQ(rows_of(trawl::search(t, pats, o)), want);
        }
      }
  }
}

TEST(SeedFilter, OnePatternAndTinyTexts) {
  // Forced for one pattern; texts shorter than a seed, than a pattern, and made of N only.
  std::mt19937_64 rng(42);
  const std::string p = approx_test::random_pattern(rng, 23, "ACGT");
  for (const std::string& t : {std::string("A"), p.substr(0, 9), p.substr(3), p, std::string(50, 'N'),
                               "NN" + p.substr(0, 11) + "N" + p.substr(12) + "NN", oracle::random_text(rng, 500, "ACGT") + p})
    for (const int k : {0, 1, 3}) {
      SCOPED_TRACE("t=" + t + " k=" + std::to_string(k));
      const auto o = seed_options(k, false, true, trawl::approx_algorithm::myers_seeds);
      const auto want = approx_test::oracle_ends(oracle::end_scores(p, t), static_cast<std::uint32_t>(k));
      EXPECT_EQ(trawl::approx_end_scores(p, t, o), want);
    }
}

TEST(SeedFilter, CaseAndIupacRules) {
  // Under -i lowercase text bytes are of a class (the oracle reads both uppercased); with IUPAC
  // rules a text R still matches no pattern base, so it is of no class and verified around.
  std::mt19937_64 rng(43);
  std::vector<std::string> pats;
  for (int i = 0; i < 18; ++i) pats.push_back(approx_test::random_pattern(rng, 20 + rng() % 10, "ACGT"));
  std::string t = planted_text(rng, 40000, pats, 2);
  for (char& c : t)
    if (rng() % 5 == 0) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string upper = t;
  for (char& c : upper) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  trawl::search_options o = seed_options(2, true, true, trawl::approx_algorithm::myers_seeds);
  o.ignore_case = true;
  EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), oracle_rows(upper, pats, 2, true, true));
  // IUPAC: the reference is one-word Myers (the oracle has no IUPAC rules)
  o.ignore_case = false;
  o.iupac = true;
  EXPECT_EQ(rows_of(trawl::approx_search_serial(upper, pats, o)),
            rows_with(trawl::approx_algorithm::myers_word, upper, pats, o));
}

TEST(SeedFilter, AlignmentsWhoseOnlyGoodPieceHoldsAnN) {
  // m = 23, k = 3: pieces of 11 and 12 bytes, each seeded with <= 1 error. A copy with an N in
  // one piece and two substitutions in the other has no seed in the text: only the verification
  // around the N finds it. Also with a short N run, an R, a lowercase byte, and the N last.
  std::mt19937_64 rng(46);
  std::vector<std::string> pats;
  for (int i = 0; i < 16; ++i) pats.push_back(approx_test::random_pattern(rng, 23, "ACGT"));
  std::string t = oracle::random_text(rng, 20000, "ACGT");
  auto other = [&](char c) { return "ACGT"[(std::string_view("ACGT").find(c) + 1 + rng() % 3) % 4]; };
  std::size_t at = 100;
  for (const std::string& p : pats)
    for (const std::string bad : {"N", "NN", "R", "lower"}) {
      std::string c = p;
      const bool first = rng() % 2 == 0;  // the bad byte in the first piece, two substitutions in the second
      const std::size_t pos = first ? rng() % 11 : 11 + rng() % 12;
      const std::size_t s1 = first ? 11 + rng() % 6 : rng() % 5, s2 = first ? 17 + rng() % 6 : 5 + rng() % 6;
      c[s1] = other(c[s1]);
      c[s2] = other(c[s2]);
      if (bad == "lower") c[pos] = static_cast<char>(c[pos] | 0x20);
      else if (bad == "NN" && pos + 1 < c.size()) c.replace(pos, 2, "N");  // an N in place of two bytes: 2 errors
      else c[pos] = bad[0];
      t.replace(at, c.size(), c);
      at += 60 + rng() % 40;
    }
  for (const bool all_ends : {true, false}) {
    const auto o = seed_options(3, false, all_ends, trawl::approx_algorithm::myers_seeds);
    EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), oracle_rows(t, pats, 3, false, all_ends));
  }
}

TEST(SeedFilter, IupacPatternsWhoseCodesShareABaseAreNotSeeded) {
  // Under --iupac, R (A or G) and S (C or G): text G matches both, so it is of neither class
  // and yet matches. The filter must decline such a set (every engine then finds the G runs).
  std::mt19937_64 rng(47);
  std::vector<std::string> pats = {"RSRSRSRS"};
  for (int i = 0; i < 16; ++i) pats.push_back(approx_test::random_pattern(rng, 20, "RS"));
  std::string t = oracle::random_text(rng, 20000, "AC");
  t.replace(10000, 60, std::string(60, 'G'));
  for (const int k : {0, 1}) {
    trawl::search_options o = seed_options(k, false, true, trawl::approx_algorithm::myers_seeds);
    o.iupac = true;
    const auto want = rows_with(trawl::approx_algorithm::dp, t, pats, o);
    ASSERT_FALSE(want.empty());
    EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), want) << "k " << k;
    o.approx = trawl::approx_algorithm::automatic;
    EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), want) << "auto, k " << k;
  }
}

TEST(SeedFilter, PatternsSharingATailOverTextRepeatingIt) {
  // 300 patterns ending in the same 11 bases, over text made of those bases: every byte
  // passes the bitmap and meets 300 seeds that do not hit; the scan gives the block up (the
  // compares count against its cap) and the patterns are scanned unfiltered, with the same hits.
  std::mt19937_64 rng(48);
  std::vector<std::string> pats;
  for (int i = 0; i < 300; ++i) pats.push_back(approx_test::random_pattern(rng, 21, "ACGT") + std::string(11, 'A'));
  std::string t = oracle::random_text(rng, 30000, "ACGT");
  t.replace(5000, 20000, std::string(20000, 'A'));
  const auto o = seed_options(1, false, false, trawl::approx_algorithm::automatic);
  EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), rows_with(trawl::approx_algorithm::myers_word, t, pats, o));
}

TEST(SeedFilter, HammingAgainstWindowCounts) {
  // Hamming search runs on the edit-distance ends the filter finds: every window of m bytes
  // with at most k mismatches, counted directly.
  std::mt19937_64 rng(45);
  std::vector<std::string> pats;
  for (int i = 0; i < 17; ++i) pats.push_back(approx_test::random_pattern(rng, 16 + rng() % 20, "ACGT"));
  const std::string t = planted_text(rng, 30000, pats, 3);
  trawl::search_options o = seed_options(3, false, true, trawl::approx_algorithm::automatic);
  o.hamming = true;
  std::vector<row> want;
  for (std::size_t i = 0; i < pats.size(); ++i)
    for (std::size_t s = 0; s + pats[i].size() <= t.size(); ++s) {
      std::uint32_t mism = 0;
      for (std::size_t j = 0; j < pats[i].size(); ++j) mism += pats[i][j] != t[s + j] ? 1u : 0u;
      if (mism <= 3) want.emplace_back(static_cast<std::uint32_t>(i), 0, s + pats[i].size(), mism);
    }
  std::sort(want.begin(), want.end());
  EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), want);
}

TEST(SeedFilter, DenseTextsAreScannedUnfiltered) {
  // Tandem repeats of the patterns' own pieces: seeds hit at nearly every byte, so the filter
  // gives up on those blocks; random text around them is filtered again.
  std::mt19937_64 rng(44);
  std::vector<std::string> pats;
  for (int i = 0; i < 16; ++i) pats.push_back(std::string(8 + i % 5, 'A') + approx_test::random_pattern(rng, 12, "ACGT"));
  pats.push_back(std::string(24, 'A'));
  std::string t = oracle::random_text(rng, 200000, "ACGT");
  t.replace(50000, 40000, std::string(40000, 'A'));
  for (std::size_t at = 120000; at < 160000; at += 2) t[at] = 'A';
  for (const bool all_ends : {true, false}) {
    const auto o = seed_options(3, false, all_ends, trawl::approx_algorithm::automatic);
    EXPECT_EQ(rows_of(trawl::approx_search_serial(t, pats, o)), oracle_rows(t, pats, 3, false, all_ends));
  }
}

}  // namespace
