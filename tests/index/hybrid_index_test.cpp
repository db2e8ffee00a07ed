// hybrid_index_test.cpp — locate/count/extract of the Hybrid Index against brute force
// (oracle::naive_find) on random, repetitive and FASTA texts, every M class, every pattern
// length 1..2M+5, all three locate engines and thread counts 1..8; count by each of its paths
// (the run-length BWT's runs against a plain suffix array's) and per record.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <span>
#include <tuple>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "test_share.hpp"
#include "text_gen.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/detail/testing.hpp"

namespace {

using trawl::index::build_options;
using trawl::index::hybrid_index;
using trawl::index::locate_engine;
using trawl::index::locate_options;
using trawl::index::detail::count_path;
using trawl::index::detail::index_access;

struct named_text {
  std::string name;
  std::string text;
};

std::vector<named_text> test_texts() {
  std::mt19937_64 rng(20260522);
  std::vector<named_text> v;
  v.push_back({"sigma2", oracle::random_text(rng, 1500, "ab")});
  v.push_back({"sigma4", oracle::random_text(rng, 1500, "acgt")});
  v.push_back({"sigma26", oracle::random_text(rng, 1500, "abcdefghijklmnopqrstuvwxyz")});
  v.push_back({"sigma256", oracle::random_text(rng, 1500, "")});
  v.push_back({"copies-0.1%", textgen::mutated_copies(rng, 1000, 8, 0.001, "acgt")});
  v.push_back({"copies-1%-text", textgen::mutated_copies(rng, 400, 6, 0.01, "abcdefghij klmnop")});
  v.push_back({"fibonacci", textgen::fibonacci(2000)});
  v.push_back({"run", std::string(1200, 'a')});
  v.push_back({"run-then-b", std::string(700, 'a') + "b" + std::string(300, 'a')});
  v.push_back({"tiny", "abracadabra"});
  v.push_back({"one", "x"});
  return v;
}

/// Patterns for length m: substrings at random places (they occur), plus one random string
/// over the text's bytes (may not occur).
std::vector<std::string> patterns_of(std::mt19937_64& rng, const std::string& t, std::size_t m, int k) {
  std::vector<std::string> ps;
  if (t.size() >= m) {
    std::uniform_int_distribution<std::size_t> at(0, t.size() - m);
    for (int i = 0; i < k; ++i) ps.push_back(t.substr(at(rng), m));
  }
  std::uniform_int_distribution<std::size_t> ch(0, t.size() - 1);
  std::string r;
  for (std::size_t i = 0; i < m; ++i) r.push_back(t[ch(rng)]);
  ps.push_back(r);
  return ps;
}

/// Runs of the BWT of t with a sentinel, from a plain suffix array.
std::uint64_t bwt_runs(const std::string& t) {
  std::vector<int> bwt{t.empty() ? -1 : static_cast<unsigned char>(t.back())};  // the sentinel's row first
  for (const auto p : oracle::suffix_array(t)) bwt.push_back(p == 0 ? -1 : static_cast<unsigned char>(t[p - 1]));
  std::uint64_t runs = 1;
  for (std::size_t i = 1; i < bwt.size(); ++i) runs += bwt[i] != bwt[i - 1];
  return runs;
}

void check_text(const std::string& name, const std::string& t, std::uint32_t M, std::mt19937_64& rng, bool all_engines,
                std::uint64_t lz_reference = 0) {
  SCOPED_TRACE(name + " M=" + std::to_string(M) + " reference=" + std::to_string(lz_reference));
  build_options bo;
  bo.max_len = M;
  bo.lz_reference = lz_reference;
  bo.detect_fasta = false;
  bo.force_64bit = (M % 2) == 1;  // both suffix-array widths
  if (M % 3 == 2) bo.profile = trawl::index::fm_profile::small;  // both FM-index profiles
  const hybrid_index ix = hybrid_index::build(t, name, bo);
  ASSERT_EQ(ix.size(), t.size());
  // the count index comes with the fast profile (these texts are small)
  ASSERT_EQ(ix.info().bwt_runs, bo.profile == trawl::index::fm_profile::fast ? bwt_runs(t) : 0);
  ASSERT_EQ(ix.extract(0, t.size()), t);
  std::uniform_int_distribution<std::size_t> at(0, t.size());
  for (int i = 0; i < 20; ++i) {
    const std::size_t s = at(rng), l = at(rng) % 90;
    ASSERT_EQ(ix.extract(s, l), t.substr(s, l)) << "extract " << s << "," << l;
  }
  locate_options serial{locate_engine::serial, 1};
  for (std::size_t m = 1; m <= 2 * M + 5; ++m) {
    for (const auto& p : patterns_of(rng, t, m, m <= 8 ? 3 : 1)) {
      const auto want = oracle::naive_find(t, p);
      const auto got = ix.locate(p, serial);
      ASSERT_EQ(got, want) << "pattern '" << p << "' m=" << m;
      ASSERT_EQ(ix.count(p, serial), want.size());
      for (auto path : {count_path::recursion, count_path::leaves, count_path::phrases, count_path::runs})
        ASSERT_EQ(index_access::count(ix, p, false, path), want.size()) << "pattern '" << p << "' path " << int(path);
      if (all_engines) {
        ASSERT_EQ(ix.locate(p, {locate_engine::balanced, 3}), want);
        ASSERT_EQ(ix.locate(p, {locate_engine::static_chunks, 2}), want);
      }
      // primaries are a subset, and every occurrence missing from them is inside a copy
      const auto prim = locate_primary(ix, p);
      ASSERT_TRUE(std::includes(want.begin(), want.end(), prim.begin(), prim.end()));
    }
  }
}

TEST(HybridIndex, LocateMatchesBruteForce) {
  std::mt19937_64 rng(42);
  for (const auto& [name, t] : test_texts())
    for (std::uint32_t M : {1u, 2u, 3u, 8u, 17u})
      check_text(name, t, M, rng, M == 3);
}

TEST(HybridIndex, RelativeParseLocatesAsBruteForce) {
  std::mt19937_64 rng(45);
  test_share::cases share;
  for (const auto& [name, t] : test_texts())
    for (std::uint32_t M : {2u, 8u, 17u})
      for (const std::uint64_t r : {std::uint64_t{1}, t.size() / 3 + 1, t.size() - t.size() / 8})
        if (share.runs()) check_text(name, t, M, rng, M == 8, r);
}

// Haplotypes parsed relative to the first one: later phrases copy earlier haplotypes at the
// same place (co-linear sources), so the recursion runs through copies outside the reference.
TEST(HybridIndex, CoLinearSourcesLocateAsBruteForce) {
  std::mt19937_64 rng(46);
  const std::string t = textgen::mutated_copies(rng, 2500, 12, 0.004, "acgt");
  for (std::uint32_t M : {4u, 8u, 17u}) check_text("copies, relative to the first", t, M, rng, M == 8, 2500);
}

TEST(HybridIndex, LargeM) {
  std::mt19937_64 rng(43);
  const auto texts = test_texts();
  for (std::size_t i : {1u, 4u, 6u, 8u})
    for (std::uint32_t M : {32u, 64u}) check_text(texts[i].name, texts[i].text, M, rng, false);
}

TEST(HybridIndex, EmptyTextAndPatterns) {
  const hybrid_index ix = hybrid_index::build("", "empty");
  EXPECT_EQ(ix.size(), 0u);
  EXPECT_TRUE(ix.locate("a").empty());
  EXPECT_EQ(ix.extract(0, 5), "");
  const hybrid_index iy = hybrid_index::build("hello", "h");
  EXPECT_TRUE(iy.locate("").empty());
  EXPECT_TRUE(iy.locate("hello!").empty());
  EXPECT_TRUE(iy.locate("z").empty());
  EXPECT_THROW((void)iy.extract(6, 1), trawl::error);
  build_options bad;
  bad.max_len = 0;
  EXPECT_THROW((void)hybrid_index::build("abc", "x", bad), trawl::error);
}

TEST(HybridIndex, ThreadCountInvariance) {
  std::mt19937_64 rng(44);
  const std::string t = textgen::mutated_copies(rng, 5000, 40, 0.001, "acgt");
  build_options bo;
  bo.max_len = 16;
  const hybrid_index ix = hybrid_index::build(t, "rep", bo);
  for (const std::string& p : std::vector<std::string>{"a", "ac", "acg", "acgt", "gattaca", t.substr(100, 12), t.substr(777, 30)}) {
    const auto want = oracle::naive_find(t, p);
    ASSERT_EQ(ix.locate(p, {locate_engine::serial, 1}), want) << p;  // "a": > 8192 hits, the radix sort
    for (unsigned th = 1; th <= 8; ++th) {
      ASSERT_EQ(ix.locate(p, {locate_engine::balanced, th}), want) << p << " threads " << th;
      ASSERT_EQ(ix.locate(p, {locate_engine::static_chunks, th}), want) << p << " threads " << th;
    }
  }
  // a set of patterns with small and large answers, spread over the workers
  std::vector<std::string> set;
  for (int i = 0; i < 60; ++i) set.push_back(i % 7 == 0 ? std::string(1 + i % 3, "acgt"[i % 4]) : t.substr(rng() % (t.size() - 20), 5 + i % 15));
  std::vector<std::vector<std::uint64_t>> want;
  for (const auto& p : set) want.push_back(oracle::naive_find(t, p));
  for (unsigned th : {1u, 2u, 5u, 16u})
    for (auto eng : {locate_engine::balanced, locate_engine::serial, locate_engine::static_chunks})
      ASSERT_EQ(ix.locate_many(set, {eng, th}), want) << "threads " << th;
}

/// Every occurrence of every pattern inside each record, by naive search, in search_records'
/// order: record, start, pattern.
std::vector<trawl::index::record_hit> naive_record_hits(const std::vector<std::string>& seqs,
                                                        const std::vector<std::string>& pats) {
  std::vector<trawl::index::record_hit> out;
  for (std::uint32_t r = 0; r < seqs.size(); ++r)
    for (std::uint32_t pi = 0; pi < pats.size(); ++pi)
      for (auto st : oracle::naive_find(seqs[r], pats[pi])) {
        trawl::index::record_hit h;
        h.record = r;
        h.h.start = st;
        h.h.end = st + pats[pi].size();
        h.h.pattern = pi;
        out.push_back(h);
      }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) {
    return std::tuple(a.record, a.h.start, a.h.pattern) < std::tuple(b.record, b.h.start, b.h.pattern);
  });
  return out;
}

