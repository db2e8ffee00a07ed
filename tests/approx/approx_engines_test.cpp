// approx_engines_test.cpp — every engine, both report modes, against Sellers' full DP in
// tests/oracle (which shares no code with the engines). Fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "approx/approx_internal.hpp"
#include "approx_test_util.hpp"
#include "common/dispatch.hpp"
#include "guarded_text.hpp"
#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/detail/testing.hpp"

namespace {

using approx_test::engines;

trawl::search_options opts(const approx_test::engine& e, int k, bool all_ends) {
  trawl::search_options o;
  o.max_errors = k;
  o.all_ends = all_ends;
  o.approx = trawl::parse_approx_algorithm(e.algorithm);
  o.simd = e.simd;
  return o;
}

/// Checks one (pattern, text, k) case for every engine in both modes.
void check_case(const std::string& p, const std::string& t, int k, bool check_leftmost) {
  const auto scores = oracle::end_scores(p, t);
  const auto kk = static_cast<std::uint32_t>(k);
  const auto want_ends = approx_test::oracle_ends(scores, kk);
  const auto want_clusters = approx_test::oracle_clusters(scores, kk);
  for (const auto& e : engines(p.size())) {
    SCOPED_TRACE("engine " + e.name + " m=" + std::to_string(p.size()) + " n=" + std::to_string(t.size()) +
                 " k=" + std::to_string(k));
    // The serial reference entry: (end, score) pairs.
    EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, k, true)), want_ends);
    // All-ends hits: same ends; starts give exactly the score and are leftmost.
    const auto all = trawl::approx_search_serial(t, {p}, opts(e, k, true));
    ASSERT_EQ(all.size(), want_ends.size());
    for (std::size_t i = 0; i < all.size(); ++i) {
      ASSERT_EQ(all[i].end, want_ends[i].end + 1);
      ASSERT_EQ(all[i].errors, want_ends[i].errors);
    }
    // Starts are re-checked by the O(m²) oracle on at most ~100 hits per engine.
    const std::size_t stride = std::max<std::size_t>(1, all.size() / 100);
    for (std::size_t i = 0; i < all.size(); i += stride) {
      ASSERT_LE(all[i].start, all[i].end);
      ASSERT_EQ(oracle::edit_distance(p, std::string_view(t).substr(all[i].start, all[i].end - all[i].start)),
                all[i].errors);
      if (check_leftmost && all[i].start > 0) {
        // No z further left gives the score (substrings longer than m + score never do).
        const std::uint64_t lo = all[i].end > p.size() + all[i].errors ? all[i].end - p.size() - all[i].errors : 0;
        for (std::uint64_t z = lo; z < all[i].start; ++z)
          ASSERT_GT(oracle::edit_distance(p, std::string_view(t).substr(z, all[i].end - z)), all[i].errors);
      }
    }
    // Clusters: the min-score end of each run, and a start achieving its score.
    const auto clusters = trawl::approx_search_serial(t, {p}, opts(e, k, false));
    ASSERT_EQ(clusters.size(), want_clusters.size());
    for (std::size_t i = 0; i < clusters.size(); ++i) {
      ASSERT_EQ(clusters[i].end, want_clusters[i].end);
      ASSERT_EQ(clusters[i].errors, want_clusters[i].errors);
    }
    const std::size_t cstride = std::max<std::size_t>(1, clusters.size() / 50);
    for (std::size_t i = 0; i < clusters.size(); i += cstride) {
      const std::string_view sub = std::string_view(t).substr(clusters[i].start, clusters[i].end - clusters[i].start);
      ASSERT_EQ(oracle::edit_distance(p, sub), clusters[i].errors);
      // The CIGAR of the reported substring spells an alignment with exactly that many errors.
      const std::string cigar = trawl::align_cigar(p, sub);
      ASSERT_EQ(trawl::cigar_errors(cigar), clusters[i].errors) << cigar;
    }
  }
}

TEST(ApproxEngines, RandomAgainstOracle) {
  std::mt19937_64 rng(20261122);
  test_share::cases share;
  const std::size_t ms[] = {1, 2, 3, 5, 8, 13, 31, 32, 33, 63, 64, 65, 100, 127, 128, 129, 200, 300};
  for (const std::string& alpha : approx_test::alphabets()) {
    for (std::size_t m : ms) {
      const std::string p = approx_test::random_pattern(rng, m, alpha);
      std::vector<int> ks = {0, 1, 2, static_cast<int>(m / 4), static_cast<int>(m / 2), static_cast<int>(m) - 1,
                             static_cast<int>(m), static_cast<int>(m) + 3};
      std::sort(ks.begin(), ks.end());
      ks.erase(std::unique(ks.begin(), ks.end()), ks.end());
      for (int k : ks) {
        if (k < 0) continue;
        // Long enough texts to fill SIMD stripes only for the cheaper sizes.
        const std::size_t n = (m <= 64 && (k <= 2 || k >= static_cast<int>(m) - 1)) ? 6000 + rng() % 3000 : 700 + rng() % 500;
        const std::string t = approx_test::text_with_copies(rng, n, p, static_cast<std::size_t>(k), alpha);
        if (!share.runs()) continue;
        check_case(p, t, k, m <= 13 && n < 2000);
        if (HasFatalFailure()) return;
      }
    }
  }
}

