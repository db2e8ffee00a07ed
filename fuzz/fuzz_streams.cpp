// fuzz_streams.cpp — gzip (ISA-L and zlib), zstd and .2bit stream readers on hostile input,
// handed over 1..N bytes at a time: every input is read to its end or rejected with
// trawl::error. Output is counted, not kept (a bomb costs time, not memory), and capped. A
// .2bit file's sequences are also decoded by io::twobit_file and must equal the stream's
// FASTA text, record by record.
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace {

constexpr std::uint64_t cap = std::uint64_t{64} << 20;

/// The stream's FASTA text of a .2bit file against twobit_file's decode: the same names (up
/// to a blank) and bases, or both refuse it; a range of a sequence decodes as its whole.
void compare_twobit(std::string_view in, std::size_t read_size) {
  std::string text;
  bool stream_ok = true;
  try {
    auto s = trawl::io::twobit_stream(in, "in");
    std::vector<char> buf(read_size);
    for (std::ptrdiff_t r; (r = s->read(buf.data(), buf.size(), -1)) > 0;) {
      text.append(buf.data(), static_cast<std::size_t>(r));
      if (text.size() > cap) return;
    }
  } catch (const trawl::error&) {
    stream_ok = false;
  }
  std::vector<std::pair<std::string, std::string>> want;  // the stream's records
  for (std::size_t i = 0; stream_ok && i < text.size();) {
    const std::size_t nl = text.find('\n', i);
    if (nl == std::string::npos) std::abort();  // every line of the text ends with '\n'
    if (text[i] == '>') {
      const std::string head = text.substr(i + 1, nl - i - 1);
      want.emplace_back(head.substr(0, head.find_first_of(" \t")), "");
    } else {
      if (want.empty()) std::abort();
      want.back().second.append(text, i, nl - i);
    }
    i = nl + 1;
  }
  // the file is whole or damaged for both: the same index and block checks
  bool file_ok = true;
  try {
    const trawl::io::twobit_file f(in, "in");
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < f.size(); ++i) total += f.length(i);
    if (total > cap) return;
    if (stream_ok && f.size() != want.size()) std::abort();
    for (std::size_t i = 0; i < f.size(); ++i) {
      std::string got(f.length(i), '\0');
      f.decode(i, got.data());
      if (stream_ok && (f.name(i) != want[i].first || got != want[i].second)) std::abort();
      // a range of it, from a start the read size picks, as the whole
      const std::uint64_t from = f.length(i) == 0 ? 0 : read_size * 7 % f.length(i);
      const std::uint64_t n = std::min<std::uint64_t>(f.length(i) - from, read_size * 13);
      std::string part(n, '\0');
      f.decode(i, from, n, part.data());
      if (part != got.substr(from, n)) std::abort();
    }
  } catch (const trawl::error&) {
    file_ok = false;
  }
  if (file_ok != stream_ok) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = data[0] & 0x80 ? 0 : 1 + data[0] % 61;
  trawl::io::open_options o;
  o.gzip = data[0] & 1 ? trawl::io::inflater::zlib : trawl::io::inflater::automatic;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  if (trawl::io::is_twobit(in.substr(0, 4))) compare_twobit(in, data[0] & 0x40 ? std::size_t{1} << 20 : 1 + data[0] % 200);
  try {
    auto src = trawl::io::source::from_stream(trawl::io::memory_stream(in, piece), "in", o);
    char buf[4096];
    std::uint64_t total = 0;
    for (;;) {
      const std::ptrdiff_t r = src.stream().read(buf, sizeof buf, -1);
      if (r < 0) std::abort();  // a memory stream never times out
      if (r == 0) break;
      total += static_cast<std::uint64_t>(r);
      if (total > cap) break;
    }
  } catch (const trawl::error&) {
  }
  return 0;
}
