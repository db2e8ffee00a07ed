// cmd_search.cpp — `trawl search`: exact and approximate search of files, stdin, gzip and
// FASTA/FASTQ records, printed in the output contract (output.hpp).
#include <fmt/format.h>
#include <fnmatch.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <optional>
#include <tuple>

#include "check.hpp"
#include "commands.hpp"
#include "mpi.hpp"
#include "devices.hpp"
#include "lines.hpp"
#include "patterns.hpp"
#include "output.hpp"
#include "records_out.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"
#include "trawl/detail/sigbus.hpp"

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
  bool count = false, count_matches = false, quiet = false, lines = false, byte_offset = false, check = false;
  bool only_matching = false, invert = false, words = false, whole_lines = false;
  bool pattern_names = false, matched = false;
  bool regex = false, fixed = false;
  bool files_with_matches = false, files_without_match = false;
  bool with_filename = false, no_filename = false, no_messages = false, null = false, recursive = false;
  /// -r's walk: hidden entries (and .git) only with --hidden; grep's --include, --exclude,
  /// --exclude-dir and ripgrep's -g/--glob ('!' excludes)
  bool hidden = false;
  std::vector<std::string> include, exclude, exclude_dir, glob;
  std::optional<std::size_t> after, before, context;
  std::optional<std::int64_t> max_count;  ///< -m; 0: no hit, < 0: no limit (as grep)
  std::string format, color = "auto";
  bool fasta = false, no_fasta = false;
  bool hits = false;  // --hits: the hits table on plain text too
  bool records = false;  // --records: FASTA/FASTQ records printed whole
  std::size_t line_width = 60;
  bool no_progress = false;
  bool text = false;  // -a
  std::string binary_files = "binary";
  std::string device = "auto";
  bool verbose = false;
  std::string index;
  std::size_t chunk_size = 0;
  std::string inflater = "auto";
};

/// `trawl search --index INDEX PATTERN...`: the same output as searching the indexed file.
int run_index_search(const search_args& a, const std::vector<std::string>& patterns, const search_options& so,
                     std::future<device_choice>& starting, writer& out, hit_printer& printer) {
  using clock = std::chrono::steady_clock;
  const auto t0 = clock::now();
  const auto idx = index::hybrid_index::load(a.index);  // while the device starts
  const device_choice device = starting.get();
  const auto t1 = clock::now();
  // -q, -c and --count-matches of an exact search need only the number of hits: the index
  // counts them (per pattern, inside one record each) without listing them
  const bool exact = so.max_errors == 0 && !so.all_ends && !so.ignore_case && !so.iupac;
  if (exact && (a.quiet || a.count || a.count_matches)) {
    std::vector<std::string> all = patterns;
    if (so.both_strands)
      for (const auto& p : patterns) all.push_back(reverse_complement(p));
    index::locate_options lo;
    lo.threads = so.threads;
    lo.processes = mpi::processes();
    std::uint64_t hits = 0;
    for (const std::uint64_t c : idx.count_records(all, lo)) hits += c;
    if (a.max_count) hits = std::min(hits, static_cast<std::uint64_t>(*a.max_count));
    if (a.quiet) return hits > 0 ? 0 : 1;
    out.put(fmt::format("{}\n", hits));
    out.flush();
    return hits > 0 ? 0 : 1;
  }
  // hits in a search's order: record, then start (exact) or end (approximate), pattern, strand
  const auto records = idx.records();
  std::uint64_t printed = 0, found = 0;
  std::uint32_t current = ~0u;
  // -q stops at the first hit, -m at its number (-m 0: none)
  const bool limited = a.quiet || a.max_count.has_value();
  const std::uint64_t limit = a.quiet ? 1 : a.max_count ? static_cast<std::uint64_t>(*a.max_count) : 0;
  const auto emit = [&](const index::record_hit& rh) {  // false: the limit is reached
    if (limited && printed >= limit) return false;
    ++printed;
    if (a.quiet || a.count_matches || a.count) return true;
    if (rh.record != current) {
      if (current != ~0u) printer.end();
      current = rh.record;
      const bool plain = records.size() == 1 && records[0].name == idx.source_name();
      printer.begin(plain ? std::string_view(idx.source_name()) : std::string_view(records[rh.record].name));
      if (printer.wants_text()) printer.text(0, idx.extract(records[rh.record].start, records[rh.record].length), false);
    }
    printer.print(rh.h);
    return true;
  };
  device_spec ran_on{device_kind::cpu};
  if (exact && (mpi::processes() == nullptr || mpi::processes()->size() <= 1)) {
    // located and printed a batch at a time, up to the limit: no list of every hit
    found = idx.for_each_search_hit(patterns, so, [&](std::span<const index::record_hit> batch) {
      for (const auto& rh : batch)
        if (!emit(rh)) return false;
      return true;
    });
  } else {
    search_options through = so;
    through.max_hits = 0;
    through.device = device.spec;
    through.processes = mpi::processes();
    const std::vector<index::record_hit> hits = idx.search_records(patterns, through, {}, &ran_on);
    found = hits.size();
    for (const auto& rh : hits)
      if (!emit(rh)) break;
  }
  if (a.verbose && mpi::rank() == 0) {
    const auto inf = idx.info();
    const auto secs = [](clock::duration d) { return std::chrono::duration<double>(d).count(); };
    fmt::print(stderr,
               "trawl: {}: {} bytes in {} record{}, kernel S'' {} bytes ({:.1f} %); loaded in {:.2f} s, "
               "searched in {:.2f} s ({} hits{}, {})\n",
               a.index, inf.n, records.size(), records.size() == 1 ? "" : "s", inf.s2_length,
               inf.n ? 100.0 * static_cast<double>(inf.s2_length) / static_cast<double>(inf.n) : 0.0, secs(t1 - t0),
               secs(clock::now() - t1), found, limited && printed >= limit ? " or more" : "",
               ran_on.kind == device_kind::gpu ? fmt::format("kernel scanned on GPU {}", fmt::join(ran_on.workers(), ","))
                                               : std::string("CPU"));
  }
  if (a.quiet) return printed > 0 ? 0 : 1;
  if (current != ~0u) printer.end();
  if (a.count || a.count_matches) out.put(fmt::format("{}\n", printed));
  out.flush();
  return printed > 0 ? 0 : 1;
}

