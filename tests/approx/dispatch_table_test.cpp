// dispatch_table_test.cpp — the SIMD dispatch table (src/common/dispatch.hpp): each level this
// CPU runs has a table that reports that level and holds only that level's kernels (the
// AVX-512 one with VBMI exactly where the features have it, following cpu::limit); a level the
// CPU lacks is errc::unsupported, for the table and for every search forced to it; and
// searches forced to each level (AVX-512 also without VBMI) give the naive oracle's hits:
// exact search by the SIMD filter, Teddy and the k-mer filter, approximate search by the
// striped kernel (both report modes), the lanes, the pigeonhole filter and the striped blocked
// kernel, two patterns at once (the batched start requests), and the best approximate
// substring. Fixed seeds.
#include <gtest/gtest.h>

#include <algorithm>
#include <sstream>
#include <random>
#include <tuple>

#include "approx_test_util.hpp"
#include "common/dispatch.hpp"
#include "oracle.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace {

namespace ad = trawl::approx_detail;
namespace ed = trawl::exact_detail;
using trawl::simd_level;

struct restore_cpu {
  ~restore_cpu() { trawl::cpu::limit({true, true, true}); }
};

const char* name(simd_level l) {
  switch (l) {
    case simd_level::automatic: return "automatic";
    case simd_level::serial: return "serial";
    case simd_level::avx2: return "avx2";
    case simd_level::avx512: return "avx512";
  }
  return "?";
}

/// The forced levels this CPU runs, serial first.
std::vector<simd_level> levels() {
  std::vector<simd_level> v;
  for (const auto l : {simd_level::serial, simd_level::avx2, simd_level::avx512})
    if (trawl::cpu_supports(l)) v.push_back(l);
  return v;
}

