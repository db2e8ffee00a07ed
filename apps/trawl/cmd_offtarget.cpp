// cmd_offtarget.cpp — `trawl offtarget GUIDES GENOME...`: CRISPR off-target sites, the PAM
// matched exactly (or within --pam-mismatches), at most --mismatches mismatches, --dna-bulges
// and --rna-bulges in the protospacer, on both strands.
//
// A site is (guide, strand, PAM position). Candidates come from the library's search (pattern
// = protospacer + PAM with IUPAC codes, every end reported, k = mismatches + bulges + PAM
// mismatches, both strands; Hamming when no bulge is allowed): a site within the limits is an
// alignment of the pattern with at most k edits ending at the hit's end, so it is a candidate.
// Each candidate PAM position is then classified exactly by a small DP over the alignments
// from the PAM outward (align_at_pam), N in the genome matching nothing.
#include <fmt/format.h>

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <tuple>

#include <tbb/blocked_range.h>
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
  std::string index;  ///< --index IDX: the genome is that index's text
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

/// The best alignment of a guide at one PAM, read outward from the PAM: g = the guide from
/// its PAM side (reversed for a 3' PAM), t = the genome's bases on the guide's strand from the
/// PAM outward (as many as there are, up to m + DNA bulges). Global on the guide, free at the
/// far end of t; a bulge is never the first or last column. Best: fewest edits, then fewest
/// bulges, then fewest mismatches, then fewest DNA bulges.
struct site_alignment {
  int mismatches = 0, dna_bulges = 0, rna_bulges = 0;
  std::size_t text_len = 0;  ///< genome bases used
  std::string ops;           ///< columns from the PAM outward: 'M' (match or mismatch), 'D' (DNA bulge), 'R' (RNA bulge)
};

std::optional<site_alignment> align_at_pam(std::string_view g, std::string_view t, int max_mm, int max_dna,
                                           int max_rna) {
  const int m = static_cast<int>(g.size()), n = static_cast<int>(t.size());
  constexpr int inf = 1 << 29;
  // state (i, d, r, last): i guide bases, d DNA and r RNA bulges used (so i + d - r genome
  // bases), the last column a bulge (last = 1) or not; cost = fewest mismatches
  const int D = max_dna + 1, R = max_rna + 1;
  auto at = [&](int i, int d, int r, int last) { return ((i * D + d) * R + r) * 2 + last; };
  std::vector<int> cost(static_cast<std::size_t>((m + 1) * D * R * 2), inf), prev(cost.size(), -1);
  std::vector<char> op(cost.size(), 0);
  auto relax = [&](int to, int c, int from, char o) {
    if (c < cost[to]) cost[to] = c, prev[to] = from, op[to] = o;
  };
  cost[at(0, 0, 0, 0)] = 0;
  for (int i = 0; i <= m; ++i)  // every move increases i or d: this order visits a state after its sources
    for (int d = 0; d < D; ++d)
      for (int r = 0; r < R; ++r)
        for (int last = 0; last < 2; ++last) {
          const int here = at(i, d, r, last), c = cost[here];
          if (c >= inf) continue;
          const int j = i + d - r;
          if (i < m && j < n) {
            const int nc = c + ((code_bases(g[i]) & genome_base(t[j])) != 0 ? 0 : 1);
            if (nc <= max_mm) relax(at(i + 1, d, r, 0), nc, here, 'M');
          }
          if (i == 0 || i == m) continue;  // no bulge as the first column, nor past the guide
          if (d + 1 < D && j < n) relax(at(i, d + 1, r, 1), c, here, 'D');
          if (r + 1 < R) relax(at(i + 1, d, r + 1, 1), c, here, 'R');
        }
  std::optional<site_alignment> best;
  int best_state = -1;
  auto rank = [](const site_alignment& x) {
    return std::make_tuple(x.mismatches + x.dna_bulges + x.rna_bulges, x.dna_bulges + x.rna_bulges, x.mismatches,
                           x.dna_bulges);
  };
  for (int d = 0; d < D; ++d)
    for (int r = 0; r < R; ++r)
      if (const int c = cost[at(m, d, r, 0)]; c < inf) {  // the last column is not a bulge
        site_alignment x{c, d, r, static_cast<std::size_t>(m + d - r), {}};
        if (!best || rank(x) < rank(*best)) best = x, best_state = at(m, d, r, 0);
      }
  if (!best) return best;
  for (int st = best_state; prev[st] >= 0; st = prev[st]) best->ops.push_back(op[st]);
  std::reverse(best->ops.begin(), best->ops.end());
  return best;
}

