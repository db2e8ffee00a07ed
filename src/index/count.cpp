// count.cpp — the number of occurrences of a pattern without listing them.
//
// Two ways, one chosen per pattern by a bounded probe:
// - The Kärkkäinen–Ukkonen recursion (ku_recursion.hpp), as locate runs it, but over the
//   inner kept phrases only: a copy that lands in a leaf phrase (one whose target no source
//   meets, index_impl::count_tree) has no copies of its own, so an occurrence's leaf copies
//   are counted by two rank queries instead of visited. O(inner occ) steps: cheap when most
//   copies are leaves (a collection of genomes copying the earliest ones) or the answer is
//   small; the probe runs it, on every worker, up to a step budget. Patterns longer than 2M
//   take the recursion over every kept phrase.
// - A dynamic program over the kept phrases, for large answers: O(kept · chain) steps on one
//   thread, independent of occ. With O the occurrence starts and C(e) = |O ∩ [0, e)|:
//     the starts wholly inside kept phrase j form W_j = [pos_j, end_j - m], and W_j is a copy of
//     [src_j, src_j + len_j - m] (distance d_j = pos_j - src_j), so
//     N_j = |O ∩ W_j| = C(src_j + len_j - m + 1) - C(src_j);
//     C(e) = |primaries < e| + Σ N_j over the windows below e + (if e cuts W_j)
//            C(e - d_j) - C(src_j).
//   Phrases are taken in text order: every C that N_j needs reads only phrases before j and
//   j's own C(src_j), kept in A_j. Inside one cut window the step repeats with the same terms
//   (no primary lies in W_j), so a run of steps through a self-overlapping phrase is one jump.
//   A chain of cut windows follows copies of copies (one step per copy generation); it
//   ends as soon as no primary lies below e.
// Records: the occurrences inside record [s, s + l) number C(s + l - m + 1) - C(s).
#include <algorithm>
#include <atomic>
#include <functional>
#include <optional>
#include <string>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "index/ku_recursion.hpp"

namespace trawl::index {
namespace {

class phrase_dp {
 public:
  /// Fills A and the sums of N, or gives up after `limit` chain steps.
  phrase_dp(const detail::index_impl::phrase_table& t, const std::vector<std::uint64_t>& prim, std::uint64_t m,
            std::uint64_t limit)
      : t_(t), prim_(prim), prim_rank_(prim, prim.empty() ? 1 : prim.back() + 1), m_(m), a_(t.pos.size(), 0),
        pn_(t.pos.size() + 1, 0), limit_(limit) {
    for (std::size_t j = 0; j < t_.pos.size() && !gave_up(); ++j) {
      std::uint64_t n_j = 0;
      if (t_.len[j] >= m_) {
        a_[j] = c(t_.src[j]);
        n_j = c(t_.src[j] + t_.len[j] - m_ + 1) - a_[j];
      }
      pn_[j + 1] = pn_[j] + n_j;
    }
  }

  /// |O ∩ [0, e)|.
  [[nodiscard]] std::uint64_t c(std::uint64_t e) const {
    std::uint64_t acc = 0;
    while (!prim_.empty() && e > prim_.front()) {
      if (++steps_ > limit_) return 0;
      const auto k = static_cast<std::size_t>(t_.pos_rank.below(t_.pos, e));
      if (k > 0) {
        const std::size_t j = k - 1;
        const std::uint64_t pos = t_.pos[j], len = t_.len[j];
        if (len > m_ && e <= pos + len - m_) {  // e cuts W_j
          const std::uint64_t d = pos - t_.src[j];
          const std::uint64_t steps = (e - pos + d - 1) / d;  // until e - steps·d <= pos
          acc += steps * (prim_below(pos) + pn_[j] - a_[j]);
          e -= steps * d;
          continue;
        }
      }
      return acc + prim_below(e) + pn_[k];
    }
    return acc;
  }

  [[nodiscard]] std::uint64_t total() const { return prim_.size() + pn_.back(); }
  [[nodiscard]] bool gave_up() const { return steps_ > limit_; }

 private:
  [[nodiscard]] std::uint64_t prim_below(std::uint64_t e) const { return prim_rank_.below(prim_, e); }

