// pigeon_filter_avx2.cpp — finds exact occurrences of the pigeonhole pieces 32 text positions
// at a time: four probe bytes of the piece (first, second, middle, last) are compared at once,
// and only positions where all four agree are checked in full (Muła's "generic SIMD" substring
// search). O(n·pieces/32) vector steps plus O(len) per probe match.
#include <immintrin.h>

#include <cstring>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

void find_pieces_avx2(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                      std::string_view pattern, std::span<const filter_piece> pieces,
                      std::vector<std::int64_t>& anchors) {
  for (const filter_piece& pc : pieces) {
    const auto* piece = reinterpret_cast<const unsigned char*>(pattern.data()) + pc.off;
    const std::size_t len = pc.len;
    if (len < 4 || hi - lo < len + 32) {  // too short to probe, or too little text: serial
      find_pieces_serial(text, lo, s_end, hi, pattern, {&pc, 1}, anchors);
      continue;
    }
    const std::size_t p1 = 1, p2 = len / 2, p3 = len - 1;
    const __m256i b0 = _mm256_set1_epi8(static_cast<char>(piece[0]));
    const __m256i b1 = _mm256_set1_epi8(static_cast<char>(piece[p1]));
    const __m256i b2 = _mm256_set1_epi8(static_cast<char>(piece[p2]));
    const __m256i b3 = _mm256_set1_epi8(static_cast<char>(piece[p3]));
    auto load = [&](std::size_t at) { return _mm256_loadu_si256(reinterpret_cast<const __m256i*>(text + at)); };
    std::size_t s = lo;
    // Whole blocks: starts s..s+31 with every probe load inside [lo, hi).
    for (; s + 32 <= s_end && s + p3 + 32 <= hi; s += 32) {
      const __m256i e0 = _mm256_cmpeq_epi8(load(s), b0);
      const __m256i e1 = _mm256_cmpeq_epi8(load(s + p1), b1);
      const __m256i e2 = _mm256_cmpeq_epi8(load(s + p2), b2);
      const __m256i e3 = _mm256_cmpeq_epi8(load(s + p3), b3);
      auto mask = static_cast<std::uint32_t>(
          _mm256_movemask_epi8(_mm256_and_si256(_mm256_and_si256(e0, e1), _mm256_and_si256(e2, e3))));
      while (mask != 0) {  // for each candidate start, lowest first
        const std::size_t at = s + static_cast<std::size_t>(__builtin_ctz(mask));
        mask &= mask - 1;
        if (same_bytes(text + at, piece, len))
          anchors.push_back(static_cast<std::int64_t>(at) - static_cast<std::int64_t>(pc.off));
      }
    }
    // The tail, byte by byte.
    for (; s < s_end && s + len <= hi; ++s)
      if (text[s] == piece[0] && same_bytes(text + s, piece, len))
        anchors.push_back(static_cast<std::int64_t>(s) - static_cast<std::int64_t>(pc.off));
  }
}

}  // namespace trawl::approx_detail