/// Checks that `ks` is the table of `level` under the current cpu::limit: its level and
/// features, and every kernel the one written for that level.
void expect_table_of(const trawl::simd::kernels& ks, simd_level level) {
  SCOPED_TRACE(name(level));
  const trawl::cpu::features f = trawl::cpu::at_level(level);
  EXPECT_EQ(ks.level, level);
  EXPECT_EQ(ks.features.avx2, f.avx2);
  EXPECT_EQ(ks.features.avx512, f.avx512);
  EXPECT_EQ(ks.features.avx512vbmi, f.avx512vbmi);
  switch (level) {
    case simd_level::serial:
      EXPECT_FALSE(f.avx2 || f.avx512 || f.avx512vbmi);
      EXPECT_EQ(ks.find, &ed::find_simd_serial);
      EXPECT_EQ(ks.teddy, &ed::teddy_candidates_serial);
      EXPECT_EQ(ks.kmer, &ed::kmer_candidates_serial);
      EXPECT_EQ(ks.lanes.kernel, &ad::myers_lanes_serial);
      EXPECT_EQ(ks.lanes.lanes, 8u);
      EXPECT_EQ(ks.striped.ends, nullptr);
      EXPECT_EQ(ks.striped.runs, nullptr);
      EXPECT_EQ(ks.blocked.scan, nullptr);
      EXPECT_EQ(ks.blocked.best, nullptr);
      EXPECT_EQ(ks.pieces, &ad::find_pieces_serial);
      EXPECT_EQ(ks.starts.reqs, nullptr);
      EXPECT_EQ(ks.starts.hits, nullptr);
      EXPECT_EQ(ks.starts.eight, nullptr);
      EXPECT_EQ(ks.write_runs, &ad::write_run_hits_serial);
      break;
    case simd_level::avx2:
      EXPECT_TRUE(f.avx2 && !f.avx512 && !f.avx512vbmi);
      EXPECT_EQ(ks.find, &ed::find_simd_avx2);
      EXPECT_EQ(ks.teddy, &ed::teddy_candidates_avx2);
      EXPECT_EQ(ks.kmer, &ed::kmer_candidates_bmi2);
      EXPECT_EQ(ks.lanes.kernel, &ad::myers_lanes_avx2);
      EXPECT_EQ(ks.lanes.lanes, 8u);
      EXPECT_EQ(ks.striped.ends, &ad::myers_striped_avx2);
      EXPECT_EQ(ks.striped.runs, &ad::myers_striped_clusters_avx2);
      EXPECT_FALSE(ks.striped.quarter1);
      EXPECT_EQ(ks.blocked.scan, &ad::scan_myers_blocked_avx2);
      EXPECT_EQ(ks.blocked.best, &ad::best_ends_blocked_avx2);
      EXPECT_EQ(ks.blocked.stripes, ad::blocked_stripes_avx2_count);
      EXPECT_EQ(ks.pieces, &ad::find_pieces_avx2);
      EXPECT_EQ(ks.starts.reqs, static_cast<decltype(ks.starts.reqs)>(&ad::leftmost_starts_avx2));
      EXPECT_EQ(ks.starts.hits, static_cast<decltype(ks.starts.hits)>(&ad::leftmost_starts_avx2));
      EXPECT_EQ(ks.starts.eight, nullptr);
      EXPECT_EQ(ks.write_runs, &ad::write_run_hits_serial);
      break;
    case simd_level::avx512: {
      EXPECT_TRUE(f.avx2 && f.avx512);
      const bool v = f.avx512vbmi;
      EXPECT_EQ(ks.find, &ed::find_simd_avx512);
      EXPECT_EQ(ks.teddy, &ed::teddy_candidates_avx512);
      EXPECT_EQ(ks.kmer, &ed::kmer_candidates_bmi2);
      EXPECT_EQ(ks.lanes.kernel, &ad::myers_lanes_avx512);
      EXPECT_EQ(ks.lanes.lanes, 16u);
      EXPECT_EQ(ks.striped.ends, v ? &ad::myers_striped_avx512<true> : &ad::myers_striped_avx512<false>);
      EXPECT_EQ(ks.striped.runs,
                v ? &ad::myers_striped_clusters_avx512<true> : &ad::myers_striped_clusters_avx512<false>);
      EXPECT_TRUE(ks.striped.quarter1);
      EXPECT_EQ(ks.blocked.scan, v ? &ad::scan_myers_blocked_avx512<true> : &ad::scan_myers_blocked_avx512<false>);
      EXPECT_EQ(ks.blocked.best, v ? &ad::best_ends_blocked_avx512<true> : &ad::best_ends_blocked_avx512<false>);
      EXPECT_EQ(ks.blocked.stripes, ad::blocked_stripes_avx512_count);
      EXPECT_EQ(ks.pieces, &ad::find_pieces_avx512);
      using reqs_fn = decltype(ks.starts.reqs);
      using hits_fn = decltype(ks.starts.hits);
      EXPECT_EQ(ks.starts.reqs, v ? static_cast<reqs_fn>(&ad::leftmost_starts_avx512bw<true>)
                                  : static_cast<reqs_fn>(&ad::leftmost_starts_avx512bw<false>));
      EXPECT_EQ(ks.starts.hits, v ? static_cast<hits_fn>(&ad::leftmost_starts_avx512bw<true>)
                                  : static_cast<hits_fn>(&ad::leftmost_starts_avx512bw<false>));
      EXPECT_EQ(ks.starts.eight, &ad::leftmost_starts8_avx512);
      EXPECT_EQ(ks.write_runs, &ad::write_run_hits_avx512);
      break;
    }
    case simd_level::automatic: ADD_FAILURE() << "a table is never of level automatic"; break;
  }
}

TEST(DispatchTable, EachLevelReportsItselfAndHoldsOnlyItsKernels) {
  restore_cpu restore;
  const std::vector<simd_level> have = levels();
  for (const simd_level l : have) expect_table_of(trawl::simd::kernels_at(l), l);
  // automatic is the best level's table itself.
  EXPECT_EQ(&trawl::simd::kernels_at(simd_level::automatic), &trawl::simd::kernels_at(have.back()));
  for (const auto l : {simd_level::automatic, simd_level::serial, simd_level::avx2, simd_level::avx512})
    EXPECT_EQ(trawl::simd::supported(l), trawl::cpu_supports(l)) << name(l);

  // cpu::limit narrows the tables at once, and restoring it restores them: no stale table.
  const bool vbmi = trawl::cpu::active().avx512vbmi;
  if (trawl::cpu_supports(simd_level::avx512)) {
    trawl::cpu::limit({true, true, false});
    expect_table_of(trawl::simd::kernels_at(simd_level::avx512), simd_level::avx512);
    EXPECT_FALSE(trawl::simd::kernels_at(simd_level::automatic).features.avx512vbmi);
    trawl::cpu::limit({true, true, true});
    EXPECT_EQ(trawl::simd::kernels_at(simd_level::avx512).features.avx512vbmi, vbmi);
    expect_table_of(trawl::simd::kernels_at(simd_level::avx512), simd_level::avx512);
  }
  if (trawl::cpu_supports(simd_level::avx2)) {
    trawl::cpu::limit({true, false, false});
    EXPECT_EQ(trawl::simd::kernels_at(simd_level::automatic).level, simd_level::avx2);
    expect_table_of(trawl::simd::kernels_at(simd_level::avx2), simd_level::avx2);
  }
  trawl::cpu::limit({false, false, false});
  EXPECT_EQ(trawl::simd::kernels_at(simd_level::automatic).level, simd_level::serial);
  expect_table_of(trawl::simd::kernels_at(simd_level::serial), simd_level::serial);
  trawl::cpu::limit({true, true, true});
  EXPECT_EQ(trawl::simd::kernels_at(simd_level::automatic).level, have.back());
}