TEST(ApproxEngines, EdgeCases) {
  // Empty text, text shorter than m, m = 1, k = 0, k >= m.
  check_case("ACGT", "", 1, true);
  check_case("ACGT", "AC", 1, true);
  check_case("ACGT", "AC", 4, true);
  check_case("ACGT", "A", 9, true);
  check_case("A", "CACAAGA", 0, true);
  check_case("A", "CACAAGA", 1, true);
  check_case("AAA", "AAAAAAAA", 0, true);  // consecutive exact ends form one cluster
  check_case("ACGTACGT", "ACGTACGTTTACGAACGT", 2, true);
  std::string big(70000, 'A');  // k >= m: one run over the whole text, streamed
  check_case("ACG", big, 3, false);
}

TEST(ApproxEngines, HugeKIsLikeKEqualsM) {
  trawl::search_options o;
  o.max_errors = 1000000;
  auto m = trawl::make_approx_matcher({"ACGT"}, o);
  EXPECT_EQ(trawl::detail::engine_of(*m).lookbehind(), 4u + 4u - 1u);
  const auto hits = trawl::approx_search_serial("TTTTTTTT", {"ACGT"}, o);
  ASSERT_EQ(hits.size(), 1u);  // a single run covering every end
  EXPECT_EQ(hits[0].end, 1u);
  EXPECT_EQ(hits[0].errors, 3u);
}

TEST(ApproxEngines, ManyPatternsInLanes) {
  // 40 patterns of mixed lengths share the SIMD lanes; each must equal its single-pattern run.
  std::mt19937_64 rng(7);
  std::vector<std::string> pats;
  for (int i = 0; i < 40; ++i) pats.push_back(approx_test::random_pattern(rng, 5 + rng() % 60, "ACGT"));
  std::string t = oracle::random_text(rng, 50000, "ACGT");
  for (int i = 0; i < 40; ++i) {
    const std::string c = approx_test::mutate(rng, pats[static_cast<std::size_t>(i)], 2, "ACGT");
    t.replace(static_cast<std::size_t>(i) * 1200 + 17, c.size(), c);
  }
  for (bool all_ends : {false, true}) {
    // each pattern's own run by the full DP, once per mode: the same reference for every engine
    std::vector<trawl::hit> want;
    trawl::search_options od;
    od.max_errors = 2;
    od.all_ends = all_ends;
    od.approx = trawl::approx_algorithm::dp;
    for (std::size_t i = 0; i < pats.size(); ++i)
      for (trawl::hit h : trawl::approx_search_serial(t, {pats[i]}, od)) {
        h.pattern = static_cast<std::uint32_t>(i);
        want.push_back(h);
      }
    std::sort(want.begin(), want.end(), [](const trawl::hit& a, const trawl::hit& b) {
      return std::tie(a.end, a.pattern, a.start) < std::tie(b.end, b.pattern, b.start);
    });
    ASSERT_FALSE(want.empty());
    for (const auto& e : engines(64)) {
      SCOPED_TRACE(e.name);
      const auto got = trawl::approx_search_serial(t, pats, opts(e, 2, all_ends));
      ASSERT_EQ(got, want);
    }
  }
}

TEST(ApproxEngines, PatternSetsScanTheTextInBlocks) {
  // A set of patterns scans a long slice in blocks of 512 KiB, every pattern over one block
  // before the next: each engine (striped, suffix filter, lanes, blocked) picks up at a block
  // edge with its own context. The set's hits equal each pattern's own search (one pattern
  // scans without blocks), in both report modes, with Hamming, and through 2-thread slices.
  std::mt19937_64 rng(18);
  std::vector<std::string> pats;
  for (std::size_t m : {5, 12, 20, 23, 31, 40, 64, 70, 100}) pats.push_back(approx_test::random_pattern(rng, m, "ACGT"));
  std::string t = oracle::random_text(rng, 2300000, "ACGT");
  for (std::size_t at = 300; at + 200 < t.size(); at += 2000 + rng() % 9000) {
    const std::string& p = pats[rng() % pats.size()];
    const std::string c = approx_test::mutate(rng, p, rng() % 4, "ACGT");
    t.replace(at, c.size(), c);
  }
  // At each of the serial scan's block edges (512 KiB, 1 MiB, 1.5 MiB) a copy with three
  // N inserted in its middle ends on the block's first byte: its only alignment of 3 errors
  // spans all of its m + 3 bytes, so a context one byte short misses it at k = 3.
  const std::size_t edge_pat[] = {2, 3, 5};
  for (std::size_t e = 1; e <= 3; ++e) {
    const std::string& p = pats[edge_pat[e - 1]];
    const std::string c = p.substr(0, p.size() / 2) + "NNN" + p.substr(p.size() / 2);
    t.replace((e << 19) + 1 - c.size(), c.size(), c);
  }
  auto order = [](const trawl::hit& a, const trawl::hit& b) {
    return std::tie(a.end, a.pattern, a.dir, a.start) < std::tie(b.end, b.pattern, b.dir, b.start);
  };
  // k = 3: the copies at the block edges are hits (three errors) only then.
  struct mode {
    trawl::approx_algorithm algo;
    bool all_ends, hamming;
  };
  for (const mode md : {mode{trawl::approx_algorithm::automatic, false, false},
                        mode{trawl::approx_algorithm::automatic, true, false},
                        mode{trawl::approx_algorithm::automatic, false, true},
                        mode{trawl::approx_algorithm::myers_simd, false, false}}) {
    SCOPED_TRACE(std::string(trawl::to_string(md.algo)) + " all_ends=" + std::to_string(md.all_ends) +
                 " hamming=" + std::to_string(md.hamming));
    trawl::search_options o;
    o.approx = md.algo;
    o.max_errors = 3;
    o.all_ends = md.all_ends;
    o.hamming = md.hamming;
    std::vector<trawl::hit> want;
    for (std::size_t i = 0; i < pats.size(); ++i)
      for (trawl::hit h : trawl::approx_search_serial(t, {pats[i]}, o)) {
        h.pattern = static_cast<std::uint32_t>(i);
        want.push_back(h);
      }
    std::sort(want.begin(), want.end(), order);
    ASSERT_EQ(trawl::approx_search_serial(t, pats, o), want);
    o.threads = 2;
    o.slice_size = 1500007;
    ASSERT_EQ(trawl::search(t, pats, o), want);
  }
}

