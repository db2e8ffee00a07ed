// hostile_index_test.cpp — index files edited on purpose, with every checksum recomputed
// (index_file.hpp), so that only the loader's own checks stand between them and the queries.
// Each must be refused with bad_format, or load and then either answer exactly (against the
// naive oracle on the true text), or fail a query with bad_format, or be caught by verify().
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <string>

#include "index_file.hpp"
#include "oracle.hpp"
#include "temp_dir.hpp"
#include "test_share.hpp"
#include "text_gen.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/search.hpp"

namespace {

using trawl::index::hybrid_index;

// table order of the sections (src/index/format.cpp)
enum : std::size_t { meta, kept_starts, src_rank, by_src, src_sample, src_delta, src_len, seg_s2, fm, s2_text, counts };

struct corpus {
  std::string text;
  std::vector<std::string> pats;
  std::string file;
};

corpus make(std::uint64_t seed, trawl::index::fm_profile profile, std::string_view alphabet = "acgt",
            bool kernel_text = false) {
  std::mt19937_64 rng(seed);
  corpus c;
  c.text = alphabet.empty() ? oracle::random_text(rng, 3000, "") : textgen::mutated_copies(rng, 700, 6, 0.01, alphabet);
  c.pats = {c.text.substr(5, 1), c.text.substr(10, 3), c.text.substr(800, 9), c.text.substr(1500, 25),
            c.text.substr(2100, 70)};
  trawl::index::build_options bo;
  bo.max_len = 8;
  bo.profile = profile;
  bo.kernel_text = kernel_text;
  c.file = hybrid_index::build(c.text, "t", bo).to_bytes();
  return c;
}

/// Runs every query (one that fails keeps none of the others from running); true if all of
/// them answer as the oracle does.
bool answers_right(const hybrid_index& ix, const corpus& c) {
  if (ix.size() != c.text.size()) return false;
  bool right = true;
  auto query = [&](auto&& answers_right) {
    try {
      right = answers_right() && right;
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format);
      right = false;
    }
  };
  trawl::index::locate_options serial;
  serial.engine = trawl::index::locate_engine::serial;
  for (const auto& p : c.pats) {
    query([&] { return ix.locate(p) == oracle::naive_find(c.text, p); });
    query([&] { return ix.locate(p, serial) == oracle::naive_find(c.text, p); });
    query([&] { return ix.count(p, serial) == oracle::naive_find(c.text, p).size(); });
  }
  // every end within 1 of a 3-byte pattern: a search over S'', decoded from the BWT
  query([&] {
    trawl::search_options approx;
    approx.max_errors = 1;
    approx.all_ends = true;
    approx.threads = 1;
    std::vector<std::pair<std::uint64_t, std::uint32_t>> got, want;
    for (const auto& rh : ix.search_records({c.pats[1]}, approx)) got.emplace_back(rh.h.end, rh.h.errors);
    const auto scores = oracle::end_scores(c.pats[1], c.text);
    for (std::size_t j = 0; j < scores.size(); ++j)
      if (scores[j] <= 1) want.emplace_back(j + 1, scores[j]);
    return got == want;
  });
  query([&] { return ix.extract(0, c.text.size()) == c.text; });
  return right;
}

enum class outcome { refused, right, caught };

/// Loads `bytes` by `load`; a file that loads and answers wrongly must fail verify().
template <class Load>
outcome check_loaded(const Load& load, const corpus& c, const std::string& what) {
  try {
    const hybrid_index ix = load();
    if (answers_right(ix, c)) return outcome::right;
    EXPECT_NE(ix.verify(), "") << what << ": wrong answers, yet verify passes";
    return outcome::caught;
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::bad_format) << what << ": " << e.what();
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos) << what;
    return outcome::refused;
  }
}

/// check_loaded from the bytes (read whole), and for every 4th case by running number from a
/// file of them too (read part by part as the queries need them): both answer right, or
/// neither does.
outcome check(const std::string& bytes, const corpus& c, const std::string& what) {
  const outcome whole = check_loaded([&] { return hybrid_index::from_bytes(bytes); }, c, what);
  static std::uint64_t cases = 0;
  if (cases++ % 4 != 0) return whole;
  static const temp_dir dir;
  const std::string path = dir.write("case.thi", bytes);
  const outcome parts = check_loaded([&] { return hybrid_index::load(path); }, c, what + " (from a file)");
  EXPECT_EQ(whole == outcome::right, parts == outcome::right) << what;
  return whole;
}

