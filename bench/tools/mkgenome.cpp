// mkgenome.cpp — writes a random genome (FASTA, 60-column lines) with a motif planted at random
// positions and strands, exactly and with substitutions; the truth goes to a TSV file. With
// --haplotypes H, writes H haplotypes of that genome instead (a pangenome): each a copy with
// its own SNPs (--snp-rate) and small indels of 1-3 bases (--indel-rate), records named
// hapH_chrR. Deterministic for a given --seed. O(length · max(1, H)).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

namespace {

std::string revcomp(const std::string& s) {
  std::string r(s.rbegin(), s.rend());
  for (char& c : r) c = c == 'A' ? 'T' : c == 'T' ? 'A' : c == 'C' ? 'G' : 'C';
  return r;
}

/// The usage, on stdout with exit 0 (--help) or on stderr with exit 2 (anything wrong).
[[noreturn]] void usage(bool asked = false) {
  std::fprintf(asked ? stdout : stderr,
               "usage: trawl-mkgenome --length N [--records R] [--motif ACGT...] [--exact E] [--mutated M]\n"
               "                      [--errors K] [--seed S] [--truth FILE]   (FASTA on stdout)\n"
               "                      [--haplotypes H [--snp-rate R] [--indel-rate R]]\n");
  std::exit(asked ? 0 : 2);
}

}  // namespace

int main(int argc, char** argv) {
  std::uint64_t length = 0, records = 1, exact = 0, mutated = 0, errors = 1, seed = 1;
  std::string motif, truth_path;
  std::uint64_t haplotypes = 0;
  double snp_rate = 0.001, indel_rate = 0.0001;
  for (int i = 1; i < argc; ++i) {
    auto next = [&]() -> const char* {
      if (i + 1 >= argc) usage();
      return argv[++i];
    };
    const std::string a = argv[i];
    if (a == "--help" || a == "-h") usage(true);
    if (a == "--length") length = std::strtoull(next(), nullptr, 10);
    else if (a == "--records") records = std::strtoull(next(), nullptr, 10);
    else if (a == "--motif") motif = next();
    else if (a == "--exact") exact = std::strtoull(next(), nullptr, 10);
    else if (a == "--mutated") mutated = std::strtoull(next(), nullptr, 10);
    else if (a == "--errors") errors = std::strtoull(next(), nullptr, 10);
    else if (a == "--seed") seed = std::strtoull(next(), nullptr, 10);
    else if (a == "--truth") truth_path = next();
    else if (a == "--haplotypes") haplotypes = std::strtoull(next(), nullptr, 10);
    else if (a == "--snp-rate") snp_rate = std::strtod(next(), nullptr);
    else if (a == "--indel-rate") indel_rate = std::strtod(next(), nullptr);
    else usage();
  }
  if (length == 0 || records == 0 || ((exact + mutated) > 0 && motif.empty())) usage();
  std::mt19937_64 rng(seed);
  const char bases[] = "ACGT";
  std::vector<std::string> seqs(records);
  for (auto& s : seqs) {
    s.resize(length / records);
    for (auto& c : s) c = bases[rng() & 3];
  }
  std::FILE* truth = truth_path.empty() ? nullptr : std::fopen(truth_path.c_str(), "w");
  const std::uint64_t m = motif.size();
  for (std::uint64_t i = 0; i < exact + mutated; ++i) {
    const std::uint64_t r = rng() % records;
    auto& s = seqs[r];
    if (s.size() < m) break;
    // Non-overlapping slots of 4m so planted copies never touch each other.
    const std::uint64_t slots = s.size() / (4 * m);
    const std::uint64_t pos = (rng() % slots) * 4 * m + m;
    if (pos + m > s.size()) continue;
    const bool reverse = rng() & 1;
    std::string copy = reverse ? revcomp(motif) : motif;
    std::uint64_t subs = 0;
    std::vector<bool> hit_before(m, false);
    if (i >= exact)
      for (std::uint64_t e = 0; e < errors && e < m; ++e) {
        std::uint64_t p = rng() % m;
        while (hit_before[p]) p = (p + 1) % m;  // distinct positions: exactly `errors` substitutions
        hit_before[p] = true;
        const char old = copy[p];
        do copy[p] = bases[rng() & 3]; while (copy[p] == old);
        ++subs;
      }
    s.replace(pos, m, copy);
    if (truth) std::fprintf(truth, "chr%llu\t%llu\t%llu\t%llu\t%c\n", static_cast<unsigned long long>(r + 1),
                            static_cast<unsigned long long>(pos), static_cast<unsigned long long>(pos + m),
                            static_cast<unsigned long long>(subs), reverse ? '-' : '+');
  }
  if (truth) std::fclose(truth);
  auto write = [](const std::string& s) {
    for (std::size_t p = 0; p < s.size(); p += 60) std::printf("%.*s\n", static_cast<int>(std::min<std::size_t>(60, s.size() - p)), s.data() + p);
  };
  if (haplotypes == 0) {
    for (std::uint64_t r = 0; r < records; ++r) {
      std::printf(">chr%llu random genome, seed %llu\n", static_cast<unsigned long long>(r + 1),
                  static_cast<unsigned long long>(seed));
      write(seqs[r]);
    }
    return 0;
  }
  std::uniform_real_distribution<double> u(0.0, 1.0);
  std::string h;
  for (std::uint64_t hap = 0; hap < haplotypes; ++hap)
    for (std::uint64_t r = 0; r < records; ++r) {
      const auto& s = seqs[r];
      h.clear();
      h.reserve(s.size() + s.size() / 100);
      for (std::size_t p = 0; p < s.size(); ++p) {
        const double x = u(rng);
        if (x >= snp_rate + indel_rate) {
          h += s[p];
        } else if (x < snp_rate) {  // a SNP: another base
          char c;
          do c = bases[rng() & 3]; while (c == s[p]);
          h += c;
        } else if (rng() & 1) {  // a deletion of 1-3 bases
          p += rng() % 3;
        } else {  // an insertion of 1-3 bases after this one
          h += s[p];
          for (std::uint64_t i = 0, n = 1 + rng() % 3; i < n; ++i) h += bases[rng() & 3];
        }
      }
      std::printf(">hap%llu_chr%llu haplotype of a random genome, seed %llu\n", static_cast<unsigned long long>(hap + 1),
                  static_cast<unsigned long long>(r + 1), static_cast<unsigned long long>(seed));
      write(h);
    }
  return 0;
}
