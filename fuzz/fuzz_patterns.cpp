// fuzz_patterns.cpp — the CLI's pattern-file reader (-f: one pattern a line, or FASTA/FASTQ
// records) on hostile files: every file gives patterns or a trawl::error, nothing else.
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "patterns.hpp"
#include "trawl/error.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const int fd = memfd_create("patterns", 0);
  if (fd < 0) return 0;
  if (size > 0 && write(fd, data, size) != static_cast<ssize_t>(size)) std::abort();
  const std::string path = "/proc/self/fd/" + std::to_string(fd);
  try {
    std::vector<std::string> pats, names;
    trawl::cli::read_pattern_file(path, pats, names);
    if (names.size() != pats.size()) std::abort();  // one name per pattern
    for (const auto& p : pats)
      if (p.empty()) std::abort();  // empty patterns are skipped or refused, never returned
  } catch (const trawl::error&) {
  }
  close(fd);
  return 0;
}
