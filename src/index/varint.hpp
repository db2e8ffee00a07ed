// varint.hpp — LEB128 varints: seven bits a byte, low bits first, the high bit set on every
// byte but the last. The count index's run lengths (run_bwt.cpp) and the located positions'
// spill files (located_spill.cpp) are written this way.
#pragma once

#include <bit>
#include <cstdint>
#include <optional>

namespace trawl::index {

/// v as a varint, its bytes given to emit in order.
template <class Emit>
void put_varint(std::uint64_t v, Emit&& emit) {
  for (; v >= 0x80; v >>= 7) emit(static_cast<std::uint8_t>(v | 0x80));
  emit(static_cast<std::uint8_t>(v));
}

/// The bytes put_varint gives for v.
constexpr std::uint64_t varint_bytes(std::uint64_t v) { return (static_cast<std::uint64_t>(std::bit_width(v | 1)) + 6) / 7; }

/// A varint read a byte at a time from next() (which throws where there is none); nullopt when
/// it holds more than 64 bits.
template <class Next>
std::optional<std::uint64_t> get_varint(Next&& next) {
  std::uint64_t v = 0;
  for (unsigned shift = 0; shift < 63; shift += 7) {
    const auto b = static_cast<std::uint8_t>(next());
    v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
    if (b < 0x80) return v;
  }
  const auto last = static_cast<std::uint8_t>(next());  // bit 63 only
  if (last > 1) return std::nullopt;
  return v | static_cast<std::uint64_t>(last) << 63;
}

}  // namespace trawl::index
