// line_vector.hpp — vectors whose storage is whole cache lines of their own.
//
// A worker's scratch is written at every step of a scan. Allocated as a plain vector, a small
// buffer can share a cache line with another thread's (the allocator carves both from one
// chunk once memory has passed between threads), and the line then moves between cores on
// every write: the same code runs up to twice as long, depending only on where the heap put
// it. A line_vector's storage starts on a line and fills its last line, so no other data sits
// beside it.
#pragma once

#include <cstddef>
#include <new>
#include <vector>

namespace trawl::detail {

inline constexpr std::size_t cache_line = 64;

template <class T>
struct line_allocator {
  using value_type = T;
  line_allocator() = default;
  template <class U>
  constexpr line_allocator(const line_allocator<U>&) noexcept {}
  static constexpr std::size_t bytes(std::size_t n) noexcept {
    return (n * sizeof(T) + cache_line - 1) / cache_line * cache_line;
  }
  [[nodiscard]] T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(bytes(n), std::align_val_t{cache_line}));
  }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p, std::align_val_t{cache_line}); }
  template <class U>
  constexpr bool operator==(const line_allocator<U>&) const noexcept {
    return true;
  }
};

/// A thread's scratch buffer that shares no cache line with other data.
template <class T>
using line_vector = std::vector<T, line_allocator<T>>;

}  // namespace trawl::detail
