// regex_matcher.cpp — regular expressions (search_options::regex), matched within lines.
//
// Semantics: each pattern is a PCRE2 regular expression matched against each line on its own
// (a line never includes its '\n'), bytes not code points. A pattern's hits in a line are its
// leftmost-first matches, left to right, each starting where the previous one ended (an empty
// match is retried there as non-empty and anchored, else one byte on), as PCRE2's own loop
// and ripgrep's -o do. Whole words and whole lines are matches of the wrapped expression, as
// grep -w and -x: a word match must not touch a word byte on either side.
//
// Speed: a line is matched only when a filter names it. The filter is the patterns' union,
// compiled multi-line (`^` and `$` at every line), run over all of a slice's lines at once:
// every match within a line is a match of the union there, so the union's leftmost match
// from the start of a line names the first line at or after it that can hold a hit, and the
// search goes on after that line. Patterns a line and the multi-line text could read
// differently (lookbehind, subject anchors \A \z \Z \G, inline option groups) run on every
// line; ones whose groups are numbered (back-references) get a filter of their own. The
// filters are PCRE2's, not Vectorscan's: the Vectorscan regex engine trawl builds against
// misses matches on AVX-512 hosts (VectorCamp/vectorscan #317).
//
// Work: PCRE2's match and depth limits bound backtracking. A pattern whose shortest match is
// long (budgeted_match bytes or more) can still cost a scan of up to that many bytes at every
// start of a long line, which no limit of PCRE2's counts: on a line that can hold a match, such
// a pattern runs through a copy compiled with automatic callouts that count its steps, and past
// a budget linear in the line's length the search ends with an error line. Such a pattern is
// matched on every line on its own: a filter's scan of the text would take the same unbounded
// steps (and a line shorter than its shortest match is refused by PCRE2 at once).
//
// Slicing: the hits of a line depend on the line from its start, so a slice reads the whole
// lines that cross its owned starts; lines are therefore bounded by regex_max_line bytes, and a
// longer line is an error (whatever the slicing: every slice checks all the lines it reads).
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <algorithm>
#include <cctype>
#include <cstring>
#include <memory>
#include <string>

#include <tbb/enumerable_thread_specific.h>

#include "trawl/detail/engine.hpp"
#include "exact/engines.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

struct code_deleter {
  void operator()(pcre2_code* c) const { pcre2_code_free(c); }
};
using code_ptr = std::unique_ptr<pcre2_code, code_deleter>;

std::string pcre2_message(int rc) {
  PCRE2_UCHAR buf[256];
  if (pcre2_get_error_message(rc, buf, sizeof buf) < 0) return "error " + std::to_string(rc);
  return reinterpret_cast<const char*>(buf);
}

/// PCRE2 computes a pattern's shortest match up to this many bytes (PCRE2_INFO_MINLENGTH).
constexpr std::uint32_t long_match = 65535;
/// Patterns whose shortest match is this long or longer have their steps counted on lines that
/// can hold a match: a line of n bytes could otherwise take n times this many.
constexpr std::uint32_t budgeted_match = 1024;
/// Steps a budgeted pattern may take on a line, per byte of the line, and
/// besides. A step is an automatic callout (one an item of the pattern) plus the bytes the
/// match moved over since the one before (a counted repeat reads many bytes between two).
constexpr std::uint64_t steps_per_byte = 256;
constexpr std::uint64_t steps_besides = std::uint64_t{1} << 20;
/// The budget of one line (count_step's data).
struct step_budget {
  std::uint64_t left = 0;
  std::size_t start = ~std::size_t{0}, at = 0;  // the attempt's start and the last callout's place
};
/// The callout of the budgeted copies: takes the steps since the last callout from the budget,
/// and ends the match (out_of_steps) once it is spent.
constexpr int out_of_steps = -1000;
int count_step(pcre2_callout_block* cb, void* data) {
  auto& b = *static_cast<step_budget*>(data);
  const std::size_t pos = cb->current_position;
  if (cb->start_match != b.start) b.start = cb->start_match, b.at = cb->start_match;
  const std::uint64_t steps = 1 + (pos > b.at ? pos - b.at : b.at - pos);
  b.at = pos;
  if (steps > b.left) return out_of_steps;
  b.left -= steps;
  return 0;
}

