// stream_test.cpp — searching inputs as they arrive (trawl/stream.hpp): every source (mapped
// file, a stream fed 1..N bytes at a time, gzip by both inflaters, multi-member gzip, zstd,
// FASTA/FASTQ streams) gives the hits of the oracle (exact, all-ends) or of the whole-record
// search (clusters) for every thread count and chunk size; the record parser against a naive
// one; early stop, pauses, and errors after the hits before them.
#include <gtest/gtest.h>
#include <zlib.h>
#include <zstd.h>

#include <atomic>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>

#include "oracle.hpp"
#include "temp_dir.hpp"
#include "test_share.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace fs = std::filesystem;

namespace {

struct found {
  std::uint64_t record;
  trawl::hit h;
  bool operator==(const found& o) const { return record == o.record && h == o.h; }
};

/// Collects what a search hands over and checks the sink contract on the way: records begin
/// and end in turn, text comes in order, every hit lies in text already handed over and starts
/// at or after the last floor, hits come in text order.
class collecting_sink final : public trawl::search_sink {
 public:
  explicit collecting_sink(bool text, std::uint64_t stop_after = 0) : want_text_(text), stop_after_(stop_after) {}
  void begin_record(const trawl::record_info& r) override {
    EXPECT_FALSE(open_);
    open_ = true;
    names.emplace_back(r.name);
    texts.emplace_back();
    record_ = r.index;
    floor_ = 0;
  }
  [[nodiscard]] bool wants_text() const override { return want_text_; }
  void text(std::uint64_t pos, std::string_view bytes, bool) override {
    EXPECT_EQ(pos, texts.back().size());
    texts.back().append(bytes);
  }
  bool hits(std::span<const trawl::hit> hs) override {
    EXPECT_TRUE(open_);
    for (const trawl::hit& h : hs) {
      if (want_text_) {
        EXPECT_LE(h.end, texts.back().size());
        EXPECT_GE(h.start, floor_);
      }
      all.push_back({record_, h});
    }
    return stop_after_ == 0 || all.size() < stop_after_;
  }
  void floor(std::uint64_t pos) override {
    EXPECT_GE(pos, floor_);
    floor_ = pos;
  }
  void end_record(std::uint64_t length) override {
    EXPECT_TRUE(open_);
    open_ = false;
    lengths.push_back(length);
    if (want_text_) {
      EXPECT_EQ(texts.back().size(), length);
    }
  }
  void idle() override { ++idles; }

  std::vector<found> all;
  std::vector<std::string> names, texts;
  std::vector<std::uint64_t> lengths;
  int idles = 0;

