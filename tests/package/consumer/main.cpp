// main.cpp — a project outside trawl that finds it with find_package(trawl) and links trawl::trawl.
#include <trawl/trawl.hpp>
#include <trawl/gpu.hpp>
#include <trawl/index.hpp>

#include <cstdio>

namespace {

/// Counts the sites it is handed.
struct count_sites final : trawl::offtarget::site_sink {
  int n = 0;
  void begin_record(const trawl::record_info&) override {}
  void site(const trawl::offtarget::site&) override { ++n; }
  void end_record() override {}
};

}  // namespace

int main() {
  trawl::search_options o;
  o.max_errors = 1;
  auto hits = trawl::search("the quick brown fox", {"quack"}, o);
  std::printf("%zu hits, first at %llu\n", hits.size(), hits.empty() ? 0ull : (unsigned long long)hits[0].start);
  const auto ix = trawl::index::hybrid_index::build("abracadabra abracadabra");
  std::printf("index: %llu occurrences of abra; %d GPU(s)\n", (unsigned long long)ix.count("abra"),
              trawl::gpu::device_count());
  // one exact site of a guide with its NGG PAM, and one with a mismatch
  trawl::offtarget::options ot;
  const trawl::offtarget::searcher s({{"g1", "GACGCATAAAGATGAGACGC"}}, ot);
  const std::string genome = "TTTTGACGCATAAAGATGAGACGCAGGTTTTGACGCATTAAGATGAGACGCTGGTTTT";
  auto input = trawl::io::source::from_memory(genome, "chr");
  count_sites sites;
  s.search(input, sites);
  std::printf("offtarget: %d sites\n", sites.n);
  return hits.size() == 1 && ix.count("abra") == 4 && sites.n == 2 ? 0 : 1;
}
