// lz77_test.cpp — the LZ77 parse against a naive greedy oracle written here (quadratic).
#include <gtest/gtest.h>

#include <random>
#include <stdexcept>
#include <thread>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "text_gen.hpp"
#include "trawl/index.hpp"
#include "trawl/detail/testing.hpp"

namespace {

/// Greedy longest previous factor by trying every earlier start: O(n^2) per phrase at worst.
std::vector<std::uint64_t> naive_phrase_lengths(std::string_view t) {
  std::vector<std::uint64_t> lens;
  std::size_t i = 0;
  while (i < t.size()) {
    std::size_t best = 0;
    for (std::size_t s = 0; s < i; ++s) {
      std::size_t l = 0;
      while (i + l < t.size() && t[s + l] == t[i + l]) ++l;
      best = std::max(best, l);
    }
    lens.push_back(best == 0 ? 1 : best);
    i += best == 0 ? 1 : best;
  }
  return lens;
}

void check_parse(const std::string& t, bool force64) {
  const auto ph = trawl::index::lz77_parse(t, force64);
  const auto lens = naive_phrase_lengths(t);
  ASSERT_EQ(ph.size(), lens.size()) << "text size " << t.size();
  std::uint64_t at = 0;
  for (std::size_t i = 0; i < ph.size(); ++i) {
    ASSERT_EQ(ph[i].pos, at);
    ASSERT_EQ(ph[i].len, lens[i]) << "phrase " << i;
    if (ph[i].literal) {
      ASSERT_EQ(ph[i].len, 1u);
      ASSERT_EQ(t.substr(0, at).find(t[at]), std::string::npos);  // a byte never seen before
    } else {
      ASSERT_LT(ph[i].src, ph[i].pos);
      for (std::uint64_t k = 0; k < ph[i].len; ++k) ASSERT_EQ(t[ph[i].src + k], t[at + k]);
    }
    at += ph[i].len;
  }
  ASSERT_EQ(at, t.size());
}

/// The length of the longest match of t[at, n) in the reference t[0, r), by trying every start.
std::uint64_t longest_in_reference(const std::string& t, std::uint64_t r, std::uint64_t at) {
  std::uint64_t best = 0;
  for (std::uint64_t s = 0; s < r; ++s) {
    std::uint64_t l = 0;
    while (s + l < r && at + l < t.size() && t[s + l] == t[at + l]) ++l;
    best = std::max(best, l);
  }
  return best;
}

/// The relative parse against a reference of r bytes: the exact parse of the reference, then
/// phrases at least as long as the longest match in the reference (found by trying every start
/// there, longest_in_reference), each a copy of earlier text; a literal only where the reference
/// lacks the byte.
/// Returns how many phrases lie past the reference.
std::size_t check_relative(const std::string& t, std::uint64_t r, bool force64) {
  SCOPED_TRACE("n=" + std::to_string(t.size()) + " r=" + std::to_string(r));
  const auto ph = trawl::index::lz77_parse_relative(t, r, force64);
  r = std::min<std::uint64_t>(r, t.size());
  const auto head = naive_phrase_lengths(t.substr(0, r));
  std::uint64_t at = 0;
  std::size_t i = 0;
  for (; i < head.size(); ++i) {
    EXPECT_LT(i, ph.size());
    if (i >= ph.size()) return 0;
    EXPECT_EQ(ph[i].pos, at);
    EXPECT_EQ(ph[i].len, head[i]);
    at += ph[i].len;
  }
  for (; at < t.size(); ++i) {
    EXPECT_LT(i, ph.size());
    if (i >= ph.size()) return 0;
    EXPECT_EQ(ph[i].pos, at);
    const std::uint64_t best = longest_in_reference(t, r, at);
    if (ph[i].literal) {
      EXPECT_EQ(best, 0u);
      EXPECT_EQ(ph[i].len, 1u);
    } else {
      EXPECT_GE(ph[i].len, best);
      EXPECT_LT(ph[i].src, ph[i].pos);
      for (std::uint64_t k = 0; k < ph[i].len; ++k) EXPECT_EQ(t[ph[i].src + k], t[at + k]) << "phrase " << i;
    }
    at += ph[i].len;
  }
  EXPECT_EQ(i, ph.size());
  return i - head.size();
}

/// Phrases past the reference when each is exactly the longest match in it.
std::size_t reference_only_phrases(const std::string& t, std::uint64_t r) {
  std::size_t count = 0;
  for (std::uint64_t at = r; at < t.size(); ++count) at += std::max<std::uint64_t>(longest_in_reference(t, r, at), 1);
  return count;
}

TEST(Lz77, RelativeToAReference) {
  std::mt19937_64 rng(8);
  for (const std::string& alpha : {std::string("ab"), std::string("acgt"), std::string()}) {
    for (std::size_t n : {1u, 2u, 17u, 300u}) {
      const std::string t = oracle::random_text(rng, n, alpha);
      for (std::uint64_t r : {std::uint64_t{0}, std::uint64_t{1}, std::uint64_t{n / 2}, std::uint64_t{n}})
        check_relative(t, r, r % 2 == 1);
    }
  }
  const std::string rep = textgen::mutated_copies(rng, 200, 8, 0.02, "acgt");
  for (std::uint64_t r : {std::uint64_t{1}, std::uint64_t{150}, std::uint64_t{200}, std::uint64_t{777}}) check_relative(rep, r, false);
  check_relative(std::string(500, 'x'), 3, false);
  check_relative("mississippi", 4, true);
}

// Copies of one genome, each with its own substitutions, the reference being the first: the
// reference's own variants end a reference match, while an earlier copy at the same place
// usually carries the base there. Co-linear sources must cut the phrases well below the
// reference-only parse's.
TEST(Lz77, RelativeToOneGenomeOfACollection) {
  std::mt19937_64 rng(9);
  for (const double rate : {0.003, 0.01}) {
    const std::string t = textgen::mutated_copies(rng, 3000, 12, rate, "acgt");
    const std::size_t got = check_relative(t, 3000, false);
    const std::size_t plain = reference_only_phrases(t, 3000);
    EXPECT_LT(got * 4, plain * 3) << "rate " << rate << ": " << got << " phrases, reference only " << plain;
    check_relative(t, 3000 + 1500, true);
  }
}

TEST(Lz77, TinyCases) {
  for (const char* s : {"", "a", "aa", "aaaaaaa", "ab", "abab", "abababa", "abcabcabcx", "mississippi",
                        "abracadabra", "banana", "aabaabaab"})
    for (bool f : {false, true}) check_parse(s, f);
}

TEST(Lz77, RandomAndRepetitive) {
  std::mt19937_64 rng(7);
  for (const std::string& alpha : {std::string("ab"), std::string("acgt"), std::string("abcdefghijklmnopqrstuvwxyz"),
                                   std::string()}) {
    for (std::size_t n : {1u, 2u, 17u, 100u, 700u}) {
      check_parse(oracle::random_text(rng, n, alpha), false);
      check_parse(oracle::random_text(rng, n, alpha), true);
    }
  }
  check_parse(textgen::fibonacci(600), false);
  check_parse(textgen::mutated_copies(rng, 150, 6, 0.01, "acgt"), true);
  check_parse(std::string(500, 'x'), false);
}

// A long suffix sort reports its stage from the calling thread: from 0 to the text's length,
// never backwards, never past the total, below it until the sort ends; an exception from the
// callback comes out of the parse (after the sorting thread is joined).
TEST(Lz77, SuffixSortProgress) {
  std::mt19937_64 rng(5);
  std::string t = std::string((std::size_t{1} << 24) + 4096, 'a');
  for (std::size_t i = 0; i < t.size(); i += 4093) t[i] = static_cast<char>('b' + rng() % 3);
  const auto main_thread = std::this_thread::get_id();
  std::vector<std::uint64_t> done;
  bool other_thread = false;
  const auto phrases = trawl::index::lz77_parse(t, false, [&](std::string_view stage, std::uint64_t d, std::uint64_t total) {
    if (std::this_thread::get_id() != main_thread) other_thread = true;
    if (stage != "suffix array") return;
    EXPECT_EQ(total, t.size());
    done.push_back(d);
  });
  EXPECT_FALSE(other_thread);
  std::uint64_t covered = 0;
  for (const auto& ph : phrases) covered += ph.len;
  EXPECT_EQ(covered, t.size());
  ASSERT_GE(done.size(), 2u);
  EXPECT_EQ(done.front(), 0u);
  EXPECT_EQ(done.back(), t.size());
  for (std::size_t i = 1; i < done.size(); ++i) EXPECT_LE(done[i - 1], done[i]) << i;
  for (std::size_t i = 0; i + 1 < done.size(); ++i) EXPECT_LT(done[i], t.size()) << i;
  int calls = 0;
  EXPECT_THROW((void)trawl::index::lz77_parse(t, false,
                                                       [&](std::string_view stage, std::uint64_t, std::uint64_t) {
                                                         if (stage == "suffix array" && ++calls == 2) throw std::runtime_error("stop");
                                                       }),
               std::runtime_error);
}

}  // namespace