 private:
  bool want_text_, open_ = false;
  std::uint64_t stop_after_, record_ = 0, floor_ = 0;
};

std::string gzip_of(std::string_view s, int members = 1) {
  std::string out;
  const std::size_t part = s.size() / static_cast<std::size_t>(members) + 1;
  for (std::size_t at = 0; at < s.size() || (at == 0 && s.empty()); at += part) {
    z_stream zs{};
    deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    const std::string_view in = s.substr(at, std::min(part, s.size() - at));
    std::string buf(deflateBound(&zs, static_cast<uLong>(in.size())) + 64, '\0');
    zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
    zs.avail_in = static_cast<uInt>(in.size());
    zs.next_out = reinterpret_cast<Bytef*>(buf.data());
    zs.avail_out = static_cast<uInt>(buf.size());
    EXPECT_EQ(deflate(&zs, Z_FINISH), Z_STREAM_END);
    buf.resize(zs.total_out);
    deflateEnd(&zs);
    out += buf;
    if (s.empty()) break;
  }
  return out;
}

std::string zstd_of(std::string_view s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}

/// The ways an input can arrive; `bytes` is what the source delivers (maybe compressed).
struct way {
  std::string label;
  std::function<trawl::io::source(const std::string& plain)> open;
};

std::vector<way> every_way(const fs::path& dir) {
  std::vector<way> w;
  for (std::size_t piece : {1, 7, 4096, 0})
    w.push_back({"stream/" + std::to_string(piece), [piece](const std::string& plain) {
                   auto keep = std::make_shared<std::string>(plain);
                   struct owning final : trawl::io::byte_stream {
                     std::shared_ptr<std::string> s;
                     std::unique_ptr<trawl::io::byte_stream> in;
                     std::ptrdiff_t read(char* b, std::size_t n, int t) override { return in->read(b, n, t); }
                   };
                   auto o = std::make_unique<owning>();
                   o->s = keep;
                   o->in = trawl::io::memory_stream(*keep, piece);
                   return trawl::io::source::from_stream(std::move(o), "in");
                 }});
  auto file = [dir](const std::string& name, std::string bytes, trawl::io::inflater inf) {
    const fs::path p = dir / name;
    std::ofstream(p, std::ios::binary) << bytes;
    trawl::io::open_options o;
    o.name = "in";
    o.gzip = inf;
    return trawl::io::source::open(p.string(), o);
  };
  w.push_back({"mapped", [file](const std::string& s) { return file("plain", s, trawl::io::inflater::automatic); }});
  w.push_back({"gzip-zlib", [file](const std::string& s) { return file("z.gz", gzip_of(s), trawl::io::inflater::zlib); }});
  if (trawl::io::have_isal())
    w.push_back({"gzip-isal", [file](const std::string& s) { return file("i.gz", gzip_of(s), trawl::io::inflater::isal); }});
  w.push_back({"gzip-members", [file](const std::string& s) { return file("m.gz", gzip_of(s, 5), trawl::io::inflater::automatic); }});
  w.push_back({"zstd", [file](const std::string& s) { return file("a.zst", zstd_of(s) + zstd_of(""), trawl::io::inflater::automatic); }});
  return w;
}


/// What the whole-record search finds in each record (the reference for cluster mode, whose
/// engines are checked against the DP oracle in the approx tests).
std::vector<found> per_record(const trawl::matcher& m, const std::vector<oracle::record>& recs, trawl::search_options o) {
  std::vector<found> v;
  o.threads = 1;
  for (std::uint64_t r = 0; r < recs.size(); ++r)
    trawl::search_sequence(m, recs[r].seq, o, [&](std::span<const trawl::hit> hs) {
      for (const auto& h : hs) v.push_back({r, h});
      return true;
    });
  return v;
}

/// Exact hits by the naive oracle, in the delivered order (record, start, pattern).
std::vector<found> exact_oracle(const std::vector<oracle::record>& recs, const std::vector<std::string>& pats) {
  std::vector<found> v;
  for (std::uint64_t r = 0; r < recs.size(); ++r) {
    std::vector<trawl::hit> hs;
    for (std::uint32_t i = 0; i < pats.size(); ++i)
      for (auto s : oracle::naive_find(recs[r].seq, pats[i])) hs.push_back({s, s + pats[i].size(), i, 0, trawl::strand::forward});
    std::sort(hs.begin(), hs.end(), [](const trawl::hit& a, const trawl::hit& b) {
      return std::tie(a.start, a.pattern) < std::tie(b.start, b.pattern);
    });
    for (const auto& h : hs) v.push_back({r, h});
  }
  return v;
}

/// The sink saw `recs` whole (names and bytes, in order) and the hits `want`.
void expect_records(const collecting_sink& sink, const trawl::stream_result& r, const std::vector<oracle::record>& recs,
                    const std::vector<found>& want, const std::string& where) {
  EXPECT_TRUE(sink.all == want) << where;
  EXPECT_EQ(r.records, recs.size()) << where;
  ASSERT_EQ(sink.names.size(), recs.size()) << where;
  for (std::size_t i = 0; i < recs.size(); ++i) {
    ASSERT_EQ(sink.names[i], recs[i].name) << where;
    ASSERT_EQ(sink.texts[i], recs[i].seq) << where;
  }
}

/// All-ends hits (every end with score <= k) by Sellers' DP, in the delivered order.
std::vector<found> all_ends_oracle(const std::vector<oracle::record>& recs, const std::string& p, std::uint32_t k) {
  std::vector<found> v;
  for (std::uint64_t r = 0; r < recs.size(); ++r) {
    const auto sc = oracle::end_scores(p, recs[r].seq);
    for (std::uint64_t j = 0; j < sc.size(); ++j)
      if (sc[j] <= k) v.push_back({r, {j + 1, j + 1, 0, sc[j], trawl::strand::forward}});
  }
  return v;
}

std::string fasta_of(const std::vector<oracle::record>& recs, std::size_t width, bool crlf) {
  std::string s;
  const char* nl = crlf ? "\r\n" : "\n";
  for (const auto& r : recs) {
    s += ">" + r.name + " some description" + nl;
    for (std::size_t i = 0; i < r.seq.size(); i += width) s += r.seq.substr(i, width) + nl;
  }
  return s;
}

std::string fastq_of(const std::vector<oracle::record>& recs) {
  std::string s;
  for (const auto& r : recs) s += "@" + r.name + "\n" + r.seq + "\n+\n" + std::string(r.seq.size(), 'I') + "\n";
  return s;
}

TEST(RecordParser, FedInPiecesOfAnySizeMatchesTheNaiveParser) {
  std::mt19937_64 rng(11);
  std::vector<oracle::record> recs;
  for (int i = 0; i < 12; ++i)
    recs.push_back({"r" + std::to_string(i), oracle::random_text(rng, rng() % 200, "ACGTN")});
  recs[3].seq.clear();
  struct collect final : trawl::io::record_handler {
    std::vector<oracle::record> out;
    bool open = false;
    void begin_record(std::string_view name) override {
      EXPECT_FALSE(open);
      open = true;
      out.push_back({std::string(name), ""});
    }
    void sequence(std::string_view b) override { out.back().seq.append(b); }
    void end_record() override { open = false; }
  };
  const std::string inputs[] = {fasta_of(recs, 60, false), fasta_of(recs, 7, true), "\xEF\xBB\xBF\n\n" + fasta_of(recs, 1, false),
                                fastq_of(recs), "\n" + fastq_of(recs).substr(0, fastq_of(recs).size() - 1)};
  for (const std::string& in : inputs) {
    const bool fasta = in.find('>') != std::string::npos;
    const auto want = oracle::parse_records(in.substr(in.rfind('\xBF') == std::string::npos ? 0 : 3), fasta);
    ASSERT_EQ(want, recs);
    for (std::size_t piece : {1, 2, 3, 5, 64, 100000}) {
      collect c;
      trawl::io::record_parser p(trawl::io::format::automatic, "in", c);
      for (std::size_t i = 0; i < in.size(); i += piece) p.feed(std::string_view(in).substr(i, piece));
      p.finish();
      EXPECT_EQ(c.out, want) << "piece " << piece;
      EXPECT_EQ(p.detected(), fasta ? trawl::io::format::fasta : trawl::io::format::fastq);
    }
  }
  // A plain input is one record with every byte; an empty one is one empty record.
  for (const std::string& in : {std::string("hello\n>x\n"), std::string()}) {
    collect c;
    trawl::io::record_parser p(trawl::io::format::automatic, "in", c);
    for (char ch : in) p.feed(std::string_view(&ch, 1));
    p.finish();
    ASSERT_EQ(c.out.size(), 1u);
    EXPECT_EQ(c.out[0], (oracle::record{"in", in}));
  }
  // A FASTQ quality line of the wrong length is an error, whatever the pieces.
  for (std::size_t piece : {1, 4, 1000}) {
    collect c;
    trawl::io::record_parser p(trawl::io::format::fastq, "in", c);
    const std::string bad = "@a\nACGT\n+\nIIII\n@b\nACGT\n+\nIII\n";
    EXPECT_THROW(
        {
          for (std::size_t i = 0; i < bad.size(); i += piece) p.feed(std::string_view(bad).substr(i, piece));
          p.finish();
        },
        trawl::error);
    EXPECT_EQ(c.out.size(), 1u);  // the good record came through first
  }
}

TEST(RecordParser, MultiLineFastqAsSangerWritesIt) {
  // sequence and qualities wrapped at `width`, qualities made of '@', '+' and 'I' (so a quality
  // line may look like a header or a '+' line): the records of the one-line FASTQ, by the
  // streaming parser in pieces, by the mapped reader, and by the detection
  std::mt19937_64 rng(12);
  std::vector<oracle::record> recs;
  for (int i = 0; i < 9; ++i) recs.push_back({"r" + std::to_string(i), oracle::random_text(rng, rng() % 150, "ACGT")});
  recs[2].seq.clear();
  struct collect final : trawl::io::record_handler {
    std::vector<oracle::record> out;
    void begin_record(std::string_view name) override { out.push_back({std::string(name), ""}); }
    void sequence(std::string_view b) override { out.back().seq.append(b); }
    void end_record() override {}
  };
  for (const std::size_t width : {1, 3, 60}) {
    std::string in;
    for (const auto& r : recs) {
      const std::string qual = oracle::random_text(rng, r.seq.size(), "@+I");
      in += "@" + r.name + " some description\n";
      for (std::size_t i = 0; i < r.seq.size(); i += width) in += r.seq.substr(i, width) + "\n";
      in += "+\n";
      for (std::size_t i = 0; i < qual.size(); i += width) in += qual.substr(i, width) + "\n";
      if (r.seq.empty()) in += "\n";
    }
    EXPECT_EQ(trawl::io::detect_format(in), trawl::io::format::fastq) << "width " << width;
    for (std::size_t piece : {1, 7, 100000}) {
      collect c;
      trawl::io::record_parser p(trawl::io::format::automatic, "in", c);
      for (std::size_t i = 0; i < in.size(); i += piece) p.feed(std::string_view(in).substr(i, piece));
      p.finish();
      EXPECT_EQ(c.out, recs) << "width " << width << " piece " << piece;
    }
    trawl::io::record_reader rr(in, trawl::io::format::automatic, "in");
    std::vector<oracle::record> mapped;
    trawl::io::record r;
    while (rr.next(r)) mapped.push_back({std::string(r.name), std::string(r.sequence)});
    EXPECT_EQ(mapped, recs) << "width " << width;
  }
  // qualities cut short at the end, or longer than the sequence: an error, not a record lost
  for (const std::string bad : {"@a\nAC\nGT\n+\nII\nI", "@a\nAC\nGT\n+\nII\nIII\n", "@a\nAC\nGT\n+"}) {
    collect c;
    trawl::io::record_parser p(trawl::io::format::fastq, "in", c);
    EXPECT_THROW(
        {
          p.feed(bad);
          p.finish();
        },
        trawl::error)
        << bad;
    EXPECT_THROW(
        {
          trawl::io::record_reader bad_rr(bad, trawl::io::format::fastq, "in");
          trawl::io::record one;
          while (bad_rr.next(one)) {
          }
        },
        trawl::error)
        << bad;
  }
}

TEST(StreamSearch, EverySourceThreadCountAndChunkSizeGivesTheSameHits) {
  temp_dir dir;
  std::mt19937_64 rng(2024);
  std::vector<oracle::record> recs;
  for (std::size_t len : {3000, 0, 17, 20000, 5, 700})
    recs.push_back({"seq" + std::to_string(recs.size()), oracle::random_text(rng, len, "ACGT")});
  const std::string inputs[] = {fasta_of(recs, 61, false), fastq_of(recs)};
  const std::vector<std::string> pats = {"ACGTA", recs[3].seq.substr(100, 12), "T", recs[0].seq.substr(2990, 10)};
  struct mode {
    std::string label;
    trawl::search_options o;
    std::vector<std::string> pats;
  };
  std::vector<mode> modes;
  for (auto a : {trawl::exact_algorithm::brute_force, trawl::exact_algorithm::kmp, trawl::exact_algorithm::horspool,
                 trawl::exact_algorithm::sunday, trawl::exact_algorithm::simd}) {
    mode md;
    md.label = "exact";
    md.pats = pats;
    md.o.exact = a;
    modes.push_back(md);
  }
  for (const char* engine : {"auto", "myers", "dp", "myers-simd", "myers-filter"}) {
    mode md;
    md.label = std::string("approx-") + engine;
    md.pats = {"ACGTACGTAC", recs[3].seq.substr(500, 20)};
    md.o.max_errors = 2;
    md.o.approx = trawl::parse_approx_algorithm(engine);
    modes.push_back(md);
  }
  mode ends;
  ends.label = "all-ends";
  ends.pats = {"ACGTACGT"};
  ends.o.max_errors = 1;
  ends.o.all_ends = true;
  ends.o.starts = false;
  modes.push_back(ends);

  const auto ways = every_way(dir.path);
  test_share::cases share;
  for (const std::string& input : inputs) {
    for (const auto& md : modes) {
      auto m = trawl::make_matcher(md.pats, md.o);
      std::vector<found> want;
      if (md.label == "exact") want = exact_oracle(recs, md.pats);
      else if (md.label == "all-ends") want = all_ends_oracle(recs, md.pats[0], 1);
      else want = per_record(*m, recs, md.o);
      ASSERT_FALSE(want.empty()) << md.label;
      for (const auto& w : ways)
        for (unsigned threads : {1u, 3u, 8u})
          for (std::size_t chunk : {std::size_t{1}, std::size_t{13}, std::size_t{4096}, std::size_t{0}}) {
            if (chunk == 1 && (threads != 1 || w.label != "stream/7")) continue;  // one byte a chunk is slow: once
            if (!share.runs()) continue;
            trawl::search_options o = md.o;
            o.threads = threads;
            trawl::stream_options so;
            so.chunk_size = chunk;
            collecting_sink sink(threads == 3);
            auto src = w.open(input);
            const auto r = trawl::search_input(*m, src, o, so, sink);
            const std::string where = md.label + " " + w.label + " threads " + std::to_string(threads) + " chunk " + std::to_string(chunk);
            ASSERT_EQ(sink.all.size(), want.size()) << where;
            EXPECT_TRUE(sink.all == want) << where;
            EXPECT_EQ(r.hits, want.size()) << where;
            EXPECT_EQ(r.records, recs.size()) << where;
            ASSERT_EQ(sink.lengths.size(), recs.size()) << where;
            for (std::size_t i = 0; i < recs.size(); ++i) {
              EXPECT_EQ(sink.names[i], recs[i].name) << where;
              EXPECT_EQ(sink.lengths[i], recs[i].seq.size()) << where;
              if (threads == 3) {
                EXPECT_EQ(sink.texts[i], recs[i].seq) << where;
              }
            }
          }
    }
  }
}

/// An engine that asks for origins (as the MPI pool does) and checks every window byte an
/// origin places in the file against the file's byte there.
class origin_checker final : public trawl::detail::engine_wrapper {
 public:
  origin_checker(const trawl::detail::engine& inner, std::string file)
      : engine_wrapper(inner), inner_(inner), file_(std::move(file)) {}
  [[nodiscard]] bool uses_origin() const override { return true; }
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<trawl::hit>& out,
            std::vector<trawl::detail::open_mark>& open) const override {
    inner_.scan(seq, own_begin, own_end, out, open);
  }
  void scan_from(const trawl::detail::window_origin& o, std::string_view seq, std::size_t own_begin,
                 std::size_t own_end, std::vector<trawl::hit>& out, std::vector<trawl::detail::open_mark>& open) const override {
    for (std::size_t i = o.from; i < seq.size(); ++i) {
      const std::uint64_t at = o.seq_offset + (i - o.from);
      const std::uint64_t f = o.file_offset + at + at / o.width;
      if (f >= file_.size() || file_[f] != seq[i]) {
        bad_.fetch_add(1);
        break;
      }
    }
    placed_.fetch_add(seq.size() - std::min(seq.size(), o.from));
    inner_.scan(seq, own_begin, own_end, out, open);
  }
  mutable std::atomic<std::size_t> bad_{0}, placed_{0};

