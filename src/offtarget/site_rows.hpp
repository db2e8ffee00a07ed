// site_rows.hpp — the alignment of a guide at a PAM, with bulges, one row of states at a time:
// the best alignment of the guide's codes read outward from the PAM against the genome's bases
// read the same way, within the limits, and on the host its columns. One function for the host
// (site_align.hpp's align_counts and align_traced_into) and the device (cuda/kernels/site_test.cu);
// on the host a row of up to 16 states is one SSE2 vector (vector_rows_of). The alignment is
// offtarget.cpp's align_bits (global on the guide, free at the far end of the genome's bases;
// no bulge as the first or last column; no DNA bulge next to an RNA bulge).
#pragma once

#if defined(__CUDACC__)
#define TRAWL_HOST_DEVICE __host__ __device__
#else
#define TRAWL_HOST_DEVICE
#endif

// the host's rows as SSE2 vectors (vector_rows_of), outside CUDA sources
#if !defined(__CUDACC__) && defined(__SSE2__)
#define TRAWL_SITE_ROWS_SSE2 1
#include <emmintrin.h>

#include <cstdint>
#else
#define TRAWL_SITE_ROWS_SSE2 0
#endif

namespace trawl::offtarget::site_rows {

/// The most states a row holds: (DNA bulges + 1) (RNA bulges + 1) 3.
inline constexpr int max_states = 75;
/// A row's bytes: max_states rounded up to a word, so that the host clears a row in stores of
/// a known count (a clear of S bytes becomes `rep stos`, whose start-up costs more than a row);
/// the device clears the row's S states.
inline constexpr int row_bytes = (max_states + 7) / 8 * 8;

/// The counts of the best alignment (found false: none within the limits).
struct row_counts {
  bool found = false;
  int mismatches = 0, dna_bulges = 0, rna_bulges = 0;
};

/// The longest guide a traced alignment takes (offtarget's limit on guides).
inline constexpr int max_traced_guide = 100;

/// Where a traced alignment keeps every row of states, m + 1 rows of row_bytes, from which
/// its columns are traced back.
struct trace_table {
  unsigned char rows[(max_traced_guide + 1) * row_bytes];
};

#if TRAWL_SITE_ROWS_SSE2
/// A block's first state in a row of R RNA-bulge counts: block (d, r) at (d R + r) 3.
constexpr int block_of(int d, int r, int R) { return (d * R + r) * 3; }

/// Whether the host runs a row of (D, R) as one SSE2 vector: its D R 3 states fit 16 bytes.
template <int D, int R>
inline constexpr bool vector_rows = D != 0 && R != 0 && D * R * 3 <= 16;

/// best_alignment_of's rows for vector_rows<D, R>, each row one SSE2 vector of its states:
/// within max_mm the states the scalar loop writes (row i's DNA-bulge states set while row i
/// is read, row i + 1 written whole); a state past max_mm, unreached there, may hold its cost
/// here. False when a row has no state within max_mm (no alignment).
template <int D, int R, class Guide, class Base, class RowAt>
bool vector_rows_of(int m, int n, const Guide& guide, const Base& base, int max_mm, const RowAt& row_at) {
  constexpr unsigned char unreached = 255;
  const auto block = [](int d, int r) { return block_of(d, r, R); };
  struct lanes {
    std::uint64_t lo = ~std::uint64_t{0}, hi = ~std::uint64_t{0};  // every byte 0xFF
    constexpr void set(int at, std::uint64_t v) {
      std::uint64_t& w = at < 8 ? lo : hi;
      const int s = 8 * (at & 7);
      w = (w & ~(std::uint64_t{0xFF} << s)) | (v << s);
    }
    [[nodiscard]] __m128i vec() const { return _mm_set_epi64x(static_cast<long long>(hi), static_cast<long long>(lo)); }
  };
  // 0xFF but at each block's first byte (its base-pair state): the other bytes of a min over
  // a block's states are set to unreached before they move
  constexpr lanes others = [] {
    lanes l;
    for (int d = 0; d < D; ++d)
      for (int r = 0; r < R; ++r) l.set(block_of(d, r, R), 0);
    return l;
  }();
  // the RNA-bulge states (d, r + 1, 2) a row past the first writes: 0 there, else 0xFF
  constexpr lanes rna_to = [] {
    lanes l;
    for (int d = 0; d < D; ++d)
      for (int r = 0; r + 1 < R; ++r) l.set(block_of(d, r + 1, R) + 2, 0);
    return l;
  }();
  const __m128i ones = _mm_set1_epi8(static_cast<char>(unreached));
  // row 0 whole (its states past D R 3 too: their bytes move through the shifts)
  __m128i last = _mm_insert_epi16(ones, 0xFF00, 0);
  _mm_storeu_si128(reinterpret_cast<__m128i*>(row_at(0)), last);
  const __m128i not_blocks = others.vec(), rna_mask = rna_to.vec();
  const __m128i limit = _mm_set1_epi8(static_cast<char>(static_cast<unsigned char>(max_mm)));
  for (int i = 0; i < m; ++i) {
    unsigned char* const cur = row_at(i);
    unsigned char* const next = row_at(i + 1);
    const unsigned g = guide(i);
    // the genome base j = i + k a block of d - r = k pairs: its cost (0 or 1), unreached
    // where there is no such base
    std::uint64_t cost[D + R - 1];
    for (int k = -(R - 1); k < D; ++k) {
      const int j = i + k;
      cost[k + R - 1] = j >= 0 && j < n ? ((g & base(j)) != 0 ? 0u : 1u) : unreached;
    }
    lanes pair_cost, dna_to;
    for (int d = 0; d < D; ++d)
      for (int r = 0; r < R; ++r) {
        pair_cost.set(block(d, r), cost[d - r + R - 1]);
        // a DNA bulge into (d + 1, r, 1) from (d, r) where that block pairs a base, past row 0
        if (d + 1 < D && i > 0 && cost[d - r + R - 1] != unreached) dna_to.set(block(d + 1, r) + 1, 0);
      }
    __m128i c = last;
    // the DNA-bulge states, block d + 1's from block d's least of states 0 and 1 (a chain over d)
    const __m128i dna = dna_to.vec();
    for (int step = 1; step < D; ++step) {
      const __m128i a01 = _mm_or_si128(_mm_min_epu8(c, _mm_srli_si128(c, 1)), not_blocks);
      c = _mm_min_epu8(c, _mm_or_si128(_mm_slli_si128(a01, 3 * R + 1), dna));
    }
    const __m128i a01 = _mm_min_epu8(c, _mm_srli_si128(c, 1));
    const __m128i a02 = _mm_or_si128(_mm_min_epu8(c, _mm_srli_si128(c, 2)), not_blocks);
    // base pairs: the least of the block's states plus the pair's cost (past max_mm: no
    // alignment, whatever the byte holds)
    const __m128i pair = _mm_adds_epu8(_mm_min_epu8(a01, _mm_srli_si128(c, 2)), pair_cost.vec());
    // RNA bulges: (d, r + 1, 2) of the next row from (d, r)'s states 0 and 2, past row 0
    const __m128i rna = i > 0 ? _mm_or_si128(_mm_slli_si128(a02, 5), rna_mask) : ones;
    const __m128i row = _mm_min_epu8(pair, rna);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(next), row);
    _mm_storeu_si128(reinterpret_cast<__m128i*>(cur), c);
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(row, limit), row)) == 0) return false;  // none within max_mm
    last = row;
  }
  return true;
}
#endif

