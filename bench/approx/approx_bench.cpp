// approx_bench.cpp — throughput of trawl's approximate engines on a corpus, side by side with
// edlib (EDLIB_MODE_HW, the pattern over the whole text), single- and multi-thread, plus a
// many-pattern run. Every trawl engine must report the same number of clusters for a
// configuration, or the program fails (a wrong answer is not a fast one).
//
//   bench_approx --text FILE [--patterns PREFIX] [--prefix BYTES] [--peer-prefix BYTES]
//                [--m 8,16,32,64,128,1024] [--k 0,1,2,3,4] [--engines auto,myers-word,...]
//                [--threads N] [--reps N] [--starts yes|no] [--pin yes|no] [--many N] [--many-prefix BYTES]
//                [--edlib-sample N] [--simd auto|avx2|avx512|serial] [--slice BYTES]
//   bench_approx --text rand01-4m.txt --best 32,64,...,1024 [--threads N]
//
// --best: the best approximate substring (trawl best) instead: both engines (Myers, the
// wavefront DP) at one thread and all threads, and edlib HW with no bound as the peer; all
// three must give the same distance.
//
// --reps N: each trawl cell (also of --best) runs N times and the fastest is reported (default 1).
// --simd: the SIMD level of trawl's kernels (default auto: the best this CPU has), to time the
// AVX2 kernels on an AVX-512 machine; the start pass still takes the best this CPU has.
// --starts no: hits without their start (as `trawl search --count-matches`), to separate the start pass.
// --slice BYTES: the text slice each scan takes (default 0: the library's choice).
// --pin no: single-thread runs (trawl and the peers) are not pinned to their CPU (see pin_scope).
// Prints one markdown table row per measurement: tool | engine | m | k | threads | MiB |
// seconds | GB/s | GCUPS (m·n/t) | hits.
#include <sched.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <tbb/info.h>

#include "trawl/approx.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#ifdef TRAWL_BENCH_EDLIB
#include <edlib.h>
#endif

namespace {

struct args {
  std::string text, patterns;
  std::size_t prefix = 0, peer_prefix = 32u << 20, many_prefix = 8u << 20;
  std::vector<std::size_t> ms = {8, 16, 32, 64, 128, 1024};
  std::vector<int> ks = {0, 1, 2, 3, 4};
  std::vector<std::string> engines = {"auto", "myers-word", "myers-blocked"};
  unsigned threads = 0;
  unsigned reps = 1;  ///< trawl runs per cell; the fastest is reported (shared machines are noisy)
  bool starts = true;  ///< --no-starts: ends and errors only, as `trawl search --count-matches` (no start pass)
  std::size_t slice = 0;  ///< --slice: search_options::slice_size
  bool pin = true;     ///< single-thread runs pinned to one CPU
  std::size_t many = 1000, edlib_sample = 20;
  trawl::simd_level simd = trawl::simd_level::automatic;
  std::vector<std::size_t> best;  ///< |X| values for the best-substring run
};

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  for (std::string x; std::getline(ss, x, ',');) out.push_back(x);
  return out;
}

/// Pins the calling thread to the CPU it is on while it lives (single-thread timings: on a
/// shared machine a thread the scheduler moves between cores ran up to 30 % slower from one
/// run to the next). All-thread runs happen unpinned, so the workers they start may use every
/// core. --pin no leaves every run free.
class pin_scope {
 public:
  explicit pin_scope(bool on) {
    if (!on || sched_getaffinity(0, sizeof(old_), &old_) != 0) return;
    const int cpu = sched_getcpu();
    if (cpu < 0) return;
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(cpu, &one);
    pinned_ = sched_setaffinity(0, sizeof(one), &one) == 0;
  }
  ~pin_scope() {
    if (pinned_) sched_setaffinity(0, sizeof(old_), &old_);
  }
  pin_scope(const pin_scope&) = delete;
  pin_scope& operator=(const pin_scope&) = delete;

 private:
  cpu_set_t old_{};
  bool pinned_ = false;
};

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// CPU seconds of the whole process (all threads): on a loaded, shared machine this, not the
/// wall clock, says what one core does.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

