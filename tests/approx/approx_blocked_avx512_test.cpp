// approx_blocked_avx512_test.cpp — blocked Myers over 32 stripes in AVX-512 lanes
// (myers_blocked_avx512.cpp), m > 64: both kernels, as the AVX-512 dispatch table holds them,
// called directly against Sellers' DP in
// tests/oracle (which shares no code with them), over alphabets that pick each of the
// kernel's three Peq lookups: 3-bit byte codes (at most 8 byte values with a Peq in at most 7
// distinct rows, any bytes), 4-bit codes of bytes 0x40-0x7F (VBMI CPUs) and gathers; on a
// VBMI CPU once more as on one without it (cpu::limit without VBMI). Fixed seeds; skipped
// without AVX-512.
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <random>

#include "approx/approx_internal.hpp"
#include "approx_test_util.hpp"
#include "common/dispatch.hpp"
#include "oracle.hpp"
#include "trawl/approx.hpp"

namespace {

namespace ad = trawl::approx_detail;

const std::size_t pattern_lengths[] = {65, 128, 129, 200};

/// An alphabet of pattern and text, its matching rule, and what the kernel makes of it.
struct alphabet_case {
  const char* name;
  std::string letters;  ///< "" = every byte
  bool ignore_case;
  bool codes3;  ///< blocked_byte_codes applies
  bool codes4;  ///< the 4-bit codes apply on a VBMI CPU (when codes3 does not)
};

const alphabet_case cases[] = {
    {"01", "01", false, true, false},
    {"ACGT", "ACGT", false, true, false},
    // 8 byte values in 7 rows: 'A' and 'a' share one; both nibbles of 0x81 and 0xC3 are high.
    {"7 rows", std::string("A\x81\xC3#07\t"), true, true, false},
    // 8 rows (8 values): no 3-bit codes; letters take the 4-bit ones on VBMI CPUs.
    {"8 rows letters", "ACGTRYKM", false, false, true},
    {"8 rows bytes", std::string("\x81" "ACGT#0\t"), false, false, false},
    // 10 values in 5 rows: too many values for 3-bit codes.
    {"acgtn folded", "ACGTNacgtn", true, false, true},
    {"bytes", "", false, false, false},
};

/// Long enough for the 32 stripes at every k <= m (w = 2m - 1 at most).
std::size_t text_length(std::size_t m, std::mt19937_64& rng) {
  const std::size_t w = 2 * m - 1;
  return w + ad::blocked_stripes_avx512_count * (std::max<std::size_t>(4 * w, 1024) + 8) + 1000 + rng() % 999;
}

/// A text over the alphabet with mutated copies of p, bytes the pattern lacks (inside and
/// outside 0x40-0x7F: no Peq, code 0), and three exact copies of p a few m apart in the middle
/// (equal best ends in one stripe).
std::string make_text(std::mt19937_64& rng, const std::string& p, const alphabet_case& a) {
  std::string t = approx_test::text_with_copies(rng, text_length(p.size(), rng), p, p.size() / 8, a.letters);
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

TEST(ApproxBlockedAvx512, KernelsAgainstOracle) {
  // scan_myers_blocked_avx512: every end <= k of [report_from, to), from a DP started at
  // `from`. best_ends_blocked_avx512: per stripe, the ends no worse than every earlier end of
  // their stripe (the stripes as the kernel lays them out: 32 of len ends, len a multiple of
  // 8, from a0 = max(report_from, from + w); the ends around them from the scalar loop: all
  // <= k).
  if (!trawl::cpu_supports(trawl::simd_level::avx512)) GTEST_SKIP() << "this CPU has no AVX-512";
  struct restore {
    ~restore() { trawl::cpu::limit({true, true, true}); }
  } on_exit;
  const bool vbmi = trawl::cpu::active().avx512vbmi;
  std::mt19937_64 rng(45);
  for (const alphabet_case& a : cases)
    for (const std::size_t m : pattern_lengths) {
      const std::string p = approx_test::random_pattern(rng, m, a.letters);
      const std::string t = make_text(rng, p, a);
      trawl::search_options o;
      o.ignore_case = a.ignore_case;
      const ad::compiled_pattern cp = ad::compile_pattern(p, 0, trawl::strand::forward, o.rules());
      const std::size_t from = 37, report_from = from + 5 + rng() % 100, to = t.size() - rng() % 100;
      const auto scores = a.ignore_case ? oracle::end_scores(lowered(p), lowered(t).substr(from))
                                        : oracle::end_scores(p, std::string_view(t).substr(from));  // [j - from]
      for (const bool allow_vbmi : {true, false}) {
        if (!allow_vbmi && !vbmi) continue;  // this CPU runs the non-VBMI paths already
        trawl::cpu::limit({true, true, allow_vbmi});
        const bool has_vbmi = vbmi && allow_vbmi;
        const trawl::simd::kernels& ks = trawl::simd::kernels_at(trawl::simd_level::avx512);
        ASSERT_EQ(ks.features.avx512vbmi, has_vbmi);
        ASSERT_EQ(ad::make_blocked_byte_codes(cp).small, a.codes3) << a.name;
        ASSERT_EQ(ad::blocked_stripes_code_bits(cp, has_vbmi), a.codes3 ? 3 : a.codes4 && has_vbmi ? 4 : 0) << a.name;
        for (const std::uint32_t k : approx_test::blocked_k_values(m)) {
          SCOPED_TRACE(std::string(a.name) + " m=" + std::to_string(m) + " k=" + std::to_string(k) +
                       " vbmi=" + std::to_string(has_vbmi));
          const auto [all, prefix_min] =
              approx_test::expect_striped_blocked(scores, from, report_from, to, m, k, ad::blocked_stripes_avx512_count);
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

}  // namespace
