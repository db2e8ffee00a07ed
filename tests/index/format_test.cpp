// format_test.cpp — index files: save/load round trip, and a fuzz-style sweep (fixed seed)
// that flips bytes and truncates at many offsets: loading must either throw
// trawl::error(bad_format) or give exactly the right answers — never crash.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <random>
#include <string>
#include <thread>

#include "index_file.hpp"
#include "oracle.hpp"
#include "temp_dir.hpp"
#include "text_gen.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/search.hpp"

namespace {

using trawl::index::hybrid_index;

struct fixture_text {
  std::string text;
  std::vector<std::string> pats;
};

fixture_text make_text(std::mt19937_64& rng) {
  fixture_text f;
  f.text = textgen::mutated_copies(rng, 600, 5, 0.01, "acgt");
  f.pats = {"a", "acg", f.text.substr(10, 6), f.text.substr(1000, 20), f.text.substr(50, 40)};
  return f;
}

bool answers_right(const hybrid_index& ix, const fixture_text& f) {
  if (ix.size() != f.text.size()) return false;
  for (const auto& p : f.pats)
    if (ix.locate(p) != oracle::naive_find(f.text, p)) return false;
  return ix.extract(0, f.text.size()) == f.text;
}

TEST(IndexFormat, RoundTrip) {
  std::mt19937_64 rng(1);
  const auto f = make_text(rng);
  trawl::index::build_options bo;
  bo.max_len = 12;
  const hybrid_index ix = hybrid_index::build(f.text, "src.txt", bo);
  const std::string bytes = ix.to_bytes();
  const hybrid_index back = hybrid_index::from_bytes(bytes);
  EXPECT_TRUE(answers_right(back, f));
  EXPECT_EQ(back.source_name(), "src.txt");
  EXPECT_EQ(back.max_len(), 12u);
  EXPECT_EQ(back.to_bytes(), bytes);

  const auto path = std::filesystem::temp_directory_path() / ("trawl_index_test_" + std::to_string(::getpid()) + ".idx");
  ix.save(path.string());
  const hybrid_index from_file = hybrid_index::load(path.string());
  EXPECT_TRUE(answers_right(from_file, f));
  std::filesystem::remove(path);
  try {
    (void)hybrid_index::load(path.string());
    FAIL() << "missing file loaded";
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::io_error);
  }
}

TEST(IndexFormat, KernelTextAndVersions7And8) {
  // S'' kept as text: the same answers, approximate ones included, and the same bytes again
  std::mt19937_64 rng(3);
  const auto f = make_text(rng);
  trawl::index::build_options bo;
  bo.max_len = 12;
  bo.count_index = trawl::index::count_structure::off;
  const std::string plain = hybrid_index::build(f.text, "src.txt", bo).to_bytes();
  bo.kernel_text = true;
  const hybrid_index built = hybrid_index::build(f.text, "src.txt", bo);
  const std::string with_text = built.to_bytes();
  ASSERT_GT(with_text.size(), plain.size());
  const hybrid_index back = hybrid_index::from_bytes(with_text);
  EXPECT_TRUE(answers_right(back, f));
  EXPECT_EQ(back.to_bytes(), with_text);
  EXPECT_EQ(back.verify(f.text), "");
  trawl::search_options o;
  o.max_errors = 2;
  o.both_strands = true;
  const std::vector<std::string> ps{f.text.substr(100, 9), f.text.substr(2000, 7)};
  const auto want = hybrid_index::from_bytes(plain).search_records(ps, o);
  ASSERT_FALSE(want.empty());
  EXPECT_EQ(back.search_records(ps, o), want);
  EXPECT_EQ(built.search_records(ps, o), want);
  // a version 8 file (no count section) and a version 7 one (no S'' text section either) still
  // load and answer the same, and are written as the current version
  auto secs = *index_file::sections(plain);
  ASSERT_TRUE(secs.back().empty());
  secs.pop_back();
  std::string v8 = index_file::assemble(plain, secs);
  index_file::set<std::uint32_t>(v8, 8, 8);
  index_file::fix_header(v8);
  ASSERT_TRUE(secs.back().empty());
  secs.pop_back();
  std::string v7 = index_file::assemble(plain, secs);
  index_file::set<std::uint32_t>(v7, 8, 7);
  index_file::fix_header(v7);
  for (const std::string* file : {&v8, &v7}) {
    const hybrid_index old = hybrid_index::from_bytes(*file);
    EXPECT_TRUE(answers_right(old, f));
    EXPECT_EQ(old.search_records(ps, o), want);
    EXPECT_EQ(old.to_bytes(), plain);
  }
  // a version 7 file with ten sections, or a version 8 one with nine or eleven, is refused
  index_file::set<std::uint32_t>(v7, 8, 8);
  index_file::fix_header(v7);
  EXPECT_THROW((void)hybrid_index::from_bytes(v7), trawl::error);
  std::string v7ten = v8;
  index_file::set<std::uint32_t>(v7ten, 8, 7);
  index_file::fix_header(v7ten);
  EXPECT_THROW((void)hybrid_index::from_bytes(v7ten), trawl::error);
  std::string v8eleven = plain;
  index_file::set<std::uint32_t>(v8eleven, 8, 8);
  index_file::fix_header(v8eleven);
  EXPECT_THROW((void)hybrid_index::from_bytes(v8eleven), trawl::error);
}