 private:
  const trawl::detail::engine& inner_;
  std::string file_;
};

TEST(StreamSearch, MappedFastaParsedInPiecesAgainstTheOracle) {
  // A mapped FASTA file is parsed in pieces on several threads: every way its lines can fall
  // (CRLF, blank lines, a byte order mark, empty records, a last line without '\n', a header
  // at the very end, records shorter and longer than a piece) gives the parser's records.
  temp_dir dir;
  std::mt19937_64 rng(77);
  std::vector<oracle::record> recs;
  for (std::size_t len : {5000, 0, 1, 300, 0, 9000, 64, 2})
    recs.push_back({"r" + std::to_string(recs.size()), oracle::random_text(rng, len, "ACGT")});
  std::vector<std::string> inputs = {fasta_of(recs, 61, false), fasta_of(recs, 7, true),
                                     "\xEF\xBB\xBF\n\r\n" + fasta_of(recs, 1000, false)};
  std::string blanks = fasta_of(recs, 50, false);  // blank lines inside records and between them
  for (std::size_t at = blanks.find('\n', 100); at != std::string::npos && at < blanks.size(); at = blanks.find('\n', at + 997))
    blanks.insert(at + 1, at % 2 ? "\n" : "\r\n");
  inputs.push_back(blanks);
  std::string cut = fasta_of(recs, 80, false);
  inputs.push_back(cut.substr(0, cut.size() - 1));  // no '\n' after the last line
  std::vector<oracle::record> with_last = recs;
  with_last.push_back({"last", ""});
  inputs.push_back(fasta_of(recs, 33, false) + ">last");  // a header ends the file
  const std::vector<std::string> pats = {"ACGTA", recs[5].seq.substr(100, 12), "T", recs[0].seq.substr(4990, 10)};
  auto m = trawl::make_matcher(pats, {});
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const auto& want_recs = k + 1 == inputs.size() ? with_last : recs;
    const auto want = exact_oracle(want_recs, pats);
    const fs::path p = dir.path / ("in" + std::to_string(k) + ".fa");
    std::ofstream(p, std::ios::binary) << inputs[k];
    for (unsigned threads : {2u, 5u})
      for (std::size_t chunk : {std::size_t{1}, std::size_t{13}, std::size_t{700}, std::size_t{0}}) {
        trawl::search_options o;
        o.threads = threads;
        trawl::stream_options so;
        so.chunk_size = chunk;
        collecting_sink sink(true);
        trawl::io::open_options oo;
        oo.name = "in";
        auto src = trawl::io::source::open(p.string(), oo);
        const auto r = trawl::search_input(*m, src, o, so, sink);
        const std::string where = "input " + std::to_string(k) + " threads " + std::to_string(threads) + " chunk " + std::to_string(chunk);
        EXPECT_TRUE(sink.all == want) << where;
        EXPECT_EQ(r.records, want_recs.size()) << where;
        EXPECT_EQ(r.format, trawl::io::format::fasta) << where;
        // where the driver says a window's bytes lie in the file, they do; lines of one width
        // (input 0) get origins
        auto checker = std::make_unique<origin_checker>(trawl::detail::engine_of(*m), inputs[k]);
        const origin_checker& c = *checker;
        const trawl::matcher checked(std::move(checker));
        collecting_sink sink2(false);
        auto src2 = trawl::io::source::open(p.string(), oo);
        trawl::search_input(checked, src2, o, so, sink2);
        EXPECT_TRUE(sink2.all == want) << where;
        EXPECT_EQ(c.bad_.load(), 0u) << where;
        if (k == 0) {
          EXPECT_GT(c.placed_.load(), 0u) << where;
        }
        ASSERT_EQ(sink.names.size(), want_recs.size()) << where;
        for (std::size_t i = 0; i < want_recs.size(); ++i) {
          EXPECT_EQ(sink.names[i], want_recs[i].name) << where;
          EXPECT_EQ(sink.texts[i], want_recs[i].seq) << where;
        }
      }
  }
}

