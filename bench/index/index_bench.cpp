// index_bench.cpp — the Hybrid Index against sdsl's FM-index csa_wt<wt_huff<>, 32, 64> on one
// text: build time and peak memory, size in bits per character, locate time per occurrence and
// per pattern (serial engine), count against locate, and the parallel speed-ups: a whole pattern set spread
// over the threads (locate_many) and one parallel locate per pattern (balanced and static engines).
// Every pattern set's total occurrence count is checked against sdsl's count: a wrong answer
// fails the benchmark (exit 1). Prints Markdown table rows on stdout.
//
// usage: trawl_index_bench TEXT [--max-len M] [--small] [--patterns FILE]... [--gen L]... [--load INDEX | --save INDEX] [--cpu-time]
//                          [--threads 1,2,4,8,16] [--budget SECONDS] [--max-patterns N] [--no-sdsl]
//                          [--count-index auto|on|off] [--runs R [--no-locate]]
// --runs R (peers.sh): only count and the serial locate, one thread, each pattern set's best of R passes,
// one row per set: | patterns | # | count total | count µs/pattern | locate occ | locate µs/occ |;
// --no-locate leaves out locate. Patterns are read up to --max-patterns (default 1000) per file.
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <ctime>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <sdsl/suffix_arrays.hpp>

#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/detail/testing.hpp"

namespace {

using clk = std::chrono::steady_clock;
double secs(clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); }

/// Seconds of CPU time of this thread (--cpu-time: serial columns on a shared, loaded box).
double thread_cpu_s() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double peak_rss_mib() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return static_cast<double>(ru.ru_maxrss) / 1024.0;
}

struct pattern_set {
  std::string name;
  std::vector<std::string> pats;
};

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw trawl::error(trawl::errc::io_error, "cannot open " + path);
  std::vector<std::string> v;
  std::string line;
  while (std::getline(in, line))
    if (!line.empty()) v.push_back(line);
  return v;
}

