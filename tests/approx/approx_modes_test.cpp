// approx_modes_test.cpp — Hamming, IUPAC, ignore-case and both-strand searches against naive
// oracles written here, and align_cigar on hand-checked cases.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>

#include "approx_test_util.hpp"
#include "oracle.hpp"
#include "trawl/approx.hpp"
#include "trawl/detail/testing.hpp"

namespace {

/// Naive IUPAC table, written independently of the library's.
bool iupac_match(char p, char t) {
  auto up = [](char c) { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 32) : c; };
  const char P = up(p), T = up(t);
  std::string set;
  switch (P) {
    case 'A': set = "A"; break;
    case 'C': set = "C"; break;
    case 'G': set = "G"; break;
    case 'T': set = "T"; break;
    case 'U': set = "T"; break;
    case 'R': set = "AG"; break;
    case 'Y': set = "CT"; break;
    case 'S': set = "GC"; break;
    case 'W': set = "AT"; break;
    case 'K': set = "GT"; break;
    case 'M': set = "AC"; break;
    case 'B': set = "CGT"; break;
    case 'D': set = "AGT"; break;
    case 'H': set = "ACT"; break;
    case 'V': set = "ACG"; break;
    case 'N': set = "ACGT"; break;
    default: return p == t;
  }
  return T == P || set.find(T) != std::string::npos;
}

/// Sellers' DP with an arbitrary match predicate.
template <class Eq>
std::vector<std::uint32_t> scores_with(const std::string& p, const std::string& t, Eq eq) {
  std::vector<std::uint32_t> col(p.size() + 1), out(t.size());
  for (std::size_t i = 0; i <= p.size(); ++i) col[i] = static_cast<std::uint32_t>(i);
  for (std::size_t j = 0; j < t.size(); ++j) {
    std::uint32_t diag = 0;
    for (std::size_t i = 1; i <= p.size(); ++i) {
      const std::uint32_t up = col[i];
      col[i] = std::min({diag + (eq(p[i - 1], t[j]) ? 0u : 1u), up + 1, col[i - 1] + 1});
      diag = up;
    }
    out[j] = col[p.size()];
  }
  return out;
}

TEST(ApproxModes, HammingAgainstNaive) {
  std::mt19937_64 rng(11);
  for (std::size_t m : {1, 2, 7, 31, 64, 65, 130}) {
    for (int k : {0, 1, 3, static_cast<int>(m)}) {
      const std::string p = approx_test::random_pattern(rng, m, "ACGT");
      std::string t = oracle::random_text(rng, 3000, "ACGT");
      for (std::size_t at = 5; at + m < t.size(); at += 97) {
        std::string c = p;
        for (int e = 0; e < k && !c.empty(); ++e) c[rng() % c.size()] = "ACGT"[rng() % 4];
        t.replace(at, m, c);
      }
      std::vector<std::uint32_t> scores(t.size(), 1u << 30);
      for (std::size_t j = m - 1; j < t.size(); ++j) {
        std::uint32_t d = 0;
        for (std::size_t i = 0; i < m; ++i) d += t[j + 1 - m + i] != p[i];
        scores[j] = d;
      }
      trawl::search_options o;
      o.max_errors = k;
      o.hamming = true;
      o.all_ends = true;
      const auto all = trawl::approx_search_serial(t, {p}, o);
      const auto want = approx_test::oracle_ends(scores, static_cast<std::uint32_t>(k));
      ASSERT_EQ(all.size(), want.size());
      for (std::size_t i = 0; i < all.size(); ++i) {
        EXPECT_EQ(all[i].end, want[i].end + 1);
        EXPECT_EQ(all[i].errors, want[i].errors);
        EXPECT_EQ(all[i].start, want[i].end + 1 - m);
      }
      o.all_ends = false;
      auto clusters = trawl::approx_search_serial(t, {p}, o);
      auto wc = approx_test::oracle_clusters(scores, static_cast<std::uint32_t>(k));
      for (auto& h : wc) h.start = h.end - m;
      ASSERT_EQ(clusters, wc);
    }
  }
}