/// How a pattern's lines are found.
enum class filter_kind {
  shared,  ///< by the union of all such patterns
  own,     ///< by the pattern alone (its groups are numbered: back-references)
  none,    ///< every line is matched
};

/// Skips the class that starts at p[i] == '['; returns the index after its ']'.
std::size_t skip_class(std::string_view p, std::size_t i) {
  ++i;
  if (i < p.size() && p[i] == '^') ++i;
  if (i < p.size() && p[i] == ']') ++i;  // a leading ']' is a member
  while (i < p.size() && p[i] != ']') {
    if (p[i] == '\\') {
      i += 2;
    } else if (p[i] == '[' && i + 1 < p.size() && (p[i + 1] == ':' || p[i + 1] == '.' || p[i + 1] == '=')) {
      const std::size_t end = p.find(std::string{p[i + 1], ']'}, i + 2);  // [:alpha:]
      i = end == std::string_view::npos ? p.size() : end + 2;
    } else {
      ++i;
    }
  }
  return std::min(p.size(), i + 1);
}

/// Reads `p` just enough to tell its filter_kind. Classes and bytes after a backslash are
/// skipped; \Q...\E is read as pattern text, which can only move it to a safer kind.
filter_kind kind_of(std::string_view p) {
  filter_kind k = filter_kind::shared;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    const char next = i + 1 < p.size() ? p[i + 1] : '\0';
    if (c == '\\') {
      if (std::string_view("AzZG").find(next) != std::string_view::npos) return filter_kind::none;
      if (std::isdigit(static_cast<unsigned char>(next)) || next == 'g' || next == 'k') k = filter_kind::own;
      ++i;
    } else if (c == '[') {
      i = skip_class(p, i) - 1;
    } else if (c == '(' && next == '?') {
      const char after = i + 2 < p.size() ? p[i + 2] : '\0';
      if (after != ':' && after != '=' && after != '!') return filter_kind::none;  // (?<, (?i), (?|, ...
    } else if (c == '(' && next == '*') {
      return filter_kind::none;  // (*VERB) and option settings
    }
  }
  return k;
}

/// Skips the group that starts at p[i] == '('; returns the index after its ')'.
std::size_t skip_group(std::string_view p, std::size_t i) {
  int depth = 0;
  while (i < p.size()) {
    const char c = p[i];
    if (c == '\\') {
      i += 2;
      continue;
    }
    if (c == '[') {
      i = skip_class(p, i);
      continue;
    }
    if (c == '(') ++depth;
    if (c == ')' && --depth == 0) return i + 1;
    ++i;
  }
  return p.size();
}

/// Literals of which every match of `p` holds one (one per top-level alternative, each the
/// longest run of bytes the alternative must match in a row), or none when some alternative
/// has no run of at least min_len. Read conservatively: any construct not understood ends a run
/// or gives none, so a literal returned is always required.
std::vector<std::string> required_literals(std::string_view p, std::size_t min_len = 3) {
  constexpr std::string_view special = "\\^$.|?*+()[]{}";
  if (p.find("\\Q") != std::string_view::npos || p.find("\\E") != std::string_view::npos ||
      p.find("\\c") != std::string_view::npos)
    return {};
  std::vector<std::string> out;
  std::string run, best;
  auto end_run = [&] {
    if (run.size() > best.size()) best = run;
    run.clear();
  };
  auto end_alternative = [&] {
    end_run();
    if (best.size() < min_len) return false;
    out.push_back(best);
    best.clear();
    return true;
  };
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    std::string lit;  // the byte this token matches, when it is one literal byte
    if (c == '|') {
      if (!end_alternative()) return {};
      ++i;
      continue;
    }
    if (c == '\\') {
      if (i + 1 >= p.size()) return {};
      const char e = p[i + 1];
      if (!std::isalnum(static_cast<unsigned char>(e))) lit = std::string(1, e);
      i += 2;
    } else if (c == '[') {
      i = skip_class(p, i);
    } else if (c == '(') {
      i = skip_group(p, i);
    } else if (special.find(c) != std::string_view::npos) {
      if (c == ')' || c == ']') return {};  // unbalanced: not read further
      ++i;                                  // . ^ $ and stray quantifiers
    } else {
      lit = std::string(1, c);
      ++i;
    }
    // a quantifier on the token: {0,..}, ?, * make it optional; + and {n,..} keep one copy
    bool optional = false, repeated = false;
    if (i < p.size() && (p[i] == '?' || p[i] == '*' || p[i] == '+')) {
      optional = p[i] != '+';
      repeated = true;
      ++i;
    } else if (i < p.size() && p[i] == '{') {
      const std::size_t close = p.find('}', i);
      if (close == std::string_view::npos) return {};
      optional = !(i + 1 < p.size() && p[i + 1] >= '1' && p[i + 1] <= '9');
      repeated = true;
      i = close + 1;
    }
    if (repeated && i < p.size() && (p[i] == '?' || p[i] == '+')) ++i;  // lazy, possessive
    if (lit.empty() || optional) {
      end_run();
    } else {
      run += lit;
      if (repeated) end_run();
    }
  }
  if (!end_alternative()) return {};
  return out;
}

