// teddy.hpp — internal: the Teddy filter of the small literal-set matcher (teddy.cpp). Not
// installed.
//
// Teddy (Langdale, Hyperscan; also the `aho-corasick` crate's packed searcher) puts each
// literal in one of 8 buckets and marks, for the first f bytes of the literals (f <= 3, the
// shortest literal's length at most), which buckets have a byte with a given low nibble and a
// given high nibble: two 16-entry tables per fingerprint byte, looked up for 32 or 64 text
// bytes at once with a byte shuffle. A position whose f bytes leave some bucket bit set in
// every table is a candidate for that bucket's literals; the matcher compares them byte by
// byte. The nibble tables over-approximate (a bucket's literals mix their nibbles), never
// miss.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace trawl::exact_detail {

struct teddy_masks {
  unsigned f = 1;  ///< fingerprint bytes, 1-3
  /// Per fingerprint byte k: the buckets whose literals have a byte with low nibble x at k
  /// (lo[k][x]), with high nibble x (hi[k][x]).
  std::array<std::array<std::uint8_t, 16>, 3> lo{}, hi{};
};

/// A candidate start and the buckets it is a candidate for.
struct teddy_candidate {
  std::uint64_t pos;
  std::uint8_t buckets;
};

/// Appends the candidates of one step of the SIMD scans at text position s: bit j of `any` is
/// set where b[j], the buckets of s + j, is not zero; those from `stop` on are another scan's.
inline void teddy_emit(std::uint64_t any, const std::uint8_t* b, std::size_t s, std::size_t stop,
                       std::vector<teddy_candidate>& out) {
  for (; any != 0; any &= any - 1) {
    const auto j = static_cast<std::size_t>(__builtin_ctzll(any));
    if (s + j >= stop) break;
    out.push_back({s + j, b[j]});
  }
}

/// Appends the candidates s with first <= s < stop and s + m.f <= limit, ascending. Reads
/// text[first, limit). One per SIMD level below; the dispatch table (common/dispatch.hpp)
/// holds the level's.
using teddy_candidates_fn = void (*)(const teddy_masks& m, const unsigned char* text, std::size_t first,
                                     std::size_t stop, std::size_t limit, std::vector<teddy_candidate>& out);
void teddy_candidates_serial(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                             std::size_t limit, std::vector<teddy_candidate>& out);
/// Same, 32 bytes a step (teddy_avx2.cpp; an AVX2-level CPU only).
void teddy_candidates_avx2(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                           std::size_t limit, std::vector<teddy_candidate>& out);
/// Same, 64 bytes a step (teddy_avx512.cpp; an AVX-512 (BW) CPU only).
void teddy_candidates_avx512(const teddy_masks& m, const unsigned char* text, std::size_t first, std::size_t stop,
                             std::size_t limit, std::vector<teddy_candidate>& out);

}  // namespace trawl::exact_detail
