// fm_wt.hpp — the FM-index of S'' over up to 255 byte symbols, laid out for its walks.
//
// The BWT is a Huffman-shaped wavelet tree (Grossi, Gupta, Vitter 2003; Mäkinen, Navarro 2005)
// whose nodes' bit vectors lie end to end in one array of cache lines; each line holds the
// ones before it and 448 bits, so a rank is one line read. An LF step reads one line per level
// of its symbol's code (about H0 levels), and a rank counts at most 448 bits of one line. The
// suffix-array sample marks are a second such array. A
// locate walks several rows in lock step and prefetches each one's next lines. Built from the
// file's section (the BWT and the text-order samples) in a few parallel passes.
#pragma once

#include <array>
#include <bit>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include <sdsl/int_vector.hpp>

#include "trawl/error.hpp"

namespace trawl::index {

/// Bits with rank in one cache line: each line holds the ones before it and 7 words of bits.
class line_bits {
 public:
  static constexpr std::uint64_t bits_per_line = 448;

  line_bits() = default;
  /// n bits, all clear.
  explicit line_bits(std::uint64_t n);

  /// Word w of the bits (bits 64w..64w+63), to set bits before finish().
  [[nodiscard]] std::uint64_t& word(std::uint64_t w) { return lines_[w / 7].w[w % 7]; }
  /// Fills the lines' counts; after the bits are set.
  void finish();

  /// Ones in [0, i), i <= size.
  [[nodiscard]] std::uint64_t rank(std::uint64_t i) const {
    bool b = false;
    return rank_bit(i, b);
  }
  /// rank(i), and the bit at i in `bit`.
  [[nodiscard]] std::uint64_t rank_bit(std::uint64_t i, bool& bit) const {
    const line& l = lines_[i / bits_per_line];
    const std::uint64_t b = i % bits_per_line, q = b >> 6;
    const std::uint64_t word = l.w[q];
    bit = ((word >> (b & 63)) & 1) != 0;
    // the ones of the words before q and of word q below bit b, counted by bytes (at most 56
    // per byte), then by 16-bit lanes summed by one multiply: the build's baseline has no
    // popcnt instruction
    std::uint64_t bytes = byte_ones(word & ((std::uint64_t{1} << (b & 63)) - 1));
    for (std::uint64_t j = 0; j < q; ++j) bytes += byte_ones(l.w[j]);
    const std::uint64_t lanes = (bytes & 0x00ff00ff00ff00ffull) + ((bytes >> 8) & 0x00ff00ff00ff00ffull);
    return l.before + ((lanes * 0x0001000100010001ull) >> 48);
  }
  void prefetch(std::uint64_t i) const { __builtin_prefetch(&lines_[i / bits_per_line]); }

 private:
  /// The ones of each byte of x, in that byte.
  [[nodiscard]] static std::uint64_t byte_ones(std::uint64_t x) {
    x -= (x >> 1) & 0x5555555555555555ull;
    x = (x & 0x3333333333333333ull) + ((x >> 2) & 0x3333333333333333ull);
    return (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0full;
  }
  struct alignas(64) line {
    std::uint64_t before;
    std::array<std::uint64_t, 7> w;
  };
  static_assert(sizeof(line) == 64);
  std::uint64_t nlines_ = 0;
  std::unique_ptr<line[]> lines_;
};

class fm_wt {
 public:
  static constexpr unsigned max_sigma = 255;

  fm_wt() = default;
  /// From a checked section: `bwt` holds the symbols (1..255) of every row but the sentinel's,
  /// `marked` the sampled rows ascending and `samples` their text positions divided by `step`
  /// (kept). No symbol's code is longer than `max_code` bits (8 to 32; tests lower it).
  fm_wt(std::uint64_t rows, std::uint64_t sentinel, std::string_view bwt, const sdsl::int_vector<>& marked,
        sdsl::int_vector<> samples, std::uint64_t step, unsigned max_code = 32);

  [[nodiscard]] std::uint64_t size() const { return rows_; }
  [[nodiscard]] std::uint64_t sample_step() const { return step_; }

