// cmd_offtarget.cpp — `trawl offtarget GUIDES GENOME...`: CRISPR off-target sites, the PAM
// matched exactly (or within --pam-mismatches) and at most --mismatches mismatches in the
// protospacer, on both strands.
//
// A site is (guide, strand, PAM position); with mismatches only its alignment is fixed, so it
// is classified exactly by counting. Candidates come from the Hamming search of the library
// (pattern = protospacer + PAM with IUPAC codes, every end reported, k = mismatches + PAM
// mismatches, both strands): every site within the limits is a candidate, and each candidate
// is then checked base by base, N in the genome matching nothing.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <map>
#include <optional>
#include <string>

#include "commands.hpp"
#include "output.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
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
  std::uint64_t max_sites = 0;
  unsigned threads = 0;
  std::string device = "auto";
};

struct guide {
  std::string name, seq;  ///< protospacer, upper case
  int mismatches;         ///< this guide's limit (Cas-OFFinder input sets it per guide)
};

/// Bases a code stands for, as bits A=1 C=2 G=4 T=8; 0 for what is not an IUPAC code.
unsigned code_bases(char c) {
  switch (std::toupper(static_cast<unsigned char>(c))) {
    case 'A': return 1;
    case 'C': return 2;
    case 'G': return 4;
    case 'T': case 'U': return 8;
    case 'R': return 1 | 4;
    case 'Y': return 2 | 8;
    case 'S': return 2 | 4;
    case 'W': return 1 | 8;
    case 'K': return 4 | 8;
    case 'M': return 1 | 2;
    case 'B': return 2 | 4 | 8;
    case 'D': return 1 | 4 | 8;
    case 'H': return 1 | 2 | 8;
    case 'V': return 1 | 2 | 4;
    case 'N': return 15;
    default: return 0;
  }
}

/// A genome base as one bit (A, C, G, T in either case); N and anything else match nothing.
unsigned genome_base(char c) {
  switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 4;
    case 'T': case 't': return 8;
    default: return 0;
  }
}

bool is_iupac(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return code_bases(c) != 0; });
}

std::string upper(std::string_view s) {
  std::string r(s);
  for (char& c : r) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return r;
}

std::vector<std::string_view> fields(std::string_view line) {
  std::vector<std::string_view> out;
  std::size_t i = 0;
  while (i < line.size()) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
    std::size_t j = i;
    while (j < line.size() && !std::isspace(static_cast<unsigned char>(line[j]))) ++j;
    if (j > i) out.push_back(line.substr(i, j - i));
    i = j;
  }
  return out;
}