/// Runs f, which must throw trawl::error(errc::unsupported).
template <class F>
void expect_unsupported(F&& f, const std::string& where) {
  try {
    f();
    ADD_FAILURE() << where << ": a level this CPU lacks must be an error";
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::unsupported) << where << ": " << e.what();
  }
}

TEST(DispatchTable, ALevelThisCpuLacksIsUnsupportedEverywhere) {
  restore_cpu restore;
  std::mt19937_64 rng(3);
  const std::string dna = oracle::random_text(rng, 2000, "ACGT");
  const std::string words = oracle::random_text(rng, 2000, "abcdefgh ");
  // The CPU as it is (where it lacks a level), then narrowed to AVX2, then to no SIMD.
  for (const auto& narrow : {trawl::cpu::features{true, true, true}, trawl::cpu::features{true, false, false},
                             trawl::cpu::features{false, false, false}}) {
    trawl::cpu::limit(narrow);
    for (const auto l : {simd_level::avx2, simd_level::avx512}) {
      if (trawl::cpu_supports(l)) continue;
      const std::string where = std::string(name(l)) + " limit " + std::to_string(narrow.avx2) +
                                std::to_string(narrow.avx512);
      EXPECT_FALSE(trawl::simd::supported(l)) << where;
      expect_unsupported([&] { (void)trawl::simd::kernels_at(l); }, where + " kernels_at");
      trawl::search_options o;
      o.simd = l;
      o.threads = 1;
      o.exact = trawl::exact_algorithm::simd;
      expect_unsupported([&] { (void)trawl::search(dna, {dna.substr(10, 12)}, o); }, where + " exact simd");
      const trawl::exact_options eo{trawl::exact_algorithm::simd, false, l};
      expect_unsupported([&] { (void)trawl::exact_searcher(dna.substr(10, 12), eo); }, where + " exact_searcher");
      o.exact = trawl::exact_algorithm::teddy;
      expect_unsupported([&] { (void)trawl::search(words, {"abc", "hga", "fed"}, o); }, where + " teddy");
      o.exact = trawl::exact_algorithm::kmer;
      expect_unsupported([&] { (void)trawl::search(dna, {"ACGTAC", "GGTTAA"}, o); }, where + " kmer");
      o.exact = trawl::exact_algorithm::automatic;
      o.max_errors = 2;
      for (const auto a : {trawl::approx_algorithm::automatic, trawl::approx_algorithm::myers_striped,
                           trawl::approx_algorithm::myers_simd, trawl::approx_algorithm::myers_filter}) {
        o.approx = a;
        expect_unsupported([&] { (void)trawl::search(dna, {dna.substr(100, 20)}, o); },
                           where + " approx " + std::string(trawl::to_string(a)));
      }
      trawl::best_options b;
      b.simd = l;
      b.threads = 1;
      expect_unsupported([&] { (void)trawl::best_substring(dna.substr(5, 80), dna, b); }, where + " best");
    }
  }
}

/// The exact hits of every pattern (and its reverse complement with both strands) by the
/// naive oracle, in the order of a search: (start, pattern, strand).
std::vector<trawl::hit> oracle_exact(const std::string& t, const std::vector<std::string>& ps, bool both) {
  std::vector<trawl::hit> want;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    const auto idx = static_cast<std::uint32_t>(i);
    for (const std::uint64_t s : oracle::naive_find(t, ps[i]))
      want.push_back({s, s + ps[i].size(), idx, 0, trawl::strand::forward});
    if (both)
      for (const std::uint64_t s : oracle::naive_find(t, oracle::reverse_complement(ps[i])))
        want.push_back({s, s + ps[i].size(), idx, 0, trawl::strand::reverse});
  }
  std::sort(want.begin(), want.end(), trawl::hit_order{trawl::hit_key::start});
  return want;
}