TEST(IndexFormat, CountIndexRoundTrip) {
  // the count index is written, read back, counts as the oracle does and verifies; every
  // profile can have it or not
  std::mt19937_64 rng(4);
  const auto f = make_text(rng);
  for (const auto profile : {trawl::index::fm_profile::fast, trawl::index::fm_profile::small})
    for (const auto with : {trawl::index::count_structure::on, trawl::index::count_structure::off}) {
      trawl::index::build_options bo;
      bo.max_len = 12;
      bo.profile = profile;
      bo.count_index = with;
      const hybrid_index built = hybrid_index::build(f.text, "src.txt", bo);
      const std::string bytes = built.to_bytes();
      const hybrid_index back = hybrid_index::from_bytes(bytes);
      EXPECT_EQ(back.info().bwt_runs, built.info().bwt_runs);
      EXPECT_EQ(back.info().bwt_runs > 0, with == trawl::index::count_structure::on);
      EXPECT_EQ(back.to_bytes(), bytes);
      EXPECT_TRUE(answers_right(back, f));
      for (std::size_t m : {1u, 2u, 5u, 12u, 30u})
        for (std::size_t at : {0u, 77u, 1234u}) {
          const std::string p = f.text.substr(at, m);
          EXPECT_EQ(back.count(p), oracle::naive_find(f.text, p).size()) << p;
        }
      EXPECT_EQ(back.verify(f.text), "");
    }
}

TEST(IndexFormat, CountIndexOfABinaryTextLoads) {
  // a random binary text: a run for every other row, whose heads alternate, so that their
  // zstd stream shrinks thousands of times; the file still loads and counts
  std::mt19937_64 rng(5);
  const std::string t = oracle::random_text(rng, std::size_t{3} << 20, "01");
  trawl::index::build_options bo;
  bo.count_index = trawl::index::count_structure::on;
  const hybrid_index built = hybrid_index::build(t, "rand01", bo);
  ASSERT_GT(built.info().bwt_runs, std::uint64_t{1} << 20);
  const hybrid_index back = hybrid_index::from_bytes(built.to_bytes());
  EXPECT_EQ(back.info().bwt_runs, built.info().bwt_runs);
  for (const std::string& p : std::vector<std::string>{"0", "01", "0110", t.substr(1000, 20)})
    EXPECT_EQ(back.count(p), oracle::naive_find(t, p).size()) << p;
}

