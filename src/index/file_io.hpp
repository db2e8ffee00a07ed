// file_io.hpp — the index file's primitive encodings, written and read by format.cpp and
// fm_store.cpp. The reader checks every length against the bytes it holds before it
// allocates, so a hostile file can ask only for memory it backs with its own bytes.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <new>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include <sdsl/int_vector.hpp>

#include "trawl/error.hpp"

namespace trawl::index::file {

[[noreturn]] inline void bad(const std::string& what) { throw error(errc::bad_format, "index file: " + what); }

/// f(), with an allocation that a file's claimed sizes made fail reported as bad_format.
template <class F>
void with_sizes_checked(F&& f) {
  try {
    f();
  } catch (const std::bad_alloc&) {
    bad("a section claims an impossible size");
  } catch (const std::length_error&) {
    bad("a section claims an impossible size");
  }
}

template <class T>
void put(std::string& out, T v) {
  char b[sizeof(T)];
  std::memcpy(b, &v, sizeof(T));
  out.append(b, sizeof(T));
}

/// Little-endian fields from a byte range; running past its end is bad_format.
struct reader {
  std::string_view s;
  std::size_t at = 0;
  template <class T>
  T get() {
    if (s.size() - at < sizeof(T)) bad("truncated");
    T v;
    std::memcpy(&v, s.data() + at, sizeof(T));
    at += sizeof(T);
    return v;
  }
  std::string_view bytes(std::size_t len) {
    if (s.size() - at < len) bad("truncated");
    const std::string_view v = s.substr(at, len);
    at += len;
    return v;
  }
  [[nodiscard]] std::size_t left() const { return s.size() - at; }
};

/// A byte string as zstd frames of `frame` bytes each (each with its content size, so that they
/// compress and decompress in parallel; a single frame reads the same): u64 compressed size |
/// the frames (zstd_frames.cpp).
void put_zstd(std::string& out, std::string_view bytes, std::size_t frame, int level);
/// The frames of a put_zstd field that should give `len` bytes; bad_format when they claim to
/// expand more than max_expansion-fold (a bound on what a small file makes the loader allocate).
std::string_view get_zstd_bytes(reader& r, std::uint64_t len, std::uint64_t max_expansion, const char* what);
/// Decompresses those frames into out[0, len) in parallel; bad_format unless they give exactly
/// len bytes. `each_frame`, if given, sees every frame's bytes on the worker that wrote them.
void get_zstd(std::string_view frames, char* out, std::uint64_t len, const char* what,
              const std::function<void(std::string_view)>& each_frame = {});

/// Packed integers: u8 width (1..64) | u64 count | ceil(count·width / 64) u64 words.
inline void put_ints(std::string& out, const sdsl::int_vector<>& v) {
  put<std::uint8_t>(out, v.width());
  put<std::uint64_t>(out, v.size());
  const std::uint64_t words = (v.bit_size() + 63) / 64;
  out.append(reinterpret_cast<const char*>(v.data()), words * 8);
}

/// Words for `count` values of `width` bits, or an error when the file cannot hold them.
inline std::uint64_t packed_words(std::uint64_t count, std::uint64_t width, std::size_t bytes_left, const char* what) {
  if (count > bytes_left * 8 / width + 1) bad(std::string("'") + what + "' claims more values than the file holds");
  return (count * width + 63) / 64;
}

inline sdsl::int_vector<> get_ints(reader& r, const char* what) {
  const auto width = r.get<std::uint8_t>();
  const auto count = r.get<std::uint64_t>();
  if (width < 1 || width > 64) bad(std::string("'") + what + "' has integer width " + std::to_string(width));
  const std::uint64_t words = packed_words(count, width, r.left(), what);
  const std::string_view body = r.bytes(words * 8);
  sdsl::int_vector<> v(count, 0, static_cast<std::uint8_t>(width));
  if (words > 0) {
    std::memcpy(v.data(), body.data(), words * 8);
    const std::uint64_t used = count * width % 64;  // bits past the last value are zero
    if (used != 0) v.data()[words - 1] &= (std::uint64_t{1} << used) - 1;
  }
  return v;
}

/// Bits: u64 count | ceil(count / 64) u64 words.
inline void put_bits(std::string& out, const sdsl::bit_vector& v) {
  put<std::uint64_t>(out, v.size());
  out.append(reinterpret_cast<const char*>(v.data()), (v.size() + 63) / 64 * 8);
}

inline sdsl::bit_vector get_bits(reader& r, const char* what) {
  const auto count = r.get<std::uint64_t>();
  const std::uint64_t words = packed_words(count, 1, r.left(), what);
  const std::string_view body = r.bytes(words * 8);
  sdsl::bit_vector v(count, 0);
  if (words > 0) {
    std::memcpy(v.data(), body.data(), words * 8);
    if (count % 64 != 0) v.data()[words - 1] &= (std::uint64_t{1} << (count % 64)) - 1;
  }
  return v;
}

/// An increasing set below `universe` as Elias–Fano: u64 universe | u8 low width w | the low w
/// bits of each member (ints, width max(w, 1)) | high bits (member i sets bit (member >> w) + i).
/// `at(i)` gives the i-th of `count` members.
template <class At>
void put_ef(std::string& out, std::uint64_t universe, std::uint64_t count, const At& at) {
  std::uint8_t w = 0;
  while (count > 0 && (universe >> (w + 1)) >= count) ++w;
  sdsl::int_vector<> low(count, 0, std::max<std::uint8_t>(w, 1));
  sdsl::bit_vector high((universe >> w) + count + 1, 0);
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t v = at(i);
    low[i] = w == 0 ? 0 : v & ((std::uint64_t{1} << w) - 1);
    high[(v >> w) + i] = 1;
  }
  put<std::uint64_t>(out, universe);
  put<std::uint8_t>(out, w);
  put_ints(out, low);
  put_bits(out, high);
}

