// cmd_offtarget.cpp — `trawl offtarget GUIDES GENOME...`: CRISPR off-target sites
// (trawl/offtarget.hpp), printed as TSV, Cas-OFFinder's columns, BED or JSON, with per-guide
// caps and a summary; the candidate search runs on the device --device picks, over MPI ranks
// when launched so.
#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <iterator>
#include <optional>
#include <span>
#include <string>
#include <utility>

#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "commands.hpp"
#include "devices.hpp"
#include "mpi.hpp"
#include "output.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {
namespace {

struct offtarget_args {
  std::string guides;
  std::vector<std::string> genomes;
  std::vector<std::string> pams;
  int pam_side = 3;
  int mismatches = 3, pam_mismatches = 0, dna_bulges = 0, rna_bulges = 0;
  int max_edits = -1;  ///< --max-edits: protospacer mismatches + bulges in all; -1 = no such limit
  std::string format = "tsv";
  std::uint64_t max_sites = 0;
  std::string summary;  ///< --summary FILE
  unsigned threads = 0;
  std::string device = "auto";
  bool verbose = false;
  bool no_progress = false;
  std::string index;  ///< --index IDX: the genome is that index's text
};

/// A guide's sites by class (mismatches, DNA bulges, RNA bulges): the count of class
/// (m, d, r) at (m * (most DNA bulges + 1) + d) * (most RNA bulges + 1) + r, so that the
/// classes run fewest first.
class site_classes {
 public:
  site_classes(int dna_bulges, int rna_bulges) : d_(dna_bulges + 1), r_(rna_bulges + 1) {}
  void add(int mismatches, int dna, int rna) {
    const auto at = static_cast<std::size_t>((mismatches * d_ + dna) * r_ + rna);
    if (at >= n_.size()) n_.resize(at + 1, 0);
    ++n_[at];
  }
  /// Calls fn(mismatches, dna, rna, count) for every class with sites, fewest first.
  template <class Fn>
  void each(Fn&& fn) const {
    for (std::size_t at = 0; at < n_.size(); ++at)
      if (n_[at] != 0) {
        const int i = static_cast<int>(at);
        fn(i / (d_ * r_), i / r_ % d_, i % r_, n_[at]);
      }
  }

 private:
  int d_, r_;
  std::vector<std::uint64_t> n_;
};

/// Writes --summary: per guide (in input order), its sites by (mismatches, DNA bulges, RNA
/// bulges), fewest first; a guide without sites as one line with "-" classes and 0.
void write_summary(const std::string& path, const std::vector<offtarget::guide>& guides,
                   const std::vector<std::uint64_t>& sites, const std::vector<site_classes>& classes) {
  std::string text = "#guide\tmismatches\tdna_bulges\trna_bulges\tsites\n";
  for (std::size_t g = 0; g < guides.size(); ++g) {
    if (sites[g] == 0) text += fmt::format("{}\t-\t-\t-\t0\n", guides[g].name);
    classes[g].each([&](int m, int d, int r, std::uint64_t n) {
      text += fmt::format("{}\t{}\t{}\t{}\t{}\n", guides[g].name, m, d, r, n);
    });
  }
  io::write_file_atomically(path, text);
}

/// Appends v in decimal to `to`.
std::string& append_number(std::string& to, std::uint64_t v) {
  char digits[20];
  const auto r = std::to_chars(digits, digits + sizeof digits, v);
  return to.append(digits, r.ptr);
}

/// Prints sites in the chosen format, --max-sites-per-guide applied, and counts them for
/// --summary.
class site_printer final : public offtarget::site_sink {
 public:
  site_printer(writer& out, const offtarget::searcher& s, const offtarget_args& a, std::vector<std::uint64_t>& sites,
               std::vector<bool>& warned, std::vector<site_classes>& classes)
      : out_(out), s_(s), a_(a), sites_(sites), warned_(warned), classes_(classes) {}

