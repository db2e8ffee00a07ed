// fm_dna.hpp — the FM-index of S'' over at most four symbols (DNA), laid out for its walks.
//
// The BWT is two bit planes in blocks of 128 rows; each block is one cache line that also
// holds its rows' occurrence counts (relative to a superblock of 2^16 rows) and the marks of
// its suffix-array samples with their rank. An LF step, a mark check and the sample's index
// read that one line, where sdsl's csa_wt reads a wavelet-tree node per level and an
// Elias–Fano set for the marks. A locate walks several rows in lock step and prefetches each
// one's next line, so a thread waits on many misses at once. Built from the file's section
// (the BWT and the text-order samples) in a few parallel passes.
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

class fm_dna {
 public:
  static constexpr unsigned max_sigma = 4;

  fm_dna() = default;
  /// From a checked section: `bwt` holds the symbols (1..4) of every row but the sentinel's,
  /// `marked` the sampled rows ascending and `samples` their text positions divided by `step`
  /// (kept).
  fm_dna(std::uint64_t rows, std::uint64_t sentinel, std::string_view bwt, const sdsl::int_vector<>& marked,
         sdsl::int_vector<> samples, std::uint64_t step);

  [[nodiscard]] std::uint64_t size() const { return rows_; }
  [[nodiscard]] std::uint64_t sample_step() const { return step_; }

  /// The BWT at row r: 0 for the sentinel, else the symbol 1..4.
  [[nodiscard]] unsigned symbol(std::uint64_t r) const {
    return r == sentinel_ ? 0 : code(blocks_[r >> block_shift], r & block_mask) + 1;
  }
  /// LF(r): the row of the suffix one position to the left.
  [[nodiscard]] std::uint64_t lf(std::uint64_t r) const {
    if (r == sentinel_) return 0;
    const block& k = blocks_[r >> block_shift];
    const unsigned c = code(k, r & block_mask);
    return c_[c] + occ(k, c, r);
  }
  /// Whether row r is sampled, and then its text position in `pos`.
  [[nodiscard]] bool sampled(std::uint64_t r, std::uint64_t& pos) const {
    const block& k = blocks_[r >> block_shift];
    const std::uint64_t o = r & block_mask;
    if (!marked(k, o)) return false;
    pos = samples_[k.mrank + below(k.marked, o)] * step_;
    return true;
  }
  /// The rows [lb, rb] whose suffixes start with sym[0, m) (symbols 1..4); their number.
  std::uint64_t backward_search(const std::uint64_t* sym, std::size_t m, std::uint64_t& lb, std::uint64_t& rb) const;
  /// f(SA[r]) for every r in [b, e), in no fixed order; bad_format if a walk finds no sample.
  template <class F>
  void locate(std::uint64_t b, std::uint64_t e, F&& f) const;
  /// S''[b, b + len) as symbols 1..4 into out.
  void extract(std::uint64_t b, std::uint64_t len, std::uint64_t* out) const;

 private:
  static constexpr unsigned block_shift = 7;
  static constexpr std::uint64_t block_mask = (std::uint64_t{1} << block_shift) - 1;
  static constexpr unsigned super_shift = 16;  // rows per superblock: its counts fit 16 bits
  struct alignas(64) block {
    std::uint64_t mrank;                  // sampled rows before this block
    std::array<std::uint16_t, 4> count;   // rows of each code before it in its superblock
    std::array<std::uint64_t, 2> lo, hi;  // the codes' low and high bits, a row per bit
    std::array<std::uint64_t, 2> marked;  // the sampled rows
  };
  static_assert(sizeof(block) == 64);

  [[nodiscard]] static unsigned code(const block& k, std::uint64_t o) {
    return static_cast<unsigned>(((k.lo[o >> 6] >> (o & 63)) & 1) | (((k.hi[o >> 6] >> (o & 63)) & 1) << 1));
  }
  [[nodiscard]] static bool marked(const block& k, std::uint64_t o) { return ((k.marked[o >> 6] >> (o & 63)) & 1) != 0; }
  /// Set bits of w[0..1] below bit o (o < 128).
  [[nodiscard]] static std::uint64_t below(const std::array<std::uint64_t, 2>& w, std::uint64_t o) {
    const std::uint64_t m = (std::uint64_t{1} << (o & 63)) - 1;
    return o < 64 ? std::popcount(w[0] & m) : std::popcount(w[0]) + std::popcount(w[1] & m);
  }
  /// Rows before r (in r's block k) whose code is c; the sentinel, stored as code 0, left out.
  [[nodiscard]] std::uint64_t occ(const block& k, unsigned c, std::uint64_t r) const {
    const std::uint64_t l = c & 1 ? 0 : ~std::uint64_t{0}, h = c & 2 ? 0 : ~std::uint64_t{0};
    const std::array<std::uint64_t, 2> match{(k.lo[0] ^ l) & (k.hi[0] ^ h), (k.lo[1] ^ l) & (k.hi[1] ^ h)};
    return super_[r >> super_shift][c] + k.count[c] + below(match, r & block_mask) - (c == 0 && r > sentinel_ ? 1 : 0);
  }

  std::uint64_t rows_ = 0, sentinel_ = 0, step_ = 1;
  std::unique_ptr<block[]> blocks_;                   // rows / 128 + 1 of them: row `rows_` has one
  std::vector<std::array<std::uint64_t, 4>> super_;   // rows of each code before each superblock
  std::array<std::uint64_t, 4> c_{};                  // rows whose suffix starts with a smaller symbol
  sdsl::int_vector<> samples_;                        // SA / step at the sampled rows, in row order
  std::vector<std::uint64_t> isa_;                    // the row of text position p·isa_step
  std::uint64_t isa_step_ = 1;
};

template <class F>
void fm_dna::locate(std::uint64_t b, std::uint64_t e, F&& f) const {
  // Each lane walks one row to its sample, then reads the sample a round later (prefetched).
  constexpr unsigned lanes = 16;
  constexpr std::uint64_t walking = ~std::uint64_t{0};
  std::array<std::uint64_t, lanes> row{}, off{}, sample{};
  unsigned live = 0;
  for (; live < lanes && b < e; ++live) row[live] = b++, off[live] = 0, sample[live] = walking;
  while (live > 0) {
    for (unsigned i = 0; i < live;) {
      if (sample[i] != walking) {
        const std::uint64_t pos = samples_[sample[i]] * step_ + off[i];
        if (pos >= rows_) throw error(errc::bad_format, "index is corrupt: a suffix-array value is out of range");
        f(pos);
        if (b >= e) {  // the last lane takes this one's place
          --live;
          row[i] = row[live], off[i] = off[live], sample[i] = sample[live];
          continue;
        }
        row[i] = b++, off[i] = 0, sample[i] = walking;
      } else if (const block& k = blocks_[row[i] >> block_shift]; marked(k, row[i] & block_mask)) {
        sample[i] = k.mrank + below(k.marked, row[i] & block_mask);
        __builtin_prefetch(samples_.data() + (sample[i] * samples_.width() >> 6));
        ++i;
        continue;
      } else {
        if (++off[i] == step_) throw error(errc::bad_format, "index is corrupt: a suffix-array walk finds no sample");
        row[i] = lf(row[i]);
      }
      __builtin_prefetch(&blocks_[row[i] >> block_shift]);
      ++i;
    }
  }
}

}  // namespace trawl::index
