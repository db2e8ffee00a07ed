// output.cpp — formatting of hits (see output.hpp for the contract).
#include "output.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <thread>
#include <vector>

#include "trawl/approx.hpp"

namespace trawl::cli {

/// What the writer and its thread share.
struct writer::queue {
  std::mutex mu;
  std::condition_variable changed;
  std::deque<block> full;   ///< handed over, in order
  std::vector<block> empty;  ///< written, for reuse
  bool busy = false;         ///< the thread is writing a block it took
  bool stop = false;
  std::exception_ptr failed;  ///< the first failed write's error; the blocks after it are dropped
  std::thread thread;
};

writer::writer(int fd) : fd_(fd) {}

writer::~writer() {
  try {
    flush();
  } catch (...) {  // a destructor must not throw; a closed pipe at exit is not an error
  }
  if (q_ && q_->thread.joinable()) {
    {
      std::lock_guard<std::mutex> lock(q_->mu);
      q_->stop = true;
    }
    q_->changed.notify_all();
    q_->thread.join();
  }
}

void writer::hand_over() {
  if (buf_.size == 0) return;
  if (!q_) {  // the thread first: if it cannot start, nothing waits for it
    auto q = std::make_unique<queue>();
    q->thread = std::thread([this, p = q.get()] { drain(*p); });
    q_ = std::move(q);
  }
  std::optional<block> next;
  {
    std::unique_lock<std::mutex> lock(q_->mu);
    q_->changed.wait(lock, [&] { return q_->full.size() < in_flight || q_->failed; });
    if (q_->failed) {
      buf_.size = 0;
      std::rethrow_exception(q_->failed);
    }
    q_->full.push_back(std::move(buf_));
    if (!q_->empty.empty()) {
      next = std::move(q_->empty.back());
      q_->empty.pop_back();
    }
  }
  q_->changed.notify_all();
  buf_ = next ? std::move(*next) : block::of(2 * flush_at);
  buf_.size = 0;
}

void writer::drain(queue& q) {
  std::unique_lock<std::mutex> lock(q.mu);
  for (;;) {
    q.changed.wait(lock, [&] { return !q.full.empty() || q.stop; });
    if (q.full.empty()) return;
    block b = std::move(q.full.front());
    q.full.pop_front();
    q.busy = true;
    const bool dropped = static_cast<bool>(q.failed);
    lock.unlock();
    std::exception_ptr error;
    for (std::size_t off = 0; !dropped && off < b.size;) {
      const ssize_t r = ::write(fd_, b.data.get() + off, b.size - off);
      if (r < 0) {
        if (errno == EINTR) continue;
        error = errno == EPIPE ? std::make_exception_ptr(broken_pipe{})
                               : std::make_exception_ptr(std::runtime_error(std::string("write error: ") + std::strerror(errno)));
        break;
      }
      off += static_cast<std::size_t>(r);
    }
    b.size = 0;
    lock.lock();
    if (error && !q.failed) q.failed = error;
    if (b.cap == 2 * flush_at && q.empty.size() < in_flight) q.empty.push_back(std::move(b));
    q.busy = false;
    q.changed.notify_all();
  }
}

void writer::rethrow() {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(q_->mu);
    e = q_->failed;
  }
  if (e) std::rethrow_exception(e);
}

