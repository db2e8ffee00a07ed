// check.cpp — independent verification of hits: byte comparison for exact hits, an O(m·(m+k))
// edit-distance (or Hamming) DP for approximate ones.
#include "check.hpp"

#include <algorithm>
#include <fmt/format.h>
#include <numeric>
#include <vector>

namespace trawl::cli {
namespace {

char lower(char c) { return (c >= 'A' && c <= 'Z') ? static_cast<char>(c + 32) : c; }

/// The bases an IUPAC code stands for, as a 4-bit set (A=1, C=2, G=4, T=8); 0 if not a code.
int iupac_set(char c) {
  switch (lower(c)) {
    case 'a': return 1; case 'c': return 2; case 'g': return 4; case 't': case 'u': return 8;
    case 'r': return 1 | 4; case 'y': return 2 | 8; case 's': return 2 | 4; case 'w': return 1 | 8;
    case 'k': return 4 | 8; case 'm': return 1 | 2; case 'b': return 2 | 4 | 8; case 'd': return 1 | 4 | 8;
    case 'h': return 1 | 2 | 8; case 'v': return 1 | 2 | 4; case 'n': return 15;
    default: return 0;
  }
}

bool same(char p, char t, const search_options& o) {
  if (p == t) return true;
  if (o.iupac) {
    const int ps = iupac_set(p), ts = iupac_set(t);
    if (ps != 0 && ts != 0 && (ts & (ts - 1)) == 0 && (ps & ts) != 0) return true;  // t is one base
    if (lower(p) == lower(t) && ps != 0) return true;
  }
  return o.ignore_case && lower(p) == lower(t);
}

std::string complement(std::string_view p) {
  std::string r(p.rbegin(), p.rend());
  for (char& c : r) {
    const char l = lower(c);
    const char m = l == 'a' ? 't' : l == 't' ? 'a' : l == 'u' ? 'a' : l == 'c' ? 'g' : l == 'g' ? 'c' :
                   l == 'r' ? 'y' : l == 'y' ? 'r' : l == 'k' ? 'm' : l == 'm' ? 'k' : l == 'b' ? 'v' :
                   l == 'v' ? 'b' : l == 'd' ? 'h' : l == 'h' ? 'd' : l;
    c = (c >= 'A' && c <= 'Z') ? static_cast<char>(m - 32) : m;
  }
  return r;
}

}  // namespace

std::string check_hit(const hit& h, std::string_view pattern, std::string_view t, const search_options& o) {
  if (h.start > h.end || t.size() != h.end - h.start) return fmt::format("hit [{},{}) is outside the sequence", h.start, h.end);
  const std::string p = h.dir == strand::forward ? std::string(pattern) : complement(pattern);
  if (h.errors > static_cast<std::uint32_t>(std::max(o.max_errors, 0)) && !o.all_ends)
    return fmt::format("hit [{},{}) reports {} errors, more than k = {}", h.start, h.end, h.errors, o.max_errors);
  std::uint32_t d = 0;
  if (o.hamming || (o.max_errors == 0 && !o.all_ends)) {
    if (t.size() != p.size()) return fmt::format("hit [{},{}) has length {}, pattern {}", h.start, h.end, t.size(), p.size());
    for (std::size_t i = 0; i < p.size(); ++i) d += same(p[i], t[i], o) ? 0 : 1;
  } else {
    std::vector<std::uint32_t> prev(t.size() + 1), cur(t.size() + 1);
    std::iota(prev.begin(), prev.end(), 0u);
    for (std::size_t i = 1; i <= p.size(); ++i) {
      cur[0] = static_cast<std::uint32_t>(i);
      for (std::size_t j = 1; j <= t.size(); ++j)
        cur[j] = std::min({prev[j - 1] + (same(p[i - 1], t[j - 1], o) ? 0u : 1u), prev[j] + 1, cur[j - 1] + 1});
      std::swap(prev, cur);
    }
    d = prev[t.size()];
  }
  if (d != h.errors)
    return fmt::format("hit [{},{}) reports {} errors but the text there is at distance {}", h.start, h.end, h.errors, d);
  return {};
}

}  // namespace trawl::cli
