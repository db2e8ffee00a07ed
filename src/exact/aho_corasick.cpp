// aho_corasick.cpp — the literal-set matcher for large sets with many occurrences: an
// Aho–Corasick automaton (Aho and Corasick 1975) as a full DFA over byte classes, run right to
// left over the reversed literals, so that occurrences come out by start (reversed at the end)
// and every occurrence is one table step plus its report. Cost: one lookup per text byte and
// one step per occurrence, whatever the density of occurrences; memory: states x classes x 4
// bytes (states <= the literals' total length).
#include <algorithm>
#include <cstring>

#include "exact/engines.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

constexpr std::uint32_t none = ~std::uint32_t{0};

unsigned char fold_byte(unsigned char c) { return c >= 'A' && c <= 'Z' ? static_cast<unsigned char>(c + 32) : c; }

/// The automaton of the reversed literals of a table.
struct reverse_automaton {
  std::array<std::uint16_t, 256> cls{};  ///< byte -> class; 0: a byte no literal has
  std::size_t classes = 1;
  std::vector<std::uint32_t> next;  ///< state * classes + class -> state (a full DFA)
  std::vector<std::uint32_t> own;   ///< per state: the literal spelled by it (reversed), or none
  std::vector<std::uint32_t> dict;  ///< per state: the longest proper suffix state with a literal, or none
};

reverse_automaton build(const literal_table& t, bool fold) {
  reverse_automaton a;
  for (const std::string& lit : t.literals)
    for (const char ch : lit) {
      const auto c = static_cast<unsigned char>(ch);
      if (a.cls[c] == 0) a.cls[c] = static_cast<std::uint16_t>(a.classes++);
    }
  if (fold)  // literals are folded: a text byte reads as its folded form
    for (unsigned b = 'A'; b <= 'Z'; ++b) a.cls[b] = a.cls[b + 32];
  const std::size_t C = a.classes;
  auto add_state = [&] {
    a.next.resize(a.next.size() + C, none);
    a.own.push_back(none);
    a.dict.push_back(none);
    return static_cast<std::uint32_t>(a.own.size() - 1);
  };
  add_state();  // the root
  for (std::uint32_t id = 0; id < t.literals.size(); ++id) {
    const std::string& lit = t.literals[id];
    std::uint32_t s = 0;
    for (auto it = lit.rbegin(); it != lit.rend(); ++it) {
      const std::size_t c = a.cls[static_cast<unsigned char>(*it)];
      if (a.next[s * C + c] == none) {
        const std::uint32_t n = add_state();
        a.next[s * C + c] = n;
      }
      s = a.next[s * C + c];
    }
    a.own[s] = id;  // the table's literals are distinct
  }
  // breadth first: the failure of each state, its missing moves through it, its dictionary link
  std::vector<std::uint32_t> fail(a.own.size(), 0), queue;
  for (std::size_t c = 0; c < C; ++c) {
    std::uint32_t& to = a.next[c];
    if (to == none) to = 0;
    else queue.push_back(to);
  }
  for (std::size_t q = 0; q < queue.size(); ++q) {
    const std::uint32_t s = queue[q];
    const std::uint32_t f = fail[s];
    a.dict[s] = a.own[f] != none ? f : a.dict[f];
    for (std::size_t c = 0; c < C; ++c) {
      std::uint32_t& to = a.next[s * C + c];
      if (to == none) {
        to = a.next[f * C + c];
      } else {
        fail[to] = a.next[f * C + c];
        queue.push_back(to);
      }
    }
  }
  return a;
}

