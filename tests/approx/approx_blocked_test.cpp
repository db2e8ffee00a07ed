// approx_blocked_test.cpp — the striped blocked Myers kernels (m > 64) of each SIMD level the
// CPU has, as the dispatch table holds them: 16 stripes in AVX2 lanes (myers_blocked_avx2.cpp)
// and 32 in AVX-512 lanes (myers_blocked_avx512.cpp; on a VBMI CPU once more as on one without
// it, cpu::limit without VBMI). Each level's two kernels are called directly and through the
// public API with simd forced to the level (search -k, best_substring), against Sellers' DP in
// tests/oracle (which shares no code with them), over alphabets that pick each Peq lookup:
// 3-bit byte codes (at most 8 byte values with a Peq in at most 7 distinct rows, any bytes: the
// AVX2 kernel's vpermd path too), 4-bit codes of bytes 0x40-0x7F (VBMI) and gathers. Fixed
// seeds; a level the CPU lacks is skipped.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "approx/approx_internal.hpp"
#include "approx_test_util.hpp"
#include "common/dispatch.hpp"
#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/approx.hpp"
#include "trawl/detail/testing.hpp"

namespace {

namespace ad = trawl::approx_detail;

const std::size_t pattern_lengths[] = {65, 100, 128, 129, 200, 300};

/// An alphabet of pattern and text, its matching rule, and what the kernels make of it.
struct alphabet_case {
  const char* name;
  std::string letters;  ///< "" = every byte
  bool ignore_case;
  bool codes3;  ///< blocked_byte_codes applies (and the AVX2 kernel's coded path)
  bool codes4;  ///< the 4-bit codes apply on a VBMI CPU (when codes3 does not)
  bool api;     ///< also searched through the public API
};

const alphabet_case cases[] = {
    {"01", "01", false, true, false, true},
    {"ACGT", "ACGT", false, true, false, true},
    // 8 byte values in 7 rows: 'A' and 'a' share one; both nibbles of 0x81 and 0xC3 are high.
    {"7 rows", std::string("A\x81\xC3#07\t"), true, true, false, false},
    // 8 rows (8 values): no 3-bit codes; letters take the 4-bit ones on VBMI CPUs.
    {"8 rows letters", "ACGTRYKM", false, false, true, false},
    {"8 rows bytes", std::string("\x81" "ACGT#0\t"), false, false, false, false},
    // 10 values in 5 rows: too many values for 3-bit codes.
    {"acgtn folded", "ACGTNacgtn", true, false, true, false},
    {"bytes", "", false, false, false, true},
};

std::string level_name(trawl::simd_level level) { return level == trawl::simd_level::avx2 ? "Avx2" : "Avx512"; }

/// Long enough for the level's stripes at every k <= m (w = 2m - 1 at most), `times` over
/// (2: two slices in the threaded driver).
std::size_t text_length(std::size_t m, std::size_t stripes, std::size_t times, std::mt19937_64& rng) {
  const std::size_t w = 2 * m - 1;
  return times * (w + stripes * (std::max<std::size_t>(4 * w, 1024) + 8)) + 1000 + rng() % 999;
}

/// A text over the alphabet with mutated copies of p, bytes the pattern lacks (inside and
/// outside 0x40-0x7F: no Peq, code 0), and three exact copies of p a few m apart in the middle
/// (equal best ends in one stripe).
std::string make_text(std::mt19937_64& rng, const std::string& p, const alphabet_case& a, std::size_t stripes,
                      std::size_t times) {
  std::string t =
      approx_test::text_with_copies(rng, text_length(p.size(), stripes, times, rng), p, p.size() / 8, a.letters);
  if (!a.letters.empty())
    for (const char c : {'\n', 'N', 'x', '7', '\xC3', '\x80', 'a'}) t[rng() % t.size()] = c;
  const std::size_t mid = t.size() / 2;
  for (const std::size_t at : {mid, mid + 2 * p.size(), mid + 5 * p.size() + 3}) t.replace(at, p.size(), p);
  if (a.ignore_case)  // the other case of every letter, here and there
    for (std::size_t i = 0; i < t.size(); i += 1 + rng() % 5)
      if (std::isalpha(static_cast<unsigned char>(t[i]))) t[i] = static_cast<char>(t[i] ^ 0x20);
  return t;
}

/// ASCII letters to lower case: the oracle compares bytes, so a case-folded search is the
/// oracle's over both strings lowered.
std::string lowered(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c + 32);
  return s;
}

