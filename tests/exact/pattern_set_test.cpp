// pattern_set_test.cpp — exact search of pattern sets: every engine (one pass per pattern,
// Vectorscan, the DNA k-mer filter, the automatic choice) against the naive oracle, for random
// sets of 1 to 100,000 patterns with duplicates, prefixes of one another, lengths 1-300,
// alphabets of 2, 4, 26 and 255 bytes, -i and both strands, over several slicings.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <set>

#include "oracle.hpp"
#include "test_share.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace {

using trawl::exact_algorithm;

std::vector<trawl::hit> expected(std::string_view text, const std::vector<std::string>& pats, bool both, bool fold) {
  std::vector<trawl::hit> v;
  for (std::uint32_t i = 0; i < pats.size(); ++i) {
    const std::uint64_t m = pats[i].size();
    for (auto s : oracle::naive_find(text, pats[i], fold)) v.push_back({s, s + m, i, 0, trawl::strand::forward});
    if (both)
      for (auto s : oracle::naive_find(text, oracle::reverse_complement(pats[i]), fold))
        v.push_back({s, s + m, i, 0, trawl::strand::reverse});
  }
  std::sort(v.begin(), v.end(), [](const trawl::hit& a, const trawl::hit& b) {
    return std::tie(a.start, a.pattern, a.dir) < std::tie(b.start, b.pattern, b.dir);
  });
  return v;
}

std::string all_bytes_but_nul() {
  std::string s;
  for (int c = 1; c < 256; ++c) s.push_back(static_cast<char>(c));
  return s;
}

/// Flips the case of about half the ASCII letters.
std::string mix_case(std::mt19937_64& rng, std::string s) {
  for (char& c : s)
    if (std::isalpha(static_cast<unsigned char>(c)) && rng() % 2) c = static_cast<char>(c ^ 0x20);
  return s;
}

/// `n` patterns of lengths in [min_len, max_len]: most are substrings of `text` (so they
/// occur), some random, some duplicates and some prefixes of others.
std::vector<std::string> make_set(std::mt19937_64& rng, std::string_view text, std::string_view alphabet,
                                  std::size_t n, std::size_t min_len, std::size_t max_len) {
  std::vector<std::string> out;
  while (out.size() < n) {
    const std::size_t m = min_len + rng() % (max_len - min_len + 1);
    const auto kind = static_cast<unsigned>(rng() % 10);
    if (kind < 6 && m <= text.size()) {
      out.emplace_back(text.substr(rng() % (text.size() - m + 1), m));
    } else if (kind < 8 || out.empty()) {
      out.push_back(oracle::random_text(rng, m, alphabet));
    } else if (kind == 8) {
      out.push_back(out[rng() % out.size()]);  // a duplicate
    } else {
      const std::string& p = out[rng() % out.size()];
      out.push_back(p.substr(0, std::max<std::size_t>(min_len, 1 + rng() % p.size())));  // a prefix
    }
  }
  return out;
}

struct engine {
  exact_algorithm algorithm;
  trawl::simd_level simd;
  const char* name;
};
const engine engines[] = {{exact_algorithm::automatic, trawl::simd_level::automatic, "auto"},
                          {exact_algorithm::simd, trawl::simd_level::automatic, "simd"},
                          {exact_algorithm::vectorscan, trawl::simd_level::automatic, "vectorscan"},
                          {exact_algorithm::teddy, trawl::simd_level::automatic, "teddy"},
                          {exact_algorithm::teddy, trawl::simd_level::avx2, "teddy-avx2"},
                          {exact_algorithm::teddy, trawl::simd_level::serial, "teddy-serial"},
                          {exact_algorithm::aho, trawl::simd_level::automatic, "aho"},
                          {exact_algorithm::kmer, trawl::simd_level::automatic, "kmer"},
                          {exact_algorithm::kmer, trawl::simd_level::serial, "kmer-serial"}};

/// The k-mer engine takes DNA patterns (either case) of at least 4 bases.
bool kmer_applies(const std::vector<std::string>& pats) {
  for (const std::string& p : pats) {
    if (p.size() < 4) return false;
    for (char c : p)
      if (std::string_view("ACGTacgt").find(c) == std::string_view::npos) return false;
  }
  return true;
}

void check_all(std::string_view text, const std::vector<std::string>& pats, bool both, bool fold,
               const std::string& what) {
  const auto want = expected(text, pats, both, fold);
  for (const engine& e : engines) {
    // one pass per pattern costs O(patterns) per slice: big sets only with a few slices
    const bool per_pattern = e.algorithm == exact_algorithm::simd;
    if (per_pattern && pats.size() > 500) continue;
    if (e.algorithm == exact_algorithm::kmer && !kmer_applies(pats)) {
      trawl::search_options o;
      o.exact = e.algorithm;
      EXPECT_THROW(trawl::make_matcher(pats, o), trawl::error) << what;
      continue;
    }
    for (unsigned threads : {1u, 3u})
      for (std::size_t slice : {std::size_t{0}, std::size_t{1}, std::size_t{97}}) {
        trawl::search_options o;
        o.exact = e.algorithm;
        o.simd = e.simd;
        o.both_strands = both;
        o.ignore_case = fold;
        o.threads = threads;
        o.slice_size = slice;
        ASSERT_EQ(trawl::search(text, pats, o), want)
            << what << " engine=" << e.name << " threads=" << threads << " slice=" << slice;
      }
  }
}