TEST(HybridIndex, FastaRecords) {
  std::mt19937_64 rng(45);
  std::string fa, concat;
  std::vector<std::pair<std::string, std::string>> recs;
  const std::string base = oracle::random_text(rng, 300, "ACGT");
  for (int r = 0; r < 6; ++r) {
    std::string seq = base.substr(0, 100 + static_cast<std::size_t>(r) * 30);
    seq[static_cast<std::size_t>(r) * 7] = 'T';
    recs.emplace_back("chr" + std::to_string(r), seq);
    fa += ">chr" + std::to_string(r) + " some description\n";
    for (std::size_t i = 0; i < seq.size(); i += 60) fa += seq.substr(i, 60) + "\n";
    concat += seq;
  }
  const hybrid_index ix = hybrid_index::build(fa, "test.fa");
  ASSERT_EQ(ix.records().size(), 6u);
  EXPECT_EQ(ix.records()[2].name, "chr2");
  EXPECT_EQ(ix.extract(0, concat.size()), concat);
  const std::vector<std::string> pats = {"ACG", base.substr(90, 25), base.substr(0, 130), "T"};
  const auto hits = ix.search_records(pats);
  std::vector<std::string> many;  // enough patterns for the spread-over-patterns path
  for (int i = 0; i < 12; ++i) many.insert(many.end(), pats.begin(), pats.end());
  const auto hits_many = ix.search_records(many, {locate_engine::balanced, 2});
  ASSERT_EQ(hits_many.size(), 12 * (hits.size()));
  std::vector<std::string> seqs;
  for (const auto& [name, seq] : recs) seqs.push_back(seq);
  const auto want = naive_record_hits(seqs, pats);
  ASSERT_EQ(hits.size(), want.size());
  for (std::size_t i = 0; i < hits.size(); ++i) {
    EXPECT_EQ(hits[i].record, want[i].record);
    EXPECT_EQ(hits[i].h, want[i].h) << i;
  }
}

