// io_test.cpp — input layer: files, gzip, FASTA/FASTQ records, errors.
#include <gtest/gtest.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <thread>

#include "temp_dir.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/detail/sigbus.hpp"
#include "io/fasta_pieces.hpp"
#include "oracle.hpp"
#include "io/twobit_encode.hpp"

namespace fs = std::filesystem;

namespace {


std::vector<std::pair<std::string, std::string>> records_of(std::string_view bytes, trawl::io::format f = trawl::io::format::automatic) {
  trawl::io::record_reader rr(bytes, f, "in");
  std::vector<std::pair<std::string, std::string>> v;
  trawl::io::record r;
  while (rr.next(r)) v.emplace_back(std::string(r.name), std::string(r.sequence));
  return v;
}

TEST(Records, FastaWrappedLinesEmptyRecordsAndCrlf) {
  const std::string fa = ">chr1 first\nACGT\nAC\n>empty\n>chr2\r\nGG\r\nTT\r\n\n>last\nA";
  const auto r = records_of(fa);
  ASSERT_EQ(r.size(), 4u);
  EXPECT_EQ(r[0], (std::pair<std::string, std::string>{"chr1", "ACGTAC"}));
  EXPECT_EQ(r[1], (std::pair<std::string, std::string>{"empty", ""}));
  EXPECT_EQ(r[2], (std::pair<std::string, std::string>{"chr2", "GGTT"}));
  EXPECT_EQ(r[3], (std::pair<std::string, std::string>{"last", "A"}));
}

TEST(Records, TwoSequenceLinesWithoutAFinalNewline) {
  // Found by fuzz_records: the second line's break was kept when the last line had none.
  const auto r = records_of(">a\nAC\nGT");
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].second, "ACGT");
}

// A record of 40 MiB and more is counted and joined in parts on all cores: lines of varied
// widths (parts cut at line ends), blank lines, no final newline, and one with a '\r' (joined
// the slow way) give the same sequence.
TEST(Records, LongRecordsJoinedInParts) {
  std::mt19937_64 rng(12);
  std::string seq(std::size_t{40} << 20, 'A');
  for (auto& c : seq) c = "ACGT"[rng() % 4];
  for (const bool cr : {false, true}) {
    std::string fa = ">big one\n";
    for (std::size_t i = 0; i < seq.size();) {
      const std::size_t w = 1 + rng() % 120;
      fa.append(seq, i, w);
      i += w;
      if (rng() % 1000 == 0) fa += '\n';  // a blank line inside the record
      if (i < seq.size()) fa += cr && i > seq.size() / 2 && i < seq.size() / 2 + 200 ? "\r\n" : "\n";
    }
    fa += "\n>next\nAC\nGT";
    const auto r = records_of(fa);
    ASSERT_EQ(r.size(), 2u);
    EXPECT_EQ(r[0].first, "big");
    EXPECT_TRUE(r[0].second == seq) << "cr " << cr << ": " << r[0].second.size() << " bytes, want " << seq.size();
    EXPECT_EQ(r[1].second, "ACGT");
  }
}

TEST(Records, FastqAndDetection) {
  const std::string fq = "@r1 x\nACGT\n+\nIIII\n@r2\nGG\n+r2\nII\n";
  EXPECT_EQ(trawl::io::detect_format(fq), trawl::io::format::fastq);
  const auto r = records_of(fq);
  ASSERT_EQ(r.size(), 2u);
  EXPECT_EQ(r[1], (std::pair<std::string, std::string>{"r2", "GG"}));
  // qualities shorter than the sequence: malformed FASTQ when the input is FASTQ (its name or
  // --format says so), plain text when the content alone decides
  EXPECT_THROW(records_of("@r1\nACGT\n+\nII\n", trawl::io::format::fastq), trawl::error);
  EXPECT_EQ(trawl::io::detect_format("@r1\nACGT\n+\nII\n"), trawl::io::format::plain);
}

