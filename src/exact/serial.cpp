// serial.cpp — the classic exact engines: brute force, KMP, Horspool and Sunday's quick search.
// Brute force O(n·m); KMP O(n + m); Horspool and Sunday O(n·m) worst, ~n/m on large alphabets.
#include <algorithm>

#include "exact/engines.hpp"

namespace trawl::exact_detail {
namespace {

/// Last start position to test for a pattern of length m in a text of length n, plus one.
std::size_t start_limit(std::size_t n, std::size_t m, std::size_t to) {
  return m > n ? 0 : std::min(to, n - m + 1);
}

/// Estimated frequency rank of a byte in typical text (higher = more common): English letters
/// by their usual frequency order, blanks and line breaks most common, controls and high bytes
/// rare except NUL and 0xFF (padding in binary files).
int byte_rank(unsigned char c, bool fold) {
  static constexpr std::string_view common = " etaoinshrdlcumwfgypbvkjxqz";
  if (fold && c >= 'A' && c <= 'Z') c = static_cast<unsigned char>(c + ('a' - 'A'));
  if (const auto i = common.find(static_cast<char>(c)); i != std::string_view::npos)
    return 250 - static_cast<int>(i) * 6;  // 250 (blank) .. 94 (z)
  if (c == '\n' || c == ',' || c == '.') return 150;
  if (c == 0 || c == 0xff) return 160;
  if (c >= 'A' && c <= 'Z') return c == 'T' || c == 'A' || c == 'I' || c == 'S' || c == 'H' ? 110 : 90;
  if (c >= '0' && c <= '9') return 100;
  if (c < 0x20 || c >= 0x80) return 40;
  return 70;  // other punctuation
}

}  // namespace

void find_brute_force(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                      std::vector<std::uint64_t>& out) {
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t end = start_limit(text.size(), p.pat.size(), to);
  for (std::size_t i = from; i < end; ++i)
    if (verify(p, t + i)) out.push_back(i);
}

// Knuth, Morris, Pratt 1977. kmp_border[i] = length of the longest proper border of pat[0, i).
void find_kmp(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
              std::vector<std::uint64_t>& out) {
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  const auto* q = reinterpret_cast<const unsigned char*>(p.pat.data());
  const std::size_t m = p.pat.size();
  const std::size_t end = start_limit(text.size(), m, to);
  if (from >= end) return;
  const std::size_t stop = end + m - 1;  // scan text[from, stop)
  std::size_t j = 0;                     // matched pattern prefix length
  for (std::size_t i = from; i < stop; ++i) {
    const unsigned char c = p.tr[t[i]];
    while (j > 0 && q[j] != c) j = p.kmp_border[j];
    if (q[j] == c) ++j;
    if (j == m) {
      out.push_back(i + 1 - m);
      j = p.kmp_border[m];
    }
  }
}

// Horspool 1980: shift by the last byte of the window.
void find_horspool(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                   std::vector<std::uint64_t>& out) {
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t m = p.pat.size();
  const std::size_t end = start_limit(text.size(), m, to);
  for (std::size_t i = from; i < end; i += p.horspool[p.tr[t[i + m - 1]]])
    if (verify(p, t + i)) out.push_back(i);
}

// Sunday 1990 ("A very fast substring search algorithm"): shift by the byte after the window.
void find_sunday(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                 std::vector<std::uint64_t>& out) {
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  const std::size_t n = text.size();
  const std::size_t m = p.pat.size();
  const std::size_t end = start_limit(n, m, to);
  std::size_t i = from;
  while (i < end) {
    if (verify(p, t + i)) out.push_back(i);
    if (i + m >= n) break;  // no byte after the window: this was the last start
    i += p.sunday[p.tr[t[i + m]]];
  }
}

compiled_pattern compile(std::string_view pattern, bool fold) {
  compiled_pattern p;
  p.fold = fold;
  for (int c = 0; c < 256; ++c)
    p.tr[static_cast<std::size_t>(c)] =
        static_cast<unsigned char>((fold && c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c);
  p.pat.resize(pattern.size());
  for (std::size_t i = 0; i < pattern.size(); ++i) p.pat[i] = static_cast<char>(p.tr[static_cast<unsigned char>(pattern[i])]);
  const std::size_t m = p.pat.size();
  const auto* q = reinterpret_cast<const unsigned char*>(p.pat.data());

  p.kmp_border.assign(m + 1, 0);
  for (std::size_t i = 1, k = 0; i < m; ++i) {
    while (k > 0 && q[i] != q[k]) k = p.kmp_border[k];
    if (q[i] == q[k]) ++k;
    p.kmp_border[i + 1] = k;
  }

  // Tables are indexed by translated bytes (the text byte goes through tr first).
  p.horspool.fill(m);
  for (std::size_t i = 0; i + 1 < m; ++i) p.horspool[q[i]] = m - 1 - i;
  p.sunday.fill(m + 1);
  for (std::size_t i = 0; i < m; ++i) p.sunday[q[i]] = m - i;

  // SIMD filter offsets. Small alphabets (DNA, binary) need more compared bytes to keep the
  // candidate rate low: with 4 offsets a random DNA window survives with probability 1/256.
  // Otherwise compare the two rarest pattern bytes (by a static estimate of byte frequency in
  // text, the idea of memchr's memmem "rare bytes" prefilter), which keeps false candidates
  // rare on natural language, where the first and last bytes are often a blank or an 'e'.
  std::array<bool, 256> seen{};
  int distinct = 0;
  for (std::size_t i = 0; i < m; ++i)
    if (!seen[q[i]]) { seen[q[i]] = true; ++distinct; }
  p.filter_count = (m >= 4 && distinct <= 4) ? 4 : 2;
  if (p.filter_count == 4) {
    p.filter_offset = {0, m / 3, (2 * m) / 3, m - 1};
  } else {
    std::size_t a = m - 1;  // rarest byte; the last one on ties
    for (std::size_t i = m - 1; i-- > 0;)
      if (byte_rank(q[i], fold) < byte_rank(q[a], fold)) a = i;
    std::size_t b = a == 0 ? m - 1 : 0;  // second rarest at another offset
    for (std::size_t i = 0; i < m; ++i)
      if (i != a && byte_rank(q[i], fold) < byte_rank(q[b], fold)) b = i;
    p.filter_offset = {std::min(a, b), std::max(a, b), 0, 0};
  }
  return p;
}

}  // namespace trawl::exact_detail
