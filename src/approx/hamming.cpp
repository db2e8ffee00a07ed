// hamming.cpp — Hamming-distance search: mismatches of P against every full window, counted
// byte by byte with an early exit after k+1 mismatches. O(n·m) worst, O(n·(k+1)/q) expected
// (q = mismatch probability).
#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

void scan_hamming(const compiled_pattern& p, std::string_view seq, std::size_t from, std::size_t report_from,
                  std::size_t to, std::uint32_t k, end_sink& sink) {
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  // The first full window ends at from + m - 1 (bytes before `from` are not ours to read).
  std::size_t j = std::max(report_from, from + p.m - 1);
  for (; j < to; ++j) {
    const std::size_t z = j + 1 - p.m;
    std::uint32_t mism = 0;
    for (std::size_t i = 0; i < p.m && mism <= k; ++i) mism += p.match(i, text[z + i]) ? 0u : 1u;
    if (mism <= k) sink.on_end(j, mism);
  }
}

}  // namespace trawl::approx_detail
