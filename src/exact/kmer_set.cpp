// kmer_set.cpp — the exact matcher for sets of DNA literals (k-mers, primers, guides): a
// sampled q-mer filter (kmer_set.hpp) finds candidate positions in about q/w byte reads per
// text byte, and each candidate is checked against the literals whose q-mer it is. A scan is
// O(n/w) filter steps plus O(length) per candidate and literal behind it.
#include <algorithm>
#include <cstring>

#include "trawl/detail/engine.hpp"
#include "common/dispatch.hpp"
#include "exact/engines.hpp"
#include "exact/kmer_set.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace exact_detail {

void kmer_candidates_serial(const kmer_filter& f, const unsigned char* text, std::size_t first, std::size_t stop,
                            std::size_t limit, std::vector<std::uint64_t>& out) {
  for (std::size_t t = (first + f.w - 1) / f.w * f.w; t < stop && t + f.q <= limit; t += f.w)
    if (f.test(kmer_key(text + t, f.q))) out.push_back(t);
}

}  // namespace exact_detail

namespace {

using namespace exact_detail;

bool is_dna(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) {
    switch (c) {
      case 'A': case 'C': case 'G': case 'T': case 'a': case 'c': case 'g': case 't': return true;
      default: return false;
    }
  });
}

/// Filter shape for `literals` literals of at least `min_len` bases: the q that minimizes the
/// expected cost per text byte, (one filter step + candidates x check) / w.
struct shape {
  unsigned q = 0, w = 0;
  double cost = 0;  ///< per text byte, in filter steps
};

shape best_shape(std::size_t literals, std::size_t min_len) {
  constexpr unsigned max_q = 13;          // a 4^13-bit (8 MiB) table at most
  constexpr double check_cost = 12;       // one candidate's check, in filter steps
  constexpr double big_table_cost = 0.5;  // a table past the L2 cache: extra per step
  shape best;
  for (unsigned q = 4; q <= std::min<std::size_t>(max_q, min_len); ++q) {
    const unsigned w = static_cast<unsigned>(min_len - q + 1);
    const double keys = static_cast<double>(std::size_t{1} << (2 * q));
    const double fill = std::min(1.0, static_cast<double>(literals) * w / keys);
    const double cost = (1 + (q >= 11 ? big_table_cost : 0) + fill * check_cost) / w;
    if (best.q == 0 || cost < best.cost) best = {q, w, cost};
  }
  return best;
}

/// A filter this cheap per byte beats Vectorscan's literal matchers on DNA.
constexpr double kmer_max_cost = 0.3;

class kmer_set_matcher final : public literal_engine {
 public:
  kmer_set_matcher(literal_table table, const search_options& options)
      : literal_engine(std::move(table)), fold_(options.ignore_case),
        candidates_(simd::kernels_at(options.simd).kmer) {
    const shape s = best_shape(table_.literals.size(), table_.min_len);
    filter_.q = s.q;
    filter_.w = s.w;
    filter_.bits.assign((std::size_t{1} << (2 * s.q)) / 64 + 1, 0);
    for (std::uint32_t id = 0; id < table_.literals.size(); ++id) {
      const auto* lit = reinterpret_cast<const unsigned char*>(table_.literals[id].data());
      for (unsigned off = 0; off < s.w; ++off) {
        const std::uint32_t key = kmer_key(lit + off, s.q);
        filter_.bits[key >> 6] |= std::uint64_t{1} << (key & 63);
        entries_.push_back({key, id, off});
      }
    }
    std::sort(entries_.begin(), entries_.end(),
              [](const entry& a, const entry& b) { return std::tie(a.key, a.literal) < std::tie(b.key, b.literal); });
    if (fold_)
      for (std::string& lit : table_.literals)
        for (char& c : lit) c = static_cast<char>(c | 0x20);
  }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    if (own_begin >= own_end || own_begin >= seq.size()) return;
    const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
    const std::size_t limit = read_limit(seq, own_end);
    const std::size_t stop = own_end + filter_.w - 1;
    thread_local std::vector<std::uint64_t> candidates;
    candidates.clear();
    candidates_(filter_, text, own_begin, stop, limit, candidates);

    const std::size_t first = out.size();
    bool unsorted = false;
    for (const std::uint64_t t : candidates) {
      const entry probe{kmer_key(text + t, filter_.q), 0, 0};
      auto it = std::lower_bound(entries_.begin(), entries_.end(), probe,
                                 [](const entry& a, const entry& b) { return a.key < b.key; });
      for (; it != entries_.end() && it->key == probe.key; ++it) {
        if (it->offset > t) continue;
        const std::uint64_t s = t - it->offset;
        const std::string& lit = table_.literals[it->literal];
        if (s < own_begin || s >= own_end || s + lit.size() > limit || !equal(text + s, lit)) continue;
        for (const literal_table::target& tg : table_.targets[it->literal])
          append_in_start_order(out, first, hit{s, s + lit.size(), tg.pattern, 0, tg.dir}, unsorted);
      }
    }
    finish_start_order(out, first, unsorted);
  }

 private:
  struct entry {
    std::uint32_t key;
    std::uint32_t literal;
    std::uint32_t offset;  ///< of the q-mer in the literal, < w
  };

  [[nodiscard]] bool equal(const unsigned char* t, const std::string& lit) const {
    if (!fold_) return std::memcmp(t, lit.data(), lit.size()) == 0;
    for (std::size_t i = 0; i < lit.size(); ++i)  // literals are lowercase DNA: fold by one bit
      if (static_cast<unsigned char>(t[i] | 0x20) != static_cast<unsigned char>(lit[i])) return false;
    return true;
  }

  bool fold_;
  kmer_candidates_fn candidates_;  ///< the filter of options.simd's dispatch table
  kmer_filter filter_;
  std::vector<entry> entries_;
};

}  // namespace

bool kmer_set_applies(const literal_table& table) {
  return !table.literals.empty() && table.min_len >= 4 &&
         std::all_of(table.literals.begin(), table.literals.end(), [](const std::string& l) { return is_dna(l); });
}

bool kmer_set_fits(const literal_table& table) {
  return kmer_set_applies(table) && best_shape(table.literals.size(), table.min_len).cost <= kmer_max_cost;
}

std::unique_ptr<detail::engine> make_kmer_set_matcher(literal_table table, const search_options& options) {
  return std::make_unique<kmer_set_matcher>(std::move(table), options);
}

}  // namespace trawl