/// Reads a put_ef set into `members` (a std::vector or an sdsl::int_vector made wide enough by
/// the caller, resized here), checking that they increase strictly and stay below the universe.
template <class Members>
void get_ef_into(reader& r, std::uint64_t& universe, const char* what, Members& members) {
  universe = r.get<std::uint64_t>();
  const auto w = r.get<std::uint8_t>();
  const sdsl::int_vector<> low = get_ints(r, what);
  const sdsl::bit_vector high = get_bits(r, what);
  const auto malformed = [&](const char* how) { bad(std::string("'") + what + "' " + how); };
  if (w > 63) malformed("has a bad low width");
  members.resize(low.size());
  std::uint64_t i = 0, last = 0;
  // the set bits of `high`, a word at a time
  const std::uint64_t* words = high.data();
  for (std::uint64_t wi = 0, nw = (high.size() + 63) / 64; wi < nw; ++wi) {
    std::uint64_t bits = words[wi];
    if (wi == nw - 1 && high.size() % 64 != 0) bits &= (std::uint64_t{1} << (high.size() % 64)) - 1;
    for (; bits != 0; bits &= bits - 1) {
      const std::uint64_t p = wi * 64 + static_cast<std::uint64_t>(std::countr_zero(bits));
      if (i == low.size()) malformed("has more members than low parts");
      const std::uint64_t hi = p - i;
      if (hi > (universe >> w) || (w > 0 && low[i] >> w) != 0 || (w == 0 && low[i] != 0)) malformed("is malformed");
      const std::uint64_t v = (hi << w) | low[i];
      if (v >= universe || (i > 0 && v <= last)) malformed("is not increasing");
      members[i++] = last = v;
    }
  }
  if (i != low.size()) malformed("has fewer members than low parts");
}

/// get_ef_into a vector.
inline std::vector<std::uint64_t> get_ef(reader& r, std::uint64_t& universe, const char* what) {
  std::vector<std::uint64_t> members;
  get_ef_into(r, universe, what, members);
  return members;
}

}  // namespace trawl::index::file
