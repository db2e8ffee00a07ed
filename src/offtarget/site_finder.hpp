// site_finder.hpp — the sites of a candidate hit for offtarget.cpp: the PAM positions it
// implies, each PAM's mismatches, the guide's alignment outward from it (site_align.hpp), and
// a site's strings (aligned guide and target, CIGAR, PAM bases) built from them.
#pragma once

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <vector>

#include "common/iupac.hpp"
#include "common/line_vector.hpp"
#include "offtarget/site_align.hpp"
#include "offtarget/site_rows.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace trawl::offtarget::finding {

using namespace site_align;

/// text(a, b) over a whole sequence, as site_finder reads it: the bytes [a, b), clipped to
/// what is there.
inline auto text_of(std::string_view seq) {
  return [seq](std::uint64_t a, std::uint64_t b) {
    a = std::min<std::uint64_t>(a, seq.size());
    b = std::min<std::uint64_t>(std::max(a, b), seq.size());
    return seq.substr(a, b - a);
  };
}

inline constexpr const auto& base_bits = detail::strand_base_bits;

/// The complement of each byte, as reverse_complement writes it.
inline const auto complement = [] {
  std::array<char, 256> t{};
  for (unsigned c = 0; c < 256; ++c) {
    const char b = static_cast<char>(c);
    t[c] = reverse_complement(std::string_view(&b, 1))[0];
  }
  return t;
}();

/// std::toupper and std::tolower of the "C" locale, which the library's output assumes.
inline char ascii_upper(unsigned char b) { return static_cast<char>(b >= 'a' && b <= 'z' ? b - ('a' - 'A') : b); }
inline char ascii_lower(unsigned char b) { return static_cast<char>(b >= 'A' && b <= 'Z' ? b + ('a' - 'A') : b); }

/// A genome base as a site shows it: upper case where it matches, lower case where not.
inline char cased(unsigned char b, bool match) { return match ? ascii_upper(b) : ascii_lower(b); }

struct site_key {
  std::uint64_t pam_start;
  std::uint32_t guide;
  strand dir;
  bool operator<(const site_key& o) const { return std::tie(pam_start, guide, dir) < std::tie(o.pam_start, o.guide, o.dir); }
};

/// Finds the sites of a candidate hit: the PAM positions it implies, each tested and ranked by
/// align_counts and, for the sites reported, aligned by align_traced_into. Used on the workers
/// (site_filter_matcher) and by the site sink.
class site_finder {
 public:
  site_finder(const std::vector<guide>& guides, const options& o,
              const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of)
      : guides_(guides), pams_(o.pams), pattern_of_(pattern_of), a_(o) {
    for (const std::string& p : pams_) {
      pam_bits_.emplace_back();
      for (const char c : p) pam_bits_.back().push_back(static_cast<unsigned char>(detail::iupac_bits(static_cast<unsigned char>(c))));
    }
    for (const guide& g : guides) {  // each guide read from its PAM outward
      outward_.push_back(g.protospacer);
      if (a_.side == pam_side::three_prime) std::reverse(outward_.back().begin(), outward_.back().end());
      outward_bits_.emplace_back();
      for (const char c : outward_.back())
        outward_bits_.back().push_back(static_cast<unsigned char>(detail::iupac_bits(static_cast<unsigned char>(c))));
    }
  }

  /// Order of two alignments of one site: fewest edits, bulges, mismatches, DNA bulges, PAM
  /// mismatches, then the first PAM (each count below 2^8: the searcher's limits bound them).
  using rank_t = std::pair<std::uint64_t, std::uint32_t>;
  static rank_t rank(const site& x) {
    return rank(site_alignment{x.mismatches, x.dna_bulges, x.rna_bulges, 0, {}}, x.pam_mismatches, x.pam);
  }
  static rank_t rank(const site_alignment& al, int pam_mismatches, std::uint32_t pam) {
    const auto u = [](int v) { return static_cast<std::uint64_t>(v); };
    const std::uint64_t bulges = u(al.dna_bulges + al.rna_bulges);
    return {(u(al.mismatches) + bulges) << 48 | bulges << 40 | u(al.mismatches) << 24 | u(al.dna_bulges) << 16 |
                u(pam_mismatches),
            pam};
  }

  /// Calls fn(key, pam) for every place where candidate h may have a site: the PAM positions
  /// it implies (pam_starts), each with its guide, strand and PAM.
  template <class Fn>
  void places_of(const hit& h, Fn&& fn) const {
    const std::uint32_t gi = pattern_of_[h.pattern].first, pi = pattern_of_[h.pattern].second;
    pam_starts(h.pattern, h.dir, h.end, [&](std::uint64_t ps) { fn(site_key{ps, gi, h.dir}, pi); });
  }