/// search_input of `m` over the file `p` in chunks of `chunk` bytes, two search threads and four
/// parse threads: pieces of 16 MiB and more (a GPU's chunks) are parsed in parts on these.
trawl::stream_result search_in_large_pieces(const trawl::matcher& m, const fs::path& p, std::size_t chunk,
                                            trawl::search_sink& sink) {
  trawl::search_options o;
  o.threads = 2;
  trawl::stream_options so;
  so.chunk_size = chunk;
  so.parse_threads = 4;
  auto src = trawl::io::source::open(p.string(), {});
  return trawl::search_input(m, src, o, so, sink);
}

TEST(StreamSearch, LargePiecesParsedInPartsAgainstTheOracle) {
  // Pieces of 16 MiB and more (a GPU's chunks) are parsed in parts on all the parse threads:
  // small and large records, CRLF and blank lines falling anywhere in the parts.
  temp_dir dir;
  std::mt19937_64 rng(78);
  std::vector<oracle::record> recs;
  for (int i = 0; i < 4000; ++i) {
    const std::size_t len = i % 1000 == 7 ? 5000000 : rng() % 3000;
    std::string name = "r";
    name += std::to_string(i);
    recs.push_back({name, oracle::random_text(rng, len, "ACGT")});
  }
  const std::string lines = fasta_of(recs, 60, false);
  std::string in;
  std::size_t from = 0;
  for (std::size_t at = lines.find('\n', 1000); at != std::string::npos; at = lines.find('\n', at + 1000003)) {
    in.append(lines, from, at + 1 - from);
    in += at % 2 ? "\n" : "\r\n";
    from = at + 1;
  }
  in.append(lines, from, std::string::npos);
  const fs::path p = dir.path / "large.fa";
  std::ofstream(p, std::ios::binary) << in;
  const std::vector<std::string> pats = {"ACGTACGTAC", recs[7].seq.substr(4000000, 14)};
  const auto want = exact_oracle(recs, pats);
  auto m = trawl::make_matcher(pats, {});
  for (const std::size_t chunk : {std::size_t{16} << 20, std::size_t{23} << 20}) {
    collecting_sink sink(true);
    const auto r = search_in_large_pieces(*m, p, chunk, sink);
    const std::string where = "chunk " + std::to_string(chunk);
    expect_records(sink, r, recs, want, where);
    // the parts' record heads point at their header lines: the origins place every byte
    auto checker = std::make_unique<origin_checker>(trawl::detail::engine_of(*m), in);
    const origin_checker& c = *checker;
    const trawl::matcher checked(std::move(checker));
    collecting_sink sink2(false);
    search_in_large_pieces(checked, p, chunk, sink2);
    EXPECT_TRUE(sink2.all == want) << where;
    EXPECT_EQ(c.bad_.load(), 0u) << where;
    EXPECT_GT(c.placed_.load(), 0u) << where;  // the records without a CRLF or blank line
  }
}