  const detail::index_impl::phrase_table& t_;
  const std::vector<std::uint64_t>& prim_;
  bucket_rank prim_rank_;
  std::uint64_t m_;
  std::vector<std::uint64_t> a_;   // A_j = C(src_j), for phrases at least m long
  std::vector<std::uint64_t> pn_;  // Σ N_i for i < j
  std::uint64_t limit_;
  mutable std::uint64_t steps_ = 0;
};

/// The recursion over every kept phrase (ku_recursion.hpp): each occurrence is a node.
struct full_tree {
  const detail::index_impl& ix;
  std::uint64_t m;
  [[nodiscard]] ku_item root(std::uint64_t x) const { return ku_root(ix, x); }
  void step(const ku_item& it, std::vector<ku_item>& stack, std::vector<std::uint64_t>& out) const {
    ku_step(ix, m, it, stack, out);
  }
  [[nodiscard]] static std::uint64_t leaf_copies(std::uint64_t) { return 0; }
  static void prefetch_buckets(std::uint64_t) {}
  static void prefetch_elements(std::uint64_t) {}
};

/// The same recursion over the inner phrases only (index_impl::count_tree); an occurrence's
/// copies in leaves are counted, not visited.
struct split_tree {
  const detail::index_impl::count_tree& t;
  std::uint64_t m;
  [[nodiscard]] ku_item root(std::uint64_t x) const { return {x, 0, t.inner_first_rank.below(t.inner_first, x + 1)}; }
  void step(const ku_item& it, std::vector<ku_item>& stack, std::vector<std::uint64_t>& out) const {
    if (it.lo >= it.hi) return;
    const std::uint64_t j = t.inner_reach.argmax(it.lo, it.hi - 1, [this](std::uint64_t i) { return t.inner_last[i]; });
    if (t.inner_last[j] + 1 < it.x + m) return;
    const std::uint64_t y = it.x + t.inner_shift[j];
    out.push_back(y);
    stack.push_back({it.x, it.lo, j});
    stack.push_back({it.x, j + 1, it.hi});
    stack.push_back(root(y));
  }
  [[nodiscard]] std::uint64_t leaf_copies(std::uint64_t x) const {
    return t.leaf_first_rank.below(t.leaf_first, x + 1) - t.leaf_last_rank.below(t.leaf_last, x + m - 1);
  }
  // what root(x) and leaf_copies(x) read, in two steps (bucket_rank)
  void prefetch_buckets(std::uint64_t x) const {
    t.leaf_first_rank.prefetch_bucket(x + 1);
    t.leaf_last_rank.prefetch_bucket(x + m - 1);
    t.inner_first_rank.prefetch_bucket(x + 1);
  }
  void prefetch_elements(std::uint64_t x) const {
    t.leaf_first_rank.prefetch_elements(t.leaf_first, x + 1);
    t.leaf_last_rank.prefetch_elements(t.leaf_last, x + m - 1);
    t.inner_first_rank.prefetch_elements(t.inner_first, x + 1);
  }
};

/// The recursion from the sorted primaries, counting (inside one record each with
/// `by_record`); nothing when it takes more than `budget` steps. With `parallel`, the
/// primaries are spread over the calling arena's workers, which share the budget.
template <class Tree>
std::optional<std::uint64_t> ku_count(const detail::index_impl& ix, const Tree& tree,
                                      const std::vector<std::uint64_t>& prim, std::uint64_t m, bool by_record,
                                      std::optional<std::uint64_t> budget, bool parallel) {
  auto inside = [&](std::uint64_t x) -> std::uint64_t { return !by_record || ix.in_one_record(x, m) ? 1 : 0; };
  constexpr std::uint64_t report = 1024;  // steps a worker takes between two looks at the budget
  std::atomic<std::uint64_t> steps{0};
  std::atomic<bool> over{false};
  // counts the trees of prim[b, e); false once the budget is spent
  auto run = [&](std::size_t b, std::size_t e, std::uint64_t& n) {
    std::vector<ku_item> stack;
    std::vector<std::uint64_t> found;
    std::uint64_t mine = 0;
    constexpr std::size_t ahead = 8;  // primaries between a bucket's prefetch and its use
    for (std::size_t i = b; i < e; ++i) {
      if (i + ahead < e) tree.prefetch_buckets(prim[i + ahead]);
      if (i + ahead / 2 < e) tree.prefetch_elements(prim[i + ahead / 2]);
      n += inside(prim[i]) + tree.leaf_copies(prim[i]);
      stack.push_back(tree.root(prim[i]));
      while (!stack.empty()) {
        if (budget && ++mine == report) {
          mine = 0;
          if (over.load(std::memory_order_relaxed) || steps.fetch_add(report, std::memory_order_relaxed) + report > *budget) {
            over.store(true, std::memory_order_relaxed);
            return false;
          }
        }
        const ku_item it = stack.back();
        stack.pop_back();
        tree.step(it, stack, found);
        for (std::uint64_t y : found) n += inside(y) + tree.leaf_copies(y);
        found.clear();
      }
    }
    return true;
  };
  if (!parallel) {
    std::uint64_t n = 0;
    if (!run(0, prim.size(), n)) return std::nullopt;
    return n;
  }
  tbb::enumerable_thread_specific<std::uint64_t> counts(0);
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, prim.size(), 16), [&](const auto& rg) {
    if (!over.load(std::memory_order_relaxed)) run(rg.begin(), rg.end(), counts.local());
  });
  if (over.load()) return std::nullopt;
  return counts.combine(std::plus<>());
}

