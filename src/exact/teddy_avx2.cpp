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
  const auto buckets = [&](std::size_t at) {  // the buckets of text[at, at + 32)
    __m256i hit = _mm256_set1_epi8(-1);
    for (unsigned k = 0; k < F; ++k) {
      const __m256i c = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + at + k));
      const __m256i l = _mm256_shuffle_epi8(lo[k], _mm256_and_si256(c, nibble));
      const __m256i h = _mm256_shuffle_epi8(hi[k], _mm256_and_si256(_mm256_srli_epi16(c, 4), nibble));
      hit = _mm256_and_si256(hit, _mm256_and_si256(l, h));
    }
    return hit;
  };
  const auto nonzero = [](__m256i v) {
    return ~static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(v, _mm256_setzero_si256())));
  };
  std::size_t s = first;
  // two independent halves a step (one branch per 64 bytes); a step reads text[s, s + 64 + F - 1)
  for (; s + 32 < stop && s + 64 + F - 1 <= limit; s += 64) {
    const __m256i h0 = buckets(s), h1 = buckets(s + 32);
    const std::uint64_t any = std::uint64_t{nonzero(h0)} | std::uint64_t{nonzero(h1)} << 32;
    if (any == 0) continue;
    alignas(32) std::uint8_t b[64];
    _mm256_store_si256(reinterpret_cast<__m256i*>(b), h0);
    _mm256_store_si256(reinterpret_cast<__m256i*>(b + 32), h1);
    teddy_emit(any, b, s, stop, out);
  }
  // a step reads text[s, s + 32 + F - 1)
  for (; s < stop && s + 32 + F - 1 <= limit; s += 32) {
    const __m256i hit = buckets(s);
    const std::uint32_t any = nonzero(hit);
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
