// simd_avx512.cpp — exact search by a SIMD candidate filter, 64 window starts per step
// (AVX-512BW). O(n·K/64) filter + verification; compiled with -mavx512bw, called only after a
// run-time CPU check. Same algorithm as simd_avx2.cpp (after W. Muła 2016).
#include <immintrin.h>

#include "exact/engines.hpp"

namespace trawl::exact_detail {
namespace {

template <int K>
void scan(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
          std::vector<std::uint64_t>& out) {
  const std::size_t n = text.size();
  const std::size_t m = p.pat.size();
  if (m > n) return;
  const std::size_t end = std::min(to, n - m + 1);
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  __m512i want[K];
  __m512i fold[K];
  for (int k = 0; k < K; ++k) {
    const auto c = static_cast<unsigned char>(p.pat[p.filter_offset[static_cast<std::size_t>(k)]]);
    const bool letter = p.fold && c >= 'a' && c <= 'z';  // see simd_avx2.cpp on folding
    want[k] = _mm512_set1_epi8(static_cast<char>(c));
    fold[k] = _mm512_set1_epi8(letter ? 0x20 : 0);
  }
  std::size_t i = from;
  for (; i + 64 <= end; i += 64) {
    __mmask64 mask = ~__mmask64{0};
    for (int k = 0; k < K; ++k) {
      const __m512i x = _mm512_loadu_si512(t + i + p.filter_offset[static_cast<std::size_t>(k)]);
      mask = _mm512_mask_cmpeq_epi8_mask(mask, _mm512_or_si512(x, fold[k]), want[k]);
    }
    std::uint64_t bits = mask;
    while (bits != 0) {
      const std::size_t s = i + static_cast<std::size_t>(__builtin_ctzll(bits));
      if (verify(p, t + s)) out.push_back(s);
      bits &= bits - 1;
    }
  }
  for (; i < end; ++i)
    if (verify(p, t + i)) out.push_back(i);
}

}  // namespace

void find_simd_avx512(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                      std::vector<std::uint64_t>& out) {
  if (p.filter_count == 4) scan<4>(p, text, from, to, out);
  else scan<2>(p, text, from, to, out);
}

}  // namespace trawl::exact_detail
