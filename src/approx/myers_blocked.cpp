// myers_blocked.cpp — Myers' bit-vector algorithm over ⌈m/64⌉ blocks of 64 rows with
// Ukkonen's cut-off: only blocks that may still hold a cell <= k are advanced (Myers 1999,
// section 4; activation rule as in edlib). O(n·⌈m/64⌉) worst, O(n·⌈k/64⌉) expected time.
#include <algorithm>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/myers_block_step.hpp"

namespace trawl::approx_detail {

blocked_byte_codes make_blocked_byte_codes(const compiled_pattern& p) {
  blocked_byte_codes r;
  const std::size_t nb = p.words;
  for (std::size_t c = 0; c < 256; ++c) {
    const std::uint64_t* eq = p.eq(static_cast<unsigned char>(c));
    if (std::all_of(eq, eq + nb, [](std::uint64_t x) { return x == 0; })) continue;
    if (r.values == 8) return {};
    std::size_t code = 0;
    for (std::size_t i = 1; i <= r.rows && code == 0; ++i)
      if (std::equal(eq, eq + nb, p.eq(r.row_byte[i]))) code = i;
    if (code == 0) {
      if (r.rows == 7) return {};
      code = ++r.rows;
      r.row_byte[code] = static_cast<std::uint8_t>(c);
    }
    r.byte_code[c] = static_cast<std::uint8_t>(code);
    r.value[r.values] = static_cast<std::uint8_t>(c);
    r.code[r.values] = static_cast<std::uint8_t>(code);
    r.nib_lo[c & 15] = static_cast<std::uint8_t>(r.nib_lo[c & 15] | (1u << r.values));
    r.nib_hi[c >> 4] = static_cast<std::uint8_t>(r.nib_hi[c >> 4] | (1u << r.values));
    ++r.values;
  }
  r.small = true;
  return r;
}

void scan_myers_blocked(const compiled_pattern& p, std::string_view seq, std::size_t from,
                        std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink) {
  const std::size_t nb = p.words;
  const std::size_t rows_last = p.m - (nb - 1) * 64;
  auto rows = [&](std::size_t b) -> std::int64_t { return b + 1 < nb ? 64 : static_cast<std::int64_t>(rows_last); };
  auto hibit = [&](std::size_t b) -> std::uint64_t { return std::uint64_t{1} << (rows(b) - 1); };
  std::vector<std::uint64_t> pv(nb, ~std::uint64_t{0}), mv(nb, 0), hib(nb);
  std::vector<std::int64_t> score(nb);  // D at each block's bottom row (row m for the last)
  for (std::size_t b = 0; b < nb; ++b) {
    hib[b] = hibit(b);
    score[b] = static_cast<std::int64_t>(std::min((b + 1) * 64, p.m));
  }
  const auto kk = static_cast<std::int64_t>(k);
  // Blocks 0..last are active; cells below them are known to be > k. Initially D[i] = i.
  std::size_t last = std::min<std::size_t>((k + 1 + 63) / 64, nb) - 1;
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  for (std::size_t j = from; j < to; ++j) {
    const std::uint64_t* eq = p.eq(text[j]);
    int hout = 0;  // row 0 is all zeros: no horizontal change enters block 0
    for (std::size_t b = 0; b <= last; ++b) {
      hout = myers_block_step(pv[b], mv[b], eq[b], hout, hib[b]);
      score[b] += hout;
    }
    // The top cell of block last+1 can only reach <= k from the bottom of block `last`: by a
    // match from a previous-column value <= k, or because that bottom value just decreased.
    if (last + 1 < nb && score[last] - hout <= kk && ((eq[last + 1] & 1) != 0 || hout < 0)) {
      ++last;
      pv[last] = ~std::uint64_t{0};  // assume +1 all the way down (the block was > k)
      mv[last] = 0;
      const int h = myers_block_step(pv[last], mv[last], eq[last], hout, hib[last]);
      score[last] = score[last - 1] - hout + rows(last) + h;
    }
    // Drop trailing blocks whose every cell is > k (bottom >= k + rows). Block 0 stays.
    while (last > 0 && score[last] >= kk + rows(last)) --last;
    if (last + 1 == nb && score[last] <= kk && j >= report_from)
      sink.on_end(j, static_cast<std::uint32_t>(score[last]));
  }
}

}  // namespace trawl::approx_detail
