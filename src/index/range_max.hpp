// range_max.hpp — range-maximum queries over the source ends, for the KU recursion.
//
// Values are kept (bit-compressed), blocks of 32 get a sparse table of their argmax
// (Bender & Farach-Colton's block decomposition), and every value stores, in 10 bits, where
// the maximum of its block's prefix ending at it and of its block's suffix starting at it lie
// (the in-block tables, as offsets). A query spanning two or more blocks reads two offsets and
// two table cells; one inside a block scans it. It replaces sdsl's rmq_succinct_sct, whose
// balanced-parentheses navigation cost ~60% of locate time, and the earlier scan of both
// partial blocks (~40% of the recursion); it also lets a failing recursion branch be rejected
// from the value alone, with no select.
// O(1) query across blocks, O(block) inside one; n·(w + 10) + (n/32)·log(n/32)·log n bits.
#pragma once

#include <bit>
#include <cstdint>
#include <vector>

#include <sdsl/int_vector.hpp>

namespace trawl::index {

class range_max {
 public:
  static constexpr std::uint64_t block = 32;
  static constexpr std::uint8_t offset_bits = 5;  // log2(block)
  static constexpr std::uint64_t offset_mask = block - 1;

  /// Takes the values (any width).
  void build(sdsl::int_vector<> values) {
    vals_ = std::move(values);
    sdsl::util::bit_compress(vals_);
    const std::uint64_t nb = (vals_.size() + block - 1) / block;
    table_.clear();
    in_block_ = sdsl::int_vector<>(vals_.size(), 0, 2 * offset_bits);
    for (std::uint64_t b = 0; b < nb; ++b) {
      const std::uint64_t lo = b * block, hi = std::min(vals_.size(), lo + block);
      std::uint64_t best = lo;
      for (std::uint64_t i = lo; i < hi; ++i) {  // prefix maxima: ties keep the leftmost
        best = better(best, i);
        in_block_[i] = best - lo;
      }
      best = hi - 1;
      for (std::uint64_t i = hi; i-- > lo;) {  // suffix maxima: ties move to the leftmost
        if (vals_[i] >= vals_[best]) best = i;
        in_block_[i] = in_block_[i] | ((best - lo) << offset_bits);
      }
    }
    if (nb == 0) return;
    const auto w = static_cast<std::uint8_t>(std::max<std::uint64_t>(1, static_cast<std::uint64_t>(std::bit_width(vals_.size()))));
    sdsl::int_vector<> lvl(nb, 0, w);
    for (std::uint64_t b = 0; b < nb; ++b) lvl[b] = scan(b * block, std::min(vals_.size(), (b + 1) * block) - 1);
    table_.push_back(std::move(lvl));
    for (std::uint64_t k = 1; (std::uint64_t{1} << k) <= nb; ++k) {
      const auto& prev = table_.back();
      const std::uint64_t half = std::uint64_t{1} << (k - 1), cnt = nb - (std::uint64_t{1} << k) + 1;
      sdsl::int_vector<> cur(cnt, 0, w);
      for (std::uint64_t b = 0; b < cnt; ++b) cur[b] = better(prev[b], prev[b + half]);
      table_.push_back(std::move(cur));
    }
  }

  [[nodiscard]] std::uint64_t size() const { return vals_.size(); }
  [[nodiscard]] std::uint64_t value(std::uint64_t i) const { return at(vals_, i); }

  /// An index of a maximum of values[l..r] (inclusive), l <= r < size().
  [[nodiscard]] std::uint64_t argmax(std::uint64_t l, std::uint64_t r) const {
    const std::uint64_t bl = l / block, br = r / block;
    if (bl == br) return scan(l, r);
    std::uint64_t best = better(bl * block + (at(in_block_, l) >> offset_bits), br * block + (at(in_block_, r) & offset_mask));
    if (br - bl >= 2) {
      const std::uint64_t a = bl + 1, span = br - a;  // blocks [a, br)
      const auto k = static_cast<std::uint64_t>(std::bit_width(span) - 1);
      best = better(best, better(at(table_[k], a), at(table_[k], br - (std::uint64_t{1} << k))));
    }
    return best;
  }

  /// True if the table agrees in shape with the values (checked after loading a file).
  [[nodiscard]] bool consistent() const {
    const std::uint64_t nb = (vals_.size() + block - 1) / block;
    if (in_block_.size() != vals_.size() || in_block_.width() != 2 * offset_bits) return false;
    for (std::uint64_t i = 0; i < in_block_.size(); ++i) {  // offsets stay inside the block
      const std::uint64_t lo = i / block * block, hi = std::min(vals_.size(), lo + block);
      if (lo + (in_block_[i] & offset_mask) > i || lo + (in_block_[i] >> offset_bits) < i ||
          lo + (in_block_[i] >> offset_bits) >= hi)
        return false;
    }
    if (nb == 0) return table_.empty();
    if (table_.size() != static_cast<std::size_t>(std::bit_width(nb))) return false;
    for (std::size_t k = 0; k < table_.size(); ++k) {
      if (table_[k].size() != nb - (std::uint64_t{1} << k) + 1) return false;
      for (std::uint64_t b = 0; b < table_[k].size(); ++b)
        if (table_[k][b] / block < b || table_[k][b] >= std::min(vals_.size(), (b + (std::uint64_t{1} << k)) * block))
          return false;
    }
    return true;
  }

  void serialize(std::ostream& out) const {
    vals_.serialize(out);
    in_block_.serialize(out);
    sdsl::write_member(static_cast<std::uint64_t>(table_.size()), out);
    for (const auto& t : table_) t.serialize(out);
  }
  void load(std::istream& in) {
    vals_.load(in);
    in_block_.load(in);
    std::uint64_t levels = 0;
    sdsl::read_member(levels, in);
    if (levels > 64) throw std::runtime_error("range_max: bad level count");
    table_.assign(levels, sdsl::int_vector<>());
    for (auto& t : table_) t.load(in);
  }

 private:
  /// v[i], always inlined (see packed_at in index_impl.hpp; repeated here to keep this header free-standing).
  [[gnu::always_inline]] static std::uint64_t at(const sdsl::int_vector<>& v, std::uint64_t i) {
    const std::uint64_t w = v.width(), bit = i * w, off = bit & 63;
    const std::uint64_t* d = v.data() + (bit >> 6);
    std::uint64_t x = d[0] >> off;
    if (off + w > 64) x |= d[1] << (64 - off);
    return w == 64 ? x : x & ((std::uint64_t{1} << w) - 1);
  }
  [[nodiscard]] std::uint64_t better(std::uint64_t i, std::uint64_t j) const { return at(vals_, j) > at(vals_, i) ? j : i; }
  [[nodiscard]] std::uint64_t scan(std::uint64_t l, std::uint64_t r) const {
    std::uint64_t best = l, bv = at(vals_, l);
    for (std::uint64_t i = l + 1; i <= r; ++i) {
      const std::uint64_t v = at(vals_, i);
      if (v > bv) { bv = v; best = i; }
    }
    return best;
  }

  sdsl::int_vector<> vals_;
  sdsl::int_vector<> in_block_;  // per value: prefix-max offset | suffix-max offset << 5
  std::vector<sdsl::int_vector<>> table_;
};

}  // namespace trawl::index
