// test_gpu_vs_cpu.cpp — GPU ≡ the CPU engines (trawl::search, trawl::best_substring) on
// randomized inputs: same hits, same order, for every mode the CPU driver offers.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "trawl/approx.hpp"
#include "trawl/search.hpp"

namespace {

struct mode {
  const char* name;
  int k;
  bool all_ends, both, fold, hamming;
};

TEST(GpuVsCpu, SearchEveryMode) {
  TRAWL_REQUIRE_GPU();
  const mode modes[] = {{"exact", 0, false, false, false, false},     {"exact both", 0, false, true, false, false},
                        {"exact fold", 0, false, false, true, false},  {"all-ends k0", 0, true, false, false, false},
                        {"k1 clusters", 1, false, false, false, false}, {"k2 both", 2, false, true, false, false},
                        {"k3 all-ends", 3, true, true, false, false},  {"k2 fold", 2, false, false, true, false},
                        {"hamming k2", 2, false, true, false, true},   {"hamming all", 1, true, false, false, true}};
  std::mt19937_64 rng(41);
  for (const auto& md : modes) {
    for (int round = 0; round < 5; ++round) {
      std::vector<std::string> pats;
      const int np = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < np; ++i) pats.push_back(oracle::random_text(rng, 3 + rng() % (round < 3 ? 30 : 100), "ACGTacgt"));
      const std::string text = gputest::text_with_plants(rng, 500 + rng() % 5000, md.fold ? "ACGTacgt" : "ACGT", pats, 30,
                                                         md.k > 0 ? static_cast<int>(rng() % 3) : 0);
      trawl::search_options o;
      o.max_errors = md.k;
      o.all_ends = md.all_ends;
      o.both_strands = md.both;
      o.ignore_case = md.fold;
      o.hamming = md.hamming;
      const auto cpu = trawl::search(text, pats, o);
      for (std::size_t chunk : {std::size_t{0}, std::size_t{333}}) {
        // One device, and the same card listed twice: two workers, the text in 8 slices.
        for (const auto& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
          trawl::gpu::gpu_options g;
          g.chunk_size = chunk;
          g.devices = devices;
          const auto gpu = trawl::gpu::search(text, pats, o, g);
          ASSERT_EQ(gpu, cpu) << md.name << " round " << round << " chunk " << chunk << " workers " << devices.size();
        }
      }
    }
  }
}

TEST(GpuVsCpu, MaxHits) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(42);
  const std::vector<std::string> pats = {"ACGTA", "TTG"};
  const std::string text = oracle::random_text(rng, 20000, "ACGT");
  for (int k : {0, 1}) {
    trawl::search_options o;
    o.max_errors = k;
    o.max_hits = 25;
    trawl::gpu::gpu_options g;
    g.chunk_size = 1000;
    EXPECT_EQ(trawl::gpu::search(text, pats, o, g), trawl::search(text, pats, o)) << "k " << k;
  }
}

TEST(GpuVsCpu, BestSubstring) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  for (int round = 0; round < 10; ++round) {
    const std::string x = oracle::random_text(rng, 1 + rng() % 200, "01");
    const std::string y = gputest::text_with_plants(rng, 1 + rng() % 20000, "01", {x}, 3, 4);
    for (auto algo : {trawl::best_algorithm::myers, trawl::best_algorithm::wavefront}) {
      trawl::best_options bo;
      bo.algorithm = algo;
      const auto cpu = trawl::best_substring(x, y, bo);
      const auto gpu = trawl::gpu::best_substring(x, y, bo);
      EXPECT_EQ(gpu.distance, cpu.distance) << "round " << round;
      EXPECT_EQ(gpu.occurrences, cpu.occurrences) << "round " << round;
    }
  }
  const auto empty = trawl::gpu::best_substring("AC", "");
  const auto cpu_empty = trawl::best_substring("AC", "");
  EXPECT_EQ(empty.distance, cpu_empty.distance);
  EXPECT_EQ(empty.occurrences, cpu_empty.occurrences);
}

}  // namespace
