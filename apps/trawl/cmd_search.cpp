// cmd_search.cpp — `trawl search`: exact and approximate search of files, stdin, gzip and
// FASTA/FASTQ records, printed in the output contract (output.hpp).
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <tuple>

#include "check.hpp"
#include "commands.hpp"
#include "patterns.hpp"
#include "output.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {
namespace {

struct search_args {
  std::vector<std::string> positional;
  std::vector<std::string> expressions;
  std::vector<std::string> pattern_files;
  int k = 0;
  bool all_ends = false, align = false, hamming = false, iupac = false;
  bool ignore_case = false, both_strands = false;
  std::string algorithm = "auto";
  unsigned threads = 0;
  std::size_t slice_size = 0;
  bool count = false, quiet = false, lines = false, check = false;
  std::optional<std::int64_t> max_count;  ///< -m; 0: no hit, < 0: no limit (as grep)
  std::string format, color = "auto";
  bool fasta = false, no_fasta = false;
  std::string device = "auto";
  std::string index;
  std::size_t chunk_size = 0;
  std::string inflater = "auto";
};

/// `trawl search --index INDEX PATTERN...`: the same output as searching the indexed file.
int run_index_search(const search_args& a, const std::vector<std::string>& patterns, const search_options& so,
                     const print_options& po, writer& out, hit_printer& printer) {
  if (so.max_errors > 0 || so.all_ends || so.ignore_case || so.iupac)
    throw error(errc::invalid_argument, "--index supports exact search only (no -k, -i, --iupac)");
  if (po.format == out_format::lines) throw error(errc::invalid_argument, "--index cannot print --lines");
  const auto idx = index::hybrid_index::load(a.index);
  // Both strands: the reverse complements are searched as extra patterns, mapped back.
  std::vector<std::string> all = patterns;
  if (so.both_strands)
    for (const auto& p : patterns) all.push_back(reverse_complement(p));
  index::locate_options lo;
  lo.threads = so.threads;
  auto found = idx.search_records(all, lo);
  const auto records = idx.records();
  std::vector<std::pair<std::uint32_t, hit>> hits;
  hits.reserve(found.size());
  for (auto& rh : found) {
    hit h = rh.h;
    if (h.pattern >= patterns.size()) {
      h.pattern -= static_cast<std::uint32_t>(patterns.size());
      h.dir = strand::reverse;
    }
    hits.emplace_back(rh.record, h);
  }
  // Same order as a file search: record, then start, pattern, strand.
  std::sort(hits.begin(), hits.end(), [](const auto& x, const auto& y) {
    return std::tie(x.first, x.second.start, x.second.pattern, x.second.dir) <
           std::tie(y.first, y.second.start, y.second.pattern, y.second.dir);
  });
  std::uint64_t printed = 0;
  std::uint32_t current = ~0u;
  for (const auto& [rec, h] : hits) {
    if (a.max_count && printed >= static_cast<std::uint64_t>(*a.max_count)) break;
    if (a.quiet) return 0;
    if (rec != current) {
      if (current != ~0u) printer.end();
      current = rec;
      const bool plain = records.size() == 1 && records[0].name == idx.source_name();
      printer.begin(plain ? std::string_view(idx.source_name()) : std::string_view(records[rec].name));
      if (printer.wants_text()) printer.text(0, idx.extract(records[rec].start, records[rec].length), false);
    }
    if (!a.count) printer.print(h);
    ++printed;
  }
  if (current != ~0u) printer.end();
  if (a.count) out.put(fmt::format("{}\n", printed));
  out.flush();
  return printed > 0 ? 0 : 1;
}

/// The GPUs of --device gpu, gpu:all or gpu:0,2 (checked by the option's validator).
std::vector<int> parse_gpu_list(const std::string& device) {
  std::vector<int> out;
  const int count = gpu::device_count();
  if (device == "gpu") return {0};
  if (device == "gpu:all") {
    for (int d = 0; d < count; ++d) out.push_back(d);
    return out;
  }
  for (std::size_t at = 4; at < device.size();) {
    std::size_t end = device.find(',', at);
    if (end == std::string::npos) end = device.size();
    const std::string n = device.substr(at, end - at);
    if (n.size() > 4 || std::stoi(n) >= count)
      throw error(errc::no_device, "--device " + device + ": there is no GPU " + n + " (" + std::to_string(count) + " found)");
    out.push_back(std::stoi(n));
    at = end + 1;
  }
  return out;
}

/// What `trawl search` does with a stream search's results: print them (or count them), check
/// them with --check, and flush when the input pauses.
class search_printer final : public search_sink {
 public:
  search_printer(hit_printer& printer, writer& out, const search_args& a, const std::vector<std::string>& patterns,
                 const search_options& so, std::string display)
      : printer_(printer), out_(out), a_(a), patterns_(patterns), so_(so), display_(std::move(display)) {}

