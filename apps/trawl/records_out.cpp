// records_out.cpp — FASTA/FASTQ records printed whole (records_out.hpp).
#include "records_out.hpp"

#include <algorithm>

namespace trawl::cli {

void record_printer::begin_record(const record_info& r) {
  fastq_ = r.format == io::format::fastq;
  header_.assign(r.header);
  quality_.assign(r.quality);
  held_.clear();
  hit_ = printing_ = line_open_ = false;
  column_ = 0;
}

void record_printer::text(std::uint64_t, std::string_view bytes, bool) {
  if (done_) return;
  if (printing_) sequence(bytes);
  else if (!hit_) held_.append(bytes);  // still undecided
}

bool record_printer::hits(std::span<const hit> hits) {
  if (done_) return false;
  if (hits.empty() || hit_) return true;
  hit_ = true;
  if (o_.invert) {
    held_.clear();
    held_.shrink_to_fit();
    return true;
  }
  start();
  sequence(held_);
  held_.clear();
  printing_ = true;
  return true;
}

void record_printer::end_record(std::uint64_t) {
  if (done_ || hit_ == o_.invert) {
    held_.clear();
    return;
  }
  if (!printing_) {
    start();
    sequence(held_);
    held_.clear();
  }
  if (fastq_) {
    w_.put("\n+\n");
    w_.put(quality_);
    w_.put("\n");
  } else if (line_open_) {
    w_.put("\n");
  }
  ++selected_;
  done_ = o_.max_records != 0 && selected_ >= o_.max_records;
}

void record_printer::start() {
  w_.put(fastq_ ? "@" : ">");
  w_.put(header_);
  w_.put("\n");
  column_ = 0;
  line_open_ = false;
}

void record_printer::sequence(std::string_view bytes) {
  // FASTQ and an unwrapped FASTA sequence: one line, written in blocks
  const std::size_t width = fastq_ || o_.line_width == 0 ? std::size_t{64} << 10 : o_.line_width;
  const bool wrap = !fastq_ && o_.line_width != 0;
  while (!bytes.empty()) {
    const std::size_t n = std::min(bytes.size(), width - column_);
    w_.put(bytes.substr(0, n));
    bytes.remove_prefix(n);
    column_ += n;
    line_open_ = true;
    if (column_ == width) {
      column_ = 0;
      if (wrap) {
        w_.put("\n");
        line_open_ = false;
      }
    }
  }
}

}  // namespace trawl::cli
