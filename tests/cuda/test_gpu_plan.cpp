// test_gpu_plan.cpp — host side of the CUDA backend, runs without a device: the plans'
// byte classes and match vectors against naive definitions, and the start finder's patterns
// against the device's match table.
#include <gtest/gtest.h>

#include "approx/approx_internal.hpp"
#include "gpu/gpu_internal.hpp"
#include "gpu_test_util.hpp"

namespace {

TEST(GpuPlan, StartPatternsMatchAsTheDevice) {
  // The GPU's hits get their starts from the CPU's finder (approx_detail::leftmost_start, tested
  // against the oracle in tests/approx) over each task's text compiled for it: that pattern
  // must match every byte as the device's table does.
  for (const bool fold : {false, true})
    for (const bool iupac : {false, true}) {
      trawl::search_options o;
      o.ignore_case = fold;
      o.iupac = iupac;
      o.both_strands = true;
      const auto tasks = trawl::gpu::detail::make_tasks({"ACGTNRY", "acgtn", "hello"}, o);
      const auto eq = trawl::gpu::detail::match_table(o);
      for (const auto& t : tasks) {
        const auto cp = trawl::approx_detail::compile_pattern(t.text, 0, trawl::strand::forward, o.rules());
        for (unsigned c = 0; c < 256; ++c)
          for (std::size_t i = 0; i < t.text.size(); ++i)
            ASSERT_EQ(cp.match(i, static_cast<unsigned char>(c)),
                      eq[static_cast<unsigned char>(t.text[i]) * 256u + c] != 0)
                << t.text << " " << i << " " << c << " fold " << fold << " iupac " << iupac;
      }
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
  EXPECT_EQ(trawl::reverse_complement("ACGTRYN"), "NRYACGT");
  EXPECT_EQ(trawl::reverse_complement("acgX"), "Xcgt");
  trawl::search_options o;
  o.both_strands = true;
  const auto tasks = trawl::gpu::detail::make_tasks({"AAC"}, o);
  ASSERT_EQ(tasks.size(), 2u);
  EXPECT_EQ(tasks[1].text, "GTT");
  EXPECT_EQ(tasks[1].dir, trawl::strand::reverse);
}

}  // namespace