/// count through the run-length BWT, inside one record each: the text's occurrences less those
/// that cross a record boundary, which are found in the text around each boundary. Nothing
/// when those windows would hold more than count_boundary_bytes bytes (unless `forced`).
std::optional<std::uint64_t> runs_in_records(const detail::index_impl& ix, std::string_view pattern, bool forced) {
  const std::uint64_t m = pattern.size();
  std::vector<std::uint64_t> cuts;  // the distinct record starts inside the text
  for (const auto& r : ix.records)
    if (r.start > 0 && r.start < ix.n && (cuts.empty() || cuts.back() != r.start)) cuts.push_back(r.start);
  if (!forced && cuts.size() * 2 * m > count_boundary_bytes) return std::nullopt;
  std::uint64_t n = ix.counts.count(pattern);
  std::string around;
  for (std::size_t i = 0; i < cuts.size() && n > 0; ++i) {
    // the starts x whose first boundary to the right is cuts[i] and that reach past it
    const std::uint64_t b = cuts[i], before = i == 0 ? 0 : cuts[i - 1];
    const std::uint64_t lo = std::max(before, b > m - 1 ? b - (m - 1) : 0);
    const std::uint64_t hi = std::min(ix.n, b + m - 1);
    around.clear();
    ix.extract_into(lo, hi - lo, around);
    for (std::uint64_t x = lo; x < b && x + m <= hi; ++x)
      if (std::string_view(around).substr(x - lo, m) == pattern) --n;
  }
  return n;
}

}  // namespace

const detail::index_impl::phrase_table& detail::index_impl::phrases_in_text_order() const {
  std::call_once(phrases_once, [this] {
    phrases.pos.resize(kept);
    phrases.len.resize(kept);
    phrases.src.resize(kept);
    for (std::uint64_t id = 0; id < kept; ++id) {
      const std::uint64_t j = packed_at(src_rank, id);
      phrases.pos[id] = kept_starts.at(id);
      phrases.len[id] = packed_at(src_len, j);
      phrases.src[id] = source_start(j);
    }
    phrases.pos_rank = bucket_rank(phrases.pos, n + 1);
  });
  return phrases;
}

