// approx_best_test.cpp — best approximate substring: wavefront and Myers engines against the
// oracle's score array, against edlib (EDLIB_MODE_HW), and against each other.
#include <gtest/gtest.h>

#include <edlib.h>

#include <algorithm>
#include <random>

#include "approx_test_util.hpp"
#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"

namespace {

void check_best(const std::string& x, const std::string& y, unsigned threads) {
  const auto scores = oracle::end_scores(x, y);
  std::uint32_t best = static_cast<std::uint32_t>(x.size());
  for (auto s : scores) best = std::min(best, s);
  std::vector<std::uint64_t> ends;
  for (std::size_t j = 0; j < scores.size(); ++j)
    if (scores[j] == best) ends.push_back(j + 1);
  if (y.empty()) ends.push_back(0);
  for (auto algo : {trawl::best_algorithm::myers, trawl::best_algorithm::wavefront, trawl::best_algorithm::automatic}) {
    SCOPED_TRACE("algo " + std::to_string(static_cast<int>(algo)) + " m=" + std::to_string(x.size()) +
                 " n=" + std::to_string(y.size()) + " threads=" + std::to_string(threads));
    const auto r = trawl::best_substring(x, y, {algo, threads});
    ASSERT_EQ(r.distance, best);
    ASSERT_EQ(r.occurrences.size(), ends.size());
    for (std::size_t i = 0; i < ends.size(); ++i) {
      const auto& h = r.occurrences[i];
      ASSERT_EQ(h.end, ends[i]);
      ASSERT_EQ(h.errors, best);
      ASSERT_EQ(oracle::edit_distance(x, std::string_view(y).substr(h.start, h.end - h.start)), best);
      // leftmost: one byte further left is worse (or out of range).
      if (h.start > 0 && x.size() < 40) {
        for (std::uint64_t z = h.end > x.size() + best ? h.end - x.size() - best : 0; z < h.start; ++z) {
          ASSERT_GT(oracle::edit_distance(x, std::string_view(y).substr(z, h.end - z)), best);
        }
      }
    }
  }
}

TEST(ApproxBest, AgainstOracle) {
  std::mt19937_64 rng(31);
  for (const std::string& alpha : approx_test::alphabets()) {
    for (std::size_t m : {1, 2, 5, 17, 63, 64, 65, 130, 260}) {
      for (std::size_t n : {std::size_t{0}, m / 2, m, 3 * m + 7, 5000 + m}) {
        const std::string x = approx_test::random_pattern(rng, m, alpha);
        const std::string y = approx_test::text_with_copies(rng, n, x, m / 8 + 1, alpha);
        check_best(x, y, 1);
        check_best(x, y, 3);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ApproxBest, ManyPiecesAndThreads) {
  std::mt19937_64 rng(32);
  const std::string x = approx_test::random_pattern(rng, 12, "ACGT");
  const std::string y = approx_test::text_with_copies(rng, 120000, x, 1, "ACGT");
  for (unsigned th : {1u, 2u, 5u, 8u}) check_best(x, y, th);
}

TEST(ApproxBest, BestFarFromTheBoundSample) {
  // Myers takes an upper bound of ASM from a prefix of Y; the only good occurrence lies far
  // behind it, so the other pieces must still find it below that bound.
  std::mt19937_64 rng(33);
  test_share::cases share;
  // Long enough for the SIMD engines (|X| <= 32: striped kernel, <= 64: lanes, above: blocked
  // Myers over SIMD stripes, Peq from byte codes) to take the bulk.
  for (std::size_t m : {7, 20, 32, 33, 64, 65, 90, 128, 129, 200}) {
    const std::string x = approx_test::random_pattern(rng, m, "01");
    std::string y = oracle::random_text(rng, 200000, "01");
    y.replace(190000, m, approx_test::mutate(rng, x, 1, "01"));
    if (!share.runs()) continue;
    for (unsigned th : {1u, 3u}) check_best(x, y, th);
    // Several ends of the best score, some in one stripe of the SIMD engines: all are reported.
    for (std::size_t at : {std::size_t{50000}, 50000 + 3 * m, std::size_t{120000}, std::size_t{170000}})
      y.replace(at, m, x);
    check_best(x, y, 1);
  }
}

TEST(ApproxBest, AgainstEdlib) {
  std::mt19937_64 rng(33);
  for (int r = 0; r < 60; ++r) {
    const std::size_t m = 1 + rng() % 200;
    const std::string x = approx_test::random_pattern(rng, m, "ACGT");
    const std::string y = approx_test::text_with_copies(rng, 3 * m + rng() % 3000, x, m / 5, "ACGT");
    EdlibAlignResult e = edlibAlign(x.data(), static_cast<int>(x.size()), y.data(), static_cast<int>(y.size()),
                                    edlibNewAlignConfig(-1, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
    ASSERT_EQ(e.status, EDLIB_STATUS_OK);
    std::vector<std::uint64_t> edlib_ends;
    for (int i = 0; i < e.numLocations; ++i) edlib_ends.push_back(static_cast<std::uint64_t>(e.endLocations[i]) + 1);
    const int dist = e.editDistance;
    edlibFreeAlignResult(e);
    for (auto algo : {trawl::best_algorithm::myers, trawl::best_algorithm::wavefront}) {
      const auto b = trawl::best_substring(x, y, {algo, 2});
      ASSERT_EQ(static_cast<int>(b.distance), dist);
      std::vector<std::uint64_t> ends;
      for (const auto& h : b.occurrences) ends.push_back(h.end);
      // edlib lists the ends of non-empty alignments; ours adds the empty one when |X| wins.
      if (b.distance < x.size()) {
        EXPECT_EQ(ends, edlib_ends);
      }
    }
  }
}

/// best_options::every_start against every substring of y (O(n^2) edit distances: small cases).
void check_every_start(const std::string& x, const std::string& y, unsigned threads) {
  std::uint32_t best = static_cast<std::uint32_t>(x.size());  // the empty substring
  std::vector<std::pair<std::uint64_t, std::uint64_t>> want;  // (end, start)
  for (std::size_t e = 0; e <= y.size(); ++e)
    for (std::size_t z = 0; z <= e; ++z) {
      const std::uint32_t d = oracle::edit_distance(x, std::string_view(y).substr(z, e - z));
      if (d < best) best = d, want.clear();
      if (d == best) want.emplace_back(e, z);
    }
  for (auto algo : {trawl::best_algorithm::myers, trawl::best_algorithm::wavefront}) {
    SCOPED_TRACE("algo " + std::to_string(static_cast<int>(algo)) + " x=" + x + " y=" + y);
    trawl::best_options o{algo, threads};
    o.every_start = true;
    const auto r = trawl::best_substring(x, y, o);
    ASSERT_EQ(r.distance, best);
    std::vector<std::pair<std::uint64_t, std::uint64_t>> got;
    for (const auto& h : r.occurrences) {
      ASSERT_EQ(h.errors, best);
      got.emplace_back(h.end, h.start);
    }
    ASSERT_EQ(got, want);
    // Streamed, from a default-mode result (one per end) and from this one (ends repeated).
    for (const auto& from : {trawl::best_substring(x, y, {algo, threads}), r}) {
      std::vector<std::pair<std::uint64_t, std::uint64_t>> streamed;
      EXPECT_TRUE(trawl::for_each_optimal_substring(x, y, from, [&](const trawl::hit& h) {
        streamed.emplace_back(h.end, h.start);
        return true;
      }));
      ASSERT_EQ(streamed, want);
    }
    // A callback that stops after the first occurrence gets exactly one.
    std::size_t calls = 0;
    EXPECT_FALSE(trawl::for_each_optimal_substring(x, y, r, [&](const trawl::hit&) { return ++calls > 1; }));
    EXPECT_EQ(calls, 1u);
  }
}

TEST(ApproxBest, EveryStartAgainstAllSubstrings) {
  std::mt19937_64 rng(33);
  test_share::cases share;
  for (const std::string& alpha : {std::string("01"), std::string("ACGT"), std::string("abcdefghijklmnopqrst")}) {
    for (std::size_t m : {1, 2, 3, 6, 11, 70}) {
      for (std::size_t n : {std::size_t{1}, m / 2 + 1, m + 3, 3 * m + 7, std::size_t{90}}) {
        const std::string x = approx_test::random_pattern(rng, m, alpha);
        const std::string y = approx_test::text_with_copies(rng, n, x, m / 4 + 1, alpha);
        if (!share.runs()) continue;
        check_every_start(x, y, 1);
        check_every_start(x, y, 3);
        if (HasFatalFailure()) return;
      }
    }
  }
  check_every_start("AC", "AGC", 1);  // [0,1) [0,2) [0,3) [1,3) [2,3), all at distance 1
  check_every_start("ZZ", "AB", 1);   // no byte matches: every substring of <= 2 bytes, [0,0) first
}

TEST(ApproxBest, EdgeCases) {
  EXPECT_THROW(trawl::best_substring("", "ACGT"), trawl::error);
  const auto e = trawl::best_substring("ACG", "");
  EXPECT_EQ(e.distance, 3u);
  ASSERT_EQ(e.occurrences.size(), 1u);
  EXPECT_EQ(e.occurrences[0].start, 0u);
  const auto longer = trawl::best_substring("ACGTACGT", "ACG");  // X longer than Y
  EXPECT_EQ(longer.distance, 5u);
  check_best("ACGTACGTAC", "ACG", 2);
  EXPECT_EQ(trawl::parse_best_algorithm("wavefront"), trawl::best_algorithm::wavefront);
  EXPECT_THROW(trawl::parse_best_algorithm("x"), trawl::error);
}

}  // namespace