/// The start of the line holding position x of s, no earlier than r0.
std::size_t line_start(const char* s, std::size_t r0, std::size_t x) {
  const void* nl = x > r0 ? memrchr(s + r0, '\n', x - r0) : nullptr;
  return nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - s) + 1 : r0;
}

/// The end (its '\n', or r1) of the line holding position x of s.
std::size_t line_end(const char* s, std::size_t x, std::size_t r1) {
  const void* nl = x < r1 ? std::memchr(s + x, '\n', r1 - x) : nullptr;
  return nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - s) : r1;
}

/// Per worker thread: PCRE2 match data and JIT stack.
struct thread_state {
  pcre2_match_data* md = nullptr;
  pcre2_match_context* mc = nullptr;
  pcre2_jit_stack* stack = nullptr;
  thread_state() {
    md = pcre2_match_data_create(1, nullptr);
    mc = pcre2_match_context_create(nullptr);
    stack = pcre2_jit_stack_create(32 * 1024, 1024 * 1024, nullptr);
    if (md == nullptr || mc == nullptr || stack == nullptr) {
      release();
      throw std::bad_alloc();
    }
    pcre2_jit_stack_assign(mc, nullptr, stack);
  }
  thread_state(const thread_state&) = delete;
  thread_state& operator=(const thread_state&) = delete;
  ~thread_state() { release(); }
  void release() {
    pcre2_match_data_free(md);
    pcre2_match_context_free(mc);
    pcre2_jit_stack_free(stack);
  }
};

