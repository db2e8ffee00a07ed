// test_gpu_vs_cpu.cpp — GPU ≡ the CPU engines (trawl::search, trawl::best_substring) on
// randomized inputs: same hits, same order, for every mode the CPU driver offers.
#include <gtest/gtest.h>

#include "gpu_test_util.hpp"
#include "trawl/approx.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

struct mode {
  const char* name;
  int k;
  bool all_ends, both, fold, hamming;
};

TEST(GpuVsCpu, SearchEveryMode) {
  TRAWL_REQUIRE_GPU();
  const mode modes[] = {{"exact", 0, false, false, false, false},     {"exact both", 0, false, true, false, false},
                        {"exact fold", 0, false, false, true, false},  {"all-ends k0", 0, true, false, false, false},
                        {"k1 clusters", 1, false, false, false, false}, {"k2 both", 2, false, true, false, false},
                        {"k3 all-ends", 3, true, true, false, false},  {"k2 fold", 2, false, false, true, false},
                        {"hamming k2", 2, false, true, false, true},   {"hamming all", 1, true, false, false, true}};
  std::mt19937_64 rng(41);
  for (const auto& md : modes) {
    for (int round = 0; round < 5; ++round) {
      std::vector<std::string> pats;
      const int np = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < np; ++i) pats.push_back(oracle::random_text(rng, 3 + rng() % (round < 3 ? 30 : 100), "ACGTacgt"));
      const std::string text = gputest::text_with_plants(rng, 500 + rng() % 5000, md.fold ? "ACGTacgt" : "ACGT", pats, 30,
                                                         md.k > 0 ? static_cast<int>(rng() % 3) : 0);
      trawl::search_options o;
      o.max_errors = md.k;
      o.all_ends = md.all_ends;
      o.both_strands = md.both;
      o.ignore_case = md.fold;
      o.hamming = md.hamming;
      const auto cpu = trawl::search(text, pats, o);
      for (std::size_t chunk : {std::size_t{0}, std::size_t{333}}) {
        // One device, and the same card listed twice: two workers, the text in 8 slices.
        for (const auto& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
          trawl::gpu::gpu_options g;
          g.chunk_size = chunk;
          g.devices = devices;
          const auto gpu = trawl::gpu::search(text, pats, o, g);
          ASSERT_EQ(gpu, cpu) << md.name << " round " << round << " chunk " << chunk << " workers " << devices.size();
        }
      }
    }
  }
}

TEST(GpuVsCpu, HammingByTheEditKernelAndByItsOwn) {
  // Hamming search runs the edit-distance kernel and checks each window on the host where
  // 5k <= m (every pattern), the Hamming kernel elsewhere: both against the CPU, with IUPAC
  // codes, case folding, both strands, clusters and all ends.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(47);
  for (int k : {1, 2, 3, 4})
    for (int round = 0; round < 6; ++round) {
      std::vector<std::string> pats;
      const int np = 1 + static_cast<int>(rng() % 5);
      for (int i = 0; i < np; ++i) {
        std::string p = oracle::random_text(rng, 15 + rng() % 30, "ACGTacgt");
        if (round % 2 == 1) p[rng() % p.size()] = "NRYS"[rng() % 4];
        pats.push_back(p);
      }
      const std::string text = gputest::text_with_plants(rng, 2000 + rng() % 6000, "ACGTacgtN", pats, 30,
                                                         static_cast<int>(rng() % 3));
      trawl::search_options o;
      o.max_errors = k;
      o.hamming = true;
      o.iupac = round % 2 == 1;
      o.ignore_case = round % 3 != 0;
      o.both_strands = round % 3 != 1;
      o.all_ends = round >= 3;
      const auto cpu = trawl::search(text, pats, o);
      for (std::size_t chunk : {std::size_t{0}, std::size_t{333}})
        for (const auto& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
          trawl::gpu::gpu_options g;
          g.chunk_size = chunk;
          g.devices = devices;
          ASSERT_EQ(trawl::gpu::search(text, pats, o, g), cpu)
              << "k " << k << " round " << round << " chunk " << chunk << " workers " << devices.size();
        }
    }
}

