// approx_blocked_avx2_test.cpp — blocked Myers over 16 stripes in AVX2 lanes
// (myers_blocked_avx2.cpp), m > 64: the two kernels called directly and through the public
// API with simd forced to avx2 (search -k, best_substring), against Sellers' DP in
// tests/oracle (which shares no code with them). Fixed seeds; skipped without AVX2.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "approx/approx_internal.hpp"
#include "approx_test_util.hpp"
#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/approx.hpp"
#include "trawl/detail/testing.hpp"

namespace {

namespace ad = trawl::approx_detail;

const std::size_t pattern_lengths[] = {65, 100, 128, 129, 200, 300};

/// DNA letters (the byte-code path: 4 Peq rows, vpermd over 8 codes), 0/1 (3 codes or fewer:
/// one vpermd) and all 256 bytes (gather).
const char* const alphabet_names[] = {"ACGT", "01", "bytes"};
std::string alphabet(std::size_t a) { return a == 2 ? std::string() : alphabet_names[a]; }

/// Long enough for the 16 stripes at every k <= m (w = 2m - 1 at most), twice over (two
/// slices in the threaded driver).
std::size_t text_length(std::size_t m, std::mt19937_64& rng) {
  const std::size_t w = 2 * m - 1;
  return 2 * (w + ad::blocked_stripes_avx2_count * (std::max<std::size_t>(4 * w, 1024) + 8)) + 1000 + rng() % 999;
}

/// A text over the alphabet with mutated copies of p, bytes the pattern lacks (inside and
/// outside 0x40-0x7F: the coded paths give them no Peq), and three exact copies of p a few
/// m apart in the middle (equal best ends in one stripe).
std::string make_text(std::mt19937_64& rng, const std::string& p, std::size_t a) {
  const std::string alpha = alphabet(a);
  std::string t = approx_test::text_with_copies(rng, text_length(p.size(), rng), p, p.size() / 8, alpha);
  if (a != 2)
    for (const char c : {'\n', 'N', 'x', '7', '\xC3'}) t[rng() % t.size()] = c;
  const std::size_t mid = t.size() / 2;
  for (const std::size_t at : {mid, mid + 2 * p.size(), mid + 5 * p.size() + 3}) t.replace(at, p.size(), p);
  return t;
}

TEST(ApproxBlockedAvx2, KernelsAgainstOracle) {
  // scan_myers_blocked_avx2: every end <= k of [report_from, to), from a DP started at
  // `from`. best_ends_blocked_avx2: per stripe, the ends no worse than every earlier end of
  // their stripe (the stripes as the kernel lays them out: 16 of len ends, len a multiple of 8,
  // from a0 = max(report_from, from + w); the ends around them from the scalar loop: all <= k).
  if (!trawl::cpu_supports(trawl::simd_level::avx2)) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(41);
  for (std::size_t a = 0; a < 3; ++a)
    for (const std::size_t m : pattern_lengths) {
      const std::string p = approx_test::random_pattern(rng, m, alphabet(a));
      const std::string t = make_text(rng, p, a);
      const ad::compiled_pattern cp = ad::compile_pattern(p, 0, trawl::strand::forward, trawl::match_rules{});
      ASSERT_EQ(ad::blocked_stripes_coded_avx2(cp), a != 2);
      const std::size_t from = 37, report_from = from + 5 + rng() % 100, to = t.size() - rng() % 100;
      const auto scores = oracle::end_scores(p, std::string_view(t).substr(from));  // scores[j - from]
      for (const std::uint32_t k : approx_test::blocked_k_values(m)) {
        SCOPED_TRACE(std::string(alphabet_names[a]) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        const auto [all, prefix_min] =
            approx_test::expect_striped_blocked(scores, from, report_from, to, m, k, ad::blocked_stripes_avx2_count);
        ad::vector_sink scan, best;
        ASSERT_TRUE(ad::scan_myers_blocked_avx2(cp, t, from, report_from, to, k, scan));
        EXPECT_EQ(scan.ends, all);
        ASSERT_TRUE(ad::best_ends_blocked_avx2(cp, t, from, report_from, to, k, best));
        EXPECT_EQ(best.ends, prefix_min);
        if (HasFailure()) return;
      }
    }
}

TEST(ApproxBlockedAvx2, DeclinesShortRangesAndPatterns) {
  // False and nothing reported for m <= 64, or when the range cannot hold 16 stripes of
  // max(4w, 1024) ends after the warm-up w (the callers then run the scalar loop). 20000
  // bytes: m = 65, k = 16 (w = 80) fits 16 stripes of 1240; m = 300, k = 75 (w = 374) does
  // not (16 of 1496 and the warm-up need 24310).
  if (!trawl::cpu_supports(trawl::simd_level::avx2)) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(42);
  const std::string t = oracle::random_text(rng, 20000, "ACGT");
  for (const std::size_t m : {std::size_t{64}, std::size_t{65}, std::size_t{300}}) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    const ad::compiled_pattern cp = ad::compile_pattern(p, 0, trawl::strand::forward, trawl::match_rules{});
    const auto k = static_cast<std::uint32_t>(m / 4);
    ad::vector_sink scan, best;
    EXPECT_EQ(ad::scan_myers_blocked_avx2(cp, t, 0, 0, t.size(), k, scan), m == 65) << m;
    EXPECT_EQ(ad::best_ends_blocked_avx2(cp, t, 0, 0, t.size(), k, best), m == 65) << m;
    if (m != 65) {
      EXPECT_TRUE(scan.ends.empty() && best.ends.empty()) << m;
    }
  }
}

TEST(ApproxBlockedAvx2, SearchWithSimdAvx2) {
  // `search -k` with options.simd = avx2: auto sends m > 64 to the AVX2 kernel when the
  // pigeonhole filter's pieces are short (m / (k + 1) < 8), k < m/2 and blocked_stripes_pay
  // (always over DNA and 0/1; over bytes for m <= 256 here, and m = 300 at k = 149). All ends
  // and clusters against the oracle; the threaded driver over two slices gives the same hits.
  if (!trawl::cpu_supports(trawl::simd_level::avx2)) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(43);
  test_share::cases share;
  for (std::size_t a = 0; a < 3; ++a)
    for (const std::size_t m : pattern_lengths) {
      const std::string p = approx_test::random_pattern(rng, m, alphabet(a));
      const std::string t = make_text(rng, p, a);
      if (!share.runs()) continue;
      const auto scores = oracle::end_scores(p, t);
      for (const std::uint32_t k : {static_cast<std::uint32_t>(m / 4), static_cast<std::uint32_t>((m - 1) / 2)}) {
        SCOPED_TRACE(std::string(alphabet_names[a]) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        trawl::search_options o;
        o.max_errors = static_cast<int>(k);
        o.simd = trawl::simd_level::avx2;
        o.all_ends = true;
        const auto want_ends = approx_test::oracle_ends(scores, k);
        const auto all = trawl::approx_search_serial(t, {p}, o);
        ASSERT_EQ(all.size(), want_ends.size());
        for (std::size_t i = 0; i < all.size(); ++i) {
          ASSERT_EQ(all[i].end, want_ends[i].end + 1) << i;
          ASSERT_EQ(all[i].errors, want_ends[i].errors) << i;
        }
        o.all_ends = false;
        const auto want = approx_test::oracle_clusters(scores, k);
        const auto got = trawl::approx_search_serial(t, {p}, o);
        ASSERT_EQ(got.size(), want.size());
        for (std::size_t i = 0; i < got.size(); ++i) {
          ASSERT_EQ(got[i].end, want[i].end) << i;
          ASSERT_EQ(got[i].errors, want[i].errors) << i;
          ASSERT_EQ(oracle::edit_distance(p, std::string_view(t).substr(got[i].start, got[i].end - got[i].start)),
                    got[i].errors)
              << i;
        }
        o.threads = 2;
        o.slice_size = t.size() / 2;
        EXPECT_EQ(trawl::search(t, {p}, o), got);
      }
    }
}

TEST(ApproxBlockedAvx2, BestSubstringWithSimdAvx2) {
  // best_substring with simd = avx2 (|X| > 64: the AVX2 kernel's prefix-min ends) against the
  // oracle's minimum and every end achieving it (several in one stripe: the three planted
  // exact copies, then the same with one substitution each), and against the wavefront engine.
  if (!trawl::cpu_supports(trawl::simd_level::avx2)) GTEST_SKIP() << "this CPU has no AVX2";
  std::mt19937_64 rng(44);
  test_share::cases share;
  for (std::size_t a = 0; a < 3; ++a)
    for (const std::size_t m : pattern_lengths) {
      const std::string x = approx_test::random_pattern(rng, m, alphabet(a));
      std::string y = make_text(rng, x, a);
      for (int round = 0; round < 2; ++round) {
        if (round == 1) {  // the planted copies: one substitution each
          const std::size_t mid = y.size() / 2;
          for (const std::size_t at : {mid, mid + 2 * m, mid + 5 * m + 3}) {
            char& c = y[at + rng() % m];
            c = static_cast<char>(c ^ 1);
          }
        }
        if (!share.runs()) continue;  // (after the round's draws)
        const auto scores = oracle::end_scores(x, y);
        const std::uint32_t best = *std::min_element(scores.begin(), scores.end());
        std::vector<std::uint64_t> ends;
        for (std::size_t j = 0; j < scores.size(); ++j)
          if (scores[j] == best) ends.push_back(j + 1);
        const auto wave = trawl::best_substring(x, y, {trawl::best_algorithm::wavefront, 2});
        for (const unsigned threads : {1u, 3u}) {
          SCOPED_TRACE(std::string(alphabet_names[a]) + " m=" + std::to_string(m) + " round " + std::to_string(round) +
                       " threads=" + std::to_string(threads));
          const auto r = trawl::best_substring(x, y, {trawl::best_algorithm::myers, threads, trawl::simd_level::avx2});
          ASSERT_EQ(r.distance, best);
          ASSERT_EQ(r.occurrences.size(), ends.size());
          if (round == 0) {
            ASSERT_GE(ends.size(), 3u);
          }
          for (std::size_t i = 0; i < ends.size(); ++i) {
            const trawl::hit& h = r.occurrences[i];
            ASSERT_EQ(h.end, ends[i]) << i;
            ASSERT_EQ(h.errors, best);
            ASSERT_EQ(oracle::edit_distance(x, std::string_view(y).substr(h.start, h.end - h.start)), best) << i;
          }
          EXPECT_EQ(r.occurrences, wave.occurrences);
          EXPECT_EQ(r.distance, wave.distance);
        }
      }
    }
}

}  // namespace
