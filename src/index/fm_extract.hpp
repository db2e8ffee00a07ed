// fm_extract.hpp — S''[b, b + len) from an FM-index by an LF walk leftwards from the nearest
// ISA sample at or after b + len: the extract of fm_dna and fm_wt.
#pragma once

#include <algorithm>
#include <cstdint>

#include "trawl/error.hpp"

namespace trawl::index {

/// `isa[p / isa_step]` is the row of text position p (a multiple of isa_step); row 0 is the
/// sentinel's suffix (position rows - 1). Writes the symbols into out.
template <class Fm, class Isa>
void extract_by_lf(const Fm& fm, const Isa& isa, std::uint64_t isa_step, std::uint64_t b, std::uint64_t len,
                   std::uint64_t* out) {
  if (len == 0) return;
  const std::uint64_t n = fm.size() - 1, e = b + len;
  std::uint64_t p = std::min(n, (e + isa_step - 1) / isa_step * isa_step);
  std::uint64_t r = p == n ? 0 : isa[p / isa_step];
  while (p > b) {
    const unsigned s = fm.symbol(r);
    if (s == 0) throw error(errc::bad_format, "index is corrupt: the BWT's sentinel inside S''");
    --p;
    if (p < e) out[p - b] = s;
    r = fm.lf(r);
  }
}

}  // namespace trawl::index