TEST(Records, FormatByARuleAUserCanPredict) {
  using trawl::io::format;
  // content: a '>' header line, then a line of sequence letters (IUPAC codes, gaps, stops)
  EXPECT_EQ(trawl::io::detect_format(">chr1 x\nACGTNacgtn\n"), format::fasta);
  EXPECT_EQ(trawl::io::detect_format("\xEF\xBB\xBF\n\n>p\nMKV*LLA-\r\n"), format::fasta);
  EXPECT_EQ(trawl::io::detect_format(">chr1\nACGT"), format::fasta);  // no final newline
  EXPECT_EQ(trawl::io::detect_format("> quoted reply from bob\nhello there\n"), format::plain);
  EXPECT_EQ(trawl::io::detect_format("> **Note**\n> quoted\n\nbob\n"), format::plain);
  EXPECT_EQ(trawl::io::detect_format(">a\n\nACGT\n"), format::plain);  // a blank line is no sequence
  EXPECT_EQ(trawl::io::detect_format(">a\nACGT1\n"), format::plain);
  EXPECT_EQ(trawl::io::detect_format(">only a header\n"), format::plain);
  EXPECT_EQ(trawl::io::detect_format("@r\nACGT\n+\nI!#I\n"), format::fastq);
  EXPECT_EQ(trawl::io::detect_format("@user said\nhi there\n+1\nok\n"), format::plain);
  EXPECT_EQ(trawl::io::detect_format("@r\nACGT\n-\nIIII\n"), format::plain);
  // names: the extensions of sequence files, compressed or not, any case (a .2bit reads as its
  // FASTA text); others say nothing
  for (const char* n : {"g.fa", "dir.x/g.fasta", "G.FNA", "a.ffn.gz", "p.faa.zst", "r.frn.bgz", "hg38.2bit", "G.2BIT.gz"})
    EXPECT_EQ(trawl::io::format_of_name(n), format::fasta) << n;
  for (const char* n : {"r.fq", "r.fastq.gz", "R1.FQ.ZST"}) EXPECT_EQ(trawl::io::format_of_name(n), format::fastq) << n;
  for (const char* n : {"notes.md", "mail.txt", "fa", ".fa.d/x", "x.fa.txt", "x.gz", "-", "reads.fq.bz2"})
    EXPECT_EQ(trawl::io::format_of_name(n), format::automatic) << n;
}

TEST(Records, PlainInputIsOneRecordAndCanBeForced) {
  EXPECT_EQ(trawl::io::detect_format("hello\n>world"), trawl::io::format::plain);
  const auto r = records_of(">a\nAC\n", trawl::io::format::plain);
  ASSERT_EQ(r.size(), 1u);
  EXPECT_EQ(r[0].second, ">a\nAC\n");
}

// Pieces made line by line: the width is reported exactly when every line but the last is of
// one width and ends in a bare '\n', and then sequence byte s is the piece's byte s + s / width.
/// A genome of long and tiny records with N and soft-masked runs, some long: its sequences and
/// its FASTA text in 60-base lines (record 4 has a long name).
struct twobit_genome {
  std::vector<std::string> seqs;
  std::string fasta;
  explicit twobit_genome(std::uint64_t seed) {
    std::mt19937_64 rng(seed);
    for (int r = 0; r < 9; ++r) {
      const std::size_t len = r % 3 == 0 ? 1 + rng() % 70 : 100000 + rng() % 3000000;
      std::string seq(len, 'A');
      for (char& c : seq) c = "ACGT"[rng() % 4];
      for (int k = 0; k < 40 && len > 1; ++k) {
        const std::size_t at = rng() % len, run = std::min<std::size_t>(len - at, 1 + rng() % (k % 5 == 0 ? 200000 : 90));
        for (std::size_t x = at; x < at + run; ++x) seq[x] = k % 2 ? 'N' : static_cast<char>(seq[x] | 0x20);
      }
      fasta += ">r" + std::to_string(r) + (r == 4 ? std::string(200, 'x') : "") + "\n";
      for (std::size_t o = 0; o < len; o += 60) fasta += seq.substr(o, 60) + "\n";
      seqs.push_back(std::move(seq));
    }
  }
};

