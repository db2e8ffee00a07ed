// test_gpu_approx.cpp — GPU approximate search ≡ Sellers oracle: tiled (32/64-bit) and warp
// (multi-word) Myers, cluster and all-ends modes, both strands, case folding, Hamming, tiny
// chunks and slices that put every hit near an edge.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"

namespace {

using trawl::hit;
using trawl::strand;

std::vector<hit> expected(const std::vector<std::string>& pats, const std::string& text, const trawl::search_options& o) {
  std::vector<hit> out;
  const std::string t = o.ignore_case ? gputest::fold(text) : text;
  for (std::uint32_t i = 0; i < pats.size(); ++i)
    for (int d = 0; d < (o.both_strands ? 2 : 1); ++d) {
      std::string p = d ? oracle::reverse_complement(pats[i]) : pats[i];
      if (o.ignore_case) p = gputest::fold(p);
      gputest::expected_approx(p, t, static_cast<std::uint32_t>(o.max_errors), o.all_ends, i,
                               d ? strand::reverse : strand::forward, out);
    }
  std::sort(out.begin(), out.end(), gputest::key_less_end);
  return out;
}

void run_random(std::uint64_t seed, std::size_t min_m, std::size_t max_m, trawl::gpu::approx_engine engine, int rounds) {
  std::mt19937_64 rng(seed);
  for (int round = 0; round < rounds; ++round) {
    const std::string alphabet = round % 3 == 2 ? "ab" : "ACGT";
    std::vector<std::string> pats;
    const int np = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < np; ++i) pats.push_back(oracle::random_text(rng, min_m + rng() % (max_m - min_m + 1), alphabet));
    const std::size_t n = 1 + rng() % 2500;
    const std::string text = gputest::text_with_plants(rng, n, alphabet, pats, 12, static_cast<int>(rng() % 4));
    trawl::search_options o;
    o.max_errors = 1 + static_cast<int>(rng() % 4);
    o.all_ends = rng() % 2;
    o.both_strands = alphabet == "ACGT" && rng() % 2;
    const auto want = expected(pats, text, o);
    for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{29}, std::size_t{500}}) {
      trawl::gpu::gpu_options g;
      g.approx = engine;
      g.chunk_size = chunk;
      g.slice_length = chunk == 0 ? 0 : 1 + rng() % 64;
      const auto got = gputest::collect(pats, text, o, g);
      ASSERT_EQ(got, want) << "seed " << seed << " round " << round << " n=" << n << " k=" << o.max_errors
                           << " all_ends=" << o.all_ends << " chunk=" << chunk << " slice=" << g.slice_length;
    }
  }
}

TEST(GpuApprox, TiledShortPatterns) {
  TRAWL_REQUIRE_GPU();
  run_random(11, 1, 32, trawl::gpu::approx_engine::tiled, 12);
}
TEST(GpuApprox, TiledWidePatterns) {
  TRAWL_REQUIRE_GPU();
  run_random(12, 33, 64, trawl::gpu::approx_engine::tiled, 8);
}
TEST(GpuApprox, TiledMultiWord) {
  TRAWL_REQUIRE_GPU();
  run_random(18, 65, 128, trawl::gpu::approx_engine::tiled, 6);
  run_random(19, 100, 256, trawl::gpu::approx_engine::automatic, 6);
}
// One pattern of m <= 64 runs the single-pattern kernel (byte loads, score checked once per
// 8 ends): every m, k, chunk and slice size, hits at slice, round and chunk edges.
TEST(GpuApprox, SinglePatternKernel) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(21);
  for (int round = 0; round < 40; ++round) {
    const std::string alphabet = round % 4 == 3 ? "ab" : "ACGT";
    const std::size_t m = 1 + rng() % 64;
    const std::vector<std::string> pats = {oracle::random_text(rng, m, alphabet)};
    const std::size_t n = 1 + rng() % 6000;
    const std::string text = gputest::text_with_plants(rng, n, alphabet, pats, 20, static_cast<int>(rng() % 4));
    trawl::search_options o;
    o.max_errors = 1 + static_cast<int>(rng() % 5);
    o.all_ends = rng() % 2;
    const auto want = expected(pats, text, o);
    for (std::size_t chunk : {std::size_t{0}, std::size_t{1}, std::size_t{37}, std::size_t{1000}}) {
      for (std::size_t slice : {std::size_t{0}, std::size_t{1 + rng() % 80}}) {
        trawl::gpu::gpu_options g;
        g.chunk_size = chunk;
        g.slice_length = slice;
        ASSERT_EQ(gputest::collect(pats, text, o, g), want)
            << "round " << round << " m=" << m << " n=" << n << " k=" << o.max_errors << " all_ends=" << o.all_ends
            << " chunk=" << chunk << " slice=" << slice;
      }
    }
  }
}

