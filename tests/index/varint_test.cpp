// varint_test.cpp — index/varint.hpp against a plain restatement of LEB128: seven bits a byte,
// low bits first, the high bit on every byte but the last; at most 64 bits.
#include <gtest/gtest.h>

#include <cstdint>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "index/varint.hpp"

namespace {

std::vector<std::uint8_t> put(std::uint64_t v) {
  std::vector<std::uint8_t> out;
  trawl::index::put_varint(v, [&](std::uint8_t b) { out.push_back(b); });
  return out;
}

std::optional<std::uint64_t> get(const std::vector<std::uint8_t>& bytes, std::size_t* used = nullptr) {
  std::size_t at = 0;
  const auto v = trawl::index::get_varint([&] {
    if (at == bytes.size()) throw std::out_of_range("past the bytes");
    return bytes[at++];
  });
  if (used != nullptr) *used = at;
  return v;
}

TEST(Varint, BytesAreLeb128AndReadBack) {
  std::mt19937_64 rng(3);
  std::vector<std::uint64_t> values = {0, 1, 127, 128, 300, 16383, 16384, ~std::uint64_t{0}, std::uint64_t{1} << 63};
  for (int i = 0; i < 2000; ++i) values.push_back(rng() >> (rng() % 64));
  for (const std::uint64_t v : values) {
    const auto bytes = put(v);
    // the restatement: v's bits 7 at a time
    std::vector<std::uint8_t> want;
    std::uint64_t x = v;
    do {
      const auto low = static_cast<std::uint8_t>(x & 0x7f);
      x >>= 7;
      want.push_back(x != 0 ? static_cast<std::uint8_t>(low | 0x80) : low);
    } while (x != 0);
    ASSERT_EQ(bytes, want) << v;
    EXPECT_EQ(trawl::index::varint_bytes(v), want.size()) << v;
    std::size_t used = 0;
    EXPECT_EQ(get(bytes, &used), v);
    EXPECT_EQ(used, bytes.size());
  }
}

TEST(Varint, MoreThan64BitsAreRefused) {
  // ten bytes hold 63 bits and one: a tenth byte above 1, or an eleventh, is refused
  std::vector<std::uint8_t> top(9, 0xff);
  top.push_back(0x01);
  EXPECT_EQ(get(top), ~std::uint64_t{0});
  top.back() = 0x02;
  EXPECT_EQ(get(top), std::nullopt);
  top.back() = 0x81;
  top.push_back(0x00);
  std::size_t used = 0;
  EXPECT_EQ(get(top, &used), std::nullopt);
  EXPECT_EQ(used, 10u);  // nothing read past the tenth byte
  // a varint cut short: the reader's own error
  EXPECT_THROW((void)get({0x80, 0x80}), std::out_of_range);
}

}  // namespace