  void begin_record(const record_info& r) override {
    if (a_.lines && r.format != io::format::plain)
      throw error(errc::invalid_argument,
                  display_ + ": --lines needs plain text (FASTA/FASTQ records have no lines; add --no-fasta)");
    name_.assign(r.format == io::format::plain ? std::string_view(display_) : r.name);
    printer_.begin(name_);
  }
  [[nodiscard]] bool wants_text() const override { return printer_.wants_text() || a_.check; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override { printer_.text(pos, bytes, stable); }
  bool hits(std::span<const hit> hits) override {
    if (io::sigbus_seen()) throw error(errc::io_error, display_ + ": file shrank while being searched");
    if (a_.check)
      for (const hit& h : hits)
        if (auto why = check_hit(h, patterns_[h.pattern], printer_.held_text().at(h.start, h.end), so_); !why.empty())
          throw error(errc::invalid_argument, fmt::format("--check failed in {}: {}", name_, why));
    if (a_.quiet) return false;
    if (!a_.count)
      for (const hit& h : hits) printer_.print(h);
    return true;
  }
  void floor(std::uint64_t pos) override { printer_.floor(pos); }
  void end_record(std::uint64_t) override { printer_.end(); }
  void idle() override {
    printer_.idle();
    out_.flush();
  }

 private:
  hit_printer& printer_;
  writer& out_;
  const search_args& a_;
  const std::vector<std::string>& patterns_;
  const search_options& so_;
  std::string display_, name_;
};

int run_search(search_args& a) {
  // Patterns: -e/-f, or else the first positional argument.
  std::vector<std::string> patterns = a.expressions;
  for (const auto& f : a.pattern_files) {
    auto more = read_pattern_file(f);
    patterns.insert(patterns.end(), more.begin(), more.end());
  }
  std::vector<std::string> files = a.positional;
  if (patterns.empty()) {
    if (files.empty()) throw error(errc::invalid_argument, "no pattern given");
    patterns.push_back(files.front());
    files.erase(files.begin());
  }
  if (files.empty() && a.index.empty()) files.push_back("-");
  if (!a.index.empty() && !files.empty())
    throw error(errc::invalid_argument, "--index searches the indexed text: give patterns only, no FILE");
  if (a.k < 0) throw error(errc::invalid_argument, "-k must be >= 0");
  if (a.max_count && *a.max_count < 0) a.max_count.reset();  // grep: a negative -m is no limit
  if (a.fasta && a.no_fasta) throw error(errc::invalid_argument, "--fasta and --no-fasta exclude each other");
  const bool on_gpu = a.device.rfind("gpu", 0) == 0;
  if (on_gpu && !gpu::available())
    throw error(errc::no_device, "--device " + a.device + ": no CUDA device found (or trawl was built without CUDA)");
  gpu::gpu_options gpu_opt;
  if (on_gpu) gpu_opt.devices = parse_gpu_list(a.device);

  search_options so;
  so.max_errors = a.k;
  so.hamming = a.hamming;
  so.ignore_case = a.ignore_case;
  so.iupac = a.iupac;
  so.both_strands = a.both_strands;
  so.all_ends = a.all_ends;
  so.starts = !(a.count || a.quiet) || a.check;  // counting needs no start positions
  so.threads = a.threads;
  so.slice_size = a.slice_size;
  const bool approximate = a.k > 0 || a.all_ends;
  if (approximate) {
    check_approx_algorithm(a.algorithm);
    so.approx_algorithm = a.algorithm;
  } else if (a.algorithm != "dp" && a.algorithm.rfind("myers", 0) != 0) {
    so.exact = parse_exact_algorithm(a.algorithm);
  } else {
    check_approx_algorithm(a.algorithm);
  }
  // (-k 0 without --all-ends is exact search whatever else is asked: every occurrence. With
  // --hamming or an approximate engine named it is the same set at distance 0, so a loop over
  // k = 0, 1, 2 ... runs as it reads; the engine's name is still checked.)
  auto matcher = make_matcher(patterns, so);
  std::size_t shortest = patterns.front().size();
  for (const auto& p : patterns) shortest = std::min(shortest, p.size());

  const bool tty = isatty(1) != 0;
  print_options po;
  po.align = a.align;
  po.matching = so;
  po.color = a.color == "always" || (a.color == "auto" && tty && getenv("NO_COLOR") == nullptr);
  if (a.lines) po.format = out_format::lines;
  else if (a.format.empty()) po.format = tty ? out_format::human : out_format::tsv;
  else if (a.format == "tsv") po.format = out_format::tsv;
  else if (a.format == "json") po.format = out_format::json;
  else if (a.format == "bed") po.format = out_format::bed;
  else if (a.format == "human") po.format = out_format::human;
  else throw error(errc::invalid_argument, "unknown --format " + a.format + " (tsv, json, bed, human)");
  po.with_source = files.size() > 1;
  po.key = matcher->key();
  po.reach = matcher->lookbehind();

  writer out;
  hit_printer printer(out, po, patterns);
  if (!a.index.empty()) return run_index_search(a, patterns, so, po, out, printer);
  so.device = on_gpu ? device_kind::gpu : a.device == "cpu" ? device_kind::cpu : device_kind::automatic;
  stream_options st;
  st.format = a.fasta ? io::format::automatic : a.no_fasta ? io::format::plain : io::format::automatic;
  st.chunk_size = a.chunk_size;
  io::open_options oo;
  oo.gzip = a.inflater == "zlib" ? io::inflater::zlib : a.inflater == "isal" ? io::inflater::isal : io::inflater::automatic;
  bool any_error = false;
  std::uint64_t total = 0;
  for (const auto& file : files) {
    std::uint64_t file_hits = 0;
    const std::string display = file == "-" ? "(standard input)" : file;
    try {
      oo.name = display;
      auto input = io::source::open(file, oo);
      so.max_hits = a.quiet ? 1 : (a.max_count ? static_cast<std::uint64_t>(*a.max_count) : 0);
      if (a.max_count != 0) {  // -m 0 reads nothing
        search_printer sink(printer, out, a, patterns, so, display);
        if (choose_device(so, patterns.size(), input.expected_size()) == device_kind::gpu) {
          // A device streams each slice in its own chunks: one slice per device for a mapped
          // input, or a chunk of a stream; one thread per device and one more, so the next
          // chunk is read while the devices search.
          const std::size_t workers = std::max<std::size_t>(1, gpu_opt.devices.size());
          search_options gso = so;
          stream_options gst = st;
          gst.chunk_size = a.chunk_size != 0 ? a.chunk_size : std::size_t{256} << 20;
          gso.slice_size = input.is_mapped() ? input.mapped().size() / workers + 1 : gst.chunk_size;
          gso.threads = static_cast<unsigned>(workers + 1);
          file_hits = search_input(*gpu::make_matcher(patterns, so, gpu_opt), input, gso, gst, sink).hits;
        } else {
          file_hits = search_input(*matcher, input, so, st, sink).hits;
        }
      }
      if (io::sigbus_seen()) throw error(errc::io_error, display + ": file shrank while being searched");
      if (a.quiet && file_hits > 0) return 0;
      if (a.count) {
        if (files.size() > 1) out.put(fmt::format("{}:{}\n", display, file_hits));
        else out.put(fmt::format("{}\n", file_hits));
      }
    } catch (const error& e) {
      out.flush();
      std::fprintf(stderr, "trawl: %s\n", e.what());
      any_error = true;
    }
    total += file_hits;
  }
  out.flush();
  if (any_error) return 2;
  return total > 0 ? 0 : 1;
}

}  // namespace

void add_search_command(CLI::App& root, run_state& state) {
  auto a = std::make_shared<search_args>();
  CLI::App* cmd = root.add_subcommand("search", "Search files for exact or approximate occurrences of patterns");
  cmd->footer(
      "Output (tsv, the default when stdout is not a terminal): source, start, end, errors, strand, pattern;\n"
      "0-based half-open [start,end). FASTA/FASTQ input is detected: hits are per record, line breaks removed.\n"
      "Approximate search (-k K): edit distance <= K. One hit per cluster of consecutive end positions\n"
      "(its best end, leftmost start); --all-ends reports every end position. With K >= pattern length every\n"
      "position matches: the output is streamed, not built in memory. -k 0 is exact search (every occurrence),\n"
      "also with --hamming or an approximate --algorithm.\n"
      "Exit status: 0 if any hit, 1 if none, 2 on error.");
  cmd->add_option("pattern_and_files", a->positional, "PATTERN then FILE... ('-' = stdin; default stdin)");
  cmd->add_option("-e,--regexp", a->expressions, "a pattern (repeatable); then every positional is a FILE")
      ->allow_extra_args(false);
  cmd->add_option("-f,--file", a->pattern_files, "read patterns from FILE, one per line, blank lines skipped (or FASTA records)")
      ->allow_extra_args(false);
  cmd->add_option("-k,--max-errors", a->k, "report occurrences with at most K edit errors (default 0 = exact)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(integer_in(0, 1 << 30));
  cmd->add_flag("--all-ends", a->all_ends, "approximate: report every end position with score <= K");
  cmd->add_flag("--align", a->align, "approximate: add a CIGAR of an optimal alignment");
  cmd->add_flag("--hamming", a->hamming, "count substitutions only (no insertions/deletions)");
  cmd->add_flag("--iupac", a->iupac, "IUPAC codes in DNA patterns (N, R, Y, ...) match their base sets");
  cmd->add_flag("-i,--ignore-case", a->ignore_case, "ASCII case-insensitive");
  cmd->add_flag("--both-strands", a->both_strands, "DNA: also search the reverse complement (strand '-')");
  cmd->add_option("--algorithm", a->algorithm, "exact: bf|kmp|horspool|sunday|simd|vectorscan|kmer|auto; approximate: auto|myers|dp (or one engine: myers-word, myers-blocked, myers-simd, myers-striped, myers-filter)");
  cmd->add_option("-j,--threads", a->threads, "worker threads (default: all cores)")->check(integer_in(0, 1 << 16));
  cmd->add_option("--slice-size", a->slice_size, "bytes per parallel slice (default: automatic)")
      ->check(integer_in(0, std::int64_t{1} << 40))
      ->group("");
  cmd->add_option("--chunk-size", a->chunk_size, "new bytes per chunk of a stream (default: automatic)")
      ->check(integer_in(0, std::int64_t{1} << 40))
      ->group("");
  cmd->add_option("--inflater", a->inflater, "gzip: auto|isal|zlib")->group("")->check(CLI::IsMember({"auto", "isal", "zlib"}));
  cmd->add_flag("--check", a->check, "re-verify every hit against the text with a plain DP (slow; for audits)");
  cmd->add_flag("-c,--count", a->count, "print the number of hits per input");
  cmd->add_flag("-q,--quiet", a->quiet, "print nothing; exit 0 at the first hit");
  cmd->add_option("-m,--max-count", a->max_count, "stop after NUM hits per input (0: none, exit 1; < 0: no limit; as grep)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(integer_in(INT64_MIN, INT64_MAX));
  cmd->add_option("--format", a->format, "tsv|json|bed|human (default: human on a terminal, else tsv)");
  cmd->add_flag("-n,--lines", a->lines, "print each matching line with its line number, like grep -n");
  cmd->add_option("--color", a->color, "auto|always|never")->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--fasta", a->fasta, "treat input as FASTA/FASTQ (default: detected from the content)");
  cmd->add_flag("--no-fasta", a->no_fasta, "treat input as plain bytes even if it looks like FASTA");
  cmd->add_option("--device", a->device,
                  "auto|cpu|gpu|gpu:all|gpu:N[,N...] (auto: GPU when present and the work is large; a list spreads "
                  "the input over those GPUs, a GPU listed twice runs two workers)")
      ->check(CLI::Validator(
          [](std::string& s) -> std::string {
            if (s == "auto" || s == "cpu" || s == "gpu" || s == "gpu:all") return {};
            if (s.rfind("gpu:", 0) == 0 && s.size() > 4 && s.find_first_not_of("0123456789,", 4) == std::string::npos &&
                s.find(",,") == std::string::npos && s.back() != ',' && s[4] != ',')
              return {};
            return s + " is not auto, cpu, gpu, gpu:all or gpu:N[,N...]";
          },
          "DEVICE", "device"));
  cmd->add_option("--index", a->index, "search a Hybrid Index built by `trawl index build` (exact search)");
  cmd->callback([a, &state] { state.exit_code = run_search(*a); });
}

}  // namespace trawl::cli