class aho_matcher final : public literal_engine {
 public:
  aho_matcher(literal_table table, const search_options& options) : literal_engine(std::move(table)) {
    if (options.ignore_case)
      for (std::string& lit : table_.literals)
        for (char& c : lit) c = static_cast<char>(fold_byte(static_cast<unsigned char>(c)));
    const reverse_automaton a = build(table_, options.ignore_case);
    const std::size_t states = a.own.size();
    while ((std::size_t{1} << row_shift_) < a.classes) ++row_shift_;
    if ((states << row_shift_) >= reporting)
      throw error(errc::invalid_argument, "the pattern set is too large for the aho engine");
    std::copy(a.cls.begin(), a.cls.end(), cls_.begin());
    // moves as rows of 2^row_shift_ (a state's row: its number shifted), the target's row
    // flagged when it reports occurrences
    moves_.assign(states << row_shift_, 0);
    for (std::size_t s = 0; s < states; ++s)
      for (std::size_t c = 0; c < a.classes; ++c) {
        const std::uint32_t to = a.next[s * a.classes + c];
        moves_[(s << row_shift_) + c] = (to << row_shift_) | (a.own[to] != none || a.dict[to] != none ? reporting : 0);
      }
    // each state's occurrences: the literals it and its dictionary links spell, with their targets
    first_report_.assign(states + 1, 0);
    for (std::size_t s = 0; s < states; ++s) {
      first_report_[s] = static_cast<std::uint32_t>(reports_.size());
      for (std::uint32_t r = a.own[s] != none ? static_cast<std::uint32_t>(s) : a.dict[s]; r != none; r = a.dict[r])
        for (const literal_table::target& tg : table_.targets[a.own[r]])
          reports_.push_back({tg.pattern, static_cast<std::uint32_t>(table_.literals[a.own[r]].size()), tg.dir});
    }
    first_report_[states] = static_cast<std::uint32_t>(reports_.size());
  }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    if (own_begin >= own_end || own_begin >= seq.size()) return;
    const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
    const std::size_t limit = read_limit(seq, own_end);
    const std::size_t first = out.size();
    const std::uint32_t* const next = moves_.data();
    const std::uint16_t* const cls = cls_.data();
    const std::uint32_t* const first_report = first_report_.data();
    const report* const reports = reports_.data();
    std::uint32_t m = 0;  // the state's row in moves_
    // right to left: after reading text[i], the states spelled are occurrences starting at i
    for (std::size_t i = limit; i-- > own_begin;) {
      m = next[m + cls[text[i]]];
      if ((m & reporting) == 0) continue;
      m &= ~reporting;
      if (i >= own_end) continue;  // occurrences that start in the next slice
      const std::uint32_t s = m >> row_shift_;
      for (std::uint32_t r = first_report[s]; r < first_report[s + 1]; ++r)
        out.push_back(hit{i, i + reports[r].length, reports[r].pattern, 0, reports[r].dir});
    }
    // by start descending: reversed, then each start's hits in the hit order
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    for (std::size_t i = first; i < out.size();) {
      std::size_t j = i + 1;
      while (j < out.size() && out[j].start == out[i].start) ++j;
      if (j - i > 1)
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(i), out.begin() + static_cast<std::ptrdiff_t>(j),
                  hit_order{hit_key::start});
      i = j;
    }
  }

 private:
  /// An occurrence a state reports: the literal's length and one of its targets.
  struct report {
    std::uint32_t pattern, length;
    strand dir;
  };
  static constexpr std::uint32_t reporting = std::uint32_t{1} << 31;  ///< the target state reports occurrences

  std::array<std::uint16_t, 256> cls_{};  ///< byte -> class
  unsigned row_shift_ = 0;                ///< a row holds 2^row_shift_ >= classes moves
  std::vector<std::uint32_t> moves_;      ///< row + class -> target row, flagged
  std::vector<std::uint32_t> first_report_;  ///< per state: its reports are reports_[first, first of the next)
  std::vector<report> reports_;
};

}  // namespace

bool aho_fits(const literal_table& table) {
  if (table.literals.size() < aho_min_literals) return false;
  std::array<bool, 256> used{};
  std::size_t states = 1, classes = 1;
  for (const std::string& lit : table.literals) {
    states += lit.size();
    for (const char c : lit) used[fold_byte(static_cast<unsigned char>(c))] = true;
  }
  classes += static_cast<std::size_t>(std::count(used.begin(), used.end(), true));
  std::size_t row = 1;
  while (row < classes) row *= 2;
  return states * row * sizeof(std::uint32_t) <= aho_max_table_bytes;
}

std::unique_ptr<detail::engine> make_aho_matcher(literal_table table, const search_options& options) {
  return std::make_unique<aho_matcher>(std::move(table), options);
}

}  // namespace trawl
