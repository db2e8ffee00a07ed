// faulted.cpp — growing a large buffer with its pages faulted in on every core (faulted.hpp).
#include "common/faulted.hpp"

#include <sys/mman.h>

#include <tbb/parallel_for.h>

#include <algorithm>
#include <cstdint>

namespace trawl {

void resize_faulted(std::string& s, std::size_t n) {
#ifndef MADV_POPULATE_WRITE
  constexpr int MADV_POPULATE_WRITE = 23;
#endif
  constexpr std::size_t part = std::size_t{8} << 20, page = 4096;
  if (n > s.size() + 2 * part) {
    s.reserve(n);
    const auto lo = reinterpret_cast<std::uintptr_t>(s.data() + s.size() + page - 1) & ~std::uintptr_t{page - 1};
    const auto hi = reinterpret_cast<std::uintptr_t>(s.data() + n) & ~std::uintptr_t{page - 1};
    tbb::parallel_for(std::uintptr_t{0}, (hi - lo + part - 1) / part, [&](std::uintptr_t i) {
      const std::uintptr_t a = lo + i * part;
      madvise(reinterpret_cast<void*>(a), std::min<std::uintptr_t>(part, hi - a), MADV_POPULATE_WRITE);
    });
  }
  s.resize(n);
}

}  // namespace trawl
