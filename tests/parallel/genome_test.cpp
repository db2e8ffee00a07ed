// genome_test.cpp — a genome read once (trawl::genome) against the oracles and against the
// search of its file, kept two bits a base (a .2bit image) and as bytes: its records are the
// oracle's parse; exact hits are naive search's in each record; approximate, Hamming,
// both-strand and long-pattern searches (joined and record-by-record ways) and off-target
// sites are those of a search of the file.
#include <gtest/gtest.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "search_cases.hpp"
#include "oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/genome.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/stream.hpp"

namespace {

using trawl::genome;

struct rec {
  std::string name, seq;
};

std::vector<rec> random_records(std::mt19937_64& rng) {
  std::vector<rec> out;
  const std::size_t lengths[] = {1, 0, 17, 300, 5000, 40000, 3, 120000};  // a first record with a base: read as FASTA
  for (std::size_t i = 0; i < std::size(lengths); ++i) {
    std::string s = oracle::random_text(rng, lengths[i], "ACGT");
    for (std::size_t j = 0; j + 40 < s.size(); j += 997) s.replace(j, 7, "acgtNNN");  // soft mask, N runs
    out.push_back({"chr" + std::to_string(i), s});
  }
  return out;
}

std::string fasta_of(const std::vector<rec>& recs, std::size_t width) {
  std::string f;
  for (const auto& r : recs) {
    f += ">" + r.name + " description\n";
    for (std::size_t i = 0; i < r.seq.size(); i += width) f += r.seq.substr(i, width) + "\n";
  }
  return f;
}

/// (record, hit) of a search of `bytes` as a file, through the stream search.
std::vector<std::tuple<std::uint64_t, trawl::hit>> file_hits(std::string_view bytes, const std::vector<std::string>& pats,
                                                            const trawl::search_options& o) {
  struct sink_t final : trawl::search_sink {
    std::vector<std::tuple<std::uint64_t, trawl::hit>> all;
    std::uint64_t record = 0;
    void begin_record(const trawl::record_info& r) override { record = r.index; }
    bool hits(std::span<const trawl::hit> hs) override {
      for (const auto& h : hs) all.emplace_back(record, h);
      return true;
    }
    void end_record(std::uint64_t) override {}
  } sink;
  auto src = trawl::io::source::from_memory(bytes, "in.fa");
  (void)trawl::run_search(pats, src, o, {}, sink);
  return sink.all;
}

std::vector<std::tuple<std::uint64_t, trawl::hit>> genome_hits(const genome& g, const std::vector<std::string>& pats,
                                                              const trawl::search_options& o) {
  std::vector<std::tuple<std::uint64_t, trawl::hit>> out;
  for (const auto& rh : g.search(pats, o)) out.emplace_back(rh.record, rh.h);
  return out;
}

TEST(Genome, RecordsAreTheParse) {
  std::mt19937_64 rng(3);
  const auto recs = random_records(rng);
  const std::string fa = fasta_of(recs, 60);
  const auto want = oracle::parse_records(fa, true);
  for (const bool pack : {true, false}) {
    const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, pack);
    EXPECT_EQ(g.packed(), pack);
    EXPECT_EQ(g.format(), trawl::io::format::fasta);
    EXPECT_TRUE(g.resident_gpus().empty());
    EXPECT_EQ(g.resident_bytes(), 0u);
    ASSERT_EQ(g.records().size(), want.size());
    std::uint64_t bases = 0, start = 0;
    for (std::uint32_t r = 0; r < want.size(); ++r) {
      EXPECT_EQ(g.records()[r].name, want[r].name);
      EXPECT_EQ(g.records()[r].start, start);  // as in one buffer with 256 NULs after each record
      EXPECT_EQ(g.sequence(r), want[r].seq);
      bases += want[r].seq.size();
      start += want[r].seq.size() + 256;
    }
    EXPECT_EQ(g.bases(), bases);
    // packed: two bits a base and the N and mask blocks (about 8 bytes for each run of 7)
    if (pack) EXPECT_LT(g.host_bytes(), bases / 4 + bases / 997 * 16 + 1024);
    else EXPECT_EQ(g.host_bytes(), start);
    EXPECT_THROW((void)g.sequence(static_cast<std::uint32_t>(want.size())), trawl::error);
    // ranges of a record: every start and length of a window, across blocks and packed bytes
    const std::string& big = want.back().seq;
    const auto last = static_cast<std::uint32_t>(want.size() - 1);
    for (std::uint64_t from = 990; from < 1010; ++from)
      for (std::uint64_t n : {0, 1, 3, 4, 5, 8, 13, 40})
        ASSERT_EQ(g.sequence(last, from, n), big.substr(from, n)) << from << " " << n << " " << pack;
    EXPECT_EQ(g.sequence(last, big.size(), 0), "");
    EXPECT_THROW((void)g.sequence(last, big.size() - 3, 4), trawl::error);
    EXPECT_THROW((void)g.sequence(last, big.size() + 1, 0), trawl::error);
  }
  // plain text: one record named as the input
  const genome t = genome::from_bytes("hello world\nhello", "notes.txt", trawl::device_kind::cpu);
  ASSERT_EQ(t.records().size(), 1u);
  EXPECT_EQ(t.records()[0].name, "notes.txt");
  EXPECT_EQ(t.format(), trawl::io::format::plain);
}

