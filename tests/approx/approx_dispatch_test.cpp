// approx_dispatch_test.cpp — one CPU capability check (src/common/cpu.hpp): every SIMD level
// this CPU runs, forced for the whole search (scan, start finding, hit writing), gives the
// hits of the DP oracle with their leftmost starts; a level the CPU lacks is one error; the
// process-wide limit (a CPU without AVX-512, or without any SIMD) changes no hit.
#include <gtest/gtest.h>

#include <random>

#include "approx_test_util.hpp"
#include "common/cpu.hpp"
#include "oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace {

/// Cluster hits with leftmost starts, from Sellers' DP and the edit distance of every
/// candidate start (the oracle shares no code with the engines).
std::vector<trawl::hit> oracle_hits(const std::string& p, const std::string& t, std::uint32_t k) {
  auto hits = approx_test::oracle_clusters(oracle::end_scores(p, t), k);
  for (auto& h : hits) {
    // A substring longer than m + k is farther than k from the pattern.
    const std::uint64_t reach = p.size() + k;
    for (std::uint64_t s = h.end > reach ? h.end - reach : 0; s < h.end; ++s)
      if (oracle::edit_distance(p, std::string_view(t).substr(s, h.end - s)) == h.errors) {
        h.start = s;
        break;
      }
  }
  return hits;
}

std::vector<trawl::hit> search_at(const std::string& p, const std::string& t, std::uint32_t k, trawl::simd_level level) {
  trawl::search_options o;
  o.max_errors = static_cast<int>(k);
  o.simd = level;
  o.threads = 1;
  return trawl::search(t, {p}, o);
}

void expect_same(const std::vector<trawl::hit>& got, const std::vector<trawl::hit>& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i) {
    EXPECT_EQ(got[i].start, want[i].start) << where << " hit " << i;
    EXPECT_EQ(got[i].end, want[i].end) << where << " hit " << i;
    EXPECT_EQ(got[i].errors, want[i].errors) << where << " hit " << i;
  }
}

struct restore_cpu {
  ~restore_cpu() { trawl::cpu::limit({true, true, true}); }
};

TEST(CpuDispatch, EveryLevelThisCpuRunsGivesTheOracleAndOthersAreOneError) {
  std::mt19937_64 rng(77);
  // Dense DNA (many clusters: the batched start finders and the run writer take them).
  const std::string t = oracle::random_text(rng, 6000, "ACGT");
  const std::vector<std::pair<std::string, std::uint32_t>> cases = {
      {t.substr(100, 8), 3}, {t.substr(2000, 20), 2}, {t.substr(3000, 40), 4}, {"ACGTACGTAC", 2}};
  restore_cpu restore;
  for (const auto& limit : {trawl::cpu::features{true, true, true}, trawl::cpu::features{true, false, false},
                            trawl::cpu::features{false, false, false}}) {
    trawl::cpu::limit(limit);
    for (const auto level : {trawl::simd_level::automatic, trawl::simd_level::serial, trawl::simd_level::avx2,
                             trawl::simd_level::avx512}) {
      const bool runs = trawl::cpu_supports(level);
      for (const auto& [p, k] : cases) {
        const std::string where = "level " + std::to_string(static_cast<int>(level)) + " limit " +
                                  std::to_string(limit.avx2) + std::to_string(limit.avx512) + " m " +
                                  std::to_string(p.size());
        if (!runs) {
          try {
            search_at(p, t, k, level);
            ADD_FAILURE() << where << ": a level this CPU lacks must be an error";
          } catch (const trawl::error& e) {
            EXPECT_EQ(e.code(), trawl::errc::unsupported) << where;
          }
          continue;
        }
        expect_same(search_at(p, t, k, level), oracle_hits(p, t, k), where);
      }
    }
  }
  // The limit narrows what a level may use.
  trawl::cpu::limit({true, false, false});
  EXPECT_FALSE(trawl::cpu_supports(trawl::simd_level::avx512));
  EXPECT_FALSE(trawl::cpu::at_level(trawl::simd_level::automatic).avx512);
  EXPECT_FALSE(trawl::cpu::at_level(trawl::simd_level::serial).avx2);
}

TEST(CpuDispatch, ExactSearchAtEveryLevel) {
  std::mt19937_64 rng(5);
  const std::string t = oracle::random_text(rng, 50000, "ACGT");
  const std::string p = t.substr(777, 12);
  const auto want = oracle::naive_find(t, p);
  for (const auto level : {trawl::simd_level::serial, trawl::simd_level::avx2, trawl::simd_level::avx512}) {
    trawl::search_options o;
    o.simd = level;
    if (!trawl::cpu_supports(level)) {
      EXPECT_THROW(trawl::search(t, {p}, o), trawl::error);
      continue;
    }
    const auto got = trawl::search(t, {p}, o);
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t i = 0; i < got.size(); ++i) EXPECT_EQ(got[i].start, want[i]);
  }
}

}  // namespace
