// simd_serial.cpp — the portable SIMD-filter engine: SSE2 (the x86-64 baseline) 16 window
// starts per step, or a scalar first/last-byte filter on other CPUs. Always compiled; the
// reference backend every wider one is tested against. O(n·K/16) filter + verification.
#include "exact/engines.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trawl::exact_detail {

void find_simd_serial(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                      std::vector<std::uint64_t>& out) {
  const std::size_t n = text.size();
  const std::size_t m = p.pat.size();
  if (m > n) return;
  const std::size_t end = std::min(to, n - m + 1);
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  std::size_t i = from;
#if defined(__SSE2__)
  const int K = p.filter_count;
  __m128i want[compiled_pattern::max_filter];
  __m128i fold[compiled_pattern::max_filter];
  for (int k = 0; k < K; ++k) {
    const auto c = static_cast<unsigned char>(p.pat[p.filter_offset[static_cast<std::size_t>(k)]]);
    const bool letter = p.fold && c >= 'a' && c <= 'z';  // see simd_avx2.cpp on folding
    want[k] = _mm_set1_epi8(static_cast<char>(c));
    fold[k] = _mm_set1_epi8(letter ? 0x20 : 0);
  }
  for (; i + 16 <= end; i += 16) {
    unsigned mask = 0xffffu;
    for (int k = 0; k < K; ++k) {
      const __m128i x = _mm_loadu_si128(
          reinterpret_cast<const __m128i*>(t + i + p.filter_offset[static_cast<std::size_t>(k)]));
      mask &= static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_or_si128(x, fold[k]), want[k])));
    }
    while (mask != 0) {
      const std::size_t s = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (verify(p, t + s)) out.push_back(s);
      mask &= mask - 1;
    }
  }
#endif
  // Scalar filter: compare the last byte first (cheap reject), then verify the window.
  const auto last = static_cast<unsigned char>(p.pat[m - 1]);
  for (; i < end; ++i)
    if (p.tr[t[i + m - 1]] == last && verify(p, t + i)) out.push_back(i);
}

}  // namespace trawl::exact_detail
