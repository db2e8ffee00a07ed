// dna_pack_runs.hpp — the run list a packer builds (dna_pack.hpp): bytes the codes do not
// give are added one stretch at a time and merged with the open run where they continue it.
// Shared by the serial and the AVX2 packer, each compiling its own copy (internal linkage:
// the AVX2 file's copy is built with AVX2 and must not stand in for the serial one's).
#pragma once

#include <algorithm>
#include <bit>
#include <cstring>

#include "common/dna_pack.hpp"

namespace trawl::dna_pack::detail {
namespace {  // one copy per instruction set (above)

/// The kind of a text byte: an upper-case base (no run), a lower-case base, or any other.
enum class kind : unsigned char { base, lower, other };

inline kind kind_of(unsigned char b) noexcept {
  switch (b) {
    case 'A': case 'C': case 'G': case 'T': return kind::base;
    case 'a': case 'c': case 'g': case 't': return kind::lower;
    default: return kind::other;
  }
}

class run_list {
 public:
  run_list(run* runs, std::size_t cap, std::uint32_t pos0) noexcept : runs_(runs), cap_(cap), pos0_(pos0) {}

  /// Bytes [at, at + len) of the text are all `lower` letters or all `byte`; false when the
  /// list is full.
  bool add(std::size_t at, std::size_t len, bool lower, unsigned char byte) noexcept {
    const auto pos = static_cast<std::uint32_t>(pos0_ + at);
    if (open_ && open_lower_ == lower && (lower || open_byte_ == byte) && open_pos_ + open_len_ == pos) {
      const std::size_t more = std::min(len, max_run - open_len_);
      open_len_ += more;
      len -= more;
      at += more;
    }
    while (len > 0) {
      if (!close()) return false;
      open_ = true;
      open_pos_ = static_cast<std::uint32_t>(pos0_ + at);
      open_len_ = std::min(len, max_run);
      open_lower_ = lower;
      open_byte_ = byte;
      at += open_len_;
      len -= open_len_;
    }
    return true;
  }

  /// Closes the open run; false when the list is full.
  bool close() noexcept {
    if (!open_) return true;
    if (count_ == cap_) return false;
    runs_[count_++] = run{open_pos_, static_cast<std::uint16_t>(open_len_), open_lower_ ? std::uint8_t{0} : open_byte_,
                          static_cast<std::uint8_t>(open_lower_ ? 1 : 0)};
    open_ = false;
    return true;
  }

  [[nodiscard]] std::size_t count() const noexcept { return count_; }

 private:
  run* runs_;
  std::size_t cap_;
  std::uint32_t pos0_;
  std::size_t count_ = 0;
  bool open_ = false;
  bool open_lower_ = false;
  unsigned char open_byte_ = 0;
  std::uint32_t open_pos_ = 0;
  std::size_t open_len_ = 0;
};

/// Bytes [from, to) one at a time, with their runs; false when the list is full.
inline bool add_bytes(const unsigned char* t, std::size_t from, std::size_t to, run_list& runs) noexcept {
  for (std::size_t i = from; i < to; ++i) {
    const kind k = kind_of(t[i]);
    if (k != kind::base && !runs.add(i, 1, k == kind::lower, t[i])) return false;
  }
  return true;
}

/// 0x80 in each byte of v that is zero, 0 in the others.
inline std::uint64_t zero_bytes(std::uint64_t v) noexcept {
  constexpr std::uint64_t m = 0x7F7F7F7F7F7F7F7FULL;
  return ~(((v & m) + m) | v | m);
}

/// Packs text bytes [i, n) eight at a time (i a multiple of 4), then the last few; false
/// when the run list is full.
inline bool pack_words(const unsigned char* t, std::size_t i, std::size_t n, std::uint8_t* packed,
                       run_list& runs) noexcept {
  static_assert(std::endian::native == std::endian::little, "the packed format is read as little-endian words");
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  for (; i + 8 <= n; i += 8) {
    std::uint64_t x;
    std::memcpy(&x, t + i, 8);
    std::uint64_t c = (x >> 1) & (3 * ones);
    c = (c | (c >> 6)) & 0x000F000F000F000FULL;  // two codes per 16 bits
    c = (c | (c >> 12)) & 0x000000FF000000FFULL;  // four per 32
    const auto two = static_cast<std::uint16_t>((c & 0xFF) | ((c >> 24) & 0xFF00));
    std::memcpy(packed + i / 4, &two, 2);
    const std::uint64_t bases = zero_bytes(x ^ ('A' * ones)) | zero_bytes(x ^ ('C' * ones)) |
                                zero_bytes(x ^ ('G' * ones)) | zero_bytes(x ^ ('T' * ones));
    if (bases != 0x80 * ones && !add_bytes(t, i, i + 8, runs)) return false;
  }
  for (; i < n; i += 4) {
    const std::size_t e = std::min(n, i + 4);
    unsigned v = 0;
    for (std::size_t j = i; j < e; ++j) v |= ((t[j] >> 1) & 3u) << (2 * (j - i));
    packed[i / 4] = static_cast<std::uint8_t>(v);
    if (!add_bytes(t, i, e, runs)) return false;
  }
  return runs.close();
}

}  // namespace
}  // namespace trawl::dna_pack::detail
