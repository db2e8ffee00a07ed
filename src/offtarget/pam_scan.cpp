// pam_scan.cpp — candidate ends of an off-target search without bulges, from the PAM
// positions (pam_scan.hpp). Reads bases as the site DP does (strand_base_bits: N and every
// other non-base byte match nothing, IUPAC codes of guides and PAMs match their bases).
#include "offtarget/pam_scan.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <limits>
#include <string>

#include "common/iupac.hpp"
#include "common/line_vector.hpp"

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace trawl::offtarget {
namespace {

constexpr std::size_t per_word = pam_tables::per_word;

/// How many of the 16 nibbles of x are not zero.
inline unsigned nonzero_nibbles(std::uint64_t x) {
  x |= x >> 1;
  x |= x >> 2;
  x &= 0x1111111111111111ull;                              // one bit per non-zero nibble
  x = (x & 0x0F0F0F0F0F0F0F0Full) + ((x >> 4) & 0x0F0F0F0F0F0F0F0Full);  // per byte: 0..2
  return static_cast<unsigned>((x * 0x0101010101010101ull) >> 56);
}

class pam_scan final : public detail::engine {
 public:
  explicit pam_scan(pam_tables t) : t_(std::move(t)) {
    for (const std::vector<unsigned char>& bits : t_.pams) {
      pam_info pi;
      pi.bits = bits;
      // the code with the fewest bases first: a position fails there most often
      pi.first = static_cast<std::size_t>(std::min_element(bits.begin(), bits.end(), [](unsigned char a, unsigned char b) {
                                            return std::popcount(a) < std::popcount(b);
                                          }) - bits.begin());
      for (unsigned d = 0; d < 2; ++d)
        for (std::size_t i = 0; i < bits.size(); ++i) {
          if (bits[i] == 15) continue;
          pam_letters l{d == 0 ? i : bits.size() - 1 - i, {}};
          for (unsigned base = 0; base < 4; ++base)  // on the reverse strand the forward byte is the complement
            if (bits[i] & (1u << base)) l.letters.push_back("ACGT"[d == 0 ? base : 3 - base]);
          pi.select[d].push_back(std::move(l));
        }
      pams_.push_back(std::move(pi));
    }
    for (unsigned d = 0; d < 2; ++d)
      for (unsigned c = 0; c < 256; ++c) {
        const unsigned b = detail::strand_base_bits[d][c];
        code_[d][c] = static_cast<unsigned char>(b == 0 ? 4 : std::countr_zero(b));
      }
    site_ = pick(t_.blocks == 0 ? 0 : t_.block_len, t_.stride);
  }

  [[nodiscard]] std::size_t lookbehind() const override { return t_.longest + t_.longest_pam; }
  [[nodiscard]] std::size_t lookahead() const override { return 0; }
  [[nodiscard]] hit_key key() const override { return hit_key::last; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>&) const override {
    const std::size_t n = seq.size();
    own_end = std::min(own_end, n);
    if (own_begin >= own_end) return;
    const std::size_t first = out.size();
    thread_local scratch sc;
    sc.prepare(t_.longest, t_.blocks * t_.most_listed + t_.always.size());
    for (unsigned d = 0; d < 2; ++d) {
      // the protospacer lies left of the PAM (forward coordinates): the hit ends with the PAM
      const bool left = t_.three_prime == (d == 0);
      const auto& to_bits = detail::strand_base_bits[d];
      for (std::uint32_t pi = 0; pi < pams_.size(); ++pi) {
        const pam_info& pam = pams_[pi];
        const std::size_t P = pam.bits.size();
        if (n < P) continue;
        // the PAM starts whose hits' last bytes can lie in [own_begin, own_end)
        const std::size_t before = left ? P : P + t_.longest, after = left ? P : P + t_.shortest;
        const std::size_t from = own_begin + 1 > before ? own_begin + 1 - before : 0;
        const std::size_t to = std::min(own_end + 1 > after ? own_end + 1 - after : 0, n - P + 1);
        // the genome's byte under the PAM's i-th code (on the reverse strand, counted from the right)
        const auto at = [&](std::size_t ps, std::size_t i) { return static_cast<unsigned char>(seq[d == 0 ? ps + i : ps + P - 1 - i]); };
        const unsigned char first_code = pam.bits[pam.first];
        const auto try_at = [&](std::size_t ps) {
          int pmm = 0;
          for (std::size_t i = 0; i < P && pmm <= t_.pam_limit; ++i) pmm += (pam.bits[i] & to_bits[at(ps, i)]) == 0 ? 1 : 0;
          if (pmm <= t_.pam_limit) (this->*site_)(seq, ps, d, left, pi, pmm, own_begin, own_end, sc, out);
        };
        std::size_t ps = from;
#if defined(__SSE2__)
        // An exact PAM: 16 starts at a time, kept where every code that is not N has one of its
        // letters (either case); the survivors are tested in full.
        if (t_.pam_limit == 0 && !pam.select[d].empty()) {
          const __m128i fold = _mm_set1_epi8(static_cast<char>(0xDF));
          for (; ps + per_word + P <= n && ps + per_word <= to; ps += per_word) {
            unsigned keep = 0xFFFF;
            for (const pam_letters& l : pam.select[d]) {
              const __m128i v = _mm_and_si128(
                  _mm_loadu_si128(reinterpret_cast<const __m128i*>(seq.data() + ps + l.at)), fold);
              __m128i any = _mm_setzero_si128();
              for (const char c : l.letters) any = _mm_or_si128(any, _mm_cmpeq_epi8(v, _mm_set1_epi8(c)));
              keep &= static_cast<unsigned>(_mm_movemask_epi8(any));
            }
            for (; keep != 0; keep &= keep - 1) try_at(ps + static_cast<std::size_t>(std::countr_zero(keep)));
          }
        }
#endif
        for (; ps < to; ++ps)
          if (t_.pam_limit != 0 || (first_code & to_bits[at(ps, pam.first)]) != 0) try_at(ps);
      }
    }
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order{hit_key::last});
    out.erase(std::unique(out.begin() + static_cast<std::ptrdiff_t>(first), out.end()), out.end());
  }

 private:
  /// A code of a PAM that is not N, as the forward strand's upper-case letters it accepts at
  /// offset `at` from the PAM's first forward byte.
  struct pam_letters {
    std::size_t at = 0;
    std::vector<char> letters;
  };
  struct pam_info {
    std::vector<unsigned char> bits;  ///< iupac_bits of its codes, 5' -> 3'
    std::size_t first = 0;            ///< the code tested first
    std::array<std::vector<pam_letters>, 2> select;  ///< per strand: its codes that are not N
  };

  /// A thread's scratch: a site's candidate guides and its bases outward from the PAM.
  struct scratch {
    trawl::detail::line_vector<std::uint64_t> tw;  ///< the site's bases packed (per_word)
    trawl::detail::line_vector<std::uint32_t> cand;
    void prepare(std::size_t bases, std::size_t candidates) {
      if (cand.size() < candidates) cand.resize(candidates);
      if (tw.size() * per_word < bases) tw.resize((bases + per_word - 1) / per_word);
    }
  };

  /// The sites of every guide with PAM pi (pmm mismatches) starting at forward position ps,
  /// read on strand d (0 forward; `left`: the protospacer lies left of the PAM), whose hits'
  /// last bytes lie in [own_begin, own_end).
  /// L: the blocks' length (0: no blocks); S: words per guide (0: any). The compiler unrolls the loops over
  /// a block's bases and a guide's words for the common cases.
  template <std::size_t L, std::size_t S>
  void site(std::string_view seq, std::size_t ps, unsigned d, bool left, std::uint32_t pi, int pmm,
            std::size_t own_begin, std::size_t own_end, scratch& sc, std::vector<hit>& out) const {
    const std::size_t P = pams_[pi].bits.size(), n = seq.size();
    // the bases outward from the PAM, as many as a guide reads and the sequence holds
    const std::size_t avail = left ? std::min(t_.longest, ps) : std::min(t_.longest, n - ps - P);
    if (avail < t_.shortest) return;
    const char* base = left ? seq.data() + ps - 1 : seq.data() + ps + P;  // outward base 0
    const std::ptrdiff_t step = left ? -1 : 1;
    const auto byte = [&](std::size_t i) { return static_cast<unsigned char>(base[step * static_cast<std::ptrdiff_t>(i)]); };
    // the candidates: the guides listed under a block's key (a block with a non-base has a
    // mismatch, so it is not the exact one), and those tested everywhere
    const auto& code = code_[d];
    std::uint32_t* cand = sc.cand.data();
    std::size_t nc = 0;
    constexpr std::size_t keys = std::size_t{1} << (2 * L);
    for (std::size_t b = 0; b < (L == 0 ? 0 : t_.blocks); ++b) {
      unsigned key = 0, bad = 0;
      for (std::size_t i = 0; i < L; ++i) {
        const unsigned c = code[byte(b * L + i)];
        bad |= c;
        key |= (c & 3u) << (2 * i);
      }
      if (bad & 4u) continue;
      const std::size_t at = b * keys + key;
      for (std::uint32_t j = t_.first[at]; j < t_.first[at + 1]; ++j) cand[nc++] = t_.ids[j];
    }
    for (const std::uint32_t g : t_.always) cand[nc++] = g;
    if (nc == 0) return;
    // the bases packed as the guides are
    const auto& to_bits = detail::strand_base_bits[d];
    std::uint64_t* tw = sc.tw.data();
    for (std::size_t w = 0; w * per_word < avail; ++w) {
      std::uint64_t x = 0;
      const std::size_t last = std::min(avail, (w + 1) * per_word);
      for (std::size_t i = w * per_word; i < last; ++i) x |= std::uint64_t{to_bits[byte(i)]} << (4 * (i - w * per_word));
      tw[w] = x;
    }
    // A guide exact in two blocks is tested twice: scan() drops the second hit.
    for (std::size_t c = 0; c < nc; ++c) {
      const std::uint32_t g = cand[c];
      const std::size_t m = t_.length[g];
      if (m > avail) continue;
      const std::uint64_t end = left ? ps + P : ps + P + m;
      if (end <= own_begin || end > own_end) continue;
      // a guide's words are zero past its bases, which therefore never count as matches
      const std::size_t stride = S != 0 ? S : t_.stride;
      const std::uint64_t* gw = t_.words.data() + g * stride;
      unsigned matches = 0;
      for (std::size_t w = 0; w < stride; ++w) matches += nonzero_nibbles(gw[w] & tw[w]);
      const int mm = static_cast<int>(m - matches);
      if (mm > t_.limit[g]) continue;
      out.push_back(hit{end - m - P, end, g * static_cast<std::uint32_t>(pams_.size()) + pi,
                        static_cast<std::uint32_t>(mm + pmm), d == 0 ? strand::forward : strand::reverse});
    }
  }

  pam_tables t_;
  std::vector<pam_info> pams_;
  using site_fn = void (pam_scan::*)(std::string_view, std::size_t, unsigned, bool, std::uint32_t, int, std::size_t,
                                     std::size_t, scratch&, std::vector<hit>&) const;
  site_fn site_ = nullptr;  ///< site<block_len, stride> where it is instantiated

  static site_fn pick(std::size_t len, std::size_t stride) {
    const auto with = [stride]<std::size_t L>() -> site_fn {
      return stride == 1 ? &pam_scan::site<L, 1> : stride == 2 ? &pam_scan::site<L, 2> : &pam_scan::site<L, 0>;
    };
    switch (len) {
      case 2: return with.template operator()<2>();
      case 3: return with.template operator()<3>();
      case 4: return with.template operator()<4>();
      case 5: return with.template operator()<5>();
      case 6: return with.template operator()<6>();
      default: return with.template operator()<0>();
    }
  }
  /// per strand: a genome byte's base as a 2-bit code on that strand (A 0, C 1, G 2, T 3), 4 for a non-base
  std::array<std::array<unsigned char, 256>, 2> code_{};
};

}  // namespace

