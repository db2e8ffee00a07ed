// make_seeds.cpp DIR — writes the fuzz targets' seed corpora into DIR/<target>/: small valid
// inputs of each kind (plain, FASTA, FASTQ, gzip, gzip members, zstd, pattern files) for the
// fuzzer to mutate. Run by the build.
#include <zstd.h>

#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>

#include "gzip.hpp"

namespace fs = std::filesystem;

namespace {

std::string zst(const std::string& s) {
  std::string out(ZSTD_compressBound(s.size()), '\0');
  out.resize(ZSTD_compress(out.data(), out.size(), s.data(), s.size(), 3));
  return out;
}

/// An argument list for fuzz_cli: the arguments joined by NUL bytes.
std::string args(std::initializer_list<std::string> a) {
  std::string out;
  for (const auto& x : a) {
    if (!out.empty()) out.push_back('\0');
    out += x;
  }
  return out;
}

void put(const fs::path& dir, const std::string& name, const std::string& bytes) {
  fs::create_directories(dir);
  std::ofstream(dir / name, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) return 2;
  const fs::path d = argv[1];
  const std::string fa = ">chr1 desc\nACGTACGTTGCA\nGGATTACA\n>empty\n>chr2\r\nTTGCAACGT\r\n";
  const std::string fq = "@r1\nACGTTGCA\n+\nIIIIIIII\n@r2\nGGAT\n+r2\nIIII\n";
  const std::string fq_multi = "@r1\nACGT\nTGCA\n+\n@III\n+III\n@r2\n+\n\n@r3\nGG\n+\nI\nI\n";  // Sanger's wrapped lines
  const std::string plain = "hello world\nsay hello again\n";
  for (const auto& [name, s] : {std::pair{"fa", fa}, {"fq", fq}, {"fq-multi", fq_multi}, {"plain", plain}}) {
    put(d / "records", name, std::string(1, '\x03') + s);
    put(d / "search", name, std::string("\x05\x01\x10\x07", 4) + "ACGTT" + s);
  }
  put(d / "streams", "gz", std::string(1, '\x02') + gzip(fa));
  put(d / "streams", "gz-zlib", std::string(1, '\x03') + gzip(fq));
  put(d / "streams", "members", std::string(1, '\x80') + gzip(fa) + gzip(fq) + std::string(4, '\0'));
  put(d / "streams", "zst", std::string(1, '\x04') + zst(fa) + zst(plain));
  // pzstd and seekable zstd: a skippable frame before (and between) the frames
  const auto skippable = [](const std::string& payload) {
    std::string f("\x50\x2a\x4d\x18", 4);
    for (int b = 0; b < 4; ++b) f += static_cast<char>((payload.size() >> (8 * b)) & 0xff);
    return f + payload;
  };
  put(d / "streams", "zst-skippable", std::string(1, '\x04') + skippable(std::string(4, '\x02')) + zst(fa) +
                                         skippable("pzstd") + zst(fq));
  // gzip headers with every optional field: FEXTRA as bgzip writes it, FNAME, FCOMMENT, FHCRC
  const std::string bgzf_extra("BC\x02\x00\x1b\x00", 6);
  for (const char mode : {'\x02', '\x03'}) {
    const std::string tag = mode == '\x02' ? "" : "-zlib";
    put(d / "streams", "gz-hcrc" + tag, std::string(1, mode) + gzip(fa, "", "g.fa", "a comment", true) + gzip(fq, "", "", "", true));
    put(d / "streams", "bgzf" + tag, std::string(1, mode) + gzip(fa, bgzf_extra) + gzip(plain, bgzf_extra) + gzip("", bgzf_extra));
  }
  put(d / "streams", "plain", std::string(1, '\x01') + plain);
  // a UCSC .2bit genome: one sequence, ACGTNNac (an N block, a soft-mask block)
  put(d / "streams", "2bit", std::string(1, '\x01') + std::string("\x43\x27\x41\x1a\x00\x00\x00\x00\x01\x00\x00\x00\x00\x00\x00\x00\x02\x73\x31\x17\x00\x00\x00\x08\x00\x00\x00\x01\x00\x00\x00\x04\x00\x00\x00\x02\x00\x00\x00\x01\x00\x00\x00\x06\x00\x00\x00\x02\x00\x00\x00\x00\x00\x00\x00\x9c\x09", 57));
  put(d / "patterns", "lines", "ACGT\n\nGGATTACA\r\nTTT\n");
  put(d / "patterns", "fasta", ">g1\nACGTACGT\n>g2\nTTGCA\n");
  // fuzz_cli: argument lists over the files its sandbox holds
  const std::pair<const char*, std::string> cli[] = {
      {"search", args({"search", "the", "t.txt"})},
      {"search-k", args({"search", "-k", "1", "-n", "--color", "always", "earth", "t.txt"})},
      {"search-f", args({"search", "-f", "p.txt", "-c", "t.txt", "g.fa"})},
      {"search-strands", args({"search", "--both-strands", "-k", "2", "--align", "ACGTACG", "g.fa.gz"})},
      {"search-context", args({"search", "-C", "1", "-w", "-i", "THE", "t.txt"})},
      {"search-r", args({"search", "-r", "-l", "ACGT"})},
      {"search-json", args({"search", "--format", "json", "-m", "2", "--pattern-names", "-f", "guides.txt", "g.fa"})},
      {"best", args({"best", "ACGTTGCA", "g.fa"})},
      {"index-count", args({"index", "count", "t.thi", "the", "earth"})},
      {"index-locate", args({"index", "locate", "--check", "t.thi", "-f", "p.txt"})},
      {"index-verify", args({"index", "verify", "t.thi", "t.txt"})},
      {"index-build", args({"index", "build", "-M", "4", "--small", "g.fa", "-o", "out.thi"})},
      {"index-extract", args({"index", "extract", "t.thi", "5", "20"})},
      {"search-index", args({"search", "--index", "t.thi", "--count-matches", "the"})},
      {"offtarget", args({"offtarget", "--pam", "NGG", "--mismatches", "3", "--dna-bulges", "1", "guides.txt", "g.fa"})},
  };
  for (const auto& [name, bytes] : cli) put(d / "cli", name, bytes);
  return 0;
}
