// fuzz_streams.cpp — gzip (ISA-L and zlib) and zstd stream readers on hostile input, handed
// over 1..N bytes at a time: every input is read to its end or rejected with trawl::error.
// Output is counted, not kept (a bomb costs time, not memory), and capped.
#include <cstdint>
#include <cstdlib>
#include <string>

#include "trawl/error.hpp"
#include "trawl/io.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 1) return 0;
  const std::size_t piece = data[0] & 0x80 ? 0 : 1 + data[0] % 61;
  trawl::io::open_options o;
  o.gzip = data[0] & 1 ? trawl::io::inflater::zlib : trawl::io::inflater::automatic;
  const std::string_view in(reinterpret_cast<const char*>(data + 1), size - 1);
  try {
    auto src = trawl::io::source::from_stream(trawl::io::memory_stream(in, piece), "in", o);
    char buf[4096];
    std::uint64_t total = 0;
    for (;;) {
      const std::ptrdiff_t r = src.stream().read(buf, sizeof buf, -1);
      if (r < 0) std::abort();  // a memory stream never times out
      if (r == 0) break;
      total += static_cast<std::uint64_t>(r);
      if (total > (std::uint64_t{64} << 20)) break;
    }
  } catch (const trawl::error&) {
  }
  return 0;
}
