// align.cpp — the hit pipeline's alignments: where an approximate hit starts (reverse global
// Myers over the hit's window, O(⌈m/64⌉·(m+k)), or a band of width 2k+1 for long patterns,
// O((m+k)·k); starts.hpp is the entry) and its CIGAR (a banded global DP with traceback, the
// band doubled until the distance fits: O((m+n)·d)).
#include <algorithm>
#include <string>
#include <vector>

#include "approx/approx_internal.hpp"
#include "approx/banded.hpp"
#include "approx/myers_block_step.hpp"
#include "trawl/error.hpp"

namespace trawl::approx_detail {

namespace {

/// Band cells that cost about one 64-row Myers block step: the band is taken when its 2k + 1
/// cells per column are fewer than this many per word of the pattern.
constexpr std::uint64_t banded_cells_per_word = 8;

/// Calls at(l), ascending, for every length l with ED(p, seq[j-l+1..j]) == score, over
/// l <= min(m + score, j + 1 - lo) (no longer substring can be at distance score).
template <class At>
void lengths_at_score(const compiled_pattern& p, std::string_view seq, std::uint64_t j, std::uint32_t score,
                      std::uint64_t lo, At&& at) {
  // Rows: the pattern reversed; columns: seq[j], seq[j-1], ... Global in both: D[i][0] = i and
  // D[0][l] = l, so D[m][l] = ED(P, seq[j-l+1..j]).
  const std::uint64_t max_len = std::min<std::uint64_t>(p.m + score, j + 1 - lo);
  const std::size_t nb = p.words;
  if (2 * std::uint64_t{score} + 1 < nb * banded_cells_per_word) {  // a long pattern with few errors
    const auto* t = reinterpret_cast<const unsigned char*>(seq.data());
    banded_lengths_at_score(
        p.m, score, max_len, [&](std::uint64_t i, std::uint64_t l) { return p.match(p.m - i, t[j + 1 - l]); }, at);
    return;
  }
  const std::size_t rows_last = p.m - (nb - 1) * 64;
  // Small patterns keep their blocks on the stack: this runs once per reported hit.
  constexpr std::size_t small = 4;
  std::uint64_t pv_small[small], mv_small[small];
  std::vector<std::uint64_t> pv_big, mv_big;
  std::uint64_t* pv = pv_small;
  std::uint64_t* mv = mv_small;
  if (nb > small) {
    pv_big.resize(nb);
    mv_big.resize(nb);
    pv = pv_big.data();
    mv = mv_big.data();
  }
  for (std::size_t b = 0; b < nb; ++b) pv[b] = ~std::uint64_t{0}, mv[b] = 0;
  std::int64_t d = static_cast<std::int64_t>(p.m);  // D[m][0]
  if (d == score) at(std::uint64_t{0});
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  const std::uint64_t last_hib = std::uint64_t{1} << (rows_last - 1);
  for (std::uint64_t l = 1; l <= max_len; ++l) {
    const std::uint64_t* eq = p.rpeq.data() + text[j + 1 - l] * nb;
    int h = 1;  // row 0 grows by one per column (global alignment of the text side)
    for (std::size_t b = 0; b + 1 < nb; ++b) h = myers_block_step(pv[b], mv[b], eq[b], h, std::uint64_t{1} << 63);
    h = myers_block_step(pv[nb - 1], mv[nb - 1], eq[nb - 1], h, last_hib);
    d += h;
    if (d == score) at(l);
  }
}

}  // namespace

std::uint64_t leftmost_start(const compiled_pattern& p, std::string_view seq, std::uint64_t j, std::uint32_t score,
                             std::uint64_t lo) {
  if (score == 0) return j + 1 - p.m;  // an exact occurrence has exactly m bytes
  std::uint64_t best_len = ~std::uint64_t{0};  // the largest length at score
  lengths_at_score(p, seq, j, score, lo, [&](std::uint64_t l) { best_len = l; });
  if (best_len == ~std::uint64_t{0}) return j + 1;  // unreachable when score == score_j
  return j + 1 - best_len;
}

void every_start(const compiled_pattern& p, std::string_view seq, std::uint64_t j, std::uint32_t score,
                 std::uint64_t lo, std::vector<std::uint64_t>& starts) {
  starts.clear();
  lengths_at_score(p, seq, j, score, lo, [&](std::uint64_t l) { starts.push_back(j + 1 - l); });
  std::reverse(starts.begin(), starts.end());
}

void leftmost_starts(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<start_request> reqs,
                     const start_kernels& ks) {
  // m <= 32 on AVX-512BW: 64 requests at a time in 16/32-bit lanes (on AVX2: 32). Other one-word patterns
  // on AVX-512: 8 requests per register. Otherwise (and for the few the vector path
  // declines, next to the text's start) one by one.
  if (p.m <= 32 && ks.reqs != nullptr && reqs.size() >= ks.min_batch) return ks.reqs(p, seq, lo, reqs);
  constexpr std::size_t G = 8;
  for (std::size_t first = 0; first < reqs.size(); first += G) {
    const std::size_t g = std::min(G, reqs.size() - first);
    start_request* rq = reqs.data() + first;
    if (p.words == 1 && ks.eight != nullptr && ks.eight(p, seq, lo, rq, g)) continue;
    for (std::size_t i = 0; i < g; ++i) rq[i].start = leftmost_start(p, seq, rq[i].j, rq[i].score, lo);
  }
}

void leftmost_starts(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::span<hit> hits,
                     const start_kernels& ks) {
  if (p.m <= 32 && ks.hits != nullptr) return ks.hits(p, seq, lo, hits);
  std::vector<start_request> reqs(hits.size());
  for (std::size_t i = 0; i < hits.size(); ++i) reqs[i] = {hits[i].end - 1, hits[i].errors, 0};
  leftmost_starts(p, seq, lo, std::span<start_request>(reqs), ks);
  for (std::size_t i = 0; i < hits.size(); ++i) hits[i].start = reqs[i].start;
}

}  // namespace trawl::approx_detail