pam_tables make_pam_tables(const std::vector<guide>& guides, const options& o) {
  pam_tables t;
  t.three_prime = o.side == pam_side::three_prime;
  t.pam_limit = o.pam_mismatches;
  for (const std::string& p : o.pams) {
    t.pams.emplace_back();
    for (const char c : p) t.pams.back().push_back(static_cast<unsigned char>(detail::iupac_bits(static_cast<unsigned char>(c))));
    t.longest_pam = std::max(t.longest_pam, p.size());
  }
  int most = 0;
  t.shortest = std::numeric_limits<std::size_t>::max();
  std::vector<std::vector<unsigned char>> outward;  // per guide: iupac_bits of its protospacer from the PAM outward
  for (const guide& g : guides) {
    std::string seq = g.protospacer;
    if (t.three_prime) std::reverse(seq.begin(), seq.end());
    outward.emplace_back();
    for (const char c : seq) outward.back().push_back(static_cast<unsigned char>(detail::iupac_bits(static_cast<unsigned char>(c))));
    t.length.push_back(static_cast<std::uint32_t>(seq.size()));
    t.limit.push_back(o.max_edits >= 0 ? std::min(g.mismatches, o.max_edits) : g.mismatches);
    most = std::max(most, t.limit.back());
    t.shortest = std::min(t.shortest, seq.size());
    t.longest = std::max(t.longest, seq.size());
  }
  t.stride = (t.longest + pam_tables::per_word - 1) / pam_tables::per_word;
  t.words.assign(guides.size() * t.stride, 0);
  for (std::size_t g = 0; g < guides.size(); ++g)
    for (std::size_t i = 0; i < outward[g].size(); ++i)
      t.words[g * t.stride + i / pam_tables::per_word] |= std::uint64_t{outward[g][i]} << (4 * (i % pam_tables::per_word));
  // M + 1 blocks of L bases from the PAM outward; L of 6 keeps each block's table at 4,096
  // lists. Blocks of one base select too little to be worth the lookups.
  t.blocks = static_cast<std::size_t>(most) + 1;
  t.block_len = std::min<std::size_t>(6, t.shortest / t.blocks);
  if (t.block_len < 2) {
    t.blocks = t.block_len = 0;
    for (std::uint32_t g = 0; g < guides.size(); ++g) t.always.push_back(g);
    return t;
  }
  const std::size_t keys = std::size_t{1} << (2 * t.block_len);
  std::vector<std::vector<std::uint32_t>> lists(t.blocks * keys);
  std::vector<char> in_always(guides.size(), 0);
  for (std::uint32_t g = 0; g < guides.size(); ++g)
    for (std::size_t b = 0; b < t.blocks; ++b) {
      const unsigned char* code = outward[g].data() + b * t.block_len;
      std::size_t expansions = 1;
      for (std::size_t i = 0; i < t.block_len; ++i) expansions *= static_cast<std::size_t>(std::popcount(code[i]));
      if (expansions > 64) {  // mostly N: tested at every PAM
        if (!in_always[g]) t.always.push_back(g);
        in_always[g] = 1;
        continue;
      }
      // every key of bases that the block's codes match
      std::vector<std::size_t> ks{0};
      for (std::size_t i = 0; i < t.block_len; ++i) {
        std::vector<std::size_t> next;
        for (const std::size_t k : ks)
          for (unsigned base = 0; base < 4; ++base)
            if (code[i] & (1u << base)) next.push_back(k | base << (2 * i));
        ks = std::move(next);
      }
      for (const std::size_t k : ks) lists[b * keys + k].push_back(g);
    }
  for (const auto& l : lists) t.most_listed = std::max(t.most_listed, l.size());
  t.first.assign(lists.size() + 1, 0);
  for (std::size_t i = 0; i < lists.size(); ++i) t.first[i + 1] = t.first[i] + static_cast<std::uint32_t>(lists[i].size());
  t.ids.reserve(t.first.back());
  for (const auto& l : lists) t.ids.insert(t.ids.end(), l.begin(), l.end());
  return t;
}

std::unique_ptr<detail::engine> make_pam_scan(pam_tables tables) {
  return std::make_unique<pam_scan>(std::move(tables));
}

cuda::site_plan gpu_site_plan(const pam_tables& t) {
  cuda::site_plan plan;
  plan.three_prime = t.three_prime;
  plan.pam_limit = static_cast<std::uint32_t>(t.pam_limit);
  plan.pams.assign(t.pams.begin(), t.pams.end());
  plan.lengths = t.length;
  plan.limits.assign(t.limit.begin(), t.limit.end());
  plan.stride = static_cast<std::uint32_t>(t.stride);
  plan.words = t.words;
  plan.shortest = static_cast<std::uint32_t>(t.shortest);
  plan.longest = static_cast<std::uint32_t>(t.longest);
  plan.longest_pam = static_cast<std::uint32_t>(t.longest_pam);
  plan.blocks = static_cast<std::uint32_t>(t.blocks);
  plan.block_len = static_cast<std::uint32_t>(t.block_len);
  plan.first = t.first;
  plan.ids = t.ids;
  plan.always = t.always;
  return plan;
}

}  // namespace trawl::offtarget