TEST(StreamSearch, LongRecordsOfOneLineWidthParsedInPartsAgainstTheOracle) {
  // Pieces of 16 MiB and more parsed in parts, inside long records of lines of one width each:
  // a run of blank lines, one line for two, a line of another width, a CRLF and the records'
  // headers fall inside the parts
  temp_dir dir;
  std::mt19937_64 rng(79);
  std::vector<oracle::record> recs;
  std::string in;
  const std::size_t widths[] = {60, 71, 80, 1000};
  for (int i = 0; i < 4; ++i) {
    const std::size_t len = (i == 0 ? 12000000 : 5000000) + rng() % 100000;
    recs.push_back({"chr" + std::to_string(i), oracle::random_text(rng, len, "ACGTN")});
    in += ">" + recs.back().name + " long\n";
    const std::string& seq = recs.back().seq;
    for (std::size_t at = 0, k = 0; at < seq.size(); ++k) {
      std::size_t w = widths[i];
      if (i == 1 && k == 40000) w = 30;  // one line of another width
      if (i == 0 && k == 120000) w = 121;
      in.append(seq, at, w);
      if (i == 0 && k == 50000) in.append(61, '\n');
      in += i == 2 && k == 30000 ? "\r\n" : "\n";
      at += w;
    }
  }
  const fs::path p = dir.path / "long.fa";
  std::ofstream(p, std::ios::binary) << in;
  const std::vector<std::string> pats = {"ACGTACGTA", recs[1].seq.substr(2400000, 14), recs[3].seq.substr(999990, 20)};
  const auto want = exact_oracle(recs, pats);
  auto m = trawl::make_matcher(pats, {});
  for (const std::size_t chunk : {std::size_t{16} << 20, std::size_t{21} << 20}) {
    collecting_sink sink(true);
    const auto r = search_in_large_pieces(*m, p, chunk, sink);
    expect_records(sink, r, recs, want, "chunk " + std::to_string(chunk));
  }
}