/// Guides from FASTA (record ids as names), a `NAME SEQ` table, or Cas-OFFinder's input file
/// (genome path; the PAM pattern, N over the protospacer; `SEQ MISMATCHES [NAME]` lines with the
/// PAM's place padded with N). Cas-OFFinder's file also gives the PAM and its side.
std::vector<guide> read_guides(const std::string& path, offtarget_args& a) {
  const auto in = io::input_buffer::open(path);
  const std::string_view b = in.bytes();
  std::vector<guide> out;
  if (io::detect_format(b) != io::format::plain) {
    io::record_reader rr(b, io::format::automatic, path);
    io::record r;
    while (rr.next(r)) out.push_back({std::string(r.name), upper(r.sequence), a.mismatches});
  } else {
    std::vector<std::string_view> lines;
    for (std::size_t pos = 0; pos < b.size();) {
      std::size_t nl = b.find('\n', pos);
      if (nl == std::string_view::npos) nl = b.size();
      std::string_view l = b.substr(pos, nl - pos);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      if (!fields(l).empty() && l.front() != '#') lines.push_back(l);
      pos = nl + 1;
    }
    const bool casoffinder = lines.size() >= 3 && fields(lines[1]).size() == 1 && is_iupac(fields(lines[1])[0]) &&
                             fields(lines[2]).size() >= 2;
    if (casoffinder) {
      const std::string pattern = upper(fields(lines[1])[0]);
      // the PAM is where the guides are padded with N (after the protospacer: a 3' PAM)
      const std::string first = upper(fields(lines[2])[0]);
      const std::size_t trail = first.size() - 1 - std::min(first.size() - 1, first.find_last_not_of('N'));
      const std::size_t lead = std::min(first.size(), first.find_first_not_of('N'));
      const bool five = trail == 0;
      const std::size_t pam_len = five ? lead : trail;
      if (pam_len == 0 || pam_len >= pattern.size() || first.size() != pattern.size())
        throw error(errc::invalid_argument, path + ": the guides are not padded with N where the PAM is");
      a.pam_side = five ? 5 : 3;
      a.pams = {five ? pattern.substr(0, pam_len) : pattern.substr(pattern.size() - pam_len)};
      for (std::size_t i = 2; i < lines.size(); ++i) {
        const auto f = fields(lines[i]);
        int mm = 0;
        if (f.size() < 2 || f[0].size() != pattern.size() || std::sscanf(std::string(f[1]).c_str(), "%d", &mm) != 1 ||
            mm < 0)
          throw error(errc::invalid_argument, fmt::format("{}: line {}: want SEQ MISMATCHES [NAME] with SEQ as long as "
                                                          "the pattern line", path, i + 1));
        const std::string seq = upper(f[0]);
        out.push_back({f.size() > 2 ? std::string(f[2]) : seq,
                       five ? seq.substr(pam_len) : seq.substr(0, seq.size() - pam_len), mm});
      }
    } else {
      for (std::string_view l : lines) {
        const auto f = fields(l);
        if (f.size() != 2)
          throw error(errc::invalid_argument, path + ": want FASTA, `NAME SEQ` lines or a Cas-OFFinder input file");
        out.push_back({std::string(f[0]), upper(f[1]), a.mismatches});
      }
    }
  }
  if (out.empty()) throw error(errc::invalid_argument, path + ": no guide");
  for (const guide& g : out)
    if (!is_iupac(g.seq)) throw error(errc::invalid_argument, path + ": guide " + g.name + " is not DNA (IUPAC)");
  return out;
}

std::string reverse_complement_site(std::string_view s) { return reverse_complement(s); }

/// Collects the candidates of one genome record and prints its sites.
class offtarget_sink final : public search_sink {
 public:
  offtarget_sink(writer& out, const std::vector<guide>& guides, const std::vector<std::string>& pams,
                 const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of, const offtarget_args& a,
                 std::vector<std::uint64_t>& sites_of_guide, std::vector<bool>& warned)
      : out_(out), guides_(guides), pams_(pams), pattern_of_(pattern_of), a_(a), sites_(sites_of_guide),
        warned_(warned) {}

