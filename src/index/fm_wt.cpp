// fm_wt.cpp — building fm_wt from the file's section: the Huffman shape, the nodes' bits
// written by chunks of rows in parallel; its backward search and extract.
#include "index/fm_wt.hpp"

#include "index/fm_extract.hpp"

#include <algorithm>
#include <atomic>
#include <queue>
#include <utility>

#include <tbb/parallel_for.h>

namespace trawl::index {

line_bits::line_bits(std::uint64_t n) : nlines_(n / bits_per_line + 1), lines_(new line[nlines_]()) {}

void line_bits::finish() {
  std::uint64_t ones = 0;
  for (std::uint64_t i = 0; i < nlines_; ++i) {
    lines_[i].before = ones;
    for (const std::uint64_t w : lines_[i].w) ones += std::popcount(w);
  }
}

namespace {

/// A code tree of the symbols with nonzero weight (at least two), as the parents of a Huffman
/// merge: entry i < 256 is symbol i's leaf, entries from 256 the merged nodes, the last the
/// root. The weights are halved until no code is longer than `max_depth` (at least
/// log2 of the symbols' number, which all weights 1 reach).
struct huffman {
  std::vector<std::array<std::int32_t, 2>> kids;  // of node 256 + j
  std::array<std::uint8_t, 256> depth{};