TEST(IndexFormat, RoundTripSigma256AndFasta) {
  std::mt19937_64 rng(2);
  const std::string t = oracle::random_text(rng, 3000, "");
  const hybrid_index ix = hybrid_index::build(t, "bin", {});
  const hybrid_index back = hybrid_index::from_bytes(ix.to_bytes());
  EXPECT_EQ(back.extract(0, t.size()), t);
  const std::string p = t.substr(200, 3);
  EXPECT_EQ(back.locate(p), oracle::naive_find(t, p));
  const hybrid_index fa = hybrid_index::from_bytes(hybrid_index::build(">a x\nACGT\nAC\n>b\nGG\n", "f.fa").to_bytes());
  ASSERT_EQ(fa.records().size(), 2u);
  EXPECT_EQ(fa.records()[1].name, "b");
  EXPECT_EQ(fa.records()[1].start, 6u);
}

void expect_bad_format_or_right(std::string_view bytes, const fixture_text& f, const std::string& what) {
  try {
    const hybrid_index ix = hybrid_index::from_bytes(bytes);
    EXPECT_TRUE(answers_right(ix, f)) << what << ": loaded but answers differ";
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::bad_format) << what;
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << what;
  }
}

TEST(IndexFormat, FlippedAndTruncatedBytes) {
  std::mt19937_64 rng(3);
  const auto f = make_text(rng);
  std::uniform_int_distribution<std::size_t> at(0, 4000);
  std::uniform_int_distribution<int> bit(0, 7);
  trawl::index::build_options small;
  small.profile = trawl::index::fm_profile::small;
  const std::string good = hybrid_index::build(f.text, "x", {}).to_bytes();
  const std::string good_small = hybrid_index::build(f.text, "x", small).to_bytes();
  for (std::size_t i = 0; i < good_small.size(); i += 1 + at(rng) % 53) {
    std::string bad = good_small;
    bad[i] = static_cast<char>(bad[i] ^ (1 << bit(rng)));
    expect_bad_format_or_right(bad, f, "small: flip at " + std::to_string(i));
  }
  // every byte of the header and table, then random offsets in the payload
  for (std::size_t i = 0; i < good.size(); i = i < 512 ? i + 1 : i + 1 + at(rng) % 97) {
    std::string bad = good;
    bad[i] = static_cast<char>(bad[i] ^ (1 << bit(rng)));
    expect_bad_format_or_right(bad, f, "flip at " + std::to_string(i));
  }
  at = std::uniform_int_distribution<std::size_t>(0, good.size() - 1);
  for (int k = 0; k < 300; ++k) {
    std::string bad = good;
    for (int j = 0; j < 1 + k % 4; ++j) bad[at(rng)] = static_cast<char>(rng());
    expect_bad_format_or_right(bad, f, "random bytes " + std::to_string(k));
  }
  for (std::size_t len = 0; len < good.size(); len = len < 600 ? len + 1 : len + 1 + at(rng) % 211)
    expect_bad_format_or_right(std::string_view(good).substr(0, len), f, "truncated to " + std::to_string(len));
  expect_bad_format_or_right(good + "x", f, "one byte appended");
}

