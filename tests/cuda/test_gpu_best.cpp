// test_gpu_best.cpp — GPU best approximate substring ≡ Sellers oracle, for the wavefront
// (Man–Nakano–Ito) and Myers engines, with small pieces so that many piece edges are crossed.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"

namespace {

trawl::best_result expected_best(const std::string& x, const std::string& y) {
  const auto s = oracle::end_scores(x, y);
  trawl::best_result r;
  r.distance = *std::min_element(s.begin(), s.end());
  for (std::size_t j = 0; j < y.size(); ++j)
    if (s[j] == r.distance)
      r.occurrences.push_back(trawl::hit{gputest::naive_leftmost(x, y, j, r.distance), j + 1, 0, r.distance,
                                         trawl::strand::forward});
  return r;
}

TEST(GpuBest, BothEnginesMatchTheOracle) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(21);
  for (int round = 0; round < 14; ++round) {
    const std::string alphabet = round % 2 ? "01" : "ACGT";
    const std::size_t m = 1 + rng() % (round < 7 ? 40 : 300);
    const std::size_t n = 1 + rng() % 1500;
    const std::string x = oracle::random_text(rng, m, alphabet);
    const std::string y = gputest::text_with_plants(rng, n, alphabet, {x}, 2, 3);
    const auto want = expected_best(x, y);
    for (auto algo : {trawl::best_algorithm::wavefront, trawl::best_algorithm::myers}) {
      for (std::size_t piece : {std::size_t{0}, std::size_t{1} + rng() % 100}) {
        trawl::best_options bo;
        bo.algorithm = algo;
        trawl::gpu::gpu_options g;
        g.slice_length = piece;
        const auto got = trawl::gpu::best_substring(x, y, bo, g);
        EXPECT_EQ(got.distance, want.distance) << "round " << round << " m=" << m << " n=" << n;
        EXPECT_EQ(got.occurrences, want.occurrences) << "round " << round << " algo " << static_cast<int>(algo);
      }
    }
  }
}

TEST(GpuBest, EveryStartAgainstAllSubstrings) {
  // best_options::every_start on the GPU path: every [start, end) at the minimum, against the
  // edit distance of every substring (small cases).
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(23);
  for (int round = 0; round < 8; ++round) {
    const std::string alphabet = round % 2 ? "01" : "ACGT";
    const std::string x = oracle::random_text(rng, 1 + rng() % 12, alphabet);
    const std::string y = gputest::text_with_plants(rng, 1 + rng() % 60, alphabet, {x}, 2, 2);
    std::uint32_t best = static_cast<std::uint32_t>(x.size());
    std::vector<trawl::hit> want;
    for (std::size_t e = 0; e <= y.size(); ++e)
      for (std::size_t z = 0; z <= e; ++z) {
        const std::uint32_t d = oracle::edit_distance(x, std::string_view(y).substr(z, e - z));
        if (d < best) best = d, want.clear();
        if (d == best) want.push_back(trawl::hit{z, e, 0, d, trawl::strand::forward});
      }
    for (auto algo : {trawl::best_algorithm::wavefront, trawl::best_algorithm::myers}) {
      trawl::best_options bo;
      bo.algorithm = algo;
      bo.every_start = true;
      const auto got = trawl::gpu::best_substring(x, y, bo, {});
      EXPECT_EQ(got.distance, best) << "round " << round;
      EXPECT_EQ(got.occurrences, want) << "round " << round << " algo " << static_cast<int>(algo);
    }
  }
}

TEST(GpuBest, LongPatternMyers) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(22);
  const std::string x = oracle::random_text(rng, 2100, "01");
  const std::string y = gputest::text_with_plants(rng, 5000, "01", {x}, 1, 20);
  const auto s = oracle::end_scores(x, y);
  const auto d = *std::min_element(s.begin(), s.end());
  const auto got = trawl::gpu::best_substring(x, y, {}, {});
  EXPECT_EQ(got.distance, d);
  std::size_t count = 0;
  for (auto v : s) count += v == d;
  EXPECT_EQ(got.occurrences.size(), count);
}

}  // namespace
