// dna_pack_test.cpp — the GPU transfer's DNA packer (src/common/dna_pack.hpp), every kernel of
// the dispatch table, against the oracle's reading of the format: texts of bases, lower-case
// stretches, N runs longer than a run may be, IUPAC codes and arbitrary bytes, at every
// alignment and length.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "common/dispatch.hpp"
#include "common/dna_pack.hpp"
#include "oracle.hpp"

namespace {

using trawl::dna_pack::run;

struct packed {
  std::vector<std::uint8_t> bytes;
  std::vector<run> runs;
  std::size_t count = 0;
};

/// The packers of every level this CPU runs, with their names.
std::vector<std::pair<std::string, trawl::dna_pack::pack_fn>> packers() {
  std::vector<std::pair<std::string, trawl::dna_pack::pack_fn>> v{{"serial", trawl::dna_pack::pack_serial}};
  for (const auto level : {trawl::simd_level::avx2, trawl::simd_level::avx512})
    if (trawl::simd::supported(level))
      v.emplace_back(level == trawl::simd_level::avx2 ? "avx2" : "avx512", trawl::simd::kernels_at(level).pack);
  return v;
}

packed pack(trawl::dna_pack::pack_fn fn, std::string_view text, std::size_t cap, std::uint32_t pos0) {
  packed p;
  p.bytes.assign((text.size() + 3) / 4, 0xEE);
  p.runs.assign(cap, run{});
  p.count = fn(text.data(), text.size(), p.bytes.data(), p.runs.data(), cap, pos0);
  if (p.count != trawl::dna_pack::failed) p.runs.resize(p.count);
  return p;
}

std::string unpacked(const packed& p, std::size_t n, std::uint32_t pos0) {
  std::vector<oracle::packed_run> rs;
  for (const run& r : p.runs) rs.push_back({r.pos, r.len, r.byte, r.lower != 0});
  return oracle::unpack_dna(p.bytes.data(), n, rs, pos0);
}

/// Checks the runs' own rules: in order, disjoint, within the text, of 1 .. max_run bytes,
/// lower runs over lower-case bases only.
void expect_well_formed(const packed& p, std::string_view text, std::uint32_t pos0) {
  std::uint64_t end = pos0;
  for (const run& r : p.runs) {
    EXPECT_GE(r.pos, end);
    EXPECT_GE(r.len, 1u);
    EXPECT_LE(r.len, trawl::dna_pack::max_run);
    end = std::uint64_t{r.pos} + r.len;
    ASSERT_LE(end, pos0 + text.size());
    if (r.lower) {
      for (std::uint64_t j = r.pos; j < end; ++j)
        EXPECT_NE(std::string_view("acgt").find(text[j - pos0]), std::string_view::npos);
    }
  }
}

/// A DNA text with what genomes hold: soft-masked stretches, N runs (some past max_run),
/// IUPAC codes and, at `noise` per byte, any byte at all.
std::string genome_like(std::mt19937_64& rng, std::size_t n, double noise) {
  std::string t = oracle::random_text(rng, n, "ACGT");
  std::uniform_int_distribution<std::size_t> at(0, n ? n - 1 : 0);
  for (std::size_t r = 0; n > 0 && r < 1 + n / 5000; ++r) {
    const std::size_t b = at(rng), len = std::min(n - b, std::size_t{1} + rng() % 3000);
    for (std::size_t j = b; j < b + len; ++j) t[j] = static_cast<char>(std::tolower(static_cast<unsigned char>(t[j])));
  }
  for (std::size_t r = 0; n > 0 && r < 1 + n / 20000; ++r) {
    const std::size_t b = at(rng), len = std::min(n - b, std::size_t{1} + rng() % (r % 3 == 0 ? 80000 : 200));
    std::fill(t.begin() + static_cast<std::ptrdiff_t>(b), t.begin() + static_cast<std::ptrdiff_t>(b + len), r % 2 ? 'N' : 'n');
  }
  std::bernoulli_distribution odd(noise);
  for (char& c : t)
    if (odd(rng)) c = rng() % 2 ? "RYSWKMBDHVN"[rng() % 11] : static_cast<char>(rng() % 256);
  return t;
}

TEST(DnaPack, EveryKernelGivesBackEveryByte) {
  std::mt19937_64 rng(44);
  for (const auto& [name, fn] : packers()) {
    SCOPED_TRACE(name);
    for (int round = 0; round < 60; ++round) {
      const std::size_t n = round < 40 ? static_cast<std::size_t>(round) : 1000 + rng() % 300000;
      const double noise = round % 4 == 0 ? 0.0 : round % 4 == 1 ? 0.0005 : round % 4 == 2 ? 0.02 : 0.3;
      const std::string text = genome_like(rng, n, noise);
      for (const std::size_t shift : {0, 1, 7, 31}) {  // the text at every alignment
        const std::string buf = std::string(shift, 'x') + text;
        const std::string_view t = std::string_view(buf).substr(shift);
        const auto pos0 = static_cast<std::uint32_t>(rng() % 100000);
        const packed p = pack(fn, t, n + 1, pos0);
        ASSERT_NE(p.count, trawl::dna_pack::failed);
        expect_well_formed(p, t, pos0);
        ASSERT_EQ(unpacked(p, n, pos0), text) << "n " << n << " noise " << noise << " shift " << shift;
      }
    }
  }
}

TEST(DnaPack, KernelsAgreeOnTheRunsAndFailPastTheCap) {
  std::mt19937_64 rng(45);
  const auto all = packers();
  for (int round = 0; round < 20; ++round) {
    const std::string text = genome_like(rng, 5000 + rng() % 200000, round % 2 ? 0.001 : 0.05);
    const packed want = pack(all[0].second, text, text.size() + 1, 0);
    ASSERT_NE(want.count, trawl::dna_pack::failed);
    for (const auto& [name, fn] : all) {
      SCOPED_TRACE(name);
      const packed got = pack(fn, text, text.size() + 1, 0);
      ASSERT_EQ(got.count, want.count);
      EXPECT_EQ(got.bytes, want.bytes);
      for (std::size_t i = 0; i < want.count; ++i) {
        EXPECT_EQ(got.runs[i].pos, want.runs[i].pos);
        EXPECT_EQ(got.runs[i].len, want.runs[i].len);
        EXPECT_EQ(got.runs[i].byte, want.runs[i].byte);
        EXPECT_EQ(got.runs[i].lower, want.runs[i].lower);
      }
      // exactly as many runs as it needs: one fewer is a failure
      EXPECT_NE(pack(fn, text, want.count, 0).count, trawl::dna_pack::failed);
      if (want.count > 0) {
        EXPECT_EQ(pack(fn, text, want.count - 1, 0).count, trawl::dna_pack::failed);
      }
    }
  }
}

TEST(DnaPack, ProseIsNotPackedWithinASmallCap) {
  const std::string prose =
      "In the beginning God created the heaven and the earth. And the earth was without form, and void; "
      "and darkness was upon the face of the deep.";
  std::string text;
  while (text.size() < 100000) text += prose;
  for (const auto& [name, fn] : packers()) {
    SCOPED_TRACE(name);
    EXPECT_EQ(pack(fn, text, text.size() / 64, 0).count, trawl::dna_pack::failed);
    const packed all = pack(fn, text, text.size(), 0);  // with room for them, even prose comes back
    ASSERT_NE(all.count, trawl::dna_pack::failed);
    EXPECT_EQ(unpacked(all, text.size(), 0), text);
  }
}

TEST(DnaPack, LongRunsAreCutAtMaxRun) {
  for (const auto& [name, fn] : packers()) {
    SCOPED_TRACE(name);
    const std::size_t m = trawl::dna_pack::max_run;
    const std::string text = "AC" + std::string(2 * m + 5, 'N') + std::string(m + 1, 'g') + "T";
    const packed p = pack(fn, text, 16, 3);
    ASSERT_EQ(p.count, 5u);  // N: m, m, 5; g: m, 1
    EXPECT_EQ(p.runs[0].pos, 5u);
    EXPECT_EQ(p.runs[0].len, m);
    EXPECT_EQ(p.runs[2].len, 5u);
    EXPECT_EQ(p.runs[3].lower, 1u);
    EXPECT_EQ(p.runs[4].len, 1u);
    EXPECT_EQ(unpacked(p, text.size(), 3), text);
  }
}

}  // namespace