TEST(TwoBit, DecodesTheFastaItWasMadeFromAtEveryReadSize) {
  // the decoder hands out 60-base lines, in parts decoded on several cores: N and soft-masked
  // runs across the parts' and lines' edges, read in pieces of 1 byte to several MiB
  const twobit_genome g(29);
  const std::string packed = trawl::io::to_twobit(g.fasta, trawl::io::format::fasta, "in.fa").bytes;
  ASSERT_TRUE(trawl::io::is_twobit(packed));
  for (const std::size_t piece : {std::size_t{1}, std::size_t{7}, std::size_t{61}, std::size_t{250}, std::size_t{4096},
                                  std::size_t{1} << 20, std::size_t{5} << 20}) {
    const auto in = trawl::io::twobit_stream(packed, "in.2bit");
    std::string got, buf(piece, '\0');
    for (std::ptrdiff_t r; (r = in->read(buf.data(), piece, -1)) > 0;) got.append(buf.data(), static_cast<std::size_t>(r));
    ASSERT_EQ(got.size(), g.fasta.size()) << "pieces of " << piece;
    EXPECT_TRUE(got == g.fasta) << "pieces of " << piece;
  }
}

TEST(TwoBit, KeptBlocksDecodeAsReadOnes) {
  // keep_blocks keeps the block lists of long sequences and of many blocks; ranges of every sequence, from
  // several threads at once, decode as from a file that reads them with each decode
  const twobit_genome g(43);
  const std::string packed = trawl::io::to_twobit(g.fasta, trawl::io::format::fasta, "in.fa").bytes;
  const trawl::io::twobit_file plain(packed, "in.2bit");
  trawl::io::twobit_file kept(packed, "in.2bit");
  kept.keep_blocks();
  EXPECT_GT(kept.kept_bytes(), 0u);
  EXPECT_EQ(plain.kept_bytes(), 0u);
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&, t] {
      std::mt19937_64 rng(100 + t);
      std::string a, b;
      for (int k = 0; k < 3000; ++k) {
        const std::size_t i = rng() % kept.size();
        const std::uint64_t len = kept.length(i), from = rng() % (len + 1);
        const std::uint64_t n = std::min<std::uint64_t>(len - from, k % 100 == 0 ? rng() % (std::uint64_t{1} << 21) : rng() % 300);
        a.assign(n, '\0');
        b.assign(n, '\0');
        kept.decode(i, from, n, a.data());
        plain.decode(i, from, n, b.data());
        if (a != b || a != std::string_view(g.seqs[i]).substr(from, n)) ++wrong;
      }
    });
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  // only short sequences: nothing kept
  const std::string reads = trawl::io::to_twobit(">a\nACGTNNacgt\n>b\nGGGG\n", trawl::io::format::fasta, "r.fa").bytes;
  trawl::io::twobit_file short_ones(reads, "r.2bit");
  short_ones.keep_blocks();
  EXPECT_EQ(short_ones.kept_bytes(), 0u);
}

TEST(TwoBit, OneOddBaseAtEveryPlaceOfTheEncodersBlocks) {
  // the encoder takes 16 and 8 bases at once where they are all A/C/G/T or all N of one case:
  // one base of another case, N, or IUPAC code at each place of such a block, and blocks of
  // each kind, read back as written (IUPAC codes as N)
  std::mt19937_64 rng(41);
  std::string fasta;
  std::vector<std::string> want;
  for (const char odd : {'a', 'N', 'n', 'R', 'y', 'G'}) {
    for (std::size_t at = 0; at < 40; ++at) {
      std::string seq(40 + rng() % 40, 'A');
      for (char& c : seq) c = "ACGT"[rng() % 4];
      if (at % 3 == 1) seq.replace(16, 16, std::string(16, 'N'));
      if (at % 3 == 2) for (std::size_t x = 0; x < 32; ++x) seq[x] = static_cast<char>(seq[x] | 0x20);
      seq[at] = odd;
      fasta += ">s" + std::to_string(want.size()) + "\n" + seq + "\n";
      for (char& c : seq)
        if (std::string_view("RYry").find(c) != std::string_view::npos) c = static_cast<char>('N' | (c & 0x20));
      want.push_back(seq);
    }
  }
  const trawl::io::twobit_image img = trawl::io::to_twobit(fasta, trawl::io::format::fasta, "in.fa");
  const trawl::io::twobit_file f(img.bytes, "in.2bit");
  ASSERT_EQ(f.size(), want.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::string got(f.length(i), '\0');
    f.decode(i, got.data());
    EXPECT_EQ(got, want[i]) << "sequence " << i;
  }
}

