// count_byte.hpp — how many times a byte occurs in a buffer: 16 bytes a step (SSE2, every
// x86-64 CPU), the per-lane counts summed every 255 steps.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trawl::detail {

inline std::uint64_t count_byte(const char* p, std::size_t n, char c) {
  std::uint64_t total = 0;
  std::size_t i = 0;
#if defined(__SSE2__)
  const __m128i want = _mm_set1_epi8(c), zero = _mm_setzero_si128();
  while (i + 16 <= n) {
    const std::size_t steps = std::min<std::size_t>(255, (n - i) / 16);
    __m128i lanes = zero;  // each byte lane counts up to 255 matches
    for (std::size_t s = 0; s < steps; ++s, i += 16)
      lanes = _mm_sub_epi8(lanes, _mm_cmpeq_epi8(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p + i)), want));
    const __m128i sums = _mm_sad_epu8(lanes, zero);
    total += static_cast<std::uint64_t>(_mm_cvtsi128_si64(sums)) +
             static_cast<std::uint64_t>(_mm_cvtsi128_si64(_mm_unpackhi_epi64(sums, sums)));
  }
#endif
  for (; i < n; ++i) total += p[i] == c ? 1 : 0;
  return total;
}

}  // namespace trawl::detail