class regex_matcher final : public detail::engine {
 public:
  regex_matcher(const std::vector<std::string>& patterns, const search_options& options) {
    const std::uint32_t flags = options.ignore_case ? PCRE2_CASELESS : 0u;
    const std::uint32_t extra = options.whole_lines ? PCRE2_EXTRA_MATCH_LINE : 0u;
    std::vector<std::string> shared, literals;
    std::vector<std::uint32_t> shared_ids;
    for (std::size_t i = 0; i < patterns.size(); ++i) {
      const std::string& p = patterns[i];
      code_ptr plain = compile(p, flags, i, 0);  // the pattern as written must compile
      std::string q = p;
      if (options.whole_words) {
        static constexpr std::string_view word = "[A-Za-z0-9_\\x80-\\xff]";
        q = "(?<!" + std::string(word) + ")(?:" + p + ")(?!" + std::string(word) + ")";
      }
      codes_.push_back(q == p && extra == 0 ? std::move(plain) : compile(q, flags, i, extra));
      std::uint32_t shortest = 0;
      pcre2_pattern_info(codes_.back().get(), PCRE2_INFO_MINLENGTH, &shortest);
      if (shortest >= budgeted_match) {  // every line on its own, its steps counted where it fits
        budgeted_.resize(patterns.size());
        budgeted_[i] = compile(q, flags | PCRE2_AUTO_CALLOUT, i, extra);
        shortest_.resize(patterns.size(), 0);
        shortest_[i] = shortest;
        every_line_.push_back(static_cast<std::uint32_t>(i));
        continue;
      }
      const filter_kind kind = kind_of(p);
      if (kind != filter_kind::none) {
        std::vector<std::string> lits = required_literals(p);
        if (!lits.empty()) {
          literals.insert(literals.end(), std::make_move_iterator(lits.begin()), std::make_move_iterator(lits.end()));
          literal_patterns_.push_back(static_cast<std::uint32_t>(i));
          continue;
        }
      }
      switch (kind) {
        case filter_kind::shared:
          shared.push_back(std::move(q));
          shared_ids.push_back(static_cast<std::uint32_t>(i));
          break;
        case filter_kind::own:
          filters_.push_back({compile(q, flags | multi_line, i, extra), {static_cast<std::uint32_t>(i)}});
          break;
        case filter_kind::none: every_line_.push_back(static_cast<std::uint32_t>(i)); break;
      }
    }
    if (!literals.empty()) {
      search_options lo;
      lo.ignore_case = options.ignore_case;
      lo.threads = 1;
      literal_filter_ = detail::make_exact_engine(literals, lo);
    }
    if (shared.empty()) return;
    std::string all;
    for (const std::string& q : shared) all += (all.empty() ? "(?:" : "|(?:") + q + ")";
    try {
      filters_.push_back({compile(all, flags | multi_line, 0, extra), std::move(shared_ids)});
    } catch (const error&) {  // the union is too large for PCRE2: a filter each
      for (std::size_t j = 0; j < shared.size(); ++j)
        filters_.push_back({compile(shared[j], flags | multi_line, shared_ids[j], extra), {shared_ids[j]}});
    }
  }

  [[nodiscard]] std::size_t lookbehind() const override { return regex_max_line + 1; }
  [[nodiscard]] std::size_t lookahead() const override { return regex_max_line + 1; }
  [[nodiscard]] hit_key key() const override { return hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override { return codes_.size() == 1; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    own_end = std::min(own_end, seq.size());
    if (own_begin >= own_end) return;
    const char* s = seq.data();
    // The lines crossing [own_begin, own_end): from the start of own_begin's line to the end
    // of the line holding own_end - 1 (a '\n' or the sequence's end).
    const std::size_t back = own_begin >= lookbehind() ? own_begin - lookbehind() : 0;
    std::size_t r0 = own_begin;
    if (const void* nl = own_begin > back ? memrchr(s + back, '\n', own_begin - back) : nullptr)
      r0 = static_cast<std::size_t>(static_cast<const char*>(nl) - s) + 1;
    else if (back > 0)
      long_line();
    else
      r0 = 0;
    const std::size_t last = own_end - 1;
    const std::size_t fwd = std::min(seq.size(), last + lookahead());
    std::size_t r1 = seq.size();
    if (const void* nl = last < fwd ? std::memchr(s + last, '\n', fwd - last) : nullptr)
      r1 = static_cast<std::size_t>(static_cast<const char*>(nl) - s);
    else if (fwd < seq.size())
      long_line();
    check_lines(s, r0, r1);

    thread_state& ts = state_.local();
    const std::size_t first = out.size();
    // (line start, pattern) for each line a filter names, and the every-line patterns
    std::vector<std::pair<std::size_t, std::uint32_t>> cand;
    for (const filter& f : filters_) find_lines(f, s, r0, r1, ts, cand);
    if (literal_filter_) find_literal_lines(seq, r0, r1, cand);
    if (!every_line_.empty()) every_line(s, r0, r1, every_line_, cand);
    std::sort(cand.begin(), cand.end());
    cand.erase(std::unique(cand.begin(), cand.end()), cand.end());
    for (const auto& [ls, p] : cand) {
      const std::size_t le = line_end(s, ls, r1);
      match_line(s + ls, le - ls, ls, p, own_begin, own_end, ts, out);
    }
    if (codes_.size() > 1)
      std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order{hit_key::start});
  }

 private:
  [[noreturn]] static void long_line() {
    throw error(errc::invalid_argument, "regular expressions are matched within lines of at most " +
                                            std::to_string(regex_max_line) +
                                            " bytes, and the text has a longer line (a FASTA/FASTQ "
                                            "record's sequence is one line)");
  }

