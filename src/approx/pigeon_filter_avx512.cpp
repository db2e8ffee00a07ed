// pigeon_filter_avx512.cpp — finds exact occurrences of the pigeonhole pieces 64 text
// positions at a time: six probe bytes of the piece are XORed with the text and ORed in a
// ternary-logic tree (AVX-512BW), so only positions where all agree are checked in full.
// O(n·pieces/64) vector steps plus O(len) per probe match.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"  // GCC 12 intrinsics, see myers_lanes_avx512.cpp
#include <immintrin.h>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

void find_pieces_avx512(const unsigned char* text, std::size_t lo, std::size_t s_end, std::size_t hi,
                        std::string_view pattern, std::span<const filter_piece> pieces,
                        std::vector<std::int64_t>& anchors) {
  for (const filter_piece& pc : pieces) {
    const auto* piece = reinterpret_cast<const unsigned char*>(pattern.data()) + pc.off;
    const std::size_t len = pc.len;
    if (len < 4 || hi - lo < len + 64) {  // too short to probe, or too little text: AVX2 / serial
      find_pieces_avx2(text, lo, s_end, hi, pattern, {&pc, 1}, anchors);
      continue;
    }
    // Probe offsets: first, second, last, middle and the quarter points (repeats are harmless).
    const std::size_t p1 = 1, p2 = len - 1, p3 = len / 2, p4 = len / 4, p5 = (3 * len) / 4;
    const __m512i w0 = _mm512_set1_epi8(static_cast<char>(piece[0]));
    const __m512i w1 = _mm512_set1_epi8(static_cast<char>(piece[p1]));
    const __m512i w2 = _mm512_set1_epi8(static_cast<char>(piece[p2]));
    const __m512i w3 = _mm512_set1_epi8(static_cast<char>(piece[p3]));
    const __m512i w4 = _mm512_set1_epi8(static_cast<char>(piece[p4]));
    const __m512i w5 = _mm512_set1_epi8(static_cast<char>(piece[p5]));
    auto diff = [&](std::size_t at, __m512i w) { return _mm512_xor_si512(_mm512_loadu_si512(text + at), w); };
    std::size_t s = lo;
    for (; s + 64 <= s_end && s + p2 + 64 <= hi; s += 64) {
      // A byte of x is 0 where the text equals the piece at that probe; OR the six probes
      // (ternary logic 0xFE = A | B | C) and keep the lanes where every probe was 0 — a
      // shallow tree instead of a chain of masked compares.
      const __m512i x = _mm512_ternarylogic_epi64(diff(s, w0), diff(s + p1, w1), diff(s + p2, w2), 0xFE);
      const __m512i y = _mm512_ternarylogic_epi64(diff(s + p3, w3), diff(s + p4, w4), diff(s + p5, w5), 0xFE);
      __mmask64 mask = _mm512_testn_epi8_mask(_mm512_or_si512(x, y), _mm512_or_si512(x, y));
      while (mask != 0) {
        const std::size_t at = s + static_cast<std::size_t>(__builtin_ctzll(mask));
        mask &= mask - 1;
        if (same_bytes(text + at, piece, len))
          anchors.push_back(static_cast<std::int64_t>(at) - static_cast<std::int64_t>(pc.off));
      }
    }
    for (; s < s_end && s + len <= hi; ++s)
      if (text[s] == piece[0] && same_bytes(text + s, piece, len))
        anchors.push_back(static_cast<std::int64_t>(s) - static_cast<std::int64_t>(pc.off));
  }
}

}  // namespace trawl::approx_detail

#pragma GCC diagnostic pop