struct site {
  std::uint32_t guide, pam;
  int pam_mismatches;
  site_alignment al;
  std::uint64_t start, end;  ///< forward-strand coordinates of protospacer + PAM
  std::string g_out, t_out;  ///< aligned guide and target, in the guide's orientation
};
struct site_key {
  std::uint64_t pam_start;
  std::uint32_t guide;
  strand dir;
  bool operator<(const site_key& o) const { return std::tie(pam_start, guide, dir) < std::tie(o.pam_start, o.guide, o.dir); }
};


/// Finds the sites of a candidate hit: the PAM positions it implies, each classified by
/// align_at_pam. Used on the workers (site_filter_matcher) and by the printing sink.
class site_finder {
 public:
  site_finder(const std::vector<guide>& guides, const std::vector<std::string>& pams,
              const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of, const offtarget_args& a)
      : guides_(guides), pams_(pams), pattern_of_(pattern_of), a_(a) {}

  /// Order of two alignments of one site: fewest edits, bulges, mismatches, DNA bulges, PAM
  /// mismatches, then the first PAM.
  static auto rank(const site& x) {
    return std::make_tuple(x.al.mismatches + x.al.dna_bulges + x.al.rna_bulges, x.al.dna_bulges + x.al.rna_bulges,
                           x.al.mismatches, x.al.dna_bulges, x.pam_mismatches, x.pam);
  }

  /// Calls on_site(key, site) for every site of candidate h; text(a, b) gives the bases [a, b)
  /// of the record, clipped to what is there.
  /// A candidate end of (guide + PAM) on one strand: the PAM lies at that end of the hit
  /// (3' PAM forward, 5' PAM reverse) or at a distance set by the bulges from it.
  template <class Text, class OnSite>
  void sites_of(const hit& h, const Text& text, OnSite&& on_site) const {
    const auto [gi, pi] = pattern_of_[h.pattern];
    const guide& g = guides_[gi];
    const std::uint64_t P = pams_[pi].size(), m = g.seq.size();
    const bool right = (a_.pam_side == 3) == (h.dir == strand::forward);  // PAM at the hit's right end
    if (right) {
      if (h.end >= P) consider(gi, pi, h.dir, h.end - P, text, on_site);
      return;
    }
    // the PAM on the left: the far end is h.end; the PAM starts m - rna .. m + dna bases before it
    for (std::uint64_t len = m - std::min<std::uint64_t>(m, static_cast<std::uint64_t>(a_.rna_bulges));
         len <= m + static_cast<std::uint64_t>(a_.dna_bulges); ++len)
      if (h.end >= len + P) consider(gi, pi, h.dir, h.end - len - P, text, on_site);
  }

