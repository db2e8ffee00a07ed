// best_wavefront.cpp — best approximate substring by the anti-diagonal wavefront DP: cells
// (i, c) with i + c = d depend only on diagonals d-1 and d-2, so three rolling anti-diagonals
// suffice and every cell of one diagonal is independent (vectorizable). Each cell carries
// (distance, leftmost start) packed in one 64-bit key so a single min picks the smaller
// distance and, on ties, the leftmost start. O(|X|·L) time, O(|X|) space for a window of L.
#include <algorithm>
#include <vector>

#include "approx/approx_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::approx_detail {
namespace {

constexpr int off_bits = 40;  // key = distance << 40 | (start - ctx)
constexpr std::uint64_t one_error = std::uint64_t{1} << off_bits;
constexpr std::uint64_t off_mask = one_error - 1;

}  // namespace

best_piece best_piece_wavefront(std::string_view x, std::string_view y, std::size_t ctx, std::size_t lo,
                                std::size_t hi) {
  const std::size_t m = x.size();
  const std::size_t len = hi - ctx;  // columns 1..len are y[ctx .. hi)
  if (m >= (std::size_t{1} << 23) || len >= off_mask)
    throw error(errc::invalid_argument, "input too large for the wavefront engine");
  // diag[d % 3][i] holds cell (i, d - i). Column c = 0 is "before" the window; row 0 is free.
  std::vector<std::uint64_t> ring[3];
  for (auto& r : ring) r.assign(m + 1, 0);
  const auto* xs = reinterpret_cast<const unsigned char*>(x.data());
  const auto* ys = reinterpret_cast<const unsigned char*>(y.data()) + ctx;
  best_piece r;
  std::uint64_t best_key_d = ~std::uint64_t{0};
  std::vector<std::uint64_t> best_ends;  // (end j, start) pairs kept below
  std::vector<std::uint64_t> best_starts;
  for (std::size_t d = 0; d <= m + len; ++d) {
    std::uint64_t* cur = ring[d % 3].data();
    const std::uint64_t* prev = ring[(d + 2) % 3].data();   // d - 1
    const std::uint64_t* prev2 = ring[(d + 1) % 3].data();  // d - 2
    const std::size_t i_lo = d > len ? d - len : 0;
    const std::size_t i_hi = std::min(m, d);
    if (d == 0) {  // cell (0, 0): distance 0, start ctx
      cur[0] = 0;
      continue;
    }
    // Row 0 (when on this diagonal): distance 0, the substring starts at y[ctx + d].
    if (i_lo == 0) cur[0] = static_cast<std::uint64_t>(d);
    // Column 0 (i == d, when d <= m): d deletions of x, empty substring starting at ctx.
    if (i_hi == d) cur[d] = static_cast<std::uint64_t>(d) << off_bits;
    // Interior cells: i >= 1 and c = d - i >= 1.
    const std::size_t a = std::max<std::size_t>(i_lo, 1);
    const std::size_t b = std::min(i_hi, d - 1);
    for (std::size_t i = a; i <= b; ++i) {
      const std::size_t c = d - i;
      // diag (i-1, c-1) is on d-2; up (i-1, c) and left (i, c-1) are on d-1.
      const std::uint64_t cost = xs[i - 1] == ys[c - 1] ? 0 : one_error;
      cur[i] = std::min({prev2[i - 1] + cost, prev[i - 1] + one_error, prev[i] + one_error});
    }
    // Row m, column c = d - m is end j = ctx + c - 1 of y.
    if (d >= m + 1 && d - m <= len) {
      const std::size_t c = d - m;
      const std::uint64_t j = ctx + c - 1;
      if (j >= lo) {
        const std::uint64_t key = cur[m];
        const std::uint64_t dist = key >> off_bits;
        if (dist < best_key_d) {
          best_key_d = dist;
          best_ends.clear();
          best_starts.clear();
        }
        if (dist == best_key_d) {
          best_ends.push_back(j);
          best_starts.push_back(ctx + (key & off_mask));
        }
      }
    }
  }
  r.distance = static_cast<std::uint32_t>(best_key_d);
  for (std::size_t t = 0; t < best_ends.size(); ++t)
    r.occurrences.push_back(hit{best_starts[t], best_ends[t] + 1, 0, r.distance, strand::forward});
  return r;
}

}  // namespace trawl::approx_detail