TEST(ApproxEngines, FilterAcrossChunksAndDenseRegions) {
  // Texts longer than the filter's 256 KiB round, planted copies near the round edges, and a
  // repetitive stretch where piece occurrences are dense (verified as one window).
  std::mt19937_64 rng(8);
  for (std::size_t m : {20, 40, 100}) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    std::string t = oracle::random_text(rng, 700000, "ACGT");
    for (std::size_t edge : {std::size_t{1} << 18, std::size_t{2} << 18})
      for (std::size_t d = 0; d < 3 * m; d += m / 2 + 1) {
        const std::string c = approx_test::mutate(rng, p, rng() % 4, "ACGT");
        t.replace(edge - d, c.size(), c);
      }
    std::string rep;
    while (rep.size() < 40000) rep += p.substr(0, m / 3);
    t.replace(600000, rep.size(), rep);
    for (int k : {1, 3}) {
      const auto want = approx_test::oracle_ends(oracle::end_scores(p, t), static_cast<std::uint32_t>(k));
      for (const auto& e : engines(m)) {
        if (e.algorithm != "myers-filter") continue;
        SCOPED_TRACE(e.name + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, k, true)), want);
      }
    }
  }
  // Dense: every position holds a piece occurrence.
  std::string p(40, 'A');
  p[20] = 'C';
  std::string t(300000, 'A');
  t[150000] = 'C';
  const auto want = approx_test::oracle_ends(oracle::end_scores(p, t), 2);
  for (const auto& e : engines(40)) {
    if (e.algorithm == "myers-filter") {
      EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, 2, true)), want) << e.name;
    }
  }
}

TEST(ApproxEngines, LanesAcrossRounds) {
  // 2.5 MB: several rounds of the lanes planner (2^16 ends per stripe per round), stripe
  // edges everywhere; the one-word engine (checked against the oracle above) is the reference.
  std::mt19937_64 rng(9);
  for (std::size_t m : {7, 20, 64}) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    std::string t = oracle::random_text(rng, 2500000, "ACGT");
    for (std::size_t at = 1000; at + 2 * m < t.size(); at += 997 + rng() % 5000) {
      const std::string c = approx_test::mutate(rng, p, rng() % 3, "ACGT");
      t.replace(at, c.size(), c);
    }
    for (int k : {1, 2}) {
      trawl::search_options o;
      o.max_errors = k;
      o.approx = trawl::approx_algorithm::myers_word;
      const auto want = trawl::approx_end_scores(p, t, o);
      for (const auto& e : engines(m)) {
        if ((e.algorithm != "myers-simd" && e.algorithm != "myers-striped") || e.simd == trawl::simd_level::serial)
          continue;
        SCOPED_TRACE(e.name + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, k, true)), want);
        // and in cluster mode through the matcher, against the word engine's clusters
        trawl::search_options oc = opts(e, k, false);
        trawl::search_options ow = o;
        EXPECT_EQ(trawl::approx_search_serial(t, {p}, oc), trawl::approx_search_serial(t, {p}, ow));
      }
    }
  }
}

