// ef_set.hpp — an Elias–Fano set (sdsl's sd_vector) with its rank and select supports.
#pragma once

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include <sdsl/sd_vector.hpp>
#include <tbb/parallel_for.h>

namespace trawl::index {

/// An Elias–Fano set with its rank/select supports (re-bound after a move or load).
struct ef_set {
  sdsl::sd_vector<> bits;
  sdsl::sd_vector<>::rank_1_type rank;
  sdsl::sd_vector<>::select_1_type select;

  ef_set() = default;
  ef_set(const ef_set&) = delete;
  ef_set& operator=(const ef_set&) = delete;
  ef_set(ef_set&& o) noexcept { *this = std::move(o); }
  ef_set& operator=(ef_set&& o) noexcept {
    bits = std::move(o.bits);
    bind();
    return *this;
  }
  /// Members (strictly increasing, all < universe).
  void assign(std::uint64_t universe, const std::vector<std::uint64_t>& members) {
    std::size_t i = 0;
    assign_each(universe, members.size(), [&] { return members[i++]; });
  }
  /// `count` members given by next() in increasing order, all < universe.
  template <class Next>
  void assign_each(std::uint64_t universe, std::uint64_t count, Next&& next) {
    sdsl::sd_vector_builder b(universe, count);
    for (std::uint64_t i = 0; i < count; ++i) b.set(next());
    bits = sdsl::sd_vector<>(b);
    bind();
  }
  void bind() {
    rank = sdsl::sd_vector<>::rank_1_type(&bits);
    select = sdsl::sd_vector<>::select_1_type(&bits);
  }
  /// Number of members < x (x <= universe).
  [[nodiscard]] std::uint64_t count_below(std::uint64_t x) const { return rank(x); }
  /// The i-th member, 0-based.
  [[nodiscard]] std::uint64_t at(std::uint64_t i) const { return select(i + 1); }
  /// Members b..e-1 into out: one select, then a pass over the high bits (decode_all below
  /// spreads a whole set over the workers).
  void decode(std::uint64_t b, std::uint64_t e, std::uint64_t* out) const {
    if (b >= e) return;
    const std::uint64_t* high = bits.high.data();
    const std::uint64_t wl = bits.wl;
    std::uint64_t pos = bits.high_1_select(b + 1);  // the high bit of member i
    for (std::uint64_t i = b;; ++i) {
      out[i - b] = ((pos - i) << wl) | (wl == 0 ? 0 : bits.low[i]);
      if (i + 1 == e) return;
      // the next set high bit after pos
      std::uint64_t word = (pos + 1) >> 6;
      std::uint64_t w = high[word] >> ((pos + 1) & 63) << ((pos + 1) & 63);
      while (w == 0) w = high[++word];
      pos = word * 64 + static_cast<std::uint64_t>(std::countr_zero(w));
    }
  }
};

/// The first k members of s into out, by pieces in parallel.
inline void decode_all(const ef_set& s, std::uint64_t k, std::uint64_t* out) {
  constexpr std::uint64_t piece = std::uint64_t{1} << 16;
  tbb::parallel_for(std::uint64_t{0}, (k + piece - 1) / piece, [&](std::uint64_t i) {
    s.decode(i * piece, std::min(k, (i + 1) * piece), out + i * piece);
  });
}

}  // namespace trawl::index