/// best_alignment (below) with (max_dna + 1, max_rna + 1) = (FixedD, FixedR) known at compile
/// time, where the loops over a row's states unroll (0: read from the limits).
template <int FixedD, int FixedR, class Guide, class Base>
TRAWL_HOST_DEVICE row_counts best_alignment_of(int m, int n, const Guide& guide, const Base& base, int max_mm,
                                               int max_dna, int max_rna, trace_table* trace, char* ops, int* ops_len) {
  // state (d, r, last) at (d * R + r) * 3 + last: the fewest mismatches of an alignment of the
  // row's guide bases with d DNA and r RNA bulges whose last column is a base pair (0), a DNA
  // bulge (1) or an RNA bulge (2). A state is reached by one kind of move only: a base pair
  // (last 0) from the row before, a DNA bulge (1) from the same row, an RNA bulge (2) from the
  // row before.
  constexpr unsigned unreached = 255;
  const int D = FixedD != 0 ? FixedD : max_dna + 1, R = FixedR != 0 ? FixedR : max_rna + 1, S = D * R * 3;
  unsigned char rolling[2][row_bytes];
  // row i: in the trace table when tracing (every row kept), else one of two rolling rows
  const auto row_at = [&](int i) { return trace ? trace->rows + i * row_bytes : rolling[i & 1]; };
  const auto clear = [S](unsigned char* row) {
#if defined(__CUDA_ARCH__)
    for (int s = 0; s < S; ++s) row[s] = unreached;
#else
    // a count known at compile time (a count known only at run time becomes `rep stos`): the
    // row's own states when its size is fixed, else the whole row
    (void)S;
    constexpr int bytes = FixedD != 0 && FixedR != 0 ? FixedD * FixedR * 3 : row_bytes;
    for (int s = 0; s < bytes; ++s) row[s] = unreached;
#endif
  };
  unsigned char* cur = row_at(0);
  row_counts best;
#if TRAWL_SITE_ROWS_SSE2
  if constexpr (vector_rows<FixedD, FixedR>) {  // row 0 written whole by the vector rows
    if (!vector_rows_of<FixedD, FixedR>(m, n, guide, base, max_mm, row_at)) return best;
    cur = row_at(m);
  } else  // NOLINT(readability-misleading-indentation): the scalar rows below
#endif
  {
    clear(cur);
    cur[0] = 0;
    for (int i = 0; i < m; ++i) {
      unsigned char* next = row_at(i + 1);
      clear(next);
      const unsigned g = guide(i);
      // Each state has one source block: state (d, r, 0) is reached only from (d, r, any last)
      // by a base pair, (d + 1, r, 1) only from (d, r, 0 or 1) by a DNA bulge (in this row, whose
      // blocks of d + 1 come later), (d, r + 1, 2) only from (d, r, 0 or 2) by an RNA bulge: each
      // is set once, to the least of its sources (unreached, 255, stays so).
      unsigned least = unreached;  // the least state of the next row
      for (int d = 0; d < D; ++d)
        for (int r = 0; r < R; ++r) {
          const int b = (d * R + r) * 3;
          const unsigned a0 = cur[b], a1 = cur[b + 1], a2 = cur[b + 2];
          const unsigned a01 = a0 < a1 ? a0 : a1, a02 = a0 < a2 ? a0 : a2;
          const int j = i + d - r;  // the genome base a base pair takes (below 0 only where unreached)
          if (j >= 0 && j < n) {
            const unsigned low = a01 < a2 ? a01 : a2;
            unsigned nc = low + ((g & base(j)) != 0 ? 0u : 1u);
            nc = nc <= static_cast<unsigned>(max_mm) ? nc : unreached;
            next[b] = static_cast<unsigned char>(nc);
            least = nc < least ? nc : least;
            // no bulge as the first column
            if (i > 0 && d + 1 < D) cur[b + 3 * R + 1] = static_cast<unsigned char>(a01);
          }
          if (i > 0 && r + 1 < R) {
            next[b + 5] = static_cast<unsigned char>(a02);
            least = a02 < least ? a02 : least;
          }
        }
      const bool any = least != unreached;
      if (!any) return best;
      cur = next;
    }
  }
  int best_state = 0;
  for (int d = 0; d < D; ++d)
    for (int r = 0; r < R; ++r) {
      const unsigned c = cur[(d * R + r) * 3];  // the last column is not a bulge
      if (c > static_cast<unsigned>(max_mm)) continue;  // unreached (or, from vector rows, past max_mm)
      const int mm = static_cast<int>(c), edits = mm + d + r, bulges = d + r;
      const int best_edits = best.mismatches + best.dna_bulges + best.rna_bulges,
                best_bulges = best.dna_bulges + best.rna_bulges;
      const bool better = !best.found || edits < best_edits ||
                          (edits == best_edits && (bulges < best_bulges ||
                                                   (bulges == best_bulges && (mm < best.mismatches ||
                                                                              (mm == best.mismatches && d < best.dna_bulges)))));
      if (better) best = row_counts{true, mm, d, r}, best_state = (d * R + r) * 3;
    }
  if (trace && best.found) {
    // Back from the best state to row 0's start: at each state, the move that first reached it
    // at its cost, which is the first of its sources, in the order the rows visit them, that
    // gives that cost. Then turned around.
    int len = 0;
    for (int row = m, st = best_state; row > 0 || st != 0;) {
      const unsigned c = row_at(row)[st];
      const int last = st % 3, d = st / 3 / R, r = st / 3 % R;
      if (last == 0) {  // a base pair from (row - 1, d, r, any last)
        const unsigned char* from = row_at(row - 1);
        const int i = row - 1, j = i + d - r;
        const unsigned mm = (guide(i) & base(j)) != 0 ? 0u : 1u;
        int s = (d * R + r) * 3;
        while (from[s] == unreached || from[s] + mm != c) ++s;
        ops[len++] = 'M';
        row = i, st = s;
      } else if (last == 1) {  // a DNA bulge from (row, d - 1, r, last 0 or 1)
        const unsigned char* from = row_at(row);
        int s = ((d - 1) * R + r) * 3;
        if (from[s] != c) ++s;
        ops[len++] = 'D';
        st = s;
      } else {  // an RNA bulge from (row - 1, d, r - 1, last 0 or 2)
        const unsigned char* from = row_at(row - 1);
        int s = (d * R + r - 1) * 3;
        if (from[s] != c) s += 2;
        ops[len++] = 'R';
        row = row - 1, st = s;
      }
    }
    for (int a = 0, b = len - 1; a < b; ++a, --b) {
      const char t = ops[a];
      ops[a] = ops[b];
      ops[b] = t;
    }
    *ops_len = len;
  }
  return best;
}