  /// The rank of the site of PAM pi at place k, if there is one (align_site without the site's
  /// strings: the alignment's counts only).
  template <class Text>
  [[nodiscard]] std::optional<rank_t> rank_at(const site_key& k, std::uint32_t pi, const Text& text) const {
    int pam_mm = 0;
    const auto al = align_site<false>(k.guide, pi, k.dir, k.pam_start, text, pam_mm, nullptr, nullptr);
    if (!al) return std::nullopt;
    return rank(*al, pam_mm, pi);
  }

  /// Calls fn(ps) for every forward position ps where the PAM of a candidate of (guide + PAM)
  /// `pattern` on `dir` ending at `end` may start: at that end of the hit (3' PAM forward, 5'
  /// PAM reverse), or at a distance the bulges set from it.
  template <class Fn>
  void pam_starts(std::uint32_t pattern, strand dir, std::uint64_t end, Fn&& fn) const {
    const auto [gi, pi] = pattern_of_[pattern];
    const std::uint64_t P = pams_[pi].size(), m = guides_[gi].protospacer.size();
    const bool right = (a_.side == pam_side::three_prime) == (dir == strand::forward);  // PAM at the hit's right end
    if (right) {
      if (end >= P) fn(end - P);
      return;
    }
    // the PAM on the left: the far end is `end`; the PAM starts m - rna .. m + dna bases before it
    for (std::uint64_t len = m - std::min<std::uint64_t>(m, static_cast<std::uint64_t>(a_.rna_bulges));
         len <= m + static_cast<std::uint64_t>(a_.dna_bulges); ++len)
      if (end >= len + P) fn(end - len - P);
  }

  /// The bytes a site of guide gi with PAM pi whose PAM starts at forward position ps reads on
  /// strand dir, from one text() call: the PAM's P bytes and the protospacer side's, in
  /// forward order. On the right of the PAM as many side bytes as the text holds (up to m + DNA
  /// bulges); on the left all of them from the record's start or m + DNA bulges before the PAM.
  /// Empty `pam` where the bytes are not all there (no site).
  struct site_bytes {
    std::string_view pam, side;
    bool left = false;  ///< the side lies left of the PAM (read outward: backwards)
  };
  template <class Text>
  [[nodiscard]] site_bytes bytes_at(std::uint32_t gi, std::uint32_t pi, strand dir, std::uint64_t ps,
                                    const Text& text) const {
    const std::uint64_t P = pams_[pi].size();
    const std::uint64_t far = guides_[gi].protospacer.size() + static_cast<std::uint64_t>(a_.dna_bulges);
    site_bytes b;
    b.left = (a_.side == pam_side::three_prime) == (dir == strand::forward);
    if (b.left) {
      const std::uint64_t lo = ps >= far ? ps - far : 0;
      const std::string_view v = text(lo, ps + P);
      if (v.size() != ps + P - lo) return b;
      b.pam = v.substr(ps - lo);
      b.side = v.substr(0, ps - lo);
    } else {
      const std::string_view v = text(ps, ps + P + far);
      if (v.size() < P) return b;
      b.pam = v.substr(0, P);
      b.side = v.substr(P);
    }
    return b;
  }

  /// Mismatches of PAM pi against its bytes `t` (forward order), read on strand dir.
  [[nodiscard]] int pam_mismatches(std::uint32_t pi, strand dir, std::string_view t) const {
    const std::vector<unsigned char>& pam = pam_bits_[pi];
    const std::size_t P = pam.size();
    // on the reverse strand: the complement of the forward bases, backwards
    const bool forward = dir == strand::forward;
    const auto& to_bits = base_bits[forward ? 0 : 1];
    int mm = 0;
    for (std::size_t i = 0; i < P; ++i)
      mm += (pam[i] & to_bits[static_cast<unsigned char>(t[forward ? i : P - 1 - i])]) == 0 ? 1 : 0;
    return mm;
  }

  /// Whether candidate h has a site.
  template <class Text>
  [[nodiscard]] bool has_site(const hit& h, const Text& text) const {
    const std::uint32_t gi = pattern_of_[h.pattern].first, pi = pattern_of_[h.pattern].second;
    bool any = false;
    int pam_mm = 0;
    pam_starts(h.pattern, h.dir, h.end,
               [&](std::uint64_t ps) { any = any || align_site<false>(gi, pi, h.dir, ps, text, pam_mm, nullptr, nullptr).has_value(); });
    return any;
  }