  /// The site of guide gi with PAM pi whose PAM starts at forward position ps, if within limits.
  template <class Text, class OnSite>
  void consider(std::uint32_t gi, std::uint32_t pi, strand dir, std::uint64_t ps, const Text& text,
                OnSite& on_site) const {
    const guide& g = guides_[gi];
    const std::string& pam = pams_[pi];
    const std::uint64_t P = pam.size(), m = g.seq.size(), far = m + static_cast<std::uint64_t>(a_.dna_bulges);
    const bool three = a_.pam_side == 3;
    // the PAM's bases and the protospacer side's bases, on the guide's strand, outward from the PAM
    std::string pam_bases, out;
    const bool pam_right_of_spacer = three == (dir == strand::forward);  // forward coordinates
    if (pam_right_of_spacer) {
      const std::uint64_t lo = ps >= far ? ps - far : 0;
      out.assign(text(lo, ps));
      if (out.size() != ps - lo) return;
      pam_bases.assign(text(ps, ps + P));
      std::reverse(out.begin(), out.end());
    } else {
      pam_bases.assign(text(ps, ps + P));
      out.assign(text(ps + P, ps + P + far));
    }
    if (pam_bases.size() != P) return;
    if (dir == strand::reverse) {  // complemented; the order is already outward from the PAM
      out = reverse_complement(out);
      std::reverse(out.begin(), out.end());
    }
    // the PAM's bases in the guide's reading order (5' to 3' on its strand)
    const std::string pam_read = dir == strand::forward ? pam_bases : reverse_complement(pam_bases);
    int pam_mm = 0;
    for (std::size_t i = 0; i < P; ++i) pam_mm += (code_bases(pam[i]) & genome_base(pam_read[i])) != 0 ? 0 : 1;
    if (pam_mm > a_.pam_mismatches) return;
    std::string gq = g.seq;
    if (three) std::reverse(gq.begin(), gq.end());  // read from the PAM outward
    const auto al = align_at_pam(gq, out, g.mismatches, a_.dna_bulges, a_.rna_bulges);
    // the best alignment has the fewest edits: beyond --max-edits, so is every other
    if (!al || (a_.max_edits >= 0 && al->mismatches + al->dna_bulges + al->rna_bulges > a_.max_edits)) return;
    // aligned strings, outward from the PAM, then turned to the guide's 5'->3' order
    std::string ga, ta;
    std::size_t i = 0, j = 0;
    for (const char op : al->ops) {
      if (op == 'M') {
        const bool ok = (code_bases(gq[i]) & genome_base(out[j])) != 0;
        ga += gq[i++];
        ta += static_cast<char>(ok ? std::toupper(static_cast<unsigned char>(out[j])) : std::tolower(static_cast<unsigned char>(out[j])));
        ++j;
      } else if (op == 'D') {
        ga += '-';
        ta += static_cast<char>(std::toupper(static_cast<unsigned char>(out[j++])));
      } else {
        ga += gq[i++];
        ta += '-';
      }
    }
    std::string pam_t;
    for (std::size_t k = 0; k < P; ++k)
      pam_t += static_cast<char>((code_bases(pam[k]) & genome_base(pam_read[k])) != 0
                                     ? std::toupper(static_cast<unsigned char>(pam_read[k]))
                                     : std::tolower(static_cast<unsigned char>(pam_read[k])));
    if (three) {
      std::reverse(ga.begin(), ga.end());
      std::reverse(ta.begin(), ta.end());
      ga += pam, ta += pam_t;
    } else {
      ga = pam + ga, ta = pam_t + ta;
    }
    const std::uint64_t used = al->text_len;
    const std::uint64_t start = pam_right_of_spacer ? ps - used : ps, end = pam_right_of_spacer ? ps + P : ps + P + used;
    site st{gi, pi, pam_mm, *al, start, end, std::move(ga), std::move(ta)};
    on_site(site_key{ps, gi, dir}, std::move(st));
  }
 private:
  const std::vector<guide>& guides_;
  const std::vector<std::string>& pams_;
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of_;
  const offtarget_args& a_;
};

/// The candidate matcher with the candidates that have no site removed, on the workers: the
/// printing sink then classifies (again) only hits that make sites.
class site_filter_matcher final : public matcher {
 public:
  /// `threads` > 0: classify in an arena of its own with that many threads, for a search whose
  /// own workers are few (the GPU's: one per device and one more).
  site_filter_matcher(const matcher& inner, const site_finder& finder, std::size_t before, std::size_t after,
                      unsigned threads = 0)
      : inner_(inner), finder_(finder), before_(before), after_(after) {
    if (threads > 0) arena_.emplace(static_cast<int>(threads));
  }
  [[nodiscard]] std::size_t lookbehind() const override { return std::max(inner_.lookbehind(), before_); }
  [[nodiscard]] std::size_t lookahead() const override { return inner_.lookahead() + after_; }
  [[nodiscard]] hit_key key() const override { return inner_.key(); }
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out) const override {
    const std::size_t first = out.size();
    inner_.scan(seq, own_begin, own_end, out);
    const auto text = [seq](std::uint64_t a, std::uint64_t b) {
      a = std::min<std::uint64_t>(a, seq.size());
      b = std::min<std::uint64_t>(std::max(a, b), seq.size());
      return seq.substr(a, b - a);
    };
    // candidates are many where sites are few (bulges): classify them on all the search's cores
    const std::size_t n = out.size() - first;
    std::vector<char> keep(n, 0);
    const auto classify = [&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t>& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i)
          finder_.sites_of(out[first + i], text, [&](const site_key&, site&&) { keep[i] = 1; });
      });
    };
    if (arena_) arena_->execute(classify);
    else classify();
    std::size_t w = first;
    for (std::size_t i = 0; i < n; ++i)
      if (keep[i]) out[w++] = out[first + i];
    out.resize(w);
  }

 private:
  const matcher& inner_;
  const site_finder& finder_;
  std::size_t before_, after_;
  mutable std::optional<tbb::task_arena> arena_;
};

