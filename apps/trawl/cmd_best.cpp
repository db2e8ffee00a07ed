// cmd_best.cpp — `trawl best X FILE`: the best approximate substring ASM(X, Y) of a file's
// bytes, printed grep-like as TSV lines `source\tstart\tend\terrors`, one per optimal
// occurrence (every distance column holds the same ASM value).
#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  bool check = false, leftmost = false, both_strands = false, no_fasta = false;
  std::string device = "cpu";
};

int run_best(const best_args& a) {
  // --no-fasta: the bytes are one text, which a .2bit's are not
  const auto input = io::input_buffer::open(a.file, a.no_fasta);
  const std::string_view bytes = input.bytes();
  best_options bo;
  bo.algorithm = parse_best_algorithm(a.algorithm);
  bo.threads = a.threads;
  try {
    bo.device = parse_device(a.device);
  } catch (const error& e) {
    throw error(e.code(), std::string("--") + e.what());
  }
  const std::string source = a.file == "-" ? "(standard input)" : input.name().empty() ? a.file : input.name();
  // FASTA/FASTQ (by the file's name, else its first lines; --no-fasta: bytes): each record's
  // sequence, coordinates in the record; the best distance is the least over the records
  io::format fmt = a.no_fasta ? io::format::plain : input.named_format();
  if (fmt == io::format::automatic) fmt = io::detect_format(bytes);
  const auto each_sequence = [&](auto&& f) {
    if (fmt == io::format::plain) return f(std::string_view(source), bytes);
    io::record_reader rr(bytes, fmt, source);
    io::record r;
    while (rr.next(r)) f(r.name, r.sequence);
  };
  // the pattern, and its reverse complement with --both-strands
  std::vector<std::pair<std::string, char>> strands = {{a.pattern, '+'}};
  if (a.both_strands) strands.emplace_back(reverse_complement(a.pattern), '-');
  // pass 1: each sequence and strand searched once; the results that may reach the least
  // distance are kept (results[sequence * strands + strand]), the others dropped as it falls
  std::uint32_t least = ~std::uint32_t{0};
  std::vector<std::optional<best_result>> results;
  each_sequence([&](std::string_view, std::string_view y) {
    for (const auto& strand : strands) {
      best_result r = best_substring(strand.first, y, bo);
      if (r.distance < least) {
        least = r.distance;
        for (auto& kept : results) kept.reset();
      }
      if (r.distance == least) results.emplace_back(std::move(r));
      else results.emplace_back();
    }
  });
  writer out;
  fmt::memory_buffer line;
  // pass 2: the optimal substrings of the sequences that reach it (their bytes read again),
  // record by record, each strand's by end then start
  std::size_t at = 0;
  each_sequence([&](std::string_view name, std::string_view y) {
    for (const auto& strand : strands) {
      const std::optional<best_result>& kept = results[at++];
      if (!kept) continue;
      const best_result& r = *kept;
      const std::string& x = strand.first;  // (not a structured binding: the lambda below reads it)
      const char dir = strand.second;
      auto print = [&](const hit& h) {
        if (a.check) {
          const auto sub = y.substr(h.start, h.end - h.start);
          if (cigar_errors(align_cigar(x, sub)) != h.errors)
            throw error(errc::invalid_argument, fmt::format("--check failed in {} at [{}, {})", name, h.start, h.end));
        }
        line.clear();
        fmt::format_to(std::back_inserter(line), "{}\t{}\t{}\t{}", name, h.start, h.end, h.errors);
        if (a.both_strands) fmt::format_to(std::back_inserter(line), "\t{}", dir);
        line.push_back('\n');
        out.put(std::string_view(line.data(), line.size()));
        return true;
      };
      // every optimal substring is streamed from the optimal ends (|X| + 1 per end at most)
      if (a.leftmost) {
        for (const hit& h : r.occurrences) print(h);
      } else {
        for_each_optimal_substring(x, y, r, print);
      }
    }
  });
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
      "A FASTA/FASTQ file (by its name, else its first lines, as search reads it) is searched record by\n"
      "record: SOURCE is the record, START and END offsets in its sequence, and the distance the least over\n"
      "the records; any other file is one sequence (line breaks are bytes). --both-strands adds the reverse\n"
      "complement of X and a STRAND column. Exit 0 on success, 2 on error.");
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
  cmd->add_flag("--both-strands", args->both_strands, "also X's reverse complement (DNA); adds a strand column");
  cmd->add_flag("--no-fasta", args->no_fasta, "the file's bytes as one sequence even if it is FASTA/FASTQ");
  cmd->add_option("--device", args->device,
                  "cpu|gpu|gpu:N (the GPU runs the same engines; |X| <= 1024 for wavefront; auto: cpu)")
      ->capture_default_str();
  cmd->callback([args, &state] { state.exit_code = run_best(*args); });
}

}  // namespace trawl::cli
