// device_test.cpp — the one device value (trawl/device.hpp): its spellings, and the one entry
// (run_search) that plans, builds and runs a search on the device it names. GPU lists on a
// real device are checked in tests/cuda (test_gpu_vs_cpu.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <optional>
#include <random>

#include "oracle.hpp"
#include "record_hits.hpp"
#include "trawl/device.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

/// The error parse_device throws on `spec`, if any.
std::optional<trawl::errc> code_of(const std::string& spec) {
  try {
    (void)trawl::parse_device(spec);
  } catch (const trawl::error& e) {
    return e.code();
  }
  return std::nullopt;
}

TEST(Device, SpellingsAndTheirValues) {
  EXPECT_EQ(trawl::parse_device("auto"), trawl::device_spec(trawl::device_kind::automatic));
  EXPECT_EQ(trawl::parse_device("cpu"), trawl::device_spec(trawl::device_kind::cpu));
  EXPECT_EQ(trawl::to_string(trawl::parse_device("auto")), "auto");
  EXPECT_EQ(trawl::to_string(trawl::parse_device("cpu")), "cpu");
  EXPECT_EQ(trawl::to_string({trawl::device_kind::gpu, {0, 0, 1}}), "gpu:0,0,1");
  EXPECT_EQ(trawl::to_string(trawl::device_kind::gpu), "gpu");
  EXPECT_EQ((trawl::device_spec{trawl::device_kind::gpu, {}}).workers(), std::vector<int>{0});
  EXPECT_EQ((trawl::device_spec{trawl::device_kind::gpu, {1, 1}}).workers(), (std::vector<int>{1, 1}));
  for (const char* bad : {"", "GPU", "gpu:", "gpu:,0", "gpu:0,", "gpu:0,,1", "gpu:a", "cuda", "gpu:-1"})
    EXPECT_EQ(code_of(bad), trawl::errc::invalid_argument) << bad;
  // a GPU named where there is none (or not that one) is no_device, never a silent CPU run
  EXPECT_EQ(code_of("gpu:99999"), trawl::errc::no_device);
  if (!trawl::gpu::available()) {
    for (const char* gpu : {"gpu", "gpu:all", "gpu:0", "gpu:0,0"}) EXPECT_EQ(code_of(gpu), trawl::errc::no_device) << gpu;
  }
}

using collect = testing_sinks::record_hits;

TEST(Device, RunSearchPlansBuildsAndRuns) {
  // run_search on the CPU gives search_input's hits with the matcher it builds or is given,
  // and names the CPU as where it ran; a record's hits are the naive oracle's.
  std::mt19937_64 rng(3);
  const std::string a = oracle::random_text(rng, 5000, "ACGT"), b = oracle::random_text(rng, 3000, "ACGT");
  const std::string fasta = ">a\n" + a + "\n>b\n" + b + "\n";
  const std::vector<std::string> patterns = {a.substr(100, 6), b.substr(7, 5)};
  trawl::search_options o;
  o.device = trawl::device_kind::cpu;
  o.threads = 2;
  std::vector<std::pair<std::uint64_t, trawl::hit>> want;
  for (std::uint64_t r = 0; r < 2; ++r) {
    std::vector<trawl::hit> hs;
    for (std::uint32_t p = 0; p < 2; ++p)
      for (const auto s : oracle::naive_find(r == 0 ? a : b, patterns[p]))
        hs.push_back({s, s + patterns[p].size(), p, 0, trawl::strand::forward});
    std::sort(hs.begin(), hs.end(), [](const trawl::hit& x, const trawl::hit& y) {
      return x.start != y.start ? x.start < y.start : x.pattern < y.pattern;
    });
    for (const auto& h : hs) want.emplace_back(r, h);
  }
  ASSERT_GE(want.size(), 2u);
  const auto cpu = trawl::make_matcher(patterns, o);
  for (const bool given : {false, true}) {
    auto src = trawl::io::source::from_memory(fasta, "mem");
    collect sink;
    trawl::run_steps steps;
    if (given) steps.cpu = cpu.get();
    bool planned = false;
    steps.planned = [&](const trawl::search_plan& plan) {
      planned = true;
      EXPECT_EQ(plan.device, trawl::device_kind::cpu);
    };
    const trawl::stream_result r = trawl::run_search(patterns, src, o, {}, sink, steps);
    EXPECT_TRUE(planned);
    EXPECT_EQ(r.device, trawl::device_spec(trawl::device_kind::cpu));
    EXPECT_EQ(r.hits, want.size());
    EXPECT_EQ(sink.found, want) << "given " << given;
  }
}

}  // namespace
