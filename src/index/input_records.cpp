// input_records.cpp — FASTA input for the index: record sequences concatenated without
// separators (line breaks and '\r' removed), names (header up to the first blank) and start
// offsets kept so occurrences map back to (record, offset). O(input) time.
// TODO(lead): switch to trawl::io::record_reader once src/io lands, to share its FASTA rules.
#include "index/index_impl.hpp"

namespace trawl::index {

void split_fasta(std::string_view bytes, std::string& text, std::vector<record_span>& records) {
  text.clear();
  records.clear();
  text.reserve(bytes.size());
  std::size_t at = 0;
  while (at < bytes.size()) {
    std::size_t eol = bytes.find('\n', at);
    if (eol == std::string_view::npos) eol = bytes.size();
    std::string_view line = bytes.substr(at, eol - at);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (!line.empty() && line.front() == '>') {
      if (!records.empty()) records.back().length = text.size() - records.back().start;
      const std::string_view header = line.substr(1);
      const std::size_t blank = header.find_first_of(" \t");
      records.push_back({std::string(header.substr(0, blank)), text.size(), 0});
    } else if (!records.empty()) {
      text.append(line);
    }
    at = eol + 1;
  }
  if (!records.empty()) records.back().length = text.size() - records.back().start;
}

}  // namespace trawl::index
