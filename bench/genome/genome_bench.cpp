// genome_bench.cpp — a genome kept loaded (trawl::genome) against reading it for every search:
// the time to read it (and copy it to the GPU), then per call, best of --calls: off-target
// sites of one guide and of every guide (--mismatches, both strands, NGG), and a search of
// every guide at -k (forward), on the device asked for. The same calls through a file search
// (run_search / offtarget::searcher over the file) for comparison. One CSV row per job to
// stdout: job, device, seconds (best), seconds (first call), sites or hits (for the jobs
// resident_bytes and host_bytes: the memory that holds the genome on each GPU and on the host).
// --bytes keeps the genome as bytes instead of two bits a base; --no-file leaves out the calls
// through the file; --bulges B adds the off-target sites of every guide with B DNA and B RNA
// bulges (two calls).
//
// usage: trawl_genome_bench GENOME GUIDES [--device cpu|gpu|auto] [--calls R] [--mismatches M] [-k K] [--bytes]
//                           [--no-file] [--bulges B]
//   GUIDES: lines `NAME SEQUENCE` (bench/offtarget/guides.py)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "trawl/device.hpp"
#include "trawl/error.hpp"
#include "trawl/genome.hpp"
#include "trawl/gpu.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

const char* usage =
    "usage: trawl_genome_bench GENOME GUIDES [--device cpu|gpu|auto] [--calls R] [--mismatches M] [-k K] [--bytes]\n"
    "                          [--no-file] [--bulges B]\n"
    "  GUIDES: lines NAME SEQUENCE; prints CSV rows: job,device,best_s,first_s,found\n";

double now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

struct counter final : trawl::offtarget::site_sink {
  std::uint64_t n = 0;
  void begin_record(const trawl::record_info&) override {}
  void site(const trawl::offtarget::site&) override { ++n; }
  void end_record() override {}
};

struct hit_counter final : trawl::search_sink {
  std::uint64_t n = 0;
  void begin_record(const trawl::record_info&) override {}
  bool hits(std::span<const trawl::hit> hs) override {
    n += hs.size();
    return true;
  }
  void end_record(std::uint64_t) override {}
};

