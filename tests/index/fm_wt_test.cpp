// fm_wt_test.cpp — fm_wt (the FM-index of S'' over byte symbols) against a plain suffix array
// (tests/oracle): LF, the symbols, the sample marks, backward search, locate and extract, on
// texts of skewed alphabets, one over several of its build chunks, and codes limited in length.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

#include "index/fm_wt.hpp"
#include "oracle.hpp"

namespace {

using trawl::index::fm_wt;

/// The FM-index of t (bytes 1..255) as the file's section gives it, and the oracle's rows.
struct built {
  std::vector<std::uint64_t> pos;  // SA with the sentinel's suffix as row 0
  fm_wt fm;
};

built build(const std::string& t, std::uint64_t step, unsigned max_code = 32) {
  built b;
  const std::uint64_t n = t.size(), rows = n + 1;
  b.pos.push_back(n);
  for (const std::uint64_t p : oracle::suffix_array(t)) b.pos.push_back(p);
  std::string bwt;
  std::uint64_t sentinel = 0;
  std::vector<std::uint64_t> marked, sample_values;
  for (std::uint64_t r = 0; r < rows; ++r) {
    if (b.pos[r] == 0) sentinel = r;
    else bwt.push_back(t[b.pos[r] - 1]);
    if (b.pos[r] % step == 0) marked.push_back(r), sample_values.push_back(b.pos[r] / step);
  }
  sdsl::int_vector<> samples(sample_values.size(), 0, 64), marked_rows(marked.size(), 0, 64);
  for (std::size_t j = 0; j < sample_values.size(); ++j) samples[j] = sample_values[j];
  for (std::size_t j = 0; j < marked.size(); ++j) marked_rows[j] = marked[j];
  b.fm = fm_wt(rows, sentinel, bwt, marked_rows, samples, step, max_code);
  return b;
}

void check(const std::string& t, std::uint64_t step, std::mt19937_64& rng, unsigned max_code = 32) {
  const built b = build(t, step, max_code);
  const fm_wt& fm = b.fm;
  const std::uint64_t n = t.size(), rows = n + 1;
  ASSERT_EQ(fm.size(), rows);
  std::vector<std::uint64_t> row_of(rows);  // the ISA
  for (std::uint64_t r = 0; r < rows; ++r) row_of[b.pos[r]] = r;
  for (std::uint64_t r = 0; r < rows; ++r) {
    const std::uint64_t p = b.pos[r];
    ASSERT_EQ(fm.symbol(r), p == 0 ? 0u : static_cast<unsigned char>(t[p - 1])) << "row " << r;
    ASSERT_EQ(fm.lf(r), p == 0 ? 0 : row_of[p - 1]) << "row " << r;
    std::uint64_t got = 0;
    ASSERT_EQ(fm.sampled(r, got), p % step == 0) << "row " << r;
    if (p % step == 0) {
      ASSERT_EQ(got, p) << "row " << r;
    }
  }
  std::uniform_int_distribution<std::uint64_t> at(0, n);
  for (int i = 0; i < 200; ++i) {
    // a pattern from the text (or, one time in four, with a random byte)
    const std::uint64_t s = at(rng), m = 1 + at(rng) % 12;
    std::string p = t.substr(std::min(s, n), m);
    if (p.empty()) continue;
    if (i % 4 == 3) p[at(rng) % p.size()] = static_cast<char>(1 + at(rng) % 255);
    std::vector<std::uint64_t> sym, want;
    for (const char c : p) sym.push_back(static_cast<unsigned char>(c));
    std::uint64_t first = rows, last = 0;
    for (std::uint64_t r = 0; r < rows; ++r)
      if (std::string_view(t).substr(b.pos[r]).starts_with(p)) first = std::min(first, r), last = r, want.push_back(b.pos[r]);
    std::uint64_t lb = 0, rb = 0;
    ASSERT_EQ(fm.backward_search(sym.data(), sym.size(), lb, rb), want.size()) << p;
    if (want.empty()) continue;
    ASSERT_EQ(lb, first) << p;
    ASSERT_EQ(rb, last) << p;
    std::vector<std::uint64_t> got;
    fm.locate(lb, rb + 1, [&](std::uint64_t v) { got.push_back(v); });
    std::sort(got.begin(), got.end());
    std::sort(want.begin(), want.end());
    ASSERT_EQ(got, want) << p;
  }
  for (int i = 0; i < 50; ++i) {
    const std::uint64_t s = at(rng), len = std::min<std::uint64_t>(at(rng) % 200, n - s);
    std::vector<std::uint64_t> out(len);
    fm.extract(s, len, out.data());
    for (std::uint64_t j = 0; j < len; ++j) ASSERT_EQ(out[j], static_cast<unsigned char>(t[s + j])) << s << "+" << j;
  }
}

TEST(FmWt, TinyTexts) {
  std::mt19937_64 rng(1);
  for (const std::string t : {"a", "ab", "ba", "aaaa", "abracadabra", "\x01\xff\x01\xff\x80"})
    for (const std::uint64_t step : {1u, 2u, 32u}) check(t, step, rng);
}

TEST(FmWt, SkewedAlphabets) {
  std::mt19937_64 rng(2);
  // repeated letters weigh more: codes of very different lengths
  const std::string english = "eeeeeeeeeeeetttttttttaaaaaaaoooooooiiiiiinnnnnnssssshhhhhrrrrrddddllllcccuummwwffggyypbvkjxqz"
                              "EEETTTAAOI     \n\n,,..;:!?'-0123456789";
  for (const std::uint64_t step : {4u, 16u, 32u}) check(oracle::random_text(rng, 3000, english), step, rng);
  std::string all;  // all 255 symbols
  for (int c = 1; c < 256; ++c) all.push_back(static_cast<char>(c));
  check(oracle::random_text(rng, 5000, all), 16, rng);
}

TEST(FmWt, CodesLimitedInLength) {
  // Fibonacci weights give a Huffman code as deep as the alphabet is large (13); limited to 8
  std::mt19937_64 rng(3);
  std::string t;
  std::uint64_t a = 1, b = 1;
  for (char c = 'a'; c <= 'n'; ++c, std::tie(a, b) = std::pair{b, a + b}) t.append(a, c);
  std::shuffle(t.begin(), t.end(), rng);
  check(t, 8, rng, 8);
  check(t, 8, rng);
}

TEST(FmWt, TextOfSeveralBuildChunks) {
  // more rows than one build chunk (2^18): bits of one node written by neighbouring chunks
  std::mt19937_64 rng(4);
  check(oracle::random_text(rng, 300000, "eeeeeeetttttaaaaoooiiinnnsshrdlcumwfgypbvkjxqz ,.\n"), 32, rng);
}

}  // namespace