const detail::index_impl::count_tree& detail::index_impl::counting_tree() const {
  std::call_once(count_tree_once, [this] {
    // the kept phrases in source order (isolated: a worker waiting here must not take up
    // another query that would wait on this same flag)
    std::vector<std::uint64_t> first(kept), len(kept), pos(kept);
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, kept, 4096), [&](const auto& rg) {
        for (std::uint64_t j = rg.begin(); j < rg.end(); ++j) {
          first[j] = source_start(j);
          len[j] = packed_at(src_len, j);
          pos[j] = kept_starts.at(packed_at(by_src, j));
        }
      });
    });
    // the union of the sources as disjoint runs [run_first, run_end), in order
    std::vector<std::uint64_t> run_first, run_end;
    for (std::uint64_t j = 0; j < kept; ++j) {
      if (!run_end.empty() && first[j] <= run_end.back())
        run_end.back() = std::max(run_end.back(), first[j] + len[j]);
      else
        run_first.push_back(first[j]), run_end.push_back(first[j] + len[j]);
    }
    auto is_leaf = [&](std::uint64_t j) {
      const std::uint64_t p = pos[j], q = pos[j] + len[j];
      if (len[j] < 2ull * max_len || !in_one_record(p, len[j])) return false;
      const auto k = static_cast<std::size_t>(std::upper_bound(run_end.begin(), run_end.end(), p) - run_end.begin());
      return k == run_end.size() || run_first[k] >= q;
    };
    std::vector<std::uint8_t> leaf(kept);
    tbb::this_task_arena::isolate([&] {
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, kept, 4096), [&](const auto& rg) {
        for (std::uint64_t j = rg.begin(); j < rg.end(); ++j) leaf[j] = is_leaf(j) ? 1 : 0;
      });
    });
    count_tree& t = tree;
    for (std::uint64_t j = 0; j < kept; ++j) {
      if (leaf[j]) {
        t.leaf_first.push_back(first[j]);
        t.leaf_last.push_back(first[j] + len[j] - 1);
      } else {
        t.inner_first.push_back(first[j]);
        t.inner_last.push_back(first[j] + len[j] - 1);
        t.inner_shift.push_back(pos[j] - first[j]);
      }
    }
    tbb::this_task_arena::isolate([&] { tbb::parallel_sort(t.leaf_last.begin(), t.leaf_last.end()); });
    t.leaf_first_rank = bucket_rank(t.leaf_first, n + 1);
    t.leaf_last_rank = bucket_rank(t.leaf_last, n + 1);
    t.inner_first_rank = bucket_rank(t.inner_first, n + 1);
    t.inner_reach.build(t.inner_last.size(), [&t](std::uint64_t i) { return t.inner_last[i]; });
  });
  return tree;
}

std::uint64_t count_occurrences(const detail::index_impl& ix, std::string_view pattern, bool in_records, bool parallel,
                                detail::count_path path) {
  const std::uint64_t m = pattern.size();
  const bool by_record = in_records && ix.records.size() > 1;
  if (m > 0 && ix.has_counts && (path == detail::count_path::automatic || path == detail::count_path::runs)) {
    ix.need(detail::index_impl::part::counts);
    if (!by_record) return ix.counts.count(pattern);
    ix.need(detail::index_impl::part::phrases);
    if (const auto n = runs_in_records(ix, pattern, path == detail::count_path::runs)) return *n;
  }
  ix.need_for_locate();
  std::vector<std::uint64_t> prim = ix.primaries(pattern, parallel);
  if (prim.empty()) return 0;
  std::sort(prim.begin(), prim.end());
  const full_tree full{ix, m};
  if (path == detail::count_path::recursion) return *ku_count(ix, full, prim, m, by_record, std::nullopt, parallel);
  const bool split = m <= 2ull * ix.max_len;  // the leaves' count holds up to 2M
  if (path == detail::count_path::leaves) {
    if (!split) return *ku_count(ix, full, prim, m, by_record, std::nullopt, parallel);
    return *ku_count(ix, split_tree{ix.counting_tree(), m}, prim, m, by_record, std::nullopt, parallel);
  }
  // The probe: the recursion on every worker, until its cost reaches about the program's, which
  // runs on one.
  const auto workers = static_cast<std::uint64_t>(parallel ? tbb::this_task_arena::max_concurrency() : 1);
  const std::uint64_t budget = count_probe_steps_per_phrase * ix.kept * workers + 1024;
  if (path == detail::count_path::automatic) {
    const auto n = split ? ku_count(ix, split_tree{ix.counting_tree(), m}, prim, m, by_record, budget, parallel)
                         : ku_count(ix, full, prim, m, by_record, budget, parallel);
    if (n) return *n;
  }
  const std::uint64_t limit = path == detail::count_path::phrases
                                  ? ~std::uint64_t{0}
                                  : count_dp_steps_per_phrase * (ix.kept + (by_record ? ix.records.size() : 0)) + 1024;
  const phrase_dp dp(ix.phrases_in_text_order(), prim, m, limit);
  std::uint64_t n = by_record ? 0 : dp.total();
  if (by_record)
    for (const auto& rec : ix.records)
      if (rec.length >= m) n += dp.c(rec.start + rec.length - m + 1) - dp.c(rec.start);
  return dp.gave_up() ? *ku_count(ix, full, prim, m, by_record, std::nullopt, parallel) : n;
}

}  // namespace trawl::index