void row(const std::string& tool, const std::string& engine, std::size_t m, int k, unsigned th, std::size_t n,
         double sec, double cpu, std::uint64_t hits, const std::string& note = "") {
  const double nn = static_cast<double>(n);
  std::printf("| %s | %s | %zu | %d | %u | %.0f | %.3f | %.3f | %.3f | %.3f | %.1f | %llu%s |\n", tool.c_str(),
              engine.c_str(), m, k, th, nn / (1 << 20), sec, cpu, nn / sec / 1e9, nn / cpu / 1e9,
              static_cast<double>(m) * nn / sec / 1e9, static_cast<unsigned long long>(hits), note.c_str());
  std::fflush(stdout);
}

/// The pattern of length m: the first line of PREFIX.m.txt that long, else a slice of the text.
std::string pick_pattern(const args& a, std::string_view text, std::size_t m, std::mt19937_64& rng) {
  if (!a.patterns.empty()) {
    std::ifstream in(a.patterns + "." + std::to_string(m) + ".txt");
    for (std::string line; std::getline(in, line);)
      if (line.size() == m) return line;
  }
  const std::size_t at = rng() % (text.size() - m);
  return std::string(text.substr(at, m));
}

std::uint64_t run_trawl(const std::vector<std::string>& pats, std::string_view text, trawl::search_options o) {
  auto mt = trawl::make_matcher(pats, o);
  return trawl::search_sequence(*mt, text, o, [](std::span<const trawl::hit>) { return true; });
}

}  // namespace

constexpr const char* usage =
    "usage: bench_approx --text FILE [--patterns PREFIX] [--prefix BYTES] [--peer-prefix BYTES]\n"
    "                    [--m 8,16,...] [--k 0,1,...] [--engines auto,myers-word,...] [--threads N] [--reps N]\n"
    "                    [--starts yes|no] [--pin yes|no] [--many N] [--many-prefix BYTES] [--edlib-sample N]\n"
    "                    [--simd auto|avx2|avx512|serial] [--slice BYTES]\n"
    "       bench_approx --text FILE --best 32,64,... [--threads N] [--reps N]\n"
    "(every option takes a value; the source's header says what each measures)\n";

