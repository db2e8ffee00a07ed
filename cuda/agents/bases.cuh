// cuda/agents/bases.cuh — genome bytes as base bits, as the host's detail::base_bit reads them
// (A 1, C 2, G 4, T 8 in either case; every other byte, N included, matches nothing).
#pragma once

#include <cstdint>

namespace trawl::cuda {

/// A genome byte's base bit; 0 for a byte that is not a base.
__device__ __forceinline__ unsigned base_bit(unsigned char c) {
  switch (c | 0x20) {  // (c | 0x20) is a lower-case base only for that base in either case
    case 'a': return 1;
    case 'c': return 2;
    case 'g': return 4;
    case 't': return 8;
    default: return 0;
  }
}

/// A base bit on the reverse strand: its complement's.
__device__ __forceinline__ unsigned complement_bit(unsigned b) {
  return ((b & 1u) << 3) | ((b & 2u) << 1) | ((b & 4u) >> 1) | ((b & 8u) >> 3);
}

}  // namespace trawl::cuda