TEST(ApproxEngines, StripedKernelAlphabetsAndOptions) {
  // The striped kernels look Peq up by byte quarters (AVX-512: 0x00-3F, 40-7F, 80-FF) or high
  // nibbles (AVX2): letters only, ASCII with spaces and punctuation, and every byte; with -i
  // and IUPAC classes; m across the 16/32-bit lane widths; stripe lengths not multiples of 8.
  // The suffix filter scans a suffix taken from the compiled pattern: the same cases, m > 16.
  const std::vector<trawl::simd_level> levels = approx_test::simd_levels();
  if (levels.empty()) GTEST_SKIP() << "no AVX2 / AVX-512 on this CPU";
  std::mt19937_64 rng(11);
  const std::vector<std::string> alphas = {"ACGT", "acgtACGTN", "the ,.;:THE\n0123", ""};
  for (const std::string& alpha : alphas)
    for (std::size_t m : {1, 4, 7, 15, 16, 17, 24, 31, 32, 33, 50}) {
      const std::string p = approx_test::random_pattern(rng, m, alpha);
      for (int k : {0, 1, 3, static_cast<int>(m)}) {
        if (k > static_cast<int>(m)) continue;
        const std::size_t n = 9000 + rng() % 777;
        const std::string t0 = approx_test::text_with_copies(rng, n, p, static_cast<std::size_t>(k), alpha);
        for (bool icase : {false, true})
          for (bool iupac : {false, true}) {
            if (iupac && alpha.size() > 9) continue;
            // The copies (and the rest) as the options read them: IUPAC codes become one of
            // their bases, letters flip case, so a copy matches only under those rules.
            std::string t = t0;
            for (char& c : t) {
              if (iupac && (c == 'N' || c == 'n')) c = "ACGT"[rng() % 4];
              if (icase && std::isalpha(static_cast<unsigned char>(c)) && rng() % 2 == 0)
                c = static_cast<char>(std::isupper(static_cast<unsigned char>(c)) ? std::tolower(static_cast<unsigned char>(c))
                                                                                  : std::toupper(static_cast<unsigned char>(c)));
            }
            trawl::search_options o;
            o.max_errors = k;
            o.all_ends = true;
            o.ignore_case = icase;
            o.iupac = iupac;
            o.approx = trawl::approx_algorithm::dp;
            const auto want = trawl::approx_end_scores(p, t, o);
            for (auto a : {trawl::approx_algorithm::myers_striped, trawl::approx_algorithm::myers_suffix})
              for (auto level : levels) {
                o.approx = a;
                o.simd = level;
                SCOPED_TRACE("alpha=" + alpha + " m=" + std::to_string(m) + " k=" + std::to_string(k) +
                             " i=" + std::to_string(icase) + " iupac=" + std::to_string(iupac) + " " +
                             std::string(trawl::to_string(a)) +
                             " avx512=" + std::to_string(level == trawl::simd_level::avx512));
                ASSERT_EQ(trawl::approx_end_scores(p, t, o), want);
              }
          }
      }
    }
}

/// A pattern length and error bound.
struct pk {
  std::size_t m;
  int k;
};

/// The default-mode hits of engine e: the oracle's clusters (end, errors), and the same hits
/// again through the slicing driver on 2 threads with `slice` owned bytes per slice.
std::vector<trawl::hit> clusters_checked(const std::string& t, const std::string& p, const approx_test::engine& e,
                                         int k, const std::vector<trawl::hit>& want, std::size_t slice) {
  auto got = trawl::approx_search_serial(t, {p}, opts(e, k, false));
  EXPECT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < std::min(got.size(), want.size()); ++i) {
    EXPECT_EQ(got[i].end, want[i].end) << i;
    EXPECT_EQ(got[i].errors, want[i].errors) << i;
    if (got[i].end != want[i].end || got[i].errors != want[i].errors) break;
  }
  trawl::search_options o = opts(e, k, false);
  o.threads = 2;
  o.slice_size = slice;
  EXPECT_EQ(trawl::search(t, {p}, o), got);
  return got;
}