TEST(TwoBit, BuiltFromSpansIsTheFileOfWholeSequences) {
  // Sequences given to twobit_builder in spans of every length, cut anywhere (the bases before
  // a multiple of 4 share a byte with the span before), several sequences' spans in one add():
  // the file to_twobit writes of the whole sequences, byte for byte, read back as written
  // (IUPAC codes as N); a byte .2bit cannot hold is refused wherever it lies.
  std::mt19937_64 rng(43);
  for (int round = 0; round < 200; ++round) {
    std::vector<std::string> names, seqs;
    const std::size_t n = 1 + rng() % 5;
    for (std::size_t i = 0; i < n; ++i) {
      names.push_back("s" + std::to_string(i));
      std::string seq;
      const std::size_t len = rng() % 8 == 0 ? rng() % 4 : rng() % (round < 100 ? 200 : 5000);
      while (seq.size() < len) {  // runs of one kind: bases, N, lower case, IUPAC codes
        const std::size_t run = 1 + rng() % 40;
        const unsigned kind = static_cast<unsigned>(rng() % 5);
        for (std::size_t j = 0; j < run && seq.size() < len; ++j) {
          const char b = "ACGT"[rng() % 4];
          seq += kind == 0 || kind == 1 ? b : kind == 2 ? 'N' : kind == 3 ? static_cast<char>(b | 0x20) : "RYnkM"[rng() % 5];
        }
      }
      seqs.push_back(seq);
    }
    std::size_t room = 16;
    for (const std::string& q : seqs) room += q.size() / 4 + 1;
    std::vector<std::string_view> name_views(names.begin(), names.end()), seq_views(seqs.begin(), seqs.end());
    const trawl::io::twobit_image whole = trawl::io::detail::encode_twobit(name_views, seq_views, "in.fa");

    trawl::io::detail::twobit_builder built("in.fa", room);
    std::vector<trawl::io::detail::twobit_builder::span> spans;
    for (std::size_t i = 0; i < n; ++i) {
      built.begin(names[i]);
      for (std::size_t at = 0; at < seqs[i].size();) {
        const std::size_t len = std::min(seqs[i].size() - at, rng() % 3 == 0 ? 1 + rng() % 5 : 1 + rng() % 700);
        spans.push_back({i, std::string_view(seqs[i]).substr(at, len)});
        at += len;
        if (rng() % 3 == 0) {
          built.add(spans);
          spans.clear();
        }
      }
      if (rng() % 2 == 0) {  // some add() calls hold the spans of two sequences
        built.add(spans);
        spans.clear();
      }
    }
    built.add(spans);
    const trawl::io::twobit_image got = built.finish();
    ASSERT_EQ(got.bytes, whole.bytes) << "round " << round;
    EXPECT_EQ(got.replaced, whole.replaced);
    EXPECT_EQ(got.changed, whole.changed);
    const trawl::io::twobit_file f(got.bytes, "in.2bit");
    ASSERT_EQ(f.size(), n);
    for (std::size_t i = 0; i < n; ++i) {
      std::string want = seqs[i];
      for (char& c : want)
        if (std::string_view("RYKMrykm").find(c) != std::string_view::npos) c = static_cast<char>('N' | (c & 0x20));
      std::string back(f.length(i), '\0');
      f.decode(i, back.data());
      EXPECT_EQ(back, want) << "round " << round << " sequence " << i;
    }
  }
  for (std::size_t at = 0; at < 9; ++at) {  // a refused byte in a span's first bases and later
    std::string seq(9, 'A');
    seq[at] = '*';
    trawl::io::detail::twobit_builder built("in.fa", 16);
    built.begin("s");
    const std::vector<trawl::io::detail::twobit_builder::span> spans{{0, std::string_view(seq).substr(0, 3)},
                                                                     {0, std::string_view(seq).substr(3)}};
    EXPECT_THROW(built.add(spans), trawl::error) << at;
  }
  for (const std::string_view name : {std::string_view(""), std::string_view("a\nb")}) {  // checked in order, at the latest by finish()
    trawl::io::detail::twobit_builder unnamed("in.fa", 4);
    unnamed.begin("a");
    unnamed.begin(name);
    EXPECT_THROW((void)unnamed.finish(), trawl::error);
  }
  trawl::io::detail::twobit_builder bad("in.fa", 4);
  bad.begin("a");
  bad.begin("b");
  const std::vector<trawl::io::detail::twobit_builder::span> b_then_a{{1, "AC"}, {0, "GT"}};
  EXPECT_THROW(bad.add(b_then_a), std::logic_error);  // a's bases after b's
  trawl::io::detail::twobit_builder small("in.fa", 2);
  small.begin("a");
  const std::vector<trawl::io::detail::twobit_builder::span> nine{{0, "ACGTACGTA"}};
  EXPECT_THROW(small.add(nine), std::logic_error);  // 3 bytes in a room of 2
}

