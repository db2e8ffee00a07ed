// output.hpp — the output contract of every trawl command that reports hits.
//
//   tsv  (default when stdout is not a terminal): source<TAB>start<TAB>end<TAB>errors<TAB>strand<TAB>pattern
//        [<TAB>cigar (--align)][<TAB>matched text (--matched)]
//   json: one object a line {"source":..,"start":..,"end":..,"errors":..,"strand":"+","pattern":..}
//   bed:  BED6 — source, start, end, pattern, errors, strand
//   human (default on a terminal): colored source:start-end, errors, strand and the hit in context
// Coordinates are 0-based, half-open [start, end); errors = 0 for exact hits. grep's line view
// (-n, -o, -v, -c, context lines) is lines.hpp.
#pragma once

#include <fmt/format.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/detail/text_buffer.hpp"
#include "trawl/hit.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {

enum class out_format { tsv, json, bed, human };

/// Buffered writer to a file descriptor; a closed pipe throws broken_pipe. Full buffers are
/// written by a thread of its own (started by the first), so that the command goes on while
/// the system takes large outputs; flush() returns once everything put is written. A failed
/// write drops what comes after it and throws at the next put() that hands a buffer over or
/// at the next flush(), and at every one after.
class writer {
 public:
  explicit writer(int fd = 1);
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
    if (buf_.size + n > buf_.cap) {
      hand_over();
      if (n > buf_.cap) buf_ = block::of(n);
    }
    return buf_.data.get() + buf_.size;
  }
  void commit(const char* end) {
    buf_.size = static_cast<std::size_t>(end - buf_.data.get());
    if (buf_.size >= flush_at) hand_over();
  }
  /// Writes everything put so far and waits until it is written.
  void flush();

 private:
  static constexpr std::size_t flush_at = std::size_t{1} << 20;
  /// Buffers handed over and waiting, at most (besides the one being written and the one
  /// being filled): the writer waits beyond.
  static constexpr std::size_t in_flight = 4;
  struct block {
    static block of(std::size_t cap) {
      block b;
      b.data.reset(new char[cap]);
      b.cap = cap;
      return b;
    }
    std::unique_ptr<char[]> data;
    std::size_t cap = 0, size = 0;
  };
  struct queue;
  /// Queues the buffer for the writing thread and takes an empty one.
  void hand_over();
  /// The writing thread: writes the queued buffers in order until told to stop.
  void drain(queue& q);
  /// Throws what a write failed with, if one did.
  void rethrow();

  int fd_;
  block buf_ = block::of(2 * flush_at);
  std::unique_ptr<queue> q_;  ///< shared with the writing thread, made with it
};

/// Thrown when stdout is a closed pipe: the command ends quietly.
struct broken_pipe {};

struct print_options {
  out_format format = out_format::tsv;
  bool color = false;
  bool align = false;       ///< add a CIGAR column / field (approximate search)
  match_rules matching;     ///< what "=" means in a CIGAR
  /// The pattern column shows these names (--pattern-names) instead of the patterns.
  const std::vector<std::string>* names = nullptr;
  bool matched = false;     ///< add the matched text as a last column / field
  /// The input file of every hit: a first column (TSV), a "file" field (JSON), a seventh
  /// column (BED). Set when several files are searched or -H is given.
  bool file_column = false;
};

/// Prints the hits of one record after another in the chosen format. The record's bytes come
/// as the search reads them (text()); the formats that show text (human, --align) hold what
/// they still need and print a hit once its context has arrived.
class hit_printer {
 public:
  hit_printer(writer& w, const print_options& opt, const std::vector<std::string>& patterns);
  /// Starts a new sequence (record or plain input) named `source`, of the input `file`.
  void begin(std::string_view source, std::string_view file = {});
  /// True when the chosen format reads the text (text() must then be called).
  [[nodiscard]] bool wants_text() const;
  /// The next bytes of the sequence, from `pos` (`stable`: see search_sink::text).
  void text(std::uint64_t pos, std::string_view bytes, bool stable);
  void print(const hit& h);
  /// No later hit starts before `pos`: what is complete below it is printed, and bytes no
  /// later line or context needs are dropped.
  void floor(std::uint64_t pos);
  /// The input paused: prints what waits for context that has not come (clipped).
  void idle();
  /// Ends the sequence begun last: prints what is held.
  void end();
  [[nodiscard]] const detail::text_buffer& held_text() const { return text_; }

 private:
  static constexpr std::uint64_t kContext = 30;  ///< human format: bytes shown on each side
  void print_now(const hit& h);
  /// Human format: prints the waiting hits whose context has arrived (all: every one).
  void flush_waiting(bool all);
  writer& w_;
  print_options opt_;
  const std::vector<std::string>& patterns_;
  std::string_view source_;
  std::string_view file_;
  detail::text_buffer text_;
  bool ended_ = false;  ///< the sequence's last byte has come
  std::uint64_t floor_ = 0;
  /// Human format: hits waiting for the context after them.
  std::vector<hit> waiting_;
  fmt::memory_buffer tmp_;  ///< one formatted record (appended in place: no per-char growth)
  void put_tmp() { w_.put(std::string_view(tmp_.data(), tmp_.size())); }
  /// The TSV and BED lines, written in place into the writer's buffer.
  void print_tsv(const hit& h, char strand_c, std::string_view pat, std::string_view cigar, std::string_view matched);
  void print_bed(const hit& h, char strand_c, std::string_view pat);
};

std::string json_escape(std::string_view s);

}  // namespace trawl::cli