TEST(StreamSearch, TwoBitDecodedIntoChunksAgainstTheOracle) {
  // A .2bit is decoded straight into the chunks, on the search's threads or a parse arena of
  // its own (a GPU's search): empty, tiny and long records, N and soft-masked runs across the
  // chunks' edges, against the oracle over the sequences it was packed from.
  temp_dir dir;
  std::mt19937_64 rng(81);
  std::vector<oracle::record> recs;
  for (int i = 0; i < 40; ++i) {
    const std::size_t len = i == 3 ? 0 : i % 13 == 5 ? 2000000 + rng() % 1000 : rng() % 5000;
    std::string seq = oracle::random_text(rng, len, "ACGT");
    for (int k = 0; k < 6 && len > 100; ++k) {
      const std::size_t at = rng() % (len - 60), run = 1 + rng() % 60;
      for (std::size_t x = at; x < at + run; ++x) seq[x] = k % 2 ? 'N' : static_cast<char>(seq[x] | 0x20);
    }
    recs.push_back({"s" + std::to_string(i), std::move(seq)});
  }
  const fs::path p = dir.path / "g.2bit";
  std::ofstream(p, std::ios::binary) << trawl::io::to_twobit(fasta_of(recs, 60, false), trawl::io::format::fasta, "g.fa").bytes;
  const std::vector<std::string> pats = {"ACGTAC", "acgN", "NNNA", recs[5].seq.substr(1000000, 12)};
  const auto want = exact_oracle(recs, pats);
  auto m = trawl::make_matcher(pats, {});
  struct setup {
    unsigned threads, parse_threads;
    std::size_t chunk;
  };
  for (const setup w : {setup{1, 0, 0}, setup{2, 4, 65536}, setup{4, 0, 1000}, setup{2, 3, std::size_t{1} << 20}}) {
    trawl::search_options o;
    o.threads = w.threads;
    trawl::stream_options so;
    so.chunk_size = w.chunk;
    so.parse_threads = w.parse_threads;
    collecting_sink sink(true);
    auto src = trawl::io::source::open(p.string(), {});
    const auto r = trawl::search_input(*m, src, o, so, sink);
    const std::string where = std::to_string(w.threads) + " threads, parse " + std::to_string(w.parse_threads) +
                              ", chunk " + std::to_string(w.chunk);
    expect_records(sink, r, recs, want, where);
  }
}

