// test_gpu_vs_cpu.cpp — GPU ≡ the CPU engines (trawl::search, trawl::best_substring) on
// randomized inputs: same hits, same order, for every mode the CPU driver offers.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <stdexcept>
#include <thread>
#include <tuple>

#include "common/dispatch.hpp"
#include "gpu/gpu_internal.hpp"
#include "gpu_test_util.hpp"
#include "record_hits.hpp"
#include "search_cases.hpp"
#include "trawl/approx.hpp"
#include "trawl/genome.hpp"
#include "trawl/gpu.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "offtarget/pam_scan.hpp"
#include "offtarget/site_search.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

/// A named search mode.
struct mode {
  const char* name;
  test_cases::search_mode m;
};

TEST(GpuVsCpu, SearchEveryMode) {
  TRAWL_REQUIRE_GPU();
  const mode modes[] = {{"exact", {}},
                        {"exact both", {.both = true}},
                        {"exact fold", {.fold = true}},
                        {"all-ends k0", {.all_ends = true}},
                        {"k1 clusters", {.k = 1}},
                        {"k2 both", {.k = 2, .both = true}},
                        {"k3 all-ends", {.k = 3, .both = true, .all_ends = true}},
                        {"k2 fold", {.k = 2, .fold = true}},
                        {"hamming k2", {.k = 2, .both = true, .hamming = true}},
                        {"hamming all", {.k = 1, .all_ends = true, .hamming = true}}};
  std::mt19937_64 rng(41);
  for (const auto& md : modes) {
    for (int round = 0; round < 5; ++round) {
      std::vector<std::string> pats;
      const int np = 1 + static_cast<int>(rng() % 6);
      for (int i = 0; i < np; ++i) pats.push_back(oracle::random_text(rng, 3 + rng() % (round < 3 ? 30 : 100), "ACGTacgt"));
      const std::string text = gputest::text_with_plants(rng, 500 + rng() % 5000, md.m.fold ? "ACGTacgt" : "ACGT", pats,
                                                         30, md.m.k > 0 ? static_cast<int>(rng() % 3) : 0);
      const trawl::search_options o = test_cases::options_of(md.m);
      const auto cpu = trawl::search(text, pats, o);
      for (std::size_t chunk : {std::size_t{0}, std::size_t{333}}) {
        // One device, and the same card listed twice: two workers, the text in 8 slices.
        for (const auto& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
          trawl::gpu::gpu_options g;
          g.chunk_size = chunk;
          trawl::search_options on = o;
          on.device = {trawl::device_kind::gpu, devices};
          const auto gpu = trawl::gpu::search(text, pats, on, g);
          ASSERT_EQ(gpu, cpu) << md.name << " round " << round << " chunk " << chunk << " workers " << devices.size();
        }
      }
    }
  }
}

TEST(GpuVsCpu, SeedFilterSetsOfShortDnaPatterns) {
  // 16 or more DNA patterns go through the seed filter on both sides (approx/plan.hpp): the
  // device's windows, run edges (N runs, IUPAC letters, lowercase of no class under
  // case-sensitive rules) and its fallback to the kernels where the windows are dense, against
  // the CPU's filter (tested against the oracle). Chunks of 333 bytes to 1 MiB, resident too.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(53);
  for (const int k : {0, 1, 2, 3}) {
    std::vector<std::string> pats;
    for (int i = 0; i < 24; ++i) pats.push_back(oracle::random_text(rng, 20 + rng() % 33, "ACGT"));
    pats.push_back(std::string(20, 'A'));
    std::string text = gputest::text_with_plants(rng, 300000, "ACGT", pats, 200, k + 1);
    text.replace(1000, 3000, std::string(3000, 'N'));
    text.replace(150000, 60000, std::string(60000, 'A'));  // dense: every seed of A's hits
    for (int r = 0; r < 200; ++r) {
      const std::size_t at = rng() % (text.size() - 10);
      text[at] = r % 3 == 0 ? 'N' : r % 3 == 1 ? 'R' : static_cast<char>(text[at] | 0x20);
    }
    for (const bool both : {false, true})
      for (const bool all_ends : {true, false}) {
        trawl::search_options o;
        o.max_errors = k;
        o.all_ends = all_ends;
        o.both_strands = both;
        o.approx = trawl::approx_algorithm::myers_seeds;
        const auto cpu = trawl::search(text, pats, o);
        ASSERT_FALSE(cpu.empty());
        trawl::search_options on = o;
        on.approx = trawl::approx_algorithm::automatic;
        on.device = trawl::device_kind::gpu;
        for (std::size_t chunk : {std::size_t{0}, std::size_t{333}, std::size_t{77777}}) {
          trawl::gpu::gpu_options g;
          g.chunk_size = chunk;
          ASSERT_EQ(trawl::gpu::search(text, pats, on, g), cpu) << "k " << k << " both " << both << " chunk " << chunk;
        }
        const auto kept = trawl::gpu::keep_resident(text, on.device);
        ASSERT_EQ(trawl::gpu::search(text, pats, on), cpu) << "resident, k " << k;
      }
  }
}

TEST(GpuVsCpu, SeedFilterPatternsSharingATail) {
  // 300 patterns ending in the same 11 bases over text repeating them: the device's pass counts
  // the seeds it compares and leaves such a chunk to the kernels.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(55);
  std::vector<std::string> pats;
  for (int i = 0; i < 300; ++i) pats.push_back(oracle::random_text(rng, 21, "ACGT") + std::string(11, 'A'));
  std::string text = oracle::random_text(rng, 200000, "ACGT");
  text.replace(50000, 100000, std::string(100000, 'A'));
  trawl::search_options o;
  o.max_errors = 1;
  const auto cpu = trawl::search(text, pats, o);
  trawl::search_options on = o;
  on.device = trawl::device_kind::gpu;
  for (std::size_t chunk : {std::size_t{0}, std::size_t{40000}}) {
    trawl::gpu::gpu_options g;
    g.chunk_size = chunk;
    ASSERT_EQ(trawl::gpu::search(text, pats, on, g), cpu) << "chunk " << chunk;
  }
}

/// A DNA text as genomes hold it: planted copies of `pats`, soft-masked stretches, N runs
/// longer than a packed run may be, IUPAC codes and a few bytes of any value.
std::string genome_like(std::mt19937_64& rng, std::size_t n, const std::vector<std::string>& pats) {
  std::string t = gputest::text_with_plants(rng, n, "ACGT", pats, 300, 1);
  for (int r = 0; r < 40; ++r) {
    const std::size_t b = rng() % (n - 5000), len = 1 + rng() % 5000;
    for (std::size_t j = b; j < b + len; ++j) t[j] = static_cast<char>(t[j] | 0x20);
  }
  t.replace(n / 3, 70000, std::string(70000, 'N'));
  for (int r = 0; r < 300; ++r) t[rng() % n] = r % 4 == 0 ? static_cast<char>(rng() % 256) : "RYSWKMBDHVNn"[rng() % 12];
  return t;
}