TEST(Genome, AFastaParsedInPiecesOnAllCoresIsTheParse) {
  // a FASTA of about 2 MB is cut into pieces (8 with one thread, 24 with three), parsed a
  // window at a time: records and lines of every shape across the pieces' edges, and lines of
  // 300 kB, which a piece's edge cuts inside. Of A, C, G, T and N only, it is encoded into its
  // .2bit image as it is parsed (pieces of any length, so bases that share a byte across their
  // edges); with other bytes, kept as bytes.
  for (const bool packable : {false, true}) {
  std::mt19937_64 rng(11);
  std::string fa = "\n\r\n";  // blank lines before the first header
  std::size_t made = 0;
  for (int r = 0; fa.size() < 2'000'000; ++r) {
    const std::string eol = rng() % 4 == 0 ? "\r\n" : "\n";
    fa += ">rec" + std::to_string(r) + (rng() % 2 ? "\tsome description" : "") + eol;
    const std::size_t shape = rng() % 8;
    std::size_t len = shape == 0 ? 0 : shape <= 2 ? 300'000 : rng() % 20'000;
    const std::size_t width = shape == 2 ? len + 1 : 1 + rng() % 120;  // one long line, or lines of any width
    std::string seq = oracle::random_text(rng, len, packable ? "ACGTNacgtn" : "ACGTNacgtRY");
    for (std::size_t i = 1; !packable && r > 0 && i < seq.size(); i += 1 + rng() % 5000)
      if (i % width != 0) seq[i] = '>';  // inside a line: a sequence byte (not in the lines that tell FASTA from text)
    for (std::size_t i = 0; i < seq.size(); i += width) {
      fa += seq.substr(i, width) + eol;
      if (rng() % 50 == 0) fa += eol;  // a blank line inside a record
    }
    ++made;
  }
  fa += ">last-without-newline";
  ++made;
  const auto want = oracle::parse_records(fa, true);
  ASSERT_EQ(want.size(), made);
  for (const int threads : {1, 3}) {
    tbb::task_arena arena(threads);
    const genome g = arena.execute([&] { return genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu); });
    EXPECT_EQ(g.format(), trawl::io::format::fasta);
    EXPECT_EQ(g.packed(), packable);
    ASSERT_EQ(g.records().size(), want.size()) << threads;
    std::uint64_t bases = 0;
    for (std::uint32_t r = 0; r < want.size(); ++r) {
      EXPECT_EQ(g.records()[r].name, want[r].name);
      ASSERT_TRUE(g.sequence(r) == want[r].seq) << want[r].name << " " << threads;
      bases += want[r].seq.size();
    }
    EXPECT_EQ(g.bases(), bases);
    // the sequences are found where the records say, each followed by its gap of NULs
    trawl::search_options o;
    o.device = trawl::device_kind::cpu;
    EXPECT_EQ(genome_hits(g, {"ACGTA", "NNN"}, o), file_hits(fa, {"ACGTA", "NNN"}, o));
  }
  }
  // a FASTA whose first line is not a header is refused as the file's search refuses it
  EXPECT_THROW((void)genome::from_bytes("ACGT\n>r\nACGT\n", "in.fa", trawl::device_kind::cpu), trawl::error);
}

