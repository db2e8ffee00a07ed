// dna_pack_avx2.cpp — the DNA packer (dna_pack.hpp) 32 bytes a step (AVX2); a step of only
// lower-case bases, or of one repeated byte, extends a run without looking at its bytes.
// Compiled with -mavx2, called only through the dispatch table of a CPU that has it.
#include <immintrin.h>

#include "common/dna_pack.hpp"
#include "common/dna_pack_runs.hpp"

namespace trawl::dna_pack {

std::size_t pack_avx2(const char* text, std::size_t n, std::uint8_t* packed, run* runs, std::size_t cap,
                      std::uint32_t pos0) {
  const auto* t = reinterpret_cast<const unsigned char*>(text);
  detail::run_list list(runs, cap, pos0);
  const __m256i three = _mm256_set1_epi8(3);
  const __m256i pairs = _mm256_set1_epi16(0x0401);     // code0 + 4 * code1 per 16 bits
  const __m256i quads = _mm256_set1_epi32(0x00100001);  // pair0 + 16 * pair1 per 32 bits
  const __m256i low_bytes = _mm256_setr_epi8(0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1,  //
                                             0, 4, 8, 12, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1);
  const auto is = [](__m256i v, char c) { return _mm256_cmpeq_epi8(v, _mm256_set1_epi8(c)); };
  std::size_t i = 0;
  for (; i + 32 <= n; i += 32) {
    const __m256i v = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(t + i));
    const __m256i codes = _mm256_and_si256(_mm256_srli_epi16(v, 1), three);
    const __m256i four = _mm256_shuffle_epi8(_mm256_madd_epi16(_mm256_maddubs_epi16(codes, pairs), quads), low_bytes);
    const auto lo = static_cast<std::uint32_t>(_mm256_cvtsi256_si32(four));
    const auto hi = static_cast<std::uint32_t>(_mm256_extract_epi32(four, 4));
    std::memcpy(packed + i / 4, &lo, 4);
    std::memcpy(packed + i / 4 + 4, &hi, 4);
    const __m256i upper = _mm256_or_si256(_mm256_or_si256(is(v, 'A'), is(v, 'C')), _mm256_or_si256(is(v, 'G'), is(v, 'T')));
    if (static_cast<std::uint32_t>(_mm256_movemask_epi8(upper)) == ~0u) continue;
    const __m256i lower = _mm256_or_si256(_mm256_or_si256(is(v, 'a'), is(v, 'c')), _mm256_or_si256(is(v, 'g'), is(v, 't')));
    bool ok;
    if (static_cast<std::uint32_t>(_mm256_movemask_epi8(lower)) == ~0u)
      ok = list.add(i, 32, true, 0);
    else if (static_cast<std::uint32_t>(_mm256_movemask_epi8(is(v, static_cast<char>(t[i])))) == ~0u)
      ok = list.add(i, 32, false, t[i]);  // one byte, neither an upper- nor a lower-case base
    else
      ok = detail::add_bytes(t, i, i + 32, list);
    if (!ok) return failed;
  }
  return detail::pack_words(t, i, n, packed, list) ? list.count() : failed;
}

}  // namespace trawl::dna_pack