/// The candidate matcher with the insides of long runs of N (either case) left out. A run of N
/// takes no part in a site (N in the genome matches nothing), and a candidate end d bytes into a
/// run costs at least d - (the N codes of its pattern, which match the genome's N) errors: so
/// no candidate ends more than `margin` = k + those codes bytes into a run, and the positions
/// past that are not scanned. Runs of N in assemblies (gaps, centromeres) are long and many.
class n_run_matcher final : public matcher {
 public:
  n_run_matcher(const matcher& inner, std::size_t margin) : inner_(inner), margin_(margin) {}
  [[nodiscard]] std::size_t lookbehind() const override { return inner_.lookbehind(); }
  [[nodiscard]] std::size_t lookahead() const override { return inner_.lookahead(); }
  [[nodiscard]] hit_key key() const override { return inner_.key(); }
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out) const override {
    const auto is_n = [&seq](std::size_t i) { return (seq[i] | 0x20) == 'n'; };
    std::size_t from = own_begin;  // the next position to scan
    for (std::size_t i = own_begin; i < own_end;) {
      if (!is_n(i)) {
        ++i;
        continue;
      }
      std::size_t r0 = i, r1 = i;
      while (r0 > 0 && is_n(r0 - 1)) --r0;
      while (r1 < seq.size() && is_n(r1)) ++r1;
      if (r1 - r0 > 2 * margin_ + 1) {  // [r0 + margin + 1, r1): no candidate ends there
        const std::size_t stop = std::min(own_end, r0 + margin_ + 1);
        if (from < stop) inner_.scan(seq, from, stop, out);
        from = std::max(from, r1);
      }
      i = r1;
    }
    if (from < own_end) inner_.scan(seq, from, own_end, out);
  }

 private:
  const matcher& inner_;
  std::size_t margin_;
};

/// A guide's sites by (mismatches, DNA bulges, RNA bulges).
using site_classes = std::map<std::tuple<int, int, int>, std::uint64_t>;

/// Writes --summary: per guide (in input order), its sites by (mismatches, DNA bulges, RNA
/// bulges), fewest first; a guide without sites as one line with "-" classes and 0.
void write_summary(const std::string& path, const std::vector<guide>& guides, const std::vector<site_classes>& classes) {
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw error(errc::io_error, path + ": cannot write: " + std::strerror(errno));
  std::string text = "#guide\tmismatches\tdna_bulges\trna_bulges\tsites\n";
  for (std::size_t g = 0; g < guides.size(); ++g) {
    if (classes[g].empty()) text += fmt::format("{}\t-\t-\t-\t0\n", guides[g].name);
    for (const auto& [c, n] : classes[g])
      text += fmt::format("{}\t{}\t{}\t{}\t{}\n", guides[g].name, std::get<0>(c), std::get<1>(c), std::get<2>(c), n);
  }
  for (std::size_t at = 0; at < text.size();) {
    const ssize_t w = ::write(fd, text.data() + at, text.size() - at);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      const std::string why = std::strerror(errno);
      ::close(fd);
      throw error(errc::io_error, path + ": cannot write: " + why);
    }
    at += static_cast<std::size_t>(w);
  }
  if (::close(fd) != 0) throw error(errc::io_error, path + ": cannot write: " + std::strerror(errno));
}

/// Collects the candidates of one genome record and prints its sites.
class offtarget_sink final : public search_sink {
 public:
  offtarget_sink(writer& out, const std::vector<guide>& guides, const std::vector<std::string>& pams,
                 const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of, const offtarget_args& a,
                 std::vector<std::uint64_t>& sites_of_guide, std::vector<bool>& warned, std::size_t reach,
                 std::vector<site_classes>& classes)
      : out_(out), guides_(guides), pams_(pams), a_(a), finder_(guides, pams, pattern_of, a), sites_(sites_of_guide),
        warned_(warned), reach_(reach), classes_(classes) {}

