// run_bwt.hpp — the whole text's Burrows–Wheeler transform as runs, for counting.
//
// count through the parse walks the occurrences (count.cpp), so a short pattern that occurs
// millions of times costs millions of steps. The run-length BWT (Mäkinen, Navarro, "Succinct
// suffix arrays based on run-length encoding", 2005; the counting part of r-index) answers
// count by backward search in O(m) rank queries, whatever the number of occurrences, in
// O(r) space for r runs: a repetitive text has few.
//
// Rows are the text's suffixes with a sentinel smaller than every byte (n + 1 rows). Symbols
// are 0 for the sentinel and, for a byte b, the index's FM symbol char_map[b] (1..σ), or b + 1
// when all 256 byte values occur. Held as:
//   starts    Elias–Fano set over the rows: the first row of every run;
//   heads     wavelet tree over the runs' symbols;
//   f_starts  Elias–Fano set over the rows: for each symbol c and its t-th run (runs ordered
//             by symbol, then by row), C[c] + the length of c's earlier runs; member R[c] + t.
// rank_c(i) = (c's runs wholly before the run holding row i - 1) + (the part of that run
// before i when its symbol is c): one rank and one select on `starts`, one inverse-select or
// rank on `heads`, one select on `f_starts`.
// The file holds the runs' lengths and symbols (zstd-compressed) only; the rest is rebuilt on
// load in O(r).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

#include "trawl/index.hpp"

#include <sdsl/wavelet_trees.hpp>

#include "index/ef_set.hpp"

namespace trawl::index {

class run_bwt {
 public:
  run_bwt() = default;

  /// The runs of `text` (symbols: `symbol_of` as above) from its suffix array sa[0, n).
  template <class Int>
  static run_bwt from_suffix_array(std::string_view text, const Int* sa, const std::array<std::uint16_t, 256>& symbol_of);
  /// The same, sorting the suffixes itself (4 bytes a byte below 2^31 bytes, else 8), the sort
  /// reported to `progress` (may be empty) as the stage "count index".
  static run_bwt of_text(std::string_view text, const std::array<std::uint16_t, 256>& symbol_of, bool force_64bit,
                         const progress_callback& progress = {});

  /// The section bytes: u64 rows | u64 runs | u64 n_l | the runs' lengths as LEB128 varints,
  /// n_l bytes (put_zstd) | u64 the sentinel's run | the other runs' symbols less one, a byte
  /// each (put_zstd).
  void write(std::string& out) const;
  /// Reads and checks a section against the text length and the byte alphabet (symbol_of, for
  /// the bytes of the text). bad_format on anything that is not a run-length BWT of n + 1 rows
  /// with one sentinel over exactly these symbols, or that claims more runs than
  /// max_runs(file_bytes) for an index file of file_bytes bytes.
  static run_bwt read(std::string_view bytes, std::uint64_t n, const std::array<std::uint16_t, 256>& symbol_of,
                      std::uint64_t file_bytes);
  /// The most runs a file of `file_bytes` bytes may claim: what the loader allocates follows
  /// the runs, and their zstd-compressed parts may shrink without bound (the heads of a binary
  /// text alternate), so the bound is the file's own size: eight runs a byte of the index, and
  /// a million besides.
  static constexpr std::uint64_t max_runs(std::uint64_t file_bytes) { return 8 * file_bytes + (std::uint64_t{1} << 20); }

  [[nodiscard]] bool empty() const { return rows_ == 0; }
  [[nodiscard]] std::uint64_t runs() const { return runs_; }
  /// Number of occurrences of `pattern` in the text (overlapping ones each count; "" occurs
  /// n + 1 times, as everywhere in the index).
  [[nodiscard]] std::uint64_t count(std::string_view pattern) const;
  /// Same runs and symbols (index verify compares a rebuilt one with the loaded one).
  [[nodiscard]] bool same_as(const run_bwt& o) const;

 private:
  void derive();  // C, R, f_starts and heads' wavelet tree from starts and head_syms_ (then freed)
  [[nodiscard]] std::uint64_t rank(std::uint32_t c, std::uint64_t i) const;

  std::uint64_t rows_ = 0;
  std::uint64_t runs_ = 0;
  std::array<std::uint16_t, 256> symbol_of_{};
  ef_set starts_;
  sdsl::int_vector<> head_syms_;  ///< the runs' symbols, bit-compressed, until derive() builds heads_
  sdsl::wt_huff_int<> heads_;
  ef_set f_starts_;
  std::array<std::uint64_t, 258> c_{};  ///< rows before symbol c; c_[257] = rows
  std::array<std::uint64_t, 258> r_{};  ///< runs whose symbol is below c
};

/// symbol_of for run_bwt from an index's byte maps (σ < 256: char_map; else byte + 1).
std::array<std::uint16_t, 256> run_symbols(const std::array<std::uint8_t, 256>& char_map, std::uint32_t sigma);

}  // namespace trawl::index