// The streamed locate sorts through a temporary file when its answer outgrows sort_memory:
// several runs (the smallest budget holds 64 Ki keys), every engine and thread count, give the
// brute-force hits in (record, start, pattern) order; a stop after one batch stops; a
// temporary folder that cannot be written is an io_error, not a short answer.
TEST(HybridIndex, StreamedLocateSortsInBoundedMemory) {
  std::mt19937_64 rng(46);
  std::vector<std::string> recs{textgen::mutated_copies(rng, 4000, 30, 0.01, "ACGT"), std::string(90000, 'A'),
                                oracle::random_text(rng, 5000, "ACGT"), "AC", textgen::mutated_copies(rng, 700, 40, 0.02, "ACGT")};
  std::string fa;
  for (std::size_t r = 0; r < recs.size(); ++r) fa += ">r" + std::to_string(r) + "\n" + recs[r] + "\n";
  const hybrid_index ix = hybrid_index::build(fa, "many.fa");
  const std::vector<std::string> pats{"A", "AC", "AAAAAAAA", "GT", recs[0].substr(100, 12), "C"};
  const auto want = naive_record_hits(recs, pats);
  ASSERT_GT(want.size(), 3u * 65536);  // several runs at the smallest budget
  for (const auto engine : {locate_engine::serial, locate_engine::static_chunks, locate_engine::balanced})
    for (const unsigned threads : {1u, 2u, 4u})
      for (const std::size_t memory : {std::size_t{1}, locate_options{}.sort_memory}) {
        locate_options o{engine, threads};
        o.sort_memory = memory;
        std::vector<trawl::index::record_hit> got;
        const std::uint64_t n = ix.for_each_record_hit(pats, o, [&](std::span<const trawl::index::record_hit> b) {
          got.insert(got.end(), b.begin(), b.end());
          return true;
        });
        const std::string where = "engine " + std::to_string(static_cast<int>(engine)) + " threads " + std::to_string(threads) +
                                  " memory " + std::to_string(memory);
        EXPECT_EQ(n, got.size()) << where;
        ASSERT_EQ(got.size(), want.size()) << where;
        for (std::size_t i = 0; i < want.size(); ++i)
          ASSERT_TRUE(got[i].record == want[i].record && got[i].h == want[i].h) << where << " i=" << i;
        std::uint64_t first = 0;
        EXPECT_EQ(ix.for_each_record_hit(pats, o,
                                         [&](std::span<const trawl::index::record_hit> b) {
                                           first += b.size();
                                           return false;
                                         }),
                  first);
        EXPECT_LT(first, want.size());
      }
  // a temporary folder that does not exist: the small budget needs it, the default does not
  const char* old = std::getenv("TMPDIR");
  const std::string saved = old != nullptr ? old : "";
  ::setenv("TMPDIR", "/nonexistent/trawl-test", 1);
  for (const auto engine : {locate_engine::serial, locate_engine::static_chunks, locate_engine::balanced}) {
    locate_options small{engine, 2};
    small.sort_memory = 1;
    try {
      (void)ix.for_each_record_hit(pats, small, [](std::span<const trawl::index::record_hit>) { return true; });
      ADD_FAILURE() << "no error without a temporary folder, engine " << static_cast<int>(engine);
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::io_error);
      EXPECT_NE(std::string(e.what()).find("/nonexistent/trawl-test"), std::string::npos) << e.what();
    }
  }
  std::uint64_t all = ix.for_each_record_hit(pats, {}, [](std::span<const trawl::index::record_hit>) { return true; });
  EXPECT_EQ(all, want.size());
  if (old != nullptr) ::setenv("TMPDIR", saved.c_str(), 1);
  else ::unsetenv("TMPDIR");
}

}  // namespace

