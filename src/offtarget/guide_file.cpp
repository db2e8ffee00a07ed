// guide_file.cpp — offtarget's guide files (offtarget.hpp's parse_guides): FASTA, `NAME SEQ`
// lines, one sequence a line, or a Cas-OFFinder input file with its pattern and limits.
#include <cctype>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "common/iupac.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"

namespace trawl::offtarget {
namespace {

/// The words of a line, split at white space.
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

}  // namespace

guide_file parse_guides(std::string_view b, const std::string& path) {
  guide_file file;
  std::vector<guide>& out = file.guides;
  if (io::detect_format(b) != io::format::plain) {
    io::record_reader rr(b, io::format::automatic, path);
    io::record r;
    while (rr.next(r)) out.push_back({std::string(r.name), detail::ascii_upper(r.sequence), -1});
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
    // Cas-OFFinder: the genome's path, the pattern (Cas-OFFinder 3: with the DNA and RNA bulge
    // sizes after it), then `SEQ MISMATCHES [NAME]` lines
    const auto pattern_line = [&] {
      if (lines.size() < 3 || fields(lines[2]).size() < 2) return false;
      const auto f = fields(lines[1]);
      if (f.empty() || !detail::iupac_sequence(f[0])) return false;
      int v = 0;
      return f.size() == 1 || (f.size() == 3 && std::sscanf(std::string(f[1]).c_str(), "%d", &v) == 1 &&
                               std::sscanf(std::string(f[2]).c_str(), "%d", &v) == 1);
    };
    const bool casoffinder = pattern_line();
    const bool one_per_line = !casoffinder && std::all_of(lines.begin(), lines.end(), [](std::string_view l) {
      const auto f = fields(l);
      return f.size() == 1 && detail::iupac_sequence(f[0]);
    });
    if (casoffinder) {
      const auto pf = fields(lines[1]);
      const std::string pattern = detail::ascii_upper(pf[0]);
      if (pf.size() == 3) {
        int dna = -1, rna = -1;
        std::sscanf(std::string(pf[1]).c_str(), "%d", &dna);
        std::sscanf(std::string(pf[2]).c_str(), "%d", &rna);
        if (dna < 0 || rna < 0 || dna > 16 || rna > 16)
          throw error(errc::invalid_argument, path + ": line 2: the bulge sizes must be in 0..16");
        file.dna_bulges = dna;
        file.rna_bulges = rna;
      }
      // the PAM is where the guides are padded with N (after the protospacer: a 3' PAM)
      const std::string first = detail::ascii_upper(fields(lines[2])[0]);
      const std::size_t trail = first.size() - 1 - std::min(first.size() - 1, first.find_last_not_of('N'));
      const std::size_t lead = std::min(first.size(), first.find_first_not_of('N'));
      const bool five = trail == 0;
      const std::size_t pam_len = five ? lead : trail;
      if (pam_len == 0 || pam_len >= pattern.size() || first.size() != pattern.size())
        throw error(errc::invalid_argument, path + ": the guides are not padded with N where the PAM is");
      file.side = five ? pam_side::five_prime : pam_side::three_prime;
      file.pams = {five ? pattern.substr(0, pam_len) : pattern.substr(pattern.size() - pam_len)};
      for (std::size_t i = 2; i < lines.size(); ++i) {
        const auto f = fields(lines[i]);
        int mm = 0;
        if (f.size() < 2 || f[0].size() != pattern.size() || std::sscanf(std::string(f[1]).c_str(), "%d", &mm) != 1 ||
            mm < 0)
          throw error(errc::invalid_argument, path + ": line " + std::to_string(i + 1) +
                                                  ": want SEQ MISMATCHES [NAME] with SEQ as long as the pattern line");
        const std::string seq = detail::ascii_upper(f[0]);
        out.push_back({f.size() > 2 ? std::string(f[2]) : seq,
                       five ? seq.substr(pam_len) : seq.substr(0, seq.size() - pam_len), mm});
      }
    } else if (one_per_line) {
      for (std::string_view l : lines) out.push_back({"guide" + std::to_string(out.size() + 1), detail::ascii_upper(fields(l)[0]), -1});
    } else {
      for (std::string_view l : lines) {
        const auto f = fields(l);
        if (f.size() != 2)
          throw error(errc::invalid_argument,
                      path + ": want FASTA, `NAME SEQ` lines, one sequence a line or a Cas-OFFinder input file");
        out.push_back({std::string(f[0]), detail::ascii_upper(f[1]), -1});
      }
    }
  }
  if (out.empty()) throw error(errc::invalid_argument, path + ": no guide");
  for (const guide& g : out)
    if (!detail::iupac_sequence(g.protospacer))
      throw error(errc::invalid_argument, path + ": guide " + g.name + " is not DNA (IUPAC)");
  return file;
}

}  // namespace trawl::offtarget