/// The best alignment of m guide codes, guide(i) (IUPAC bits), against n genome bases, base(j)
/// (base bits), with at most max_mm mismatches, max_dna DNA and max_rna RNA bulges, which must
/// leave (max_dna + 1) (max_rna + 1) 3 <= max_states and max_mm < 255. Best: fewest edits,
/// then fewest bulges, then fewest mismatches, then fewest DNA bulges. With a trace table (m <=
/// max_traced_guide), its columns from the PAM outward go to ops[0, *ops_len): the
/// moves align_bits<true> records, the same ones (for each state, the first move that reached
/// it at its lowest cost, in the same order of states and moves).
template <class Guide, class Base>
TRAWL_HOST_DEVICE row_counts best_alignment(int m, int n, const Guide& guide, const Base& base, int max_mm, int max_dna,
                                            int max_rna, trace_table* trace = nullptr, char* ops = nullptr,
                                            int* ops_len = nullptr) {
  // up to 2 bulges of each kind (the usual limits): the rows sized at compile time
  if (max_dna <= 2 && max_rna <= 2) {
    switch (max_dna * 3 + max_rna) {
      case 0: return best_alignment_of<1, 1>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 1: return best_alignment_of<1, 2>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 2: return best_alignment_of<1, 3>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 3: return best_alignment_of<2, 1>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 4: return best_alignment_of<2, 2>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 5: return best_alignment_of<2, 3>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 6: return best_alignment_of<3, 1>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      case 7: return best_alignment_of<3, 2>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
      default: return best_alignment_of<3, 3>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
    }
  }
  return best_alignment_of<0, 0>(m, n, guide, base, max_mm, max_dna, max_rna, trace, ops, ops_len);
}

}  // namespace trawl::offtarget::site_rows
