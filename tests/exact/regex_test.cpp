// regex_test.cpp — search_options::regex against std::regex (tests/oracle/regex_oracle.hpp):
// random expressions over random lines, with -i, whole words and whole lines, over several
// slicings, thread counts and stream chunk sizes; the patterns Vectorscan cannot name lines
// for (back-references, lookbehind, subject anchors, empty matches); the line-length bound;
// and the refusals.
#include <gtest/gtest.h>


#include <random>
#include <string>
#include <vector>

#include "oracle.hpp"
#include "regex_oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

std::vector<oracle::regex_match> as_matches(const std::vector<trawl::hit>& hs) {
  std::vector<oracle::regex_match> v;
  for (const trawl::hit& h : hs) {
    EXPECT_EQ(h.errors, 0u);
    EXPECT_EQ(h.dir, trawl::strand::forward);
    v.push_back({h.start, h.end, h.pattern});
  }
  return v;
}

std::string show(const std::vector<oracle::regex_match>& v) {
  std::string s;
  for (const auto& m : v)
    s.append("(").append(std::to_string(m.start)).append(",").append(std::to_string(m.end)).append(",p")
        .append(std::to_string(m.pattern)).append(") ");
  return s;
}

/// A random expression in the dialect both PCRE2 and ECMAScript read alike.
std::string random_regex(std::mt19937_64& rng, int depth = 0) {
  static const char* atoms[] = {"a",   "b",     "c",   " ",           "-",       ".",   "[ab]",     "[^a ]",
                                "[a-c]", "ab",  "ba",  "(a|b)\\1", "abc", "c-b", "\\-", "[[:alpha:]]",
                                "ab a", "a{2,}"};
  static const char* quants[] = {"", "", "", "*", "+", "?", "{1,2}", "{2}", "*?", "+?", "??"};
  std::string out;
  const int alts = 1 + static_cast<int>(rng() % (depth == 0 ? 3 : 2));
  for (int a = 0; a < alts; ++a) {
    if (a > 0) out += '|';
    const int pieces = 1 + static_cast<int>(rng() % 3);
    for (int p = 0; p < pieces; ++p) {
      if (depth < 1 && rng() % 6 == 0) {
        out += "(?:" + random_regex(rng, depth + 1) + ")";
      } else {
        std::string atom = atoms[rng() % std::size(atoms)];
        if (atom.size() == 2) atom = "(?:" + atom + ")";
        out += atom;
        // quantified groups are left out: the dialects differ on empty iterations
        if (atom[0] != '(' && atom.back() != '}') out += quants[rng() % std::size(quants)];
      }
    }
  }
  if (depth == 0 && rng() % 6 == 0) out = "^(?:" + out + ")";
  if (depth == 0 && rng() % 6 == 0) out = "(?:" + out + ")$";
  return out;
}

/// Lines of about 10 bytes, or of about 200.
std::string random_lines(std::mt19937_64& rng, std::size_t n) {
  std::string t = oracle::random_text(rng, n, "abcab -ABC\n");
  if (rng() % 3 == 0)
    for (char& c : t)
      if (c == '\n' && rng() % 20 != 0) c = 'a';
  if (rng() % 3 == 0) t += '\n';
  return t;
}

std::vector<trawl::hit> run(const std::string& text, const std::vector<std::string>& pats, trawl::search_options o) {
  return trawl::search(text, pats, o);
}

TEST(Regex, MatchesStdRegexOverSlicings) {
  int cases = 0, hits = 0;
  for (std::uint64_t seed = 0; seed < 300; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = random_lines(rng, 1 + rng() % 300);
    std::vector<std::string> pats;
    const std::size_t np = 1 + rng() % (seed % 5 == 0 ? 12 : 3);
    for (std::size_t i = 0; i < np; ++i) pats.push_back(random_regex(rng));
    trawl::search_options o;
    o.regex = true;
    o.ignore_case = seed % 4 == 1;
    o.whole_words = seed % 7 == 2;
    o.whole_lines = !o.whole_words && seed % 9 == 3;
    const auto want = oracle::regex_matches(text, pats, o.ignore_case, o.whole_words, o.whole_lines);
    hits += static_cast<int>(want.size());
    for (unsigned threads : {1u, 3u})
      for (std::size_t slice : {std::size_t{0}, std::size_t{1}, std::size_t{7}, std::size_t{64}}) {
        o.threads = threads;
        o.slice_size = slice;
        const auto got = as_matches(run(text, pats, o));
        std::string what = "seed " + std::to_string(seed) + " threads " + std::to_string(threads) + " slice " +
                           std::to_string(slice) + " patterns:";
        for (const auto& p : pats) what += " /" + p + "/";
        ASSERT_TRUE(got == want) << what << "\n got  " << show(got) << "\n want " << show(want);
        ++cases;
      }
  }
  EXPECT_GT(hits, 1000);  // the random cases do match
  EXPECT_EQ(cases, 300 * 8);
}

