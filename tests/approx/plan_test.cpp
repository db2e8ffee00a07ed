// plan_test.cpp — plan_approx (src/approx/plan.hpp), the one place that picks each approximate
// pattern's filter and kernel: a forced engine is obeyed on every level; auto follows the
// documented rules (the striped kernel for m <= 32 where the level has one, the lanes for
// m <= 64, the pigeonhole filter for selective pieces and few patterns, the suffix filter for
// 16 < m <= 64 where the pigeonhole filter does not take the pattern); impossible requests
// are errors. Whatever the plan, the hits are the oracle's (the engine tests).
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "approx/plan.hpp"
#include "common/cpu.hpp"
#include "oracle.hpp"
#include "trawl/error.hpp"

namespace {

namespace ad = trawl::approx_detail;
using trawl::approx_algorithm;
using trawl::simd_level;

ad::approx_plan plan(const std::vector<std::string>& patterns, std::uint32_t k, approx_algorithm algo, simd_level level) {
  std::vector<ad::compiled_pattern> pats;
  std::vector<std::uint32_t> ks;
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    pats.push_back(ad::compile_pattern(patterns[i], static_cast<std::uint32_t>(i), trawl::strand::forward, {}));
    ks.push_back(k);
  }
  trawl::search_options o;
  o.max_errors = static_cast<int>(k);
  o.approx = algo;
  return ad::plan_approx(pats, ks, o, trawl::simd::kernels_at(level));
}

std::vector<simd_level> levels_here() {
  std::vector<simd_level> out = {simd_level::serial};
  const auto f = trawl::cpu::active();
  if (f.avx2) out.push_back(simd_level::avx2);
  if (f.avx512) out.push_back(simd_level::avx512);
  return out;
}

TEST(ApproxPlan, ForcedEnginesAreObeyedOnEveryLevel) {
  std::mt19937_64 rng(3);
  const std::string p20 = oracle::random_text(rng, 20, "ACGT"), p100 = oracle::random_text(rng, 100, "ACGT");
  for (const simd_level level : levels_here()) {
    for (const auto& p : {p20, p100}) {
      EXPECT_EQ(plan({p}, 2, approx_algorithm::dp, level).patterns[0].kernel, ad::kernel_kind::dp);
      EXPECT_EQ(plan({p}, 2, approx_algorithm::myers_blocked, level).patterns[0].kernel, ad::kernel_kind::blocked);
      EXPECT_EQ(plan({p}, 2, approx_algorithm::dp, level).patterns[0].filter, ad::filter_kind::none);
    }
    EXPECT_EQ(plan({p20}, 2, approx_algorithm::myers_word, level).patterns[0].kernel, ad::kernel_kind::word);
    EXPECT_THROW(plan({p100}, 2, approx_algorithm::myers_word, level), trawl::error);
    EXPECT_EQ(plan({p100}, 3, approx_algorithm::myers_filter, level).patterns[0].filter, ad::filter_kind::pigeon);
    if (level == simd_level::serial) {
      EXPECT_THROW(plan({p20}, 2, approx_algorithm::myers_striped, level), trawl::error);
      EXPECT_THROW(plan({p20}, 2, approx_algorithm::myers_suffix, level), trawl::error);
      // auto without SIMD: the one-word loop, not the serial lanes
      EXPECT_EQ(plan({p20}, 2, approx_algorithm::automatic, level).patterns[0].kernel, ad::kernel_kind::word);
    } else {
      EXPECT_EQ(plan({p20}, 2, approx_algorithm::myers_striped, level).patterns[0].kernel, ad::kernel_kind::striped);
      EXPECT_EQ(plan({p20}, 2, approx_algorithm::myers_simd, level).patterns[0].kernel, ad::kernel_kind::lanes);
    }
  }
}