TEST(GpuVsCpu, DnaCrossesTheBusTwoBitsABase) {
  // Chunks of DNA are packed on the host and unpacked on the device (src/common/dna_pack.hpp):
  // every byte must reach the kernels as it is in the text. A text that turns to prose goes as
  // bytes from the chunk that does on, so mixed and prose texts are searched here too.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(59);
  std::vector<std::string> pats;
  for (int i = 0; i < 5; ++i) pats.push_back(oracle::random_text(rng, 12 + rng() % 20, "ACGT"));
  pats.push_back("acgtacgtac");
  const std::string dna = genome_like(rng, 3000000, pats);
  std::string prose;
  while (prose.size() < 1500000) prose += "And God said, Let there be light: and there was light. ACGTTGCA acgt NNN\n";
  const std::string mixed = dna.substr(0, 1500000) + prose + dna.substr(1500000);
  const mode modes[] = {{"exact", {}},
                        {"exact fold", {.fold = true}},
                        {"k2 both", {.k = 2, .both = true}},
                        {"k1 fold all-ends", {.k = 1, .all_ends = true, .fold = true}}};
  for (const std::string* text : std::array<const std::string*, 3>{&dna, &mixed, &prose}) {
    for (const auto& md : modes) {
      trawl::search_options o = test_cases::options_of(md.m);
      const auto cpu = trawl::search(*text, pats, o);
      if (text != &prose) {
        ASSERT_GT(cpu.size(), 20u) << md.name;
      }
      o.device = trawl::device_kind::gpu;
      for (const std::size_t chunk : {std::size_t{0}, std::size_t{65536}, std::size_t{700001}}) {
        for (const bool pack : {true, false}) {
          trawl::gpu::detail::gpu_knobs g;
          g.chunk_size = chunk;
          g.pack_dna = pack;
          const auto m = trawl::gpu::detail::make_matcher(pats, o, g);
          EXPECT_EQ(test_cases::sliced_hits(*m, *text, o, 1, 0), cpu)
              << md.name << " text " << text->size() << " chunk " << chunk << " pack " << pack;
        }
      }
    }
  }
#ifdef TRAWL_HAVE_CUDA
  // and the chunks did go packed: all of the DNA's, some of the mixed text's, none of prose
  trawl::search_options o;
  const auto plan = trawl::gpu::detail::make_exact_plan(trawl::gpu::detail::make_tasks(pats, o), o);
  const auto chunks_packed = [&](const std::string& text) {
    trawl::cuda::stream_stats stats;
    trawl::cuda::stream_config cfg;
    cfg.chunk_size = 300000;
    cfg.pack = trawl::simd::kernels_at(trawl::simd_level::automatic).pack;
    cfg.stats = &stats;
    trawl::cuda::stream_exact(plan, text, cfg, [](std::uint64_t, std::uint64_t, auto&) { return true; });
    return std::pair{stats.packed_chunks, stats.chunks};
  };
  const auto [dna_packed, dna_chunks] = chunks_packed(dna);
  EXPECT_EQ(dna_packed, dna_chunks);
  const auto [mixed_packed, mixed_chunks] = chunks_packed(mixed);
  EXPECT_EQ(mixed_packed, 5u) << mixed_chunks;  // the chunks before the prose
  EXPECT_EQ(chunks_packed(prose).first, 0u);
#endif
}

TEST(GpuVsCpu, APlanKeptInACacheServesEveryCallAndThread) {
  // A plan_cache holds the plan's device tables after the first call: later calls, and calls
  // from several threads at once, find what a call that uploads its own plan finds.
  TRAWL_REQUIRE_GPU();
#ifdef TRAWL_HAVE_CUDA
  std::mt19937_64 rng(61);
  std::vector<std::string> pats;
  for (int i = 0; i < 8; ++i) pats.push_back(oracle::random_text(rng, 20, "ACGT"));
  const std::string text = genome_like(rng, 2000000, pats);
  trawl::search_options o;
  o.both_strands = true;
  const auto tasks = trawl::gpu::detail::make_tasks(pats, o);
  const trawl::cuda::approx_plan approx = trawl::gpu::detail::make_approx_plan(tasks, trawl::gpu::detail::match_table(o), 2, false);
  const trawl::cuda::exact_plan exact = trawl::gpu::detail::make_exact_plan(tasks, o);
  using found = std::vector<std::tuple<std::uint64_t, std::uint32_t, std::uint32_t>>;
  const auto run = [&](bool approximate, std::string_view window, const trawl::cuda::plan_cache* cache) {
    trawl::cuda::stream_config cfg;
    cfg.chunk_size = 300000;
    cfg.plans = cache;
    found out;
    const auto sink = [&](std::uint64_t, std::uint64_t, std::vector<trawl::cuda::candidate>& cs) {
      for (const auto& c : cs) out.emplace_back(c.pos, c.task, c.score);
      return true;
    };
    if (approximate) trawl::cuda::stream_approx(approx, window, cfg, sink);
    else trawl::cuda::stream_exact(exact, window, cfg, sink);
    std::sort(out.begin(), out.end());
    return out;
  };
  for (const bool approximate : {false, true}) {
    std::vector<std::string_view> windows;
    for (std::size_t w = 0; w < 4; ++w) windows.push_back(std::string_view(text).substr(w * 400000, 800000));
    std::vector<found> expect;
    for (const std::string_view w : windows) expect.push_back(run(approximate, w, nullptr));
    ASSERT_GT(expect[0].size(), 4u) << approximate;
    const trawl::cuda::plan_cache cache;
    for (int round = 0; round < 2; ++round) {
      std::vector<found> got(windows.size());
      std::vector<std::exception_ptr> failed(windows.size());
      std::vector<std::thread> threads;
      for (std::size_t w = 0; w < windows.size(); ++w)
        threads.emplace_back([&, w] {
          try {
            got[w] = run(approximate, windows[w], &cache);
          } catch (...) {
            failed[w] = std::current_exception();
          }
        });
      for (auto& t : threads) t.join();
      for (const auto& e : failed)
        if (e) std::rethrow_exception(e);
      for (std::size_t w = 0; w < windows.size(); ++w)
        EXPECT_EQ(got[w], expect[w]) << "approximate " << approximate << " round " << round << " window " << w;
    }
    // a cache serves the one plan it was first used with
    if (approximate) {
      const trawl::cuda::approx_plan other = approx;
      EXPECT_THROW(
          {
            trawl::cuda::stream_config cfg;
            cfg.plans = &cache;
            trawl::cuda::stream_approx(other, windows[0], cfg, [](std::uint64_t, std::uint64_t, auto&) { return true; });
          },
          std::logic_error);
    }
  }
  // A matcher of many short DNA patterns (the seed filter, whose pass keeps scratch per
  // stream), its slices scanned by four threads at once: the CPU's hits.
  pats.clear();
  for (int i = 0; i < 64; ++i) pats.push_back(oracle::random_text(rng, 23, "ACGT"));
  const std::string dna = genome_like(rng, 3000000, pats);
  trawl::search_options k3;
  k3.max_errors = 3;
  k3.both_strands = true;
  const auto cpu = trawl::search(dna, pats, k3);
  ASSERT_GT(cpu.size(), 64u);
  trawl::search_options seeded = k3;
  seeded.approx = trawl::approx_algorithm::myers_seeds;
  seeded.device = trawl::device_kind::gpu;
  const auto m = trawl::gpu::detail::make_matcher(pats, seeded, trawl::gpu::detail::gpu_knobs{});
  for (int round = 0; round < 2; ++round) EXPECT_EQ(test_cases::sliced_hits(*m, dna, seeded, 4, 150000), cpu) << round;
#endif
}