void expect_refused(const std::string& bytes, const std::string& what) {
  try {
    (void)hybrid_index::from_bytes(bytes);
    ADD_FAILURE() << what << ": loaded";
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::bad_format) << what;
  }
}

std::string section(const std::string& f, std::size_t i) { return (*index_file::sections(f))[i]; }

TEST(HostileIndex, GoodFilesVerify) {
  for (auto profile : {trawl::index::fm_profile::fast, trawl::index::fm_profile::small})
    for (const auto& c : {make(1, profile), make(2, profile, ""), make(3, profile, "ab"), make(1, profile, "acgt", true),
                          make(2, profile, "", true)}) {
      const hybrid_index ix = hybrid_index::from_bytes(c.file);
      EXPECT_TRUE(answers_right(ix, c));
      EXPECT_EQ(ix.verify(), "");
      EXPECT_EQ(ix.verify(c.text), "");
      EXPECT_NE(ix.verify(c.text + "x"), "");
      std::string other = c.text;
      other[other.size() / 2] ^= 1;
      EXPECT_NE(ix.verify(other).find("differs from the source at byte " + std::to_string(other.size() / 2)),
                std::string::npos);
    }
  // FASTA: compared as build() reads it
  const std::string fa = ">a\nACGTACGTAC\nGG\n>b\nTTTACGTACGTACGG\n";
  const hybrid_index ix = hybrid_index::build(fa, "f.fa");
  EXPECT_EQ(hybrid_index::from_bytes(ix.to_bytes()).verify(fa), "");
  EXPECT_NE(ix.verify(">a\nACGTACGTAC\nGG\n>b\nTTTACGTACGTACGA\n"), "");
}

TEST(HostileIndex, IntegerAndSetHeaders) {
  const corpus c = make(4, trawl::index::fm_profile::fast);
  for (std::size_t i : {src_rank, by_src, src_sample, src_delta, src_len}) {
    const std::string body = section(c.file, i);
    ASSERT_GE(body.size(), 9u);
    for (const std::uint8_t w : {std::uint8_t{0}, std::uint8_t{65}, std::uint8_t{255}}) {  // width
      std::string b = body;
      b[0] = static_cast<char>(w);
      expect_refused(index_file::with_section(c.file, i, b), "section " + std::to_string(i) + " width " + std::to_string(w));
    }
    for (std::uint64_t n : {~std::uint64_t{0}, std::uint64_t{1} << 63, std::uint64_t{1} << 58, std::uint64_t{1} << 40}) {
      std::string b = body;
      index_file::set<std::uint64_t>(b, 1, n);
      expect_refused(index_file::with_section(c.file, i, b), "section " + std::to_string(i) + " count " + std::to_string(n));
    }
  }
  for (std::size_t i : {kept_starts, seg_s2}) {
    const std::string body = section(c.file, i);
    for (std::uint64_t u : {~std::uint64_t{0}, std::uint64_t{1} << 62, std::uint64_t{0}}) {
      std::string b = body;
      index_file::set<std::uint64_t>(b, 0, u);
      expect_refused(index_file::with_section(c.file, i, b), "set " + std::to_string(i) + " universe");
    }
    std::string b = body;
    b[8] = 64;  // low width
    expect_refused(index_file::with_section(c.file, i, b), "set " + std::to_string(i) + " low width");
  }
  // header values with the header checksum fixed: n, z, M, FM kind
  for (std::size_t at : {16u, 24u, 32u, 36u})
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1} << 62, ~std::uint64_t{0}, std::uint64_t{3}}) {
      std::string f = c.file;
      if (at >= 32) index_file::set<std::uint32_t>(f, at, static_cast<std::uint32_t>(v));
      else index_file::set<std::uint64_t>(f, at, v);
      index_file::fix_header(f);
      if (f != c.file) check(f, c, "header field at " + std::to_string(at));
    }
}