/// What `trawl search` does with a stream search's results: print them (or count them), check
/// them with --check, and flush when the input pauses.
class search_printer final : public search_sink {
 public:
  /// `limit`: print at most this many hits, then stop the search (0: options.max_hits does).
  search_printer(hit_printer& printer, writer& out, const search_args& a, const std::vector<std::string>& patterns,
                 const search_options& so, std::string display, std::uint64_t limit = 0)
      : printer_(printer), out_(out), a_(a), patterns_(patterns), so_(so), display_(std::move(display)), limit_(limit) {}

  void begin_record(const record_info& r) override {
    name_.assign(r.format == io::format::plain ? std::string_view(display_) : r.name);
    printer_.begin(name_, display_);
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
    if (limit_ != 0 && hits.size() >= limit_ - printed_) hits = hits.first(limit_ - printed_);
    printed_ += hits.size();
    if (!a_.count_matches && !a_.files_with_matches && !a_.files_without_match)
      for (const hit& h : hits) printer_.print(h);
    return limit_ == 0 || printed_ < limit_;
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
  std::uint64_t limit_ = 0, printed_ = 0;
};

/// grep's view where it fits: the matching lines of plain text (`lines`), the hits table of
/// FASTA/FASTQ records (`hits`), chosen by the input's format at its first record.
class lines_or_hits final : public search_sink {
 public:
  lines_or_hits(search_sink& lines, search_sink& hits) : lines_(lines), hits_(hits) {}
  void begin_record(const record_info& r) override {
    if (chosen_ == nullptr) chosen_ = r.format == io::format::plain ? &lines_ : &hits_;
    chosen_->begin_record(r);
  }
  [[nodiscard]] bool wants_text() const override { return lines_.wants_text() || hits_.wants_text(); }
  [[nodiscard]] bool wants_heads() const override { return hits_.wants_heads(); }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override {
    if (chosen_->wants_text()) chosen_->text(pos, bytes, stable);
  }
  bool hits(std::span<const hit> hits) override { return chosen_->hits(hits); }
  void floor(std::uint64_t pos) override { chosen_->floor(pos); }
  void end_record(std::uint64_t length) override { chosen_->end_record(length); }
  void idle() override {
    if (chosen_ != nullptr) chosen_->idle();
  }
  /// The matching lines were printed (a plain input).
  [[nodiscard]] bool chose_lines() const { return chosen_ == &lines_; }