TEST(Regex, StreamsInChunks) {
  for (std::uint64_t seed = 200; seed < 230; ++seed) {
    std::mt19937_64 rng(seed);
    const std::string text = random_lines(rng, 50 + rng() % 2000);
    const std::vector<std::string> pats = {random_regex(rng), random_regex(rng)};
    trawl::search_options o;
    o.regex = true;
    const auto want = oracle::regex_matches(text, pats);
    const auto m = trawl::make_matcher(pats, o);
    for (std::size_t chunk : {std::size_t{1}, std::size_t{5}, std::size_t{97}})
      for (std::size_t piece : {std::size_t{1}, std::size_t{13}}) {
        std::vector<trawl::hit> got;
        struct sink final : trawl::search_sink {
          std::vector<trawl::hit>* out;
          void begin_record(const trawl::record_info&) override {}
          bool hits(std::span<const trawl::hit> hs) override {
            out->insert(out->end(), hs.begin(), hs.end());
            return true;
          }
          void end_record(std::uint64_t) override {}
        } s;
        s.out = &got;
        auto src = trawl::io::source::from_stream(trawl::io::memory_stream(text, piece), "mem");
        trawl::stream_options so;
        so.chunk_size = chunk;
        so.format = trawl::io::format::plain;
        o.threads = 2;
        trawl::search_input(*m, src, o, so, s);
        ASSERT_TRUE(as_matches(got) == want) << "seed " << seed << " chunk " << chunk << " piece " << piece;
      }
  }
}

TEST(Regex, PatternsPcre2ReadsOnEveryLine) {
  const std::string text = "aa ab\nbaab\n\nxaay\naab\n";
  trawl::search_options o;
  o.regex = true;
  for (std::size_t slice : {std::size_t{0}, std::size_t{3}}) {
    o.slice_size = slice;
    // a back-reference (ECMAScript reads it too)
    EXPECT_TRUE(as_matches(run(text, {"(a)\\1"}, o)) == oracle::regex_matches(text, {"(a)\\1"}));
    // lookbehind: every b after an a
    const auto lb = run(text, {"(?<=a)b"}, o);
    ASSERT_EQ(lb.size(), 3u);
    EXPECT_EQ(lb[0].start, 4u);
    EXPECT_EQ(lb[1].start, 9u);
    EXPECT_EQ(lb[2].start, 19u);
    // \A and \z are a line's ends, as ^ and $
    EXPECT_TRUE(as_matches(run(text, {"\\Aa+"}, o)) == oracle::regex_matches(text, {"^a+"}));
    EXPECT_TRUE(as_matches(run(text, {"b\\z"}, o)) == oracle::regex_matches(text, {"b$"}));
    // empty matches: one at every place a line has no a
    EXPECT_TRUE(as_matches(run(text, {"a*"}, o)) == oracle::regex_matches(text, {"a*"}));
    EXPECT_TRUE(as_matches(run(text, {"x?", "a+"}, o)) == oracle::regex_matches(text, {"x?", "a+"}));
  }
}