/// Cluster hits with leftmost starts (or every end, `all_ends`, start = end), from Sellers' DP
/// and the edit distance of every candidate start.
std::vector<trawl::hit> oracle_approx(const std::string& p, const std::string& t, std::uint32_t k, bool all_ends) {
  const auto scores = oracle::end_scores(p, t);
  std::vector<trawl::hit> hits;
  if (all_ends) {
    for (std::size_t j = 0; j < scores.size(); ++j)
      if (scores[j] <= k) hits.push_back({j + 1, j + 1, 0, scores[j], trawl::strand::forward});
  } else {
    hits = approx_test::oracle_clusters(scores, k);
  }
  for (auto& h : hits) {
    const std::uint64_t reach = p.size() + h.errors;  // a longer substring is farther than errors
    for (std::uint64_t s = h.end > reach ? h.end - reach : 0; s <= h.end; ++s)
      if (oracle::edit_distance(p, std::string_view(t).substr(s, h.end - s)) == h.errors) {
        h.start = s;
        break;
      }
  }
  return hits;
}

/// A hit as "[start,end) pattern p +/- errors e", for failure messages.
std::string str(const trawl::hit& h) {
  std::ostringstream os;
  os << '[' << h.start << ',' << h.end << ") pattern " << h.pattern << (h.dir == trawl::strand::reverse ? " -" : " +")
     << " errors " << h.errors;
  return os.str();
}

void expect_same(const std::vector<trawl::hit>& got, const std::vector<trawl::hit>& want, const std::string& where) {
  ASSERT_EQ(got.size(), want.size()) << where;
  for (std::size_t i = 0; i < got.size(); ++i)
    ASSERT_TRUE(std::tie(got[i].start, got[i].end, got[i].pattern, got[i].errors, got[i].dir) ==
                std::tie(want[i].start, want[i].end, want[i].pattern, want[i].errors, want[i].dir))
        << where << " hit " << i << ": got " << str(got[i]) << ", want " << str(want[i]);
}