TEST(HostileIndex, FmSection) {
  for (auto profile : {trawl::index::fm_profile::fast, trawl::index::fm_profile::small}) {
    const corpus c = make(5, profile);
    const std::string body = section(c.file, fm);
    const auto parsed = index_file::parse_fm(body);
    ASSERT_TRUE(parsed);
    auto edited = [&](auto&& edit) {
      index_file::fm_section s = *parsed;
      edit(s);
      return index_file::with_section(c.file, fm, index_file::compose_fm(s));
    };
    EXPECT_EQ(edited([](auto&) {}), index_file::with_section(c.file, fm, index_file::compose_fm(*parsed)));
    expect_refused(edited([](auto& s) { s.sentinel = s.rows; }), "sentinel row");
    // the sentinel at another row: loads; walks back from the samples may now reach it early
    for (const std::uint64_t shift : {1u, 2u, 7u, 100u, 1000u})
      (void)check(edited([&](auto& s) { s.sentinel = (s.sentinel + shift) % s.rows; }), c,
                  "sentinel moved by " + std::to_string(shift));
    expect_refused(edited([](auto& s) { s.rows += 1; }), "rows");
    expect_refused(edited([](auto& s) { s.bwt.pop_back(); }), "short BWT");
    expect_refused(edited([](auto& s) { s.bwt.push_back('a'); }), "long BWT");
    expect_refused(edited([](auto& s) { s.bwt[3] = 0; }), "a second sentinel");
    expect_refused(edited([](auto& s) { s.rest.pop_back(); }), "truncated samples");
    // the BWT in several frames (the writer's form past 64 MiB) reads the same; frames without
    // their content size, or whose sizes do not add up to the BWT, are refused
    for (const std::size_t frames : {2u, 3u, 7u})
      EXPECT_EQ(check(index_file::with_section(c.file, fm, index_file::compose_fm(*parsed, frames)), c,
                      std::to_string(frames) + " frames"),
                outcome::right);
    expect_refused(index_file::with_section(c.file, fm, index_file::compose_fm(*parsed, 3, false)), "frames without sizes");
    {
      index_file::fm_section s = *parsed;
      const std::string three = index_file::compose_fm(s, 3);
      s.bwt.pop_back();
      expect_refused(index_file::with_section(c.file, fm, index_file::compose_fm(s, 3)), "frames one byte short");
      s.bwt += "ab";
      expect_refused(index_file::with_section(c.file, fm, index_file::compose_fm(s, 3)), "frames one byte long");
      std::string b = three;  // a frame cut off: the frames' total size says so
      index_file::set<std::uint64_t>(b, 16, index_file::get<std::uint64_t>(b, 16) - 5);
      b.erase(b.size() - s.rest.size() - 5, 5);
      expect_refused(index_file::with_section(c.file, fm, b), "last frame cut");
    }
    {
      std::string b = body;  // the zstd frame's claimed size
      index_file::set<std::uint64_t>(b, 16, ~std::uint64_t{0});
      expect_refused(index_file::with_section(c.file, fm, b), "zstd size");
      b = body;
      b[30] ^= 0x55;  // inside the zstd frame
      expect_refused(index_file::with_section(c.file, fm, b), "zstd bytes");
    }
    // a decompression bomb: the BWT of a (consistent) huge S'' cannot come from a tiny frame
    {
      std::string b = body;
      index_file::set<std::uint64_t>(b, 0, std::uint64_t{1} << 40);
      expect_refused(index_file::with_section(c.file, fm, b), "bomb");
    }
    // the BWT permuted or changed: loads (it is a valid string), answers may go wrong, verify
    // must catch every such file
    std::mt19937_64 rng(6);
    int caught = 0;
    for (int k = 0; k < 60; ++k) {
      const std::string f = edited([&](auto& s) {
        std::uniform_int_distribution<std::size_t> at(0, s.bwt.size() - 1);
        if (k % 2 == 0) std::swap(s.bwt[at(rng)], s.bwt[at(rng)]);
        else s.bwt[at(rng)] = s.bwt[at(rng)];
      });
      if (f == c.file) continue;
      const outcome o = check(f, c, "BWT edit " + std::to_string(k));
      caught += o == outcome::caught;
      if (o == outcome::right) {  // an edit that keeps the answers may still be inconsistent
        const hybrid_index ix = hybrid_index::from_bytes(f);
        caught += !ix.verify().empty();
      }
    }
    EXPECT_GT(caught, 30);
    // two samples swapped (still a permutation): loads, answers wrong, and verify says which
    {
      const std::string f = edited([](auto& s) {
        // rest = marked rows (u64 universe | u8 w | ints low | bits high) | samples (ints):
        // ints = u8 width | u64 count | words; bits = u64 count | words
        std::size_t at = 9;
        const std::uint64_t lw = static_cast<std::uint8_t>(s.rest[at]), ln = index_file::get<std::uint64_t>(s.rest, at + 1);
        at += 9 + (ln * lw + 63) / 64 * 8;
        at += 8 + (index_file::get<std::uint64_t>(s.rest, at) + 63) / 64 * 8;
        const std::uint64_t w = static_cast<std::uint8_t>(s.rest[at]);
        auto value = [&](std::uint64_t i) {
          std::uint64_t v = 0;
          for (std::uint64_t b = 0; b < w; ++b) {
            const std::uint64_t bit = i * w + b;
            v |= static_cast<std::uint64_t>((s.rest[at + 9 + bit / 8] >> (bit % 8)) & 1) << b;
          }
          return v;
        };
        auto assign = [&](std::uint64_t i, std::uint64_t v) {
          for (std::uint64_t b = 0; b < w; ++b) {
            const std::uint64_t bit = i * w + b;
            char& byte = s.rest[at + 9 + bit / 8];
            byte = static_cast<char>((byte & ~(1 << (bit % 8))) | (((v >> b) & 1) << (bit % 8)));
          }
        };
        const std::uint64_t a = value(0), b = value(1);
        assign(0, b);
        assign(1, a);
      });
      const hybrid_index ix = hybrid_index::from_bytes(f);
      EXPECT_NE(ix.verify().find("suffix-array sample"), std::string::npos) << ix.verify();
    }
  }
}