namespace trawl {

std::uint64_t approx_leftmost_start(std::string_view pattern, std::string_view text, std::uint64_t j,
                                    std::uint32_t score, const match_rules& options, std::uint64_t lo) {
  if (j >= text.size() || lo > j + 1) throw error(errc::invalid_argument, "end position outside the text");
  auto p = approx_detail::compile_pattern(pattern, 0, strand::forward, options);
  return approx_detail::leftmost_start(p, text, j, score, lo);
}

std::string align_cigar(std::string_view pattern, std::string_view text, const match_rules& options) {
  const std::size_t m = pattern.size(), n = text.size();
  if (m == 0) return n == 0 ? std::string{} : std::to_string(n) + "D";
  const auto p = approx_detail::compile_pattern(pattern, 0, strand::forward, options);
  if (options.hamming) {
    // Substitutions only: the alignment is the diagonal, one =/X per position.
    if (m != n) throw error(errc::invalid_argument, "Hamming alignment needs equal lengths");
    std::string cigar;
    for (std::size_t i = 0; i < m;) {
      const bool eq = p.match(i, static_cast<unsigned char>(text[i]));
      std::size_t run = 1;
      while (i + run < m && p.match(i + run, static_cast<unsigned char>(text[i + run])) == eq) ++run;
      cigar += std::to_string(run) + (eq ? '=' : 'X');
      i += run;
    }
    return cigar;
  }
  std::string ops;  // one letter per column of the alignment
  const auto* t = reinterpret_cast<const unsigned char*>(text.data());
  if (!approx_detail::banded_alignment(
          m, n, [&](std::uint64_t i, std::uint64_t jj) { return p.match(i - 1, t[jj - 1]); }, std::uint64_t{1} << 31, ops))
    throw error(errc::invalid_argument, "alignment too large for align_cigar (over 2^31 DP cells in its band)");
  std::string cigar;
  for (std::size_t a = 0; a < ops.size();) {
    std::size_t b = a;
    while (b < ops.size() && ops[b] == ops[a]) ++b;
    cigar += std::to_string(b - a);
    cigar.push_back(ops[a]);
    a = b;
  }
  return cigar;
}

std::uint32_t cigar_errors(std::string_view cigar) {
  std::uint32_t errors = 0, run = 0;
  for (char c : cigar) {
    if (c >= '0' && c <= '9') {
      run = run * 10 + static_cast<std::uint32_t>(c - '0');
    } else {
      if (c == 'X' || c == 'I' || c == 'D') errors += run;
      run = 0;
    }
  }
  return errors;
}

}  // namespace trawl