  void begin_record(const record_info& r) override {
    name_.assign(r.name);
    text_.reset();
    best_.clear();
  }
  [[nodiscard]] bool wants_text() const override { return true; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override { text_.append(pos, bytes, stable); }
  bool hits(std::span<const hit> hits) override {
    const auto text = [this](std::uint64_t a, std::uint64_t b) { return text_.at(a, b); };
    for (const hit& h : hits)
      finder_.sites_of(h, text, [this](const site_key& k, site&& st) {
        auto [it, fresh] = best_.try_emplace(k, st);
        if (!fresh && site_finder::rank(st) < site_finder::rank(it->second)) it->second = std::move(st);
      });
    return true;
  }
  void floor(std::uint64_t pos) override {
    // a later candidate ends past pos, so its sites reach back at most `reach` bytes before it
    const std::uint64_t keep = pos > reach_ ? pos - reach_ : 0;
    flush(keep);
    text_.drop_before(keep);
  }
  void end_record(std::uint64_t) override { flush(~std::uint64_t{0}); }

 private:

  /// Prints the sites whose PAM starts before `bound`.
  void flush(std::uint64_t bound) {
    auto end = best_.lower_bound(site_key{bound, 0, strand::forward});
    for (auto it = best_.begin(); it != end; ++it) print(it->first, it->second);
    best_.erase(best_.begin(), end);
  }

  void print(const site_key& k, const site& s) {
    const guide& g = guides_[s.guide];
    if (a_.max_sites != 0 && sites_[s.guide] >= a_.max_sites) {
      if (!warned_[s.guide])
        std::fprintf(stderr, "trawl: guide %s: more than %llu sites; the rest are not reported\n", g.name.c_str(),
                     static_cast<unsigned long long>(a_.max_sites));
      warned_[s.guide] = true;
      return;
    }
    ++sites_[s.guide];
    ++classes_[s.guide][{s.al.mismatches, s.al.dna_bulges, s.al.rna_bulges}];
    std::string cigar;
    for (std::size_t i = 0; i < s.t_out.size();) {  // =, X, I (RNA bulge: guide only), D (DNA bulge)
      auto col = [&](std::size_t c) {
        return s.g_out[c] == '-' ? 'D' : s.t_out[c] == '-' ? 'I' : std::isupper(static_cast<unsigned char>(s.t_out[c])) ? '=' : 'X';
      };
      const char op = col(i);
      std::size_t j = i;
      while (j < s.t_out.size() && col(j) == op) ++j;
      cigar += fmt::format("{}{}", j - i, op);
      i = j;
    }
    const std::size_t P = pams_[s.pam].size();
    const std::string pam_bases = a_.pam_side == 5 ? s.t_out.substr(0, P) : s.t_out.substr(s.t_out.size() - P);
    const char dir = k.dir == strand::forward ? '+' : '-';
    const auto& al = s.al;
    if (a_.format == "bed") {  // BED6: score = protospacer edits
      out_.put(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\n", name_, s.start, s.end, g.name,
                           al.mismatches + al.dna_bulges + al.rna_bulges, dir));
    } else if (a_.format == "json") {  // one object per line
      out_.put(fmt::format(R"({{"guide":"{}","guide_seq":"{}","chrom":"{}","start":{},"end":{},"strand":"{}",)"
                           R"("mismatches":{},"dna_bulges":{},"rna_bulges":{},"aligned_guide":"{}","aligned_target":"{}",)"
                           R"("cigar":"{}","pam":"{}"}})"
                           "\n",
                           json_escape(g.name), g.seq, json_escape(name_), s.start, s.end, dir, al.mismatches,
                           al.dna_bulges, al.rna_bulges, s.g_out, s.t_out, cigar, pam_bases));
    } else if (a_.format == "casoffinder") {  // Cas-OFFinder 3's columns: the PAM as N in crRNA
      const std::string spacer_g = a_.pam_side == 5 ? s.g_out.substr(P) : s.g_out.substr(0, s.g_out.size() - P);
      const std::string cr = a_.pam_side == 5 ? std::string(P, 'N') + spacer_g : spacer_g + std::string(P, 'N');
      const char* type = al.dna_bulges > 0 && al.rna_bulges > 0 ? "DNA+RNA" : al.dna_bulges > 0 ? "DNA"
                         : al.rna_bulges > 0                   ? "RNA"
                                                               : "X";
      out_.put(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", g.name, type, cr, s.t_out, name_, s.start, dir,
                           al.mismatches, al.dna_bulges + al.rna_bulges));
    } else {
      out_.put(fmt::format("{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}\n", g.name, g.seq, name_, s.start, s.end,
                           dir, al.mismatches, al.dna_bulges, al.rna_bulges, s.g_out, s.t_out, cigar, pam_bases));
    }
  }

  writer& out_;
  const std::vector<guide>& guides_;
  const std::vector<std::string>& pams_;
  const offtarget_args& a_;
  site_finder finder_;
  std::vector<std::uint64_t>& sites_;
  std::vector<bool>& warned_;
  std::size_t reach_;
  std::vector<site_classes>& classes_;
  std::string name_;
  text_buffer text_;
  std::map<site_key, site> best_;
};

