// fuzz_search.cpp — the stream scheduler on hostile input: the first bytes choose a pattern,
// k (or a regular expression: the pattern bytes as PCRE2 reads them), the chunk size and the
// piece size; the rest is the input (plain, FASTA or FASTQ). The hits
// of search_input over a stream must equal those of search_sequence over each record that
// record_reader gives (both read the same records, fuzz_records checks that).
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace {

struct found {
  std::uint64_t record;
  trawl::hit h;
  bool operator==(const found& o) const { return record == o.record && h == o.h; }
};

struct sink_t final : trawl::search_sink {
  std::vector<found> all;
  std::uint64_t record = 0;
  void begin_record(const trawl::record_info& r) override { record = r.index; }
  bool hits(std::span<const trawl::hit> hs) override {
    for (const auto& h : hs) all.push_back({record, h});
    return true;
  }
  void end_record(std::uint64_t) override {}
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 4) return 0;
  const std::size_t m = 1 + data[0] % 12;
  const int k = data[1] % 3;
  const std::size_t chunk = 1 + data[2] % 97;
  const std::size_t piece = 1 + data[3] % 31;
  if (size < 4 + m) return 0;
  const std::string pattern(reinterpret_cast<const char*>(data + 4), m);
  if (pattern.find('\0') != std::string::npos) return 0;
  const std::string_view in(reinterpret_cast<const char*>(data + 4 + m), size - 4 - m);
  if (in.size() >= 2 && static_cast<unsigned char>(in[0]) == 0x1f) return 0;  // compressed: fuzz_streams
  if (in.size() >= 4 && static_cast<unsigned char>(in[0]) == 0x28) return 0;
  if (in.size() >= 4 && (static_cast<unsigned char>(in[0]) & 0xf0) == 0x50 && in.substr(1, 3) == "\x2a\x4d\x18") return 0;
  if (trawl::io::is_twobit(in.substr(0, 4))) return 0;  // a .2bit genome, decoded by the stream: fuzz_streams

  trawl::search_options o;
  o.max_errors = k;
  o.regex = (data[1] & 0x80) != 0;
  if (o.regex) o.max_errors = 0;
  o.threads = 1 + data[2] % 2;
  std::unique_ptr<trawl::matcher> matcher;
  try {
    matcher = trawl::make_matcher({pattern}, o);
  } catch (const trawl::error&) {
    if (!o.regex) std::abort();  // any byte string but NUL is a literal pattern
    return 0;                    // not an expression PCRE2 compiles
  }
  std::vector<found> want;
  bool failed = false;  // a regular expression past PCRE2's match limit
  try {
    trawl::io::record_reader rr(in, trawl::io::format::automatic, "in");
    trawl::io::record r;
    while (rr.next(r))
      trawl::search_sequence(*matcher, r.sequence, o, [&](std::span<const trawl::hit> hs) {
        for (const auto& h : hs) want.push_back({r.index, h});
        return true;
      });
  } catch (const trawl::error& e) {
    if (!o.regex || e.code() != trawl::errc::invalid_argument) return 0;  // a malformed input: fuzz_records checks that both readers reject it
    failed = true;
  }
  sink_t sink;
  trawl::stream_options so;
  so.chunk_size = chunk;
  auto src = trawl::io::source::from_stream(trawl::io::memory_stream(in, piece), "in");
  try {
    trawl::search_input(*matcher, src, o, so, sink);
  } catch (const trawl::error&) {
    if (failed) return 0;
    std::abort();
  }
  if (failed || sink.all != want) std::abort();
  return 0;
}
