// output.hpp — the output contract of every trawl command that reports hits.
//
//   tsv  (default when stdout is not a terminal): source<TAB>start<TAB>end<TAB>errors<TAB>strand<TAB>pattern
//   json: one object a line {"source":..,"start":..,"end":..,"errors":..,"strand":"+","pattern":..}
//   bed:  BED6 — source, start, end, pattern, errors, strand
//   lines (-n): each matching line once, grep style: [source:]lineno:line
//   human (default on a terminal): colored source:start-end, errors, strand and the hit in context
// Coordinates are 0-based, half-open [start, end); errors = 0 for exact hits.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::cli {

enum class out_format { tsv, json, bed, lines, human };

/// Buffered writer to a file descriptor; a closed pipe throws broken_pipe.
class writer {
 public:
  explicit writer(int fd = 1) : fd_(fd), buf_(new char[cap_]) {}
  ~writer();
  writer(const writer&) = delete;
  writer& operator=(const writer&) = delete;
  void put(std::string_view s) {
    char* p = reserve(s.size());
    std::memcpy(p, s.data(), s.size());
    commit(p + s.size());
  }
  /// Room for n bytes written in place, ended by commit(end of what was written).
  char* reserve(std::size_t n) {
    if (size_ + n > cap_) {
      flush();
      if (n > cap_) {
        cap_ = n;
        buf_.reset(new char[cap_]);
      }
    }
    return buf_.get() + size_;
  }
  void commit(const char* end) {
    size_ = static_cast<std::size_t>(end - buf_.get());
    if (size_ >= flush_at) flush();
  }
  void flush();

 private:
  static constexpr std::size_t flush_at = std::size_t{1} << 20;
  int fd_;
  std::size_t cap_ = 2 * flush_at, size_ = 0;
  std::unique_ptr<char[]> buf_;
};

/// Thrown when stdout is a closed pipe: the command ends quietly.
struct broken_pipe {};

struct print_options {
  out_format format = out_format::tsv;
  bool color = false;
  bool align = false;       ///< add a CIGAR column / field (approximate search)
  search_options matching;  ///< what "=" means in a CIGAR (ignore_case, iupac, hamming)
  bool with_source = true;  ///< lines format: prefix lines with the source name
  /// lines format: how far a later hit's start can lie before an earlier one's. Hits come in
  /// the matcher's key order: by start (key start, reach 0) or by end (key last: a start is at
  /// least end - 1 - reach, reach = the matcher's lookbehind).
  hit_key key = hit_key::start;
  std::uint64_t reach = 0;
};

/// Prints hits of one sequence in the chosen format.
class hit_printer {
 public:
  hit_printer(writer& w, const print_options& opt, const std::vector<std::string>& patterns);
  /// Starts a new sequence (record or plain input) named `source`.
  void begin(std::string_view source, std::string_view seq);
  void print(const hit& h);
  /// Ends the sequence begun last: prints what the lines format still holds (call before the
  /// sequence's bytes go away).
  void end();

 private:
  void print_line_of(std::uint64_t pos);
  /// Lines format: prints the lines of the held starts below `bound` (all: ~0), in order.
  void flush_lines(std::uint64_t bound);
  writer& w_;
  print_options opt_;
  const std::vector<std::string>& patterns_;
  std::string_view source_, seq_;
  std::uint64_t line_cursor_ = 0, line_no_ = 1;
  /// The line printed last, [start, end): later hits inside it print nothing.
  std::uint64_t last_line_start_ = ~std::uint64_t{0}, last_line_end_ = 0;
  /// Lines format: hit starts not printed yet (a later hit may still start on an earlier line).
  std::vector<std::uint64_t> held_;
  fmt::memory_buffer tmp_;  ///< one formatted record (appended in place: no per-char growth)
  void put_tmp() { w_.put(std::string_view(tmp_.data(), tmp_.size())); }
  /// The TSV and BED lines, written in place into the writer's buffer.
  void print_tsv(const hit& h, char strand_c, std::string_view pat, std::string_view cigar);
  void print_bed(const hit& h, char strand_c, std::string_view pat);
};

std::string json_escape(std::string_view s);

}  // namespace trawl::cli