/// Collects (record, hit) of a stream search.
class collect_sink final : public trawl::search_sink {
 public:
  std::vector<std::pair<std::uint64_t, trawl::hit>> found;
  void begin_record(const trawl::record_info& r) override { record_ = r.index; }
  bool hits(std::span<const trawl::hit> hs) override {
    for (const auto& h : hs) found.emplace_back(record_, h);
    return true;
  }
  void end_record(std::uint64_t) override {}

 private:
  std::uint64_t record_ = 0;
};

TEST(GpuVsCpu, ConcurrentSlicesOfManyRecords) {
  // Many FASTA records in small chunks: several pieces searched at once on host threads (one
  // card, and the card listed twice), every hit as the CPU's.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  std::vector<std::string> pats;
  for (int i = 0; i < 12; ++i) pats.push_back(oracle::random_text(rng, 16 + rng() % 12, "ACGT"));
  std::string fasta;
  for (int r = 0; r < 40; ++r)
    fasta += ">r" + std::to_string(r) + "\n" + gputest::text_with_plants(rng, 20000 + rng() % 40000, "ACGT", pats, 20, 2) + "\n";
  for (const mode& md : {mode{"k2 all-ends both", 2, true, true, false, false}, mode{"hamming k2", 2, true, true, false, true},
                         mode{"k3 clusters", 3, false, true, false, false}, mode{"exact", 0, false, true, false, false}}) {
    trawl::search_options o;
    o.max_errors = md.k;
    o.all_ends = md.all_ends;
    o.both_strands = md.both;
    o.hamming = md.hamming;
    o.threads = 4;
    trawl::stream_options st;
    st.chunk_size = 100000;
    auto run = [&](const trawl::matcher& m) {
      auto src = trawl::io::source::from_stream(trawl::io::memory_stream(fasta, 4096), "mem");
      collect_sink sink;
      trawl::search_input(m, src, o, st, sink);
      return sink.found;
    };
    const auto cpu = run(*trawl::make_matcher(pats, o));
    ASSERT_FALSE(cpu.empty());
    for (const auto& devices : {std::vector<int>{0}, std::vector<int>{0, 0}}) {
      trawl::gpu::gpu_options g;
      g.devices = devices;
      for (int round = 0; round < 3; ++round)
        ASSERT_EQ(run(*trawl::gpu::make_matcher(pats, o, g)), cpu) << md.name << " workers " << devices.size();
    }
  }
}

TEST(GpuVsCpu, MaxHits) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(42);
  const std::vector<std::string> pats = {"ACGTA", "TTG"};
  const std::string text = oracle::random_text(rng, 20000, "ACGT");
  for (int k : {0, 1}) {
    trawl::search_options o;
    o.max_errors = k;
    o.max_hits = 25;
    trawl::gpu::gpu_options g;
    g.chunk_size = 1000;
    EXPECT_EQ(trawl::gpu::search(text, pats, o, g), trawl::search(text, pats, o)) << "k " << k;
  }
}

TEST(GpuVsCpu, BestSubstring) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  for (int round = 0; round < 10; ++round) {
    const std::string x = oracle::random_text(rng, 1 + rng() % 200, "01");
    const std::string y = gputest::text_with_plants(rng, 1 + rng() % 20000, "01", {x}, 3, 4);
    for (auto algo : {trawl::best_algorithm::myers, trawl::best_algorithm::wavefront}) {
      trawl::best_options bo;
      bo.algorithm = algo;
      const auto cpu = trawl::best_substring(x, y, bo);
      const auto gpu = trawl::gpu::best_substring(x, y, bo);
      EXPECT_EQ(gpu.distance, cpu.distance) << "round " << round;
      EXPECT_EQ(gpu.occurrences, cpu.occurrences) << "round " << round;
    }
  }
  const auto empty = trawl::gpu::best_substring("AC", "");
  const auto cpu_empty = trawl::best_substring("AC", "");
  EXPECT_EQ(empty.distance, cpu_empty.distance);
  EXPECT_EQ(empty.occurrences, cpu_empty.occurrences);
}

}  // namespace