  /// Every line in [r0, r1) has at most regex_max_line bytes.
  static void check_lines(const char* s, std::size_t r0, std::size_t r1) {
    for (std::size_t p = r0; r1 - p > regex_max_line;) {
      const void* nl = memrchr(s + p, '\n', regex_max_line + 1);
      if (nl == nullptr) long_line();
      p = static_cast<std::size_t>(static_cast<const char*>(nl) - s) + 1;
    }
  }

  /// Multi-line: ^ and $ at every line, ^ also after a final '\n' (an empty last line).
  static constexpr std::uint32_t multi_line = PCRE2_MULTILINE | PCRE2_ALT_CIRCUMFLEX;

  /// Compiles and JIT-compiles `p` (the interpreter runs where JIT cannot); lines end at '\n'.
  static code_ptr compile(const std::string& p, std::uint32_t flags, std::size_t index, std::uint32_t extra) {
    pcre2_compile_context* cc = pcre2_compile_context_create(nullptr);
    if (cc == nullptr) throw std::bad_alloc();
    pcre2_set_newline(cc, PCRE2_NEWLINE_LF);
    pcre2_set_compile_extra_options(cc, extra);
    int rc = 0;
    PCRE2_SIZE at = 0;
    pcre2_code* c = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(p.data()), p.size(), flags, &rc, &at, cc);
    pcre2_compile_context_free(cc);
    if (c == nullptr)
      throw error(errc::invalid_argument, "regular expression " + std::to_string(index + 1) + " (" + p +
                                              "): " + pcre2_message(rc) + " at offset " + std::to_string(at));
    pcre2_jit_compile(c, PCRE2_JIT_COMPLETE);
    return code_ptr(c);
  }

  /// A filter: a multi-line expression and the patterns whose lines it names.
  struct filter {
    code_ptr code;
    std::vector<std::uint32_t> patterns;
  };

  /// Adds (line start, pattern) for every line of [from, r1), for each of `patterns`.
  static void every_line(const char* s, std::size_t from, std::size_t r1, const std::vector<std::uint32_t>& patterns,
                         std::vector<std::pair<std::size_t, std::uint32_t>>& cand) {
    for (std::size_t ls = from;;) {
      for (const std::uint32_t p : patterns) cand.emplace_back(ls, p);
      const std::size_t le = line_end(s, ls, r1);
      if (le == r1) return;
      ls = le + 1;
    }
  }

  /// Adds (line start, pattern) for every line of [r0, r1) that f names, for each of its patterns.
  static void find_lines(const filter& f, const char* s, std::size_t r0, std::size_t r1, thread_state& ts,
                         std::vector<std::pair<std::size_t, std::uint32_t>>& cand) {
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(s + r0);
    for (std::size_t at = 0; at <= r1 - r0;) {
      const int rc = pcre2_match(f.code.get(), subject, r1 - r0, at, 0, ts.md, ts.mc);
      if (rc == PCRE2_ERROR_NOMATCH) return;
      if (rc < 0) {
        // past PCRE2's limits over many lines: every line from here is matched on its own, so
        // whether a search fails depends on its lines only, never on the slicing
        every_line(s, r0 + at, r1, f.patterns, cand);
        return;
      }
      const std::size_t b = r0 + pcre2_get_ovector_pointer(ts.md)[0];
      for (const std::uint32_t p : f.patterns) cand.emplace_back(line_start(s, r0, b), p);
      const std::size_t le = line_end(s, b, r1);
      if (le == r1) return;
      at = le + 1 - r0;
    }
  }

  /// Adds (line start, pattern) for every line of [r0, r1) that holds one of the required
  /// literals, for each pattern that has them.
  void find_literal_lines(std::string_view seq, std::size_t r0, std::size_t r1,
                          std::vector<std::pair<std::size_t, std::uint32_t>>& cand) const {
    std::vector<hit> hs;
    std::vector<detail::open_mark> none;
    literal_filter_->scan(seq, r0, r1, hs, none);
    const char* s = seq.data();
    std::size_t le = 0;  // the end of the last line named; hits come in start order
    bool named = false;
    for (const hit& h : hs) {
      if (named && h.start <= le) continue;
      const std::size_t ls = line_start(s, r0, h.start);
      le = line_end(s, h.start, r1);
      named = true;
      for (const std::uint32_t p : literal_patterns_) cand.emplace_back(ls, p);
    }
  }

  /// Appends pattern p's hits in the line [line, line + n) (at sequence offset ls) that start in
  /// [own_begin, own_end).
  void match_line(const char* line, std::size_t n, std::size_t ls, std::uint32_t p, std::size_t own_begin,
                  std::size_t own_end, thread_state& ts, std::vector<hit>& out) const {
    const pcre2_code* code = codes_[p].get();
    // a pattern with a long shortest match on a line that can hold it: counted steps
    step_budget steps;
    const bool budget = p < budgeted_.size() && budgeted_[p] && n >= shortest_[p];
    if (budget) {
      code = budgeted_[p].get();
      steps.left = steps_per_byte * n + steps_besides;
      pcre2_set_callout(ts.mc, count_step, &steps);
    }
    struct unset {
      pcre2_match_context* mc;
      bool on;
      ~unset() {
        if (on) pcre2_set_callout(mc, nullptr, nullptr);
      }
    } restore{ts.mc, budget};
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(line);
    std::size_t at = 0;
    std::uint32_t opts = 0;
    while (at <= n && ls + at < own_end) {
      const int rc = pcre2_match(code, subject, n, at, opts, ts.md, ts.mc);
      if (rc == out_of_steps)
        throw error(errc::invalid_argument,
                    "regular expression " + std::to_string(p + 1) + ": its shortest match is " +
                        std::to_string(shortest_[p]) + (shortest_[p] >= long_match ? " bytes or more" : " bytes") +
                        ", and a line of " + std::to_string(n) +
                        " bytes takes it more than " + std::to_string(steps_per_byte * n + steps_besides) +
                        " matching steps (trawl's bound on such a line)");
      if (rc == PCRE2_ERROR_NOMATCH) {
        if (opts == 0) return;
        opts = 0;  // no non-empty match at an empty match's place: one byte on
        ++at;
        continue;
      }
      if (rc < 0)
        throw error(errc::invalid_argument, "regular expression " + std::to_string(p + 1) + ": " + pcre2_message(rc));
      const PCRE2_SIZE* ov = pcre2_get_ovector_pointer(ts.md);
      const std::size_t b = ov[0], e = std::max(ov[0], ov[1]);
      if (ls + b >= own_end) return;
      if (ls + b >= own_begin) out.push_back(hit{ls + b, ls + e, p, 0, strand::forward});
      opts = e == b ? PCRE2_NOTEMPTY_ATSTART | PCRE2_ANCHORED : 0;
      at = e;
    }
  }

  std::vector<code_ptr> codes_;            ///< per pattern, as matched in a line (wrapped for words)
  /// Per pattern whose shortest match is budgeted_match bytes or more: codes_' copy with
  /// automatic callouts (empty: none), and that length (PCRE2's, capped at long_match)
  std::vector<code_ptr> budgeted_;
  std::vector<std::uint32_t> shortest_;
  std::vector<filter> filters_;            ///< name the lines of the other patterns
  std::vector<std::uint32_t> every_line_;  ///< patterns matched on every line
  /// The patterns whose every match holds one of their required literals, and the exact
  /// matcher of all those literals, which names their lines.
  std::vector<std::uint32_t> literal_patterns_;
  std::unique_ptr<detail::engine> literal_filter_;
  mutable tbb::enumerable_thread_specific<thread_state> state_;
};

}  // namespace

std::unique_ptr<detail::engine> make_regex_matcher(const std::vector<std::string>& patterns, const search_options& options) {
  if (options.max_errors > 0 || options.all_ends || options.hamming)
    throw error(errc::invalid_argument, "search_options::regex needs exact search (max_errors = 0)");
  if (options.both_strands || options.iupac)
    throw error(errc::invalid_argument, "search_options::regex does not combine with both_strands or iupac");
  if (options.whole_words && options.whole_lines)
    throw error(errc::invalid_argument, "search_options::whole_words and whole_lines do not combine with regex");
  return std::make_unique<regex_matcher>(patterns, options);
}

}  // namespace trawl