void writer::flush() {
  hand_over();
  if (!q_) return;
  {
    std::unique_lock<std::mutex> lock(q_->mu);
    q_->changed.wait(lock, [&] { return (q_->full.empty() && !q_->busy) || q_->failed; });
  }
  rethrow();
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

void hit_printer::begin(std::string_view source, std::string_view file) {
  source_ = source;
  file_ = file;
  text_.reset();
  ended_ = false;
  floor_ = 0;
  waiting_.clear();
}

bool hit_printer::wants_text() const {
  return opt_.align || opt_.matched || opt_.format == out_format::human;
}

void hit_printer::text(std::uint64_t pos, std::string_view bytes, bool stable) {
  text_.append(pos, bytes, stable);
  if (!waiting_.empty()) flush_waiting(false);
}

void hit_printer::floor(std::uint64_t pos) {
  floor_ = pos;
  std::uint64_t keep = pos;
  if (opt_.format == out_format::human) {
    if (!waiting_.empty()) keep = std::min(keep, waiting_.front().start);
    keep = keep > kContext ? keep - kContext : 0;
  }
  text_.drop_before(keep);
}

void hit_printer::idle() { flush_waiting(true); }

void hit_printer::end() {
  ended_ = true;
  flush_waiting(true);
}

void hit_printer::flush_waiting(bool all) {
  std::size_t i = 0;
  for (; i < waiting_.size() && (all || ended_ || waiting_[i].end + kContext <= text_.end()); ++i) print_now(waiting_[i]);
  waiting_.erase(waiting_.begin(), waiting_.begin() + static_cast<std::ptrdiff_t>(i));
}

void hit_printer::print(const hit& h) {
  switch (opt_.format) {
    case out_format::human:
      waiting_.push_back(h);
      flush_waiting(false);
      return;
    default: print_now(h);
  }
}

void hit_printer::print_now(const hit& h) {
  const char strand_c = h.dir == strand::forward ? '+' : '-';
  const std::string& pat = patterns_[h.pattern];
  const std::string& label = opt_.names != nullptr ? (*opt_.names)[h.pattern] : pat;
  const std::string_view matched = opt_.matched ? text_.at(h.start, h.end) : std::string_view();
  std::string cigar;
  if (opt_.align) {
    const std::string_view target = text_.at(h.start, h.end);
    const std::string oriented = h.dir == strand::forward ? pat : reverse_complement(pat);
    cigar = align_cigar(oriented, target, opt_.matching);
  }
  tmp_.clear();
  switch (opt_.format) {
    case out_format::tsv:
      print_tsv(h, strand_c, label, cigar, matched);
      return;
    case out_format::json:
      tmp_.append(std::string_view("{"));
      if (opt_.file_column) fmt::format_to(fmt::appender(tmp_), R"("file":"{}",)", json_escape(file_));
      fmt::format_to(fmt::appender(tmp_), R"("source":"{}","start":{},"end":{},"errors":{},"strand":"{}","pattern":"{}")",
                     json_escape(source_), h.start, h.end, h.errors, strand_c, json_escape(label));
      if (opt_.align) fmt::format_to(fmt::appender(tmp_), R"(,"cigar":"{}")", cigar);
      if (opt_.matched) fmt::format_to(fmt::appender(tmp_), R"(,"matched":"{}")", json_escape(matched));
      tmp_.append(std::string_view("}\n"));
      break;
    case out_format::bed:
      print_bed(h, strand_c, label);
      return;
    case out_format::human: {
      const bool c = opt_.color;
      const std::uint64_t a = h.start > kContext ? h.start - kContext : 0;
      auto clean = [](std::string_view s) {
        std::string r(s);
        for (auto& ch : r)
          if (static_cast<unsigned char>(ch) < 0x20 || static_cast<unsigned char>(ch) == 0x7f) ch = ' ';
        return r;
      };
      fmt::format_to(fmt::appender(tmp_), "{}{}{}:{}{}-{}{} {}{}{}  {}{}{}{}{}\n", c ? "\033[35m" : "", source_,
                     c ? "\033[0m" : "", c ? "\033[32m" : "", h.start, h.end, c ? "\033[0m" : "",
                     h.errors == 0 ? "" : fmt::format("k={} ", h.errors), strand_c,
                     (opt_.names != nullptr ? " " + label : "") + (opt_.align ? " " + cigar : ""),
                     clean(text_.at(a, h.start)), c ? "\033[1;31m" : "[", clean(text_.at(h.start, h.end)),
                     c ? "\033[0m" : "]", clean(text_.at(h.end, h.end + kContext)));
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
/// A TSV field: a tab, newline or carriage return in it is written \t, \n or \r, so that a
/// line is a record and a tab a column (room: twice its size).
char* put_field(char* p, std::string_view s) {
  if (s.find_first_of("\t\n\r") == std::string_view::npos) return put_text(p, s);
  for (const char c : s) {
    if (c == '\t' || c == '\n' || c == '\r') {
      *p++ = '\\';
      *p++ = c == '\t' ? 't' : c == '\n' ? 'n' : 'r';
    } else {
      *p++ = c;
    }
  }
  return p;
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
void hit_printer::print_tsv(const hit& h, char strand_c, std::string_view pat, std::string_view cigar,
                            std::string_view matched) {
  char* p = w_.reserve(2 * (file_.size() + source_.size() + pat.size() + matched.size()) + cigar.size() + 3 * 21 + 10);
  if (opt_.file_column) {
    p = put_field(p, file_);
    *p++ = '\t';
  }
  p = put_field(p, source_);
  *p++ = '\t';
  p = put_number(p, h.start, '\t');
  p = put_number(p, h.end, '\t');
  p = put_number(p, h.errors, '\t');
  *p++ = strand_c;
  *p++ = '\t';
  p = put_field(p, pat);
  if (opt_.align) {
    *p++ = '\t';
    p = put_text(p, cigar);
  }
  if (opt_.matched) {
    *p++ = '\t';
    p = put_field(p, matched);
  }
  *p++ = '\n';
  w_.commit(p);
}

void hit_printer::print_bed(const hit& h, char strand_c, std::string_view pat) {
  char* p = w_.reserve(2 * (source_.size() + pat.size() + file_.size()) + 3 * 21 + 9);
  p = put_field(p, source_);
  *p++ = '\t';
  p = put_number(p, h.start, '\t');
  p = put_number(p, h.end, '\t');
  p = put_field(p, pat);
  *p++ = '\t';
  p = put_number(p, h.errors, '\t');
  *p++ = strand_c;
  if (opt_.file_column) {
    *p++ = '\t';
    p = put_field(p, file_);
  }
  *p++ = '\n';
  w_.commit(p);
}

}  // namespace trawl::cli
