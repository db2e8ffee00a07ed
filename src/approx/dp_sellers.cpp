// dp_sellers.cpp — Sellers' dynamic programming (1980), the plain reference engine:
// one column of m+1 cells per text byte, row 0 kept at 0 so a match may start anywhere.
// O(n·m) time, O(m) space.
#include <algorithm>
#include <numeric>
#include <vector>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

void scan_dp_sellers(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                     std::size_t to, std::uint32_t k, end_sink& sink) {
  std::vector<std::uint32_t> col(p.m + 1);
  std::iota(col.begin(), col.end(), 0u);  // column "before" the text: D[i] = i
  for (std::size_t j = from; j < to; ++j) {
    const auto c = static_cast<unsigned char>(seq[j]);
    std::uint32_t diag = 0;  // D[0][j-1]: row 0 is always 0
    for (std::size_t i = 1; i <= p.m; ++i) {
      const std::uint32_t up = col[i];  // D[i][j-1]
      const std::uint32_t sub = diag + (p.match(i - 1, c) ? 0u : 1u);
      col[i] = std::min({sub, up + 1, col[i - 1] + 1});
      diag = up;
    }
    if (j >= report_from && col[p.m] <= k) sink.on_end(j, col[p.m]);
  }
}

}  // namespace trawl::approx_detail
