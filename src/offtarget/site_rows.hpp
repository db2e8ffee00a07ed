// site_rows.hpp — the alignment of a guide at a PAM, with bulges, one row of states at a time:
// the counts of the best alignment of the guide's codes read outward from the PAM against the
// genome's bases read the same way, within the limits. One function for the host
// (offtarget.cpp's align_counts) and the device (cuda/kernels/site_test.cu). The alignment is
// offtarget.cpp's align_bits (global on the guide, free at the far end of the genome's bases; no
// bulge as the first or last column; no DNA bulge next to an RNA bulge), without its trace.
#pragma once

#if defined(__CUDACC__)
#define TRAWL_HOST_DEVICE __host__ __device__
#else
#define TRAWL_HOST_DEVICE
#endif

namespace trawl::offtarget::site_rows {

/// The most states a row holds: (DNA bulges + 1) (RNA bulges + 1) 3.
inline constexpr int max_states = 75;

/// The counts of the best alignment (found false: none within the limits).
struct row_counts {
  bool found = false;
  int mismatches = 0, dna_bulges = 0, rna_bulges = 0;
};

/// The best alignment of m guide codes, guide(i) (IUPAC bits), against n genome bases, base(j)
/// (base bits), with at most max_mm mismatches, max_dna DNA and max_rna RNA bulges, which must
/// leave (max_dna + 1) (max_rna + 1) 3 <= max_states and max_mm < 255. Best: fewest edits,
/// then fewest bulges, then fewest mismatches, then fewest DNA bulges.
template <class Guide, class Base>
TRAWL_HOST_DEVICE row_counts best_counts(int m, int n, const Guide& guide, const Base& base, int max_mm, int max_dna,
                                         int max_rna) {
  // state (d, r, last) at (d * R + r) * 3 + last: the fewest mismatches of an alignment of the
  // row's guide bases with d DNA and r RNA bulges whose last column is a base pair (0), a DNA
  // bulge (1) or an RNA bulge (2)
  constexpr unsigned unreached = 255;
  const int D = max_dna + 1, R = max_rna + 1, S = D * R * 3;
  unsigned char rows[2][max_states];
  unsigned char* cur = rows[0];
  unsigned char* next = rows[1];
  for (int s = 0; s < S; ++s) cur[s] = unreached;
  cur[0] = 0;
  const auto lower = [](unsigned char& to, unsigned c) {
    if (c < to) to = static_cast<unsigned char>(c);
  };
  row_counts best;
  for (int i = 0; i < m; ++i) {
    for (int s = 0; s < S; ++s) next[s] = unreached;
    bool any = false;
    for (int d = 0; d < D; ++d)
      for (int r = 0; r < R; ++r)
        for (int last = 0; last < 3; ++last) {
          const unsigned c = cur[(d * R + r) * 3 + last];
          if (c == unreached) continue;
          const int j = i + d - r;
          if (j < n) {
            const unsigned nc = c + ((guide(i) & base(j)) != 0 ? 0u : 1u);
            if (nc <= static_cast<unsigned>(max_mm)) lower(next[(d * R + r) * 3], nc), any = true;
          }
          if (i == 0) continue;  // no bulge as the first column
          // a DNA bulge stays in this row, at a state visited later (d + 1)
          if (d + 1 < D && j < n && last != 2) lower(cur[((d + 1) * R + r) * 3 + 1], c);
          if (r + 1 < R && last != 1) lower(next[(d * R + r + 1) * 3 + 2], c), any = true;
        }
    if (!any) return best;
    unsigned char* swap = cur;
    cur = next;
    next = swap;
  }
  for (int d = 0; d < D; ++d)
    for (int r = 0; r < R; ++r) {
      const unsigned c = cur[(d * R + r) * 3];  // the last column is not a bulge
      if (c == unreached) continue;
      const int mm = static_cast<int>(c), edits = mm + d + r, bulges = d + r;
      const int best_edits = best.mismatches + best.dna_bulges + best.rna_bulges,
                best_bulges = best.dna_bulges + best.rna_bulges;
      const bool better = !best.found || edits < best_edits ||
                          (edits == best_edits && (bulges < best_bulges ||
                                                   (bulges == best_bulges && (mm < best.mismatches ||
                                                                              (mm == best.mismatches && d < best.dna_bulges)))));
      if (better) best = row_counts{true, mm, d, r};
    }
  return best;
}

}  // namespace trawl::offtarget::site_rows