int main(int argc, char** argv) {
  args a;
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
      std::fputs(usage, stdout);
      return 0;
    }
  if (argc % 2 == 0) {
    std::fprintf(stderr, "bench_approx: %s needs a value\n%s", argv[argc - 1], usage);
    return 2;
  }
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string f = argv[i], v = argv[i + 1];
    if (f == "--text") a.text = v;
    else if (f == "--patterns") a.patterns = v;
    else if (f == "--prefix") a.prefix = std::stoull(v);
    else if (f == "--peer-prefix") a.peer_prefix = std::stoull(v);
    else if (f == "--many-prefix") a.many_prefix = std::stoull(v);
    else if (f == "--threads") a.threads = static_cast<unsigned>(std::stoul(v));
    else if (f == "--reps") a.reps = std::max(1u, static_cast<unsigned>(std::stoul(v)));
    else if (f == "--starts") a.starts = v != "no";
    else if (f == "--slice") a.slice = std::stoull(v);
    else if (f == "--pin") a.pin = v != "no";
    else if (f == "--many") a.many = std::stoull(v);
    else if (f == "--edlib-sample") a.edlib_sample = std::stoull(v);
    else if (f == "--engines") a.engines = split(v);
    else if (f == "--simd") {
      if (v == "auto") a.simd = trawl::simd_level::automatic;
      else if (v == "avx2") a.simd = trawl::simd_level::avx2;
      else if (v == "avx512") a.simd = trawl::simd_level::avx512;
      else if (v == "serial") a.simd = trawl::simd_level::serial;
      else {
        std::fprintf(stderr, "--simd: auto, avx2, avx512 or serial\n");
        return 2;
      }
    }
    else if (f == "--best") {
      for (const std::string& x : split(v)) a.best.push_back(std::stoull(x));
    }
    else if (f == "--m") {
      a.ms.clear();
      for (auto& x : split(v)) a.ms.push_back(std::stoull(x));
    } else if (f == "--k") {
      a.ks.clear();
      for (auto& x : split(v)) a.ks.push_back(std::stoi(x));
    } else {
      std::fprintf(stderr, "unknown option %s\n", f.c_str());
      return 2;
    }
  }
  if (a.text.empty()) {
    std::fputs(usage, stderr);
    return 2;
  }
  const auto input = trawl::io::input_buffer::open(a.text);  // mapped
  std::string_view text = input.bytes();
  if (a.prefix != 0 && a.prefix < text.size()) text = text.substr(0, a.prefix);
  if (text.empty()) {
    std::fprintf(stderr, "cannot read %s\n", a.text.c_str());
    return 2;
  }
  const unsigned all = a.threads != 0 ? a.threads : std::max(1u, std::thread::hardware_concurrency());
  // oneTBB reads the CPUs it may use once, from the first thread that asks; asked first from
  // inside a pin_scope it would settle on one CPU, and every all-thread run after would get one
  // worker. Ask now, unpinned.
  (void)tbb::info::default_concurrency();
  const std::string_view peer = text.substr(0, std::min(a.peer_prefix, text.size()));
  std::mt19937_64 rng(2026);
  if (a.best.empty())
    std::printf(
        "| tool | engine | m | k | threads | MiB | wall s | cpu s | GB/s wall | GB/s per cpu-s | GCUPS wall | hits |\n"
        "|---|---|---|---|---|---|---|---|---|---|---|---|\n");
  if (!a.best.empty()) {
    std::printf("| tool | engine | |X| | threads | |Y| | wall s | GCUPS | distance | occurrences |\n"
                "|---|---|---|---|---|---|---|---|---|\n");
    for (std::size_t m : a.best) {
      // The seed's Table I: X random over Y's alphabet (bytes drawn from Y), not a substring.
      std::string x(m, '\0');
      for (char& c : x) c = text[rng() % text.size()];
      std::uint32_t dist = ~std::uint32_t{0};
      for (const auto& [name, alg] : {std::pair{"myers", trawl::best_algorithm::myers},
                                      std::pair{"wavefront", trawl::best_algorithm::wavefront}}) {
        std::vector<unsigned> thread_counts = {1u};
        if (all > 1) thread_counts.push_back(all);
        for (unsigned th : thread_counts) {
          trawl::best_options bo;
          bo.algorithm = alg;
          bo.threads = th;
          bo.simd = a.simd;
          const pin_scope pin(a.pin && th == 1);
          // The fastest of --reps runs (the first all-thread run of a process also starts
          // oneTBB's workers).
          double sec = 1e300;
          trawl::best_result r;
          for (unsigned rep = 0; rep < a.reps; ++rep) {
            const double t0 = now();
            r = trawl::best_substring(x, text, bo);
            sec = std::min(sec, now() - t0);
          }
          std::printf("| trawl | best %s | %zu | %u | %zu | %.4f | %.1f | %u | %zu |\n", name, m, th, text.size(), sec,
                      static_cast<double>(m) * static_cast<double>(text.size()) / sec / 1e9, r.distance,
                      r.occurrences.size());
          if (dist != ~std::uint32_t{0} && r.distance != dist) {
            std::fprintf(stderr, "best engines disagree: %u vs %u\n", r.distance, dist);
            return 1;
          }
          dist = r.distance;
        }
      }
#ifdef TRAWL_BENCH_EDLIB
      const pin_scope pin(a.pin);
      const double t0 = now();
      EdlibAlignResult r = edlibAlign(x.data(), static_cast<int>(m), text.data(), static_cast<int>(text.size()),
                                      edlibNewAlignConfig(-1, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
      const double sec = now() - t0;
      std::printf("| edlib | HW, no bound | %zu | 1 | %zu | %.4f | %.1f | %d | %d |\n", m, text.size(), sec,
                  static_cast<double>(m) * static_cast<double>(text.size()) / sec / 1e9, r.editDistance,
                  r.numLocations);
      if (r.editDistance != static_cast<int>(dist)) {
        std::fprintf(stderr, "edlib disagrees: %d vs %u\n", r.editDistance, dist);
        return 1;
      }
      edlibFreeAlignResult(r);
#endif
    }
    return 0;
  }
  for (std::size_t m : a.ms) {
    const std::string p = pick_pattern(a, text, m, rng);
    for (int k : a.ks) {
      std::uint64_t expect = ~std::uint64_t{0};
      for (const std::string& e : a.engines) {
        if (e == "myers-word" && m > 64) continue;
        trawl::search_options o;
        o.max_errors = k;
        o.all_ends = k == 0;  // k = 0 still goes to the approximate engines
        o.approx = trawl::parse_approx_algorithm(e);
        o.starts = a.starts;
        o.slice_size = a.slice;
        o.simd = a.simd;
        const std::string_view t = e == "dp" ? peer : text;
        std::vector<unsigned> thread_counts = {1u};
        if (all > 1 && e == "auto") thread_counts.push_back(all);
        for (unsigned th : thread_counts) {
          o.threads = th;
          const pin_scope pin(a.pin && th == 1);
          double sec = 1e300, cpu = 0;
          std::uint64_t hits = 0;
          for (unsigned rep = 0; rep < a.reps; ++rep) {  // the fastest of --reps runs
            const double t0 = now(), c0 = cpu_now();
            hits = run_trawl({p}, t, o);
            const double s = now() - t0;
            if (s < sec) sec = s, cpu = cpu_now() - c0;
          }
          row("trawl", e, m, k, th, t.size(), sec, cpu, hits);
          if (t.size() == text.size()) {
            if (expect != ~std::uint64_t{0} && hits != expect) {
              std::fprintf(stderr, "engine %s disagrees: %llu hits, expected %llu\n", e.c_str(),
                           static_cast<unsigned long long>(hits), static_cast<unsigned long long>(expect));
              return 1;
            }
            expect = hits;
          }
        }
      }
#ifdef TRAWL_BENCH_EDLIB
      {
        const pin_scope pin(a.pin);
        const double t0 = now(), c0 = cpu_now();
        EdlibAlignResult r = edlibAlign(p.data(), static_cast<int>(m), peer.data(), static_cast<int>(peer.size()),
                                        edlibNewAlignConfig(k, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
        const double sec = now() - t0, cpu = cpu_now() - c0;
        row("edlib", "HW distance", m, k, 1, peer.size(), sec, cpu, static_cast<std::uint64_t>(std::max(0, r.numLocations)),
            " (best-score ends only)");
        edlibFreeAlignResult(r);
      }
#endif
    }
  }
  if (a.many > 0) {
    // Many patterns: a.many DNA-like patterns of 20–23 bytes taken from the text, k = 1 and 3.
    const std::string_view t = text.substr(0, std::min(a.many_prefix, text.size()));
    std::vector<std::string> pats;
    for (std::size_t i = 0; i < a.many; ++i) pats.push_back(std::string(text.substr(rng() % (text.size() - 30), 20 + i % 4)));
    for (int k : {1, 3}) {
      trawl::search_options o;
      o.max_errors = k;
      std::vector<unsigned> thread_counts = {1u};
      if (all > 1) thread_counts.push_back(all);
      for (unsigned th : thread_counts) {
        o.threads = th;
        const pin_scope pin(a.pin && th == 1);
        const double t0 = now(), c0 = cpu_now();
        const std::uint64_t hits = run_trawl(pats, t, o);
        const double sec = now() - t0, cpu = cpu_now() - c0;
        row("trawl", "auto, " + std::to_string(a.many) + " patterns", 21, k, th, t.size() * a.many, sec, cpu, hits,
            " (MiB = text × patterns)");
      }
#ifdef TRAWL_BENCH_EDLIB
      const std::size_t sample = std::min(a.edlib_sample, pats.size());
      const pin_scope pin(a.pin);
      const double t0 = now(), c0 = cpu_now();
      std::uint64_t locs = 0;
      for (std::size_t i = 0; i < sample; ++i) {
        EdlibAlignResult r = edlibAlign(pats[i].data(), static_cast<int>(pats[i].size()), t.data(),
                                        static_cast<int>(t.size()),
                                        edlibNewAlignConfig(k, EDLIB_MODE_HW, EDLIB_TASK_DISTANCE, nullptr, 0));
        locs += static_cast<std::uint64_t>(std::max(0, r.numLocations));
        edlibFreeAlignResult(r);
      }
      const double scale = static_cast<double>(pats.size()) / static_cast<double>(sample);
      const double sec = (now() - t0) * scale, cpu = (cpu_now() - c0) * scale;
      row("edlib", "HW, pattern by pattern", 21, k, 1, t.size() * pats.size(), sec, cpu, locs,
          " (timed on " + std::to_string(sample) + " patterns, extrapolated to " + std::to_string(pats.size()) + ")");
#endif
    }
  }
  return 0;
}