TEST(ApproxEngines, SuffixFilterAcrossRoundsAndDenseText) {
  // The suffix filter (suffix_filter.cpp) scans rounds of 2^19 ends, each probed on its first
  // 28,672: copies planted at those edges, a stretch made of the pattern's suffix (every
  // round there is dense: scanned unfiltered, the skip doubling), random text after it
  // (filtered again), and slices whose context starts inside the text. The one-word engine
  // (checked against the oracle above) is the reference, in both report modes.
  std::mt19937_64 rng(16);
  for (const pk c : {pk{17, 3}, pk{23, 3}, pk{23, 0}, pk{32, 1}, pk{40, 3}, pk{40, 10}, pk{64, 8}}) {
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    std::string t = oracle::random_text(rng, 7000000, "ACGT");
    for (std::size_t edge : {std::size_t{28672}, std::size_t{1} << 19, std::size_t{2} << 19, std::size_t{5} << 19})
      for (std::size_t d = 0; d < 3 * c.m; d += c.m / 2 + 1) {
        const std::string cp = approx_test::mutate(rng, p, rng() % 4, "ACGT");
        t.replace(edge - d, cp.size(), cp);
      }
    for (std::size_t at = 1000; at + 2 * c.m < t.size(); at += 5000 + rng() % 20000) {
      const std::string cp = approx_test::mutate(rng, p, rng() % 4, "ACGT");
      t.replace(at, cp.size(), cp);
    }
    // Exact copies whose suffix straddles a probe's end (round start + 28,672).
    for (std::size_t e : {std::size_t{28672} + 7, (std::size_t{1} << 19) + 28672 + 9}) t.replace(e + 1 - c.m, c.m, p);
    const std::string tail = p.substr(c.m - std::min<std::size_t>(c.m - 1, 16));
    for (std::size_t at = 1200000; at < 5600000; at += tail.size()) t.replace(at, tail.size(), tail);
    trawl::search_options ow;
    ow.max_errors = c.k;
    ow.approx = trawl::approx_algorithm::myers_word;
    const auto want = trawl::approx_end_scores(p, t, ow);
    const auto want_clusters = trawl::approx_search_serial(t, {p}, ow);
    for (const auto& e : engines(c.m)) {
      if (e.algorithm != "myers-suffix" && e.algorithm != "auto") continue;
      SCOPED_TRACE(e.name + " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k));
      ASSERT_EQ(trawl::approx_end_scores(p, t, opts(e, c.k, true)), want);
      trawl::search_options o = opts(e, c.k, false);
      ASSERT_EQ(trawl::approx_search_serial(t, {p}, o), want_clusters);
      o.threads = 2;
      o.slice_size = 1000003;
      ASSERT_EQ(trawl::search(t, {p}, o), want_clusters);
    }
  }
}

TEST(ApproxEngines, StripedRunsOnLongDenseTexts) {
  // The default report mode forms runs of ends inside the striped kernel (AVX-512 and AVX2)
  // and finds starts 64 (AVX-512) or 32 (AVX2) at a time: texts over a megabyte (several 64-stripe rounds), short patterns with
  // a hit every few bytes (runs cut at every stripe and slice edge), 16- and 32-bit lanes.
  // Every cluster against the oracle; starts re-checked (exact score, nothing further left).
  std::mt19937_64 rng(14);
  const std::string t = oracle::random_text(rng, (std::size_t{1} << 20) + 77777, "ACGT");
  for (const pk c : {pk{8, 3}, pk{8, 2}, pk{5, 2}, pk{16, 5}, pk{24, 7}, pk{32, 2}}) {
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    const auto kk = static_cast<std::uint32_t>(c.k);
    const auto want = approx_test::oracle_clusters(oracle::end_scores(p, t), kk);
    for (const auto& e : engines(p.size())) {
      if (e.algorithm != "auto" && e.algorithm != "myers-striped") continue;
      SCOPED_TRACE(e.name + " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k));
      // Slices cut runs too; the same hits for any thread count.
      const auto got = clusters_checked(t, p, e, c.k, want, 100003);
      if (HasFailure()) return;
      const std::size_t stride = std::max<std::size_t>(1, got.size() / 300);
      for (std::size_t i = 0; i < got.size(); i += stride) {
        const trawl::hit& h = got[i];
        ASSERT_LE(h.start, h.end);
        ASSERT_EQ(oracle::edit_distance(p, std::string_view(t).substr(h.start, h.end - h.start)), h.errors) << i;
        const std::uint64_t lo = h.end > c.m + h.errors ? h.end - c.m - h.errors : 0;
        for (std::uint64_t z = lo; z < h.start; ++z)
          ASSERT_GT(oracle::edit_distance(p, std::string_view(t).substr(z, h.end - z)), h.errors) << i;
      }
    }
  }
}

TEST(ApproxEngines, StripedUnmaskedLookupMeetsOtherBytes) {
  // A DNA pattern lets the AVX-512 kernel skip the quarter mask while the text keeps to
  // 0x40-0x7F; it checks the bytes as it reads and runs a round again with the mask when one
  // is not (a line break, a digit): in the first round, a later round, and slices of the
  // driver, in both report modes.
  std::mt19937_64 rng(15);
  std::string t = oracle::random_text(rng, (std::size_t{1} << 20) + 200000, "ACGT");
  t[1000] = '\n';
  t[(std::size_t{1} << 20) + 150000] = '7';
  t[t.size() - 5] = '>';
  for (const pk c : {pk{8, 2}, pk{20, 3}}) {
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    const auto scores = oracle::end_scores(p, t);
    const auto kk = static_cast<std::uint32_t>(c.k);
    const auto want_ends = approx_test::oracle_ends(scores, kk);
    const auto want_clusters = approx_test::oracle_clusters(scores, kk);
    for (const auto& e : engines(p.size())) {
      if (e.algorithm != "myers-striped") continue;
      SCOPED_TRACE(e.name + " m=" + std::to_string(c.m));
      EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, c.k, true)), want_ends);
      clusters_checked(t, p, e, c.k, want_clusters, 70001);
    }
  }
}

TEST(ApproxEngines, StripedCallsAfterOtherBytesOnOneThread) {
  // After a call whose text left 0x40-0x7F, a thread runs the next calls masked and tries the
  // unmasked lookup again every few calls: texts of letters and of other bytes in turn, many
  // calls each on this thread, every one against the oracle.
  std::mt19937_64 rng(19);
  const std::string p = approx_test::random_pattern(rng, 12, "ACGT");
  for (const auto& e : engines(p.size())) {
    if (e.algorithm != "myers-striped") continue;
    SCOPED_TRACE(e.name);
    for (int call = 0; call < 150; ++call) {
      const bool letters = call / 50 != 1;  // 50 calls of letters, 50 of other bytes, 50 of letters
      const std::string t = oracle::random_text(rng, 6000, letters ? "ACGT" : "ACGT \n");
      ASSERT_EQ(trawl::approx_end_scores(p, t, opts(e, 2, true)), approx_test::oracle_ends(oracle::end_scores(p, t), 2))
          << call;
    }
  }
}

