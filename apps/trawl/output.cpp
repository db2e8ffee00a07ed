// output.cpp — formatting of hits (see output.hpp for the contract).
#include "output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <stdexcept>

#include "trawl/approx.hpp"

namespace trawl::cli {

writer::~writer() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; a closed pipe at exit is not an error
  }
}

void writer::flush() {
  std::size_t off = 0;
  while (off < buf_.size()) {
    const ssize_t r = ::write(fd_, buf_.data() + off, buf_.size() - off);
    if (r < 0) {
      if (errno == EINTR) continue;
      buf_.clear();
      if (errno == EPIPE) throw broken_pipe{};
      throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
    }
    off += static_cast<std::size_t>(r);
  }
  buf_.clear();
}

std::string json_escape(std::string_view s) {
  std::string out;
  out.reserve(s.size() + 2);
  for (unsigned char c : s) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (c < 0x20 || c >= 0x7f) out += fmt::format("\\u{:04x}", c);  // bytes as code points
        else out += static_cast<char>(c);
    }
  }
  return out;
}

hit_printer::hit_printer(writer& w, const print_options& opt, const std::vector<std::string>& patterns)
    : w_(w), opt_(opt), patterns_(patterns) {}

void hit_printer::begin(std::string_view source, std::string_view seq) {
  source_ = source;
  seq_ = seq;
  line_cursor_ = 0;
  line_no_ = 1;
  last_line_start_ = ~std::uint64_t{0};
}

void hit_printer::print(const hit& h) {
  const char strand_c = h.dir == strand::forward ? '+' : '-';
  const std::string& pat = patterns_[h.pattern];
  std::string cigar;
  if (opt_.align) {
    std::string_view target = seq_.substr(h.start, h.end - h.start);
    const std::string oriented = h.dir == strand::forward ? pat : reverse_complement(pat);
    cigar = align_cigar(oriented, target, opt_.matching);
  }
  tmp_.clear();
  switch (opt_.format) {
    case out_format::tsv:
      fmt::format_to(std::back_inserter(tmp_), "{}\t{}\t{}\t{}\t{}\t{}", source_, h.start, h.end, h.errors, strand_c, pat);
      if (opt_.align) fmt::format_to(std::back_inserter(tmp_), "\t{}", cigar);
      tmp_ += '\n';
      break;
    case out_format::json:
      fmt::format_to(std::back_inserter(tmp_), R"({{"source":"{}","start":{},"end":{},"errors":{},"strand":"{}","pattern":"{}")",
                     json_escape(source_), h.start, h.end, h.errors, strand_c, json_escape(pat));
      if (opt_.align) fmt::format_to(std::back_inserter(tmp_), R"(,"cigar":"{}")", cigar);
      tmp_ += "}\n";
      break;
    case out_format::bed:
      fmt::format_to(std::back_inserter(tmp_), "{}\t{}\t{}\t{}\t{}\t{}\n", source_, h.start, h.end, pat, h.errors, strand_c);
      break;
    case out_format::lines:
      print_line_of(h);
      return;
    case out_format::human: {
      const bool c = opt_.color;
      const std::uint64_t ctx = 30;
      const std::uint64_t a = h.start > ctx ? h.start - ctx : 0;
      const std::uint64_t b = std::min<std::uint64_t>(seq_.size(), h.end + ctx);
      auto clean = [](std::string_view s) {
        std::string r(s);
        for (auto& ch : r)
          if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) == 0x7f) ch = ' ';
        return r;
      };
      fmt::format_to(std::back_inserter(tmp_), "{}{}{}:{}{}-{}{} {}{}{}  {}{}{}{}{}\n", c ? "\033[35m" : "", source_,
                     c ? "\033[0m" : "", c ? "\033[32m" : "", h.start, h.end, c ? "\033[0m" : "",
                     h.errors == 0 ? "" : fmt::format("k={} ", h.errors), strand_c, opt_.align ? " " + cigar : "",
                     clean(seq_.substr(a, h.start - a)), c ? "\033[1;31m" : "[",
                     clean(seq_.substr(h.start, h.end - h.start)), c ? "\033[0m" : "]", clean(seq_.substr(h.end, b - h.end)));
      break;
    }
  }
  w_.put(tmp_);
}

void hit_printer::print_line_of(const hit& h) {
  // Line of the hit's start; hits arrive roughly in text order, so count newlines from a cursor.
  const std::uint64_t pos = h.start;
  if (pos >= line_cursor_) {
    line_no_ += static_cast<std::uint64_t>(std::count(seq_.begin() + static_cast<std::ptrdiff_t>(line_cursor_),
                                                      seq_.begin() + static_cast<std::ptrdiff_t>(pos), '\n'));
  } else {
    line_no_ -= static_cast<std::uint64_t>(std::count(seq_.begin() + static_cast<std::ptrdiff_t>(pos),
                                                      seq_.begin() + static_cast<std::ptrdiff_t>(line_cursor_), '\n'));
  }
  line_cursor_ = pos;
  const std::size_t nl_before = pos == 0 ? std::string_view::npos : seq_.rfind('\n', pos - 1);
  const std::uint64_t ls = nl_before == std::string_view::npos ? 0 : nl_before + 1;
  if (ls == last_line_start_) return;  // this line was printed already
  last_line_start_ = ls;
  const std::size_t nl_after = seq_.find('\n', pos);
  const std::uint64_t le = nl_after == std::string_view::npos ? seq_.size() : nl_after;
  tmp_.clear();
  if (opt_.with_source) fmt::format_to(std::back_inserter(tmp_), "{}{}{}:", opt_.color ? "\033[35m" : "", source_, opt_.color ? "\033[0m" : "");
  fmt::format_to(std::back_inserter(tmp_), "{}{}{}:", opt_.color ? "\033[32m" : "", line_no_, opt_.color ? "\033[0m" : "");
  tmp_.append(seq_.substr(ls, le - ls));
  tmp_ += '\n';
  w_.put(tmp_);
}

}  // namespace trawl::cli
