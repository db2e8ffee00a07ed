// test_gpu_plan.cpp — host side of the CUDA backend, runs without a device: the plans'
// byte classes and match vectors, and the leftmost-start DP, against naive definitions.
#include <gtest/gtest.h>

#include "gpu/gpu_internal.hpp"
#include "gpu_test_util.hpp"

namespace {

TEST(GpuPlan, LeftmostStartMatchesNaive) {
  std::mt19937_64 rng(31);
  const auto eq = trawl::gpu::detail::match_table(trawl::search_options{});
  for (int round = 0; round < 200; ++round) {
    const std::string p = oracle::random_text(rng, 1 + rng() % 12, "ACG");
    const std::string t = oracle::random_text(rng, 1 + rng() % 40, "ACG");
    const auto s = oracle::end_scores(p, t);
    for (std::size_t j = 0; j < t.size(); ++j)
      ASSERT_EQ(trawl::gpu::detail::leftmost_start(p, t, j, s[j], eq), gputest::naive_leftmost(p, t, j, s[j]))
          << p << " " << t << " " << j;
  }
}

TEST(GpuPlan, PeqMatchesTheMatchTable) {
  trawl::search_options o;
  o.ignore_case = true;
  o.iupac = true;
  const auto tasks = trawl::gpu::detail::make_tasks({"ACGTNRY", "acgtn"}, o);
  const auto eq = trawl::gpu::detail::match_table(o);
  const auto plan = trawl::gpu::detail::make_approx_plan(tasks, eq, 1, false);
  for (std::size_t t = 0; t < tasks.size(); ++t)
    for (unsigned tc = 0; tc < 256; ++tc)
      for (std::size_t i = 0; i < tasks[t].text.size(); ++i) {
        const bool bit = (plan.peq[t][plan.code[tc]] >> i) & 1u;
        EXPECT_EQ(bit, eq[static_cast<unsigned char>(tasks[t].text[i]) * 256u + tc] != 0);
      }
  EXPECT_LE(plan.sigma, 8u);
}

TEST(GpuPlan, ReverseComplement) {
  EXPECT_EQ(trawl::gpu::detail::revcomp("ACGTRYN"), "NRYACGT");
  EXPECT_EQ(trawl::gpu::detail::revcomp("acgX"), "Xcgt");
  trawl::search_options o;
  o.both_strands = true;
  const auto tasks = trawl::gpu::detail::make_tasks({"AAC"}, o);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[1].text, "GTT");
  EXPECT_EQ(tasks[1].dir, trawl::strand::reverse);
}

}  // namespace