TEST(Regex, LinesAreBounded) {
  const std::size_t max = trawl::regex_max_line;
  trawl::search_options o;
  o.regex = true;
  // lines of 1, max and 2 bytes
  const std::string ok = "a\n" + std::string(max - 2, 'x') + "ab\nab";
  const std::vector<oracle::regex_match> want = {{0, 1, 0}, {2, max + 1, 1}, {max, max + 2, 0}, {max + 3, max + 5, 0}};
  for (std::size_t slice : {std::size_t{0}, std::size_t{4096}, max}) {
    o.slice_size = slice;
    const auto got = as_matches(run(ok, {"ab?", "x+a"}, o));
    EXPECT_TRUE(got == want) << slice << " got " << show(got);
    // one more byte in the long line, at its start, middle or end: refused, whatever the
    // slicing, whether or not the line holds a match
    for (std::size_t at : {std::size_t{2}, max / 2, max}) {
      std::string bad = ok;
      bad.insert(at, "y");
      EXPECT_THROW(run(bad, {"ab"}, o), trawl::error) << slice << " " << at;
      EXPECT_THROW(run(bad, {"q"}, o), trawl::error) << slice << " " << at;
    }
  }
}

TEST(Regex, LongShortestMatchesAreBoundedPerLine) {
  // A pattern whose shortest match is long (1024 bytes or more; PCRE2 computes it up to 65535)
  // can scan that much of a long line at every start. On a line that can hold a match it
  // runs with a budget of steps: the matches it finds are right, and one it cannot settle in
  // its budget ends the search with an error instead of minutes a line.
  trawl::search_options o;
  o.regex = true;
  const std::string line(100000, 'a');
  const std::string text = "ab\n" + line + "\nxyz\n" + line.substr(0, 70010) + "\n";
  // (a{35000}){2}: 70 000 bytes, one match in each long line, from its start
  const auto got = as_matches(run(text, {"(a{35000}){2}", "b"}, o));
  const std::vector<oracle::regex_match> want = {{1, 2, 1}, {3, 70003, 0}, {100008, 170008, 0}};
  EXPECT_TRUE(got == want) << show(got);
  // (a{1000}){1000}: a million bytes, never in a line of 100 000; the budget ends it
  try {
    (void)run(text, {"(a{1000}){1000}"}, o);
    ADD_FAILURE() << "no error";
  } catch (const trawl::error& e) {
    EXPECT_NE(std::string(e.what()).find("matching steps"), std::string::npos) << e.what();
  }
  // on short lines alone it is a search like any other: no match
  EXPECT_TRUE(run("aaa\nbbb\n", {"(a{1000}){1000}"}, o).empty());
  // under PCRE2's cap, (a{1000}){60} (60 000 bytes) is budgeted too: it finds its matches, and
  // a line whose runs of a fall just short at every start ends the search
  std::string runs;
  for (int i = 0; i < 4; ++i) runs += std::string(59000, 'a') + "b";
  const std::string text2 = "xy\n" + line + "\n";
  const auto got2 = as_matches(run(text2, {"(a{1000}){60}"}, o));
  const std::vector<oracle::regex_match> want2 = {{3, 60003, 0}};
  EXPECT_TRUE(got2 == want2) << show(got2);
  try {
    std::string bad = "x\n";
    bad += runs;
    bad += '\n';
    (void)run(bad, {"(a{1000}){60}"}, o);
    ADD_FAILURE() << "no error";
  } catch (const trawl::error& e) {
    EXPECT_NE(std::string(e.what()).find("its shortest match is 60000 bytes,"), std::string::npos) << e.what();
  }
}

TEST(Regex, Refusals) {
  trawl::search_options o;
  o.regex = true;
  EXPECT_THROW(trawl::make_matcher({"(ab"}, o), trawl::error);
  EXPECT_THROW(trawl::make_matcher({"a", "b)"}, o), trawl::error);
  EXPECT_THROW(trawl::make_matcher({""}, o), trawl::error);
  trawl::search_options k = o;
  k.max_errors = 1;
  EXPECT_THROW(trawl::make_matcher({"ab"}, k), trawl::error);
  trawl::search_options both = o;
  both.both_strands = true;
  EXPECT_THROW(trawl::make_matcher({"ab"}, both), trawl::error);
  trawl::search_options gpu = o;
  gpu.device = trawl::device_kind::gpu;
  EXPECT_THROW(trawl::choose_device(gpu, 1, 1000), trawl::error);
  // a catastrophic expression ends in an error, not a hang
  EXPECT_THROW(run("x" + std::string(40, 'a') + "!", {"(?<=x)(?:a+)+$"}, o), trawl::error);
}

}  // namespace
