// banded.hpp — edit distance in a diagonal band, for long patterns with few errors: only the
// cells within `band` of the main diagonal, values capped at band + 1. A path that leaves the
// band costs more than `band`, so every value <= band is exact (Ukkonen 1985), and the work is
// O((m + band)·band) instead of O(m·n).
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace trawl::approx_detail {

/// Calls at(l), ascending, for every length l <= max_len whose global distance D[m][l] equals
/// `score`, in the DP of rows 0..m against columns 0..max_len with D[i][0] = i, D[0][l] = l and
/// a substitution cost of !match(i, l) at row i, column l (both from 1). With rows the pattern
/// read backwards and columns the text read backwards from an end, this lists the lengths of
/// the substrings ending there at distance `score` (approx_detail::leftmost_start).
template <class Match, class At>
void banded_lengths_at_score(std::uint64_t m, std::uint32_t score, std::uint64_t max_len, const Match& match, At&& at) {
  const std::uint64_t K = score;
  const std::uint32_t cap = score + 1;
  const std::size_t width = 2 * K + 1;  // column l holds rows l - K .. l + K at offsets 0 .. 2K
  std::vector<std::uint32_t> prev(width + 1, cap), cur(width + 1, cap);
  for (std::uint64_t d = K; d < width && d - K <= m; ++d) prev[d] = static_cast<std::uint32_t>(std::min<std::uint64_t>(d - K, cap));
  if (m <= K && prev[m + K] == score) at(std::uint64_t{0});
  for (std::uint64_t l = 1; l <= max_len; ++l) {
    for (std::uint64_t d = 0; d < width; ++d) {
      const std::uint64_t i = l + d;  // row + K
      if (i < K || i - K > m) {
        cur[d] = cap;
        continue;
      }
      const std::uint64_t row = i - K;
      std::uint32_t v;
      if (row == 0) {
        v = static_cast<std::uint32_t>(std::min<std::uint64_t>(l, cap));
      } else {
        v = prev[d] + (match(row, l) ? 0u : 1u);                // D[row-1][l-1]
        if (d > 0) v = std::min(v, cur[d - 1] + 1);             // D[row-1][l]
        v = std::min(v, prev[d + 1] + 1);                       // D[row][l-1]
        v = std::min(v, cap);
      }
      cur[d] = v;
    }
    if (m + K >= l && m + K - l < width && cur[m + K - l] == score) at(l);
    std::swap(prev, cur);
  }
}

/// The global alignment of rows 1..m against columns 1..n (substitution cost !match(i, jj)) as
/// one letter per column, in order: '=' or 'X' (diagonal), 'I' (a row only), 'D' (a column
/// only). Ties go to the diagonal, then 'I', then 'D', as a full DP's traceback does. The band
/// doubles from max(1, |m - n|) until the distance fits in it. Returns false, with nothing
/// written, when a band would exceed `max_cells`.
template <class Match>
bool banded_alignment(std::uint64_t m, std::uint64_t n, const Match& match, std::uint64_t max_cells, std::string& ops) {
  std::uint64_t t = std::max<std::uint64_t>(1, m > n ? m - n : n - m);
  for (;;) {
    const std::uint64_t width = 2 * t + 1;
    if (static_cast<double>(m + 1) * static_cast<double>(width) > static_cast<double>(max_cells)) return false;
    const auto cap = static_cast<std::uint32_t>(std::min<std::uint64_t>(t + 1, 0xFFFFFFFEu));
    // row i holds columns i - t .. i + t at offsets 0 .. 2t
    std::vector<std::uint32_t> dp((m + 1) * width, cap);
    auto at = [&](std::uint64_t i, std::uint64_t jj) -> std::uint32_t {
      if (jj + t < i || jj > i + t) return cap;
      return dp[i * width + (jj + t - i)];
    };
    for (std::uint64_t i = 0; i <= m; ++i) {
      const std::uint64_t lo = i > t ? i - t : 0, hi = std::min(n, i + t);
      for (std::uint64_t jj = lo; jj <= hi; ++jj) {
        std::uint32_t v;
        if (i == 0) v = static_cast<std::uint32_t>(std::min<std::uint64_t>(jj, cap));
        else if (jj == 0) v = static_cast<std::uint32_t>(std::min<std::uint64_t>(i, cap));
        else v = std::min({at(i - 1, jj - 1) + (match(i, jj) ? 0u : 1u), at(i - 1, jj) + 1, at(i, jj - 1) + 1, cap});
        dp[i * width + (jj + t - i)] = v;
      }
    }
    if (at(m, n) > t) {  // the distance does not fit: double the band
      t *= 2;
      continue;
    }
    ops.clear();
    std::uint64_t i = m, jj = n;
    while (i > 0 || jj > 0) {
      const std::uint32_t c = at(i, jj);
      if (i > 0 && jj > 0) {
        const bool eq = match(i, jj);
        if (c == at(i - 1, jj - 1) + (eq ? 0u : 1u)) {
          ops.push_back(eq ? '=' : 'X');
          --i, --jj;
          continue;
        }
      }
      if (i > 0 && c == at(i - 1, jj) + 1) {
        ops.push_back('I');
        --i;
      } else {
        ops.push_back('D');
        --jj;
      }
    }
    std::reverse(ops.begin(), ops.end());
    return true;
  }
}

}  // namespace trawl::approx_detail
