// cmd_best.cpp — `trawl best X FILE`: the best approximate substring ASM(X, Y) of a file's
// bytes, printed grep-like as TSV lines `source\tstart\tend\terrors`, one per optimal
// occurrence (every distance column holds the same ASM value).
#include <fmt/format.h>

#include <cstdio>
#include <string>

#include "commands.hpp"
#include "output.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/io.hpp"

namespace trawl::cli {
namespace {

struct best_args {
  std::string pattern, file;
  std::string algorithm = "auto";
  unsigned threads = 0;
  bool check = false, leftmost = false;
  std::string device = "cpu";
};

int run_best(const best_args& a) {
  const auto input = io::input_buffer::open(a.file);
  const std::string_view y = input.bytes();
  best_options bo;
  bo.algorithm = parse_best_algorithm(a.algorithm);
  bo.threads = a.threads;
  try {
    bo.device = parse_device(a.device);
  } catch (const error& e) {
    throw error(e.code(), std::string("--") + e.what());
  }
  const best_result r = best_substring(a.pattern, y, bo);
  const std::string source = a.file == "-" ? "(standard input)" : input.name().empty() ? a.file : input.name();
  writer out;
  fmt::memory_buffer line;
  auto print = [&](const hit& h) {
    if (a.check) {
      const auto sub = y.substr(h.start, h.end - h.start);
      if (cigar_errors(align_cigar(a.pattern, sub)) != h.errors)
        throw error(errc::invalid_argument, fmt::format("--check failed at [{}, {})", h.start, h.end));
    }
    line.clear();
    fmt::format_to(std::back_inserter(line), "{}\t{}\t{}\t{}\n", source, h.start, h.end, h.errors);
    out.put(std::string_view(line.data(), line.size()));
    return true;
  };
  // Every optimal substring is streamed from the optimal ends (there can be |X| + 1 per end).
  if (a.leftmost) {
    for (const hit& h : r.occurrences) print(h);
  } else {
    for_each_optimal_substring(a.pattern, y, r, print);
  }
  out.flush();
  return 0;
}

}  // namespace

void add_best_command(CLI::App& root, run_state& state) {
  auto args = std::make_shared<best_args>();
  CLI::App* cmd = root.add_subcommand(
      "best",
      "Best approximate substring: the smallest edit distance between X and any substring of FILE,\n"
      "and every substring that reaches it. Output, one line per optimal substring, by end then start:\n"
      "  SOURCE<TAB>START<TAB>END<TAB>ERRORS\n"
      "with [START, END) 0-based half-open byte offsets in FILE (START = END: the empty substring, optimal\n"
      "when no byte of X can be matched) and ERRORS = the distance. --leftmost: one line per optimal end,\n"
      "its leftmost start.\n"
      "The whole file is one sequence (line breaks are bytes). Exit 0 on success, 2 on error.");
  cmd->add_option("X", args->pattern, "the pattern (any bytes but NUL, up to the file's length)")->required();
  cmd->add_option("FILE", args->file, "the text: a file, gzip file, or - for standard input")->required();
  cmd->add_option("--algorithm", args->algorithm,
                  "myers (blocked bit-vector, fast), wavefront (anti-diagonal DP, O(|X|·|Y|)), auto (= myers)")
      ->check(CLI::IsMember({"auto", "myers", "wavefront"}))
      ->capture_default_str();
  cmd->add_option("-j,--threads", args->threads, "worker threads (0 = all cores)")
      ->capture_default_str()
      ->check(integer_in(0, 1 << 16));
  cmd->add_flag("--leftmost", args->leftmost, "one line per optimal end position: its leftmost start only");
  cmd->add_flag("--check", args->check, "re-verify every occurrence with an independent alignment");
  cmd->add_option("--device", args->device,
                  "cpu|gpu|gpu:N (the GPU runs the same engines; |X| <= 1024 for wavefront; auto: cpu)")
      ->capture_default_str();
  cmd->callback([args, &state] { state.exit_code = run_best(*args); });
}

}  // namespace trawl::cli
