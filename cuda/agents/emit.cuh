// cuda/agents/emit.cuh — appending a candidate to a device list with one atomic per warp.
// Warp-aggregated atomics (CUDA Programming Guide / "CUDA Pro Tip: optimized filtering with
// warp-aggregated atomics"): the active lanes elect a leader that reserves room for all of
// them. Entries past `capacity` are counted but not written, so the host can grow and retry.
#pragma once

#include <cstdint>

#include "api/backend.hpp"

namespace trawl::cuda {

/// Appends `value` to out[0, capacity) with one atomic on `count` per warp.
template <class T>
__device__ __forceinline__ void warp_append(T* out, unsigned long long* count, std::size_t capacity, const T& value) {
  const unsigned active = __activemask();
  const int lane = static_cast<int>(threadIdx.x & 31u);
  const int leader = __ffs(static_cast<int>(active)) - 1;
  unsigned long long base = 0;
  if (lane == leader) base = atomicAdd(count, static_cast<unsigned long long>(__popc(active)));
  base = __shfl_sync(active, base, leader);
  const unsigned long long idx = base + static_cast<unsigned>(__popc(active & ((1u << lane) - 1u)));
  if (idx < capacity) out[idx] = value;
}

__device__ __forceinline__ void emit_candidate(candidate* out, unsigned long long* count, std::size_t capacity,
                                               std::uint64_t pos, std::uint32_t task, std::uint32_t score) {
  warp_append(out, count, capacity, candidate{pos, task, score});
}

/// ASCII A-Z → a-z on four bytes at once (SIMD-within-a-word video instructions).
__device__ __forceinline__ std::uint32_t fold4(std::uint32_t w) {
  const std::uint32_t upper = __vcmpgeu4(w, 0x41414141u) & __vcmpleu4(w, 0x5a5a5a5au);
  return w | (upper & 0x20202020u);
}

__device__ __forceinline__ unsigned char fold1(unsigned char c) {
  return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c;
}

}  // namespace trawl::cuda
