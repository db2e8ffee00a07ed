// The off-target site sink (site_search::sink): the candidates of one record handed over in
// batches of any size, with the floors between them, give the same sites as all of them at
// once, each site once (its best alignment), in order, whichever thread hands them over.
// The sites of one batch are checked against the brute-force oracles in
// tests/cli/offtarget_test.sh.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "offtarget/site_search.hpp"
#include "oracle.hpp"
#include "search_cases.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace {

using trawl::hit;
namespace ot = trawl::offtarget;

struct collect final : ot::site_sink {
  std::vector<std::string> rows;
  void begin_record(const trawl::record_info& r) override { rows.push_back("record " + std::string(r.name)); }
  void site(const ot::site& s) override {
    rows.push_back(std::to_string(s.guide) + " " + std::to_string(s.pam) + " " + std::to_string(s.start) + " " +
                   std::to_string(s.end) + " " + (s.dir == trawl::strand::forward ? "+" : "-") + " " +
                   std::to_string(s.mismatches) + " " + std::to_string(s.dna_bulges) + " " +
                   std::to_string(s.rna_bulges) + " " + std::to_string(s.pam_mismatches) + " " + s.aligned_guide +
                   " " + s.aligned_target + " " + s.cigar + " " + s.pam_bases);
  }
  void end_record() override { rows.emplace_back("end"); }
};

/// The sites of `found` (the record's candidates, in the search's order) handed to the sink in
/// batches whose sizes `cut` gives, each followed by a floor at the next batch's first end.
template <class Cut>
std::vector<std::string> sites_of(const ot::site_search& s, std::string_view seq, const std::vector<hit>& found,
                                  std::size_t async_from, Cut&& cut) {
  collect out;
  const auto sink = s.sink(out, async_from);
  trawl::record_info r;
  r.name = "chr1";
  sink->begin_record(r);
  sink->text(0, seq, true);
  for (std::size_t i = 0; i < found.size();) {
    const std::size_t n = std::min(found.size() - i, cut());
    EXPECT_TRUE(sink->hits(std::span<const hit>(found).subspan(i, n)));
    i += n;
    // every later candidate ends at or past the least end still to come
    std::uint64_t next = seq.size();
    for (std::size_t j = i; j < found.size(); ++j) next = std::min(next, found[j].end);
    sink->floor(next);
  }
  sink->end_record(seq.size());
  sink->finish();
  return out.rows;
}

TEST(SiteSink, BatchesOfAnySizeGiveTheSitesOfOne) {
  std::mt19937_64 rng(23);
  std::vector<ot::guide> guides;
  for (int g = 0; g < 5; ++g) guides.push_back({std::string{'g', static_cast<char>('0' + g)}, oracle::random_text(rng, 20, "ACGT"), -1});
  guides.push_back({"short", "ACGTTTGCAGG", 2});
  // sites close together: a place several candidates and PAMs imply, often cut by a batch's edge
  std::string seq = oracle::random_text(rng, 60000, "ACGTacgt");
  for (int p = 0; p < 600; ++p) {
    std::string site = guides[rng() % guides.size()].protospacer;
    for (int e = static_cast<int>(rng() % 4); e > 0; --e) {
      const std::size_t at = 1 + rng() % (site.size() - 2);
      const auto what = rng() % 3;
      if (what == 0) site[at] = "ACGT"[rng() % 4];
      else if (what == 1) site.insert(at, 1, "ACGT"[rng() % 4]);
      else site.erase(at, 1);
    }
    if (rng() % 2) site += rng() % 2 ? "AGG" : "GAG";
    else site.insert(0, "TTTA");
    if (rng() % 2) site = oracle::reverse_complement(site);
    seq.replace(rng() % (seq.size() - site.size()), site.size(), site);
  }
  seq.replace(30000, 200, std::string(200, 'N'));
  constexpr auto five_prime = ot::pam_side::five_prime;
  const test_cases::offtarget_variant variants[] = {
      {.pams = {"NGG", "NAG"}, .mismatches = 3, .dna_bulges = 1, .rna_bulges = 1},
      {.pams = {"NGG"}, .mismatches = 2, .pam_mismatches = 1, .dna_bulges = 2, .rna_bulges = 1},
      {.pams = {"TTTV", "TTTN"}, .side = five_prime, .mismatches = 3, .dna_bulges = 1, .rna_bulges = 2},
      {.pams = {"NGG", "NAGG"}, .mismatches = 3, .dna_bulges = 1, .rna_bulges = 1},  // PAMs of two lengths
      {.pams = {"NGG", "NAGG"}, .mismatches = 3},
      {.pams = {"NGG", "NAG"}, .mismatches = 4},
      {.pams = {"NGG", "NRG"}, .mismatches = 0}};  // exact: candidates come by start
  for (const auto& v : variants) {
    const ot::site_search s(guides, test_cases::options_of(v));
    const auto candidates = trawl::make_matcher(s.patterns(), s.candidate_options());
    const std::vector<hit> found = test_cases::sliced_hits(*candidates, seq, s.candidate_options(), 1, 0);
    const auto whole = sites_of(s, seq, found, ~std::size_t{0}, [&] { return found.size(); });
    ASSERT_GT(whole.size(), 40u) << test_cases::describe(v);
    // every batch handed over on the caller's thread, on the handover's, or as it comes
    for (const std::size_t async_from : {~std::size_t{0}, std::size_t{0}, std::size_t{20}}) {
      EXPECT_EQ(sites_of(s, seq, found, async_from, [&] { return found.size(); }), whole) << test_cases::describe(v);
      for (const std::size_t most : {std::size_t{1}, std::size_t{7}, std::size_t{300}}) {
        std::mt19937_64 cuts(most);
        EXPECT_EQ(sites_of(s, seq, found, async_from, [&] { return 1 + cuts() % most; }), whole)
            << test_cases::describe(v) << " batches of up to " << most << ", async from " << async_from;
      }
    }
  }
}