TEST(StreamSearch, PlainStreamsOfEverySizeAgainstTheOracle) {
  temp_dir dir;
  std::mt19937_64 rng(7);
  const auto ways = every_way(dir.path);
  for (std::size_t n : {0, 1, 4, 100, 70000}) {
    const std::string text = oracle::random_text(rng, n, "ACG\n");
    const std::vector<std::string> pats = {"AC", "GAGA", "CCCCC"};
    auto m = trawl::make_matcher(pats, {});
    const auto want = exact_oracle({{"in", text}}, pats);
    for (const auto& w : ways) {
      trawl::search_options o;
      o.threads = 2;
      trawl::stream_options so;
      so.chunk_size = 999;
      collecting_sink sink(true);
      auto src = w.open(text);
      trawl::search_input(*m, src, o, so, sink);
      EXPECT_TRUE(sink.all == want) << w.label << " n " << n;
      ASSERT_EQ(sink.texts.size(), 1u);
      EXPECT_EQ(sink.texts[0], text);
      EXPECT_EQ(sink.names[0], "in");
    }
  }
}

/// A stream of one unit of bytes over and over, endless or cut short.
class endless final : public trawl::io::byte_stream {
 public:
  /// `unit` over and over, or only its first `limit` bytes.
  explicit endless(std::string_view unit = "ACGTTTGACCA\n", std::uint64_t limit = ~std::uint64_t{0})
      : unit_(unit), limit_(limit) {}
  std::ptrdiff_t read(char* buf, std::size_t n, int) override {
    n = static_cast<std::size_t>(std::min<std::uint64_t>(n, limit_ - pos_));
    for (std::size_t i = 0; i < n; ++i) buf[i] = unit_[(pos_ + i) % unit_.size()];
    pos_ += n;
    return static_cast<std::ptrdiff_t>(n);
  }

 private:
  std::string_view unit_;
  std::uint64_t limit_;
  std::uint64_t pos_ = 0;
};

TEST(StreamSearch, StopsReadingAnEndlessStreamAtTheFirstHitOrMaxHits) {
  for (unsigned threads : {1u, 4u}) {
    auto m = trawl::make_matcher({"TTGA"}, {});
    trawl::search_options o;
    o.threads = threads;
    {
      auto src = trawl::io::source::from_stream(std::make_unique<endless>(), "endless");
      collecting_sink sink(false, 1);  // the sink says stop after one hit
      const auto r = trawl::search_input(*m, src, o, {}, sink);
      EXPECT_TRUE(r.stopped);
      ASSERT_GE(sink.all.size(), 1u);
      EXPECT_EQ(sink.all[0].h.start, 4u);
    }
    {
      o.max_hits = 1000;
      auto src = trawl::io::source::from_stream(std::make_unique<endless>(), "endless");
      collecting_sink sink(false);
      const auto r = trawl::search_input(*m, src, o, {}, sink);
      EXPECT_TRUE(r.stopped);
      EXPECT_EQ(sink.all.size(), 1000u);
      EXPECT_EQ(sink.all.back().h.start, 4u + 999u * 12u);
    }
  }
}

TEST(StreamSearch, ASinkDoneAfterARecordStopsTheSearch) {
  // a sink that hands each record's hits on at its end learns there that no more is wanted
  class first_record final : public trawl::search_sink {
   public:
    std::uint64_t begun = 0, hits_seen = 0;
    void begin_record(const trawl::record_info&) override { ++begun; }
    bool hits(std::span<const trawl::hit> hs) override {
      hits_seen += hs.size();
      return true;
    }
    void end_record(std::uint64_t) override {}
    [[nodiscard]] bool done() const override { return begun >= 1; }
  };
  for (unsigned threads : {1u, 4u}) {
    auto m = trawl::make_matcher({"TTGA"}, {});
    trawl::search_options o;
    o.threads = threads;
    // 16 MiB of records of 40 bases, each with one TTGA
    const std::string_view record = ">r\nACGTACGTACGTTTGACCACCACCACCACCACCACCACCA\n";
    auto src = trawl::io::source::from_stream(
        std::make_unique<endless>(record, (std::uint64_t{16} << 20) / record.size() * record.size()), "many.fa");
    trawl::stream_options so;
    so.format = trawl::io::format::fasta;
    first_record sink;
    const auto r = trawl::search_input(*m, src, o, so, sink);
    EXPECT_TRUE(r.stopped);
    EXPECT_EQ(sink.begun, 1u);
    EXPECT_EQ(sink.hits_seen, 1u);
  }
}

/// A stream that sends its bytes, then pauses (times out) `pauses` times, then ends.
class pausing final : public trawl::io::byte_stream {
 public:
  pausing(std::string bytes, int pauses) : bytes_(std::move(bytes)), pauses_(pauses) {}
  std::ptrdiff_t read(char* buf, std::size_t n, int timeout_ms) override {
    if (sent_ < bytes_.size()) {
      const std::size_t len = std::min(n, bytes_.size() - sent_);
      std::memcpy(buf, bytes_.data() + sent_, len);
      sent_ += len;
      return static_cast<std::ptrdiff_t>(len);
    }
    if (pauses_-- > 0 && timeout_ms >= 0) return -1;
    return 0;
  }

