// regex_oracle.hpp — regular-expression matches per line with std::regex (ECMAScript), which
// shares no code with the library's engines (Vectorscan, PCRE2). For the patterns both
// dialects read alike (literals, '.', classes, greedy and lazy quantifiers on single atoms,
// alternation, non-capturing groups, ^ and $), both find leftmost-first matches.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

namespace oracle {

struct regex_match {
  std::uint64_t start, end;
  std::uint32_t pattern;
  friend bool operator==(const regex_match&, const regex_match&) = default;
};

/// Each pattern's matches in each line of `text` (split at '\n'; the bytes after the last '\n'
/// are a line too), left to right, each from the end of the previous one; after an empty match
/// the search retries there for a non-empty match anchored at that place, else moves one byte
/// on. Whole words: the match may not touch a letter, digit or '_' on either side. Whole
/// lines: the match is the line. Matches starting at text.size() are left out (no position
/// owns them). Sorted by (start, pattern, end).
inline std::vector<regex_match> regex_matches(std::string_view text, const std::vector<std::string>& patterns,
                                              bool icase = false, bool words = false, bool lines = false) {
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<regex_match> out;
  for (std::uint32_t p = 0; p < patterns.size(); ++p) {
    std::string src = patterns[p];
    if (lines) src = "^(?:" + src + ")$";
    if (words) src = "(?:" + src + ")(?![A-Za-z0-9_])";
    const std::regex re(src, icase ? std::regex::ECMAScript | std::regex::icase : std::regex::ECMAScript);
    for (std::size_t ls = 0; ls <= text.size();) {
      std::size_t le = text.find('\n', ls);
      if (le == std::string_view::npos) le = text.size();
      const std::string line(text.substr(ls, le - ls));
      // the first match starting at or after `at` (anchored there when `anchored`)
      auto find = [&](std::size_t at, bool anchored, bool not_empty, std::size_t& b, std::size_t& e) {
        for (std::size_t s = at; s <= line.size(); ++s) {
          if (anchored && s != at) return false;
          if (words && s > 0 && word(line[s - 1])) continue;
          auto flags = std::regex_constants::match_continuous;
          if (s > 0) flags |= std::regex_constants::match_prev_avail;
          if (not_empty && s == at) flags |= std::regex_constants::match_not_null;
          std::smatch m;
          if (std::regex_search(line.cbegin() + static_cast<std::ptrdiff_t>(s), line.cend(), m, re, flags)) {
            b = s;
            e = s + static_cast<std::size_t>(m.length(0));
            return true;
          }
        }
        return false;
      };
      std::size_t at = 0;
      bool after_empty = false;
      while (at <= line.size()) {
        std::size_t b = 0, e = 0;
        if (!find(at, after_empty, after_empty, b, e)) {
          if (!after_empty) break;
          after_empty = false;
          ++at;
          continue;
        }
        if (ls + b < text.size()) out.push_back({ls + b, ls + e, p});
        after_empty = e == b;
        at = e;
      }
      ls = le + 1;
    }
  }
  std::sort(out.begin(), out.end(), [](const regex_match& a, const regex_match& b) {
    if (a.start != b.start) return a.start < b.start;
    if (a.pattern != b.pattern) return a.pattern < b.pattern;
    return a.end < b.end;
  });
  return out;
}

}  // namespace oracle