 private:
  search_sink& lines_;
  search_sink& hits_;
  search_sink* chosen_ = nullptr;
};

/// --fasta and --records: `inner`, for inputs that are FASTA or FASTQ; plain text is an error
/// (`why`: the option that asks for records).
class records_only final : public search_sink {
 public:
  records_only(search_sink& inner, std::string display, const char* why)
      : inner_(inner), display_(std::move(display)), why_(why) {}
  void begin_record(const record_info& r) override {
    if (r.format == io::format::plain)
      throw error(errc::bad_format, display_ + ": not FASTA or FASTQ (" + why_ + "; its name and first lines say plain text)");
    inner_.begin_record(r);
  }
  [[nodiscard]] bool wants_text() const override { return inner_.wants_text(); }
  [[nodiscard]] bool wants_heads() const override { return inner_.wants_heads(); }
  [[nodiscard]] bool wants_line_breaks() const override { return inner_.wants_line_breaks(); }
  [[nodiscard]] bool counts_line_breaks() const override { return inner_.counts_line_breaks(); }
  [[nodiscard]] bool settles_lines() const override { return inner_.settles_lines(); }
  void line_breaks(std::span<const std::uint64_t> ends, std::uint64_t count, std::uint64_t last,
                   std::uint64_t settled) override {
    inner_.line_breaks(ends, count, last, settled);
  }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override { inner_.text(pos, bytes, stable); }
  bool hits(std::span<const hit> hits) override { return inner_.hits(hits); }
  void floor(std::uint64_t pos) override { inner_.floor(pos); }
  void end_record(std::uint64_t length) override { inner_.end_record(length); }
  void idle() override { inner_.idle(); }

 private:
  search_sink& inner_;
  std::string display_;
  std::string why_;
};

/// The inputs named on the command line; -r expands directories (sorted, symbolic links
/// inside them not followed), with no name it searches the working directory.
/// Which entries -r's walk takes: the files and folders below a directory named on the command
/// line (those named there are always taken).
struct walk_filter {
  bool hidden = false;
  std::vector<std::string> include, exclude, exclude_dir, glob;