TEST(Genome, TwoBitReadsAsItsFasta) {
  // a .2bit is decoded straight into the genome's buffer, each sequence in parts on all
  // cores: the same records as the FASTA it was packed from (a record of several parts, N
  // and soft-masked runs across their edges)
  std::mt19937_64 rng(5);
  auto recs = random_records(rng);
  std::string big = oracle::random_text(rng, 700001, "ACGT");
  for (std::size_t j = 1000; j + 70000 < big.size(); j += 150001) {
    std::fill(big.begin() + static_cast<std::ptrdiff_t>(j), big.begin() + static_cast<std::ptrdiff_t>(j + 70000), 'N');
    for (std::size_t k = j + 90000; k < std::min(j + 140000, big.size()); ++k) big[k] = static_cast<char>(big[k] | 0x20);
  }
  recs.push_back({"big", big});
  const std::string fa = fasta_of(recs, 60);
  const std::string tb = trawl::io::to_twobit(fa, trawl::io::format::fasta, "in.fa").bytes;
  const genome want = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, false);
  // kept as it is, or decoded into bytes
  for (const bool pack : {true, false}) {
  const genome got = genome::from_bytes(tb, "in.2bit", trawl::device_kind::cpu, pack);
  EXPECT_EQ(got.packed(), pack);
  if (pack) {
    EXPECT_EQ(got.host_bytes(), tb.size());
  }
  EXPECT_EQ(got.format(), trawl::io::format::fasta);
  EXPECT_EQ(got.bases(), want.bases());
  ASSERT_EQ(got.records().size(), want.records().size());
  for (std::uint32_t r = 0; r < want.records().size(); ++r) {
    EXPECT_EQ(got.records()[r].name, recs[r].name);
    EXPECT_TRUE(got.sequence(r) == recs[r].seq) << recs[r].name;
  }
  trawl::search_options o;
  o.max_errors = 1;
  o.device = trawl::device_kind::cpu;
  EXPECT_EQ(genome_hits(got, {"ACGTTGCAAC", "NNNNACG"}, o), genome_hits(want, {"ACGTTGCAAC", "NNNNACG"}, o));
  }
}

TEST(Genome, ExactHitsAreNaiveSearchOfEachRecord) {
  std::mt19937_64 rng(4);
  const auto recs = random_records(rng);
  const std::string fa = fasta_of(recs, 61);
  // the long pattern (over the gap between records) takes the record-by-record way
  const std::vector<std::vector<std::string>> sets = {{"ACG", "GTAC", "A"}, {recs[7].seq.substr(1000, 300)}};
  for (const bool pack : {true, false}) {
    const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, pack);
    ASSERT_EQ(g.packed(), pack);
  for (const auto& pats : sets)
    for (unsigned threads : {1u, 3u}) {
      trawl::search_options o;
      o.threads = threads;
      o.device = trawl::device_kind::cpu;
      std::set<std::tuple<std::uint64_t, std::uint64_t, std::uint32_t>> want, got;
      for (std::uint32_t r = 0; r < recs.size(); ++r)
        for (std::uint32_t p = 0; p < pats.size(); ++p)
          for (auto s : oracle::naive_find(recs[r].seq, pats[p])) want.emplace(r, s, p);
      std::uint64_t last = 0;
      for (const auto& [r, h] : genome_hits(g, pats, o)) {
        EXPECT_GE(r, last);
        last = r;
        EXPECT_EQ(h.end - h.start, pats[h.pattern].size());
        got.emplace(r, h.start, h.pattern);
      }
      EXPECT_EQ(got, want) << pats.size() << " patterns, " << threads << " threads, packed " << pack;
    }
  }
}

TEST(Genome, SearchesAreThoseOfTheFile) {
  std::mt19937_64 rng(5);
  const auto recs = random_records(rng);
  const std::string fa = fasta_of(recs, 70);
  for (const bool pack : {true, false}) {
  const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, pack);
  ASSERT_EQ(g.packed(), pack);
  struct job {
    std::vector<std::string> pats;
    test_cases::search_mode m;
  };
  const std::string long_pat = recs[7].seq.substr(500, 270);
  const job jobs[] = {{{"ACGTAC", "TTGCA"}, {.k = 1}},       {{"ACGTACGTAC"}, {.k = 2, .both = true}},
                      {{"ACGTACG"}, {.k = 1, .hamming = true}}, {{"GATTACA"}, {.k = 1, .all_ends = true}},
                      {{long_pat}, {.k = 3, .both = true}},       {{"acgtNNN"}, {.both = true}}};
  for (const auto& j : jobs) {
    trawl::search_options o = test_cases::options_of(j.m);
    o.device = trawl::device_kind::cpu;
    const auto want = file_hits(fa, j.pats, o);
    const auto got = genome_hits(g, j.pats, o);
    EXPECT_FALSE(want.empty()) << j.pats[0];
    ASSERT_EQ(got.size(), want.size()) << j.pats[0] << " k " << j.m.k;
    for (std::size_t i = 0; i < want.size(); ++i) {
      EXPECT_EQ(std::get<0>(got[i]), std::get<0>(want[i])) << i;
      EXPECT_EQ(std::get<1>(got[i]), std::get<1>(want[i])) << j.pats[0] << " k " << j.m.k << " hit " << i;
    }
  }
  // a stop after the first record's hits
  std::size_t calls = 0;
  g.search({"A"}, {}, [&](std::uint32_t, std::span<const trawl::hit>) { return ++calls < 1; });
  EXPECT_EQ(calls, 1u);
  }
}

