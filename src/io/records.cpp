// records.cpp — FASTA/FASTQ records as searchable sequences (line breaks removed), or a
// plain input as one record. O(n) per input; a record without line breaks is not copied.
#include <algorithm>

#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {
namespace {

std::string_view line_at(std::string_view b, std::size_t pos, std::size_t& next) {
  const std::size_t nl = b.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? b.size() : nl;
  next = nl == std::string_view::npos ? b.size() : nl + 1;
  std::string_view line = b.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view record_id(std::string_view header) {
  const std::size_t blank = header.find_first_of(" \t");
  return blank == std::string_view::npos ? header : header.substr(0, blank);
}

}  // namespace

format detect_format(std::string_view bytes) {
  // Skip a UTF-8 byte order mark and leading blank lines.
  std::size_t p = 0;
  if (bytes.substr(0, 3) == "\xEF\xBB\xBF") p = 3;
  while (p < bytes.size() && (bytes[p] == '\n' || bytes[p] == '\r')) ++p;
  if (p >= bytes.size()) return format::plain;
  if (bytes[p] == '>') return format::fasta;
  if (bytes[p] == '@') {
    std::size_t next = p;
    line_at(bytes, p, next);              // header
    line_at(bytes, next, next);           // sequence
    std::string_view plus = line_at(bytes, next, next);
    if (!plus.empty() && plus[0] == '+') return format::fastq;
  }
  return format::plain;
}

record_reader::record_reader(std::string_view bytes, format fmt, std::string input_name)
    : bytes_(bytes), fmt_(fmt == format::automatic ? detect_format(bytes) : fmt), input_name_(std::move(input_name)) {
  if (bytes_.substr(0, 3) == "\xEF\xBB\xBF" && fmt_ != format::plain) pos_ = 3;
}

bool record_reader::next(record& r) {
  if (done_) return false;
  if (fmt_ == format::plain) {
    done_ = true;
    r = record{input_name_, bytes_, 0};
    return true;
  }
  const std::string_view b = bytes_;
  // Skip blank lines before a record.
  while (pos_ < b.size() && (b[pos_] == '\n' || b[pos_] == '\r')) ++pos_;
  if (pos_ >= b.size()) {
    done_ = true;
    return false;
  }
  std::size_t next = pos_;
  if (fmt_ == format::fasta) {
    if (b[pos_] != '>')
      throw error(errc::bad_format, input_name_ + ": FASTA record " + std::to_string(count_ + 1) +
                                        " does not start with '>'");
    const std::string_view header = line_at(b, pos_ + 1, next);
    // The sequence runs to the next line starting with '>'.
    std::size_t seq_begin = next, seq_end = next;
    for (;;) {
      if (seq_end >= b.size()) break;
      if (b[seq_end] == '>' && (seq_end == 0 || b[seq_end - 1] == '\n')) break;
      const std::size_t nl = b.find("\n>", seq_end);
      seq_end = nl == std::string_view::npos ? b.size() : nl + 1;
    }
    pos_ = seq_end;
    std::string_view raw = b.substr(seq_begin, seq_end - seq_begin);
    // Zero-copy when the sequence is one line; otherwise drop the line breaks.
    std::string_view seq;
    std::size_t breaks = static_cast<std::size_t>(std::count(raw.begin(), raw.end(), '\n'));
    if (breaks <= 1 && raw.find('\r') == std::string_view::npos) {
      seq = raw;
      if (!seq.empty() && seq.back() == '\n') seq.remove_suffix(1);
    } else {
      seq_buf_.clear();
      seq_buf_.reserve(raw.size());
      for (char c : raw)
        if (c != '\n' && c != '\r') seq_buf_.push_back(c);
      seq = seq_buf_;
    }
    r = record{record_id(header), seq, count_++};
    return true;
  }
  // FASTQ: @header / sequence / +[header] / quality (one line each).
  if (b[pos_] != '@')
    throw error(errc::bad_format, input_name_ + ": FASTQ record " + std::to_string(count_ + 1) + " does not start with '@'");
  const std::string_view header = line_at(b, pos_ + 1, next);
  const std::string_view seq = line_at(b, next, next);
  const std::string_view plus = line_at(b, next, next);
  const std::string_view qual = line_at(b, next, next);
  if (plus.empty() || plus[0] != '+' || qual.size() != seq.size())
    throw error(errc::bad_format, input_name_ + ": malformed FASTQ record " + std::to_string(count_ + 1));
  pos_ = next;
  r = record{record_id(header), seq, count_++};
  return true;
}

}  // namespace trawl::io