  /// `rel`: the entry's path below the directory walked; `name`: its last component.
  [[nodiscard]] bool takes(const std::string& rel, const std::string& name, bool dir) const {
    if (!hidden && !name.empty() && name[0] == '.') return false;
    const auto any = [&](const std::vector<std::string>& globs, const std::string& s) {
      return std::any_of(globs.begin(), globs.end(), [&](const std::string& g) { return fnmatch(g.c_str(), s.c_str(), 0) == 0; });
    };
    if (dir && any(exclude_dir, name)) return false;
    if (!dir && (any(exclude, name) || (!include.empty() && !any(include, name)))) return false;
    // -g: a glob with a '/' matches the path below the walked directory, others the name; the
    // last glob that matches decides, '!' excluding; files must match a positive one if any
    bool positive = false, decided = false, taken = true;
    for (const std::string& g : glob) {
      const bool negated = !g.empty() && g[0] == '!';
      const std::string pat = negated ? g.substr(1) : g;
      positive |= !negated;
      const std::string& subject = pat.find('/') != std::string::npos ? rel : name;
      if (fnmatch(pat.c_str(), subject.c_str(), 0) == 0) decided = true, taken = !negated;
    }
    if (decided) return taken;  // a folder is walked unless a '!' glob names it
    return dir || !positive;
  }
};

std::vector<std::string> expand_inputs(std::vector<std::string> names, bool recursive, const walk_filter& filter) {
  namespace fs = std::filesystem;
  if (names.empty()) {
    if (!recursive) return {"-"};
    std::vector<std::string> out;
    for (std::string& n : expand_inputs({"."}, true, filter)) out.push_back(n.rfind("./", 0) == 0 ? n.substr(2) : n);
    return out;
  }
  if (!recursive) return names;
  std::vector<std::string> out;
  for (const std::string& n : names) {
    std::error_code ec;
    if (n == "-" || !fs::is_directory(n, ec)) {
      out.push_back(n);
      continue;
    }
    std::vector<std::string> found;
    // the walk's paths are n's followed by '/' (when n does not end with one) and the path below
    const std::size_t below = n.size() + (n.back() == '/' ? 0 : 1);
    fs::recursive_directory_iterator it(n, fs::directory_options::skip_permission_denied, ec), end;
    for (; !ec && it != end; it.increment(ec)) {
      const bool dir = it->is_directory(ec);
      const std::string path = it->path().string();
      if (!filter.takes(path.substr(std::min(below, path.size())), it->path().filename().string(), dir)) {
        if (dir) it.disable_recursion_pending();
        continue;
      }
      if (!dir && it->is_regular_file(ec)) found.push_back(it->path().string());
    }
    if (ec) throw error(errc::io_error, n + ": " + ec.message());
    std::sort(found.begin(), found.end());
    out.insert(out.end(), found.begin(), found.end());
  }
  return out;
}

/// Options that cannot go together are an error, never one of them silently dropped.
void check_combinations(const search_args& a, bool line_view) {
  auto refuse = [](bool bad, const char* why) {
    if (bad) throw error(errc::invalid_argument, why);
  };
  const bool context = a.after || a.before || a.context;
  const bool listing = a.files_with_matches || a.files_without_match;
  refuse(a.files_with_matches && a.files_without_match, "-l and -L exclude each other");
  refuse(a.count && a.count_matches, "-c counts matching lines, --count-matches hits: pick one");
  refuse(listing && (a.count || a.count_matches), "-l/-L list files: they do not combine with -c/--count-matches");
  refuse((a.count || a.count_matches || listing) && (a.lines || a.byte_offset || a.only_matching || context),
         "-c, --count-matches, -l and -L print no lines: drop -n, -b, -o and -A/-B/-C");
  refuse(a.only_matching && a.invert, "-o prints matched text, -v lines without a match: pick one");
  refuse(a.only_matching && context, "-o does not combine with context lines (-A/-B/-C)");
  refuse(a.count_matches && a.invert, "--count-matches counts hits: it does not combine with -v");
  refuse(a.with_filename && a.no_filename, "-H and -I exclude each other");
  refuse((a.words || a.whole_lines) && (a.k > 0 || a.all_ends), "-w and -x need exact search (no -k, no --all-ends)");
  refuse(line_view && !a.format.empty(), "--format sets the hit output: it does not combine with -n, -o, -v, -c or context lines");
  refuse(line_view && a.align, "--align adds a CIGAR to hit output: it does not combine with -n, -o, -v, -c or context lines");
  refuse((line_view || a.count_matches || listing) && (a.pattern_names || a.matched),
         "--pattern-names and --matched add to hit output: they do not combine with -n, -o, -v, -c, -l, -L");
  refuse(a.matched && a.format == "bed", "--matched does not fit BED6 (use tsv or json)");
  refuse(line_view && a.check, "--check audits hit output: it does not combine with -n, -o, -v, -c or context lines");
  refuse(a.regex && a.fixed, "-E takes regular expressions, -F literal strings: pick one");
  refuse(a.regex && (a.k > 0 || a.all_ends || a.hamming || a.iupac || a.both_strands),
         "-E matches regular expressions exactly: it does not combine with -k, --all-ends, --hamming, --iupac, --both-strands");
  refuse(a.regex && (a.align || a.check), "-E does not combine with --align or --check");
  refuse(a.regex && a.algorithm != "auto", "-E picks its own engines (Vectorscan and PCRE2): drop --algorithm");
  refuse(a.regex && a.words && a.whole_lines, "-E with -w and -x: pick one");
  refuse(a.regex && !a.index.empty(), "--index searches literal patterns: it does not combine with -E");
  refuse(!a.index.empty() && a.count, "--index counts hits (--count-matches), not lines");
  refuse(a.hits && line_view && !a.count && !(a.invert && (a.files_with_matches || a.files_without_match || a.quiet)),
         "--hits prints the hits table: it does not combine with -n, -o, -v or context lines");
  refuse(a.records && (a.count || a.count_matches || listing || a.quiet || a.lines || a.byte_offset || a.only_matching ||
                      context || a.hits || !a.format.empty() || a.align || a.pattern_names || a.matched || a.check),
         "--records prints whole records: it does not combine with -c, --count-matches, -l, -L, -q, -n, -b, -o, "
         "context lines, --hits, --format, --align, --pattern-names, --matched or --check");
  refuse(a.records && a.no_fasta, "--records prints FASTA/FASTQ records: it does not combine with --no-fasta");
  refuse((a.records || (a.invert && a.fasta)) && a.with_filename,
         "--records prints records as they are, with no file name: it does not combine with -H");
  refuse(!a.index.empty() && (line_view || listing || a.words || a.whole_lines || a.invert || a.records),
         "--index prints hits and counts only (no -n, -o, -v, -l, -L, -w, -x, context lines)");
}

int run_search(search_args& a) {
  // Patterns: -e/-f, or else the first positional argument.
  std::vector<std::string> patterns = a.expressions, labels = a.expressions;
  for (const auto& f : a.pattern_files) read_pattern_file(f, patterns, labels);
  std::vector<std::string> names = a.positional;
  if (patterns.empty() && !a.pattern_files.empty())
    throw error(errc::invalid_argument, "no pattern given: " + a.pattern_files.front() + " holds none");
  if (patterns.empty()) {
    if (names.empty()) throw error(errc::invalid_argument, "no pattern given");
    patterns.push_back(names.front());
    labels.push_back(names.front());
    names.erase(names.begin());
  }
  if (!a.index.empty() && !names.empty())
    throw error(errc::invalid_argument, "--index searches the indexed text: give patterns only, no FILE");
  if (a.k < 0) throw error(errc::invalid_argument, "-k must be >= 0");
  if (a.max_count && *a.max_count < 0) a.max_count.reset();  // grep: a negative -m is no limit
  if (a.fasta && a.no_fasta) throw error(errc::invalid_argument, "--fasta and --no-fasta exclude each other");
  const bool context = a.after || a.before || a.context;
  const bool listing = a.files_with_matches || a.files_without_match;
  // Lines printed (grep's view): -n, -o, context, or -v alone. Lines counted: -c, or -v with
  // -l/-L/-q (a line without a hit is not a hit).
  const bool line_options_given = a.lines || a.byte_offset || a.only_matching || context;
  const bool print_lines = line_options_given || (a.invert && !a.count && !listing && !a.quiet);
  const bool line_view = print_lines || a.count || (a.invert && (listing || a.quiet));
  // -v alone prints the lines of plain text without a hit and the records of FASTA/FASTQ
  // without one (as --records -v)
  const bool invert_only = print_lines && !line_options_given;
  // Otherwise grep's lines on plain text and the hits table on FASTA/FASTQ, unless the hits
  // table is asked for (--hits, --format, or an option that adds to it) or nothing is printed.
  const bool lines_by_default = !line_view && !a.records && !listing && !a.quiet && !a.count_matches && !a.hits &&
                                a.format.empty() && !a.align && !a.pattern_names && !a.matched && !a.check &&
                                a.index.empty();
  check_combinations(a, print_lines || a.count || a.invert);
  const walk_filter walk{a.hidden, a.include, a.exclude, a.exclude_dir, a.glob};
  const std::vector<std::string> files = a.index.empty() ? expand_inputs(names, a.recursive, walk) : names;
  auto starting = start_device(a.device, a.verbose);

  search_options so;
  so.max_errors = a.k;
  so.hamming = a.hamming;
  so.ignore_case = a.ignore_case;
  so.iupac = a.iupac;
  so.both_strands = a.both_strands;
  so.all_ends = a.all_ends;
  so.whole_words = a.words;
  so.whole_lines = a.whole_lines;
  so.regex = a.regex;
  // counting hits, or a yes/no answer, needs no start positions; lines do
  so.starts = line_view || !(a.count_matches || a.quiet || listing) || a.check;
  so.threads = a.threads;
  so.slice_size = a.slice_size;
  const bool approximate = a.k > 0 || a.all_ends;
  set_algorithm(so, a.algorithm);
  auto matcher = make_matcher(patterns, so);

  const bool tty = isatty(1) != 0 && !mpi::launched();
  const bool color = a.color == "always" || (a.color == "auto" && tty && getenv("NO_COLOR") == nullptr);
  print_options po;
  po.align = a.align;
  po.matching = so.rules();
  po.color = color;
  po.names = a.pattern_names ? &labels : nullptr;
  po.matched = a.matched;
  if (a.format.empty()) po.format = tty ? out_format::human : out_format::tsv;
  else if (a.format == "tsv") po.format = out_format::tsv;
  else if (a.format == "json") po.format = out_format::json;
  else if (a.format == "bed") po.format = out_format::bed;
  else if (a.format == "human") po.format = out_format::human;
  else throw error(errc::invalid_argument, "unknown --format " + a.format + " (tsv, json, bed, human)");
  const bool with_source = a.with_filename || (!a.no_filename && (files.size() > 1 || a.recursive));
  // hits of several files (or -H) say which file each comes from, FASTA/FASTQ records too
  po.file_column = with_source && a.index.empty();

  writer out;
  hit_printer printer(out, po, patterns);
  if (!a.index.empty()) return run_index_search(a, patterns, so, starting, out, printer);
  const device_choice device = starting.get();

  // lines only counted (-c, -l, -L, -q) go to the line counter, which never reads the text
  const bool count_lines = line_view && !print_lines;
  line_options lo;
  lo.numbers = a.lines;
  lo.byte_offsets = a.byte_offset;
  lo.only_matching = a.only_matching;
  lo.invert = a.invert;
  lo.before = a.before ? *a.before : a.context ? *a.context : 0;
  lo.after = a.after ? *a.after : a.context ? *a.context : 0;
  lo.context = context;
  lo.with_source = with_source;
  lo.null = a.null;
  lo.color = color;
  if (a.max_count) lo.max_lines = static_cast<std::uint64_t>(*a.max_count);
  // a regular expression matches within a line
  lo.newline_free = a.regex || (!approximate && std::none_of(patterns.begin(), patterns.end(), [](const std::string& p) {
                                return p.find('\n') != std::string::npos;
                              }));
  if (listing || a.quiet) lo.max_lines = 1;
  lo.binary = a.text || a.binary_files == "text" ? binary_files::text
              : a.binary_files == "without-match" ? binary_files::without_match
                                                  : binary_files::binary;
  line_state ls;
  record_print_options ro;
  ro.invert = a.invert;
  ro.line_width = a.line_width;
  if (a.max_count) ro.max_records = static_cast<std::uint64_t>(*a.max_count);

  stream_options st;
  st.format = a.no_fasta ? io::format::plain : io::format::automatic;
  st.chunk_size = a.chunk_size;
  io::open_options oo;
  oo.gzip = a.inflater == "zlib" ? io::inflater::zlib : a.inflater == "isal" ? io::inflater::isal : io::inflater::automatic;
  const std::string_view source_end = a.null ? std::string_view("\0", 1) : std::string_view(":");
  bool any_error = false;
  std::uint64_t total = 0;
  for (const auto& file : files) {
    std::uint64_t found = 0;  // hits, or selected lines / records in the line view
    const std::string display = file == "-" ? "(standard input)" : file;
    try {
      if (file != "-" && std::filesystem::is_directory(file))
        throw error(errc::invalid_argument, display + ": is a directory (-r searches it)");
      oo.name = display;
      auto input = io::source::open(file, oo);
      // hit output stops at -m hits; the line view counts lines itself
      // (lines or hits, by the input's format: the hit view stops itself at -m hits)
      const std::uint64_t m = a.max_count ? static_cast<std::uint64_t>(*a.max_count) : 0;
      so.max_hits = line_view || lines_by_default || a.records ? 0 : a.quiet || listing ? 1 : m;
      if (a.max_count != 0) {  // -m 0 reads nothing
        search_printer hit_sink(printer, out, a, patterns, so, display, lines_by_default ? m : 0);
        line_sink line_sink(out, lo, ls, display);
        line_counter counter(lo);
        search_sink& line_view_sink = count_lines ? static_cast<search_sink&>(counter) : line_sink;
        lines_or_hits by_format(line_sink, hit_sink);
        record_printer record_sink(out, ro);
        lines_or_hits lines_or_records(line_sink, record_sink);
        records_only only_records(record_sink, display, "--records");
        search_sink& viewed = a.records          ? static_cast<search_sink&>(only_records)
                              : invert_only      ? static_cast<search_sink&>(lines_or_records)
                              : line_view        ? line_view_sink
                              : lines_by_default ? static_cast<search_sink&>(by_format)
                                                 : hit_sink;
        records_only checked(viewed, display, "--fasta");
        search_sink& sink = a.fasta ? static_cast<search_sink&>(checked) : viewed;
        progress_line progress(progress_wanted(a.no_progress), display, input.expected_size());
        found = search_on_device(*matcher, patterns, input, so, st, device, sink, &progress).hits;
        if (a.records || (invert_only && !lines_or_records.chose_lines())) found = record_sink.selected();
        else if (count_lines) found = counter.selected();
        else if (line_view || by_format.chose_lines()) found = line_sink.selected();
      }
      if (io::sigbus_seen()) throw error(errc::io_error, display + ": file shrank while being searched");
      if (a.quiet && found > 0) return 0;
      if (a.count || a.count_matches) {
        if (with_source) out.put(fmt::format("{}{}{}\n", display, source_end, found));
        else out.put(fmt::format("{}\n", found));
      }
      if (a.files_with_matches && found > 0) out.put(fmt::format("{}{}", display, a.null ? '\0' : '\n'));
      if (a.files_without_match && found == 0) out.put(fmt::format("{}{}", display, a.null ? '\0' : '\n'));
    } catch (const error& e) {
      out.flush();
      mpi::error_line(std::string("trawl: ") + e.what(), !a.no_messages);
      any_error = true;
    }
    total += a.files_without_match ? (found == 0 ? 1 : 0) : found;
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
  cmd->add_flag("-E,--regex", a->regex,
                "patterns are regular expressions (PCRE2 syntax, bytes), matched within lines of at most 256 KiB: "
                "each pattern's leftmost-first matches, left to right, as rg -o");
  cmd->add_flag("-F,--fixed-strings", a->fixed, "patterns are literal strings (the default)");
  cmd->add_flag("--iupac", a->iupac, "IUPAC codes in DNA patterns (N, R, Y, ...) match their base sets");
  cmd->add_flag("-i,--ignore-case", a->ignore_case, "ASCII case-insensitive");
  cmd->add_flag("--both-strands", a->both_strands, "DNA: also search the reverse complement (strand '-')");
  cmd->add_option("--algorithm", a->algorithm, "exact: bf|kmp|horspool|sunday|simd|vectorscan|kmer|teddy|aho|auto; approximate: auto|myers|dp (or one engine: myers-word, myers-blocked, myers-simd, myers-striped, myers-filter, myers-suffix, myers-seeds)");
  cmd->add_option("-j,--threads", a->threads, "worker threads (default: all cores)")->check(integer_in(0, 1 << 16));
  cmd->add_option("--slice-size", a->slice_size,
                  "bytes per parallel slice, K/M/G: KiB/MiB/GiB (default: automatic; at least 1/65536 of a chunk)")
      ->transform(bytes_in(0, std::int64_t{1} << 40))
      ->group("Tuning");
  cmd->add_option("--chunk-size", a->chunk_size,
                  "new bytes per chunk of a stream, K/M/G: KiB/MiB/GiB, at most 1 GiB: about two a thread are held at "
                  "once (default: automatic)")
      ->transform(bytes_in(0, std::int64_t{1} << 30))
      ->group("Tuning");
  cmd->add_option("--inflater", a->inflater, "gzip: auto|isal|zlib")->group("Tuning")->check(CLI::IsMember({"auto", "isal", "zlib"}));
  cmd->add_flag("--pattern-names", a->pattern_names,
                "the pattern column shows each pattern's name: its FASTA record id with -f FASTA");
  cmd->add_flag("--matched", a->matched, "add the matched text as the last column (json: \"matched\")");
  cmd->add_flag("--check", a->check, "re-verify every hit against the text with a plain DP (slow; for audits)");
  cmd->add_flag("-c,--count", a->count, "print the number of matching lines per input (records for FASTA/FASTQ)");
  cmd->add_flag("--count-matches", a->count_matches, "print the number of hits per input (every occurrence)");
  cmd->add_flag("-l,--files-with-matches", a->files_with_matches, "print the names of the inputs with a hit");
  cmd->add_flag("-L,--files-without-match", a->files_without_match, "print the names of the inputs without a hit");
  cmd->add_flag("-o,--only-matching", a->only_matching, "print the matched text of each hit, one a line");
  cmd->add_flag("-v,--invert-match", a->invert, "select the lines (records) without a hit");
  cmd->add_flag("-w,--word-regexp", a->words, "exact: only hits that are whole words");
  cmd->add_flag("-x,--line-regexp", a->whole_lines, "exact: only hits that are whole lines");
  cmd->add_option("-A,--after-context", a->after, "print NUM lines after each matching line")->check(integer_in(0, 1 << 30));
  cmd->add_option("-B,--before-context", a->before, "print NUM lines before each matching line")->check(integer_in(0, 1 << 30));
  cmd->add_option("-C,--context", a->context, "print NUM lines before and after each matching line")
      ->check(integer_in(0, 1 << 30));
  cmd->add_flag("-H,--with-filename", a->with_filename, "prefix lines and counts with the input's name");
  cmd->add_flag("-I,--no-filename", a->no_filename, "never prefix lines and counts with the input's name");
  cmd->add_flag("-s,--no-messages", a->no_messages, "no message about inputs that cannot be read (exit status still 2)");
  cmd->add_flag("--null", a->null, "a NUL byte after each input name (-l, -L, -c, line output)");
  cmd->add_flag("-r,--recursive", a->recursive,
                "search the files under each directory (default: the working directory); hidden files and folders "
                "(.git too) are skipped unless --hidden");
  cmd->add_flag("--hidden", a->hidden, "-r: also search hidden files and folders (names starting with '.')");
  cmd->add_option("--include", a->include, "-r: search only files whose name matches GLOB (repeatable)")->type_name("GLOB")->allow_extra_args(false);
  cmd->add_option("--exclude", a->exclude, "-r: skip files whose name matches GLOB (repeatable)")->type_name("GLOB")->allow_extra_args(false);
  cmd->add_option("--exclude-dir", a->exclude_dir, "-r: skip folders whose name matches GLOB (repeatable)")->type_name("GLOB")->allow_extra_args(false);
  cmd->add_option("-g,--glob", a->glob,
                  "-r: search only files that match GLOB; !GLOB skips files and folders (as ripgrep's -g; a GLOB "
                  "with '/' matches the path below the folder searched; repeatable, the last match decides)")
      ->type_name("GLOB")
      ->allow_extra_args(false);
  cmd->add_flag("-q,--quiet", a->quiet, "print nothing; exit 0 at the first hit");
  cmd->add_option("-m,--max-count", a->max_count, "stop after NUM matching lines per input (hit output: NUM hits; 0: none, exit 1; < 0: no limit)")
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeLast)
      ->check(integer_in(INT64_MIN, INT64_MAX));
  cmd->add_flag("--records", a->records,
                "print the FASTA/FASTQ records with a hit whole (with -v: those without one; -m: the first NUM), "
                "as seqkit grep: FASTA as '>' and its header line, then the sequence in lines of --line-width "
                "letters; FASTQ as its four lines. -v alone does the same on FASTA/FASTQ");
  cmd->add_option("--line-width", a->line_width, "--records: letters a FASTA sequence line holds (0: the whole sequence on one line)")
      ->capture_default_str();
  cmd->add_flag("--hits", a->hits,
                "print the hits table (--format) on plain text too; by default plain text prints its matching lines, "
                "as grep, and FASTA/FASTQ the hits table");
  cmd->add_flag("-a,--text", a->text, "print the lines of binary inputs too (--binary-files=text)");
  cmd->add_option("--binary-files", a->binary_files,
                  "an input with a NUL byte in its first 64 KiB, when lines are printed: binary (say \"binary file "
                  "matches\" on stderr at its first match), text (print its lines), without-match (skip it)")
      ->check(CLI::IsMember({"binary", "text", "without-match"}));
  cmd->add_option("--format", a->format,
                  "the hits table: tsv|json|bed|human (default: human on a terminal, else tsv); implies --hits");
  cmd->add_flag("-n,--line-number,--lines", a->lines, "print each matching line with its line number, like grep -n");
  cmd->add_flag("-b,--byte-offset", a->byte_offset,
                "print the 0-based byte offset of each line in its input (with -o: of each match), like grep -b");
  cmd->add_option("--color", a->color, "auto|always|never")->check(CLI::IsMember({"auto", "always", "never"}));
  cmd->add_flag("--fasta", a->fasta, "the inputs must be FASTA/FASTQ: one that is not (by its name, else its first lines) is an error "
                "(default: records where they are, plain text elsewhere)");
  cmd->add_flag("--no-fasta", a->no_fasta, "treat input as plain bytes even if it looks like FASTA");
  cmd->add_option("--device", a->device,
                  "auto|cpu|gpu|gpu:all|gpu:N[,N...] (auto: GPU when present and the work is large; a list spreads "
                  "the input over those GPUs, a GPU listed twice runs two workers)");
  cmd->add_flag("--no-progress", a->no_progress,
                "no progress line (drawn on stderr, when it is a terminal and the output is not, for inputs "
                "that take over a second)");
  cmd->add_flag("--verbose", a->verbose,
                "say on stderr where each input runs (CPU or GPU, and why) and how it is split; with --index, the "
                "kernel's length, the load's time and the search's");
  cmd->add_option("--index", a->index, "search a Hybrid Index built by `trawl index build` instead of files (exact or approximate)");
  cmd->callback([a, &state] { state.exit_code = run_search(*a); });
}

}  // namespace trawl::cli