TEST(ApproxModes, HammingManyPatternsEveryEngineAndSlicing) {
  // Hamming search runs on the edit-distance engines with a check per end: every engine, many
  // patterns of mixed lengths at once, both strands, -i, against the naive window count.
  std::mt19937_64 rng(13);
  for (bool both : {false, true})
    for (int k : {1, 3}) {  // (k = 0 is exact search: pattern_set_test)
      std::vector<std::string> pats;
      for (std::size_t m : {4, 9, 17, 23, 23, 40, 70}) pats.push_back(approx_test::random_pattern(rng, m, "ACGT"));
      std::string t = oracle::random_text(rng, 4000, "ACGTacgt");
      for (std::size_t at = 3; at + 80 < t.size(); at += 61) {
        std::string c = pats[rng() % pats.size()];
        if (both && rng() % 2) c = oracle::reverse_complement(c);
        for (int e = 0; e < k; ++e) c[rng() % c.size()] = "ACGTN"[rng() % 5];
        t.replace(at, c.size(), c);
      }
      // the oracle: every window of every (pattern, strand) with <= k mismatches, clustered
      // into runs of consecutive ends (the lowest count, leftmost on ties, stands for a run)
      std::vector<trawl::hit> want;
      for (std::uint32_t pi = 0; pi < pats.size(); ++pi)
        for (int d = 0; d < (both ? 2 : 1); ++d) {
          const std::string q = d ? oracle::reverse_complement(pats[pi]) : pats[pi];
          const std::size_t m = q.size();
          std::vector<std::uint32_t> scores(t.size(), 1u << 30);
          for (std::size_t j = m - 1; j < t.size(); ++j) {
            std::uint32_t mism = 0;
            for (std::size_t i = 0; i < m; ++i)
              mism += std::tolower(static_cast<unsigned char>(t[j + 1 - m + i])) != std::tolower(q[i]);
            scores[j] = mism;
          }
          for (trawl::hit h : approx_test::oracle_clusters(scores, static_cast<std::uint32_t>(k))) {
            h.start = h.end - m;
            h.pattern = pi;
            h.dir = d ? trawl::strand::reverse : trawl::strand::forward;
            want.push_back(h);
          }
        }
      std::sort(want.begin(), want.end(), [](const trawl::hit& a, const trawl::hit& b) {
        return std::tie(a.end, a.pattern, a.dir, a.start) < std::tie(b.end, b.pattern, b.dir, b.start);
      });
      for (const auto& e : approx_test::engines(70)) {
        for (std::size_t slice : {std::size_t{0}, std::size_t{37}}) {
          SCOPED_TRACE(e.name + " both=" + std::to_string(both) + " k=" + std::to_string(k) +
                       " slice=" + std::to_string(slice));
          trawl::search_options o;
          o.max_errors = k;
          o.hamming = true;
          o.ignore_case = true;
          o.both_strands = both;
          o.approx = trawl::parse_approx_algorithm(e.algorithm);
          o.simd = e.simd;
          o.threads = 2;
          o.slice_size = slice;
          const auto got = trawl::search(t, pats, o);
          std::size_t i = 0;
          while (i < got.size() && i < want.size() && got[i] == want[i]) ++i;
          ASSERT_EQ(i, want.size()) << "got " << got.size() << " hits, want " << want.size() << "; first difference at "
                                    << i << ": got " << (i < got.size() ? approx_test::show(got[i]) : "-")
                                    << ", want " << (i < want.size() ? approx_test::show(want[i]) : "-");
          ASSERT_EQ(got.size(), want.size());
        }
      }
    }
}

TEST(ApproxModes, IupacAndIgnoreCaseAgainstNaive) {
  std::mt19937_64 rng(12);
  const std::string codes = "ACGTRYSWKMBDHVNacgtn";
  for (std::size_t m : {1, 4, 20, 64, 70}) {
    for (int k : {0, 1, 2}) {
      std::string p = approx_test::random_pattern(rng, m, codes);
      const std::string t = approx_test::text_with_copies(rng, 5000, p, 2, "ACGTacgtN");
      for (const auto& e : approx_test::engines(m)) {
        SCOPED_TRACE(e.name + " " + p);
        trawl::search_options o;
        o.max_errors = k;
        o.iupac = true;
        o.all_ends = true;
        o.approx = trawl::parse_approx_algorithm(e.algorithm);
        o.simd = e.simd;
        const auto got = trawl::approx_end_scores(p, t, o);
        EXPECT_EQ(got, approx_test::oracle_ends(scores_with(p, t, iupac_match), static_cast<std::uint32_t>(k)));
        o.iupac = false;
        o.ignore_case = true;
        auto fold = [](char a, char b) {
          auto lo = [](char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; };
          return lo(a) == lo(b);
        };
        EXPECT_EQ(trawl::approx_end_scores(p, t, o),
                  approx_test::oracle_ends(scores_with(p, t, fold), static_cast<std::uint32_t>(k)));
      }
    }
  }
}

TEST(ApproxModes, BothStrands) {
  std::mt19937_64 rng(13);
  const std::string p = "ACGTTGCAAGGCTTAC";
  std::string rc = trawl::reverse_complement(p);
  std::string t = oracle::random_text(rng, 4000, "ACGT");
  t.replace(100, p.size(), approx_test::mutate(rng, p, 1, "ACGT"));
  t.replace(2000, rc.size(), approx_test::mutate(rng, rc, 2, "ACGT"));
  trawl::search_options o;
  o.max_errors = 2;
  o.both_strands = true;
  const auto got = trawl::approx_search_serial(t, {p}, o);
  o.both_strands = false;
  auto want = trawl::approx_search_serial(t, {p}, o);
  for (trawl::hit h : trawl::approx_search_serial(t, {rc}, o)) {
    h.dir = trawl::strand::reverse;
    want.push_back(h);
  }
  std::sort(want.begin(), want.end(), [](const trawl::hit& a, const trawl::hit& b) {
    return std::tie(a.end, a.dir, a.start) < std::tie(b.end, b.dir, b.start);
  });
  EXPECT_EQ(got, want);
  EXPECT_TRUE(std::any_of(got.begin(), got.end(), [](const trawl::hit& h) { return h.dir == trawl::strand::reverse; }));
}

TEST(ApproxModes, Cigar) {
  EXPECT_EQ(trawl::align_cigar("ACGT", "ACGT"), "4=");
  EXPECT_EQ(trawl::align_cigar("ACGT", "AGGT"), "1=1X2=");
  EXPECT_EQ(trawl::align_cigar("ACGT", "ACT"), "2=1I1=");
  EXPECT_EQ(trawl::align_cigar("ACT", "ACGT"), "2=1D1=");
  EXPECT_EQ(trawl::align_cigar("A", ""), "1I");
  EXPECT_EQ(trawl::align_cigar("", "AC"), "2D");
  trawl::search_options o;
  o.iupac = true;
  EXPECT_EQ(trawl::align_cigar("ANGT", "acgt", o.rules()), "4=");
  std::mt19937_64 rng(14);
  for (int r = 0; r < 200; ++r) {
    const std::string a = oracle::random_text(rng, rng() % 40, "ACGT");
    const std::string b = oracle::random_text(rng, rng() % 40, "ACGT");
    const std::string c = trawl::align_cigar(a, b);
    EXPECT_EQ(trawl::cigar_errors(c), oracle::edit_distance(a, b)) << a << " " << b << " " << c;
  }
}

}  // namespace
