// hits_test.cpp — the hit pipeline's pieces (src/hits/): the cluster rule against a naive
// grouping of ends, and the one hit order against a sort by its fields.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <tuple>

#include "hits/clusters.hpp"
#include "trawl/hit.hpp"

namespace {

struct end {
  std::uint32_t group;
  std::uint64_t pos;
  std::uint32_t score;
};

/// (best end's position, its score, first, last) of each cluster, the naive way: split the
/// sorted ends where the group changes or a position is skipped, then take the smallest
/// score, the first such end on ties.
std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t>> naive_runs(const std::vector<end>& es) {
  std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t>> out;
  std::size_t i = 0;
  while (i < es.size()) {
    std::size_t e = i + 1;
    while (e < es.size() && es[e].group == es[i].group && es[e].pos == es[e - 1].pos + 1) ++e;
    std::size_t best = i;
    for (std::size_t t = i; t < e; ++t)
      if (es[t].score < es[best].score) best = t;
    out.emplace_back(es[best].pos, es[best].score, es[i].pos, es[e - 1].pos);
    i = e;
  }
  return out;
}

TEST(Hits, ClustersAreRunsOfConsecutiveEndsByTheirBestEnd) {
  std::mt19937_64 rng(11);
  for (int round = 0; round < 300; ++round) {
    std::vector<end> es;
    const std::uint32_t groups = 1 + static_cast<std::uint32_t>(rng() % 3);
    for (std::uint32_t g = 0; g < groups; ++g)
      for (std::uint64_t p = 0; p < 60; ++p)
        if (rng() % 3 != 0) es.push_back({g, p, static_cast<std::uint32_t>(rng() % 4)});
    std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint64_t, std::uint64_t>> got;
    trawl::hits::for_each_run(
        es.data(), es.size(), true, [](const end& a, const end& b) { return a.group == b.group; },
        [](const end& e) { return e.pos; }, [](const end& e) { return e.score; },
        [&](std::size_t best, const trawl::hits::end_run& run) {
          EXPECT_EQ(es[best].pos, run.best);
          EXPECT_EQ(es[best].score, run.best_score);
          got.emplace_back(run.best, run.best_score, run.first, run.last);
        });
    EXPECT_EQ(got, naive_runs(es)) << "round " << round;
    // every end its own hit without clusters
    std::size_t n = 0;
    trawl::hits::for_each_run(
        es.data(), es.size(), false, [](const end&, const end&) { return true; }, [](const end& e) { return e.pos; },
        [](const end& e) { return e.score; }, [&](std::size_t best, const trawl::hits::end_run&) { EXPECT_EQ(best, n++); });
    EXPECT_EQ(n, es.size());
  }
}

TEST(Hits, RunsJoinAcrossACutAndNameTheEdgesTheyTouch) {
  // a run cut in two pieces joins to the run of the whole: the earlier piece's best end on ties
  trawl::hits::end_run a = trawl::hits::end_run::at(10, 2);
  EXPECT_TRUE(a.absorb(trawl::hits::end_run{11, 14, 13, 2}));
  EXPECT_EQ(a.best, 10u);
  EXPECT_TRUE(a.absorb(trawl::hits::end_run{15, 16, 16, 1}));
  EXPECT_EQ(a.best, 16u);
  EXPECT_EQ(a.best_score, 1u);
  EXPECT_FALSE(a.absorb(trawl::hits::end_run::at(18, 0)));  // 17 is missing: another cluster
  EXPECT_EQ(a.last, 16u);
  EXPECT_EQ(a.sides(10, 17), 3);
  EXPECT_EQ(a.sides(10, 20), 1);
  EXPECT_EQ(a.sides(5, 17), 2);
  EXPECT_EQ(a.sides(5, 20), 0);
  const trawl::hit earlier{3, 10, 0, 1, trawl::strand::forward}, later{4, 11, 0, 1, trawl::strand::forward};
  EXPECT_EQ(trawl::hits::join(earlier, later), earlier);
  EXPECT_EQ(trawl::hits::join(earlier, trawl::hit{4, 11, 0, 0, trawl::strand::forward}).end, 11u);
}

TEST(Hits, TheOneOrderIsKeyPatternStrandStartEnd) {
  std::mt19937_64 rng(5);
  std::vector<trawl::hit> hs;
  for (int i = 0; i < 2000; ++i) {
    const std::uint64_t s = rng() % 20;
    hs.push_back({s, s + 1 + rng() % 4, static_cast<std::uint32_t>(rng() % 3), 0,
                  rng() % 2 ? trawl::strand::reverse : trawl::strand::forward});
  }
  for (const trawl::hit_key key : {trawl::hit_key::start, trawl::hit_key::last}) {
    auto a = hs, b = hs;
    std::sort(a.begin(), a.end(), trawl::hit_order{key});
    std::sort(b.begin(), b.end(), [&](const trawl::hit& x, const trawl::hit& y) {
      const auto kx = key == trawl::hit_key::start ? x.start : x.end, ky = key == trawl::hit_key::start ? y.start : y.end;
      return std::tie(kx, x.pattern, x.dir, x.start, x.end) < std::tie(ky, y.pattern, y.dir, y.start, y.end);
    });
    EXPECT_EQ(a, b);
  }
  EXPECT_EQ(trawl::hit_order::of(true).key, trawl::hit_key::last);
  EXPECT_EQ(trawl::hit_order::of(false).key, trawl::hit_key::start);
}

}  // namespace
