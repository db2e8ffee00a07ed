// twobit_format.hpp — what the .2bit reader (twobit.cpp) and writer (twobit_write.cpp) share:
// the file's signature and a run of bases (an N or mask block).
#pragma once

#include <cstdint>

namespace trawl::io::twobit_format {

inline constexpr std::uint32_t signature = 0x1A412743;

/// Bases [start, end) of a sequence.
struct block {
  std::uint64_t start, end;
};

}  // namespace trawl::io::twobit_format
