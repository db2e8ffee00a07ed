// fuzz_records.cpp — the FASTA/FASTQ record parser on hostile input, fed in pieces whose sizes
// come from the input, against record_reader on the whole input: the same records, or both
// reject it (trawl::error). Any other exception, a crash or a disagreement is a finding.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace {

struct collect final : trawl::io::record_handler {
  std::vector<std::pair<std::string, std::string>> out;
  void begin_record(std::string_view name) override { out.emplace_back(std::string(name), std::string()); }
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
  try {
    trawl::io::record_parser p(trawl::io::format::automatic, "in", c);
    for (std::size_t i = 0; i < in.size(); i += piece) p.feed(in.substr(i, piece));
    p.finish();
  } catch (const trawl::error&) {
    pieces_ok = false;
  }
  if (whole_ok != pieces_ok) std::abort();
  if (whole_ok && whole != c.out) std::abort();
  return 0;
}
