// output.cpp — formatting of hits (see output.hpp for the contract).
#include "output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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
  while (off < size_) {
    const ssize_t r = ::write(fd_, buf_.get() + off, size_ - off);
    if (r < 0) {
      if (errno == EINTR) continue;
      size_ = 0;
      if (errno == EPIPE) throw broken_pipe{};
      throw std::runtime_error(std::string("write error: ") + std::strerror(errno));
    }
    off += static_cast<std::size_t>(r);
  }
  size_ = 0;
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
  last_line_end_ = 0;
  held_.clear();
}

void hit_printer::end() { flush_lines(~std::uint64_t{0}); }

void hit_printer::flush_lines(std::uint64_t bound) {
  std::sort(held_.begin(), held_.end());
  const auto stop = std::lower_bound(held_.begin(), held_.end(), bound);
  for (auto it = held_.begin(); it != stop; ++it) print_line_of(*it);
  held_.erase(held_.begin(), stop);
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
      print_tsv(h, strand_c, pat, cigar);
      return;
    case out_format::json:
      fmt::format_to(fmt::appender(tmp_), R"({{"source":"{}","start":{},"end":{},"errors":{},"strand":"{}","pattern":"{}")",
                     json_escape(source_), h.start, h.end, h.errors, strand_c, json_escape(pat));
      if (opt_.align) fmt::format_to(fmt::appender(tmp_), R"(,"cigar":"{}")", cigar);
      tmp_.append(std::string_view("}\n"));
      break;
    case out_format::bed:
      print_bed(h, strand_c, pat);
      return;
    case out_format::lines: {
      // Each matching line once, in order: starts are held until no later hit can start
      // before them, then printed sorted (approximate hits come by end; their starts can step
      // back by up to the reach).
      held_.push_back(h.start);
      if (held_.size() >= 256) {
        const std::uint64_t last = h.end > 0 ? h.end - 1 : 0;
        flush_lines(opt_.key == hit_key::start ? h.start : (last > opt_.reach ? last - opt_.reach : 0));
      }
      return;
    }
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
      fmt::format_to(fmt::appender(tmp_), "{}{}{}:{}{}-{}{} {}{}{}  {}{}{}{}{}\n", c ? "\033[35m" : "", source_,
                     c ? "\033[0m" : "", c ? "\033[32m" : "", h.start, h.end, c ? "\033[0m" : "",
                     h.errors == 0 ? "" : fmt::format("k={} ", h.errors), strand_c, opt_.align ? " " + cigar : "",
                     clean(seq_.substr(a, h.start - a)), c ? "\033[1;31m" : "[",
                     clean(seq_.substr(h.start, h.end - h.start)), c ? "\033[0m" : "]", clean(seq_.substr(h.end, b - h.end)));
      break;
    }
  }
  put_tmp();
}

namespace {

char* put_text(char* p, std::string_view s) {
  std::memcpy(p, s.data(), s.size());
  return p + s.size();
}
constexpr auto two_digits = [] {
  std::array<char, 200> t{};
  for (int i = 0; i < 100; ++i) t[2 * i] = static_cast<char>('0' + i / 10), t[2 * i + 1] = static_cast<char>('0' + i % 10);
  return t;
}();

/// Number of decimal digits of v (Hacker's Delight: from the bit length, one table check).
int decimal_digits(std::uint64_t v) {
  static constexpr std::uint64_t pow10[20] = {1ull,
                                              10ull,
                                              100ull,
                                              1000ull,
                                              10000ull,
                                              100000ull,
                                              1000000ull,
                                              10000000ull,
                                              100000000ull,
                                              1000000000ull,
                                              10000000000ull,
                                              100000000000ull,
                                              1000000000000ull,
                                              10000000000000ull,
                                              100000000000000ull,
                                              1000000000000000ull,
                                              10000000000000000ull,
                                              100000000000000000ull,
                                              1000000000000000000ull,
                                              10000000000000000000ull};
  const int bits = 64 - __builtin_clzll(v | 1);
  const int t = (bits * 1233) >> 12;  // about log10(2^bits)
  return t + (t < 20 && v >= pow10[t] ? 1 : 0);
}

/// Decimal v and a separator, written in place from its last digit back (no copies).
char* put_number(char* p, std::uint64_t v, char sep) {
  const int n = std::max(1, decimal_digits(v));
  char* b = p + n;
  while (v >= 100) {
    b -= 2;
    std::memcpy(b, two_digits.data() + 2 * (v % 100), 2);
    v /= 100;
  }
  if (v >= 10) {
    b -= 2;
    std::memcpy(b, two_digits.data() + 2 * v, 2);
  } else {
    *--b = static_cast<char>('0' + v);
  }
  p += n;
  *p++ = sep;
  return p;
}

}  // namespace

// The default piped formats write millions of lines per second: field by field, in place.
void hit_printer::print_tsv(const hit& h, char strand_c, std::string_view pat, std::string_view cigar) {
  char* p = w_.reserve(source_.size() + pat.size() + cigar.size() + 3 * 21 + 8);
  p = put_text(p, source_);
  *p++ = '\t';
  p = put_number(p, h.start, '\t');
  p = put_number(p, h.end, '\t');
  p = put_number(p, h.errors, '\t');
  *p++ = strand_c;
  *p++ = '\t';
  p = put_text(p, pat);
  if (opt_.align) {
    *p++ = '\t';
    p = put_text(p, cigar);
  }
  *p++ = '\n';
  w_.commit(p);
}

void hit_printer::print_bed(const hit& h, char strand_c, std::string_view pat) {
  char* p = w_.reserve(source_.size() + pat.size() + 3 * 21 + 8);
  p = put_text(p, source_);
  *p++ = '\t';
  p = put_number(p, h.start, '\t');
  p = put_number(p, h.end, '\t');
  p = put_text(p, pat);
  *p++ = '\t';
  p = put_number(p, h.errors, '\t');
  *p++ = strand_c;
  *p++ = '\n';
  w_.commit(p);
}

void hit_printer::print_line_of(std::uint64_t pos) {
  // Line of a hit's start; starts arrive in text order (flush_lines), so newlines are counted
  // from a cursor (backwards too, should a caller's order ever step back). A start inside the
  // line printed last costs nothing more: every search below is then linear in the text over
  // the whole output.
  if (pos >= last_line_start_ && pos < last_line_end_) return;
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
  const std::size_t nl_after = seq_.find('\n', pos);
  const std::uint64_t le = nl_after == std::string_view::npos ? seq_.size() : nl_after;
  last_line_start_ = ls;
  last_line_end_ = le + 1;  // its newline belongs to it (a hit may start there)
  tmp_.clear();
  if (opt_.with_source) fmt::format_to(fmt::appender(tmp_), "{}{}{}:", opt_.color ? "\033[35m" : "", source_, opt_.color ? "\033[0m" : "");
  fmt::format_to(fmt::appender(tmp_), "{}{}{}:", opt_.color ? "\033[32m" : "", line_no_, opt_.color ? "\033[0m" : "");
  tmp_.append(seq_.substr(ls, le - ls));
  tmp_.push_back('\n');
  put_tmp();
}

}  // namespace trawl::cli