TEST(Genome, OfftargetSitesAreThoseOfTheFile) {
  std::mt19937_64 rng(6);
  auto recs = random_records(rng);
  const std::string guide = recs[7].seq.substr(2000, 20);
  // a few planted sites with mismatches, on both strands
  for (std::size_t at : {100u, 900u, 3000u}) {
    std::string site = guide + "AGG";
    site[3] = site[3] == 'A' ? 'C' : 'A';
    recs[5].seq.replace(at, site.size(), at == 900u ? oracle::reverse_complement(site) : site);
  }
  // sites cut by a record's edge, 3 protospacer bases past it: a search of the buffer finds
  // them with the gap's NULs as mismatches, and must not report them
  const std::string rc = oracle::reverse_complement(guide + "AGG");
  recs[4].seq.replace(recs[4].seq.size() - 20, 20, rc.substr(0, 20));
  recs[5].seq.replace(0, 20, (guide + "AGG").substr(3));
  // a record ending in a site whose PAM takes one PAM mismatch as NGG; a longer PAM (NRGN)
  // would read the gap after it
  recs[3].seq.replace(recs[3].seq.size() - 23, 23, guide + "AAG");
  const std::string fa = fasta_of(recs, 60);
  struct sink_t final : trawl::offtarget::site_sink {
    std::vector<std::string> rows;
    std::uint64_t record = 0;
    void begin_record(const trawl::record_info& r) override {
      record = r.index;
      rows.push_back("record " + std::string(r.name) + " " + std::to_string(r.index) + " " +
                     std::to_string(static_cast<int>(r.format)));
    }
    void site(const trawl::offtarget::site& s) override {
      rows.push_back(std::to_string(record) + " " + std::to_string(s.guide) + " " + std::to_string(s.start) + " " +
                     std::to_string(s.end) + " " + (s.dir == trawl::strand::forward ? "+" : "-") + " " + s.cigar +
                     " " + s.aligned_target);
    }
    void end_record() override { rows.push_back("end"); }
  };
  for (const bool pack : {true, false}) {
  const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, pack);
  ASSERT_EQ(g.packed(), pack);
  for (const test_cases::offtarget_variant& v :
       {test_cases::offtarget_variant{}, test_cases::offtarget_variant{.mismatches = 2, .dna_bulges = 1, .rna_bulges = 1},
        test_cases::offtarget_variant{.pams = {"NRGN", "NGG"}, .pam_mismatches = 1}}) {
    trawl::offtarget::options o = test_cases::options_of(v);
    o.device = trawl::device_kind::cpu;
    const trawl::offtarget::searcher s({{"g1", guide, -1}, {"g2", recs[1].seq.substr(0, 17) + "ACG", -1}}, o);
    sink_t want, got;
    auto src = trawl::io::source::from_memory(fa, "in.fa");
    (void)s.search(src, want);
    g.offtarget(s, got);
    EXPECT_GE(want.rows.size(), 2 * recs.size() + 3);  // every record begun and ended, and the planted sites
    EXPECT_EQ(got.rows, want.rows) << test_cases::describe(v) << " packed " << pack;
  }
  }
}

}  // namespace