TEST(GpuVsCpu, AutoPricesSeededSetsByTheirPass) {
  // 312 guides at k = 3: by their count the GPU takes 100 MB; priced as the seed filter's pass,
  // the CPU does (and the GPU still takes 20 GB); a protein set keeps the count's answer.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(54);
  std::vector<std::string> dna, protein;
  for (int i = 0; i < 312; ++i) {
    dna.push_back(oracle::random_text(rng, 23, "ACGT"));
    protein.push_back(oracle::random_text(rng, 23, "ACDEFGHIKLMNPQRSTVWY"));
  }
  trawl::search_options o;
  o.max_errors = 3;
  o.threads = 16;
  EXPECT_EQ(trawl::choose_device(o, dna.size(), 100000000), trawl::device_kind::gpu);
  EXPECT_EQ(trawl::choose_device(o, dna, 100000000), trawl::device_kind::cpu);
  EXPECT_EQ(trawl::choose_device(o, dna, 20000000000ull), trawl::device_kind::gpu);
  EXPECT_EQ(trawl::choose_device(o, protein, 100000000), trawl::device_kind::gpu);
  o.device = trawl::device_kind::gpu;
  EXPECT_EQ(trawl::choose_device(o, dna, 100000000), trawl::device_kind::gpu);
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
          trawl::search_options on = o;
          on.device = {trawl::device_kind::gpu, devices};
          ASSERT_EQ(trawl::gpu::search(text, pats, on, g), cpu)
              << "k " << k << " round " << round << " chunk " << chunk << " workers " << devices.size();
        }
    }
}

using collect_sink = testing_sinks::record_hits;