namespace {

/// Occurrences of p inside one record each: what count_records must give.
std::uint64_t naive_in_records(const std::string& t, const std::vector<trawl::index::record_span>& recs,
                               const std::string& p) {
  std::uint64_t n = 0;
  for (const auto& r : recs) n += oracle::naive_find(std::string_view(t).substr(r.start, r.length), p).size();
  return n;
}

}  // namespace

TEST(HybridIndex, CountRecordsMatchesBruteForce) {
  // Records of every size around M (empty ones and ones shorter than the pattern included)
  // over repetitive collections, so that many occurrences cross record boundaries and the
  // answers are large next to the kept phrases (the phrase program's case).
  std::mt19937_64 rng(46);
  for (int round = 0; round < 6; ++round) {
    const std::uint32_t M = std::vector<std::uint32_t>{4, 8, 16, 32, 5, 11}[static_cast<std::size_t>(round)];
    const std::string t = round % 2 ? textgen::mutated_copies(rng, 700, 12, 0.003, "acgt")
                                    : textgen::mutated_copies(rng, 300, 20, 0.01, "ab");
    std::vector<trawl::index::record_span> recs;
    std::uniform_int_distribution<std::size_t> len(0, 3 * M);
    for (std::size_t at = 0; at < t.size();) {
      const std::size_t l = std::min(t.size() - at, rng() % 4 == 0 ? len(rng) : len(rng) * 40);
      recs.push_back({"r" + std::to_string(recs.size()), at, l});
      at += l;
    }
    recs.push_back({"empty-last", t.size(), 0});
    build_options bo;
    bo.max_len = M;
    if (round % 3 == 1) bo.profile = trawl::index::fm_profile::small;
    if (round == 4) bo.count_index = trawl::index::count_structure::on;  // with the small profile too
    if (round == 2) bo.count_index = trawl::index::count_structure::off;
    const hybrid_index ix = hybrid_index::build_records(t, recs, "recs", bo);
    ASSERT_EQ(ix.info().bwt_runs > 0, round != 1 && round != 2);
    std::vector<std::string> pats;
    for (std::size_t m : {1u, 2u, 3u, 5u, 8u, 13u, 21u, 40u})
      for (const auto& p : patterns_of(rng, t, m, 3)) pats.push_back(p);
    std::vector<std::uint64_t> want;
    for (const auto& p : pats) want.push_back(naive_in_records(t, recs, p));
    SCOPED_TRACE("round " + std::to_string(round) + " M=" + std::to_string(M) + " records " + std::to_string(recs.size()));
    for (std::size_t i = 0; i < pats.size(); ++i)
      for (auto path : {count_path::automatic, count_path::recursion, count_path::leaves, count_path::phrases,
                        count_path::runs})
        for (unsigned th : {1u, 3u})
          ASSERT_EQ(index_access::count(ix, pats[i], true, path, th), want[i])
              << "pattern '" << pats[i] << "' path " << int(path) << " threads " << th;
    // every thread count and both ways of spreading the work
    std::vector<std::string> many;
    for (int r = 0; r < 8; ++r) many.insert(many.end(), pats.begin(), pats.end());
    for (unsigned th : {1u, 3u}) {
      ASSERT_EQ(ix.count_records(pats, {locate_engine::balanced, th}), want);
      const auto got = ix.count_records(many, {locate_engine::balanced, th});
      for (std::size_t i = 0; i < many.size(); ++i) ASSERT_EQ(got[i], want[i % pats.size()]) << many[i];
    }
    // count_records is the size of each pattern's share of search_records
    std::vector<std::uint64_t> share(pats.size(), 0);
    for (const auto& h : ix.search_records(pats)) ++share[h.h.pattern];
    ASSERT_EQ(share, want);
  }
}