/// Sellers' end scores of p over t (both lowered for a case-folded alphabet).
std::vector<std::uint32_t> scores_of(const std::string& p, std::string_view t, const alphabet_case& a) {
  return a.ignore_case ? oracle::end_scores(lowered(p), lowered(std::string(t))) : oracle::end_scores(p, t);
}

class ApproxBlocked : public ::testing::TestWithParam<trawl::simd_level> {
 protected:
  void SetUp() override {
    if (!trawl::cpu_supports(GetParam())) GTEST_SKIP() << "this CPU has no " << level_name(GetParam());
  }
  [[nodiscard]] std::size_t stripes() const {
    return GetParam() == trawl::simd_level::avx2 ? ad::blocked_stripes_avx2_count : ad::blocked_stripes_avx512_count;
  }
};

TEST_P(ApproxBlocked, KernelsAgainstOracle) {
  // scan: every end <= k of [report_from, to), from a DP started at `from`. best: per stripe,
  // the ends no worse than every earlier end of their stripe (the stripes as the kernel lays
  // them out: `stripes` of len ends, len a multiple of 8, from a0 = max(report_from, from + w);
  // the ends around them from the scalar loop: all <= k).
  const trawl::simd_level level = GetParam();
  const bool avx512 = level == trawl::simd_level::avx512;
  struct restore {
    ~restore() { trawl::cpu::limit({true, true, true}); }
  } on_exit;
  const bool vbmi = avx512 && trawl::cpu::active().avx512vbmi;
  std::mt19937_64 rng(45);
  for (const alphabet_case& a : cases)
    for (const std::size_t m : pattern_lengths) {
      const std::string p = approx_test::random_pattern(rng, m, a.letters);
      const std::string t = make_text(rng, p, a, stripes(), 1);
      trawl::search_options o;
      o.ignore_case = a.ignore_case;
      const ad::compiled_pattern cp = ad::compile_pattern(p, 0, trawl::strand::forward, o.rules());
      const std::size_t from = 37, report_from = from + 5 + rng() % 100, to = t.size() - rng() % 100;
      const auto scores = scores_of(p, std::string_view(t).substr(from), a);  // [j - from]
      for (const bool allow_vbmi : {true, false}) {
        if (!allow_vbmi && !vbmi) continue;  // this CPU runs the non-VBMI paths already
        trawl::cpu::limit({true, true, allow_vbmi});
        const bool has_vbmi = vbmi && allow_vbmi;
        const trawl::simd::kernels& ks = trawl::simd::kernels_at(level);
        ASSERT_EQ(ks.blocked.stripes, stripes());
        ASSERT_EQ(ad::make_blocked_byte_codes(cp).small, a.codes3) << a.name;
        if (avx512) {
          ASSERT_EQ(ks.features.avx512vbmi, has_vbmi);
          ASSERT_EQ(ad::blocked_stripes_code_bits(cp, has_vbmi), a.codes3 ? 3 : a.codes4 && has_vbmi ? 4 : 0) << a.name;
        } else {
          ASSERT_EQ(ad::blocked_stripes_coded_avx2(cp), a.codes3) << a.name;
        }
        for (const std::uint32_t k : approx_test::blocked_k_values(m)) {
          SCOPED_TRACE(std::string(a.name) + " m=" + std::to_string(m) + " k=" + std::to_string(k) +
                       " vbmi=" + std::to_string(has_vbmi));
          const auto [all, prefix_min] = approx_test::expect_striped_blocked(scores, from, report_from, to, m, k, stripes());
          ad::vector_sink scan, best;
          ASSERT_TRUE(ks.blocked.scan(cp, t, from, report_from, to, k, scan));
          EXPECT_EQ(scan.ends, all);
          ASSERT_TRUE(ks.blocked.best(cp, t, from, report_from, to, k, best));
          EXPECT_EQ(best.ends, prefix_min);
          if (HasFailure()) return;
        }
      }
    }
}