TEST(HostileIndex, SourcesAndSegments) {
  const corpus c = make(7, trawl::index::fm_profile::fast);
  const hybrid_index good = hybrid_index::from_bytes(c.file);
  ASSERT_GT(good.info().kept, 2u);
  // a source moved by one: the order checks may pass, the copy check must not
  std::mt19937_64 rng(8);
  int loaded_wrong = 0;
  for (std::size_t i : {src_delta, src_len, src_sample, kept_starts, seg_s2}) {
    const std::string body = section(c.file, i);
    for (int k = 0; k < 40; ++k) {
      std::string b = body;
      std::uniform_int_distribution<std::size_t> at(9, b.size() - 1);
      b[at(rng)] ^= static_cast<char>(1 << (k % 8));
      const outcome o = check(index_file::with_section(c.file, i, b), c, "section " + std::to_string(i) + " edit " + std::to_string(k));
      loaded_wrong += o == outcome::caught;
    }
  }
  EXPECT_GT(loaded_wrong, 0);
}

TEST(HostileIndex, TwoBadSectionsAtOnce) {
  // The load checks the FM-index section and the phrases side by side: a bad FM-index must not
  // cut the phrase checks short while their serial part goes on to read a source rank that
  // points far outside (M = 1 reads the last kept phrase's length through it).
  std::mt19937_64 rng(12);
  const std::string text = textgen::mutated_copies(rng, 700, 6, 0.01, "acgt");
  trawl::index::build_options bo;
  bo.max_len = 1;
  const std::string file = hybrid_index::build(text, "t", bo).to_bytes();
  ASSERT_GT(hybrid_index::from_bytes(file).info().kept, 2u);
  // the source ranks as 64-bit integers, the last one huge
  const std::string ranks = section(file, src_rank);
  std::uint8_t width = 0;
  std::uint64_t count = 0;
  std::memcpy(&width, ranks.data(), 1);
  std::memcpy(&count, ranks.data() + 1, 8);
  const auto value = [&](std::uint64_t i) {
    std::uint64_t v = 0;
    for (std::uint64_t b = 0; b < width; ++b) {
      const std::uint64_t bit = i * width + b;
      std::uint64_t word = 0;
      std::memcpy(&word, ranks.data() + 9 + bit / 64 * 8, 8);
      v |= (word >> (bit % 64) & 1) << b;
    }
    return v;
  };
  std::string wide(1, static_cast<char>(64));
  wide.append(ranks.data() + 1, 8);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t v = i + 1 == count ? std::uint64_t{1} << 60 : value(i);
    wide.append(reinterpret_cast<const char*>(&v), 8);
  }
  const auto fm_body = index_file::parse_fm(section(file, fm));
  ASSERT_TRUE(fm_body);
  index_file::fm_section bad_fm = *fm_body;
  bad_fm.sentinel = bad_fm.rows;  // refused at once, while the phrase checks may still run
  const std::string both =
      index_file::with_section(index_file::with_section(file, src_rank, wide), fm, index_file::compose_fm(bad_fm));
  for (int run = 0; run < 20; ++run) expect_refused(both, "bad FM-index and source rank, run " + std::to_string(run));
  expect_refused(index_file::with_section(file, src_rank, wide), "source rank");
}