TEST(HybridIndex, CountLargeAnswers) {
  // Answers far larger than the parse: the automatic count takes the phrase program.
  std::mt19937_64 rng(47);
  const std::string t = textgen::mutated_copies(rng, 2000, 60, 0.0005, "acgt") + std::string(5000, 'a');
  build_options bo;
  bo.max_len = 12;
  const hybrid_index ix = hybrid_index::build(t, "big", bo);
  ASSERT_GT(index_access::leaf_phrases(ix), 0u);  // the split path counts some copies in bulk
  for (const std::string& p : std::vector<std::string>{"a", "c", "ac", "aa", "aaaaaaa", t.substr(500, 6), t.substr(9000, 12)}) {
    const auto want = oracle::naive_find(t, p).size();
    for (unsigned th : {1u, 4u}) ASSERT_EQ(ix.count(p, {locate_engine::balanced, th}), want) << p;
    ASSERT_EQ(index_access::count(ix, p, false, count_path::phrases), want) << p;
    ASSERT_EQ(index_access::count(ix, p, false, count_path::recursion, 4), want) << p;
    ASSERT_EQ(index_access::count(ix, p, false, count_path::leaves, 4), want) << p;
  }
}

// S'' over at most four symbols is held in fm_dna (src/index/fm_dna.hpp), whose occurrence
// counts restart every 2^16 rows: an S'' of several such superblocks, in both profiles, read
// back from its file (extract then walks the FM-index instead of reading the built S'').
TEST(HybridIndex, DnaKernelOfSeveralSuperblocks) {
  std::mt19937_64 rng(48);
  const std::string t = oracle::random_text(rng, 150000, "acgt") + textgen::mutated_copies(rng, 20000, 4, 0.002, "acgt");
  for (const auto profile : {trawl::index::fm_profile::fast, trawl::index::fm_profile::small}) {
    build_options bo;
    bo.max_len = 16;
    bo.profile = profile;
    const hybrid_index built = hybrid_index::build(t, "dna", bo);
    const hybrid_index ix = hybrid_index::from_bytes(built.to_bytes());
    std::uniform_int_distribution<std::size_t> at(0, t.size());
    for (int i = 0; i < 40; ++i) {
      const std::size_t s = at(rng), l = at(rng) % 300;
      ASSERT_EQ(ix.extract(s, l), t.substr(s, l)) << "extract " << s << "," << l;
    }
    for (std::size_t m : {1u, 2u, 3u, 5u, 8u, 12u, 16u, 20u})
      for (const auto& p : patterns_of(rng, t, m, 2)) {
        const auto want = oracle::naive_find(t, p);
        ASSERT_EQ(ix.locate(p, {locate_engine::serial, 1}), want) << p;
        ASSERT_EQ(ix.locate(p, {locate_engine::balanced, 3}), want) << p;
        ASSERT_EQ(ix.count(p, {locate_engine::balanced, 2}), want.size()) << p;
      }
    ASSERT_EQ(ix.verify(t), "");
    ASSERT_EQ(ix.extract(0, t.size()), t);
  }
}
