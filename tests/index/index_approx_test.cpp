// index_approx_test.cpp — search through the Hybrid Index with search options (approximate,
// Hamming, IUPAC, case, both strands, all ends) against trawl::search over each record of the
// same FASTA, and the end scores against the DP oracle: M from 8 to 64, m + k at and around M,
// k from 0 to 4, collections of mutated haplotypes with records shorter than M and empty ones.
#include <gtest/gtest.h>

#include <random>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "oracle.hpp"
#include "test_share.hpp"
#include "text_gen.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/search.hpp"
#include "search_cases.hpp"

namespace {

using trawl::index::hybrid_index;
using trawl::index::record_hit;

/// Haplotypes of one base with substitutions and small indels, as FASTA records, plus a few
/// records shorter than M (one empty).
std::string haplotypes(std::mt19937_64& rng, std::size_t base_len, int copies, double rate,
                       std::string_view alphabet = "ACGT") {
  const std::string base = oracle::random_text(rng, base_len, alphabet);
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<std::size_t> b(0, alphabet.size() - 1);
  std::string fa;
  for (int c = 0; c < copies; ++c) {
    std::string h;
    for (char ch : base) {
      const double x = u(rng);
      if (x < rate) h += alphabet[b(rng)];           // substitution
      else if (x < rate * 1.2) continue;              // deletion
      else if (x < rate * 1.4) h += std::string(1, ch) + alphabet[b(rng)];  // insertion
      else h += ch;
    }
    fa += ">hap" + std::to_string(c) + "\n" + h + "\n";
    if (c == 1) fa += ">short\nACGTTGCA\n>empty\n";
  }
  return fa;
}

std::vector<std::string> record_sequences(std::string_view fa) {
  std::vector<std::string> out;
  for (const auto& r : oracle::parse_records(fa, true)) out.push_back(r.seq);
  return out;
}

/// Patterns cut from the text (so that they occur, with errors) plus random ones.
std::vector<std::string> patterns_from(std::mt19937_64& rng, const std::vector<std::string>& recs, std::size_t m,
                                       int count, bool iupac) {
  std::vector<std::string> ps;
  std::uniform_int_distribution<int> b(0, 3);
  for (int i = 0; i < count; ++i) {
    const std::string& r = recs[static_cast<std::size_t>(i) % 2];
    std::string p = r.size() > m ? r.substr(std::uniform_int_distribution<std::size_t>(0, r.size() - m)(rng), m)
                                 : oracle::random_text(rng, m, "ACGT");
    if (i % 3 == 2) p[static_cast<std::size_t>(b(rng)) % m] = "ACGT"[b(rng)];
    if (iupac && m > 2) p[m / 2] = 'N';
    ps.push_back(p);
  }
  ps.push_back(oracle::random_text(rng, m, "ACGT"));
  return ps;
}

std::vector<record_hit> plain_search(const std::vector<std::string>& recs, const std::vector<std::string>& ps,
                                     const trawl::search_options& o) {
  std::vector<record_hit> out;
  for (std::size_t r = 0; r < recs.size(); ++r)
    for (const trawl::hit& h : trawl::search(recs[r], ps, o)) out.push_back({static_cast<std::uint32_t>(r), h});
  return out;
}

std::string show(const std::vector<record_hit>& v, std::size_t limit = 12) {
  std::string s;
  for (std::size_t i = 0; i < v.size() && i < limit; ++i)
    s += "(" + std::to_string(v[i].record) + " " + std::to_string(v[i].h.start) + "-" + std::to_string(v[i].h.end) +
         " p" + std::to_string(v[i].h.pattern) + " e" + std::to_string(v[i].h.errors) +
         (v[i].h.dir == trawl::strand::reverse ? " -" : " +") + ") ";
  return s;
}

using mode = test_cases::search_mode;

TEST(IndexApprox, EqualsSearchOverTheRecords) {
  std::mt19937_64 rng(20261126);
  int cases = 0;
  test_share::cases share;
  // the exact parse, and the parse relative to the first haplotype (co-linear sources)
  for (const bool relative : {false, true})
  for (std::uint32_t M : {8u, 12u, 16u, 32u, 64u}) {
    SCOPED_TRACE(relative ? "relative parse" : "exact parse");
    const std::string fa = haplotypes(rng, relative ? 1500 : 600, relative ? 10 : 6, relative ? 0.004 : 0.01);
    const std::vector<std::string> recs = record_sequences(fa);
    trawl::index::build_options bo;
    bo.max_len = M;
    if (relative) bo.lz_reference = recs[0].size();
    const hybrid_index ix = hybrid_index::build(fa, "hap.fa", bo);
    ASSERT_EQ(ix.records().size(), recs.size());
    for (const mode md : {mode{.k = 1}, mode{.k = 2, .both = true}, mode{.k = 3, .both = true, .all_ends = true},
                          mode{.k = 2, .hamming = true}, mode{.k = 1, .both = true, .iupac = true},
                          mode{.both = true, .iupac = true, .fold = true}, mode{.k = 4}, mode{.all_ends = true}}) {
      // m + k at M, just under, just over, and well under
      for (const std::int64_t delta : {0, -1, 1, -5}) {
        const std::int64_t m = static_cast<std::int64_t>(M) - (md.hamming ? 0 : md.k) + delta;
        if (m <= md.k || m < 2) continue;
        const auto ps = patterns_from(rng, recs, static_cast<std::size_t>(m), 4, md.iupac);
        ++cases;
        if (!share.runs()) continue;
        trawl::search_options o = test_cases::options_of(md);
        o.threads = 1 + static_cast<unsigned>(cases % 3);
        const auto want = plain_search(recs, ps, o);
        const auto got = ix.search_records(ps, o);
        ASSERT_EQ(got.size(), want.size()) << "M " << M << " m " << m << " k " << md.k << "\n got  " << show(got)
                                           << "\n want " << show(want);
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_TRUE(got[i].record == want[i].record && got[i].h == want[i].h)
              << "M " << M << " m " << m << " k " << md.k << " at " << i << "\n got  " << show({got[i]})
              << "\n want " << show({want[i]});
      }
    }
  }
  EXPECT_GT(cases, 100);
}

TEST(IndexApprox, PunctuationAlphabets) {
  // texts and patterns of non-letters in and next to the range the striped kernels read
  // unmasked (0x40-0x7F), where case and IUPAC rules do not apply
  const std::string joiners = std::string("@[]^_`{|}~\\") + '\x7f';
  std::mt19937_64 rng(31);
  for (const std::string& alphabet : {joiners + "ab", std::string("ACGT@[")}) {
    const std::string fa = haplotypes(rng, 500, 5, 0.02, alphabet);
    const std::vector<std::string> recs = record_sequences(fa);
    trawl::index::build_options bo;
    bo.max_len = 16;
    const hybrid_index ix = hybrid_index::build(fa, "hap.fa", bo);
    std::vector<std::string> some, all = {joiners.substr(0, 6), joiners.substr(6)};
    for (int i = 0; i < 6; ++i) some.push_back(recs[static_cast<std::size_t>(i % 2)].substr(37 * i, 12));
    all.insert(all.end(), some.begin(), some.end());
    for (const auto& ps : {some, all})
      for (const bool both : {false, true}) {
        trawl::search_options o;
        o.max_errors = 2;
        o.both_strands = both;
        o.threads = 2;
        const auto want = plain_search(recs, ps, o);
        const auto got = ix.search_records(ps, o);
        EXPECT_GE(want.size(), 6u);
        ASSERT_EQ(got.size(), want.size()) << show(got) << "\n" << show(want);
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_TRUE(got[i].record == want[i].record && got[i].h == want[i].h) << i;
      }
  }
}

TEST(IndexApprox, EndScoresAgreeWithTheOracle) {
  // all ends, forward strand: every end's errors is the DP's score there, and no end within k
  // is missing
  std::mt19937_64 rng(77);
  const std::string fa = haplotypes(rng, 500, 5, 0.02);
  const std::vector<std::string> recs = record_sequences(fa);
  trawl::index::build_options bo;
  bo.max_len = 16;
  const hybrid_index ix = hybrid_index::build(fa, "hap.fa", bo);
  for (int k = 1; k <= 3; ++k) {
    const std::string p = recs[0].substr(100, 16 - static_cast<std::size_t>(k));
    trawl::search_options o;
    o.max_errors = k;
    o.all_ends = true;
    std::vector<std::tuple<std::uint32_t, std::uint64_t, std::uint32_t>> want, got;
    for (std::size_t r = 0; r < recs.size(); ++r) {
      const auto s = oracle::end_scores(p, recs[r]);
      for (std::size_t j = 0; j < s.size(); ++j)
        if (s[j] <= static_cast<std::uint32_t>(k)) want.emplace_back(static_cast<std::uint32_t>(r), j + 1, s[j]);
    }
    for (const auto& rh : ix.search_records({p}, o)) got.emplace_back(rh.record, rh.h.end, rh.h.errors);
    EXPECT_EQ(got, want) << "k " << k;
    EXPECT_GE(want.size(), 5u);
  }
}

TEST(IndexApprox, ExactSearchKeepsLocatesOrderAndBothStrands) {
  std::mt19937_64 rng(5);
  const std::string fa = haplotypes(rng, 400, 4, 0.01);
  const std::vector<std::string> recs = record_sequences(fa);
  const hybrid_index ix = hybrid_index::build(fa);
  const auto ps = patterns_from(rng, recs, 6, 5, false);
  trawl::search_options o;
  o.both_strands = true;
  const auto want = plain_search(recs, ps, o);
  const auto got = ix.search_records(ps, o);
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) EXPECT_TRUE(got[i].record == want[i].record && got[i].h == want[i].h);
  o.whole_words = true;
  EXPECT_THROW((void)ix.search_records(ps, o), trawl::error);
}