TEST(HostileIndex, CountSection) {
  // the run-length BWT of a fast-profile index, edited: each edit is refused on load, or loads
  // and is caught by verify (it no longer matches the text), never a wrong count unnoticed
  const corpus c = make(12, trawl::index::fm_profile::fast);
  const std::string body = section(c.file, counts);
  const auto runs = index_file::parse_counts(body);
  ASSERT_TRUE(runs);
  ASSERT_GT(runs->lengths.size(), 8u);
  auto with = [&](const index_file::counts_section& s) { return index_file::with_section(c.file, counts, index_file::compose_counts(s)); };
  EXPECT_EQ(check(with(*runs), c, "recompressed"), outcome::right);
  EXPECT_EQ(check(index_file::with_section(c.file, counts, ""), c, "left out"), outcome::right);  // count takes the parse
  auto edit = [&](auto&& f) {
    auto s = *runs;
    f(s);
    return with(s);
  };
  expect_refused(edit([](auto& s) { ++s.lengths[3]; }), "one row too many");
  expect_refused(edit([](auto& s) { --s.rows; }), "rows not the text's");
  expect_refused(edit([](auto& s) { s.lengths[2] = 0; }), "empty run");
  expect_refused(edit([](auto& s) { s.sentinel = s.lengths.size(); }), "sentinel past the runs");
  expect_refused(edit([](auto& s) {  // a run of two rows or more split in two of one symbol
    std::size_t k = 0;
    while (k == s.sentinel || s.lengths[k] < 2) ++k;
    const std::size_t h = k - (s.sentinel < k ? 1 : 0);
    --s.lengths[k];
    s.lengths.insert(s.lengths.begin() + static_cast<std::ptrdiff_t>(k), 1);
    s.heads.insert(s.heads.begin() + static_cast<std::ptrdiff_t>(h), s.heads[h]);
  }), "two neighbouring runs of one symbol");
  expect_refused(edit([](auto& s) { s.heads[0] = 'z' - 1; }), "a symbol the text does not have");
  expect_refused(edit([](auto& s) { s.lengths[s.sentinel] += 1, s.lengths[s.sentinel == 0 ? 1 : 0] -= 1; }),
                 "a sentinel run of two rows");
  {
    std::string b = body;  // a decompression bomb: lengths claiming far more bytes than their frame
    index_file::set<std::uint64_t>(b, 16, std::uint64_t{1} << 40);
    expect_refused(index_file::with_section(c.file, counts, b), "bomb");
  }
  expect_refused(index_file::with_section(c.file, counts, body.substr(0, body.size() - 2)), "cut");
  // two runs' symbols swapped where that keeps neighbours apart: a BWT of another text
  auto swapped = *runs;
  for (std::size_t i = 2; i + 3 < swapped.heads.size(); ++i)
    if (swapped.heads[i] != swapped.heads[i + 1] && swapped.heads[i - 1] != swapped.heads[i + 1] &&
        swapped.heads[i + 2] != swapped.heads[i]) {
      std::swap(swapped.heads[i], swapped.heads[i + 1]);
      break;
    }
  ASSERT_NE(swapped.heads, runs->heads);
  const hybrid_index ix = hybrid_index::from_bytes(with(swapped));
  EXPECT_NE(ix.verify().find("count index"), std::string::npos) << ix.verify();
}

