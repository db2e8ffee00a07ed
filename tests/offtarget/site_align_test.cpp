// The alignment of a guide at a PAM one row of states at a time (site_rows.hpp, through
// align_counts and align_traced_into) against the DP over every state (align_bits): the same counts
// and the same columns, ties included, on fixed-seed random guides against their own bases
// with edits, against random bases, and with N in either. The sites the alignments make are
// checked against the brute-force oracles in tests/cli/offtarget_test.sh.
#include <gtest/gtest.h>
#include <array>

#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "offtarget/site_align.hpp"

namespace {

namespace sa = trawl::offtarget::site_align;

TEST(SiteAlign, RowsGiveTheAlignmentOfTheWholeDp) {
  std::mt19937_64 rng(41);
  const auto base = [&] { return static_cast<unsigned char>(1u << (rng() % 4)); };
  int found = 0, bulged = 0;
  // the usual limits, then every pair of bulge limits whose rows fit (site_align::rows_fit)
  std::vector<std::tuple<int, int, int>> limits = {{4, 1, 1}, {3, 2, 1}, {5, 0, 2}, {2, 2, 2}, {4, 0, 0}, {6, 3, 3}, {0, 1, 1}};
  for (int dna = 0; dna <= 24; ++dna)
    for (int rna = 0; rna <= 24; ++rna)
      if (sa::rows_fit(3, dna, rna)) limits.emplace_back(3, dna, rna);
  for (std::size_t l = 0; l < limits.size(); ++l) {
    const auto [mm, dna, rna] = limits[l];
    for (int c = 0; c < (l < 7 ? 4000 : 300); ++c) {
      const std::size_t m = 1 + rng() % 30;
      std::vector<unsigned char> g(m), t;
      for (auto& x : g) x = rng() % 16 == 0 ? 0xF : base();  // N in the guide matches every base
      for (std::size_t i = 0; i < m; ++i) {
        const auto e = rng() % 10;
        if (e == 0) continue;             // a base of the guide missing: an RNA bulge
        if (e == 1) t.push_back(base());  // one more: a DNA bulge
        t.push_back(e == 2 || g[i] == 0xF ? base() : g[i]);
      }
      if (rng() % 4 == 0)
        for (auto& x : t) x = base();
      if (rng() % 8 == 0 && !t.empty()) t[rng() % t.size()] = 0;  // N in the genome matches nothing
      t.resize(std::min(t.size(), m + static_cast<std::size_t>(dna)));
      const auto whole = sa::align_bits<true>(g, t, mm, dna, rna);
      const auto counts = sa::align_counts(g, t, mm, dna, rna);
      std::array<char, sa::max_columns> cols;
      cols.fill('?');
      int len = -1;
      const auto traced = sa::align_traced_into(g, t, mm, dna, rna, cols.data(), len);
      ASSERT_EQ(counts.has_value(), whole.has_value()) << "case " << c;
      ASSERT_EQ(traced.has_value(), whole.has_value()) << "case " << c;
      if (!whole) continue;
      ++found;
      bulged += whole->dna_bulges + whole->rna_bulges > 0;
      for (const auto* x : {&*counts, &*traced}) {
        EXPECT_EQ(std::tie(x->mismatches, x->dna_bulges, x->rna_bulges, x->text_len),
                  std::tie(whole->mismatches, whole->dna_bulges, whole->rna_bulges, whole->text_len))
            << "case " << c << " limits " << mm << " " << dna << " " << rna;
      }
      EXPECT_EQ(std::string(cols.data(), static_cast<std::size_t>(len)), whole->ops) << "case " << c << " limits " << mm << " " << dna << " " << rna;
    }
  }
  EXPECT_GT(found, 5000);
  EXPECT_GT(bulged, 1000);
}

}  // namespace