/// The sites of `found` through site_search::windowed, the record read only through its reader
/// (each byte read checked against `seq`), in batches whose sizes `cut` gives; with an `offset`,
/// the candidates handed over as a joined text's, the record that far in.
template <class Cut>
std::vector<std::string> windowed_sites_of(const ot::site_search& s, const std::string& seq, std::vector<hit> found,
                                           bool test, std::uint64_t span, Cut&& cut, std::uint64_t* read = nullptr,
                                           std::uint64_t offset = 0) {
  for (hit& h : found) h.start += offset, h.end += offset;
  collect out;
  std::atomic<std::uint64_t> bytes{0};
  const auto sites = s.windowed(out, [&](std::uint32_t r, std::uint64_t lo, std::uint64_t hi, char* to) {
    bytes += hi - lo;
    EXPECT_EQ(r, 3u);
    EXPECT_LE(lo, hi);
    EXPECT_LE(hi, seq.size());
    std::copy(seq.begin() + static_cast<std::ptrdiff_t>(lo), seq.begin() + static_cast<std::ptrdiff_t>(hi), to);
  }, test, span);
  trawl::record_info r;
  r.name = "chr1";
  r.index = 3;
  sites->begin_record(r, seq.size());
  for (std::size_t i = 0; i < found.size();) {
    const std::size_t n = std::min(found.size() - i, cut());
    sites->candidates(std::span<const hit>(found).subspan(i, n), offset);
    i += n;
  }
  sites->end_record();
  sites->finish();
  if (read) *read = bytes;
  return out.rows;
}

TEST(SiteSink, SitesReadAroundTheCandidatesAreThoseOfTheWholeRecord) {
  // site_search::windowed, as a genome kept two bits a base and an index classify: the record's
  // bytes read only around the candidates, whole spans where they are dense (with bulges),
  // windows where not, in groups of any span, with and without the site test
  std::mt19937_64 rng(31);
  std::vector<ot::guide> guides;
  for (int g = 0; g < 4; ++g) guides.push_back({std::string{'g', static_cast<char>('0' + g)}, oracle::random_text(rng, 20, "ACGT"), -1});
  std::string seq = oracle::random_text(rng, 80000, "ACGTacgt");
  for (int p = 0; p < 150; ++p) {
    std::string site = guides[rng() % guides.size()].protospacer;
    for (int e = static_cast<int>(rng() % 3); e > 0; --e) site[1 + rng() % (site.size() - 2)] = "ACGT"[rng() % 4];
    if (rng() % 2) site += "AGG";
    else site.insert(0, "TTTA");
    if (rng() % 2) site = oracle::reverse_complement(site);
    seq.replace(rng() % (seq.size() - site.size()), site.size(), site);
  }
  seq.replace(40000, 300, std::string(300, 'N'));
  const test_cases::offtarget_variant variants[] = {
      {.pams = {"NGG", "NAG"}, .mismatches = 3, .dna_bulges = 1, .rna_bulges = 1},  // dense candidates
      {.pams = {"NGG"}, .mismatches = 2},                                           // few: windows
      {.pams = {"TTTV"}, .side = ot::pam_side::five_prime, .mismatches = 2, .dna_bulges = 1, .rna_bulges = 1}};
  for (const auto& v : variants) {
    const ot::site_search s(guides, test_cases::options_of(v));
    const auto candidates = trawl::make_matcher(s.patterns(), s.candidate_options());
    const std::vector<hit> found = test_cases::sliced_hits(*candidates, seq, s.candidate_options(), 1, 0);
    auto whole = sites_of(s, seq, found, ~std::size_t{0}, [&] { return found.size(); });
    ASSERT_GT(whole.size(), 20u) << test_cases::describe(v);
    whole.front() = "record chr1";
    // in one batch: dense candidates read their whole span, sparse ones windows around them
    std::uint64_t read = 0;
    EXPECT_EQ(windowed_sites_of(s, seq, found, false, std::uint64_t{64} << 20, [&] { return found.size(); }, &read), whole);
    if (v.dna_bulges == 0) EXPECT_LT(read, seq.size() / 4) << test_cases::describe(v);
    else EXPECT_GT(read, seq.size() / 2) << test_cases::describe(v);
    // a joined text's candidates, the record far in
    EXPECT_EQ(windowed_sites_of(s, seq, found, false, std::uint64_t{64} << 20, [] { return std::size_t{500}; }, nullptr,
                                std::uint64_t{5} << 32),
              whole)
        << test_cases::describe(v);
    for (const bool test : {false, true})
      for (const std::uint64_t span : {std::uint64_t{64} << 20, std::uint64_t{5000}, std::uint64_t{1}})
        for (const std::size_t most : {found.size(), std::size_t{1}, std::size_t{37}}) {
          std::mt19937_64 cuts(most);
          EXPECT_EQ(windowed_sites_of(s, seq, found, test, span, [&] { return 1 + cuts() % most; }), whole)
              << test_cases::describe(v) << " test " << test << " span " << span << " batches of up to " << most;
        }
  }
}