/// offtarget --index: the candidates from the index (hybrid_index::search_records: the kernel
/// scanned, the ends copied), each record's sites classified from the bytes around them,
/// extracted from the index into a record-long buffer (the bytes no candidate reaches are never
/// read), then the same sink as a genome file's.
void search_index(const offtarget_args& a, const std::vector<guide>& guides, const std::vector<std::string>& patterns,
                  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of, const search_options& so,
                  const device_choice& device, const site_finder& finder, writer& out, std::vector<std::uint64_t>& sites,
                  std::vector<bool>& warned, std::vector<site_classes>& classes, std::size_t reach) {
  const auto idx = index::hybrid_index::load(a.index);
  search_options through = so;
  through.device = device.host_bound && device.kind == device_kind::automatic ? device_kind::cpu : device.kind;
  const auto found = mpi::search_records(idx, patterns, through);
  if (mpi::rank() != 0) return;
  // a site reaches `reach` bytes before its candidate's end and the bulges after it
  const std::uint64_t before = reach + 8, after = static_cast<std::uint64_t>(a.dna_bulges + a.rna_bulges) + 8;
  const auto records = idx.records();
  for (std::size_t i = 0; i < found.size();) {
    const std::uint32_t r = found[i].record;
    std::size_t e = i;
    while (e < found.size() && found[e].record == r) ++e;
    const std::uint64_t len = records[r].length;
    std::string seq(len, 'N');
    for (std::size_t c = i; c < e;) {  // the windows around the candidates, overlapping ones merged
      std::uint64_t lo = found[c].h.end > before ? found[c].h.end - before : 0, hi = std::min(len, found[c].h.end + after);
      std::size_t d = c + 1;
      while (d < e && (found[d].h.end > before ? found[d].h.end - before : 0) <= hi)
        hi = std::min(len, std::max(hi, found[d++].h.end + after));
      const std::string bytes = idx.extract_record(r, lo, hi);
      seq.replace(lo, bytes.size(), bytes);
      c = d;
    }
    std::vector<hit> hits;
    for (std::size_t c = i; c < e; ++c) hits.push_back(found[c].h);
    // the candidates with a site, classified on all cores (the sink classifies those again)
    const auto text = [&seq](std::uint64_t x, std::uint64_t y) {
      x = std::min<std::uint64_t>(x, seq.size());
      y = std::min<std::uint64_t>(std::max(x, y), seq.size());
      return std::string_view(seq).substr(x, y - x);
    };
    std::vector<char> keep(hits.size(), 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, hits.size(), 256), [&](const tbb::blocked_range<std::size_t>& b) {
      for (std::size_t h = b.begin(); h != b.end(); ++h)
        finder.sites_of(hits[h], text, [&](const site_key&, site&&) { keep[h] = 1; });
    });
    std::size_t w = 0;
    for (std::size_t h = 0; h < hits.size(); ++h)
      if (keep[h]) hits[w++] = hits[h];
    hits.resize(w);
    offtarget_sink sink(out, guides, a.pams, pattern_of, a, sites, warned, reach, classes);
    record_info info;
    info.name = records[r].name;
    info.index = r;
    info.format = io::format::fasta;
    sink.begin_record(info);
    sink.text(0, seq, true);
    sink.hits(hits);
    sink.end_record(len);
    i = e;
  }
}