TEST(GpuVsCpu, ConcurrentSlicesOfManyRecords) {
  // Many FASTA records in small chunks: several pieces searched at once on host threads (one
  // card, and the card listed twice), every hit as the CPU's, from the FASTA and its .2bit.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(43);
  std::vector<std::string> pats;
  for (int i = 0; i < 12; ++i) pats.push_back(oracle::random_text(rng, 16 + rng() % 12, "ACGT"));
  std::string fasta;
  for (int r = 0; r < 40; ++r)
    fasta += ">r" + std::to_string(r) + "\n" + gputest::text_with_plants(rng, 20000 + rng() % 40000, "ACGT", pats, 20, 2) + "\n";
  const std::string packed = trawl::io::to_twobit(fasta, trawl::io::format::fasta, "mem.fa").bytes;
  for (const mode& md : {mode{"k2 all-ends both", {.k = 2, .both = true, .all_ends = true}},
                         mode{"hamming k2", {.k = 2, .both = true, .all_ends = true, .hamming = true}},
                         mode{"k3 clusters", {.k = 3, .both = true}}, mode{"exact", {.both = true}}}) {
    trawl::search_options o = test_cases::options_of(md.m);
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
      trawl::search_options on = o;
      on.device = {trawl::device_kind::gpu, devices};
      for (int round = 0; round < 3; ++round)
        ASSERT_EQ(run(*trawl::gpu::make_matcher(pats, on)), cpu) << md.name << " workers " << devices.size();
      // the same records from a .2bit, decoded on parse threads of their own as a GPU's search
      // has them, straight into the chunks the device reads
      trawl::stream_options parse = st;
      parse.parse_threads = 8;
      auto src = trawl::io::source::from_memory(packed, "mem.2bit");
      collect_sink sink;
      trawl::search_input(*trawl::gpu::make_matcher(pats, on), src, o, parse, sink);
      ASSERT_EQ(sink.found, cpu) << md.name << " from a .2bit, workers " << devices.size();
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

TEST(GpuVsCpu, KeepEndDropsExactlyTheEndsItRejects) {
  // gpu_knobs::keep_end sees each candidate end in the searched sequence's coordinates: the
  // GPU's hits are the CPU's less those the same test rejects, for one device and two workers.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(53);
  std::vector<std::string> pats;
  for (int i = 0; i < 5; ++i) pats.push_back(oracle::random_text(rng, 12 + rng() % 20, "ACGT"));
  const std::string text = gputest::text_with_plants(rng, 60000, "ACGT", pats, 60, 2);
  const auto keep = [](std::string_view seq, std::uint64_t end, std::uint32_t pattern, trawl::strand dir) {
    // the byte after the hit, which only the right coordinates give
    return end < seq.size() && (seq[end] == 'A' || seq[end] == 'C') == (pattern % 2 == 0 || dir == trawl::strand::reverse);
  };
  trawl::search_options o;
  o.max_errors = 2;
  o.all_ends = true;
  o.both_strands = true;
  std::vector<trawl::hit> want;
  for (const trawl::hit& h : trawl::search(text, pats, o))
    if (keep(text, h.end, h.pattern, h.dir)) want.push_back(h);
  ASSERT_GT(want.size(), 50u);
  for (const auto& devices : {std::vector<int>{}, std::vector<int>{0, 0}}) {
    trawl::gpu::detail::gpu_knobs g;
    g.chunk_size = 4000;
    g.keep_end = keep;
    trawl::search_options on = o;
    on.device = {trawl::device_kind::gpu, devices};
    std::vector<trawl::hit> got;
    trawl::gpu::detail::search_sequence(pats, text, on, [&](std::span<const trawl::hit> hs) {
      got.insert(got.end(), hs.begin(), hs.end());
      return true;
    }, g);
    EXPECT_EQ(got, want) << "workers " << devices.size();
  }
  o.all_ends = false;
  trawl::gpu::detail::gpu_knobs g;
  g.keep_end = keep;
  EXPECT_THROW(trawl::gpu::detail::make_matcher(pats, o, g), trawl::error);
}

TEST(GpuVsCpu, OfftargetSitesWithBulgesPamsAndStrands) {
  // offtarget on the GPU (its candidate ends PAM-tested before the host sorts them) = on the
  // CPU, whose sites the CLI test checks against a brute-force oracle: 3' and 5' PAMs, two
  // PAMs, a PAM mismatch, bulges of each kind, both strands, runs of N, many records.
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(59);
  std::vector<trawl::offtarget::guide> guides;
  for (int i = 0; i < 4; ++i) guides.push_back({"g" + std::to_string(i), oracle::random_text(rng, 20, "ACGT"), -1});
  const auto mutate = [&](std::string s) {
    for (int e = static_cast<int>(rng() % 4); e > 0; --e) {
      const std::size_t at = 1 + rng() % (s.size() - 2);
      const int what = static_cast<int>(rng() % 3);
      if (what == 0) s[at] = "ACGT"[rng() % 4];
      else if (what == 1) s.insert(at, 1, "ACGT"[rng() % 4]);
      else s.erase(at, 1);
    }
    return s;
  };
  std::string fasta;
  for (int r = 0; r < 6; ++r) {
    std::string seq = oracle::random_text(rng, 30000 + rng() % 30000, "ACGT");
    for (int p = 0; p < 80; ++p) {
      const std::string& g = guides[rng() % guides.size()].protospacer;
      std::string site = rng() % 2 ? mutate(g) + "AGG" : "TTTA" + mutate(g);
      if (rng() % 2) site = oracle::reverse_complement(site);
      seq.replace(rng() % (seq.size() - site.size()), site.size(), site);
    }
    seq.replace(rng() % (seq.size() - 500), 300, std::string(300, 'N'));
    fasta += ">chr" + std::to_string(r) + "\n" + seq + "\n";
  }
  struct collect final : trawl::offtarget::site_sink {
    std::vector<std::string> rows;
    std::string chrom;
    void begin_record(const trawl::record_info& r) override { chrom = std::string(r.name); }
    void site(const trawl::offtarget::site& s) override {
      rows.push_back(chrom + " " + std::to_string(s.guide) + " " + std::to_string(s.pam) + " " + std::to_string(s.start) +
                     " " + std::to_string(s.end) + " " + std::to_string(static_cast<int>(s.dir)) + " " +
                     std::to_string(s.mismatches) + " " + std::to_string(s.dna_bulges) + " " + std::to_string(s.rna_bulges) +
                     " " + std::to_string(s.pam_mismatches) + " " + s.aligned_guide + " " + s.aligned_target + " " + s.cigar);
    }
    void end_record() override {}
  };
  constexpr auto five_prime = trawl::offtarget::pam_side::five_prime;
  const test_cases::offtarget_variant cases[] = {
      {.dna_bulges = 1, .rna_bulges = 1},
      {.pams = {"NGG", "NAG"}, .mismatches = 2, .pam_mismatches = 1, .rna_bulges = 1},
      {.pams = {"TTTV"}, .side = five_prime, .dna_bulges = 1, .rna_bulges = 1},
      {.mismatches = 4},
      {.pams = {"NGG", "NAG"}, .pam_mismatches = 1},
      {.pams = {"TTTV"}, .side = five_prime}};
  for (const auto& c : cases) {
    // the CPU, GPU 0, and GPU 0 listed twice (two workers on one card): the list reaches the
    // search, whose result names the GPUs that ran it
    const trawl::device_spec devices[] = {trawl::device_kind::cpu, trawl::parse_device("gpu"), trawl::parse_device("gpu:0,0")};
    std::vector<std::string> found[3];
    for (int d = 0; d < 3; ++d) {
      const trawl::device_spec& device = devices[d];
      trawl::offtarget::options o = test_cases::options_of(c);
      o.device = device;
      const trawl::offtarget::searcher s(guides, o);
      auto src = trawl::io::source::from_memory(fasta, "mem");
      collect sink;
      const trawl::stream_result ran = s.search(src, sink);
      EXPECT_EQ(ran.device, d == 0 ? trawl::device_spec(trawl::device_kind::cpu) : device) << trawl::to_string(ran.device);
      found[d] = std::move(sink.rows);
    }
    EXPECT_GT(found[0].size(), 100u) << test_cases::describe(c);
    EXPECT_EQ(found[1], found[0]) << test_cases::describe(c);
    EXPECT_EQ(found[2], found[0]) << test_cases::describe(c) << " gpu:0,0";
  }
}

TEST(GpuVsCpu, OfftargetPamScanAcrossChunksSlicesAndWorkers) {
  // without bulges the GPU scans the PAM positions itself (searcher::gpu_matcher): the same
  // candidate hits as the CPU's scan, with chunks of 4 KiB, several slices and two workers on
  // one card; IUPAC codes and N in the guides, guides of several lengths, 3' and 5' PAMs,
  // several PAMs, PAM mismatches, limits past the blocks' reach
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(61);
  const std::vector<trawl::offtarget::guide> guides = {
      {"a", "GACGCATAAAGATGAGACGC", -1}, {"iupac", "GACGRATAAAGNTGAGACYC", -1}, {"short", "ACGTTTGCAGG", -1},
      {"long", "CCTTGACGGATCAGTTGCAATGCC", 2}, {"b", oracle::random_text(rng, 20, "ACGT"), -1}};
  std::string genome = oracle::random_text(rng, 200000, "ACGTACGTacgtN");
  for (int p = 0; p < 400; ++p) {
    std::string g = guides[rng() % guides.size()].protospacer;
    for (char& c : g)
      if (c == 'R' || c == 'N' || c == 'Y') c = "ACGT"[rng() % 4];
    std::string site = rng() % 2 ? g + (rng() % 2 ? "AGG" : "CAG") : "TTTA" + g;
    for (int e = static_cast<int>(rng() % 5); e > 0; --e) site[rng() % site.size()] = "ACGTN"[rng() % 5];
    if (rng() % 2) site = oracle::reverse_complement(site);
    genome.replace(rng() % (genome.size() - site.size()), site.size(), site);
  }
  genome.replace(5000, 3000, std::string(3000, 'N'));
  // with bulges the GPU's candidates are the library's search, their ends site-tested on the
  // device (site_end_test), the ends cut by a chunk's edge on the host
  constexpr auto five_prime = trawl::offtarget::pam_side::five_prime;
  const test_cases::offtarget_variant variants[] = {
      {.mismatches = 4},
      {.pams = {"NGG", "NAG"}, .pam_mismatches = 1},
      {.pams = {"TTTV"}, .side = five_prime},
      {.pams = {"NRG"}, .mismatches = 7},
      {.pams = {"NGG", "NAG"}, .mismatches = 8, .pam_mismatches = 1},
      {.dna_bulges = 1, .rna_bulges = 1},
      {.pams = {"NGG", "NAG"}, .mismatches = 2, .pam_mismatches = 1, .dna_bulges = 2, .rna_bulges = 1, .max_edits = 4},
      {.pams = {"TTTV"}, .side = five_prime, .dna_bulges = 1, .rna_bulges = 2}};
  const auto run = [&](const trawl::matcher& m, unsigned threads, std::size_t slice) {
    return test_cases::sliced_hits(m, genome, {}, threads, slice);
  };
  for (const auto& v : variants) {
    const trawl::offtarget::site_search s(guides, test_cases::options_of(v));
    const auto cpu = run(s.cpu_matcher(), 2, 0);
    const std::string what = test_cases::describe(v);
    ASSERT_GT(cpu.size(), 50u) << what;
    trawl::gpu::gpu_options g;
    g.chunk_size = 4096;
    trawl::search_options planned = s.candidate_options();
    EXPECT_EQ(run(*s.gpu_matcher(planned, g), 1, genome.size()), cpu) << what;
    if (v.dna_bulges + v.rna_bulges == 0) {
      // both kernels of the scan, whichever the pattern count would pick: the block tables,
      // and the direct test (cuda::site_plan::direct_up_to), which serves guides of A, C, G, T
      // and N: the guides without the one of other IUPAC codes, and one with N
      std::vector<trawl::offtarget::guide> plain;
      for (const auto& gd : guides)
        if (gd.name != "iupac") plain.push_back(gd);
      plain.push_back({"n", "GACGNATAAAGNTGAGACNC", -1});
      const trawl::offtarget::site_search sp(plain, test_cases::options_of(v));
      const auto cpu_plain = run(sp.cpu_matcher(), 2, 0);
      for (const std::uint32_t up_to : {0u, 1000u}) {
        trawl::cuda::site_plan plan =
            trawl::offtarget::gpu_site_plan(trawl::offtarget::make_pam_tables(plain, test_cases::options_of(v)));
        plan.direct_up_to = up_to;
        EXPECT_EQ(trawl::cuda::direct_serves(plan), up_to != 0) << what;
        plan = trawl::offtarget::gpu_site_plan(trawl::offtarget::make_pam_tables(guides, test_cases::options_of(v)));
        plan.direct_up_to = up_to;
        EXPECT_FALSE(trawl::cuda::direct_serves(plan)) << what << ": a guide of R and Y";
        trawl::gpu::detail::gpu_knobs knobs(g);
        knobs.site_direct_up_to = up_to;
        EXPECT_EQ(run(*sp.gpu_matcher(sp.candidate_options(), knobs), 1, genome.size()), cpu_plain)
            << what << " direct_up_to " << up_to;
      }
    }
    if (v.dna_bulges + v.rna_bulges > 0) {
      // the device's test drops or confirms nearly every end: the host's test sees only those
      // the chunks' edges cut, and without the device's test every end
      std::atomic<std::uint64_t> asked{0};
      const auto host_test = s.site_test();
      trawl::gpu::detail::gpu_knobs knobs(g);
      knobs.keep_end = [&](std::string_view seq, std::uint64_t end, std::uint32_t pattern, trawl::strand dir) {
        ++asked;
        return host_test(seq, end, pattern, dir);
      };
      const auto ends = [&](const trawl::gpu::detail::gpu_knobs& k) {
        return run(*trawl::gpu::detail::make_matcher(s.patterns(), planned, k), 1, genome.size());
      };
      const auto host_only = ends(knobs);
      const std::uint64_t asked_host = asked.exchange(0);
      knobs.device_end_test = s.device_site_test();
      EXPECT_EQ(ends(knobs), host_only) << what;
      EXPECT_GT(asked_host, 20 * asked.load()) << what << ": " << asked_host << " ends tested on the host, then "
                                               << asked.load();
    }
    planned.device = {trawl::device_kind::gpu, {0, 0}};
    const auto pool = s.gpu_matcher(planned, g);
    EXPECT_EQ(pool->device(), planned.device);
    EXPECT_EQ(run(*pool, 2, genome.size() / 3 + 1), cpu) << what << " pool";
  }
}

TEST(GpuVsCpu, OfftargetBulgesWhereEveryEndHasASite) {
  // a run of G where nearly every end of two PAMs' patterns has a site: more ends than a
  // chunk's candidate buffers hold, before the device's site test and after it (both grown, the
  // chunk run again)
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(73);
  const std::string genome =
      oracle::random_text(rng, 5000, "ACGT") + std::string(30000, 'G') + oracle::random_text(rng, 5000, "ACGT");
  const std::vector<trawl::offtarget::guide> guides = {{"g", std::string(20, 'G'), -1}};
  const trawl::offtarget::site_search s(
      guides, test_cases::options_of({.pams = {"NGG", "NRG"}, .mismatches = 2, .dna_bulges = 1, .rna_bulges = 1}));
  const auto run = [&](const trawl::matcher& m) { return test_cases::sliced_hits(m, genome, {}, 1, genome.size()); };
  const auto cpu = run(s.cpu_matcher());
  ASSERT_GT(cpu.size(), 50000u);
  trawl::gpu::gpu_options g;
  g.chunk_size = 4096;
  EXPECT_EQ(run(*s.gpu_matcher(s.candidate_options(), g)), cpu);
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

TEST(GpuVsCpu, SearchThroughAnIndexScansItsKernelOnTheGpu) {
  // hybrid_index::search_records with device = gpu scans the kernel S'' on the device (its
  // segments whole; the CPU scans them trimmed): the same hits as trawl::search over each
  // record on the CPU, for M = 16 and 32, m + k at and under M, both strands, every end, Hamming
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(67);
  const std::string base = oracle::random_text(rng, 20000, "ACGT");
  std::uniform_real_distribution<double> u(0, 1);
  std::uniform_int_distribution<int> b(0, 3);
  std::string fa;
  std::vector<std::string> recs;
  for (int c = 0; c < 8; ++c) {  // haplotypes: 0.5 % substitutions, 0.1 % deletions and insertions
    std::string h;
    for (const char ch : base) {
      const double x = u(rng);
      if (x < 0.005) h += "ACGT"[b(rng)];
      else if (x < 0.006) continue;
      else if (x < 0.007) h += std::string(1, ch) + "ACGT"[b(rng)];
      else h += ch;
    }
    fa += ">hap" + std::to_string(c) + "\n" + h + "\n";
    recs.push_back(h);
  }
  using index_mode = test_cases::search_mode;
  for (const std::uint32_t M : {16u, 32u}) {
    trawl::index::build_options bo;
    bo.max_len = M;
    const auto ix = trawl::index::hybrid_index::build(fa, "hap.fa", bo);
    for (const index_mode md : {index_mode{.k = 1, .both = true}, index_mode{.k = 3, .both = true},
                                index_mode{.k = 2, .all_ends = true}, index_mode{.k = 3, .both = true, .hamming = true}})
      for (const std::uint32_t under : {0u, 3u}) {
        const std::size_t m = M - (md.hamming ? 0 : static_cast<std::uint32_t>(md.k)) - under;
        std::vector<std::string> ps;
        for (int i = 0; i < 40; ++i) {
          const std::string& r = recs[static_cast<std::size_t>(i) % recs.size()];
          std::string p = r.substr(std::uniform_int_distribution<std::size_t>(0, r.size() - m)(rng), m);
          if (i % 3 == 2) p[static_cast<std::size_t>(b(rng)) % m] = "ACGT"[b(rng)];
          ps.push_back(p);
        }
        ps.push_back(oracle::random_text(rng, m, "ACGT"));
        trawl::search_options o = test_cases::options_of(md);
        std::vector<trawl::index::record_hit> want;
        for (std::size_t r = 0; r < recs.size(); ++r)
          for (const trawl::hit& h : trawl::search(recs[r], ps, o)) want.push_back({static_cast<std::uint32_t>(r), h});
        // on GPU 0, and on the list 0,0 (two shares of the kernel on one GPU): where it ran is
        // the list asked for
        for (const auto& devices : {std::vector<int>{0}, std::vector<int>{0, 0}}) {
          o.device = trawl::device_spec{trawl::device_kind::gpu, devices};
          trawl::device_spec ran_on;
          const auto got = ix.search_records(ps, o, {}, &ran_on);
          EXPECT_GT(want.size(), 40u);
          EXPECT_TRUE(got == want) << "M " << M << " m " << m << " k " << md.k << ": " << got.size()
                                   << " hits, want " << want.size();
          EXPECT_EQ(ran_on.kind, trawl::device_kind::gpu);
          EXPECT_EQ(ran_on.workers(), devices);
        }
      }
  }
}

// A DNA text kept on the GPU is kept two bits a base (a quarter of its bytes, and its runs),
// packed in more than one chunk, and a search of a view at any offset unpacks each window with
// the CPU's hits: lower-case, N, IUPAC and NUL runs at the windows' and the packing chunks'
// edges, one longer than a run holds. A text that is not DNA, or whose DNA turns into words
// after the first chunk was packed, is kept as bytes, with the same hits.
TEST(GpuVsCpu, ResidentDnaIsKeptTwoBitsABase) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(78);
  const std::vector<std::string> pats = {"ACGTAGGTCA", "TTGACCAGT"};
  std::string text = gputest::text_with_plants(rng, (std::size_t{40} << 20) + 12345, "ACGT", pats, 20000, 1);
  const auto put = [&](std::size_t at, std::size_t len, char byte, bool lower) {
    for (std::size_t i = at; i < std::min(text.size(), at + len); ++i)
      text[i] = lower ? static_cast<char>(text[i] | 0x20) : byte;
  };
  const std::size_t edge = std::size_t{16} << 20;  // the packing's chunk (stream.cu's kDefaultChunk)
  put(edge - 7, 20, 'N', false);
  put(2 * edge - 3, 5, 0, true);
  put(5000, 70000, 0, true);  // longer than a run (dna_pack::max_run)
  put(100000, 3, 'R', false);
  put(200000, 256, '\0', false);
  const std::string others("NRy\0", 4);
  for (int i = 0; i < 3000; ++i) {
    const std::size_t at = rng() % text.size(), len = 1 + rng() % 40;
    if (i % 5 == 4) put(at, len, 0, true);
    else put(at, len, others[static_cast<std::size_t>(i) % 4], false);
  }
  std::string words = oracle::random_text(rng, 1 << 20, "acdefghiklmnpqrstvwy");  // not DNA
  words.replace(1000, 10, pats[0]);
  const std::string dna_then_words = text.substr(0, std::size_t{17} << 20) + words;
  trawl::device_spec gpu(trawl::device_kind::gpu);
  for (const std::string* each : std::initializer_list<const std::string*>{&text, &words, &dna_then_words}) {
    const std::string& t = *each;
    const bool dna = each == &text;
    const auto kept = trawl::gpu::keep_resident(t, gpu);
    if (dna) EXPECT_LT(trawl::gpu::resident_bytes(kept), t.size() / 3);
    else EXPECT_GE(trawl::gpu::resident_bytes(kept), t.size());
    const std::size_t n = t.size();
    for (const auto& [from, len, chunk] :
         {std::tuple<std::size_t, std::size_t, std::size_t>{0, n, 0}, {17, n - 17, 0}, {15, 3 << 20, 65536 + 5},
          {edge - 10, 2 << 20, 4099}, {2 * edge + 3, n - 2 * edge - 3, 0}, {1, 500000, 4099}}) {
      if (from >= n || len > n - from) continue;  // a view the text does not hold (len may have wrapped)
      const std::string_view view = std::string_view(t).substr(from, len);
      for (const auto& [k, fold, iupac] : {std::tuple{0, false, false}, std::tuple{1, false, false},
                                           std::tuple{0, true, false}, std::tuple{1, false, true}}) {
        trawl::search_options o;
        o.max_errors = k;
        o.ignore_case = fold;
        o.iupac = iupac;
        o.both_strands = true;
        const auto cpu = trawl::search(view, pats, o);
        if (dna && from == 0) {
          ASSERT_GT(cpu.size(), 200u);
        }
        o.device = gpu;
        trawl::gpu::gpu_options g;
        g.chunk_size = chunk;
        EXPECT_EQ(trawl::gpu::search(view, pats, o, g), cpu)
            << "text of " << n << " bytes, dna " << dna << " from " << from << " len " << len << " chunk " << chunk
            << " k " << k << " fold " << fold << " iupac " << iupac;
      }
    }
  }
}

// A genome kept on two GPUs: each holds its own packed copy, and the pool's workers search it
// there with the CPU genome's hits and sites, the host holding its bytes or, for DNA, only
// its .2bit image.
TEST(GpuVsCpu, GenomeKeptOnTwoGpus) {
  TRAWL_REQUIRE_GPU();
  if (trawl::gpu::device_count() < 2) GTEST_SKIP() << "one GPU: needs two";
  // with an IUPAC code the genome is kept as bytes; without, two bits a base (no host bytes)
  for (const std::string_view odd : {std::string_view("NnRacgt"), std::string_view("Nnacgt")}) {
    std::mt19937_64 rng(79);
    const std::vector<std::string> pats = {"ACGTAGGTCA", "TTGACCAGT"};
    const std::string guide = oracle::random_text(rng, 20, "ACGT");
    std::string fa;
    for (int r = 0; r < 5; ++r) {
      std::string seq = gputest::text_with_plants(rng, 300000 + rng() % 300000, "ACGT", pats, 200, 1);
      for (int i = 0; i < 40; ++i) seq[rng() % seq.size()] = odd[static_cast<std::size_t>(i) % odd.size()];
      for (int i = 0; i < 20; ++i) seq.replace(rng() % (seq.size() - 30), 23, guide + "AGG");
      fa += ">r" + std::to_string(r) + "\n";
      for (std::size_t i = 0; i < seq.size(); i += 70) fa += seq.substr(i, 70) + "\n";
    }
    const trawl::device_spec two(trawl::device_kind::gpu, {0, 1});
    const trawl::genome on_two = trawl::genome::from_bytes(fa, "g.fa", two);
    const trawl::genome on_cpu = trawl::genome::from_bytes(fa, "g.fa", trawl::device_kind::cpu);
    EXPECT_EQ(on_two.packed(), odd.find('R') == std::string_view::npos) << odd;
    EXPECT_EQ(on_two.resident_gpus(), (std::vector<int>{0, 1}));
    EXPECT_LT(on_two.resident_bytes(), on_two.bases() / 2);
    for (const int k : {0, 2}) {
      trawl::search_options so;
      so.max_errors = k;
      so.both_strands = true;
      so.device = trawl::device_kind::cpu;
      const auto want = on_cpu.search(pats, so);
      ASSERT_FALSE(want.empty());
      so.device = two;
      EXPECT_EQ(on_two.search(pats, so), want) << "k " << k << " " << odd;
    }
    for (const int bulges : {0, 1}) {
      trawl::offtarget::options oo;
      oo.mismatches = 3;
      oo.dna_bulges = oo.rna_bulges = bulges;
      std::vector<std::vector<std::string>> rows;
      for (const auto& dev : {trawl::device_spec(trawl::device_kind::cpu), two}) {
        oo.device = dev;
        const trawl::offtarget::searcher s({{"g", guide, -1}}, oo);
        struct sink_t final : trawl::offtarget::site_sink {
          std::vector<std::string> rows;
          void begin_record(const trawl::record_info& r) override { rows.push_back(std::string(r.name)); }
          void site(const trawl::offtarget::site& st) override {
            rows.push_back(std::to_string(st.start) + " " + st.cigar + " " + st.aligned_target);
          }
          void end_record() override { rows.push_back("end"); }
        } out;
        (dev.kind == trawl::device_kind::cpu ? on_cpu : on_two).offtarget(s, out);
        rows.push_back(out.rows);
      }
      EXPECT_GT(rows[0].size(), 100u);
      EXPECT_EQ(rows[1], rows[0]) << "bulges " << bulges << " " << odd;
    }
  }
}

// A text kept on the GPU (keep_resident) is searched there, with the CPU's hits, for a view
// inside it and across chunk edges; once its handle is gone the same search copies again. A
// genome on the GPU gives the CPU genome's hits and off-target sites.
TEST(GpuVsCpu, ResidentTextAndGenome) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(77);
  const std::vector<std::string> pats = {"ACGTAGGT", "TTGACCA"};
  const std::string text = gputest::text_with_plants(rng, 200000, "ACGT", pats, 40, 1);
  const std::string_view view = std::string_view(text).substr(1234, 150000);
  trawl::search_options o;
  o.max_errors = 1;
  o.both_strands = true;
  const auto cpu = trawl::search(view, pats, o);
  ASSERT_FALSE(cpu.empty());
  trawl::search_options on = o;
  on.device = trawl::device_kind::gpu;
  trawl::gpu::gpu_options g;
  g.chunk_size = 4099;
  {
    const auto kept = trawl::gpu::keep_resident(text, on.device);
    EXPECT_EQ(trawl::gpu::search(view, pats, on, g), cpu);
    EXPECT_EQ(trawl::gpu::search(view, pats, on), cpu);
  }
  EXPECT_EQ(trawl::gpu::search(view, pats, on, g), cpu);

  std::string fa;
  const std::string guide = oracle::random_text(rng, 20, "ACGT");
  for (int r = 0; r < 6; ++r) {
    fa += ">r" + std::to_string(r) + "\n";
    std::string seq = gputest::text_with_plants(rng, r == 2 ? 3 : 30000 + rng() % 30000, "ACGT", pats, 20, 1);
    if (seq.size() > 1000) {  // the guide's site, and one with two mismatches on the other strand
      seq.replace(500, 23, guide + "TGG");
      std::string near = guide + "AGG";
      near[2] = near[2] == 'A' ? 'C' : 'A', near[9] = near[9] == 'G' ? 'T' : 'G';
      seq.replace(800, 23, oracle::reverse_complement(near));
    }
    for (std::size_t i = 0; i < seq.size(); i += 60) fa += seq.substr(i, 60) + "\n";
  }
  const trawl::genome on_gpu = trawl::genome::from_bytes(fa, "g.fa", trawl::device_kind::gpu);
  const trawl::genome on_cpu = trawl::genome::from_bytes(fa, "g.fa", trawl::device_kind::cpu);
  EXPECT_EQ(on_gpu.resident_gpus(), std::vector<int>{0});
  EXPECT_GT(on_gpu.resident_bytes(), 0u);
  EXPECT_LT(on_gpu.resident_bytes(), on_gpu.bases() / 2);  // DNA: two bits a base
  const std::string long_pat = std::string(on_cpu.sequence(3, 100, 300));
  for (const auto& [ps, k, hamming] : {std::tuple{pats, 0, false}, std::tuple{pats, 2, false}, std::tuple{pats, 1, true},
                                       std::tuple{std::vector<std::string>{long_pat}, 5, false}}) {
    trawl::search_options so;
    so.max_errors = k;
    so.hamming = hamming;
    so.both_strands = true;
    so.device = trawl::device_kind::cpu;
    const auto want = on_cpu.search(ps, so);
    ASSERT_FALSE(want.empty());
    so.device = trawl::device_kind::gpu;
    EXPECT_EQ(on_gpu.search(ps, so), want) << "k " << k << " hamming " << hamming << " m " << ps[0].size();
  }
  struct sink_t final : trawl::offtarget::site_sink {
    std::vector<std::string> rows;
    void begin_record(const trawl::record_info& r) override { rows.push_back(std::string(r.name) + " " + std::to_string(r.index)); }
    void site(const trawl::offtarget::site& st) override {
      rows.push_back(std::to_string(st.guide) + " " + std::to_string(st.start) + " " + st.cigar + " " + st.aligned_target);
    }
    void end_record() override { rows.push_back("end"); }
  };
  for (const auto& dev : {trawl::device_spec(trawl::device_kind::cpu), trawl::device_spec(trawl::device_kind::gpu)}) {
    trawl::offtarget::options oo;
    oo.mismatches = 4;
    oo.device = dev;
    const trawl::offtarget::searcher s({{"g", guide, -1}}, oo);
    sink_t a, b;
    on_cpu.offtarget(s, a);
    on_gpu.offtarget(s, b);
    EXPECT_EQ(b.rows, a.rows);
    EXPECT_GT(a.rows.size(), 12u);
  }
}

// A genome of DNA on the GPU is kept two bits a base there and as a .2bit image on the host,
// with no bytes of it in host memory: its searches on the GPU read from the host only the bytes
// around their hits (approximate starts, Hamming windows, off-target sites with and without
// bulges), and the searches that do not run on its GPU decode the image. All give what the
// genome kept as bytes on the CPU gives.
TEST(GpuVsCpu, GenomeKeptPackedOnTheGpu) {
  TRAWL_REQUIRE_GPU();
  std::mt19937_64 rng(83);
  const std::vector<std::string> pats = {"ACGTAGGTCA", "TTGACCAGT"};
  const std::string guide = oracle::random_text(rng, 20, "ACGT"), other = oracle::random_text(rng, 20, "ACGT");
  std::string fa;
  for (int r = 0; r < 7; ++r) {
    const std::size_t n = r == 3 ? 5 : r == 5 ? 700 : 100000 + rng() % 300000;
    std::string seq = gputest::text_with_plants(rng, n, "ACGT", pats, 60, 2);
    if (n > 1000) {
      for (int i = 0; i < 30; ++i) {  // sites, exact and near, some across soft-masked edges
        std::string site = (i % 2 ? guide : other) + (i % 3 ? "AGG" : "TGG");
        for (int e = 0; e < i % 5; ++e) site[rng() % 20] = "ACGT"[rng() % 4];
        if (i % 4 == 1) site.erase(5 + rng() % 10, 1);  // an RNA bulge's site
        if (i % 4 == 2) site.insert(5 + rng() % 10, 1, 'A');  // a DNA bulge's
        if (i % 2) site = oracle::reverse_complement(site);
        seq.replace(rng() % (seq.size() - 30), site.size(), site);
      }
      for (int i = 0; i < 10; ++i) seq.replace(rng() % (seq.size() - 20), pats[i % 2].size(), pats[i % 2]);
      for (int i = 0; i < 10; ++i) {  // soft-masked runs and N runs
        const std::size_t at = rng() % (seq.size() - 600), len = 1 + rng() % 500;
        for (std::size_t j = at; j < at + len; ++j) seq[j] = i % 3 == 0 ? 'N' : static_cast<char>(seq[j] | 0x20);
      }
    }
    fa += ">r" + std::to_string(r) + " record " + std::to_string(r) + "\n";
    for (std::size_t i = 0; i < seq.size(); i += 60) fa += seq.substr(i, 60) + "\n";
  }
  const trawl::genome on_gpu = trawl::genome::from_bytes(fa, "g.fa", trawl::device_kind::gpu);
  const trawl::genome on_cpu = trawl::genome::from_bytes(fa, "g.fa", trawl::device_kind::cpu, false);
  ASSERT_TRUE(on_gpu.packed());
  EXPECT_LT(on_gpu.host_bytes(), on_gpu.bases() / 3);
  EXPECT_LT(on_gpu.resident_bytes(), on_gpu.bases() / 2);
  EXPECT_EQ(on_gpu.sequence(1, 100, 5000), on_cpu.sequence(1, 100, 5000));
  struct search_case {
    int k;
    bool hamming, all_ends;
    std::uint64_t max_hits;
  };
  for (const search_case& c : {search_case{0, false, false, 0}, search_case{2, false, false, 0},
                               search_case{3, false, false, 0}, search_case{1, true, false, 0},
                               search_case{1, false, true, 0}, search_case{2, false, false, 7}}) {
    for (const auto dev : {trawl::device_kind::gpu, trawl::device_kind::cpu}) {
      trawl::search_options so;
      so.max_errors = c.k;
      so.hamming = c.hamming;
      so.all_ends = c.all_ends;
      so.max_hits = c.max_hits;
      so.both_strands = true;
      so.device = trawl::device_kind::cpu;
      const auto want = on_cpu.search(pats, so);
      ASSERT_FALSE(want.empty());
      so.device = dev;
      EXPECT_EQ(on_gpu.search(pats, so), want)
          << "k " << c.k << " hamming " << c.hamming << " all ends " << c.all_ends << " max hits " << c.max_hits
          << (dev == trawl::device_kind::cpu ? " on the CPU" : "");
    }
  }
  {  // whole words are checked beside each hit on the host: the search decodes the genome
    trawl::search_options so;
    so.whole_words = true;
    so.device = trawl::device_kind::cpu;
    const std::vector<std::string> words = {on_cpu.sequence(3), "ACGTAGGTCA"};  // record 3 is a word of its own
    const auto want = on_cpu.search(words, so);
    ASSERT_FALSE(want.empty());
    so.device = trawl::device_kind::gpu;
    EXPECT_EQ(on_gpu.search(words, so), want) << "whole words";
  }
  struct sink_t final : trawl::offtarget::site_sink {
    std::vector<std::string> rows;
    void begin_record(const trawl::record_info& r) override {
      rows.push_back(std::string(r.name) + " " + std::to_string(r.index));
    }
    void site(const trawl::offtarget::site& st) override {
      rows.push_back(std::to_string(st.guide) + " " + std::to_string(st.start) + " " + std::to_string(st.end) + " " +
                     st.cigar + " " + st.aligned_target + " " + st.aligned_guide);
    }
    void end_record() override { rows.push_back("end"); }
  };
  struct offtarget_case {
    int mm, dna, rna;
    std::vector<std::string> pams;
  };
  for (const offtarget_case& c : {offtarget_case{4, 0, 0, {"NGG"}}, offtarget_case{3, 1, 1, {"NGG"}},
                                  offtarget_case{4, 0, 0, {"NGG", "NAG"}}, offtarget_case{2, 1, 0, {"NGG", "NAGG"}}}) {
    trawl::offtarget::options oo;
    oo.mismatches = c.mm;
    oo.dna_bulges = c.dna;
    oo.rna_bulges = c.rna;
    oo.pams = c.pams;
    oo.device = trawl::device_kind::cpu;
    const trawl::offtarget::searcher on_host({{"g", guide, -1}, {"o", other, -1}}, oo);
    oo.device = trawl::device_kind::gpu;
    const trawl::offtarget::searcher on_device({{"g", guide, -1}, {"o", other, -1}}, oo);
    sink_t want, got;
    on_cpu.offtarget(on_host, want);
    on_gpu.offtarget(on_device, got);
    EXPECT_GT(want.rows.size(), 30u);
    EXPECT_EQ(got.rows, want.rows) << "mm " << c.mm << " bulges " << c.dna << " " << c.rna << " pams " << c.pams.size();
  }
}

}  // namespace
