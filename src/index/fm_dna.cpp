// fm_dna.cpp — building fm_dna from the file's section, its backward search and extract.
#include "index/fm_dna.hpp"

#include "index/fm_extract.hpp"

#include <algorithm>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

namespace trawl::index {

fm_dna::fm_dna(std::uint64_t rows, std::uint64_t sentinel, std::string_view bwt, const sdsl::int_vector<>& marked,
               sdsl::int_vector<> samples, std::uint64_t step)
    : rows_(rows), sentinel_(sentinel), step_(step), samples_(std::move(samples)) {
  const std::uint64_t nblocks = (rows >> block_shift) + 1;
  blocks_.reset(new block[nblocks]);  // every field written below, each block by one task
  // Chunks of whole superblocks: each writes its blocks' bits and marks and counts its codes
  // and marks; a prefix over the chunks, then each fills its blocks' counts.
  constexpr std::uint64_t chunk_blocks = std::uint64_t{1} << (super_shift - block_shift);
  const std::uint64_t chunks = (nblocks + chunk_blocks - 1) / chunk_blocks;
  std::vector<std::array<std::uint64_t, 5>> total(chunks + 1);  // codes 0..3 (the sentinel as 0), marks
  // the code of row r (the sentinel's row as 0: occ leaves it out)
  const auto code_at = [&](std::uint64_t r) -> std::uint64_t {
    return r == sentinel ? 0 : static_cast<unsigned char>(bwt[r - (r > sentinel ? 1 : 0)]) - 1u;
  };
  tbb::parallel_for(std::uint64_t{0}, chunks, [&](std::uint64_t ch) {
    std::array<std::uint64_t, 5> t{};
    auto m = std::lower_bound(marked.begin(), marked.end(), ch << super_shift);
    for (std::uint64_t b = ch * chunk_blocks, e = std::min(nblocks, b + chunk_blocks); b < e; ++b) {
      block k;
      k.mrank = 0;
      k.count = {};
      for (unsigned w = 0; w < 2; ++w) {
        const std::uint64_t r0 = (b << block_shift) + 64 * w, r1 = std::min(rows, r0 + 64);
        std::uint64_t lo = 0, hi = 0;
        if (r0 < r1 && (sentinel < r0 || sentinel >= r1)) {  // 64 bytes in a row of the BWT
          const auto* p = reinterpret_cast<const unsigned char*>(bwt.data()) + (r0 - (r0 > sentinel ? 1 : 0));
          for (std::uint64_t i = 0; i < r1 - r0; ++i) {
            const std::uint64_t c = p[i] - 1u;
            lo |= (c & 1) << i;
            hi |= (c >> 1) << i;
          }
        } else {
          for (std::uint64_t r = r0; r < r1; ++r) {
            const std::uint64_t c = code_at(r);
            lo |= (c & 1) << (r - r0);
            hi |= (c >> 1) << (r - r0);
          }
        }
        const std::uint64_t valid = r1 > r0 ? (r1 - r0 == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << (r1 - r0)) - 1) : 0;
        t[1] += std::popcount(lo & ~hi), t[2] += std::popcount(~lo & hi), t[3] += std::popcount(lo & hi);
        t[0] += std::popcount(~lo & ~hi & valid);
        k.lo[w] = lo, k.hi[w] = hi, k.marked[w] = 0;
      }
      for (const std::uint64_t end = (b + 1) << block_shift; m != marked.end() && *m < end; ++m, ++t[4])
        k.marked[(*m >> 6) & 1] |= std::uint64_t{1} << (*m & 63);
      blocks_[b] = k;
    }
    total[ch + 1] = t;
  });
  super_.resize(chunks + 1);
  for (std::uint64_t ch = 0; ch < chunks; ++ch)
    for (unsigned c = 0; c < 5; ++c) total[ch + 1][c] += total[ch][c];
  for (std::uint64_t ch = 0; ch <= chunks; ++ch) std::copy_n(total[ch].begin(), 4, super_[ch].begin());
  tbb::parallel_for(std::uint64_t{0}, chunks, [&](std::uint64_t ch) {
    std::array<std::uint64_t, 4> in{};  // codes in the superblock before the block
    std::uint64_t marks = total[ch][4];
    for (std::uint64_t b = ch * chunk_blocks, e = std::min(nblocks, b + chunk_blocks); b < e; ++b) {
      block& k = blocks_[b];
      k.mrank = marks;
      for (unsigned c = 0; c < 4; ++c) k.count[c] = static_cast<std::uint16_t>(in[c]);
      const std::uint64_t n0 = std::popcount(~k.lo[0] & ~k.hi[0]) + std::popcount(~k.lo[1] & ~k.hi[1]);
      const std::uint64_t n1 = std::popcount(k.lo[0] & ~k.hi[0]) + std::popcount(k.lo[1] & ~k.hi[1]);
      const std::uint64_t n2 = std::popcount(~k.lo[0] & k.hi[0]) + std::popcount(~k.lo[1] & k.hi[1]);
      in[0] += n0, in[1] += n1, in[2] += n2, in[3] += 128 - n0 - n1 - n2;  // the rows past the end only in the last block
      marks += std::popcount(k.marked[0]) + std::popcount(k.marked[1]);
    }
  });
  // C: row 0 is the sentinel's suffix, then the suffixes starting with each symbol
  const auto& n = total[chunks];
  c_[0] = 1;
  for (unsigned c = 1; c < 4; ++c) c_[c] = c_[c - 1] + n[c - 1] - (c == 1 ? 1 : 0);
  // the ISA at every isa_step-th text position (a multiple of step), from the samples; the
  // position rows - 1 (the sentinel's suffix) is row 0
  isa_step_ = step * 4;
  isa_.assign((rows - 1) / isa_step_ + 1, 0);
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, marked.size(), 1 << 16), [&](const auto& rg) {
    for (std::uint64_t j = rg.begin(); j < rg.end(); ++j)
      if (const std::uint64_t p = samples_[j] * step; p % isa_step_ == 0) isa_[p / isa_step_] = marked[j];
  });
}

std::uint64_t fm_dna::backward_search(const std::uint64_t* sym, std::size_t m, std::uint64_t& lb, std::uint64_t& rb) const {
  std::uint64_t sp = 0, ep = rows_;  // the rows [sp, ep)
  for (std::size_t i = m; i-- > 0 && sp < ep;) {
    if (sym[i] == 0 || sym[i] > max_sigma) return 0;
    const auto c = static_cast<unsigned>(sym[i] - 1);
    sp = c_[c] + occ(blocks_[sp >> block_shift], c, sp);
    ep = c_[c] + occ(blocks_[ep >> block_shift], c, ep);
  }
  if (sp >= ep) return 0;
  lb = sp, rb = ep - 1;
  return ep - sp;
}

void fm_dna::extract(std::uint64_t b, std::uint64_t len, std::uint64_t* out) const {
  extract_by_lf(*this, isa_, isa_step_, b, len, out);
}

}  // namespace trawl::index
