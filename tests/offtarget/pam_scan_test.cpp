// The off-target search's CPU candidates without bulges (found from the PAM positions): the
// same ends, pattern and strand as the Hamming candidate search whose ends pass the site test,
// and the same hits whatever the slices. The sites themselves are checked against the
// brute-force oracle in tests/cli/offtarget_test.sh.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "offtarget/site_search.hpp"
#include "search_cases.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace {

using trawl::hit;
namespace ot = trawl::offtarget;

std::string random_genome(std::mt19937_64& rng, std::size_t n, const std::vector<ot::guide>& guides) {
  const std::string bases = "ACGTACGTACGTacgtN";
  std::string s(n, 'A');
  for (char& c : s) c = bases[rng() % bases.size()];
  for (int r = 0; r < 20; ++r) {  // runs of N
    const std::size_t at = rng() % (n - 400), len = 1 + rng() % 300;
    s.replace(at, len, len, 'N');
  }
  const char* pams[] = {"AGG", "TGG", "CAG", "GGG", "TTTA", "TTTC"};
  const std::string acgt = "ACGT";
  for (int p = 0; p < 400; ++p) {  // planted sites, mutated, on either strand, PAM on either side
    std::string g = guides[rng() % guides.size()].protospacer;
    for (char& c : g)
      if (c != 'A' && c != 'C' && c != 'G' && c != 'T') c = acgt[rng() % 4];
    std::string site = rng() % 2 ? g + pams[rng() % 4] : std::string(pams[4 + rng() % 2]) + g;
    for (std::uint64_t e = rng() % 6; e > 0; --e) site[rng() % site.size()] = "ACGTN"[rng() % 5];
    if (rng() % 2) site = trawl::reverse_complement(site);
    s.replace(rng() % (n - site.size()), site.size(), site);
  }
  return s;
}

std::vector<hit> run(const trawl::matcher& m, std::string_view seq, std::size_t slice, unsigned threads) {
  return test_cases::sliced_hits(m, seq, {}, threads, slice);
}

auto key(const hit& h) { return std::make_tuple(h.end, h.pattern, h.dir); }

TEST(PamScan, SameEndsAsTheCandidateSearchWithASiteAndAnySlices) {
  std::mt19937_64 rng(19);
  const std::vector<ot::guide> guides = {{"a", "GACGCATAAAGATGAGACGC", -1},     {"b", "TTGACCAGTCAAGGTACCAT", -1},
                                         {"iupac", "GACGRATAAAGNTGAGACYC", -1}, {"short", "ACGTTTGCAGG", -1},
                                         {"long", "CCTTGACGGATCAGTTGCAATGCC", 2}, {"n", "NNNNNNNNACGTACGTAC", -1}};
  constexpr auto five_prime = ot::pam_side::five_prime;
  const test_cases::offtarget_variant variants[] = {
      {.mismatches = 4},
      {.pams = {"NGG", "NAG"}, .pam_mismatches = 1},
      {.pams = {"TTTV"}, .side = five_prime},
      {.pams = {"NRG"}, .mismatches = 7},
      {.pams = {"TTTN", "NGG"}, .side = five_prime, .mismatches = 2, .pam_mismatches = 2, .max_edits = 1},
      {.mismatches = 0}};
  const std::string genome = random_genome(rng, 150000, guides);
  for (const auto& v : variants) {
    const ot::site_search s(guides, test_cases::options_of(v));
    const std::vector<hit> whole = run(s.cpu_matcher(), genome, genome.size(), 1);
    // the Hamming candidate search over guide + PAM, its ends that pass the site test
    const auto candidates = trawl::make_matcher(s.patterns(), s.candidate_options());
    const auto test = s.site_test();
    std::vector<std::tuple<std::uint64_t, std::uint32_t, trawl::strand>> want, got;
    for (const hit& h : run(*candidates, genome, 0, 2))
      if (test(genome, h.end, h.pattern, h.dir)) want.push_back(key(h));
    for (const hit& h : whole) got.push_back(key(h));
    ASSERT_GT(want.size(), 20u) << test_cases::describe(v);
    EXPECT_EQ(got, want) << test_cases::describe(v);
    for (const std::size_t slice : {std::size_t{64}, std::size_t{1000}, std::size_t{4096}})
      EXPECT_EQ(run(s.cpu_matcher(), genome, slice, 2), whole) << test_cases::describe(v) << " slice " << slice;
  }
}

}  // namespace