/// 1000 substrings of length L at random positions (fixed seed) without a line break.
std::vector<std::string> sample_patterns(std::string_view t, std::size_t L, std::size_t count) {
  std::mt19937_64 rng(1000 + L);
  std::vector<std::string> v;
  if (t.size() < L) return v;
  std::uniform_int_distribution<std::size_t> at(0, t.size() - L);
  while (v.size() < count) {
    std::string_view s = t.substr(at(rng), L);
    if (s.find('\n') == std::string_view::npos) v.emplace_back(s);
  }
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const auto usage = [&](std::FILE* to) {
      std::fprintf(to, "usage: %s TEXT [--max-len M] [--small] [--patterns FILE]... [--gen L]... "
                       "[--threads 1,2,4] [--budget S] [--max-patterns N] [--no-sdsl] [--cpu-time] [--load IDX] "
                       "[--save IDX] [--count-index auto|on|off] [--runs R [--no-locate]]\n", argv[0]);
    };
    for (int i = 1; i < argc; ++i)
      if (std::string(argv[i]) == "--help" || std::string(argv[i]) == "-h") {
        usage(stdout);
        return 0;
      }
    if (argc < 2 || argv[1][0] == '-') {
      usage(stderr);
      return 2;
    }
    const std::string text_path = argv[1];
    trawl::index::build_options bo;
    std::vector<std::string> pattern_files;
    std::vector<std::size_t> gen;
    std::vector<unsigned> threads = {1, 2, 4, 8, 16};
    double budget = 20.0;
    std::size_t max_patterns = 1000;
    bool with_sdsl = true;
    std::string load_path, save_path;
    bool cpu_time = false;
    unsigned runs = 0;  // --runs: the plain count/locate mode of peers.sh
    bool no_locate = false;
    for (int i = 2; i < argc; ++i) {
      const std::string a = argv[i];
      auto next = [&]() -> std::string {
        if (i + 1 >= argc) throw trawl::error(trawl::errc::invalid_argument, a + " needs a value");
        return argv[++i];
      };
      if (a == "--max-len") bo.max_len = static_cast<std::uint32_t>(std::stoul(next()));
      else if (a == "--small") bo.profile = trawl::index::fm_profile::small;
      else if (a == "--patterns") pattern_files.push_back(next());
      else if (a == "--gen") gen.push_back(std::stoul(next()));
      else if (a == "--budget") budget = std::stod(next());
      else if (a == "--max-patterns") max_patterns = std::stoul(next());
      else if (a == "--no-sdsl") with_sdsl = false;
      else if (a == "--count-index") bo.count_index = trawl::index::count_structure_named(next());
      else if (a == "--cpu-time") cpu_time = true;
      else if (a == "--runs") runs = static_cast<unsigned>(std::stoul(next()));
      else if (a == "--no-locate") no_locate = true;
      else if (a == "--load") load_path = next();
      else if (a == "--save") save_path = next();
      else if (a == "--threads") {
        threads.clear();
        std::stringstream ss(next());
        std::string tok;
        while (std::getline(ss, tok, ',')) threads.push_back(static_cast<unsigned>(std::stoul(tok)));
      } else throw trawl::error(trawl::errc::invalid_argument, "unknown option " + a);
    }

    auto in = trawl::io::input_buffer::open(text_path);
    const std::string_view text = in.bytes();
    const std::string tname = text_path.substr(text_path.find_last_of('/') + 1);

    // ---- build -----------------------------------------------------------------------
    const double rss0 = peak_rss_mib();
    auto t0 = clk::now();
    bo.detect_fasta = false;
    const auto ix = load_path.empty() ? trawl::index::hybrid_index::build(text, tname, bo)
                                      : trawl::index::hybrid_index::load(load_path);
    if (!save_path.empty()) ix.save(save_path);
    auto t1 = clk::now();
    const double build_rss = peak_rss_mib();
    const auto inf = ix.info();
    std::printf("## %s (n = %zu), Hybrid Index M = %u, profile %s\n\n", tname.c_str(), text.size(), bo.max_len,
                bo.profile == trawl::index::fm_profile::small ? "small" : "fast");
    std::printf("| index | build s | peak RSS MiB (process) | bytes/char peak | size bytes | bits/char | z | kept | |S''| |\n");
    std::printf("|---|---|---|---|---|---|---|---|---|\n");
    std::printf("| hybrid | %.1f | %.0f | %.1f | %llu | %.4f | %llu | %llu | %llu |\n", secs(t0, t1), build_rss,
                (build_rss - rss0) * 1048576.0 / static_cast<double>(text.size()),
                static_cast<unsigned long long>(inf.total_bytes), inf.bits_per_char(),
                static_cast<unsigned long long>(inf.z), static_cast<unsigned long long>(inf.kept),
                static_cast<unsigned long long>(inf.s2_length));
    using sdsl_fm = sdsl::csa_wt<sdsl::wt_huff<>, 32, 64>;
    sdsl_fm fm;
    if (with_sdsl && text.find('\0') != std::string_view::npos) with_sdsl = false;
    if (with_sdsl) {
      std::string copy(text);
      t0 = clk::now();
      sdsl::construct_im(fm, copy.c_str(), 1);
      t1 = clk::now();
      const double bytes = static_cast<double>(sdsl::size_in_bytes(fm));
      std::printf("| sdsl csa_wt<wt_huff<>,32,64> | %.1f | %.0f | - | %.0f | %.4f | - | - | - |\n", secs(t0, t1),
                  peak_rss_mib(), bytes, 8.0 * bytes / static_cast<double>(text.size()));
    }
    std::printf("\nparts:");
    for (const auto& [name, b] : inf.part_bytes) std::printf(" %s %llu;", name.c_str(), static_cast<unsigned long long>(b));
    std::printf("\n\n");
    std::fflush(stdout);

    // ---- pattern sets ------------------------------------------------------------------
    std::vector<pattern_set> sets;
    for (const auto& f : pattern_files) sets.push_back({f.substr(f.find_last_of('/') + 1), read_lines(f)});
    for (std::size_t L : gen) sets.push_back({"sampled L=" + std::to_string(L), sample_patterns(text, L, 1000)});
    for (auto& s : sets)
      if (s.pats.size() > max_patterns) s.pats.resize(max_patterns);

    // The FM-index's wavelet tree is built at the first query after a load or a build, and
    // count's split of the phrases at the first count: do both here, so that no column pays.
    // (A pattern three times over: its backward search runs, its answer is almost surely small.)
    t0 = clk::now();
    const std::string seed = sets.empty() || sets[0].pats.empty() ? std::string(text.substr(0, 8)) : sets[0].pats[0];
    const unsigned all = *std::max_element(threads.begin(), threads.end());
    (void)ix.locate(seed + seed + seed, {trawl::index::locate_engine::balanced, all});
    std::printf("first query, %u threads (builds the FM-index's query structure): %.2f s\n", all, secs(t0, clk::now()));
    t0 = clk::now();
    (void)ix.count(seed, {trawl::index::locate_engine::balanced, all});
    std::printf("first count, %u threads (splits the kept phrases into inner and leaves): %.2f s\n\n", all, secs(t0, clk::now()));

    if (runs > 0) {
      // peers.sh: count and serial locate only, one thread, best of `runs` passes per set
      std::printf("| patterns | # | count total | count µs/pattern | locate occ | locate µs/occ |\n|---|---|---|---|---|---|\n");
      for (const auto& s : sets) {
        std::uint64_t c = 0, occ = 0;
        double tc = 1e300, tl = 1e300;
        for (unsigned r = 0; r < runs; ++r) {
          c = 0;
          auto a = clk::now();
          for (const auto& p : s.pats) c += ix.count(p, {trawl::index::locate_engine::serial, 1});
          tc = std::min(tc, secs(a, clk::now()));
        }
        for (unsigned r = 0; !no_locate && r < runs; ++r) {
          occ = 0;
          auto a = clk::now();
          for (const auto& p : s.pats) occ += ix.locate(p, {trawl::index::locate_engine::serial, 1}).size();
          tl = std::min(tl, secs(a, clk::now()));
        }
        const double n_pat = static_cast<double>(std::max<std::size_t>(s.pats.size(), 1));
        if (no_locate)
          std::printf("| %s | %zu | %llu | %.3f | - | - |\n", s.name.c_str(), s.pats.size(),
                      static_cast<unsigned long long>(c), 1e6 * tc / n_pat);
        else
          std::printf("| %s | %zu | %llu | %.3f | %llu | %.4f |\n", s.name.c_str(), s.pats.size(),
                      static_cast<unsigned long long>(c), 1e6 * tc / n_pat, static_cast<unsigned long long>(occ),
                      1e6 * tl / static_cast<double>(std::max<std::uint64_t>(occ, 1)));
        if (!no_locate && occ != c) {
          std::fprintf(stderr, "MISMATCH %s: count %llu, locate %llu\n", s.name.c_str(),
                       static_cast<unsigned long long>(c), static_cast<unsigned long long>(occ));
          return 1;
        }
        std::fflush(stdout);
      }
      return 0;
    }
    std::printf("| patterns | # | occ | primary | hybrid serial µs/occ | µs/pattern | primaries %% of time | sdsl µs/occ | µs/pattern |");
    std::printf(" count µs/pattern | locate ÷ count |");
    for (unsigned t : threads) std::printf(" set %u× | bal %u× | st %u× |", t, t, t);
    std::printf("\n|---|---|---|---|---|---|---|---|---|---|---|");
    for (std::size_t i = 0; i < threads.size(); ++i) std::printf("---|---|---|");
    std::printf("\n");
    bool all_ok = true;
    for (auto& s : sets) {
      // serial hybrid, within the time budget (the patterns done are the set for every column)
      std::uint64_t occ = 0;
      std::size_t done = 0;
      auto a = clk::now();
      const double c0 = thread_cpu_s();
      for (const auto& p : s.pats) {
        occ += ix.locate(p, {trawl::index::locate_engine::serial, 1}).size();
        ++done;
        if (secs(a, clk::now()) > budget) break;
      }
      const double t_serial = cpu_time ? thread_cpu_s() - c0 : secs(a, clk::now());
      s.pats.resize(done);
      // the primary occurrences alone (FM-index search + SA lookups), same patterns
      std::uint64_t n_prim = 0;
      a = clk::now();
      const double c1 = thread_cpu_s();
      for (const auto& p : s.pats) n_prim += locate_primary(ix, p).size();
      const double t_prim = cpu_time ? thread_cpu_s() - c1 : secs(a, clk::now());
      double t_sdsl = 0;
      if (with_sdsl) {
        std::uint64_t occ_sdsl = 0, sink = 0;
        a = clk::now();
        for (const auto& p : s.pats) {
          sdsl_fm::size_type lb = 0, rb = 0;
          const auto c = sdsl::backward_search(fm, 0, fm.size() - 1, p.begin(), p.end(), lb, rb);
          occ_sdsl += c;
          for (auto r = lb; c > 0 && r <= rb; ++r) sink += fm[r];
        }
        t_sdsl = secs(a, clk::now());
        if (occ_sdsl != occ) {
          std::fprintf(stderr, "MISMATCH %s: hybrid %llu occurrences, sdsl %llu\n", s.name.c_str(),
                       static_cast<unsigned long long>(occ), static_cast<unsigned long long>(occ_sdsl));
          all_ok = false;
        }
        if (sink == 42) std::fprintf(stderr, " ");
      }
      const double n_occ = static_cast<double>(std::max<std::uint64_t>(occ, 1));
      const double n_pat = static_cast<double>(std::max<std::size_t>(done, 1));
      std::printf("| %s | %zu | %llu | %llu | %.3f | %.1f | %.0f | %s | %s |", s.name.c_str(), done,
                  static_cast<unsigned long long>(occ), static_cast<unsigned long long>(n_prim),
                  1e6 * t_serial / n_occ, 1e6 * t_serial / n_pat, 100.0 * t_prim / std::max(t_serial, 1e-9),
                  with_sdsl ? std::to_string(1e6 * t_sdsl / n_occ).substr(0, 6).c_str() : "-",
                  with_sdsl ? std::to_string(1e6 * t_sdsl / n_pat).substr(0, 7).c_str() : "-");
      // count, one thread, same patterns (the answer checked against locate's)
      {
        std::uint64_t c = 0;
        a = clk::now();
        for (const auto& p : s.pats) c += ix.count(p, {trawl::index::locate_engine::serial, 1});
        const double tc = secs(a, clk::now());
        if (c != occ) {
          std::fprintf(stderr, "MISMATCH %s count\n", s.name.c_str());
          all_ok = false;
        }
        std::printf(" %.1f | %.2f |", 1e6 * tc / n_pat, t_serial / std::max(tc, 1e-9));
      }
      for (unsigned t : threads) {
        // the whole set at once: patterns spread over the threads (locate_many)
        {
          a = clk::now();
          std::uint64_t o = 0;
          for (const auto& v : ix.locate_many(s.pats, {trawl::index::locate_engine::balanced, t})) o += v.size();
          const double tt = secs(a, clk::now());
          if (o != occ) {
            std::fprintf(stderr, "MISMATCH %s set, threads %u\n", s.name.c_str(), t);
            all_ok = false;
          }
          std::printf(" %.2f |", t_serial / tt);
        }
        for (auto eng : {trawl::index::locate_engine::balanced, trawl::index::locate_engine::static_chunks}) {
          std::uint64_t o = 0;
          a = clk::now();
          for (const auto& p : s.pats) o += ix.locate(p, {eng, t}).size();
          const double tt = secs(a, clk::now());
          if (o != occ) {
            std::fprintf(stderr, "MISMATCH %s threads %u\n", s.name.c_str(), t);
            all_ok = false;
          }
          std::printf(" %.2f |", t_serial / tt);
        }
      }
      std::printf("\n");
      std::fflush(stdout);
    }
    std::printf("\n(columns set: speedup of locate_many over the whole set (patterns spread over the threads); bal/st:"
                " of the balanced / static-chunk parallel locate, one pattern after another; all over the serial engine."
                " locate ÷ count: the serial locate's time over count's, one thread)\n");
    return all_ok ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trawl_index_bench: %s\n", e.what());
    return 2;
  }
}
