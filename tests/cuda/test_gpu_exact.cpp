// test_gpu_exact.cpp — GPU exact search ≡ naive oracle: every engine, chunk size, alphabet,
// case folding, both strands, IUPAC codes, max_hits and early stop.
#include <gtest/gtest.h>

#include <thread>

#include "gpu_test_util.hpp"
#include "trawl/error.hpp"

namespace {

using trawl::hit;
using trawl::strand;

std::vector<hit> expected_exact(const std::vector<std::string>& pats, const std::string& text, bool fold, bool both) {
  std::vector<hit> out;
  for (std::uint32_t i = 0; i < pats.size(); ++i) {
    for (int d = 0; d < (both ? 2 : 1); ++d) {
      const std::string p = d ? oracle::reverse_complement(pats[i]) : pats[i];
      for (auto s : oracle::naive_find(text, p, fold))
        out.push_back(hit{s, s + p.size(), i, 0, d ? strand::reverse : strand::forward});
    }
  }
  std::sort(out.begin(), out.end(), gputest::key_less_start);
  return out;
}

struct exact_case {
  std::string alphabet;
  bool fold;
  bool both;
};

TEST(GpuExact, RandomEveryEngineAndChunk) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(20261122);
  const exact_case cases[] = {{"ACGT", false, false}, {"ACGT", false, true}, {"ab", false, false},
                              {"aAbB", true, false},  {"", false, false},    {"ACGTacgt", true, true}};
  for (const auto& c : cases) {
    for (int round = 0; round < 6; ++round) {
      const std::size_t n = 1 + rng() % 3000;
      std::vector<std::string> pats;
      const int np = 1 + static_cast<int>(rng() % 5);
      for (int i = 0; i < np; ++i) {
        const std::size_t m = 1 + rng() % (round < 3 ? 8 : 70);
        std::string p = oracle::random_text(rng, m, c.alphabet);
        for (char& ch : p)
          if (ch == '\0') ch = '\1';  // NUL is not a valid pattern byte
        pats.push_back(p);
      }
      const std::string text = gputest::text_with_plants(rng, n, c.alphabet, pats, 20, 0);
      const auto want = expected_exact(pats, text, c.fold, c.both);
      for (auto engine : {trawl::gpu::exact_engine::filter, trawl::gpu::exact_engine::sunday,
                          trawl::gpu::exact_engine::hashed}) {
        for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{13}, std::size_t{100}, std::size_t{1000}}) {
          trawl::search_options o;
          o.ignore_case = c.fold;
          o.both_strands = c.both;
          trawl::gpu::gpu_options g;
          g.exact = engine;
          g.chunk_size = chunk;
          g.slice_length = 1 + rng() % 40;
          const auto got = gputest::collect(pats, text, o, g);
          ASSERT_EQ(got, want) << "alphabet '" << c.alphabet << "' n=" << n << " chunk=" << chunk
                               << " engine=" << static_cast<int>(engine);
        }
      }
    }
  }
}

TEST(GpuExact, PatternSetsOnEveryAlphabet) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(20261126);
  const exact_case cases[] = {{"ACGT", false, true}, {"ab", false, false}, {"abcdefghijklmnopqrstuvwxyz", false, false},
                              {"aAbBcC", true, false}, {"", false, false}, {"ACGTacgt", true, true}};
  for (const auto& c : cases) {
    for (const int np : {9, 150, 2000}) {
      // lengths 1-40, some patterns repeated and some prefixes of others
      std::vector<std::string> pats;
      for (int i = 0; i < np; ++i) {
        std::string p;
        if (i > 0 && rng() % 8 == 0) p = pats[rng() % pats.size()];
        else if (i > 0 && rng() % 8 == 0) p = pats[rng() % pats.size()].substr(0, 1 + rng() % 12);
        else p = oracle::random_text(rng, 1 + (rng() % 4 == 0 ? rng() % 40 : rng() % 12), c.alphabet);
        for (char& ch : p)
          if (ch == '\0') ch = '\1';  // NUL is not a valid pattern byte
        pats.push_back(p);
      }
      const std::string text = gputest::text_with_plants(rng, 20000, c.alphabet, pats, 200, 0);
      const auto want = expected_exact(pats, text, c.fold, c.both);
      for (const auto engine : {trawl::gpu::exact_engine::automatic, trawl::gpu::exact_engine::hashed}) {
        for (std::size_t chunk : {std::size_t{0}, std::size_t{7}, std::size_t{999}}) {
          trawl::search_options o;
          o.ignore_case = c.fold;
          o.both_strands = c.both;
          trawl::gpu::gpu_options g;
          g.exact = engine;
          g.chunk_size = chunk;
          ASSERT_EQ(gputest::collect(pats, text, o, g), want)
              << "alphabet '" << c.alphabet << "' patterns " << np << " chunk " << chunk;
        }
      }
    }
  }
}

