// kmer_set.hpp — internal: the sampled q-mer filter of the DNA pattern-set matcher
// (kmer_set.cpp). Not installed.
//
// Every literal is at least `min_len` bases long, so an occurrence starting at s contains the
// q-mer at the one sample position t in [s, s + w), t a multiple of w = min_len - q + 1, at
// offset t - s < w. The filter holds the q-mers at offsets 0..w-1 of every literal; a scan
// packs the text's q-mer at every w-th position into 2 bits per base and tests one bit of a
// 4^q-bit table, so it reads ~q/w bytes per text byte. A base's code is (byte >> 1) & 3,
// which tells A, C, G, T apart in either case; other bytes get codes too, and a candidate is
// only a candidate: the matcher checks it against the literals byte by byte.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace trawl::exact_detail {

struct kmer_filter {
  unsigned q = 0;  ///< bases per key (1-16)
  unsigned w = 1;  ///< sample step
  std::vector<std::uint64_t> bits;  ///< 4^q bits: the keys some literal has at an offset < w

  [[nodiscard]] bool test(std::uint32_t key) const { return (bits[key >> 6] >> (key & 63)) & 1; }
};

/// The key of the q bases at p (portable).
inline std::uint32_t kmer_key(const unsigned char* p, unsigned q) {
  std::uint32_t key = 0;
  for (unsigned i = 0; i < q; ++i) key |= static_cast<std::uint32_t>((p[i] >> 1) & 3) << (2 * i);
  return key;
}

/// Appends the sample positions t (multiples of f.w) with first <= t and t + f.q <= limit,
/// t < stop, whose key is in the filter, ascending. Reads text[first, limit). Serial or BMI2
/// below; the dispatch table (common/dispatch.hpp) holds the level's.
using kmer_candidates_fn = void (*)(const kmer_filter& f, const unsigned char* text, std::size_t first,
                                    std::size_t stop, std::size_t limit, std::vector<std::uint64_t>& out);
void kmer_candidates_serial(const kmer_filter& f, const unsigned char* text, std::size_t first, std::size_t stop,
                            std::size_t limit, std::vector<std::uint64_t>& out);
/// Same, with BMI2's pext (kmer_set_avx2.cpp; an AVX2-level CPU only).
void kmer_candidates_bmi2(const kmer_filter& f, const unsigned char* text, std::size_t first, std::size_t stop,
                          std::size_t limit, std::vector<std::uint64_t>& out);

}  // namespace trawl::exact_detail
