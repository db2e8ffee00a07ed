// trawl_sites_bench — the host's part of an off-target search with bulges: the sites built
// from candidates whose bytes are read around them (site_search::windowed, as a genome kept on
// the GPU hands over its GPU's candidates). A random genome, guides sampled from it at NGG
// PAMs; the candidates found once by the CPU's matcher (those with a site, as the GPU's site
// test keeps), then classified --runs times, in batches of an eighth.
// usage: trawl_sites_bench [--length N] [--guides G] [--mismatches M] [--bulges B] [--threads T] [--runs R]
// One CSV row per run: run, threads, candidates, sites, seconds, us_per_site (wall time over sites).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <random>
#include <span>
#include <string>
#include <vector>

#include "offtarget/site_search.hpp"
#include "trawl/search.hpp"

namespace {

namespace ot = trawl::offtarget;

const char* usage =
    "usage: trawl_sites_bench [--length N] [--guides G] [--mismatches M] [--bulges B] [--threads T] [--runs R]\n"
    "  the sites of a random genome of N bases (30000000) for G guides (312) of 20 nt + NGG, M mismatches (4),\n"
    "  B DNA and B RNA bulges (1), built on T threads (0: all) from the candidates, R times (5); CSV on stdout\n";

/// Counts the sites and reads their strings, as a printer would.
class counting_sink final : public ot::site_sink {
 public:
  std::uint64_t sites = 0, bytes = 0;
  void begin_record(const trawl::record_info&) override {}
  void site(const ot::site& s) override {
    ++sites;
    bytes += s.aligned_guide.size() + s.aligned_target.size() + s.cigar.size() + s.pam_bases.size();
  }
  void end_record() override {}
};

}  // namespace

int main(int argc, char** argv) {
  std::size_t length = 30000000, guides = 312, runs = 5;
  int mismatches = 4, bulges = 1;
  unsigned threads = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
    const bool known = a == "--length" || a == "--guides" || a == "--mismatches" || a == "--bulges" ||
                       a == "--threads" || a == "--runs";
    if (!known) {
      std::fprintf(stderr, "trawl_sites_bench: unknown option %s\n%s", a.c_str(), usage);
      return 2;
    }
    if (i + 1 >= argc) {
      std::fprintf(stderr, "trawl_sites_bench: %s needs a value\n%s", a.c_str(), usage);
      return 2;
    }
    const std::string v = argv[++i];
    try {
      const unsigned long long n = std::stoull(v);
      if (a == "--length") length = n;
      else if (a == "--guides") guides = n;
      else if (a == "--mismatches") mismatches = static_cast<int>(n);
      else if (a == "--bulges") bulges = static_cast<int>(n);
      else if (a == "--threads") threads = static_cast<unsigned>(n);
      else runs = n;
    } catch (const std::exception&) {
      std::fprintf(stderr, "trawl_sites_bench: %s %s is not a number\n%s", a.c_str(), v.c_str(), usage);
      return 2;
    }
  }
  if (length < 1000 || guides == 0 || mismatches > 16 || bulges > 4) {
    std::fprintf(stderr, "trawl_sites_bench: --length >= 1000, --guides >= 1, --mismatches <= 16, --bulges <= 4\n");
    return 2;
  }
  std::mt19937_64 rng(7);
  std::string seq(length, 'A');
  for (char& c : seq) c = "ACGT"[rng() & 3];
  std::vector<ot::guide> gs;
  for (std::size_t g = 0; g < guides; ++g) {
    std::size_t at = 0;
    do at = rng() % (length - 23);
    while (seq.compare(at + 21, 2, "GG") != 0);
    std::string name = "g";
    name += std::to_string(g);
    gs.push_back({name, seq.substr(at, 20), -1});
  }
  ot::options o;
  o.pams = {"NGG"};
  o.mismatches = mismatches;
  o.dna_bulges = o.rna_bulges = bulges;
  o.threads = threads;
  const ot::site_search s(gs, o);
  std::vector<trawl::hit> found;
  trawl::search_sequence(s.cpu_matcher(), seq, s.candidate_options(), [&](std::span<const trawl::hit> hs) {
    found.insert(found.end(), hs.begin(), hs.end());
    return true;
  });
  std::sort(found.begin(), found.end(), [](const trawl::hit& a, const trawl::hit& b) { return a.end < b.end; });
  std::printf("run,threads,candidates,sites,seconds,us_per_site\n");
  for (std::size_t r = 0; r < runs; ++r) {
    counting_sink out;
    const auto t0 = std::chrono::steady_clock::now();
    const auto w = s.windowed(out, [&](std::uint32_t, std::uint64_t lo, std::uint64_t hi, char* to) {
      std::memcpy(to, seq.data() + lo, hi - lo);
    }, false);
    trawl::record_info info;
    info.name = "chr1";
    w->begin_record(info, length);
    const std::size_t per = found.size() / 8 + 1;
    for (std::size_t i = 0; i < found.size(); i += per)
      w->candidates(std::span<const trawl::hit>(found).subspan(i, std::min(per, found.size() - i)), 0);
    w->end_record();
    w->finish();
    const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%zu,%u,%zu,%llu,%.4f,%.3f\n", r + 1, threads, found.size(), static_cast<unsigned long long>(out.sites), sec,
                out.sites != 0 ? sec * 1e6 / static_cast<double>(out.sites) : 0.0);
  }
  return 0;
}