  /// The best alignment of guide gi with PAM pi whose PAM starts at forward position ps, if one
  /// is within the limits (align_bytes of bytes_at).
  template <bool Trace, class Text>
  std::optional<site_alignment> align_site(std::uint32_t gi, std::uint32_t pi, strand dir, std::uint64_t ps,
                                           const Text& text, int& pam_mm, char* cols, int* n_cols) const {
    return align_bytes<Trace>(gi, pi, dir, bytes_at(gi, pi, dir, ps, text), pam_mm, cols, n_cols);
  }

  /// The best alignment of guide gi with PAM pi on strand dir at bytes `b` (bytes_at), if one is
  /// within the limits; `pam_mm` receives the PAM's mismatches. With `Trace` its columns from
  /// the PAM outward go to cols[0, *n_cols) (align_traced_into).
  template <bool Trace>
  std::optional<site_alignment> align_bytes(std::uint32_t gi, std::uint32_t pi, strand dir, const site_bytes& b,
                                            int& pam_mm, char* cols, int* n_cols) const {
    const guide& g = guides_[gi];
    if (b.pam.empty()) return std::nullopt;
    // The PAM first: most candidates of a search with bulges have none at this position.
    pam_mm = pam_mismatches(pi, dir, b.pam);
    if (pam_mm > a_.pam_mismatches) return std::nullopt;
    // the protospacer side as base bits, outward from the PAM
    const auto& to_bits = base_bits[dir == strand::forward ? 0 : 1];
    thread_local trawl::detail::line_vector<unsigned char> tb;
    const std::size_t n = b.side.size();
    tb.resize(n);
    for (std::size_t j = 0; j < n; ++j) tb[j] = to_bits[static_cast<unsigned char>(b.side[b.left ? n - 1 - j : j])];
    auto al = Trace ? align_traced_into(outward_bits_[gi], tb, g.mismatches, a_.dna_bulges, a_.rna_bulges, cols, *n_cols)
                    : align_counts(outward_bits_[gi], tb, g.mismatches, a_.dna_bulges, a_.rna_bulges);
    // the best alignment has the fewest edits: beyond --max-edits, so is every other
    if (al && a_.max_edits >= 0 && al->mismatches + al->dna_bulges + al->rna_bulges > a_.max_edits) return std::nullopt;
    return al;
  }

  /// A site found (aligned_at) and not written yet: its place, bytes (a view of the text) and
  /// alignment with its columns.
  struct aligned {
    std::uint32_t gi = 0, pi = 0;
    strand dir = strand::forward;
    std::uint64_t ps = 0;
    site_bytes bytes;
    site_alignment al;
    int pam_mm = 0;
    std::array<char, max_columns> columns;  ///< from the PAM outward, [0, n_columns)
    int n_columns = 0;
  };

  /// The site of guide gi with PAM pi whose PAM starts at forward position ps on strand dir,
  /// into `a` for write(); false where none is within the limits.
  template <class Text>
  [[nodiscard]] bool aligned_at(std::uint32_t gi, std::uint32_t pi, strand dir, std::uint64_t ps, const Text& text,
                                aligned& a) const {
    a.gi = gi, a.pi = pi, a.dir = dir, a.ps = ps;
    a.bytes = bytes_at(gi, pi, dir, ps, text);
    auto al = align_bytes<true>(gi, pi, dir, a.bytes, a.pam_mm, a.columns.data(), &a.n_columns);
    if (!al) return false;
    a.al = std::move(*al);
    return true;
  }