 private:
  std::string bytes_;
  std::size_t sent_ = 0;
  int pauses_;
};

TEST(StreamSearch, APauseHandsOverTheHitsSoFar) {
  auto m = trawl::make_matcher({"ERROR"}, {});
  struct sink_t final : trawl::search_sink {
    int hits_before_idle = -1, hits_seen = 0;
    void begin_record(const trawl::record_info&) override {}
    bool hits(std::span<const trawl::hit> hs) override {
      hits_seen += static_cast<int>(hs.size());
      return true;
    }
    void end_record(std::uint64_t) override {}
    void idle() override {
      if (hits_before_idle < 0) hits_before_idle = hits_seen;
    }
  } sink;
  auto src = trawl::io::source::from_stream(std::make_unique<pausing>("line one\nan ERROR here\n", 3), "log");
  trawl::search_options o;
  o.threads = 2;
  trawl::search_input(*m, src, o, {}, sink);
  EXPECT_EQ(sink.hits_before_idle, 1);
  EXPECT_EQ(sink.hits_seen, 1);
}

TEST(StreamSearch, ABrokenStreamFailsAfterTheHitsBeforeIt) {
  std::mt19937_64 rng(3);
  std::string text = oracle::random_text(rng, 3 << 20, "ACGT");
  const std::string gz = gzip_of(text);
  const std::string cut = gz.substr(0, gz.size() / 2);
  auto m = trawl::make_matcher({"ACGTAC"}, {});
  for (unsigned threads : {1u, 2u}) {
    auto src = trawl::io::source::from_stream(trawl::io::memory_stream(cut), "cut.gz");
    collecting_sink sink(false);
    trawl::search_options o;
    o.threads = threads;
    try {
      trawl::search_input(*m, src, o, {}, sink);
      FAIL() << "a truncated gzip stream must fail";
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format);
      EXPECT_NE(std::string(e.what()).find("truncated"), std::string::npos);
    }
    // Every hit handed over is a true one, and most of those in the readable part came.
    const auto want = exact_oracle({{"", text}}, {"ACGTAC"});
    ASSERT_GT(sink.all.size(), want.size() / 4);
    for (std::size_t i = 0; i < sink.all.size(); ++i) EXPECT_EQ(sink.all[i].h, want[i].h);
  }
  // A malformed FASTQ record: the records before it are searched and handed over.
  const std::string fq = "@a\nACGTAC\n+\nIIIIII\n@b\nACGTAC\n+\nIII\n";
  auto src = trawl::io::source::from_stream(trawl::io::memory_stream(fq, 3), "bad.fq");
  collecting_sink sink(false);
  EXPECT_THROW(trawl::search_input(*m, src, {}, {}, sink), trawl::error);
  ASSERT_EQ(sink.all.size(), 1u);
  EXPECT_EQ(sink.all[0].record, 0u);
}

TEST(Sources, CompressionIsDetectedFromTheBytesAndErrorsAreOneLine) {
  const std::string text = "hello gzip and zstd\n";
  for (const auto& [bytes, comp] : {std::pair{gzip_of(text), trawl::io::compression::gzip},
                                    std::pair{zstd_of(text), trawl::io::compression::zstd},
                                    std::pair{text, trawl::io::compression::none}}) {
    auto s = trawl::io::source::from_stream(trawl::io::memory_stream(bytes, 1), "x");
    EXPECT_EQ(s.compressed(), comp);
    EXPECT_EQ(trawl::io::read_all(s.stream()), text);
  }
  // (data too short for the first bytes, which say whether it holds a .2bit, fails at once)
  for (const std::string& bad : {gzip_of(text) + "junk", zstd_of(text).substr(0, 10), zstd_of(text) + "junk",
                                gzip_of(text).substr(0, 12)}) {
    try {
      auto s = trawl::io::source::from_stream(trawl::io::memory_stream(bad), "bad");
      trawl::io::read_all(s.stream());
      FAIL() << "corrupt input read without an error";
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format);
      EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
      EXPECT_EQ(std::string(e.what()).rfind("bad: ", 0), 0u) << e.what();
    }
  }
  // Zero padding after a gzip member is allowed (as gzip does).
  const std::string padded = gzip_of(text) + std::string(10, '\0');
  auto s = trawl::io::source::from_stream(trawl::io::memory_stream(padded), "x");
  EXPECT_EQ(trawl::io::read_all(s.stream()), text);
  // a compressed .2bit is read as the .2bit
  const std::string packed = trawl::io::to_twobit(">a\nACGTNacgt\n", trawl::io::format::fasta, "a.fa").bytes;
  for (const std::string& bytes : {gzip_of(packed), zstd_of(packed)}) {
    auto t = trawl::io::source::from_stream(trawl::io::memory_stream(bytes, 3), "a.2bit.gz");
    EXPECT_EQ(t.compressed(), trawl::io::compression::twobit);
    EXPECT_EQ(t.twobit(), packed);
    EXPECT_EQ(trawl::io::read_all(t.stream()), ">a\nACGTNacgt\n");
  }
}

}  // namespace