TEST(PatternSet, EveryEngineMatchesTheOracleOnEveryAlphabet) {
  std::mt19937_64 rng(20261125);
  const std::string alphabets[] = {"01", "ACGT", "abcdefghijklmnopqrstuvwxyz", all_bytes_but_nul()};
  for (const std::string& alphabet : alphabets)
    for (std::size_t n : {1, 2, 5, 40, 300}) {
      const std::string text = oracle::random_text(rng, 3000, alphabet);
      const auto pats = make_set(rng, text, alphabet, n, 1, 12);
      check_all(text, pats, false, false, "alphabet=" + std::to_string(alphabet.size()) + " n=" + std::to_string(n));
    }
}

TEST(PatternSet, LongAndMixedLengthPatterns) {
  std::mt19937_64 rng(7);
  for (const std::string alphabet : {"ACGT", "abc"}) {
    // a repetitive text, so that long patterns occur many times and overlap
    std::string text = oracle::random_text(rng, 400, alphabet);
    while (text.size() < 6000) text += text.substr(rng() % 200, 150 + rng() % 250);
    const auto pats = make_set(rng, text, alphabet, 60, 1, 300);
    check_all(text, pats, false, false, "alphabet=" + alphabet);
    auto longer = make_set(rng, text, alphabet, 40, 4, 300);
    check_all(text, longer, false, false, "min 4, alphabet=" + alphabet);
  }
}

TEST(PatternSet, IgnoreCaseAndBothStrands) {
  std::mt19937_64 rng(11);
  test_share::cases share;
  for (bool fold : {false, true})
    for (bool both : {false, true})
      for (std::size_t n : {1, 3, 50, 500}) {
        const std::string text = mix_case(rng, oracle::random_text(rng, 4000, "ACGT"));
        for (std::size_t min_len : {1, 4, 12}) {
          auto pats = make_set(rng, text, "ACGT", n, min_len, 24);
          for (auto& p : pats) p = mix_case(rng, p);
          if (!share.runs()) continue;
          check_all(text, pats, both, fold,
                    "fold=" + std::to_string(fold) + " both=" + std::to_string(both) + " n=" + std::to_string(n) +
                        " min=" + std::to_string(min_len));
        }
      }
}

TEST(PatternSet, DnaKmerSetsWithRunsOfN) {
  // k-mer sets as users search them (16-32 nt), over DNA with N runs and a few other bytes.
  std::mt19937_64 rng(3);
  std::string text = oracle::random_text(rng, 20000, "ACGT");
  for (int i = 0; i < 20; ++i) text.replace(rng() % (text.size() - 100), 1 + rng() % 60, std::string(30, 'N'));
  text[rng() % text.size()] = '\n';
  text += "GGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGGG";
  test_share::cases share;
  for (bool both : {false, true})
    for (std::size_t n : {2000, 2, 100}) {  // the largest set first: a sanitized build runs it
      auto pats = make_set(rng, text, "ACGT", n, 16, 32);
      pats.push_back(std::string(20, 'G'));
      if (!share.runs()) continue;
      check_all(text, pats, both, false, "both=" + std::to_string(both) + " n=" + std::to_string(n));
    }
}

TEST(PatternSet, HundredThousandPatterns) {
  std::mt19937_64 rng(5);
  const std::string text = oracle::random_text(rng, 2000, "abcdefghijklmnopqrstuvwxyz");
  const auto pats = make_set(rng, text, "abcdefghijklmnopqrstuvwxyz", 100000, 3, 10);
  const auto want = expected(text, pats, false, false);
  for (exact_algorithm a : {exact_algorithm::automatic, exact_algorithm::vectorscan}) {
    trawl::search_options o;
    o.exact = a;
    o.threads = 2;
    o.slice_size = 333;
    EXPECT_EQ(trawl::search(text, pats, o), want);
  }
}

TEST(PatternSet, WholeWordsAndWholeLinesOnEveryEngineAndSlicing) {
  std::mt19937_64 rng(17);
  // short words and lines over a small alphabet, so that boundaries fall everywhere
  std::string text = oracle::random_text(rng, 3000, "ab_ \n\xc3");
  const auto pats = make_set(rng, text, "ab_", 30, 1, 5);
  for (int mode = 1; mode <= 3; ++mode) {
    const bool words = mode & 1, lines = mode & 2;
    std::vector<trawl::hit> want;
    for (const trawl::hit& h : expected(text, pats, false, false))
      if ((!words || oracle::whole_word(text, h.start, h.end)) && (!lines || oracle::whole_line(text, h.start, h.end)))
        want.push_back(h);
    ASSERT_FALSE(want.empty());
    for (const engine& e : engines) {
      if (e.algorithm == exact_algorithm::kmer) continue;  // not DNA
      for (std::size_t slice : {std::size_t{0}, std::size_t{1}, std::size_t{13}}) {
        trawl::search_options o;
        o.exact = e.algorithm;
        o.simd = e.simd;
        o.whole_words = words;
        o.whole_lines = lines;
        o.threads = 3;
        o.slice_size = slice;
        ASSERT_EQ(trawl::search(text, pats, o), want) << "mode=" << mode << " engine=" << e.name << " slice=" << slice;
      }
    }
  }
  trawl::search_options approx;
  approx.max_errors = 1;
  approx.whole_words = true;
  EXPECT_THROW(trawl::make_matcher({"abc"}, approx), trawl::error);
}

TEST(PatternSet, SingleSearcherRefusesASetEngine) {
  EXPECT_THROW(trawl::exact_searcher("abc", {exact_algorithm::vectorscan}), trawl::error);
  EXPECT_EQ(trawl::parse_exact_algorithm("vectorscan"), exact_algorithm::vectorscan);
}

}  // namespace