  void begin_record(const record_info& r) override { name_.assign(r.name); }
  void end_record() override {}
  void site(const offtarget::site& s) override {
    if (!count(s)) return;
    line_.clear();
    format(s, line_);
    out_.put(line_);
  }
  /// A batch: counted and capped in order, formatted on all cores, written in order.
  void sites(std::span<const offtarget::site> batch) override {
    std::vector<char> keep(batch.size());
    for (std::size_t i = 0; i < batch.size(); ++i) keep[i] = count(batch[i]) ? 1 : 0;
    constexpr std::size_t block = 256;
    std::vector<std::string> text((batch.size() + block - 1) / block);
    arena_.execute([&] {
      tbb::parallel_for(std::size_t{0}, text.size(), [&](std::size_t b) {
        for (std::size_t i = b * block; i < std::min(batch.size(), (b + 1) * block); ++i)
          if (keep[i] != 0) format(batch[i], text[b]);
      });
    });
    for (const std::string& t : text) out_.put(t);
  }

 private:
  /// Counts a site for --summary and says whether to print it (--max-sites-per-guide).
  bool count(const offtarget::site& s) {
    if (a_.max_sites != 0 && sites_[s.guide] >= a_.max_sites) {
      if (!warned_[s.guide])
        std::fprintf(stderr, "trawl: guide %s: more than %llu sites; the rest are not reported\n",
                     s_.guides()[s.guide].name.c_str(), static_cast<unsigned long long>(a_.max_sites));
      warned_[s.guide] = true;
      return false;
    }
    ++sites_[s.guide];
    classes_[s.guide].add(s.mismatches, s.dna_bulges, s.rna_bulges);
    return true;
  }

  /// Appends a site's line in the chosen format to `to`.
  void format(const offtarget::site& s, std::string& to) const {
    const offtarget::guide& g = s_.guides()[s.guide];
    auto out = std::back_inserter(to);
    const char dir = s.dir == strand::forward ? '+' : '-';
    const int edits = s.mismatches + s.dna_bulges + s.rna_bulges;
    if (a_.format == "bed") {  // BED6: score = protospacer edits
      fmt::format_to(out, "{}\t{}\t{}\t{}\t{}\t{}\n", name_, s.start, s.end, g.name, edits, dir);
    } else if (a_.format == "json") {  // one object per line
      fmt::format_to(out,
                     R"({{"guide":"{}","guide_seq":"{}","chrom":"{}","start":{},"end":{},"strand":"{}",)"
                     R"("mismatches":{},"dna_bulges":{},"rna_bulges":{},"aligned_guide":"{}","aligned_target":"{}",)"
                     R"("cigar":"{}","pam":"{}"}})"
                     "\n",
                     json_escape(g.name), g.protospacer, json_escape(name_), s.start, s.end, dir, s.mismatches,
                     s.dna_bulges, s.rna_bulges, s.aligned_guide, s.aligned_target, s.cigar, s.pam_bases);
    } else if (a_.format == "casoffinder") {  // Cas-OFFinder 3's columns: the PAM as N in crRNA
      const std::size_t P = s.pam_bases.size();
      const bool five = a_.pam_side == 5;
      const std::string& ga = s.aligned_guide;
      const std::string spacer_g = five ? ga.substr(P) : ga.substr(0, ga.size() - P);
      const std::string cr = five ? std::string(P, 'N') + spacer_g : spacer_g + std::string(P, 'N');
      const char* type = s.dna_bulges > 0 && s.rna_bulges > 0 ? "DNA+RNA" : s.dna_bulges > 0 ? "DNA"
                         : s.rna_bulges > 0                   ? "RNA"
                                                              : "X";
      fmt::format_to(out, "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", g.name, type, cr, s.aligned_target, name_, s.start, dir,
                     s.mismatches, s.dna_bulges + s.rna_bulges);
    } else {  // TSV: the fields appended as they are, without a format string to parse
      for (const std::string_view f : {std::string_view(g.name), std::string_view(g.protospacer), std::string_view(name_)})
        to.append(f) += '\t';
      for (const std::uint64_t v : {s.start, s.end}) append_number(to, v) += '\t';
      to += dir;
      for (const int v : {s.mismatches, s.dna_bulges, s.rna_bulges}) append_number(to += '\t', static_cast<std::uint64_t>(v));
      for (const std::string* f : {&s.aligned_guide, &s.aligned_target, &s.cigar, &s.pam_bases}) (to += '\t').append(*f);
      to += '\n';
    }
  }