TEST(ApproxPlan, AutoFollowsItsRules) {
  std::mt19937_64 rng(4);
  const std::string p20 = oracle::random_text(rng, 20, "ACGT"), p40 = oracle::random_text(rng, 40, "ACGT"),
                    p128 = oracle::random_text(rng, 128, "ACGT");
  for (const simd_level level : levels_here()) {
    if (level == simd_level::serial) continue;
    // m <= 32: the striped kernel; k = 1 over m = 20 has pieces of 10 bytes: the filter
    EXPECT_EQ(plan({p20}, 1, approx_algorithm::automatic, level).patterns[0].kernel, ad::kernel_kind::striped);
    EXPECT_EQ(plan({p20}, 1, approx_algorithm::automatic, level).patterns[0].filter, ad::filter_kind::pigeon);
    // pieces of 20 / 5 = 4 bytes are not selective: no pigeonhole filter
    EXPECT_NE(plan({p20}, 4, approx_algorithm::automatic, level).patterns[0].filter, ad::filter_kind::pigeon);
    // 32 < m <= 64: the lanes; more patterns than the filter takes: no pigeonhole filter
    const std::vector<std::string> many(6, p40);
    for (const auto& pp : plan(many, 1, approx_algorithm::automatic, level).patterns) {
      EXPECT_EQ(pp.kernel, ad::kernel_kind::lanes);
      EXPECT_NE(pp.filter, ad::filter_kind::pigeon);
    }
    // m = 40, k = 7: pieces of 5 bytes without a striped kernel: the pigeonhole filter
    EXPECT_EQ(plan({p40}, 7, approx_algorithm::automatic, level).patterns[0].filter, ad::filter_kind::pigeon);
    // m > 64: never the lanes; selective pieces: the filter, also with many patterns
    const auto big = plan(std::vector<std::string>(6, p128), 3, approx_algorithm::automatic, level);
    for (const auto& pp : big.patterns) {
      EXPECT_NE(pp.kernel, ad::kernel_kind::lanes);
      EXPECT_EQ(pp.filter, ad::filter_kind::pigeon);
    }
    // a suffix filter has a suffix length, and only for 16 < m <= 64
    for (const auto& p : {p20, p40, p128})
      for (std::uint32_t k = 0; k < 12; ++k) {
        const auto pp = plan({p}, k, approx_algorithm::automatic, level).patterns[0];
        if (pp.filter == ad::filter_kind::suffix) {
          EXPECT_GT(pp.suffix_len, 0u);
          EXPECT_LE(p.size(), 64u);
        }
      }
  }
}

TEST(ApproxPlan, SeedFilterForSetsOfManyPatternsOverFewClasses) {
  std::mt19937_64 rng(5);
  std::vector<std::string> dna;
  for (std::size_t i = 0; i < ad::tuning::seed_min_patterns; ++i) dna.push_back(oracle::random_text(rng, 23, "ACGT"));
  for (const simd_level level : levels_here()) {
    // auto: a set of seed_min_patterns DNA patterns is seeded, one fewer is not
    const auto all = plan(dna, 3, approx_algorithm::automatic, level);
    ASSERT_TRUE(all.seeds.has_value());
    EXPECT_EQ(all.seed_patterns.size(), dna.size());
    for (const auto& pp : all.patterns) EXPECT_EQ(pp.filter, ad::filter_kind::seeds);
    const std::vector<std::string> fewer(dna.begin() + 1, dna.end());
    EXPECT_FALSE(plan(fewer, 3, approx_algorithm::automatic, level).seeds.has_value());
    // forced: one pattern is seeded too
    EXPECT_EQ(plan({dna[0]}, 3, approx_algorithm::myers_seeds, level).patterns[0].filter, ad::filter_kind::seeds);
    // more than four byte classes: protein, or DNA with an N (a fifth letter under plain rules)
    std::vector<std::string> protein;
    for (std::size_t i = 0; i < dna.size(); ++i) protein.push_back(oracle::random_text(rng, 23, "ACDEFGHIKLMNPQRSTVWY"));
    EXPECT_FALSE(plan(protein, 3, approx_algorithm::automatic, level).seeds.has_value());
    std::vector<std::string> with_n = dna;
    with_n[3][5] = 'N';
    EXPECT_FALSE(plan(with_n, 3, approx_algorithm::automatic, level).seeds.has_value());
    // seeds too short to filter (k large against m): those patterns keep the other engines
    std::vector<std::string> mixed = dna;
    mixed.push_back(oracle::random_text(rng, 10, "ACGT"));
    const auto mp = plan(mixed, 3, approx_algorithm::automatic, level);
    ASSERT_TRUE(mp.seeds.has_value());
    EXPECT_EQ(mp.patterns.back().filter, ad::filter_kind::none);
    EXPECT_EQ(mp.seed_patterns.size(), dna.size());
    // m > 64: never seeded
    std::vector<std::string> longer = dna;
    longer.push_back(oracle::random_text(rng, 65, "ACGT"));
    EXPECT_NE(plan(longer, 3, approx_algorithm::automatic, level).patterns.back().filter, ad::filter_kind::seeds);
  }
  // what device_choice prices: the set's density when every pattern-strand is seeded
  trawl::search_options o;
  o.max_errors = 3;
  const auto d = ad::seeded_density(dna, o);
  ASSERT_TRUE(d.has_value());
  EXPECT_GT(*d, 0.0);
  o.both_strands = true;
  EXPECT_GT(*ad::seeded_density(dna, o), *d);
  o.both_strands = false;
  EXPECT_FALSE(ad::seeded_density(std::vector<std::string>(dna.begin() + 1, dna.end()), o).has_value());
  std::vector<std::string> mixed = dna;
  mixed.push_back(oracle::random_text(rng, 10, "ACGT"));  // one that cannot be seeded at k = 3
  EXPECT_FALSE(ad::seeded_density(mixed, o).has_value());
  o.approx = approx_algorithm::myers_word;
  EXPECT_FALSE(ad::seeded_density(dna, o).has_value());
}

}  // namespace