TEST(GpuApprox, WarpMultiWord) {
  TRAWL_REQUIRE_GPU();
  run_random(13, 1, 40, trawl::gpu::approx_engine::warp, 6);
  run_random(14, 60, 300, trawl::gpu::approx_engine::warp, 6);
  run_random(20, 257, 400, trawl::gpu::approx_engine::automatic, 3);
}

TEST(GpuApprox, ManyPatternsCodedTiles) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(15);
  std::vector<std::string> pats;
  for (int i = 0; i < 300; ++i) pats.push_back(oracle::random_text(rng, 12 + rng() % 12, "ACGT"));
  const std::string text = gputest::text_with_plants(rng, 3000, "ACGT", pats, 60, 2);
  trawl::search_options o;
  o.max_errors = 2;
  o.both_strands = true;
  const auto want = expected(pats, text, o);
  gputest::expect_at_chunks(pats, text, o, want, {0, 257});
}

TEST(GpuApprox, IgnoreCase) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(16);
  for (int round = 0; round < 4; ++round) {
    std::vector<std::string> pats = {oracle::random_text(rng, 10 + rng() % 50, "ACGTacgt")};
    const std::string text = gputest::text_with_plants(rng, 2000, "ACGTacgt", pats, 10, 2);
    trawl::search_options o;
    o.max_errors = 3;
    o.ignore_case = true;
    trawl::gpu::gpu_options g;
    g.chunk_size = 311;
    EXPECT_EQ(gputest::collect(pats, text, o, g), expected(pats, text, o));
  }
}

TEST(GpuApprox, Hamming) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(17);
  for (int round = 0; round < 6; ++round) {
    std::vector<std::string> pats = {oracle::random_text(rng, 1 + rng() % 80, "ACGT"), oracle::random_text(rng, 5, "ACGT")};
    const std::string text = gputest::text_with_plants(rng, 1500, "ACGT", pats, 10, 0);
    trawl::search_options o;
    o.max_errors = 2;
    o.hamming = true;
    o.all_ends = round % 2;
    std::vector<hit> want;
    for (std::uint32_t i = 0; i < pats.size(); ++i) {
      const auto& p = pats[i];
      std::vector<std::uint32_t> s(text.size(), 1000);
      for (std::size_t j = p.size() - 1; j < text.size(); ++j) {
        std::uint32_t mm = 0;
        for (std::size_t q = 0; q < p.size(); ++q) mm += p[q] != text[j + 1 - p.size() + q];
        s[j] = mm;
      }
      for (std::size_t j = 0; j < text.size();) {
        if (s[j] > 2) {
          ++j;
          continue;
        }
        std::size_t best = j;
        if (o.all_ends) {
          ++j;
        } else {
          while (j < text.size() && s[j] <= 2) {
            if (s[j] < s[best]) best = j;
            ++j;
          }
        }
        want.push_back(hit{best + 1 - p.size(), best + 1, i, s[best], strand::forward});
      }
    }
    std::sort(want.begin(), want.end(), gputest::key_less_end);
    trawl::gpu::gpu_options g;
    g.chunk_size = 97;
    EXPECT_EQ(gputest::collect(pats, text, o, g), want) << "round " << round;
  }
}

}  // namespace