TEST(SiteSink, ARecordOfSeveralPiecesIsReadWhole) {
  // dense candidates over more than 2 MiB: their span read in several 1 MiB pieces, the last
  // one short
  std::mt19937_64 rng(37);
  const std::vector<ot::guide> guides = {{"g", oracle::random_text(rng, 20, "ACGT"), -1}};
  std::string seq = oracle::random_text(rng, (std::size_t{5} << 19) + 12345, "ACGT");
  for (std::size_t at = 1000; at + 40 < seq.size(); at += 300) {  // dense enough to be read whole
    std::string site = guides[0].protospacer + "TGG";
    site[3 + rng() % 15] = 'A';
    seq.replace(at, site.size(), rng() % 2 ? site : oracle::reverse_complement(site));
  }
  ot::options o;
  o.mismatches = 3;
  o.dna_bulges = o.rna_bulges = 1;
  const ot::site_search s(guides, o);
  const auto candidates = trawl::make_matcher(s.patterns(), s.candidate_options());
  const std::vector<hit> found = test_cases::sliced_hits(*candidates, seq, s.candidate_options(), 1, 0);
  auto whole = sites_of(s, seq, found, ~std::size_t{0}, [&] { return found.size(); });
  ASSERT_GT(whole.size(), 60u);
  whole.front() = "record chr1";
  std::uint64_t read = 0;
  EXPECT_EQ(windowed_sites_of(s, seq, found, false, std::uint64_t{64} << 20, [&] { return found.size(); }, &read), whole);
  EXPECT_GT(read, std::uint64_t{2} << 20);
}

TEST(SiteSink, WhatTheSiteSinkThrowsComesBackAndStopsIt) {
  // a site_sink that fails on its third batch (a closed pipe, a full disk): the error reaches
  // the search's side, on the handover's thread or not, and no batch is handed over after it
  std::mt19937_64 rng(29);
  const std::vector<ot::guide> guides = {{"g", oracle::random_text(rng, 20, "ACGT"), -1}};
  std::string seq = oracle::random_text(rng, 40000, "ACGT");
  for (std::size_t at = 100; at + 30 < seq.size(); at += 97) seq.replace(at, 23, guides[0].protospacer + "AGG");
  ot::options o;
  o.mismatches = 2;
  o.dna_bulges = 1;
  const ot::site_search s(guides, o);
  const auto candidates = trawl::make_matcher(s.patterns(), s.candidate_options());
  const std::vector<hit> found = test_cases::sliced_hits(*candidates, seq, s.candidate_options(), 1, 0);
  struct failing final : ot::site_sink {
    int batches = 0;
    void begin_record(const trawl::record_info&) override {}
    void site(const ot::site&) override {}
    void sites(std::span<const ot::site>) override {
      if (++batches == 3) throw std::runtime_error("write error");
    }
    void end_record() override {}
  };
  for (const std::size_t async_from : {~std::size_t{0}, std::size_t{0}}) {
    failing out;
    auto sink = s.sink(out, async_from);
    const auto run = [&] {
      sink->begin_record(trawl::record_info{});
      sink->text(0, seq, true);
      for (std::size_t i = 0; i < found.size(); i += 10) {
        sink->hits(std::span<const hit>(found).subspan(i, std::min<std::size_t>(10, found.size() - i)));
        sink->floor(i + 10 < found.size() ? found[i + 10].end : seq.size());
      }
      sink->end_record(seq.size());
      sink->finish();
    };
    EXPECT_THROW(run(), std::runtime_error) << "async from " << async_from;
    sink.reset();  // waits for the handover's thread
    EXPECT_EQ(out.batches, 3) << "async from " << async_from;
  }
}

}  // namespace
