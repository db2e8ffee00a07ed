// teddy_avx2.cpp — the Teddy filter, 32 text bytes a step (teddy.hpp). Compiled with the AVX2
// set; called only after a CPU check.
#include <immintrin.h>

#include "exact/teddy.hpp"

namespace trawl::exact_detail {
namespace {

template <unsigned F>
void scan(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop, std::size_t limit,
          std::vector<teddy_candidate>& out) {
  __m256i lo[F], hi[F];
  for (unsigned k = 0; k < F; ++k) {
    lo[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(m.lo[k].data())));
    hi[k] = _mm256_broadcastsi128_si256(_mm_loadu_si128(reinterpret_cast<const __m128i*>(m.hi[k].data())));
  }
  const __m256i nibble = _mm256_set1_epi8(0x0f);
  std::size_t s = first;
  // a step reads text[s, s + 32 + F - 1)
  for (; s < stop && s + 32 + F - 1 <= limit; s += 32) {
    __m256i hit = _mm256_set1_epi8(-1);
    for (unsigned k = 0; k < F; ++k) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + s + k));
      const __m256i l = _mm256_shuffle_epi8(lo[k], _mm256_and_si256(c, nibble));
      const __m256i h = _mm256_shuffle_epi8(hi[k], _mm256_and_si256(_mm256_srli_epi16(c, 4), nibble));
      hit = _mm256_and_si256(hit, _mm256_and_si256(l, h));
    }
    const auto any = ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(hit, _mm256_setzero_si256())));
    if (any == 0) continue;
    alignas(32) std::uint8_t b[32];
    _mm256_store_si256(reinterpret_cast<__m256i*>(b), hit);
    teddy_emit(any, b, s, stop, out);
  }
  if (s < stop) teddy_candidates_serial(m, text, s, stop, limit, out);
}

}  // namespace

void teddy_candidates_avx2(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                           std::size_t limit, std::vector<teddy_candidate>& out) {
  switch (m.f) {
    case 1: return scan<1>(m, text, first, stop, limit, out);
    case 2: return scan<2>(m, text, first, stop, limit, out);
    default: return scan<3>(m, text, first, stop, limit, out);
  }
}

}  // namespace trawl::exact_detail
