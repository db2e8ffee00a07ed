// fuzz_records.cpp — the FASTA/FASTQ record parser on hostile input, fed in pieces whose sizes
// come from the input, against record_reader on the whole input: the same records, or both
// reject it (trawl::error). A FASTA input is also parsed as the workers parse a mapped file
// (io/fasta_pieces.hpp: cut at line starts or inside long sequence lines, each piece on its own) and must give the same
// records, and so must a genome of it (trawl::genome, kept as bytes and packed). Any other
// exception, a crash or a disagreement is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "io/fasta_pieces.hpp"
#include "trawl/error.hpp"
#include "trawl/genome.hpp"
#include "trawl/io.hpp"

namespace {

struct collect final : trawl::io::record_handler {
  std::vector<std::pair<std::string, std::string>> out;
  std::vector<std::pair<std::string, std::string>> got_heads;  ///< header and qualities, per record
  std::pair<std::string, std::string> pending;
  void heads(std::string_view header, std::string_view quality) override { pending = {std::string(header), std::string(quality)}; }
  void begin_record(std::string_view name) override {
    out.emplace_back(std::string(name), std::string());
    got_heads.push_back(std::exchange(pending, {}));
  }
  void sequence(std::string_view b) override { out.back().second.append(b); }
  void end_record() override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = 1 + data[0] % 17;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<std::pair<std::string, std::string>> whole;
  bool whole_ok = true;
  try {
    trawl::io::record_reader rr(in, trawl::io::format::automatic, "in");
    trawl::io::record r;
    while (rr.next(r)) whole.emplace_back(std::string(r.name), std::string(r.sequence));
  } catch (const trawl::error&) {
    whole_ok = false;
  }
  collect c;
  bool pieces_ok = true;
  trawl::io::format detected = trawl::io::format::automatic;
  try {
    trawl::io::record_parser p(trawl::io::format::automatic, "in", c);
    p.keep_qualities(true);
    for (std::size_t i = 0; i < in.size(); i += piece) p.feed(in.substr(i, piece));
    p.finish();
    detected = p.detected();
  } catch (const trawl::error&) {
    pieces_ok = false;
  }
  if (whole_ok != pieces_ok) std::abort();
  if (whole_ok && whole != c.out) std::abort();
  // every record's header line starts with its id and holds no line break; a FASTQ read's
  // qualities are as long as its sequence
  if (whole_ok && detected != trawl::io::format::plain) {
    const bool fastq = detected == trawl::io::format::fastq;
    for (std::size_t i = 0; i < c.out.size(); ++i) {
      const auto& [header, quality] = c.got_heads[i];
      if (header.substr(0, c.out[i].first.size()) != c.out[i].first) std::abort();
      if (header.find('\n') != std::string::npos || quality.find('\n') != std::string::npos) std::abort();
      if (fastq && quality.size() != c.out[i].second.size()) std::abort();
      if (!fastq && !quality.empty()) std::abort();
    }
  }
  if (whole_ok && trawl::io::detect_format(in) == trawl::io::format::fasta) {
    std::string_view rest = in;
    if (rest.substr(0, 3) == "\xEF\xBB\xBF") rest.remove_prefix(3);
    while (!rest.empty() && (rest[0] == '\n' || rest[0] == '\r')) rest.remove_prefix(1);
    constexpr std::size_t headroom = 3;
    const std::size_t size = 1 + static_cast<std::size_t>(data[0]) % 61;
    std::vector<std::pair<std::string, std::string>> got;
    std::string out;
    std::vector<trawl::io::fasta_head> heads;
    for (std::size_t at = 0; at < rest.size();) {
      // lines longer than `reach` are cut inside (1 to 16 bytes: most inputs have such lines)
      const std::size_t end = trawl::io::fasta_piece_end(rest, at, size, 1 + (data[0] >> 4));
      if (end <= at) std::abort();
      const std::string_view bytes = rest.substr(at, end - at);
      trawl::io::parse_fasta_piece(bytes, headroom, out, heads);
      for (const auto& h : heads)  // a head's line is its header line
        if (h.line >= bytes.size() || bytes[h.line] != '>') std::abort();
      if (heads.empty()) {  // a width means sequence byte s is the piece's byte s + s / width
        const std::size_t w = trawl::io::fasta_line_width(bytes, out.size() - headroom);
        for (std::size_t s = 0; w != 0 && s + headroom < out.size(); ++s)
          if (s + s / w >= bytes.size() || out[headroom + s] != bytes[s + s / w]) std::abort();
      }
      const std::size_t lead = heads.empty() ? out.size() : heads[0].at;
      if (lead > headroom) {
        if (got.empty()) std::abort();  // bytes before the first header
        got.back().second.append(out, headroom, lead - headroom);
      }
      for (std::size_t h = 0; h < heads.size(); ++h) {
        const std::size_t e = h + 1 < heads.size() ? heads[h + 1].at : out.size();
        got.emplace_back(std::string(heads[h].name), out.substr(heads[h].at, e - heads[h].at));
      }
      at = end;
    }
    if (got != whole) std::abort();
  }
  // a genome of the input, kept as bytes and two bits a base where .2bit gives every byte
  // back: the same records (a .2bit or compressed input is read as such: fuzz_streams)
  const auto uncompressed = [&] {
    try {
      return trawl::io::source::from_memory(in, "in").compressed() == trawl::io::compression::none;
    } catch (const trawl::error&) {
      return false;
    }
  };
  if (whole_ok && uncompressed()) {
    for (const bool pack : {false, true}) {
      try {
        const trawl::genome g = trawl::genome::from_bytes(in, "in", trawl::device_kind::cpu, pack);
        if (g.records().size() != whole.size() || (!pack && g.packed())) std::abort();
        for (std::uint32_t r = 0; r < whole.size(); ++r)
          if (g.records()[r].name != whole[r].first || g.sequence(r) != whole[r].second) std::abort();
      } catch (const trawl::error&) {
        std::abort();  // the records were read
      }
    }
  }
  return 0;
}