TEST(HostileIndex, KernelTextSection) {
  const corpus c = make(11, trawl::index::fm_profile::fast, "acgt", true);
  const std::string body = section(c.file, s2_text);
  const auto text = index_file::parse_text(body);
  ASSERT_TRUE(text);
  ASSERT_FALSE(text->empty());
  const std::uint64_t len = text->size();
  auto with = [&](const std::string& b) { return index_file::with_section(c.file, s2_text, b); };
  EXPECT_EQ(check(with(index_file::compose_text(*text, len)), c, "recompressed"), outcome::right);
  EXPECT_EQ(check(with(index_file::compose_text(*text, len, 3)), c, "3 frames"), outcome::right);
  // left out: S'' is decoded from the BWT instead
  EXPECT_EQ(check(with(""), c, "no text"), outcome::right);
  expect_refused(with(index_file::compose_text(*text, len + 1)), "length one more");
  expect_refused(with(index_file::compose_text(*text, len - 1)), "length one less");
  expect_refused(with(index_file::compose_text(text->substr(1), len)), "text one byte short");
  expect_refused(with(index_file::compose_text(*text + "a", len)), "text one byte long");
  expect_refused(with(index_file::compose_text(*text, len, 3, false)), "frames without sizes");
  expect_refused(with(body.substr(0, body.size() - 3)), "cut");
  expect_refused(with(body + "xyz"), "trailing bytes");
  {
    std::string b = body;  // a decompression bomb: a huge S'' from a tiny frame
    index_file::set<std::uint64_t>(b, 0, std::uint64_t{1} << 40);
    expect_refused(with(b), "bomb");
  }
  // the FM-index's section of such a file is read on first use: a corrupt one loads, and the
  // first query that needs it (an exact locate, verify) refuses it
  {
    auto fmsec = index_file::parse_fm(section(c.file, fm));
    ASSERT_TRUE(fmsec);
    fmsec->bwt.pop_back();
    const hybrid_index ix = hybrid_index::from_bytes(index_file::with_section(c.file, fm, index_file::compose_fm(*fmsec)));
    try {
      (void)ix.locate(c.pats[2]);
      ADD_FAILURE() << "a short BWT answered";
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format);
    }
    EXPECT_NE(ix.verify(), "");
    EXPECT_EQ(check(index_file::with_section(c.file, fm, index_file::compose_fm(*fmsec)), c, "short BWT"), outcome::caught);
  }
  // a byte of S'' changed: loads; the approximate search may go wrong, verify must say so
  std::mt19937_64 rng(12);
  int caught = 0;
  for (int k = 0; k < 20; ++k) {
    std::string t = *text;
    t[rng() % t.size()] = "acgt"[k % 4];
    if (t == *text) continue;
    const std::string f = with(index_file::compose_text(t, len));
    EXPECT_NE(hybrid_index::from_bytes(f).verify(), "") << "edit " << k;
    caught += check(f, c, "text edit " + std::to_string(k)) == outcome::caught;
  }
  EXPECT_GT(caught, 0);
}

TEST(HostileIndex, EveryBitOfEverySectionWithChecksumsFixed) {
  for (auto profile : {trawl::index::fm_profile::fast, trawl::index::fm_profile::small}) {
    const corpus c = make(9, profile, "acgt", profile == trawl::index::fm_profile::fast);
    const auto secs = *index_file::sections(c.file);
    std::mt19937_64 rng(10);
    test_share::cases share;
    for (std::size_t i = 0; i < secs.size(); ++i) {
      const std::string& body = secs[i];
      // every bit of the first 64 bytes (headers of the section's parts), then a sample
      for (std::size_t byte = 0; byte < body.size(); byte = byte < 64 ? byte + 1 : byte + 1 + rng() % 29)
        for (int bit = 0; bit < 8; bit += byte < 64 ? 1 : 3) {
          if (!share.runs()) continue;
          std::string b = body;
          b[byte] ^= static_cast<char>(1 << bit);
          check(index_file::with_section(c.file, i, b), c,
                "section " + std::to_string(i) + " byte " + std::to_string(byte) + " bit " + std::to_string(bit));
        }
    }
  }
}

}  // namespace