TEST(ApproxEngines, ByteKernelWithoutVbmi) {
  // m <= 8 runs in byte lanes; with AVX512_VBMI its Peq comes from vpermb (the lanes then in
  // another order). The tests above run whichever this CPU has; this one runs the other path,
  // two 16-bit lookups packed to bytes, as on an AVX-512BW CPU without VBMI (Skylake-SP):
  // every quarter mix, both report modes, the unmasked lookup meeting other bytes, and dense
  // runs over several rounds with their starts.
  if (!trawl::cpu_supports(trawl::simd_level::avx512)) GTEST_SKIP() << "no AVX-512 on this CPU";
  struct restore {
    ~restore() { trawl::cpu::limit({true, true, true}); }
  } on_exit;
  trawl::cpu::limit({true, true, false});
  std::mt19937_64 rng(17);
  for (const std::string alpha : {"ACGT", "acgtACGTN", "the ,.;:THE\n0123", ""})
    for (std::size_t m : {1, 5, 8}) {
      const std::string p = approx_test::random_pattern(rng, m, alpha);
      for (int k : {0, 2, static_cast<int>(m)}) {
        if (k > static_cast<int>(m)) continue;
        const std::string t = approx_test::text_with_copies(rng, 7000 + rng() % 555, p, static_cast<std::size_t>(k), alpha);
        trawl::search_options o;
        o.max_errors = k;
        o.all_ends = true;
        o.approx = trawl::approx_algorithm::dp;
        const auto want = trawl::approx_end_scores(p, t, o);
        o.approx = trawl::approx_algorithm::myers_striped;
        o.simd = trawl::simd_level::avx512;
        SCOPED_TRACE("alpha=" + alpha + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        ASSERT_EQ(trawl::approx_end_scores(p, t, o), want);
      }
    }
  std::string t = oracle::random_text(rng, (std::size_t{1} << 19) + 33333, "ACGT");
  t[100000] = '\n';
  for (const pk c : {pk{8, 3}, pk{6, 2}}) {
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    const auto scores = oracle::end_scores(p, t);
    const auto want_clusters = approx_test::oracle_clusters(scores, static_cast<std::uint32_t>(c.k));
    for (const auto& e : engines(p.size())) {
      if (e.algorithm != "auto" && e.algorithm != "myers-striped") continue;
      SCOPED_TRACE(e.name + " m=" + std::to_string(c.m) + " k=" + std::to_string(c.k));
      EXPECT_EQ(trawl::approx_end_scores(p, t, opts(e, c.k, true)),
                approx_test::oracle_ends(scores, static_cast<std::uint32_t>(c.k)));
      const auto got = clusters_checked(t, p, e, c.k, want_clusters, 90001);
      for (std::size_t i = 0; i < got.size(); i += 97)
        ASSERT_EQ(oracle::edit_distance(p, std::string_view(t).substr(got[i].start, got[i].end - got[i].start)),
                  got[i].errors);
    }
  }
}

TEST(ApproxEngines, BatchedStartsAgainstOracle) {
  // The batched start kernels (AVX2: 32 requests in 8/16/32-bit lanes; AVX-512BW: 64) called
  // directly, whichever this CPU has, on every end <= k of random texts: m across the lane
  // widths, k up to m (windows of one to four 16-byte blocks), ends next to the text's start
  // (the kernels hand those to the scalar loop) and a lower bound lo inside the text. Each
  // start against the oracle: the smallest z >= lo with ED(p, t[z, j]) = score.
  const bool avx2 = trawl::cpu_supports(trawl::simd_level::avx2);
  const bool avx512 = trawl::cpu_supports(trawl::simd_level::avx512);
  if (!avx2 && !avx512) GTEST_SKIP() << "no AVX2 / AVX-512 on this CPU";
  std::mt19937_64 rng(19);
  for (const std::string alpha : {"ACGT", "acgtACGTN", ""})
    for (std::size_t m : {1, 3, 8, 9, 16, 17, 31, 32})
      for (int k : {1, 3, static_cast<int>(m) / 2, static_cast<int>(m)}) {
        const std::string p = approx_test::random_pattern(rng, m, alpha);
        const std::string t = approx_test::text_with_copies(rng, 3000, p, static_cast<std::size_t>(k), alpha);
        for (std::uint64_t lo : {std::uint64_t{0}, std::uint64_t{700}}) {
          // Scores as the engines give them: the text read from lo.
          const auto scores = oracle::end_scores(p, std::string_view(t).substr(lo));
          std::vector<trawl::approx_detail::start_request> reqs;
          for (std::uint64_t j = lo; j < t.size() && reqs.size() < 150; ++j)
            if (scores[j - lo] <= static_cast<std::uint32_t>(k)) reqs.push_back({j, scores[j - lo]});
          trawl::search_options o;
          const auto cp = trawl::approx_detail::compile_pattern(p, 0, trawl::strand::forward, o.rules());
          std::vector<trawl::hit> hits;
          for (const auto& r : reqs) hits.push_back(trawl::hit{0, r.j + 1, 0, r.score, trawl::strand::forward});
          auto check = [&](const char* kernel) {
            SCOPED_TRACE(std::string(kernel) + " alpha=" + alpha + " m=" + std::to_string(m) + " k=" +
                         std::to_string(k) + " lo=" + std::to_string(lo));
            for (std::size_t i = 0; i < reqs.size(); ++i) {
              const std::uint64_t j = reqs[i].j;
              std::uint64_t want = j + 1;
              for (std::uint64_t z = j + 1 > m + static_cast<std::uint64_t>(k) ? j + 1 - m - k : 0; z <= j; ++z)
                if (z >= lo && oracle::edit_distance(p, std::string_view(t).substr(z, j + 1 - z)) == reqs[i].score) {
                  want = z;
                  break;
                }
              ASSERT_EQ(reqs[i].start, want) << "request " << i << " j=" << j;
              ASSERT_EQ(hits[i].start, want) << "hit " << i << " j=" << j;
            }
          };
          if (m <= 32 && avx2) {
            trawl::approx_detail::leftmost_starts_avx2(cp, t, lo, std::span(reqs));
            trawl::approx_detail::leftmost_starts_avx2(cp, t, lo, std::span(hits));
            check("avx2");
          }
          if (m <= 32 && avx512) {
            for (auto& r : reqs) r.start = 0;
            for (auto& h : hits) h.start = 0;
            // The AVX-512 table's start kernels: with VBMI where this CPU has it.
            const auto& starts = trawl::simd::kernels_at(trawl::simd_level::avx512).starts;
            starts.reqs(cp, t, lo, std::span(reqs));
            starts.hits(cp, t, lo, std::span(hits));
            check("avx512bw");
          }
          if (HasFatalFailure()) return;
        }
      }
}

/// Checks that `cigar` spells an alignment of p to t: '=' on equal bytes, 'X' on others, every
/// byte of both consumed.
void expect_valid_cigar(std::string_view p, std::string_view t, const std::string& cigar) {
  std::size_t i = 0, j = 0, run = 0;
  for (char c : cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + static_cast<std::size_t>(c - '0');
      continue;
    }
    for (std::size_t r = 0; r < run; ++r) {
      if (c == '=' || c == 'X') {
        ASSERT_TRUE(i < p.size() && j < t.size());
        ASSERT_EQ(p[i] == t[j], c == '=') << "at pattern " << i << ", text " << j;
        ++i, ++j;
      } else if (c == 'I') {
        ++i;
      } else {
        ASSERT_EQ(c, 'D');
        ++j;
      }
    }
    run = 0;
  }
  EXPECT_EQ(i, p.size());
  EXPECT_EQ(j, t.size());
}

