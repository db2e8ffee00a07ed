// range_max.hpp — range-maximum queries over the source ends, for the KU recursion.
//
// The values are not stored here: the owner passes a function value(i) (the source ends are
// source start + length - 1, read from two compact arrays). Blocks of 32 get a sparse table
// of their argmax (Bender & Farach-Colton's block decomposition), and every position stores,
// in 10 bits, where the maximum of its block's prefix ending at it and of its block's suffix
// starting at it lie (the in-block tables, as offsets). A query spanning two or more blocks
// reads two offsets, two table cells and four values; one inside a block scans it. Not sdsl's
// rmq_succinct_sct, whose balanced-parentheses navigation would dominate locate time, nor a
// scan of both partial blocks per query, which would cost a large part of the recursion.
// O(1) query across blocks, O(block) inside one; 10n + (n/32)·log(n/32)·log n bits; built in
// parallel.
#pragma once

#include <bit>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include <sdsl/int_vector.hpp>
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace trawl::index {

/// v[i] of a bit-compressed vector, always inlined (int_vector's own reads are sometimes
/// outlined into a call in the hot loops of the recursion).
[[gnu::always_inline]] inline std::uint64_t packed_at(const sdsl::int_vector<>& v, std::uint64_t i) {
  const std::uint64_t w = v.width(), bit = i * w, off = bit & 63;
  const std::uint64_t* d = v.data() + (bit >> 6);
  std::uint64_t x = d[0] >> off;
  if (off + w > 64) x |= d[1] << (64 - off);
  return w == 64 ? x : x & ((std::uint64_t{1} << w) - 1);
}

/// Prefetches the word of v[i] (a bit-compressed vector).
[[gnu::always_inline]] inline void prefetch_packed(const sdsl::int_vector<>& v, std::uint64_t i) {
  __builtin_prefetch(v.data() + (i * v.width() >> 6));
}

class range_max {
 public:
  static constexpr std::uint64_t block = 32;
  static constexpr std::uint8_t offset_bits = 5;  // log2(block)
  static constexpr std::uint64_t offset_mask = block - 1;

  /// Indexes value(0..size-1), on the calling arena's workers (value is called from several
  /// threads at once).
  template <class V>
  void build(std::uint64_t size, const V& value) {
    size_ = size;
    const std::uint64_t nb = (size + block - 1) / block;
    table_.clear();
    in_block_ = sdsl::int_vector<>(size, 0, 2 * offset_bits);
    // A block's offsets fill whole words, as do 64 cells of a table level: no two workers
    // below write one word.
    static_assert(block * 2 * offset_bits % 64 == 0);
    tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, nb, 256), [&](const auto& blocks) {
      for (std::uint64_t b = blocks.begin(); b < blocks.end(); ++b) {
        const std::uint64_t lo = b * block, hi = std::min(size, lo + block);
        std::uint64_t best = lo;
        for (std::uint64_t i = lo; i < hi; ++i) {  // prefix maxima: ties keep the leftmost
          best = better(best, i, value);
          in_block_[i] = best - lo;
        }
        best = hi - 1;
        for (std::uint64_t i = hi; i-- > lo;) {  // suffix maxima: ties move to the leftmost
          if (value(i) >= value(best)) best = i;
          in_block_[i] = in_block_[i] | ((best - lo) << offset_bits);
        }
      }
    });
    if (nb == 0) return;
    const auto w = static_cast<std::uint8_t>(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::bit_width(size))));
    // cell(b) for every cell b of a level, by runs of 64 cells
    const auto fill = [](sdsl::int_vector<>& level, const auto& cell) {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, (level.size() + 63) / 64, 64), [&](const auto& runs) {
        for (std::uint64_t b = runs.begin() * 64; b < std::min<std::uint64_t>(level.size(), runs.end() * 64); ++b)
          level[b] = cell(b);
      });
    };
    sdsl::int_vector<> lvl(nb, 0, w);
    fill(lvl, [&](std::uint64_t b) { return scan(b * block, std::min(size, (b + 1) * block) - 1, value); });
    table_.push_back(std::move(lvl));
    for (std::uint64_t k = 1; (std::uint64_t{1} << k) <= nb; ++k) {
      const auto& prev = table_.back();
      const std::uint64_t half = std::uint64_t{1} << (k - 1), cnt = nb - (std::uint64_t{1} << k) + 1;
      sdsl::int_vector<> cur(cnt, 0, w);
      fill(cur, [&](std::uint64_t b) { return better(packed_at(prev, b), packed_at(prev, b + half), value); });
      table_.push_back(std::move(cur));
    }
  }

  [[nodiscard]] std::uint64_t size() const { return size_; }

  /// An index of a maximum of value(l..r) (inclusive), l <= r < size().
  template <class V>
  [[nodiscard]] std::uint64_t argmax(std::uint64_t l, std::uint64_t r, const V& value) const {
    const std::uint64_t bl = l / block, br = r / block;
    if (bl == br) return scan(l, r, value);
    std::uint64_t best = better(bl * block + (packed_at(in_block_, l) >> offset_bits),
                                br * block + (packed_at(in_block_, r) & offset_mask), value);
    if (br - bl >= 2) {
      const std::uint64_t a = bl + 1, span = br - a;  // blocks [a, br)
      const auto k = static_cast<std::uint64_t>(std::bit_width(span) - 1);
      best = better(best, better(packed_at(table_[k], a), packed_at(table_[k], br - (std::uint64_t{1} << k)), value), value);
    }
    return best;
  }

  /// True if the structure agrees in shape with `size` values (checked after loading a file:
  /// every stored index lies where it may, so no query reads out of range).
  [[nodiscard]] bool consistent(std::uint64_t size) const {
    const std::uint64_t nb = (size + block - 1) / block;
    if (size_ != size || in_block_.size() != size || in_block_.width() != 2 * offset_bits) return false;
    for (std::uint64_t i = 0; i < size; ++i) {  // offsets stay inside the block, on the right side of i
      const std::uint64_t lo = i / block * block, hi = std::min(size, lo + block);
      if (lo + (in_block_[i] & offset_mask) > i || lo + (in_block_[i] >> offset_bits) < i ||
          lo + (in_block_[i] >> offset_bits) >= hi)
        return false;
    }
    if (nb == 0) return table_.empty();
    if (table_.size() != static_cast<std::size_t>(std::bit_width(nb))) return false;
    for (std::size_t k = 0; k < table_.size(); ++k) {
      if (table_[k].size() != nb - (std::uint64_t{1} << k) + 1) return false;
      for (std::uint64_t b = 0; b < table_[k].size(); ++b)
        if (table_[k][b] / block < b || table_[k][b] >= std::min(size, (b + (std::uint64_t{1} << k)) * block))
          return false;
    }
    return true;
  }

  void serialize(std::ostream& out) const {
    sdsl::write_member(size_, out);
    in_block_.serialize(out);
    sdsl::write_member(static_cast<std::uint64_t>(table_.size()), out);
    for (const auto& t : table_) t.serialize(out);
  }
  void load(std::istream& in) {
    sdsl::read_member(size_, in);
    in_block_.load(in);
    std::uint64_t levels = 0;
    sdsl::read_member(levels, in);
    if (levels > 64) throw std::runtime_error("range_max: bad level count");
    table_.assign(levels, sdsl::int_vector<>());
    for (auto& t : table_) t.load(in);
  }

 private:
  template <class V>
  [[nodiscard]] static std::uint64_t better(std::uint64_t i, std::uint64_t j, const V& value) {
    return value(j) > value(i) ? j : i;
  }
  template <class V>
  [[nodiscard]] static std::uint64_t scan(std::uint64_t l, std::uint64_t r, const V& value) {
    std::uint64_t best = l, bv = value(l);
    for (std::uint64_t i = l + 1; i <= r; ++i) {
      const std::uint64_t v = value(i);
      if (v > bv) { bv = v; best = i; }
    }
    return best;
  }

  std::uint64_t size_ = 0;
  sdsl::int_vector<> in_block_;  // per position: prefix-max offset | suffix-max offset << 5
  std::vector<sdsl::int_vector<>> table_;
};

}  // namespace trawl::index