  /// The BWT at row r: 0 for the sentinel, else its symbol.
  [[nodiscard]] unsigned symbol(std::uint64_t r) const { return descend(r); }
  /// LF(r): the row of the suffix one position to the left (0 for the sentinel's row).
  [[nodiscard]] std::uint64_t lf(std::uint64_t r) const {
    const unsigned c = descend(r);
    return c_[c] + r;
  }
  /// Whether row r is sampled, and then its text position in `pos`.
  [[nodiscard]] bool sampled(std::uint64_t r, std::uint64_t& pos) const {
    bool b = false;
    const std::uint64_t j = marked_.rank_bit(r, b);
    if (!b) return false;
    pos = samples_[j] * step_;
    return true;
  }
  /// The rows [lb, rb] whose suffixes start with sym[0, m) (symbols 1..255); their number.
  std::uint64_t backward_search(const std::uint64_t* sym, std::size_t m, std::uint64_t& lb, std::uint64_t& rb) const;
  /// f(SA[r]) for every r in [b, e), in no fixed order; bad_format if a walk finds no sample.
  template <class F>
  void locate(std::uint64_t b, std::uint64_t e, F&& f) const;
  /// S''[b, b + len) as symbols into out.
  void extract(std::uint64_t b, std::uint64_t len, std::uint64_t* out) const;

 private:
  /// A node of the tree: its bits start at `off` in bits_, with `ones` ones before them; a
  /// child >= 0 is a node, < 0 the leaf of symbol ~child.
  struct node {
    std::uint64_t off = 0, ones = 0;
    std::array<std::int32_t, 2> child{};
  };
  /// The symbol at row r, walking from the root to its leaf; r becomes its rank there (the
  /// occurrences of the symbol in the rows before r).
  [[nodiscard]] unsigned descend(std::uint64_t& r) const {
    std::int32_t v = 0;
    while (v >= 0) {
      const node& x = nodes_[static_cast<std::uint32_t>(v)];
      bool b = false;
      const std::uint64_t ones = bits_.rank_bit(x.off + r, b) - x.ones;
      r = b ? ones : r - ones;
      v = x.child[b];
    }
    return static_cast<unsigned>(~v);
  }
  /// Occurrences of symbol c in rows [0, r).
  [[nodiscard]] std::uint64_t rank_of(unsigned c, std::uint64_t r) const;

  std::uint64_t rows_ = 0, step_ = 1;
  std::vector<node> nodes_;                    // nodes_[0] is the root
  std::array<std::uint32_t, 256> code_{};      // the symbols' codes, first branch in the lowest bit
  std::array<std::uint8_t, 256> len_{};        // their lengths (0: not in the BWT)
  std::array<std::uint64_t, 257> c_{};         // rows whose suffix starts with a smaller symbol
  line_bits bits_, marked_;
  sdsl::int_vector<> samples_;                 // SA / step at the sampled rows, in row order
  sdsl::int_vector<> isa_;                     // the row of text position p·isa_step
  std::uint64_t isa_step_ = 1;
};

template <class F>
void fm_wt::locate(std::uint64_t b, std::uint64_t e, F&& f) const {
  // Each lane walks one row to its sample, one level of the tree per round, so a round's line
  // reads are independent of each other and each lane's next line is prefetched a round ahead.
  constexpr unsigned lanes = 16;
  std::array<std::uint64_t, lanes> row{}, off{}, at{};  // at: the row's position in node `in`
  std::array<std::int32_t, lanes> in{};                 // -1: the row's mark is read next
  const auto start = [&](unsigned i, std::uint64_t r) {
    row[i] = r, off[i] = 0, in[i] = -1;
    marked_.prefetch(r);
    bits_.prefetch(r);  // the root's bits start at 0
  };
  unsigned live = 0;
  for (; live < lanes && b < e; ++live) start(live, b++);
  while (live > 0) {
    for (unsigned i = 0; i < live;) {
      if (in[i] < 0) {
        if (std::uint64_t pos = 0; sampled(row[i], pos)) {
          pos += off[i];
          if (pos >= rows_) throw error(errc::bad_format, "index is corrupt: a suffix-array value is out of range");
          f(pos);
          if (b >= e) {  // the last lane takes this one's place
            --live;
            row[i] = row[live], off[i] = off[live], at[i] = at[live], in[i] = in[live];
            continue;
          }
          start(i, b++);
          ++i;
          continue;
        }
        if (++off[i] == step_) throw error(errc::bad_format, "index is corrupt: a suffix-array walk finds no sample");
        in[i] = 0, at[i] = row[i];
      }
      const node& x = nodes_[static_cast<std::uint32_t>(in[i])];
      bool bit = false;
      const std::uint64_t ones = bits_.rank_bit(x.off + at[i], bit) - x.ones;
      at[i] = bit ? ones : at[i] - ones;
      if (const std::int32_t next = x.child[bit]; next < 0) {  // a leaf: LF(row) is found
        row[i] = c_[static_cast<unsigned>(~next)] + at[i], in[i] = -1;
        marked_.prefetch(row[i]);
        bits_.prefetch(row[i]);
      } else {
        in[i] = next;
        bits_.prefetch(nodes_[static_cast<std::uint32_t>(next)].off + at[i]);
      }
      ++i;
    }
  }
}

}  // namespace trawl::index
