// approx_slices_test.cpp — cutting the text into slices changes nothing: the matcher's scan of
// each slice (with its m+k-1 lookbehind) plus a merge of cluster pieces equals one serial scan,
// directly and through trawl::search_sequence for 1..8 threads. Also shows why the lookbehind
// must be m+k-1 and not the exact matcher's m-1.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>

#include "search_cases.hpp"
#include "approx/approx_internal.hpp"
#include "approx_test_util.hpp"
#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/approx.hpp"
#include "trawl/search.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/detail/testing.hpp"

namespace {

bool text_order(const trawl::hit& a, const trawl::hit& b) {
  return std::tie(a.end, a.pattern, a.dir, a.start) < std::tie(b.end, b.pattern, b.dir, b.start);
}

/// What the driver does with cluster pieces cut by slice edges: a piece open at its slice's
/// end (bit 1) joins the next slice's piece open at its start (bit 0); keep the smaller
/// score, the earlier piece on ties.
std::vector<trawl::hit> scan_in_slices(const trawl::matcher& m, std::string_view t, std::size_t slice) {
  std::vector<trawl::hit> done;
  struct piece {
    trawl::hit h;
    std::uint8_t sides;
    std::size_t no;
  };
  std::map<std::pair<std::uint32_t, int>, piece> pending;  // key -> (piece, its sides, slice no)
  std::size_t no = 0;
  for (std::size_t b = 0; b < t.size(); b += slice, ++no) {
    std::vector<trawl::hit> hits;
    std::vector<trawl::detail::open_mark> open;
    trawl::detail::engine_of(m).scan(t, b, std::min(t.size(), b + slice), hits, open);
    EXPECT_TRUE(std::is_sorted(hits.begin(), hits.end(), text_order));
    EXPECT_TRUE(std::is_sorted(open.begin(), open.end(), [](const auto& x, const auto& y) { return x.index < y.index; }));
    std::vector<std::uint8_t> sides(hits.size(), 0);
    for (const auto& mk : open) {
      EXPECT_LT(mk.index, hits.size());
      EXPECT_NE(mk.sides, 0);
      sides[mk.index] = mk.sides;
    }
    for (std::size_t i = 0; i < hits.size(); ++i) {
      const trawl::hit& h = hits[i];
      const auto key = std::make_pair(h.pattern, static_cast<int>(h.dir));
      auto it = pending.find(key);
      if (it != pending.end() && (it->second.sides & 2) && (sides[i] & 1) && it->second.no + 1 == no) {
        piece& p = it->second;
        p.sides = static_cast<std::uint8_t>((p.sides & 1) | (sides[i] & 2));
        if (h.errors < p.h.errors) p.h = h;
        p.no = no;
        continue;
      }
      if (it != pending.end()) done.push_back(it->second.h);
      pending[key] = {h, sides[i], no};
    }
  }
  for (auto& [k, v] : pending) done.push_back(v.h);
  std::sort(done.begin(), done.end(), text_order);
  return done;
}

TEST(ApproxSlices, SliceInvariance) {
  std::mt19937_64 rng(41);
  test_share::cases share;
  for (std::size_t m : {1, 6, 20, 64, 90}) {
    for (int k : {0, 1, 3, static_cast<int>(m)}) {
      const std::string p = approx_test::random_pattern(rng, m, "ACGT");
      const std::string q = approx_test::random_pattern(rng, m / 2 + 1, "ACGT");
      const std::string t = approx_test::text_with_copies(rng, 3000, p, static_cast<std::size_t>(k), "ACGT");
      if (!share.runs()) continue;
      for (bool all_ends : {false, true}) {
        for (const char* algo : {"dp", "auto", "myers-blocked"}) {
          trawl::search_options o;
          o.max_errors = k;
          o.all_ends = all_ends;
          o.both_strands = true;
          o.approx = trawl::parse_approx_algorithm(algo);
          const auto want = trawl::approx_search_serial(t, {p, q}, o);
          auto mt = trawl::make_approx_matcher({p, q}, o);
          for (std::size_t slice : {1, 2, 3, 7, 64, 1000}) {
            SCOPED_TRACE(std::string(algo) + " m=" + std::to_string(m) + " k=" + std::to_string(k) +
                         " slice=" + std::to_string(slice) + (all_ends ? " all-ends" : " clusters"));
            ASSERT_EQ(scan_in_slices(*mt, t, slice), want);
          }
        }
      }
    }
  }
}

TEST(ApproxSlices, DriverThreadsAndSlices) {
  std::mt19937_64 rng(42);
  const std::string p = approx_test::random_pattern(rng, 24, "ACGT");
  const std::string q = approx_test::random_pattern(rng, 80, "ACGT");
  const std::string t = approx_test::text_with_copies(rng, 40000, p, 3, "ACGT");
  for (bool all_ends : {false, true}) {
    trawl::search_options o;
    o.max_errors = 3;
    o.all_ends = all_ends;
    o.both_strands = true;
    const auto want = trawl::approx_search_serial(t, {p, q}, o);
    ASSERT_FALSE(want.empty());
    auto mt = trawl::make_matcher({p, q}, o);
    for (unsigned th = 1; th <= 8; ++th) {
      for (std::size_t slice : {1, 5, 333, 4096}) {
        if (slice < 300 && th > 2) continue;  // tiny slices: keep the run time sane
        ASSERT_EQ(test_cases::sliced_hits(*mt, t, o, th, slice), want)
            << "threads " << th << " slice " << slice << (all_ends ? " all-ends" : " clusters");
      }
    }
  }
}

TEST(ApproxSlices, DriverMergesDensePiecesOfManyPatterns) {
  // Short patterns with many errors: clusters of several (pattern, strand) pairs cut by almost
  // every slice edge, in the same slices, so the driver's merge cannot take a slice as one
  // pattern's (only its first hit continuing, only its last left open).
  std::mt19937_64 rng(44);
  const std::string t = approx_test::random_pattern(rng, 6000, "ACGT");
  const std::vector<std::string> pats = {"ACGTTG", "GGATC", "TTAGCA"};
  for (int k : {1, 2}) {
    trawl::search_options o;
    o.max_errors = k;
    o.both_strands = true;
    const auto want = trawl::approx_search_serial(t, pats, o);
    ASSERT_GT(want.size(), 200u);
    auto mt = trawl::make_matcher(pats, o);
    for (unsigned th : {1u, 3u}) {
      for (std::size_t slice : {4, 7, 29, 64, 333}) {
        ASSERT_EQ(test_cases::sliced_hits(*mt, t, o, th, slice), want)
            << "k " << k << " threads " << th << " slice " << slice;
      }
    }
  }
}

TEST(ApproxSlices, DriverOnePatternOneStrandAgainstTheOracle) {
  // One pattern on one strand: the matcher promises one (pattern, strand), so the driver
  // summarizes a slice from its first and last hit only (matcher::one_pattern_strand). Dense
  // clusters cut by most slice edges, every engine family, against the DP oracle.
  std::mt19937_64 rng(45);
  for (const std::size_t m : {std::size_t{6}, std::size_t{70}}) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    const auto k = static_cast<std::uint32_t>(m == 6 ? 2 : 8);
    // m = 70: mutated copies planted in 30 kB (random DNA has none within 8 edits).
    const std::string t = m == 6 ? approx_test::random_pattern(rng, 5000, "ACGT")
                                 : approx_test::text_with_copies(rng, 30000, p, k, "ACGT");
    const auto scores = oracle::end_scores(p, t);
    const auto want_ends = approx_test::oracle_ends(scores, k);
    const auto want_clusters = approx_test::oracle_clusters(scores, k);
    ASSERT_GT(want_clusters.size(), 50u);
    for (bool all_ends : {false, true}) {
      trawl::search_options o;
      o.max_errors = static_cast<int>(k);
      o.all_ends = all_ends;
      auto mt = trawl::make_matcher({p}, o);
      ASSERT_TRUE(trawl::detail::engine_of(*mt).one_pattern_strand());
      for (unsigned th : {1u, 3u}) {
        for (std::size_t slice : {1, 4, 29, 333, 4096}) {
          SCOPED_TRACE("m " + std::to_string(m) + " threads " + std::to_string(th) + " slice " +
                       std::to_string(slice) + (all_ends ? " all-ends" : " clusters"));
          const std::vector<trawl::hit> got = test_cases::sliced_hits(*mt, t, o, th, slice);
          const std::size_t want_n = all_ends ? want_ends.size() : want_clusters.size();
          ASSERT_EQ(got.size(), want_n);
          for (std::size_t i = 0; i < got.size(); ++i) {
            const std::uint64_t end = all_ends ? want_ends[i].end + 1 : want_clusters[i].end;
            const std::uint32_t err = all_ends ? want_ends[i].errors : want_clusters[i].errors;
            ASSERT_EQ(got[i].end, end) << "hit " << i;
            ASSERT_EQ(got[i].errors, err) << "hit " << i;
            if (all_ends) continue;
            // The leftmost start of the best end: its substring is at distance errors, and
            // none starting further left (within m + k) is.
            const auto sub = [&](std::uint64_t z) { return std::string_view(t).substr(z, end - z); };
            ASSERT_EQ(oracle::edit_distance(p, sub(got[i].start)), err) << "hit " << i;
            for (std::uint64_t z = end >= m + k ? end - m - k : 0; z < got[i].start; ++z)
              ASSERT_GT(oracle::edit_distance(p, sub(z)), err) << "hit " << i << " start " << z;
          }
        }
      }
    }
  }
}