  writer& out_;
  const offtarget::searcher& s_;
  const offtarget_args& a_;
  std::vector<std::uint64_t>& sites_;
  std::vector<bool>& warned_;
  std::vector<site_classes>& classes_;
  std::string name_;
  std::string line_;
  /// formats batches; its priority over the search's other host work: the output is in order
  tbb::task_arena arena_{a_.threads != 0 ? static_cast<int>(a_.threads) : tbb::info::default_concurrency(), 1,
                         tbb::task_arena::priority::high};
};

int run_offtarget(offtarget_args& a) {
  if (a.pam_side != 3 && a.pam_side != 5) throw error(errc::invalid_argument, "--pam-side is 3 or 5");
  if (a.index.empty() && a.genomes.empty()) throw error(errc::invalid_argument, "no GENOME file (or --index IDX) given");
  if (!a.index.empty() && !a.genomes.empty()) throw error(errc::invalid_argument, "--index takes the place of GENOME files");
  if (a.summary == "-")
    throw error(errc::invalid_argument, "--summary -: the sites go to standard output; give the summary a file");
  if (!a.summary.empty()) {
    std::vector<std::string> inputs = a.genomes;
    inputs.push_back(a.guides);
    if (!a.index.empty()) inputs.push_back(a.index);
    for (const std::string& input : inputs)
      if (io::same_file(a.summary, input))
        throw error(errc::invalid_argument, "--summary " + a.summary + " is an input file; give the summary another name");
  }
  const auto in = io::input_buffer::open(a.guides);
  offtarget::guide_file file = offtarget::parse_guides(in.bytes(), a.guides);
  if (!file.pams.empty()) a.pams = file.pams;
  if (file.side) a.pam_side = *file.side == offtarget::pam_side::five_prime ? 5 : 3;
  if (file.dna_bulges) a.dna_bulges = *file.dna_bulges;
  if (file.rna_bulges) a.rna_bulges = *file.rna_bulges;
  offtarget::options o;  // the searcher checks the PAMs and guides
  if (!a.pams.empty()) o.pams = a.pams;
  o.side = a.pam_side == 5 ? offtarget::pam_side::five_prime : offtarget::pam_side::three_prime;
  o.mismatches = a.mismatches;
  o.pam_mismatches = a.pam_mismatches;
  o.dna_bulges = a.dna_bulges;
  o.rna_bulges = a.rna_bulges;
  o.max_edits = a.max_edits;
  o.threads = a.threads;
  o.processes = mpi::processes();  // under MPI, each search shared by the ranks
  auto starting = start_device(a.device, a.verbose);
  std::optional<index::hybrid_index> idx;
  if (!a.index.empty()) idx = index::hybrid_index::load(a.index);  // while the device starts
  const device_choice device = starting.get();
  o.device = device.spec;
  mpi::set_verbose(device.verbose);
  const offtarget::searcher searcher(std::move(file.guides), o);
  const std::size_t n = searcher.guides().size();

  writer out;
  // the header, once an input has opened: a missing genome is an error line, not a header first
  bool header_printed = false;
  const auto header = [&] {
    if (std::exchange(header_printed, true)) return;
    if (a.format == "tsv")
      out.put("#guide\tguide_seq\tchrom\tstart\tend\tstrand\tmismatches\tdna_bulges\trna_bulges\taligned_guide\t"
              "aligned_target\tcigar\tpam\n");
    else if (a.format == "casoffinder")
      out.put("#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\tMismatches\tBulge Size\n");
  };
  std::vector<std::uint64_t> sites(n, 0);
  std::vector<bool> warned(n, false);
  std::vector<site_classes> classes(n, site_classes(searcher.opts().dna_bulges, searcher.opts().rna_bulges));
  site_printer printer(out, searcher, a, sites, warned, classes);
  bool any_error = false;
  if (!a.index.empty()) {
    // the candidates from the index (the kernel scanned, the ends copied; MPI deals the
    // patterns), each record's sites classified from the bytes around them
    header();
    searcher.search(*idx, printer);
  }
  for (const std::string& path : a.genomes) {
    try {
      io::open_options oo;
      oo.name = path == "-" ? "(standard input)" : path;
      auto input = io::source::open(path, oo);
      header();
      progress_line progress(progress_wanted(a.no_progress), oo.name, input.expected_size());
      searcher.search(input, printer,
                      with_progress(said_plan(device, input, searcher.guides().size() * searcher.opts().pams.size(), true),
                                    &progress),
                      [&progress](std::uint64_t bytes) { progress.update(bytes); });
    } catch (const error& e) {
      out.flush();
      mpi::error_line(std::string("trawl: ") + e.what());
      any_error = true;
    }
  }
  out.flush();
  if (any_error) return 2;
  if (!a.summary.empty()) write_summary(a.summary, searcher.guides(), sites, classes);
  return std::any_of(sites.begin(), sites.end(), [](std::uint64_t x) { return x > 0; }) ? 0 : 1;
}

}  // namespace