  void begin_record(const record_info& r) override {
    name_.assign(r.name);
    text_.reset();
    best_.clear();
  }
  [[nodiscard]] bool wants_text() const override { return true; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override { text_.append(pos, bytes, stable); }
  bool hits(std::span<const hit> hits) override {
    for (const hit& h : hits) classify(h);
    return true;
  }
  void floor(std::uint64_t pos) override {
    flush(pos);
    text_.drop_before(pos);
  }
  void end_record(std::uint64_t) override { flush(~std::uint64_t{0}); }

 private:
  struct site {
    std::uint32_t guide, pam;
    int mismatches, pam_mismatches;
    std::string target;  ///< the site's bases on the guide's strand, lower case at mismatches
  };

  void classify(const hit& h) {
    const auto [gi, pi] = pattern_of_[h.pattern];
    const guide& g = guides_[gi];
    const std::string& pam = pams_[pi];
    std::string bases(text_.at(h.start, h.end));
    if (bases.size() != h.end - h.start) return;  // (cannot happen: hits come after their bytes)
    if (h.dir == strand::reverse) bases = reverse_complement_site(bases);
    const bool five = a_.pam_side == 5;
    const std::size_t ps = five ? pam.size() : 0;  // protospacer's first base in the site
    const std::size_t pa = five ? 0 : g.seq.size();  // PAM's first base
    int mm = 0, pam_mm = 0;
    for (std::size_t i = 0; i < pam.size(); ++i) {
      const bool ok = (code_bases(pam[i]) & genome_base(bases[pa + i])) != 0;
      pam_mm += ok ? 0 : 1;
      if (!ok) bases[pa + i] = static_cast<char>(std::tolower(static_cast<unsigned char>(bases[pa + i])));
      else bases[pa + i] = static_cast<char>(std::toupper(static_cast<unsigned char>(bases[pa + i])));
    }
    for (std::size_t i = 0; i < g.seq.size(); ++i) {
      const bool ok = (code_bases(g.seq[i]) & genome_base(bases[ps + i])) != 0;
      mm += ok ? 0 : 1;
      bases[ps + i] = static_cast<char>(ok ? std::toupper(static_cast<unsigned char>(bases[ps + i]))
                                           : std::tolower(static_cast<unsigned char>(bases[ps + i])));
    }
    if (mm > g.mismatches || pam_mm > a_.pam_mismatches) return;
    // one site per (guide, strand, position): of several PAMs, the fewest mismatches, then the first PAM
    const key k{h.start, gi, h.dir};
    auto [it, fresh] = best_.try_emplace(k, site{gi, pi, mm, pam_mm, std::move(bases)});
    if (!fresh && std::tie(mm, pam_mm, pi) < std::tie(it->second.mismatches, it->second.pam_mismatches, it->second.pam))
      it->second = site{gi, pi, mm, pam_mm, std::move(bases)};
  }

  /// Prints the sites that start before `bound` (no later candidate starts there).
  void flush(std::uint64_t bound) {
    auto end = best_.lower_bound(key{bound, 0, strand::forward});
    for (auto it = best_.begin(); it != end; ++it) print(it->first, it->second);
    best_.erase(best_.begin(), end);
  }

  struct key {
    std::uint64_t start;
    std::uint32_t guide;
    strand dir;
    bool operator<(const key& o) const { return std::tie(start, guide, dir) < std::tie(o.start, o.guide, o.dir); }
  };

  void print(const key& k, const site& s) {
    const guide& g = guides_[s.guide];
    if (a_.max_sites != 0 && sites_[s.guide] >= a_.max_sites) {
      if (!warned_[s.guide])
        std::fprintf(stderr, "trawl: guide %s: more than %llu sites; the rest are not reported\n", g.name.c_str(),
                     static_cast<unsigned long long>(a_.max_sites));
      warned_[s.guide] = true;
      return;
    }
    ++sites_[s.guide];
    const std::string& pam = pams_[s.pam];
    const bool five = a_.pam_side == 5;
    const std::string aligned_guide = five ? pam + g.seq : g.seq + pam;
    std::string cigar;
    for (std::size_t i = 0; i < s.target.size();) {  // '=' and 'X' runs
      const bool same = std::isupper(static_cast<unsigned char>(s.target[i])) != 0;
      std::size_t j = i;
      while (j < s.target.size() && (std::isupper(static_cast<unsigned char>(s.target[j])) != 0) == same) ++j;
      cigar += fmt::format("{}{}", j - i, same ? '=' : 'X');
      i = j;
    }
    const std::string pam_bases = five ? s.target.substr(0, pam.size()) : s.target.substr(g.seq.size());
    out_.put(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t0\t0\t{}\t{}\t{}\t{}\n", g.name, g.seq, name_, k.start,
                         k.start + s.target.size(), k.dir == strand::forward ? '+' : '-', s.mismatches, aligned_guide,
                         s.target, cigar, pam_bases));
  }

  writer& out_;
  const std::vector<guide>& guides_;
  const std::vector<std::string>& pams_;
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of_;
  const offtarget_args& a_;
  std::vector<std::uint64_t>& sites_;
  std::vector<bool>& warned_;
  std::string name_;
  text_buffer text_;
  std::map<key, site> best_;
};