/// Every query of an index loaded from a file, each as the first one after a load, gives what
/// the same index read from bytes gives; the oracle checks locate, count and extract.
TEST(IndexFormat, ALoadedIndexReadsEachPartOnItsFirstUse) {
  std::mt19937_64 rng(7);
  const fixture_text f = make_text(rng);
  const std::string fa = ">r1\n" + f.text.substr(0, 1700) + "\n>r2\n" + f.text.substr(1700) + "\n";
  const temp_dir dir;
  for (const bool records : {false, true}) {
    trawl::index::build_options bo;
    bo.max_len = 10;
    bo.count_index = trawl::index::count_structure::on;
    const hybrid_index built = records ? hybrid_index::build(fa, "f.fa", bo) : hybrid_index::build(f.text, "t", bo);
    const std::string bytes = built.to_bytes();
    const std::string path = dir.write("ix.thi", bytes);
    const hybrid_index whole = hybrid_index::from_bytes(bytes);
    ASSERT_GT(whole.info().bwt_runs, 0u);
    trawl::index::locate_options four;
    four.threads = 4;
    trawl::search_options approx;
    approx.max_errors = 1;
    approx.threads = 2;
    const std::vector<std::string> pats(f.pats.begin(), f.pats.end());
    // each query, as the first after a load, and then all of them
    const std::vector<std::function<bool(const hybrid_index&)>> queries = {
        [&](const hybrid_index& ix) {
          for (const auto& p : pats)
            if (ix.count(p) != oracle::naive_find(f.text, p).size() || ix.count(p) != whole.count(p)) return false;
          return true;
        },
        [&](const hybrid_index& ix) { return ix.count_records(pats, four) == whole.count_records(pats, four); },
        [&](const hybrid_index& ix) {
          for (const auto& p : pats)
            if (ix.locate(p) != oracle::naive_find(f.text, p)) return false;
          return true;
        },
        [&](const hybrid_index& ix) { return ix.locate_many(pats, four) == whole.locate_many(pats, four); },
        [&](const hybrid_index& ix) { return ix.search_records(pats, four) == whole.search_records(pats, four); },
        [&](const hybrid_index& ix) { return ix.search_records(pats, approx) == whole.search_records(pats, approx); },
        [&](const hybrid_index& ix) {
          std::vector<trawl::index::record_hit> a, b;
          trawl::search_options exact;
          (void)ix.for_each_search_hit(pats, exact, [&](auto hits) { return a.insert(a.end(), hits.begin(), hits.end()), true; });
          (void)whole.for_each_search_hit(pats, exact, [&](auto hits) { return b.insert(b.end(), hits.begin(), hits.end()), true; });
          return !a.empty() && a == b;
        },
        [&](const hybrid_index& ix) {
          const std::string want = records ? f.text.substr(1700, 33) : f.text.substr(1, 2000);
          return (records ? ix.extract_record(1, 0, 33) : ix.extract(1, 2000)) == want;
        },
        [&](const hybrid_index& ix) {
          const auto a = ix.info(), b = whole.info();
          return a.part_bytes == b.part_bytes && a.segments == b.segments && a.bwt_runs == b.bwt_runs;
        },
        [&](const hybrid_index& ix) { return ix.verify(records ? std::string_view(fa) : std::string_view(f.text)) == ""; },
        [&](const hybrid_index& ix) { return ix.to_bytes() == bytes; },
    };
    for (std::size_t first = 0; first < queries.size(); ++first) {
      const hybrid_index ix = hybrid_index::load(path);
      EXPECT_TRUE(queries[first](ix)) << "query " << first << " first, records " << records;
      for (std::size_t q = 0; q < queries.size(); ++q) EXPECT_TRUE(queries[q](ix)) << "query " << q << " after " << first;
    }
    // the first uses from many threads at once
    const hybrid_index ix = hybrid_index::load(path);
    std::vector<std::thread> threads;
    std::atomic<int> wrong{0};
    for (int t = 0; t < 8; ++t)
      threads.emplace_back([&, t] {
        const std::string& p = pats[static_cast<std::size_t>(t) % pats.size()];
        const bool right = t % 2 == 0 ? ix.count(p) == oracle::naive_find(f.text, p).size()
                                      : ix.locate(p) == oracle::naive_find(f.text, p);
        if (!right) ++wrong;
      });
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
  }
}