int run_offtarget(offtarget_args& a) {
  if (a.pam_side != 3 && a.pam_side != 5) throw error(errc::invalid_argument, "--pam-side is 3 or 5");
  if (a.index.empty() && a.genomes.empty()) throw error(errc::invalid_argument, "no GENOME file (or --index IDX) given");
  if (!a.index.empty() && !a.genomes.empty()) throw error(errc::invalid_argument, "--index takes the place of GENOME files");
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
  std::size_t longest = 0;
  for (std::uint32_t gi = 0; gi < guides.size(); ++gi) {
    const int spacer = guides[gi].mismatches + a.dna_bulges + a.rna_bulges;
    k = std::max(k, (a.max_edits >= 0 ? std::min(spacer, a.max_edits) : spacer) + a.pam_mismatches);
    for (std::uint32_t pi = 0; pi < a.pams.size(); ++pi) {
      patterns.push_back(a.pam_side == 5 ? a.pams[pi] + guides[gi].seq : guides[gi].seq + a.pams[pi]);
      pattern_of.emplace_back(gi, pi);
      longest = std::max(longest, patterns.back().size());
    }
  }
  search_options so;
  so.max_errors = k;
  so.hamming = a.dna_bulges == 0 && a.rna_bulges == 0;  // without bulges a site is a window
  so.iupac = true;
  so.both_strands = true;
  so.all_ends = true;  // every window: a cluster's one hit could hide a site
  so.starts = false;   // sites are anchored at the PAM, found from the ends
  so.threads = a.threads;
  device_choice device = parse_device(a.device);
  device.verbose = a.verbose;
  // with bulges the candidates are dense and classifying them, on the host's cores whatever
  // finds them, dominates: no GPU start-up and no candidate transfer pays for itself
  device.host_bound = a.dna_bulges + a.rna_bulges > 0;
  const auto m = make_matcher(patterns, so);
  std::size_t n_codes = 0;  // the most N codes in one pattern: they match the genome's N
  for (const auto& p : patterns)
    n_codes = std::max<std::size_t>(n_codes, static_cast<std::size_t>(std::count_if(p.begin(), p.end(), [](char c) { return (c | 0x20) == 'n'; })));
  const n_run_matcher cpu(*m, static_cast<std::size_t>(k) + n_codes);
  // Candidates without a site are dropped on the workers; a site reaches m + P + DNA bulges
  // before a candidate's end, and DNA + RNA bulges past it.
  const site_finder finder(guides, a.pams, pattern_of, a);
  const auto filter = [&](const matcher& inner, unsigned arena_threads) {
    return std::make_unique<site_filter_matcher>(inner, finder, longest + static_cast<std::size_t>(a.dna_bulges) + 1,
                                                 static_cast<std::size_t>(a.dna_bulges + a.rna_bulges) + 1,
                                                 arena_threads);
  };
  // the GPU's search runs one worker per device (and one more): its filter takes -j threads
  const unsigned all_threads = a.threads != 0 ? a.threads : static_cast<unsigned>(tbb::info::default_concurrency());
  const auto filtered_gpu = [&](const matcher& inner) { return filter(inner, all_threads); };

  writer out;
  if (a.format == "tsv")
    out.put("#guide\tguide_seq\tchrom\tstart\tend\tstrand\tmismatches\tdna_bulges\trna_bulges\taligned_guide\t"
            "aligned_target\tcigar\tpam\n");
  else if (a.format == "casoffinder")
    out.put("#Id\tBulge Type\tcrRNA\tDNA\tChromosome\tLocation\tDirection\tMismatches\tBulge Size\n");
  std::vector<std::uint64_t> sites(guides.size(), 0);
  std::vector<bool> warned(guides.size(), false);
  std::vector<site_classes> classes(guides.size());
  bool any_error = false;
  if (!a.index.empty()) {
    search_index(a, guides, patterns, pattern_of, so, device, finder, out, sites, warned, classes,
                 longest + static_cast<std::size_t>(k + a.dna_bulges) + 1);
  }
  for (const std::string& file : a.genomes) {
    try {
      io::open_options oo;
      oo.name = file == "-" ? "(standard input)" : file;
      auto input = io::source::open(file, oo);
      offtarget_sink sink(out, guides, a.pams, pattern_of, a, sites, warned,
                          longest + static_cast<std::size_t>(k + a.dna_bulges) + 1, classes);
      search_on_device(*filter(cpu, 0), patterns, input, so, stream_options{}, device, sink, filtered_gpu);
    } catch (const error& e) {
      out.flush();
      std::fprintf(stderr, "trawl: %s\n", e.what());
      any_error = true;
    }
  }
  out.flush();
  if (any_error) return 2;
  if (!a.summary.empty()) write_summary(a.summary, guides, classes);
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
  cmd->callback([a, &state] { state.exit_code = run_offtarget(*a); });
}

}  // namespace trawl::cli