TEST(ApproxSlices, LookbehindMustBeMPlusKMinus1) {
  // A hit whose best alignment has insertions is longer than m; a slice that reads only m-1
  // bytes before its first owned position (the exact matcher's overlap) sees a truncated DP
  // and misses or misscores it, while m+k-1 bytes reproduce the whole-text scores.
  using namespace trawl::approx_detail;
  std::mt19937_64 rng(43);
  const std::size_t m = 12;
  const std::uint32_t k = 3;
  bool shown = false;
  for (int r = 0; r < 200 && !shown; ++r) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    const std::string t = approx_test::text_with_copies(rng, 400, p, k, "ACGT");
    const compiled_pattern cp = compile_pattern(p, 0, trawl::strand::forward, {});
    const auto scores = oracle::end_scores(p, t);
    for (std::size_t own = m + k; own + 1 < t.size() && !shown; ++own) {
      if (scores[own] > k) continue;
      vector_sink short_ctx, right_ctx;
      scan_myers_word(cp, t, own - (m - 1), own, own + 1, k, short_ctx);
      scan_myers_word(cp, t, own - (m + k - 1), own, own + 1, k, right_ctx);
      ASSERT_EQ(right_ctx.ends, (std::vector<trawl::end_score>{{own, scores[own]}}));
      if (short_ctx.ends != right_ctx.ends) shown = true;
    }
  }
  EXPECT_TRUE(shown) << "no case found where an m-1 overlap loses a hit";
}

}  // namespace