int run_offtarget(offtarget_args& a) {
  if (a.dna_bulges > 0 || a.rna_bulges > 0)
    throw error(errc::unsupported, "--dna-bulges and --rna-bulges are not supported yet: mismatches only");
  if (a.pam_side != 3 && a.pam_side != 5) throw error(errc::invalid_argument, "--pam-side is 3 or 5");
  std::vector<guide> guides = read_guides(a.guides, a);
  if (a.pams.empty()) a.pams = {"NGG"};
  for (std::string& p : a.pams) {
    p = upper(p);
    if (!is_iupac(p)) throw error(errc::invalid_argument, "--pam " + p + " is not DNA (IUPAC)");
  }
  // one pattern per (guide, PAM)
  std::vector<std::string> patterns;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pattern_of;
  int k = 0;
  for (std::uint32_t gi = 0; gi < guides.size(); ++gi) {
    k = std::max(k, guides[gi].mismatches + a.pam_mismatches);
    for (std::uint32_t pi = 0; pi < a.pams.size(); ++pi) {
      patterns.push_back(a.pam_side == 5 ? a.pams[pi] + guides[gi].seq : guides[gi].seq + a.pams[pi]);
      pattern_of.emplace_back(gi, pi);
    }
  }
  search_options so;
  so.max_errors = k;
  so.hamming = true;
  so.iupac = true;
  so.both_strands = true;
  so.all_ends = true;  // every window: a cluster's one hit could hide a site
  so.threads = a.threads;
  so.device = a.device == "gpu" ? device_kind::gpu : a.device == "cpu" ? device_kind::cpu : device_kind::automatic;
  if (so.device == device_kind::gpu) throw error(errc::unsupported, "offtarget runs on the CPU for now (--device cpu)");
  so.device = device_kind::cpu;
  const auto m = make_matcher(patterns, so);

  writer out;
  out.put("#guide\tguide_seq\tchrom\tstart\tend\tstrand\tmismatches\tdna_bulges\trna_bulges\taligned_guide\t"
          "aligned_target\tcigar\tpam\n");
  std::vector<std::uint64_t> sites(guides.size(), 0);
  std::vector<bool> warned(guides.size(), false);
  bool any_error = false;
  for (const std::string& file : a.genomes) {
    try {
      io::open_options oo;
      oo.name = file == "-" ? "(standard input)" : file;
      auto input = io::source::open(file, oo);
      offtarget_sink sink(out, guides, a.pams, pattern_of, a, sites, warned);
      search_input(*m, input, so, stream_options{}, sink);
    } catch (const error& e) {
      out.flush();
      std::fprintf(stderr, "trawl: %s\n", e.what());
      any_error = true;
    }
  }
  out.flush();
  if (any_error) return 2;
  return std::any_of(sites.begin(), sites.end(), [](std::uint64_t n) { return n > 0; }) ? 0 : 1;
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
  cmd->add_option("genomes", a->genomes, "genome files (FASTA/FASTQ/plain, gzip, zstd; '-' = stdin)")->required();
  cmd->add_option("--pam", a->pams, "PAM in IUPAC codes (repeatable; default NGG)");
  cmd->add_option("--pam-side", a->pam_side, "3 (3' PAM: Cas9) or 5 (5' PAM: Cas12a, e.g. TTTV)")
      ->check(CLI::IsMember({3, 5}));
  cmd->add_option("--mismatches", a->mismatches, "most mismatches in the protospacer (default 3)")
      ->check(integer_in(0, 64));
  cmd->add_option("--pam-mismatches", a->pam_mismatches, "most mismatches in the PAM (default 0)")->check(integer_in(0, 64));
  cmd->add_option("--dna-bulges", a->dna_bulges, "most DNA bulges (not supported yet: 0)")->check(integer_in(0, 64));
  cmd->add_option("--rna-bulges", a->rna_bulges, "most RNA bulges (not supported yet: 0)")->check(integer_in(0, 64));
  cmd->add_option("--max-sites-per-guide", a->max_sites, "stop reporting a guide after N sites (warned on stderr)")
      ->check(integer_in(0, INT64_MAX));
  cmd->add_option("-j,--threads", a->threads, "worker threads (default: all cores)")->check(integer_in(0, 1 << 16));
  cmd->add_option("--device", a->device, "auto|cpu (the GPU path is not wired yet)")
      ->check(CLI::IsMember({"auto", "cpu", "gpu"}));
  cmd->callback([a, &state] { state.exit_code = run_offtarget(*a); });
}

}  // namespace trawl::cli