TEST(Genome, WhatTwoBitsCannotHoldIsKeptAsBytes) {
  std::mt19937_64 rng(8);
  auto recs = random_records(rng);
  const std::string long_name(256, 'x');
  struct variant {
    const char* what;
    std::string fa;
  };
  std::vector<variant> variants;
  auto with = [&](std::size_t r, std::size_t at, char c) {
    auto v = recs;
    v[r].seq[at] = c;
    return fasta_of(v, 60);
  };
  variants.push_back({"an IUPAC code", with(5, 100, 'R')});
  variants.push_back({"a lower-case IUPAC code", with(7, 5000, 'y')});
  variants.push_back({"U", with(3, 10, 'U')});
  {
    auto v = recs;
    v[2].name = long_name;
    variants.push_back({"a name of 256 bytes", fasta_of(v, 60)});
  }
  variants.push_back({"protein", ">p1\nMKVLAAGIVALLLAAGCSSS\n>p2\nMSTNPKPQRKTKRNTNRRPQDVKFPGG\n"});
  for (const auto& v : variants) {
    const genome g = genome::from_bytes(v.fa, "in.fa", trawl::device_kind::cpu);
    EXPECT_FALSE(g.packed()) << v.what;
    const auto want = oracle::parse_records(v.fa, true);
    ASSERT_EQ(g.records().size(), want.size()) << v.what;
    for (std::uint32_t r = 0; r < want.size(); ++r) EXPECT_TRUE(g.sequence(r) == want[r].seq) << v.what;
    trawl::search_options o;
    o.device = trawl::device_kind::cpu;
    o.max_errors = 1;
    EXPECT_EQ(genome_hits(g, {"ACGTRA", "GAUUAC"}, o), file_hits(v.fa, {"ACGTRA", "GAUUAC"}, o)) << v.what;
  }
  EXPECT_FALSE(genome::from_bytes("ACGTACGT", "in.txt", trawl::device_kind::cpu).packed());  // plain text

  // FASTQ reads pack; the genome keeps its format
  std::string fq;
  for (std::size_t r = 0; r < 50; ++r) {
    const std::string seq = oracle::random_text(rng, 20 + r, "ACGTN");
    fq += "@read" + std::to_string(r) + "\n" + seq + "\n+\n" + std::string(seq.size(), 'I') + "\n";
  }
  const genome q = genome::from_bytes(fq, "reads.fq", trawl::device_kind::cpu);
  EXPECT_TRUE(q.packed());
  EXPECT_EQ(q.format(), trawl::io::format::fastq);
  const auto reads = oracle::parse_records(fq, false);
  ASSERT_EQ(q.records().size(), reads.size());
  for (std::uint32_t r = 0; r < reads.size(); ++r) EXPECT_EQ(q.sequence(r), reads[r].seq);
  trawl::search_options o;
  o.device = trawl::device_kind::cpu;
  EXPECT_EQ(genome_hits(q, {"ACG", "NA"}, o), file_hits(fq, {"ACG", "NA"}, o));
}

TEST(Genome, ATwoBitFileIsKeptAsItIs) {
  std::mt19937_64 rng(9);
  const auto recs = random_records(rng);
  const std::string fa = fasta_of(recs, 60);
  const std::string tb = trawl::io::to_twobit(fa, trawl::io::format::fasta, "in.fa").bytes;
  const std::string path = ::testing::TempDir() + "/genome_test_kept.2bit";
  trawl::io::write_file_atomically(path, tb);
  const genome g = genome::open(path, trawl::device_kind::cpu);
  EXPECT_TRUE(g.packed());
  EXPECT_EQ(g.host_bytes(), tb.size());
  ASSERT_EQ(g.records().size(), recs.size());
  for (std::uint32_t r = 0; r < recs.size(); ++r) EXPECT_EQ(g.sequence(r), recs[r].seq);
  trawl::search_options o;
  o.device = trawl::device_kind::cpu;
  o.max_errors = 2;
  EXPECT_EQ(genome_hits(g, {"ACGTTGCAAC"}, o), file_hits(fa, {"ACGTTGCAAC"}, o));
  std::remove(path.c_str());
}