void add_offtarget_command(CLI::App& root, run_state& state) {
  auto a = std::make_shared<offtarget_args>();
  CLI::App* cmd = root.add_subcommand("offtarget", "CRISPR off-target sites of guides in genomes (PAM + mismatches)");
  cmd->footer(
      "GUIDES: FASTA (record ids name the guides), `NAME SEQ` lines, or a Cas-OFFinder input file (its PAM and\n"
      "per-guide mismatch limits are used). A guide is the protospacer alone. Both strands are searched; N in the\n"
      "genome matches nothing. Output (tsv): guide, guide_seq, chrom, start, end (0-based, half-open, forward\n"
      "strand, protospacer + PAM), strand, mismatches, dna_bulges, rna_bulges, aligned guide, aligned target (lower\n"
      "case at mismatches), CIGAR, PAM bases. Exit status: 0 if any site, 1 if none, 2 on error.");
  cmd->add_option("guides", a->guides, "guide file")->required();
  cmd->add_option("genomes", a->genomes, "genome files (FASTA/FASTQ/plain, gzip, zstd; '-' = stdin)");
  cmd->add_option("--index", a->index,
                  "search the genome indexed in IDX (trawl index build) instead of GENOME files: the same sites, "
                  "from the index's kernel");
  cmd->add_option("--pam", a->pams, "PAM in IUPAC codes (repeatable; default NGG)")->allow_extra_args(false);
  cmd->add_option("--pam-side", a->pam_side, "3 (3' PAM: Cas9) or 5 (5' PAM: Cas12a, e.g. TTTV)")
      ->check(CLI::IsMember({3, 5}));
  cmd->add_option("--mismatches", a->mismatches, "most mismatches in the protospacer (default 3)")
      ->check(integer_in(0, 64));
  cmd->add_option("--pam-mismatches", a->pam_mismatches, "most mismatches in the PAM (default 0)")->check(integer_in(0, 64));
  cmd->add_option("--dna-bulges", a->dna_bulges, "most DNA bulges (extra genome bases; default 0)")->check(integer_in(0, 16));
  cmd->add_option("--rna-bulges", a->rna_bulges, "most RNA bulges (extra guide bases; default 0)")->check(integer_in(0, 16));
  cmd->add_option("--max-edits", a->max_edits, "most protospacer mismatches and bulges in all (default: no such limit)")
      ->check(integer_in(0, 96));
  cmd->add_option("--format", a->format,
                  "tsv (default: the columns above), casoffinder (Cas-OFFinder 3's columns), bed (BED6, score = edits), "
                  "json (one object a line)")
      ->check(CLI::IsMember({"tsv", "casoffinder", "bed", "json"}));
  cmd->add_option("--max-sites-per-guide", a->max_sites, "stop reporting a guide after N sites (warned on stderr)")
      ->check(integer_in(0, INT64_MAX));
  cmd->add_option("--summary", a->summary,
                  "also write FILE: per guide, its sites by (mismatches, DNA bulges, RNA bulges)");
  cmd->add_option("-j,--threads", a->threads, "worker threads (default: all cores)")->check(integer_in(0, 1 << 16));
  cmd->add_option("--device", a->device, "auto|cpu|gpu|gpu:all|gpu:N[,N...] (auto: GPU when present and the work is large)");
  cmd->add_flag("--verbose", a->verbose, "say on stderr where each input runs (CPU or GPU, and why) and how it is split");
  cmd->add_flag("--no-progress", a->no_progress,
                "no progress line (drawn on stderr, when it is a terminal and the output is not, for genomes "
                "that take over a second)");
  cmd->callback([a, &state] { state.exit_code = run_offtarget(*a); });
}

}  // namespace trawl::cli