/// Searches forced to `level` (under the current cpu::limit) against the oracle.
void check_level(simd_level level, const std::string& tag) {
  std::mt19937_64 rng(1234);
  trawl::search_options o;
  o.simd = level;
  o.threads = 1;

  // Exact: one pattern by the SIMD filter; a few literals by Teddy (not DNA) and by the k-mer
  // filter (DNA, both strands).
  const std::string dna = oracle::random_text(rng, 30000, "ACGT");
  const std::string words = oracle::random_text(rng, 30000, "abcdefgh ,.");
  for (int rep = 0; rep < 3; ++rep) {
    const std::size_t m = 3 + rng() % 14, at = rng() % (dna.size() - m);
    o.exact = trawl::exact_algorithm::simd;
    expect_same(trawl::search(dna, {dna.substr(at, m)}, o), oracle_exact(dna, {dna.substr(at, m)}, false),
                tag + " exact simd m " + std::to_string(m));
    std::vector<std::string> lits;
    for (std::size_t i = 0, n = 2 + rng() % 5; i < n; ++i) {
      const std::size_t len = 2 + rng() % 5;
      lits.push_back(words.substr(rng() % (words.size() - len), len));
    }
    o.exact = trawl::exact_algorithm::teddy;
    expect_same(trawl::search(words, lits, o), oracle_exact(words, lits, false),
                tag + " teddy " + std::to_string(lits.size()) + " literals");
    std::vector<std::string> kmers;
    for (std::size_t i = 0, n = 2 + rng() % 3; i < n; ++i) {
      const std::size_t len = 6 + rng() % 8;
      kmers.push_back(dna.substr(rng() % (dna.size() - len), len));
    }
    o.exact = trawl::exact_algorithm::kmer;
    o.both_strands = true;
    expect_same(trawl::search(dna, kmers, o), oracle_exact(dna, kmers, true),
                tag + " kmer " + std::to_string(kmers.size()) + " literals");
    o.both_strands = false;
  }
  o.exact = trawl::exact_algorithm::automatic;

  // Approximate, one pattern at a time over DNA with mutated copies planted: the striped
  // kernel (m <= 32, k > 0; the byte lanes for m <= 8) in both report modes, the automatic
  // choice (lanes, suffix filter, striped blocked kernel or pigeonhole filter by m and k),
  // the lanes and the pigeonhole filter forced.
  struct approx_case {
    trawl::approx_algorithm algorithm;
    std::size_t m;
    std::uint32_t k;
  };
  using trawl::approx_algorithm;
  const approx_case cases[] = {
      {approx_algorithm::myers_striped, 6, 1},   {approx_algorithm::myers_striped, 8, 2},
      {approx_algorithm::myers_striped, 15, 3},  {approx_algorithm::myers_striped, 30, 4},
      {approx_algorithm::automatic, 20, 2},      {approx_algorithm::automatic, 48, 5},
      {approx_algorithm::automatic, 100, 30},    {approx_algorithm::automatic, 120, 12},
      {approx_algorithm::myers_simd, 40, 3},     {approx_algorithm::myers_filter, 36, 3},
  };
  for (const approx_case& c : cases) {
    if (c.algorithm == approx_algorithm::myers_striped && level == simd_level::serial) continue;  // none there
    const std::string p = approx_test::random_pattern(rng, c.m, "ACGT");
    const std::string t = approx_test::text_with_copies(rng, 6000 + rng() % 3000, p, c.k, "ACGT");
    o.approx = c.algorithm;
    o.max_errors = static_cast<int>(c.k);
    for (const bool all_ends : {false, true}) {
      if (all_ends && c.algorithm != approx_algorithm::myers_striped) continue;
      o.all_ends = all_ends;
      expect_same(trawl::search(t, {p}, o), oracle_approx(p, t, c.k, all_ends),
                  tag + " " + std::string(trawl::to_string(c.algorithm)) + " m " + std::to_string(c.m) + " k " +
                      std::to_string(c.k) + (all_ends ? " all ends" : ""));
    }
    o.all_ends = false;
  }

  // Two patterns at once: their hits interleave, so the starts go through the batched
  // requests (m <= 32: the striped kernels' starts; one-word patterns: 8 per AVX-512 register).
  for (const auto& [m, k] : {std::pair<std::size_t, std::uint32_t>{12, 2}, {40, 3}}) {
    const std::string p0 = approx_test::random_pattern(rng, m, "ACGT");
    const std::string t = approx_test::text_with_copies(rng, 8000, p0, k, "ACGT");
    const std::vector<std::string> ps = {p0, t.substr(rng() % (t.size() - m), m)};
    o.approx = approx_algorithm::automatic;
    o.max_errors = static_cast<int>(k);
    std::vector<trawl::hit> want;
    for (std::uint32_t i = 0; i < 2; ++i)
      for (trawl::hit h : oracle_approx(ps[i], t, k, false)) {
        h.pattern = i;
        want.push_back(h);
      }
    std::sort(want.begin(), want.end(), trawl::hit_order{trawl::hit_key::last});
    expect_same(trawl::search(t, ps, o), want,
                tag + " two patterns m " + std::to_string(m) + " k " + std::to_string(k));
  }

  // The best approximate substring (Myers engine): the striped kernel, the lanes and the
  // striped blocked kernel by |X|.
  for (const std::size_t m : {12, 50, 90}) {
    const std::string y = oracle::random_text(rng, 8000, "ACGT");
    const std::string x = approx_test::mutate(rng, y.substr(rng() % (y.size() - m), m), m / 6, "ACGT");
    const auto scores = oracle::end_scores(x, y);
    const std::uint32_t best = *std::min_element(scores.begin(), scores.end());
    trawl::best_options b;
    b.simd = level;
    b.threads = 1;
    const trawl::best_result r = trawl::best_substring(x, y, b);
    const std::string where = tag + " best m " + std::to_string(m);
    ASSERT_EQ(r.distance, best) << where;
    std::vector<trawl::hit> want;
    for (std::size_t j = 0; j < scores.size(); ++j)
      if (scores[j] == best) want.push_back({0, j + 1, 0, best, trawl::strand::forward});
    for (auto& h : want)
      for (std::uint64_t s = h.end > x.size() + best ? h.end - x.size() - best : 0; s <= h.end; ++s)
        if (oracle::edit_distance(x, std::string_view(y).substr(s, h.end - s)) == best) {
          h.start = s;
          break;
        }
    expect_same(r.occurrences, want, where);
  }
}

TEST(DispatchTable, SearchesForcedToEachLevelGiveTheOracle) {
  restore_cpu restore;
  for (const simd_level l : levels()) check_level(l, name(l));
  // The AVX-512 kernels once more without VBMI (their byte lanes then take the other path).
  if (trawl::cpu_supports(simd_level::avx512) && trawl::cpu::active().avx512vbmi) {
    trawl::cpu::limit({true, true, false});
    ASSERT_FALSE(trawl::simd::kernels_at(simd_level::avx512).features.avx512vbmi);
    check_level(simd_level::avx512, "avx512 without VBMI");
  }
}

}  // namespace
