// patterns.cpp — reading pattern files for the CLI (see patterns.hpp).
#include "patterns.hpp"

#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::cli {

void read_pattern_file(const std::string& path, std::vector<std::string>& patterns, std::vector<std::string>& names) {
  auto in = io::input_buffer::open(path);
  std::string_view b = in.bytes();
  if (io::detect_format(b) != io::format::plain) {
    // FASTA/FASTQ pattern files (primers, guides): one pattern per record.
    io::record_reader rr(b, io::format::automatic, path);
    io::record r;
    while (rr.next(r)) {
      if (r.sequence.empty()) throw error(errc::invalid_argument, path + ": record " + std::string(r.name) + " is empty");
      patterns.emplace_back(r.sequence);
      names.emplace_back(r.name);
    }
    return;
  }
  // One pattern per line; empty lines are skipped.
  std::size_t pos = 0;
  while (pos < b.size()) {
    std::size_t nl = b.find('\n', pos);
    if (nl == std::string_view::npos) nl = b.size();
    std::string_view line = b.substr(pos, nl - pos);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty()) patterns.emplace_back(line), names.emplace_back(line);
    pos = nl + 1;
  }
  // an empty file adds none (grep -e P -f /dev/null); the caller needs one pattern in all
}

}  // namespace trawl::cli