TEST(GpuExact, IupacCodesMatchTheirBases) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(7);
  const std::string text = oracle::random_text(rng, 2000, "ACGT");
  const std::vector<std::string> pats = {"ANNT", "RYG", "CGN"};
  auto matches = [](char p, char t) {
    switch (p) {
      case 'N': return true;
      case 'R': return t == 'A' || t == 'G';
      case 'Y': return t == 'C' || t == 'T';
      default: return p == t;
    }
  };
  std::vector<hit> want;
  for (std::uint32_t i = 0; i < pats.size(); ++i)
    for (std::size_t s = 0; s + pats[i].size() <= text.size(); ++s) {
      bool ok = true;
      for (std::size_t j = 0; j < pats[i].size(); ++j) ok = ok && matches(pats[i][j], text[s + j]);
      if (ok) want.push_back(hit{s, s + pats[i].size(), i, 0, strand::forward});
    }
  std::sort(want.begin(), want.end(), gputest::key_less_start);
  trawl::search_options o;
  o.iupac = true;
  gputest::expect_at_chunks(pats, text, o, want, {0, 3, 77});
}

TEST(GpuExact, MaxHitsAndEarlyStopGiveAPrefix) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(3);
  const std::string text = oracle::random_text(rng, 5000, "ACGT");
  const std::vector<std::string> pats = {"AC", "GT", "ACG"};
  const auto all = expected_exact(pats, text, false, false);
  ASSERT_GT(all.size(), 100u);
  trawl::search_options o;
  o.max_hits = 37;
  trawl::gpu::gpu_options g;
  g.chunk_size = 50;
  const auto got = gputest::collect(pats, text, o, g);
  EXPECT_EQ(got, std::vector<hit>(all.begin(), all.begin() + 37));
  // stop after the first batch
  std::vector<hit> first;
  o.max_hits = 0;
  const auto n = trawl::gpu::search_sequence(pats, text, o,
                                             [&](std::span<const hit> b) {
                                               first.assign(b.begin(), b.end());
                                               return false;
                                             },
                                             g);
  EXPECT_EQ(n, first.size());
  ASSERT_FALSE(first.empty());
  EXPECT_EQ(first, std::vector<hit>(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(first.size())));
}

TEST(GpuExact, PrepareOnAnotherThreadThenSearch) {
  // gpu::prepare never throws (no device, a device that does not exist) and, run on a thread
  // of its own as the CLI runs it beside an index load, leaves searches as they were.
  trawl::gpu::prepare({trawl::device_kind::gpu, {1 << 20}});
  std::thread starting([] { trawl::gpu::prepare({}); });
  starting.join();
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(77);
  const std::string text = oracle::random_text(rng, 100000, "ACGT");
  const std::string p = text.substr(5000, 12);
  EXPECT_EQ(trawl::gpu::search(text, {p}, {}), expected_exact({p}, text, false, false));
}

TEST(GpuExact, BadPatternsThrowInvalidArgument) {
  trawl::search_options o;
  try {
    trawl::gpu::search("ACGT", {""}, o);
    if (trawl::gpu::available()) FAIL() << "no exception";
  } catch (const trawl::error& e) {
    if (trawl::gpu::available()) EXPECT_EQ(e.code(), trawl::errc::invalid_argument);
    else EXPECT_TRUE(e.code() == trawl::errc::unsupported || e.code() == trawl::errc::invalid_argument ||
                     e.code() == trawl::errc::no_device);
  }
  if (!trawl::gpu::available()) GTEST_SKIP() << "no CUDA device";
  EXPECT_THROW(trawl::gpu::search("ACGT", {std::string("A\0C", 3)}, o), trawl::error);
  o.max_errors = -1;
  EXPECT_THROW(trawl::gpu::search("ACGT", {"AC"}, o), trawl::error);
}

}  // namespace