TEST(Genome, PackedAndBytesAgreeWithTheFileOnRandomGenomes) {
  // genomes of every alphabet a FASTA holds: packed only where .2bit gives every byte back;
  // either way the records, ranges, hits and sites are those of the file
  std::mt19937_64 rng(12);
  const char* alphabets[] = {"ACGT", "ACGTacgtNn", "ACGTN", "acgtn", "ACGTNRYacgtu", "ACGTNacgtnKM"};
  for (int round = 0; round < 24; ++round) {
    const std::string alphabet = alphabets[round % std::size(alphabets)];
    std::vector<rec> recs;
    const std::size_t n = 1 + rng() % 6;
    for (std::size_t r = 0; r < n; ++r) {
      // a first record with a base: read as FASTA (a memory source's format is detected)
      const std::size_t len = (rng() % 4 == 0 ? rng() % 9 : rng() % 3000) + (r == 0 ? 1 : 0);
      std::string s = oracle::random_text(rng, len, "ACGT");
      for (std::size_t i = 0; i < s.size(); i += 1 + rng() % 40) {  // runs of the alphabet's other letters
        const char c = alphabet[rng() % alphabet.size()];
        for (std::size_t j = i; j < std::min(s.size(), i + 1 + rng() % 12); ++j) s[j] = c;
      }
      recs.push_back({"r" + std::to_string(r), s});
    }
    const std::string fa = fasta_of(recs, 1 + rng() % 80);
    const genome packed = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu);
    const genome bytes = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, false);
    std::string all;
    for (const auto& r : recs) all += r.seq;
    ASSERT_EQ(packed.packed(), all.find_first_of("RYuKM") == std::string::npos) << alphabet;
    ASSERT_FALSE(bytes.packed());
    ASSERT_EQ(packed.records().size(), recs.size());
    for (std::uint32_t r = 0; r < recs.size(); ++r) {
      EXPECT_EQ(packed.records()[r].name, bytes.records()[r].name);
      EXPECT_EQ(packed.records()[r].start, bytes.records()[r].start);
      ASSERT_EQ(packed.sequence(r), recs[r].seq) << alphabet;
      const std::uint64_t from = recs[r].seq.empty() ? 0 : rng() % recs[r].seq.size();
      const std::uint64_t len = rng() % (recs[r].seq.size() - from + 1);
      EXPECT_EQ(packed.sequence(r, from, len), recs[r].seq.substr(from, len));
    }
    // patterns from the text, and one of another alphabet
    std::vector<std::string> pats{"ACGTNA"};
    for (int p = 0; p < 3 && all.size() > 20; ++p) pats.push_back(all.substr(rng() % (all.size() - 12), 6 + rng() % 6));
    trawl::search_options o;
    o.device = trawl::device_kind::cpu;
    o.max_errors = static_cast<int>(rng() % 3);
    o.both_strands = rng() % 2 == 0;
    o.threads = 1 + static_cast<unsigned>(rng() % 3);
    const auto want = file_hits(fa, pats, o);
    EXPECT_EQ(genome_hits(packed, pats, o), want) << alphabet << " k " << o.max_errors;
    EXPECT_EQ(genome_hits(bytes, pats, o), want) << alphabet << " k " << o.max_errors;
  }
}

TEST(Genome, MaxHitsCountsTheHitsOfTheWholeGenomeAsTheFileDoes) {
  std::mt19937_64 rng(13);
  const auto recs = random_records(rng);
  const std::string fa = fasta_of(recs, 60);
  const genome packed = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu);
  const genome bytes = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, false);
  ASSERT_TRUE(packed.packed());
  const std::string long_pat = recs[7].seq.substr(700, 300);  // longer than a record's gap: record by record
  const std::vector<std::pair<std::vector<std::string>, test_cases::search_mode>> jobs = {
      {{"ACGT"}, {}}, {{"ACGT"}, {.k = 1}}, {{"ACGTA"}, {.k = 1, .hamming = true}}, {{long_pat}, {.k = 2}}};
  for (const auto& [pats, mode] : jobs)
    for (const std::uint64_t max : {1u, 10u, 1000000u}) {
      trawl::search_options o = test_cases::options_of(mode);
      o.device = trawl::device_kind::cpu;
      o.max_hits = max;
      const auto want = file_hits(fa, pats, o);
      EXPECT_EQ(want.size(), std::min<std::size_t>(max, file_hits(fa, pats, test_cases::options_of(mode)).size()));
      EXPECT_EQ(genome_hits(packed, pats, o), want) << pats[0].size() << " k " << mode.k << " max " << max;
      EXPECT_EQ(genome_hits(bytes, pats, o), want) << pats[0].size() << " k " << mode.k << " max " << max;
    }
}