  /// The site `a` (aligned_at, while the text it viewed is there) written to `to`, every field set.
  void write(const aligned& a, site& to) const {
    const std::uint32_t gi = a.gi, pi = a.pi;
    const strand dir = a.dir;
    const std::uint64_t ps = a.ps;
    const site_bytes& bytes = a.bytes;
    const site_alignment* const al = &a.al;
    const int pam_mm = a.pam_mm;
    const std::string_view ops(a.columns.data(), static_cast<std::size_t>(a.n_columns));
    const std::string& pam = pams_[pi];
    const std::uint64_t P = pam.size();
    const bool three = a_.side == pam_side::three_prime;
    const bool pam_right_of_spacer = three == (dir == strand::forward);  // forward coordinates
    const std::uint64_t used = al->text_len;
    const bool reverse = dir == strand::reverse;
    to.guide = gi;
    to.pam = pi;
    to.dir = dir;
    to.start = pam_right_of_spacer ? ps - used : ps;
    to.end = pam_right_of_spacer ? ps + P : ps + P + used;
    to.mismatches = al->mismatches;
    to.dna_bulges = al->dna_bulges;
    to.rna_bulges = al->rna_bulges;
    to.pam_mismatches = pam_mm;
    // A base is shown on the guide's strand (the complement of the genome's byte on the
    // reverse one), upper case where it matches its code: as the alignment counted it, from
    // the byte's bits on that strand (a byte that is no base, U included, matches nothing).
    const auto& to_bits = base_bits[reverse ? 1 : 0];
    const auto& show = shown_[reverse ? 1 : 0];
    const auto shown = [&](char byte, unsigned code) {
      const auto raw = static_cast<unsigned char>(byte);
      return show[(code & to_bits[raw]) != 0 ? 1 : 0][raw];
    };
    // the PAM's bases in the guide's reading order (5' to 3' on its strand)
    to.pam_bases.resize(P);
    for (std::size_t k = 0; k < P; ++k) to.pam_bases[k] = shown(bytes.pam[reverse ? P - 1 - k : k], pam_bits_[pi][k]);
    // the side's byte j outward from the PAM
    const std::size_t n = bytes.side.size();
    const auto side = [&](std::size_t j) { return bytes.side[bytes.left ? n - 1 - j : j]; };
    // the columns, outward from the PAM; the strings are written in the guide's 5'->3' order:
    // from their end for a 3' PAM (outward is 3'->5'), after the PAM for a 5' one
    const std::string& gq = outward_[gi];
    const std::size_t cols = ops.size() + P;
    to.aligned_guide.resize(cols);
    to.aligned_target.resize(cols);
    char* const ag = to.aligned_guide.data();
    char* const at = to.aligned_target.data();
    // each column's CIGAR operation, 5'->3': =, X, I (RNA bulge: guide only), D (DNA bulge:
    // target only)
    thread_local std::string kinds;
    kinds.resize(cols);
    const auto kind = [](char t) { return t >= 'A' && t <= 'Z' ? '=' : 'X'; };
    std::size_t i = 0, j = 0;
    for (std::size_t c = 0; c < ops.size(); ++c) {
      const char op = ops[c];
      char g = '-', t = '-', k;
      if (op == 'M') {
        t = shown(side(j++), outward_bits_[gi][i]);
        g = gq[i++];
        k = kind(t);
      } else if (op == 'D') {
        t = show[1][static_cast<unsigned char>(side(j++))];
        k = 'D';
      } else {
        g = gq[i++];
        k = 'I';
      }
      const std::size_t to_col = three ? cols - 1 - P - c : P + c;  // spacer column c, outward
      ag[to_col] = g;
      at[to_col] = t;
      kinds[to_col] = k;
    }
    const std::size_t pam_col = three ? cols - P : 0;  // the PAM's columns, 5'->3'
    for (std::size_t k = 0; k < P; ++k) {
      ag[pam_col + k] = pam[k];
      at[pam_col + k] = to.pam_bases[k];
      kinds[pam_col + k] = kind(to.pam_bases[k]);
    }
    // the CIGAR: each run of one operation, its length and letter
    thread_local std::string cigar;
    if (cigar.size() < 21 * cols) cigar.resize(21 * cols);  // a run's length has at most 20 digits
    char* const out = cigar.data();
    std::size_t len = 0;
    for (std::size_t c = 0, e; c < cols; c = e) {
      for (e = c + 1; e < cols && kinds[e] == kinds[c]; ++e) {
      }
      len = static_cast<std::size_t>(std::to_chars(out + len, out + cigar.size(), e - c).ptr - out);
      out[len++] = kinds[c];
    }
    to.cigar.assign(out, len);
  }

 private:
  const std::vector<guide>& guides_;
  const std::vector<std::string>& pams_;
  const std::vector<std::pair<std::uint32_t, std::uint32_t>>& pattern_of_;
  const options& a_;
  std::vector<std::string> outward_;  ///< per guide: its protospacer from the PAM outward
  std::vector<std::vector<unsigned char>> outward_bits_;  ///< the same as IUPAC bits
  std::vector<std::vector<unsigned char>> pam_bits_;  ///< per PAM: its codes as base bits (iupac_bits)
  /// per strand (forward, reverse), per match (no, yes): each genome byte as a site shows it
  /// (cased, on the guide's strand: the complement on the reverse one)
  static inline const auto shown_ = [] {
    std::array<std::array<std::array<char, 256>, 2>, 2> t{};
    for (unsigned c = 0; c < 256; ++c)
      for (int r = 0; r < 2; ++r) {
        const unsigned char b = r == 0 ? static_cast<unsigned char>(c) : static_cast<unsigned char>(complement[c]);
        t[r][0][c] = cased(b, false);
        t[r][1][c] = cased(b, true);
      }
    return t;
  }();
};

}  // namespace trawl::offtarget::finding
