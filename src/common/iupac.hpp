// iupac.hpp — the IUPAC nucleotide codes, one table for every engine. Not installed.
#pragma once

#include <algorithm>
#include <array>
#include <string>
#include <string_view>

namespace trawl::detail {

/// The DNA bases an IUPAC code stands for, as bits A = 1, C = 2, G = 4, T = 8 (U reads as T),
/// in either case; 0 for a byte that is not a code.
constexpr unsigned iupac_bits(unsigned char c) {
  switch (c >= 'a' && c <= 'z' ? c - 32 : c) {
    case 'A': return 1;
    case 'C': return 2;
    case 'G': return 4;
    case 'T': case 'U': return 8;
    case 'R': return 1 | 4;
    case 'Y': return 2 | 8;
    case 'S': return 2 | 4;
    case 'W': return 1 | 8;
    case 'K': return 4 | 8;
    case 'M': return 1 | 2;
    case 'B': return 2 | 4 | 8;
    case 'D': return 1 | 4 | 8;
    case 'H': return 1 | 2 | 8;
    case 'V': return 1 | 2 | 4;
    case 'N': return 15;
    default: return 0;
  }
}

/// A genome base as one bit (A, C, G, T in either case); N and every other byte match nothing.
constexpr unsigned base_bit(unsigned char c) {
  switch (c) {
    case 'A': case 'a': return 1;
    case 'C': case 'c': return 2;
    case 'G': case 'g': return 4;
    case 'T': case 't': return 8;
    default: return 0;
  }
}

/// IUPAC bits (A 1, C 2, G 4, T 8) of the complement: A <-> T, C <-> G.
constexpr unsigned complement_bits(unsigned b) {
  return ((b & 1u) << 3) | ((b & 2u) << 1) | ((b & 4u) >> 1) | ((b & 8u) >> 3);
}

/// base_bit of a genome byte read on the forward strand ([0]) and on the reverse one ([1]: the
/// complement, A <-> T and C <-> G).
inline constexpr auto strand_base_bits = [] {
  std::array<std::array<unsigned char, 256>, 2> t{};
  for (unsigned c = 0; c < 256; ++c) {
    const unsigned b = base_bit(static_cast<unsigned char>(c));
    t[0][c] = static_cast<unsigned char>(b);
    t[1][c] = static_cast<unsigned char>(complement_bits(b));
  }
  return t;
}();

/// True when s is not empty and each of its bytes is an IUPAC code.
inline bool iupac_sequence(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return iupac_bits(static_cast<unsigned char>(c)) != 0; });
}

/// s with its ASCII letters in upper case.
inline std::string ascii_upper(std::string_view s) {
  std::string r(s);
  for (char& c : r)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 32);
  return r;
}

}  // namespace trawl::detail
