// teddy_avx512.cpp — the Teddy filter, 64 text bytes a step (teddy.hpp). Compiled with the
// AVX-512 set (BW for the byte shuffle); called only after a CPU check.
#include <immintrin.h>

#include "exact/teddy.hpp"

namespace trawl::exact_detail {
namespace {

template <unsigned F>
void scan(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop, std::size_t limit,
          std::vector<teddy_candidate>& out) {
  __m512i lo[F], hi[F];
  for (unsigned k = 0; k < F; ++k) {  // the 16-entry tables in every 128-bit lane
    alignas(64) std::uint8_t l4[64], h4[64];
    for (unsigned i = 0; i < 64; ++i) l4[i] = m.lo[k][i % 16], h4[i] = m.hi[k][i % 16];
    lo[k] = _mm512_load_si512(l4);
    hi[k] = _mm512_load_si512(h4);
  }
  const __m512i nibble = _mm512_set1_epi8(0x0f);
  std::size_t s = first;
  // a step reads text[s, s + 64 + F - 1)
  for (; s < stop && s + 64 + F - 1 <= limit; s += 64) {
    __m512i hit = _mm512_set1_epi8(-1);
    for (unsigned k = 0; k < F; ++k) {
      const __m512i c = _mm512_loadu_si512(text + s + k);
      const __m512i l = _mm512_shuffle_epi8(lo[k], _mm512_and_si512(c, nibble));
      const __m512i h = _mm512_shuffle_epi8(hi[k], _mm512_and_si512(_mm512_srli_epi16(c, 4), nibble));
      hit = _mm512_and_si512(hit, _mm512_and_si512(l, h));
    }
    const std::uint64_t any = _mm512_test_epi8_mask(hit, hit);
    if (any == 0) continue;
    alignas(64) std::uint8_t b[64];
    _mm512_store_si512(b, hit);
    teddy_emit(any, b, s, stop, out);
  }
  if (s < stop) teddy_candidates_serial(m, text, s, stop, limit, out);
}

}  // namespace

void teddy_candidates_avx512(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                             std::size_t limit, std::vector<teddy_candidate>& out) {
  switch (m.f) {
    case 1: return scan<1>(m, text, first, stop, limit, out);
    case 2: return scan<2>(m, text, first, stop, limit, out);
    default: return scan<3>(m, text, first, stop, limit, out);
  }
}

}  // namespace trawl::exact_detail
