// dna_pack.hpp — DNA text in two bits a base, for the trip to the GPU: the packed bases and a
// list of runs that give back every byte they do not (lower case, N, IUPAC codes, anything).
//
// Format of n text bytes: packed byte j holds the codes of bytes 4j .. 4j+3, the first in the
// low bits; a byte's code is (byte >> 1) & 3, so A/a 0, C/c 1, T/t 2, G/g 3. The text is the
// upper-case letters "ACTG"[code], then each run applied: `lower` runs set their bytes to
// lower case (they hold only a/c/g/t), the others set every byte of [pos, pos + len) to
// `byte`. Runs are disjoint, in text order, at most max_run bytes each. Both the host
// (packing) and the device (cuda/kernels/unpack.cu) read this header.
#pragma once

#include <cstddef>
#include <cstdint>

namespace trawl::dna_pack {

struct run {
  std::uint32_t pos;   ///< first byte, counted from the packed text's first byte
  std::uint16_t len;   ///< bytes, 1 .. max_run
  std::uint8_t byte;   ///< every byte of the run, unless `lower`
  std::uint8_t lower;  ///< 1: the bases' own letters in lower case
};
static_assert(sizeof(run) == 8);

constexpr std::size_t max_run = 32768;

/// Packs text[0, n) into packed[0, (n + 3) / 4) and its runs into runs[0, cap), positions
/// counted from `pos0`. Returns the number of runs, or `failed` when more than `cap` are
/// needed (the text is not DNA enough to pack; packed and runs then hold garbage).
using pack_fn = std::size_t (*)(const char* text, std::size_t n, std::uint8_t* packed, run* runs, std::size_t cap,
                                std::uint32_t pos0);
constexpr std::size_t failed = ~std::size_t{0};

std::size_t pack_serial(const char* text, std::size_t n, std::uint8_t* packed, run* runs, std::size_t cap,
                        std::uint32_t pos0);
std::size_t pack_avx2(const char* text, std::size_t n, std::uint8_t* packed, run* runs, std::size_t cap,
                      std::uint32_t pos0);

}  // namespace trawl::dna_pack
