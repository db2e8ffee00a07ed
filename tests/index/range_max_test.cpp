// range_max_test.cpp — the range maximum over source ends (src/index/range_max.hpp) against a
// plain scan, for sizes around the block of 32 and its multiples and one built by many workers,
// random and sorted values, many ties, every query inside, across one and across many blocks;
// and its shape check.
#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <sstream>
#include <vector>

#include "index/range_max.hpp"

namespace {

using trawl::index::range_max;

void check_all(const std::vector<std::uint64_t>& v, std::mt19937_64& rng) {
  auto value = [&](std::uint64_t i) { return v[i]; };
  range_max rm;
  rm.build(v.size(), value);
  ASSERT_TRUE(rm.consistent(v.size()));
  ASSERT_FALSE(rm.consistent(v.size() + 1));  // a size that does not match is refused
  const std::uint64_t n = v.size();
  auto one = [&](std::uint64_t l, std::uint64_t r) {
    const std::uint64_t want = *std::max_element(v.begin() + static_cast<std::ptrdiff_t>(l), v.begin() + static_cast<std::ptrdiff_t>(r) + 1);
    const std::uint64_t j = rm.argmax(l, r, value);
    ASSERT_TRUE(j >= l && j <= r) << l << ".." << r;
    ASSERT_EQ(v[j], want) << l << ".." << r;
  };
  if (n <= 200) {
    for (std::uint64_t l = 0; l < n; ++l)
      for (std::uint64_t r = l; r < n; ++r) one(l, r);
  } else {
    std::uniform_int_distribution<std::uint64_t> at(0, n - 1), len(0, 4000);
    for (int q = 0; q < 20000; ++q) {  // ranges of any length, and (most) of at most 4001 values
      std::uint64_t l = at(rng), r = at(rng);
      if (l > r) std::swap(l, r);
      if (q % 64 != 0) r = std::min(n - 1, l + len(rng));
      one(l, r);
    }
  }
  // a save/load round trip keeps the answers
  std::stringstream ss;
  rm.serialize(ss);
  range_max back;
  back.load(ss);
  ASSERT_TRUE(back.consistent(n));
  if (n > 0) {
    ASSERT_EQ(v[back.argmax(0, n - 1, value)], *std::max_element(v.begin(), v.end()));
  }
}

TEST(RangeMax, MatchesScan) {
  std::mt19937_64 rng(7);
  for (std::uint64_t n : {0u, 1u, 2u, 31u, 32u, 33u, 63u, 64u, 65u, 97u, 160u, 1000u, 5000u, 300001u}) {
    SCOPED_TRACE(n);
    std::vector<std::uint64_t> v(n);
    std::uniform_int_distribution<std::uint64_t> big(0, 1u << 30), few(0, 3);
    for (auto& x : v) x = big(rng);
    check_all(v, rng);
    for (auto& x : v) x = few(rng);  // many ties
    check_all(v, rng);
    std::sort(v.begin(), v.end());  // increasing: every maximum at the right end
    check_all(v, rng);
    std::reverse(v.begin(), v.end());
    check_all(v, rng);
  }
}

}  // namespace
