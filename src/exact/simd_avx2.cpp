// simd_avx2.cpp — exact search by a SIMD candidate filter, 32 window starts per step (AVX2).
// O(n·K/32) filter + verification of candidates; compiled with -mavx2, called only after a
// run-time CPU check. Generic SIMD algorithm after W. Muła, "SIMD-friendly algorithms for
// substring searching" (2016), with K = 2 or 4 compared pattern bytes.
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
  __m256i want[K];
  __m256i fold[K];
  for (int k = 0; k < K; ++k) {
    const auto c = static_cast<unsigned char>(p.pat[p.filter_offset[static_cast<std::size_t>(k)]]);
    // Folding: OR-ing 0x20 maps 'A'..'Z' onto 'a'..'z' and no other byte onto a letter, so
    // (x | 0x20) == c is exact for a lowercase letter c; other bytes compare as they are.
    const bool letter = p.fold && c >= 'a' && c <= 'z';
    want[k] = _mm256_set1_epi8(static_cast<char>(c));
    fold[k] = _mm256_set1_epi8(letter ? 0x20 : 0);
  }
  std::size_t i = from;
  for (; i + 32 <= end; i += 32) {
    // mask bit b: window i+b agrees with the pattern at every filter offset.
    std::uint32_t mask = ~0u;
    for (int k = 0; k < K; ++k) {
      const __m256i x = _mm256_loadu_si256(
          reinterpret_cast<const __m256i*>(t + i + p.filter_offset[static_cast<std::size_t>(k)]));
      mask &= static_cast<std::uint32_t>(_mm256_movemask_epi8(_mm256_cmpeq_epi8(_mm256_or_si256(x, fold[k]), want[k])));
    }
    while (mask != 0) {
      const std::size_t s = i + static_cast<std::size_t>(__builtin_ctz(mask));
      if (verify(p, t + s)) out.push_back(s);
      mask &= mask - 1;
    }
  }
  for (; i < end; ++i)
    if (verify(p, t + i)) out.push_back(i);
}

}  // namespace

void find_simd_avx2(const compiled_pattern& p, std::string_view text, std::size_t from, std::size_t to,
                    std::vector<std::uint64_t>& out) {
  if (p.filter_count == 4) scan<4>(p, text, from, to, out);
  else scan<2>(p, text, from, to, out);
}

}  // namespace trawl::exact_detail