TEST_P(ApproxBlocked, DeclinesShortRangesAndPatterns) {
  // False and nothing reported for m <= 64, or when the range cannot hold the stripes of
  // max(4w, 1024) ends after the warm-up w (the callers then run the scalar loop): 1250 bytes a
  // stripe hold m = 65, k = 16 (w = 80), not m = 300, k = 75 (w = 374, about 1500 a stripe).
  const trawl::simd::kernels& ks = trawl::simd::kernels_at(GetParam());
  std::mt19937_64 rng(42);
  const std::string t = oracle::random_text(rng, 1250 * stripes(), "ACGT");
  for (const std::size_t m : {std::size_t{64}, std::size_t{65}, std::size_t{300}}) {
    const std::string p = approx_test::random_pattern(rng, m, "ACGT");
    const ad::compiled_pattern cp = ad::compile_pattern(p, 0, trawl::strand::forward, trawl::match_rules{});
    const auto k = static_cast<std::uint32_t>(m / 4);
    ad::vector_sink scan, best;
    EXPECT_EQ(ks.blocked.scan(cp, t, 0, 0, t.size(), k, scan), m == 65) << m;
    EXPECT_EQ(ks.blocked.best(cp, t, 0, 0, t.size(), k, best), m == 65) << m;
    if (m != 65) {
      EXPECT_TRUE(scan.ends.empty() && best.ends.empty()) << m;
    }
  }
}

TEST_P(ApproxBlocked, SearchWithTheLevel) {
  // `search -k` with options.simd = the level, m > 64: all ends and clusters against the
  // oracle, whichever kernel the plan picks; the threaded driver over two slices gives the
  // same hits.
  std::mt19937_64 rng(43);
  test_share::cases share;
  for (const alphabet_case& a : cases) {
    if (!a.api) continue;
    for (const std::size_t m : pattern_lengths) {
      const std::string p = approx_test::random_pattern(rng, m, a.letters);
      const std::string t = make_text(rng, p, a, stripes(), 2);
      if (!share.runs()) continue;
      const auto scores = scores_of(p, t, a);
      for (const std::uint32_t k : {static_cast<std::uint32_t>(m / 4), static_cast<std::uint32_t>((m - 1) / 2)}) {
        SCOPED_TRACE(std::string(a.name) + " m=" + std::to_string(m) + " k=" + std::to_string(k));
        trawl::search_options o;
        o.max_errors = static_cast<int>(k);
        o.simd = GetParam();
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
}

TEST_P(ApproxBlocked, BestSubstringWithTheLevel) {
  // best_substring with simd = the level (|X| > 64: the level's prefix-min ends) against the
  // oracle's minimum and every end achieving it (several in one stripe: the three planted
  // exact copies, then the same with one substitution each), and against the wavefront engine.
  std::mt19937_64 rng(44);
  test_share::cases share;
  for (const alphabet_case& a : cases) {
    if (!a.api) continue;
    for (const std::size_t m : pattern_lengths) {
      const std::string x = approx_test::random_pattern(rng, m, a.letters);
      std::string y = make_text(rng, x, a, stripes(), 2);
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
          SCOPED_TRACE(std::string(a.name) + " m=" + std::to_string(m) + " round " + std::to_string(round) +
                       " threads=" + std::to_string(threads));
          const auto r = trawl::best_substring(x, y, {trawl::best_algorithm::myers, threads, GetParam()});
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
}

INSTANTIATE_TEST_SUITE_P(EachLevel, ApproxBlocked, ::testing::Values(trawl::simd_level::avx2, trawl::simd_level::avx512),
                         [](const ::testing::TestParamInfo<trawl::simd_level>& level) { return level_name(level.param); });

}  // namespace