/// A loaded index keeps its file open: a file saved over it by name leaves it answering; a file
/// changed in place is refused, naming it, by the first query that reads the changed part,
/// and read again by the next one; a part no query needs may be damaged.
TEST(IndexFormat, ALoadedIndexWhoseFileChanges) {
  std::mt19937_64 rng(8);
  const fixture_text f = make_text(rng), g = make_text(rng);
  trawl::index::build_options bo;
  bo.max_len = 10;
  bo.count_index = trawl::index::count_structure::on;
  const hybrid_index built = hybrid_index::build(f.text, "t", bo);
  const std::string bytes = built.to_bytes();
  const temp_dir dir;
  const std::string path = dir.write("ix.thi", bytes);
  const std::string p = f.pats[3];
  auto refused = [&](auto&& query, const char* why) {
    try {
      (void)query();
      ADD_FAILURE() << why << ": answered";
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format) << why;
      EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  {  // saved over by name
    const hybrid_index ix = hybrid_index::load(path);
    hybrid_index::build(g.text, "u", bo).save(path);
    EXPECT_EQ(ix.locate(p), oracle::naive_find(f.text, p));
    EXPECT_EQ(ix.count(p), oracle::naive_find(f.text, p).size());
    (void)dir.write("ix.thi", bytes);
  }
  // the FM-index section lies before the count index, which ends the file
  const auto secs = index_file::sections(bytes);
  ASSERT_TRUE(secs);
  const std::size_t fm_at = bytes.size() - (*secs)[10].size() - (*secs)[9].size() - (*secs)[8].size() / 2;
  auto poke = [&](std::size_t at, char c) {
    std::fstream out(path, std::ios::in | std::ios::out | std::ios::binary);
    out.seekp(static_cast<std::streamoff>(at));
    out.put(c);
  };
  {  // changed in place, then restored
    const hybrid_index ix = hybrid_index::load(path);
    poke(fm_at, static_cast<char>(bytes[fm_at] ^ 0x10));
    refused([&] { return ix.locate(p); }, "checksum mismatch in section 'FM-index of S''");
    EXPECT_EQ(ix.count(p), oracle::naive_find(f.text, p).size());  // the count index is intact
    EXPECT_EQ(ix.verify(), "index file: checksum mismatch in section 'FM-index of S'''");
    poke(fm_at, bytes[fm_at]);
    EXPECT_EQ(ix.locate(p), oracle::naive_find(f.text, p));
    EXPECT_EQ(ix.verify(f.text), "");
  }
  {  // truncated
    const hybrid_index ix = hybrid_index::load(path);
    std::filesystem::resize_file(path, bytes.size() / 2);
    refused([&] { return ix.count(p); }, "shorter than when it was loaded");
    refused([&] { return ix.locate(p); }, "shorter than when it was loaded");
  }
  // a damaged part is found by load only when load reads it: the header, table and meta
  (void)dir.write("ix.thi", bytes);
  poke(fm_at, static_cast<char>(bytes[fm_at] ^ 0x10));
  const hybrid_index ix = hybrid_index::load(path);
  EXPECT_EQ(ix.count(p), oracle::naive_find(f.text, p).size());
  refused([&] { return ix.extract(0, 10); }, "checksum mismatch");
  poke(60, static_cast<char>(bytes[60] ^ 1));  // in the section table
  refused([&] { return hybrid_index::load(path); }, "checksum mismatch");
}

TEST(IndexFormat, ForeignFiles) {
  std::mt19937_64 rng(4);
  const fixture_text f = make_text(rng);
  for (const std::string& junk : {std::string(), std::string("hello world\n"), std::string(5000, '\0'),
                                  oracle::random_text(rng, 4096, ""), std::string("TRAWLHIX")}) {
    try {
      (void)hybrid_index::from_bytes(junk);
      FAIL() << "junk loaded";
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format);
    }
  }
  // a newer version is refused with a clear message, from bytes and from a file, with more
  // sections than this build knows
  std::string v2 = hybrid_index::build(f.text, "x", {}).to_bytes();
  v2[8] = 99;
  v2[12] = 40;
  const temp_dir dir;
  const std::string path = dir.write("v99.thi", v2);
  for (int from_file = 0; from_file < 2; ++from_file) {
    try {
      (void)(from_file ? hybrid_index::load(path) : hybrid_index::from_bytes(v2));
      FAIL();
    } catch (const trawl::error& e) {
      EXPECT_NE(std::string(e.what()).find("unsupported version 99"), std::string::npos) << e.what();
    }
  }
}

/// A named pipe is read through, not opened and kept: the same answers.
TEST(IndexFormat, LoadFromANamedPipe) {
  std::mt19937_64 rng(5);
  const fixture_text f = make_text(rng);
  const std::string bytes = hybrid_index::build(f.text, "t", {}).to_bytes();
  const temp_dir dir;
  const std::string fifo = (dir.path / "ix.fifo").string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] { std::ofstream(fifo, std::ios::binary) << bytes; });
  const hybrid_index ix = hybrid_index::load(fifo);
  writer.join();
  EXPECT_TRUE(answers_right(ix, f));
  EXPECT_EQ(ix.to_bytes(), bytes);
}

}  // namespace
