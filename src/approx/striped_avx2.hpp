// striped_avx2.hpp — what the AVX2 kernels share (the striped Myers kernel,
// myers_striped_avx2.cpp, and the batched leftmost starts, starts_avx2.cpp): the Peq lookup by
// vpshufb per high nibble and the lane-width arithmetic on 8/16/32-bit lanes. Include only
// from files compiled with -mavx2.
#pragma once
#include <immintrin.h>

#include <cstdint>

namespace trawl::approx_detail::striped256 {

/// Peq tables of one high nibble: tab[b] = byte b of Peq for low nibbles 0-15 (both 128-bit halves).
struct nibble_tables {
  __m256i nib;  ///< the high nibble, broadcast
  __m256i tab[4];
};

/// One table set per high nibble at which some byte c has peq(c) != 0, into nt[0, 16);
/// returns how many.
template <class Peq>
int make_nibble_tables(Peq&& peq, nibble_tables nt[16]) {
  int ng = 0;
  for (int h = 0; h < 16; ++h) {
    bool any = false;
    alignas(32) std::uint8_t tab[4][32];
    for (int lo = 0; lo < 16; ++lo) {
      const auto e = static_cast<std::uint32_t>(peq(16 * h + lo));
      any = any || e != 0;
      for (int b = 0; b < 4; ++b) tab[b][lo] = tab[b][lo + 16] = static_cast<std::uint8_t>(e >> (8 * b));
    }
    if (!any) continue;
    nt[ng].nib = _mm256_set1_epi8(static_cast<char>(h));
    for (int b = 0; b < 4; ++b) nt[ng].tab[b] = _mm256_load_si256(reinterpret_cast<const __m256i*>(tab[b]));
    ++ng;
  }
  return ng;
}

/// Peq bytes (NB of them) of every byte of row x: the low nibble indexes the tables, the high
/// nibble selects among the NG (0: ng, known at run time) table sets; a byte whose high nibble
/// has none gets 0.
template <int NG, int NB>
[[gnu::always_inline]] inline void lookup(__m256i x, const nibble_tables* nt, int ng, __m256i acc[NB]) {
  const __m256i low4 = _mm256_set1_epi8(0x0F);
  const __m256i lo = _mm256_and_si256(x, low4);
  const __m256i hi = _mm256_and_si256(_mm256_srli_epi16(x, 4), low4);
  for (int b = 0; b < NB; ++b) acc[b] = _mm256_setzero_si256();
  const int n = NG > 0 ? NG : ng;
  for (int g = 0; g < n; ++g) {
    const __m256i sel = _mm256_cmpeq_epi8(hi, nt[g].nib);
    for (int b = 0; b < NB; ++b)
      acc[b] = _mm256_or_si256(acc[b], _mm256_and_si256(sel, _mm256_shuffle_epi8(nt[g].tab[b], lo)));
  }
}

// ---- lane-width arithmetic: W = 8, 16 or 32-bit lanes --------------------------------------
template <int W>
[[gnu::always_inline]] inline __m256i add(__m256i a, __m256i b) {
  if constexpr (W == 8) return _mm256_add_epi8(a, b);
  else if constexpr (W == 16) return _mm256_add_epi16(a, b);
  else return _mm256_add_epi32(a, b);
}
template <int W>
[[gnu::always_inline]] inline __m256i sub(__m256i a, __m256i b) {
  if constexpr (W == 8) return _mm256_sub_epi8(a, b);
  else if constexpr (W == 16) return _mm256_sub_epi16(a, b);
  else return _mm256_sub_epi32(a, b);
}
template <int W>
[[gnu::always_inline]] inline __m256i same(__m256i a, __m256i b) {  // a == b: all ones
  if constexpr (W == 8) return _mm256_cmpeq_epi8(a, b);
  else if constexpr (W == 16) return _mm256_cmpeq_epi16(a, b);
  else return _mm256_cmpeq_epi32(a, b);
}
template <int W>
[[gnu::always_inline]] inline __m256i greater(__m256i a, __m256i b) {  // signed
  if constexpr (W == 8) return _mm256_cmpgt_epi8(a, b);
  else if constexpr (W == 16) return _mm256_cmpgt_epi16(a, b);
  else return _mm256_cmpgt_epi32(a, b);
}
template <int W>
[[gnu::always_inline]] inline __m256i splat(std::uint32_t v) {
  if constexpr (W == 8) return _mm256_set1_epi8(static_cast<char>(v));
  else if constexpr (W == 16) return _mm256_set1_epi16(static_cast<short>(v));
  else return _mm256_set1_epi32(static_cast<int>(v));
}

}  // namespace trawl::approx_detail::striped256