TEST(TwoBit, PackOfAFastaInPiecesIsTheSerialEncodersFile) {
  // to_twobit parses a FASTA in pieces on all cores and encodes them as they come: the file,
  // or the first error, of the serial encoder given the oracle's records. Lines of odd widths
  // put the pieces' edges inside the bytes of four bases.
  const auto serial = [](const std::string& fasta) -> std::pair<std::string, std::string> {
    const std::vector<oracle::record> recs = oracle::parse_records(fasta, true);
    std::size_t next = 0;
    try {
      return {trawl::io::detail::encode_twobit(
                  [&](std::string_view& name, std::string_view& bases) {
                    if (next == recs.size()) return false;
                    name = recs[next].name;
                    bases = recs[next++].seq;
                    return true;
                  },
                  "in.fa")
                  .bytes,
              ""};
    } catch (const trawl::error& e) {
      return {"", e.what()};
    }
  };
  const auto parallel = [](const std::string& fasta) -> std::pair<std::string, std::string> {
    try {
      return {trawl::io::to_twobit(fasta, trawl::io::format::fasta, "in.fa").bytes, ""};
    } catch (const trawl::error& e) {
      return {"", e.what()};
    }
  };
  std::mt19937_64 rng(47);
  for (int round = 0; round < 6; ++round) {
    std::string fasta;
    for (int r = 0; fasta.size() < 1'500'000; ++r) {
      const std::size_t width = 1 + rng() % 97;
      const std::string seq = oracle::random_text(rng, rng() % 400'000, round % 2 ? "ACGTNacgtnRYu" : "ACGTNacgtn");
      fasta += ">r" + std::to_string(r) + "\n";
      for (std::size_t i = 0; i < seq.size(); i += width) fasta += seq.substr(i, width) + "\n";
    }
    if (round >= 2) {  // then a refused byte, and after it a name .2bit cannot hold
      const std::size_t at = fasta.size() / 3 + rng() % (fasta.size() / 3);
      const std::size_t line = fasta.find('\n', at) + 1;
      fasta[fasta.find_first_of("ACGTNacgtn", line)] = round % 4 < 2 ? '*' : '\x01';
      const std::size_t later = fasta.find("\n>", line + (round == 5 ? 0 : 300'000));
      if (later != std::string::npos) fasta.insert(later + 2, std::string(300, 'x'));
    }
    const auto [want, want_error] = serial(fasta);
    const auto [got, got_error] = parallel(fasta);
    EXPECT_EQ(got_error, want_error) << "round " << round;
    EXPECT_TRUE(got == want) << "round " << round;
    if (round < 2) {
      ASSERT_FALSE(want.empty());
    }
  }
  // the first error of the bases' order, whatever else comes in the same piece
  for (const std::string& fasta : std::vector<std::string>{">a\nAXA\n>\nACGT\n", ">\nAXA\n>a\nACGT\n",
                                                         ">a\nACGT\n>b c\nAC*T\n>" + std::string(256, 'n') + "\nA\n"}) {
    const auto want = serial(fasta).second, got = parallel(fasta).second;
    EXPECT_FALSE(want.empty()) << fasta;
    EXPECT_EQ(got, want) << fasta;
  }
}

TEST(TwoBit, PackWritesIupacCodesAsNAndRefusesOtherBytes) {
  // IUPAC codes other than N, upper and lower case, alone and in runs, next to N runs and across
  // the 4 Mi-base parts a long sequence is encoded in: each reads back as N in its case (U as T);
  // the count is theirs; a byte no .2bit holds is refused, the first one named
  std::mt19937_64 rng(37);
  std::string fasta;
  std::vector<std::string> want;
  std::uint64_t iupac = 0, uracils = 0;
  for (int r = 0; r < 3; ++r) {
    const std::size_t len = r == 1 ? (std::size_t{9} << 20) + 3 : 1000 + rng() % 5000;
    std::string seq(len, 'A');
    for (char& c : seq) c = "ACGT"[rng() % 4];
    std::string as_n = seq;
    for (int k = 0; k < 60; ++k) {
      std::size_t at = rng() % len;
      if (r == 1 && k < 6) at = (std::size_t{4} << 20) * (1 + k % 2) - 2 + static_cast<std::size_t>(k / 2);  // at the parts' edges
      const std::size_t run = std::min<std::size_t>(len - at, 1 + rng() % 12);
      const bool lower = rng() % 2 != 0;
      for (std::size_t x = at; x < at + run; ++x) {
        const char code = k % 5 == 0 ? 'U' : k % 3 == 0 ? 'N' : "RYSWKMBDHV"[rng() % 10];
        seq[x] = lower ? static_cast<char>(code | 0x20) : code;
        as_n[x] = static_cast<char>((code == 'U' ? 'T' : 'N') | (lower ? 0x20 : 0));  // U as T, as UCSC reads it
      }
    }
    for (const char c : seq) iupac += std::string_view("RYSWKMBDHVryswkmbdhv").find(c) != std::string_view::npos;
    for (const char c : seq) uracils += c == 'U' || c == 'u';
    fasta += ">r" + std::to_string(r) + "\n";
    for (std::size_t o = 0; o < len; o += 60) fasta += seq.substr(o, 60) + "\n";
    want.push_back(as_n);
  }
  const trawl::io::twobit_image img = trawl::io::to_twobit(fasta, trawl::io::format::fasta, "in.fa");
  EXPECT_EQ(img.replaced, iupac);
  EXPECT_EQ(img.changed, iupac + uracils);  // what reads back as another letter
  EXPECT_GT(iupac, 100u);
  EXPECT_GT(uracils, 10u);
  const trawl::io::twobit_file f(img.bytes, "in.2bit");
  ASSERT_EQ(f.size(), want.size());
  for (std::size_t i = 0; i < f.size(); ++i) {
    std::string got(f.length(i), '\0');
    f.decode(i, got.data());
    EXPECT_TRUE(got == want[i]) << "sequence " << i;
  }
  // bytes no .2bit holds, in the second and the first part of a long sequence: the first named
  std::string bad = ">x\n" + std::string((std::size_t{5} << 20), 'A') + "\n";
  bad[3 + (std::size_t{4} << 20) + 10] = '*';
  bad[3 + 777] = 'X';
  try {
    (void)trawl::io::to_twobit(bad, trawl::io::format::fasta, "bad.fa");
    ADD_FAILURE() << "a '*' and an 'X' packed";
  } catch (const trawl::error& e) {
    EXPECT_NE(std::string(e.what()).find("holds 'X' at 777"), std::string::npos) << e.what();
  }
}

TEST(TwoBit, FileDecodesEveryRangeAsItsSequence) {
  // io::twobit_file: names and lengths as the FASTA's; whole sequences, and ranges of
  // any start and length (inside a byte of four bases, across N and mask runs), in order and
  // jumping between sequences, equal the FASTA's bases; a range past the end is refused
  const twobit_genome g(31);
  const std::string packed = trawl::io::to_twobit(g.fasta, trawl::io::format::fasta, "in.fa").bytes;
  const trawl::io::twobit_file f(packed, "in.2bit");
  ASSERT_EQ(f.size(), g.seqs.size());
  std::mt19937_64 rng(5);
  for (std::size_t i = 0; i < f.size(); ++i) {
    const std::string name = "r" + std::to_string(i) + (i == 4 ? std::string(200, 'x') : "");
    EXPECT_EQ(f.name(i), name);
    EXPECT_EQ(f.header(i), name);
    ASSERT_EQ(f.length(i), g.seqs[i].size());
    std::string whole(g.seqs[i].size(), '\0');
    f.decode(i, whole.data());
    EXPECT_TRUE(whole == g.seqs[i]) << "sequence " << i;
  }
  for (int t = 0; t < 400; ++t) {
    const std::size_t i = t % 3 == 0 ? rng() % f.size() : 1 + t / 100 * 2;  // jumps, and runs in one sequence
    const std::string& s = g.seqs[i];
    const std::size_t from = rng() % (s.size() + 1);
    const std::size_t n = std::min<std::size_t>(s.size() - from, t % 4 == 0 ? rng() % 9 : rng() % (1 << 20));
    std::string got(n, '\0');
    f.decode(i, from, n, got.data());
    ASSERT_TRUE(got == s.substr(from, n)) << "sequence " << i << " bases " << from << " + " << n;
  }
  char c = 0;
  EXPECT_THROW(f.decode(1, g.seqs[1].size(), 1, &c), trawl::error);
  EXPECT_THROW(f.decode(1, g.seqs[1].size() + 1, 0, &c), trawl::error);
  f.decode(1, g.seqs[1].size(), 0, &c);  // an empty range at the end
}

TEST(FastaPieces, LineWidthOnlyWhereEveryLineHasIt) {
  std::mt19937 rng(11);
  enum { uniform, short_line, long_line, crlf, blank, header, no_final_nl };
  for (int round = 0; round < 3000; ++round) {
    const std::size_t w = 1 + rng() % 9, lines = 1 + rng() % 7, last = 1 + rng() % w;
    const int kind = static_cast<int>(rng() % 7);
    std::vector<std::string> ls;
    for (std::size_t k = 0; k < lines; ++k) {
      std::string l;
      for (std::size_t i = 0; i < (k + 1 == lines ? last : w); ++i) l += "ACGT"[rng() % 4];
      ls.push_back(l);
    }
    const std::size_t at = rng() % lines;
    std::string piece;
    for (std::size_t k = 0; k < lines; ++k) {
      std::string l = ls[k];
      if (k == at && kind == short_line && l.size() > 1 && k + 1 < lines) l.pop_back();
      if (k == at && kind == long_line && k + 1 < lines) l += 'A';
      piece += l;
      if (k == at && kind == crlf) piece += '\r';
      if (kind == no_final_nl && k + 1 == lines) break;
      piece += '\n';
      if (k == at && kind == blank) piece += '\n';
    }
    std::string out;
    std::vector<trawl::io::fasta_head> heads;
    if (kind == header) {  // a record starting inside the piece: not a piece fasta_line_width is for
      piece += ">x\nAC\n";
      trawl::io::parse_fasta_piece(piece, 0, out, heads);
      ASSERT_EQ(heads.size(), 1u);
      EXPECT_EQ(trawl::io::fasta_line_width(piece, out.size()), 0u) << piece;
      continue;
    }
    trawl::io::parse_fasta_piece(piece, 0, out, heads);
    ASSERT_TRUE(heads.empty());
    // the lines as they are: one width for all but the last, which is no longer, no '\r'
    std::vector<std::string> have;
    for (std::size_t i = 0; i < piece.size();) {
      const std::size_t nl = std::min(piece.find('\n', i), piece.size());
      have.push_back(piece.substr(i, nl - i));
      i = nl + 1;
    }
    std::size_t expect = have[0].size();
    for (std::size_t k = 0; k < have.size(); ++k)
      if (have[k].empty() || have[k].find('\r') != std::string::npos || have[k].size() > have[0].size() ||
          (k + 1 < have.size() && have[k].size() != have[0].size()))
        expect = 0;
    const std::uint32_t got = trawl::io::fasta_line_width(piece, out.size());
    ASSERT_EQ(got, expect) << kind << " " << piece;
    for (std::size_t s = 0; got != 0 && s < out.size(); ++s) ASSERT_EQ(out[s], piece[s + s / got]) << piece;
  }
}

TEST(InputBuffer, MapsFilesAndInflatesGzip) {
  temp_dir d;
  const std::string plain = d.write("a.txt", "hello world\n");
  auto b = trawl::io::input_buffer::open(plain);
  EXPECT_EQ(b.bytes(), "hello world\n");
  EXPECT_TRUE(b.is_mapped());

  // Two gzip members concatenated are one stream.
  const std::string gz = (d.path / "b.gz").string();
  for (const char* part : {"first ", "second"}) {
    gzFile f = gzopen(gz.c_str(), "ab");
    gzwrite(f, part, static_cast<unsigned>(std::strlen(part)));
    gzclose(f);
  }
  auto g = trawl::io::input_buffer::open(gz);
  EXPECT_TRUE(g.was_compressed());
  EXPECT_EQ(g.bytes(), "first second");

  // Truncated gzip is an error, not a silent short read.
  std::ifstream in(gz, std::ios::binary);
  std::string all((std::istreambuf_iterator<char>(in)), {});
  const std::string cut = d.write("c.gz", all.substr(0, all.size() - 3));
  EXPECT_THROW(trawl::io::input_buffer::open(cut), trawl::error);
}

TEST(InputBuffer, ErrorsAreOneLineTrawlErrors) {
  temp_dir d;
  try {
    trawl::io::input_buffer::open((d.path / "missing").string());
    FAIL();
  } catch (const trawl::error& e) {
    EXPECT_EQ(e.code(), trawl::errc::io_error);
    EXPECT_EQ(std::string(e.what()).find('\n'), std::string::npos);
  }
  EXPECT_THROW(trawl::io::input_buffer::open(d.path.string()), trawl::error);  // a directory
  const std::string empty = d.write("empty", "");
  EXPECT_EQ(trawl::io::input_buffer::open(empty).bytes(), "");
}

}  // namespace

namespace {

TEST(InputBuffer, FileThatShrinksWhileMappedReadsAsZerosNotSigbus) {
  temp_dir d;
  const std::string path = d.write("shrinks", std::string(1 << 20, 'x'));
  auto b = trawl::io::input_buffer::open(path);
  ASSERT_TRUE(b.is_mapped());
  trawl::io::install_sigbus_guard();
  ASSERT_EQ(truncate(path.c_str(), 0), 0);
  // Touch every page: without the guard this would kill the process with SIGBUS.
  std::size_t xs = 0, zeros = 0;
  for (std::size_t i = 0; i < b.bytes().size(); i += 4096) {
    const char c = b.bytes()[i];
    xs += c == 'x';
    zeros += c == '\0';
  }
  EXPECT_EQ(xs + zeros, b.bytes().size() / 4096);
  EXPECT_GT(zeros, 0u);
  EXPECT_TRUE(trawl::io::sigbus_seen());
}

}  // namespace
