// kmer_set_avx2.cpp — the q-mer filter scan with BMI2: one pext per 8 bases packs a key.
// Compiled with the AVX2 set (BMI2 included); called only after a CPU check.
#include <immintrin.h>

#include <cstring>

#include "exact/kmer_set.hpp"

namespace trawl::exact_detail {

void kmer_candidates_bmi2(const kmer_filter& f, const unsigned char* text, std::size_t first, std::size_t stop,
                          std::size_t limit, std::vector<std::uint64_t>& out) {
  constexpr std::uint64_t code_bits = 0x0606060606060606ULL;  // bits 1-2 of each byte
  const std::size_t w = f.w;
  const unsigned q = f.q;
  const std::uint32_t mask = q >= 16 ? 0xffffffffU : (std::uint32_t{1} << (2 * q)) - 1;
  std::size_t t = (first + w - 1) / w * w;
  // 16 bytes are loaded at every sample: the tail goes to the portable loop.
  const std::size_t fast_end = limit >= 16 ? std::min(stop, limit - 15) : 0;
  for (; t < fast_end; t += w) {
    std::uint64_t lo, hi;
    std::memcpy(&lo, text + t, 8);
    std::memcpy(&hi, text + t + 8, 8);
    const auto key = static_cast<std::uint32_t>(_pext_u64(lo, code_bits) | (_pext_u64(hi, code_bits) << 16)) & mask;
    if (f.test(key)) out.push_back(t);
  }
  if (t < stop) kmer_candidates_serial(f, text, t, stop, limit, out);
}

}  // namespace trawl::exact_detail