TEST(ApproxEngines, LongPatternsInABand) {
  // Long patterns with few errors: starts from the band of width 2k + 1 (align.cpp), the
  // filter's narrow windows verified in a band (pigeon_filter.cpp) and CIGARs from a band that
  // doubles until the distance fits; every end and score against the full DP, starts and
  // CIGARs against the oracle's edit distance.
  std::mt19937_64 rng(23);
  for (std::size_t m : {300, 700, 2500})
    for (int k : {0, 1, 3, 9}) {
      const std::string p = approx_test::random_pattern(rng, m, "ACGT");
      const std::string t = approx_test::text_with_copies(rng, 3 * m + 500, p, static_cast<std::size_t>(k), "ACGT");
      const auto scores = oracle::end_scores(p, t);
      const auto want = approx_test::oracle_ends(scores, static_cast<std::uint32_t>(k));
      for (const char* algo : {"auto", "myers-filter", "myers"}) {
        SCOPED_TRACE(std::string(algo) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        trawl::search_options o;
        o.max_errors = k;
        o.all_ends = true;
        o.approx = trawl::parse_approx_algorithm(algo);
        const auto hits = trawl::approx_search_serial(t, {p}, o);
        ASSERT_EQ(hits.size(), want.size());
        for (std::size_t i = 0; i < hits.size(); ++i) {
          ASSERT_EQ(hits[i].end, want[i].end + 1);
          ASSERT_EQ(hits[i].errors, want[i].errors);
        }
        for (std::size_t i = 0; i < hits.size(); i += std::max<std::size_t>(1, hits.size() / 3)) {
          const std::string_view sub = std::string_view(t).substr(hits[i].start, hits[i].end - hits[i].start);
          ASSERT_EQ(oracle::edit_distance(p, sub), hits[i].errors);
          // leftmost: no z further left reaches the score (a substring longer than m + errors cannot)
          const std::uint64_t e = hits[i].end;
          for (std::uint64_t z = e > m + hits[i].errors ? e - m - hits[i].errors : 0; z < hits[i].start; ++z)
            ASSERT_GT(oracle::edit_distance(p, std::string_view(t).substr(z, e - z)), hits[i].errors);
          const std::string cigar = trawl::align_cigar(p, sub);
          ASSERT_EQ(trawl::cigar_errors(cigar), hits[i].errors) << cigar;
          expect_valid_cigar(p, sub, cigar);
        }
      }
    }
  // CIGARs of pairs far apart (the band doubles up to the whole matrix) and of equal ones
  for (int r = 0; r < 40; ++r) {
    const std::string a = oracle::random_text(rng, 200 + rng() % 900, "ACGT");
    std::string b = r % 2 ? oracle::random_text(rng, rng() % 1200, "ACGT") : a;
    if (r % 4 == 0 && !b.empty()) b.erase(rng() % b.size(), 1 + rng() % 40);
    const std::string c = trawl::align_cigar(a, b);
    EXPECT_EQ(trawl::cigar_errors(c), oracle::edit_distance(a, b));
    expect_valid_cigar(a, b, c);
  }
}

TEST(ApproxEngines, StripedBlockedOnLongTexts) {
  // m > 64 with k large enough that auto picks blocked Myers over 32 stripes in AVX-512 lanes
  // (no pigeonhole filter: pieces under 8 bytes; k < m/2): texts long enough for the stripes,
  // every engine and both modes against the oracle, and the threaded driver on slices. DNA
  // (here) and 0/1 texts (`trawl best`'s tests) take the 3-bit byte codes;
  // approx_blocked_test.cpp checks each of the kernel's lookups.
  std::mt19937_64 rng(18);
  for (const pk c : {pk{65, 20}, pk{128, 40}, pk{200, 60}}) {
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    std::string t = approx_test::text_with_copies(rng, 120000 + rng() % 999, p, static_cast<std::size_t>(c.k / 2), "ACGT");
    // Bytes the pattern does not have, inside and outside 0x40-0x7F (byte code 0).
    t[1000] = '\n';
    t[5000] = 'N';
    t[t.size() / 2] = 'x';
    t[t.size() - 100] = '7';
    check_case(p, t, c.k, false);
    if (HasFatalFailure()) return;
    const auto want = approx_test::oracle_clusters(oracle::end_scores(p, t), static_cast<std::uint32_t>(c.k));
    for (const auto& e : engines(p.size()))
      if (e.algorithm == "auto") clusters_checked(t, p, e, c.k, want, 50001);
  }
}

TEST(ApproxEngines, WithoutStartsSameHits) {
  // starts = false (the CLI's -c / -q) leaves start == end and changes nothing else.
  std::mt19937_64 rng(12);
  const std::string t = oracle::random_text(rng, 200000, "ACGT");
  for (const std::string& p : {std::string("ACGTTGCA"), std::string("ACGTTGCAACGTTGCAAC"), std::string(70, 'A')})
    for (bool all_ends : {false, true})
      for (bool hamming : {false, true}) {
        trawl::search_options o;
        o.max_errors = 2;
        o.all_ends = all_ends;
        o.hamming = hamming;
        auto want = trawl::approx_search_serial(t, {p}, o);
        o.starts = false;
        const auto got = trawl::approx_search_serial(t, {p}, o);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i].end, want[i].end);
          ASSERT_EQ(got[i].errors, want[i].errors);
          ASSERT_EQ(got[i].start, hamming ? want[i].start : got[i].end);
        }
      }
}