/// Best and first wall seconds of `calls` runs of f, and what the last run found.
void timed(const char* job, const std::string& device, int calls, const std::function<std::uint64_t()>& f) {
  double best = 1e30, first = 0;
  std::uint64_t found = 0;
  for (int c = 0; c < calls; ++c) {
    const double t = now();
    found = f();
    const double s = now() - t;
    if (c == 0) first = s;
    best = std::min(best, s);
  }
  std::printf("%s,%s,%.4f,%.4f,%llu\n", job, device.c_str(), best, first, static_cast<unsigned long long>(found));
  std::fflush(stdout);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> pos;
  std::string device = "auto";
  int calls = 5, mismatches = 4, k = 3, bulges = 0;
  bool pack = true, through_file = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "trawl_genome_bench: %s needs a value\n%s", a.c_str(), usage);
        std::exit(2);
      }
      return argv[++i];
    };
    if (a == "--help" || a == "-h") {
      std::fputs(usage, stdout);
      return 0;
    } else if (a == "--device") {
      device = value();
    } else if (a == "--calls") {
      calls = std::atoi(value().c_str());
    } else if (a == "--mismatches") {
      mismatches = std::atoi(value().c_str());
    } else if (a == "-k") {
      k = std::atoi(value().c_str());
    } else if (a == "--bulges") {
      bulges = std::atoi(value().c_str());
    } else if (a == "--bytes") {
      pack = false;
    } else if (a == "--no-file") {
      through_file = false;
    } else if (!a.empty() && a[0] == '-') {
      std::fprintf(stderr, "trawl_genome_bench: unknown option %s\n%s", a.c_str(), usage);
      return 2;
    } else {
      pos.push_back(a);
    }
  }
  if (pos.size() != 2 || calls < 1) {
    std::fputs(usage, stderr);
    return 2;
  }
  try {
    const trawl::device_spec dev = trawl::parse_device(device);
    std::vector<trawl::offtarget::guide> guides;
    std::vector<std::string> protospacers;
    std::ifstream in(pos[1]);
    for (std::string line; std::getline(in, line);) {
      std::istringstream ls(line);
      std::string name, seq;
      if (ls >> name >> seq) {
        guides.push_back({name, seq, -1});
        protospacers.push_back(seq);
      }
    }
    if (guides.empty()) throw trawl::error(trawl::errc::invalid_argument, "no guide in " + pos[1]);
    std::printf("job,device,best_s,first_s,found\n");
    double t = now();
    trawl::gpu::prepare(dev);
    const double start = now() - t;
    t = now();
    const trawl::genome g = trawl::genome::open(pos[0], dev, pack);
    std::printf("gpu_start,%s,%.4f,%.4f,0\n", device.c_str(), start, start);
    std::printf("load,%s,%.4f,%.4f,%llu\n", device.c_str(), now() - t, now() - t,
                static_cast<unsigned long long>(g.bases()));
    std::printf("resident_bytes,%s,0,0,%llu\n", device.c_str(), static_cast<unsigned long long>(g.resident_bytes()));
    std::printf("host_bytes,%s,0,0,%llu\n", device.c_str(), static_cast<unsigned long long>(g.host_bytes()));
    trawl::offtarget::options oo;
    oo.mismatches = mismatches;
    oo.device = dev;
    const trawl::offtarget::searcher one({guides.front()}, oo);
    const trawl::offtarget::searcher all(guides, oo);
    timed("offtarget_1_resident", device, calls, [&] {
      counter c;
      g.offtarget(one, c);
      return c.n;
    });
    // one exact pattern over the whole genome: where a call's time goes
    trawl::search_options exact;
    exact.device = dev;
    timed("search_1_exact_resident", device, calls, [&] {
      std::uint64_t n = 0;
      g.search({protospacers.front()}, exact, [&](std::uint32_t, std::span<const trawl::hit> hs) {
        n += hs.size();
        return true;
      });
      return n;
    });
    timed("offtarget_all_resident", device, calls, [&] {
      counter c;
      g.offtarget(all, c);
      return c.n;
    });
    trawl::search_options so;
    so.max_errors = k;
    so.device = dev;
    timed("search_k_all_resident", device, calls, [&] {
      std::uint64_t n = 0;
      g.search(protospacers, so, [&](std::uint32_t, std::span<const trawl::hit> hs) {
        n += hs.size();
        return true;
      });
      return n;
    });
    if (bulges > 0) {
      trawl::offtarget::options ob = oo;
      ob.dna_bulges = ob.rna_bulges = bulges;
      const trawl::offtarget::searcher with_bulges(guides, ob);
      timed("offtarget_all_bulges_resident", device, std::min(calls, 2), [&] {
        counter c;
        g.offtarget(with_bulges, c);
        return c.n;
      });
    }
    if (!through_file) return 0;
    // the same through the file, read for every call
    timed("offtarget_1_file", device, std::min(calls, 2), [&] {
      counter c;
      auto src = trawl::io::source::open(pos[0]);
      (void)one.search(src, c);
      return c.n;
    });
    timed("offtarget_all_file", device, std::min(calls, 2), [&] {
      counter c;
      auto src = trawl::io::source::open(pos[0]);
      (void)all.search(src, c);
      return c.n;
    });
    timed("search_k_all_file", device, std::min(calls, 2), [&] {
      hit_counter c;
      auto src = trawl::io::source::open(pos[0]);
      (void)trawl::run_search(protospacers, src, so, {}, c);
      return c.n;
    });
  } catch (const trawl::error& e) {
    std::fprintf(stderr, "trawl_genome_bench: %s\n", e.what());
    return 2;
  }
  return 0;
}