TEST(Genome, NamesAndBlocksTwoBitsCannotHold) {
  // a name with a control character is read, and kept as bytes (.2bit refuses it: trawl pack
  // says so)
  const std::string fa = ">chr\x01" "a\nACGTACGT\n>chr\x7f\nACGT\n";
  const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu);
  EXPECT_FALSE(g.packed());
  ASSERT_EQ(g.records().size(), 2u);
  EXPECT_EQ(g.records()[0].name, "chr\x01" "a");
  EXPECT_EQ(g.sequence(1), "ACGT");
  EXPECT_THROW((void)trawl::io::to_twobit(fa, trawl::io::format::fasta, "in.fa"), trawl::error);
  // a .2bit whose N block runs past its sequence is refused when it is opened, kept or not
  std::string tb = trawl::io::to_twobit(">a\nACGTNNNNACGT\n", trawl::io::format::fasta, "in.fa").bytes;
  const std::uint32_t past = 100;
  std::memcpy(tb.data() + 16 + 1 + 1 + 4 + 12, &past, 4);  // record a's first N block's size
  for (const bool pack : {true, false}) {
    try {
      (void)genome::from_bytes(tb, "bad.2bit", trawl::device_kind::cpu, pack);
      ADD_FAILURE() << "a damaged .2bit opened, pack " << pack;
    } catch (const trawl::error& e) {
      EXPECT_EQ(e.code(), trawl::errc::bad_format) << e.what();
    }
  }
}

TEST(Genome, BestIsTheLeastDistanceOverTheRecordsAndEverySubstringThatReachesIt) {
  // Oracle: Sellers' DP for each end's distance, full edit distance for each start; records
  // with N runs and soft-masked runs (best compares bytes), one with x planted with an edit.
  std::mt19937_64 rng(71);
  for (int round = 0; round < 8; ++round) {
    const std::string x = oracle::random_text(rng, 5 + rng() % 8, "ACGT");
    std::vector<rec> recs;
    for (int i = 0; i < 5; ++i) {
      // the first record with a base: a file whose first record is empty reads as plain text
      std::string s = oracle::random_text(rng, i > 0 && rng() % 4 == 0 ? rng() % 3 : 20 + rng() % 180, "ACGT");
      if (s.size() > 30) s.replace(rng() % (s.size() - 10), 4, rng() % 2 == 0 ? "NNNN" : "acgt");
      recs.push_back({"r" + std::to_string(i), s});
    }
    std::string planted = x;
    planted[rng() % planted.size()] = 'T';
    recs[1].seq += planted + oracle::random_text(rng, 9, "ACGT");
    const std::string fa = fasta_of(recs, 50);
    for (const bool both : {false, true}) {
      std::vector<std::pair<std::string, trawl::strand>> strands{{x, trawl::strand::forward}};
      if (both) strands.emplace_back(oracle::reverse_complement(x), trawl::strand::reverse);
      auto least = static_cast<std::uint32_t>(x.size());
      for (const rec& r : recs)
        for (const auto& [p, dir] : strands)
          for (const std::uint32_t v : oracle::end_scores(p, r.seq)) least = std::min(least, v);
      ASSERT_LT(least, x.size());
      for (const bool every : {false, true}) {
        std::vector<trawl::index::record_hit> want;
        for (std::uint32_t ri = 0; ri < recs.size(); ++ri)
          for (const auto& [p, dir] : strands) {
            const std::string& y = recs[ri].seq;
            const std::vector<std::uint32_t> score = oracle::end_scores(p, y);
            for (std::uint64_t e = 1; e <= y.size(); ++e) {
              if (score[e - 1] != least) continue;
              for (std::uint64_t s = 0; s <= e; ++s) {
                if (oracle::edit_distance(p, y.substr(s, e - s)) != least) continue;
                want.push_back({ri, trawl::hit{s, e, 0, least, dir}});
                if (!every) break;
              }
            }
          }
        for (const bool pack : {true, false}) {
          const genome g = genome::from_bytes(fa, "in.fa", trawl::device_kind::cpu, pack);
          trawl::best_options o;
          o.every_start = every;
          const genome::best_answer got = g.best(x, o, both);
          EXPECT_EQ(got.distance, least) << "round " << round;
          EXPECT_EQ(got.occurrences, want) << "round " << round << " both " << both << " every " << every << " pack " << pack;
        }
      }
    }
  }
  // no record: no substring, the distance |x|
  const genome empty = genome::from_bytes("", "empty.fa", trawl::device_kind::cpu);
  const genome::best_answer none = empty.best("ACGT");
  EXPECT_EQ(none.distance, 4u);
  EXPECT_TRUE(none.occurrences.empty());
}