TEST(ApproxEngines, NoReadsOutsideTheText) {
  // The text touches an inaccessible page before or after it: an engine that reads a byte
  // outside it (a gather, a tail load, a start pass) crashes the test.
  std::mt19937_64 rng(13);
  for (std::size_t n : {std::size_t{5000}, std::size_t{70001}}) {
    const std::string p = approx_test::random_pattern(rng, 12, "ACGT");
    const std::string t = approx_test::text_with_copies(rng, n, p, 2, "ACGT");
    for (bool at_start : {true, false}) {
      const oracle::guarded_text g(t, at_start);
      for (const std::string& q : {p, p.substr(0, 7), p + p + "ACGTACGT"})
        for (bool all_ends : {false, true})
          for (const auto& e : engines(q.size())) {
            SCOPED_TRACE(e.name + " m=" + std::to_string(q.size()) + " n=" + std::to_string(n));
            const auto want = trawl::approx_search_serial(t, {q}, opts(e, 2, all_ends));
            EXPECT_EQ(trawl::approx_search_serial(g.view(), {q}, opts(e, 2, all_ends)), want);
          }
    }
  }
}

TEST(ApproxEngines, Errors) {
  trawl::search_options o;
  o.max_errors = 1;
  EXPECT_THROW(trawl::make_approx_matcher({""}, o), trawl::error);
  EXPECT_THROW(trawl::make_approx_matcher({std::string("A\0C", 3)}, o), trawl::error);
  EXPECT_THROW(trawl::parse_approx_algorithm("nope"), trawl::error);
  EXPECT_EQ(trawl::parse_approx_algorithm(trawl::to_string(trawl::approx_algorithm::myers_filter)),
            trawl::approx_algorithm::myers_filter);
  o.approx = trawl::approx_algorithm::myers_word;
  EXPECT_THROW(trawl::make_approx_matcher({std::string(65, 'A')}, o), trawl::error);
  o.approx = trawl::approx_algorithm::automatic;
  o.max_errors = -1;
  EXPECT_THROW(trawl::make_approx_matcher({"ACGT"}, o), trawl::error);
}

}  // namespace
