// lines.hpp — grep's view of a search: the lines that match, printed with -n / -o / -v /
// -A -B -C (line_sink), or the lines (FASTA/FASTQ records) counted with -c, -l, -q
// (line_counter).
//
// A line is selected when a hit starts in it (-v: when none does). Lines are decided in text
// order as soon as no later hit can start in them (search_sink::floor) and their newline has
// arrived, so a stream prints as it is read and the sink holds only the undecided lines and
// the before-context. Output, grep / ripgrep style:
//   [source SEP][line number SEP][byte offset SEP]line   SEP ':' for selected lines, '-' for context lines
//   "--" between groups of lines that are not adjacent, when context is asked for
//   -o: [source SEP][line number SEP][byte offset SEP]text of each hit, one a line
// --null writes a NUL after the source instead of SEP.
#pragma once

#include <cstdint>
#include <deque>
#include <string>
#include <vector>

#include "output.hpp"
#include "trawl/detail/text_buffer.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {

/// What the line view does with a binary input (a NUL byte in its first 64 KiB), as grep's
/// --binary-files.
enum class binary_files {
  binary,         ///< its first selected line prints "binary file X matches" (stderr) and ends it
  text,           ///< its lines as any other (-a)
  without_match,  ///< it matches nothing (-I in grep)
};

struct line_options {
  bool numbers = false;       ///< -n
  bool byte_offsets = false;  ///< -b: the offset of each line (-o: of each match) in its input
  bool only_matching = false; ///< -o
  bool invert = false;        ///< -v
  std::size_t before = 0, after = 0;  ///< -B, -A
  bool context = false;       ///< -A, -B or -C given (even 0): "--" between groups
  bool with_source = false;   ///< prefix lines with the source name
  bool null = false;          ///< --null
  bool color = false;
  std::uint64_t max_lines = 0;  ///< -m: stop after this many selected lines (0: no limit)
  /// No hit can hold a newline (exact search, no pattern with one): when the input pauses,
  /// every line whose newline has come is decided at once (a live stream's lines print as
  /// they come, not when later bytes arrive).
  bool newline_free = false;
  binary_files binary = binary_files::binary;  ///< only when lines are printed
};

/// Output state shared by the inputs of one command (the "--" between groups of two files).
struct line_state {
  bool printed = false;
};

/// The lines printed (-n, -b, -o, -v, context, or grep's default view): plain text only.
class line_sink final : public search_sink {
 public:
  line_sink(writer& w, const line_options& opt, line_state& state, std::string display);

  void begin_record(const record_info& record) override;
  [[nodiscard]] bool wants_text() const override { return true; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override;
  bool hits(std::span<const hit> hits) override;
  void floor(std::uint64_t pos) override;
  void end_record(std::uint64_t length) override;
  void idle() override;

  /// Lines selected so far.
  [[nodiscard]] std::uint64_t selected() const { return selected_; }

 private:
  struct held_line {
    std::uint64_t start, end, number;
  };
  /// Whether hit `h` is the first of its line that this sink keeps: a line is selected by
  /// one hit, so unless every hit is printed (-o, colour) the others are dropped as they come
  /// and a line's hits cost nothing however many there are.
  bool first_in_line(const hit& h);
  /// Decides every line it can, in order.
  void process();
  void decide(std::uint64_t ls, std::uint64_t le, std::size_t nhits);
  void print_line(std::uint64_t ls, std::uint64_t le, std::uint64_t number, char sep, std::size_t nhits);
  void separator(std::uint64_t number);
  void prefix(std::uint64_t number, std::uint64_t offset, char sep);

  writer& w_;
  line_options opt_;
  line_state& state_;
  std::string display_;
  detail::text_buffer text_;
  bool ended_ = false;
  bool caught_up_ = false;  ///< the input paused: every hit of the bytes held has come
  std::uint64_t floor_ = 0;
  std::uint64_t cursor_ = 0;  ///< start of the first undecided line
  std::uint64_t clean_ = 0;   ///< no '\n' lies in [cursor_, clean_)
  std::uint64_t line_no_ = 1; ///< its number
  std::vector<hit> pending_;  ///< hits of undecided lines, from head_ on
  std::size_t head_ = 0;
  bool dirty_ = false;        ///< pending_ may be out of start order
  bool every_hit_ = false;    ///< -o or colour: every hit of a selected line is printed
  bool binary_ = false;       ///< the input holds a NUL in its first bytes (line_options::binary)
  static constexpr std::uint64_t none = ~std::uint64_t{0};
  std::uint64_t kept_start_ = none;  ///< start of the last hit kept (first_in_line)
  std::uint64_t kept_nl_ = none;     ///< the first '\n' after kept_start_, once seen
  std::uint64_t kept_scan_ = 0;      ///< no '\n' lies in [kept_start_, kept_scan_)
  std::deque<held_line> ring_;  ///< before-context
  std::uint64_t after_left_ = 0;
  std::uint64_t last_printed_ = 0;  ///< number of the line printed last (0: none in this input)
  std::uint64_t selected_ = 0;
  bool stopping_ = false;     ///< -m reached: trailing context only
  bool done_ = false;
  std::string tmp_;
};

/// -c, -l, -L and -q: the lines selected (the records, of FASTA/FASTQ input), counted without
/// reading the text. The workers count the lines with a hit that lie whole in a piece, and find
/// each piece's first line break and the line ends of the other hits' starts
/// (search_sink::line_breaks, settles_lines); each of those starts is placed among them once no
/// earlier hit can come (search_sink::floor), so the counter holds only the hits and line ends
/// of the bytes not decided yet. With -v every line break is counted too.
class line_counter final : public search_sink {
 public:
  explicit line_counter(const line_options& opt) : opt_(opt) {}

  void begin_record(const record_info& record) override;
  [[nodiscard]] bool wants_line_breaks() const override { return true; }
  [[nodiscard]] bool counts_line_breaks() const override { return opt_.invert; }
  [[nodiscard]] bool settles_lines() const override { return true; }
  void line_breaks(std::span<const std::uint64_t> ends, std::uint64_t count, std::uint64_t last,
                   std::uint64_t settled) override;
  bool hits(std::span<const hit> hits) override;
  void floor(std::uint64_t pos) override;
  void end_record(std::uint64_t length) override;

  /// Lines (records) selected so far; with -v, once the input has ended.
  [[nodiscard]] std::uint64_t selected() const { return selected_; }

 private:
  /// Counts the lines of the held starts before `below`, then forgets the line breaks there.
  void settle(std::uint64_t below);
  static constexpr std::uint64_t none = ~std::uint64_t{0};

  line_options opt_;
  bool records_ = false;            ///< FASTA/FASTQ: records are counted
  std::uint64_t record_hits_ = 0;
  std::vector<std::uint64_t> starts_;  ///< hits' starts not placed yet
  std::vector<std::uint64_t> breaks_;  ///< line ends from breaks_head_ on, sorted, none before the floor
  std::size_t breaks_head_ = 0;
  std::uint64_t newlines_ = 0;      ///< '\n' bytes seen (-v)
  std::uint64_t last_break_ = none;  ///< the last of them
  std::uint64_t hit_lines_ = 0;     ///< lines with a hit
  std::uint64_t counted_end_ = 0;   ///< the '\n' that ends the last line counted
  bool counted_any_ = false;
  bool counted_open_ = false;       ///< that line's '\n' has not come yet
  std::uint64_t open_start_ = 0;    ///< then: the start of the hit that counted it
  std::uint64_t selected_ = 0;
  bool done_ = false;               ///< -m reached (without -v)
};

}  // namespace trawl::cli