  huffman(std::array<std::uint64_t, 256> w, unsigned max_depth) {
    for (;;) {
      using item = std::pair<std::uint64_t, std::int32_t>;  // weight, then id: a fixed order
      std::priority_queue<item, std::vector<item>, std::greater<>> q;
      for (std::int32_t c = 0; c < 256; ++c)
        if (w[static_cast<unsigned>(c)] > 0) q.emplace(w[static_cast<unsigned>(c)], c);
      kids.clear();
      while (q.size() > 1) {
        const item a = q.top();
        q.pop();
        const item b = q.top();
        q.pop();
        kids.push_back({a.second, b.second});
        q.emplace(a.first + b.first, static_cast<std::int32_t>(255 + kids.size()));
      }
      // depths from the root down (a parent comes after its children)
      std::vector<unsigned> d(256 + kids.size(), 0);
      unsigned deepest = 0;
      for (std::size_t j = kids.size(); j-- > 0;)
        for (const std::int32_t k : kids[j]) {
          d[static_cast<std::size_t>(k)] = d[256 + j] + 1;
          deepest = std::max(deepest, d[static_cast<std::size_t>(k)]);
        }
      if (deepest <= max_depth) {
        for (unsigned c = 0; c < 256; ++c) depth[c] = static_cast<std::uint8_t>(w[c] > 0 ? d[c] : 0);
        return;
      }
      for (auto& x : w)
        if (x > 0) x = (x + 1) / 2;
    }
  }
};

}  // namespace

fm_wt::fm_wt(std::uint64_t rows, std::uint64_t sentinel, std::string_view bwt, const sdsl::int_vector<>& marked,
             sdsl::int_vector<> samples, std::uint64_t step, unsigned max_code)
    : rows_(rows), step_(step), samples_(std::move(samples)) {
  // the symbol of row r: the sentinel's row holds symbol 0
  const auto* const bytes = reinterpret_cast<const unsigned char*>(bwt.data());
  const auto symbol_at = [&](std::uint64_t r) -> unsigned { return r == sentinel ? 0u : bytes[r - (r > sentinel ? 1 : 0)]; };
  constexpr std::uint64_t chunk = std::uint64_t{1} << 18;
  const std::uint64_t chunks = (rows + chunk - 1) / chunk;
  std::vector<std::array<std::uint64_t, 256>> count(chunks);  // per chunk of rows, per symbol
  tbb::parallel_for(std::uint64_t{0}, chunks, [&](std::uint64_t ch) {
    std::array<std::uint64_t, 256> t{};
    for (std::uint64_t r = ch * chunk, e = std::min(rows, r + chunk); r < e; ++r) ++t[symbol_at(r)];
    count[ch] = t;
  });
  std::array<std::uint64_t, 256> total{};
  for (const auto& t : count)
    for (unsigned c = 0; c < 256; ++c) total[c] += t[c];
  for (unsigned c = 0; c < 256; ++c) c_[c + 1] = c_[c] + total[c];

  // The tree, its nodes renumbered from the root breadth first; each symbol's code.
  const huffman h(total, std::clamp(max_code, 8u, 32u));
  const std::size_t inner = h.kids.size();
  std::vector<std::int32_t> number(256 + inner, -1);
  std::vector<std::size_t> order{256 + inner - 1};
  for (std::size_t i = 0; i < order.size(); ++i)
    for (const std::int32_t k : h.kids[order[i] - 256])
      if (k >= 256) order.push_back(static_cast<std::size_t>(k));
  for (std::size_t i = 0; i < order.size(); ++i) number[order[i]] = static_cast<std::int32_t>(i);
  nodes_.resize(inner);
  for (std::size_t i = 0; i < inner; ++i)
    for (unsigned b = 0; b < 2; ++b) {
      const std::int32_t k = h.kids[order[i] - 256][b];
      nodes_[i].child[b] = k >= 256 ? number[static_cast<std::size_t>(k)] : ~k;
    }
  // codes: the branches from the root, the first in the lowest bit; each node's rows
  for (unsigned c = 0; c < 256; ++c) len_[c] = h.depth[c];
  {
    std::vector<std::pair<std::int32_t, std::uint32_t>> todo{{0, 0u}};  // node, code so far
    std::vector<unsigned> depth_of(inner, 0);
    while (!todo.empty()) {
      const auto [v, code] = todo.back();
      todo.pop_back();
      for (unsigned b = 0; b < 2; ++b) {
        const std::int32_t k = nodes_[static_cast<std::size_t>(v)].child[b];
        const std::uint32_t next = code | (std::uint32_t{b} << depth_of[static_cast<std::size_t>(v)]);
        if (k >= 0) {
          depth_of[static_cast<std::size_t>(k)] = depth_of[static_cast<std::size_t>(v)] + 1;
          todo.emplace_back(k, next);
        } else {
          code_[static_cast<unsigned>(~k)] = next;
        }
      }
    }
  }
  // the nodes on symbol c's path, in order
  const auto walk = [&](unsigned c, auto&& visit) {
    std::int32_t v = 0;
    for (unsigned d = 0; d < len_[c]; ++d) {
      const unsigned b = (code_[c] >> d) & 1;
      visit(static_cast<std::size_t>(v), b);
      v = nodes_[static_cast<std::size_t>(v)].child[b];
    }
  };
  // each chunk's first bit in each node
  std::vector<std::vector<std::uint64_t>> start(chunks + 1, std::vector<std::uint64_t>(inner, 0));
  for (std::uint64_t ch = 0; ch < chunks; ++ch) {
    start[ch + 1] = start[ch];
    for (unsigned c = 0; c < 256; ++c)
      if (count[ch][c] > 0) walk(c, [&](std::size_t v, unsigned) { start[ch + 1][v] += count[ch][c]; });
  }
  std::uint64_t at = 0;
  for (std::size_t v = 0; v < inner; ++v) {
    nodes_[v].off = at;
    at += start[chunks][v];
  }
  bits_ = line_bits(at);
  tbb::parallel_for(std::uint64_t{0}, chunks, [&](std::uint64_t ch) {
    std::vector<std::uint64_t> pos(inner), acc(inner, 0);
    for (std::size_t v = 0; v < inner; ++v) pos[v] = nodes_[v].off + start[ch][v];
    // a word is written whole once its last bit is in; the words a chunk shares with its
    // neighbours (its first and last in each node) by an atomic or
    const auto flush = [&](std::size_t v, std::uint64_t p) {
      if (acc[v] != 0) std::atomic_ref<std::uint64_t>(bits_.word(p >> 6)).fetch_or(acc[v], std::memory_order_relaxed);
      acc[v] = 0;
    };
    for (std::uint64_t r = ch * chunk, e = std::min(rows, r + chunk); r < e; ++r)
      walk(symbol_at(r), [&](std::size_t v, unsigned b) {
        const std::uint64_t p = pos[v]++;
        acc[v] |= std::uint64_t{b} << (p & 63);
        if ((p & 63) == 63) flush(v, p);
      });
    for (std::size_t v = 0; v < inner; ++v) flush(v, pos[v] - 1);
  });
  bits_.finish();
  for (auto& x : nodes_) x.ones = bits_.rank(x.off);

  marked_ = line_bits(rows);
  for (const std::uint64_t r : marked) marked_.word(r >> 6) |= std::uint64_t{1} << (r & 63);
  marked_.finish();
  // the ISA at every isa_step-th text position (a multiple of step), from the samples; the
  // position rows - 1 (the sentinel's suffix) is row 0
  isa_step_ = step * 4;
  isa_ = sdsl::int_vector<>((rows - 1) / isa_step_ + 1, 0, static_cast<std::uint8_t>(std::bit_width(rows)));
  for (std::uint64_t j = 0; j < marked.size(); ++j)
    if (const std::uint64_t p = samples_[j] * step; p % isa_step_ == 0) isa_[p / isa_step_] = marked[j];
}

std::uint64_t fm_wt::rank_of(unsigned c, std::uint64_t r) const {
  std::int32_t v = 0;
  for (unsigned d = 0; d < len_[c]; ++d) {
    const node& x = nodes_[static_cast<std::uint32_t>(v)];
    const unsigned b = (code_[c] >> d) & 1;
    const std::uint64_t ones = bits_.rank(x.off + r) - x.ones;
    r = b ? ones : r - ones;
    v = x.child[b];
  }
  return r;
}

std::uint64_t fm_wt::backward_search(const std::uint64_t* sym, std::size_t m, std::uint64_t& lb, std::uint64_t& rb) const {
  std::uint64_t sp = 0, ep = rows_;  // the rows [sp, ep)
  for (std::size_t i = m; i-- > 0 && sp < ep;) {
    if (sym[i] == 0 || sym[i] > max_sigma || len_[sym[i]] == 0) return 0;
    const auto c = static_cast<unsigned>(sym[i]);
    sp = c_[c] + rank_of(c, sp);
    ep = c_[c] + rank_of(c, ep);
  }
  if (sp >= ep) return 0;
  lb = sp, rb = ep - 1;
  return ep - sp;
}

void fm_wt::extract(std::uint64_t b, std::uint64_t len, std::uint64_t* out) const {
  extract_by_lf(*this, isa_, isa_step_, b, len, out);
}

}  // namespace trawl::index