// for_each_search_hit: the same hits in batches (patterns of one to three bases: many hits of
// several patterns on both strands at one start), and a stop after the first batch
TEST(IndexApprox, ExactSearchInBatchesIsTheSearch) {
  std::mt19937_64 rng(8);
  const std::string fa = haplotypes(rng, 30000, 4, 0.01);
  const std::vector<std::string> recs = record_sequences(fa);
  const hybrid_index ix = hybrid_index::build(fa);
  const std::vector<std::string> ps{"A", "AC", "ACG", "GT", "T"};
  for (const bool both : {false, true}) {
    trawl::search_options o;
    o.both_strands = both;
    const auto want = plain_search(recs, ps, o);
    std::vector<record_hit> got;
    std::size_t batches = 0;
    const std::uint64_t n = ix.for_each_search_hit(ps, o, [&](std::span<const record_hit> b) {
      got.insert(got.end(), b.begin(), b.end());
      ++batches;
      return true;
    });
    EXPECT_EQ(n, got.size());
    EXPECT_GT(batches, 1u);
    ASSERT_EQ(got.size(), want.size()) << "both=" << both;
    for (std::size_t i = 0; i < want.size(); ++i)
      ASSERT_TRUE(got[i].record == want[i].record && got[i].h == want[i].h) << "both=" << both << " i=" << i;
    std::size_t seen = 0;
    (void)ix.for_each_search_hit(ps, o, [&](std::span<const record_hit> b) {
      seen += b.size();
      return false;
    });
    EXPECT_LT(seen, want.size());
  }
  trawl::search_options approx;
  approx.max_errors = 1;
  EXPECT_THROW((void)ix.for_each_search_hit(ps, approx, [](std::span<const record_hit>) { return true; }), trawl::error);
}

}  // namespace
