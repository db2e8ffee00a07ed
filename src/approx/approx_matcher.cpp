// approx_matcher.cpp — the approximate `matcher`: compiles the patterns (and their reverse
// complements), picks an engine once, and turns each engine's (end, score) stream into
// all-ends or cluster hits with their leftmost starts. scan() is O(n·⌈m/64⌉) per pattern
// (Myers) plus O(⌈m/64⌉·(m+k)) per reported hit.
#include <algorithm>
#include <utility>
#include <limits>
#include <memory>

#include "approx/approx_internal.hpp"
#include "approx/plan.hpp"
#include "hits/starts.hpp"
#include "common/dispatch.hpp"
#include "hits/clusters.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl {

namespace {
constexpr std::pair<approx_algorithm, std::string_view> approx_names[] = {
    {approx_algorithm::automatic, "auto"},         {approx_algorithm::myers, "myers"},
    {approx_algorithm::dp, "dp"},                  {approx_algorithm::myers_word, "myers-word"},
    {approx_algorithm::myers_blocked, "myers-blocked"}, {approx_algorithm::myers_simd, "myers-simd"},
    {approx_algorithm::myers_striped, "myers-striped"}, {approx_algorithm::myers_filter, "myers-filter"},
    {approx_algorithm::myers_suffix, "myers-suffix"}, {approx_algorithm::myers_seeds, "myers-seeds"},
};
}  // namespace

approx_algorithm parse_approx_algorithm(std::string_view name) {
  for (const auto& [a, n] : approx_names)
    if (name == n) return a;
  throw error(errc::invalid_argument,
              "unknown approximate algorithm '" + std::string(name) +
                  "' (expected auto, myers, dp, myers-word, myers-blocked, myers-simd, myers-striped, myers-filter, myers-suffix, myers-seeds)");
}

std::string_view to_string(approx_algorithm a) noexcept {
  for (const auto& [x, n] : approx_names)
    if (x == a) return n;
  return "auto";
}

namespace approx_detail {
namespace {

// Text bytes every pattern of a set scans before the next block: inside a core's L2 cache.
constexpr std::size_t pattern_block = std::size_t{512} << 10;

/// Base of the two sinks: hits go to `out` at once, their leftmost starts are computed in
/// one batch by resolve() (leftmost_starts interleaves independent requests). A sole sink
/// (one pattern, one strand) owns every hit from out's size at its start on and fills their
/// starts in place; otherwise its hits interleave with others' and it keeps `requests`, the
/// caller's scratch, kept between scans so dense outputs do not fault in fresh pages.
class start_sink : public end_sink {
 public:
  start_sink(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, bool hamming, bool starts,
             std::vector<hit>& out, std::vector<start_request>& requests, bool sole, const simd::kernels& ks,
             std::vector<detail::cut_cluster>* cut = nullptr)
      : p_(p), seq_(seq), lo_(lo), hamming_(hamming), starts_(starts), sole_(sole), first_(out.size()), out_(out),
        requests_(requests), kernels_(ks), cut_(cut) {
    requests_.clear();
  }
  /// Room for one hit per run of `res` (the emits that follow do not reallocate).
  void reserve(const striped_clusters& res) {
    std::size_t n = 1;
    for (const std::uint32_t c : res.count) n += c;
    if (out_.capacity() < out_.size() + n) out_.reserve(std::max(2 * out_.capacity(), out_.size() + n));
    if (starts_ && !hamming_ && !sole_ && requests_.capacity() < requests_.size() + n)
      requests_.reserve(std::max(2 * requests_.capacity(), requests_.size() + n));
  }
  /// True when hits go to `out` alone (a sole sink, or no starts to find).
  [[nodiscard]] bool direct() const { return sole_ || hamming_ || !starts_; }
  /// The hit of end j as emit() writes it (direct sinks).
  [[nodiscard]] hit make_hit(std::uint64_t j, std::uint32_t score) const {
    return hit{hamming_ ? hamming_start(p_, j) : j + 1, j + 1, p_.index, score, p_.dir};
  }
  /// Notes that the cluster whose best end is j is cut by the slice's edges (`sides`).
  void cut(std::uint64_t j, std::uint8_t sides) {
    if (sides != 0) cut_->push_back({j + 1, p_.index, p_.dir, sides});
  }
  /// Room for n more hits at the end of `out`, written through the pointer and ended by
  /// shrink(one past the last written).
  hit* grow(std::size_t n) {
    const std::size_t size = out_.size();
    if (out_.capacity() < size + n) out_.reserve(std::max(2 * out_.capacity(), size + n));
    out_.resize(size + n);
    return out_.data() + size;
  }
  void shrink(const hit* end) { out_.resize(static_cast<std::size_t>(end - out_.data())); }
  [[nodiscard]] std::uint32_t pattern_index() const { return p_.index; }
  [[nodiscard]] const simd::kernels& kernels() const { return kernels_; }
  [[nodiscard]] strand pattern_dir() const { return p_.dir; }
  /// Fills in the starts of every hit emitted so far.
  void resolve() {
    if (sole_) {
      if (!hamming_ && starts_ && out_.size() > first_)
        hits::fill_starts(p_, seq_, lo_, std::span<hit>(out_.data() + first_, out_.size() - first_), kernels_.starts);
      first_ = out_.size();
      return;
    }
    if (requests_.empty()) return;
    leftmost_starts(p_, seq_, lo_, requests_, kernels_.starts);
    for (const start_request& r : requests_) out_[r.slot].start = r.start;
    requests_.clear();
  }

 protected:
  void emit(std::uint64_t j, std::uint32_t score, std::uint8_t sides) {
    cut(j, sides);
    if (direct()) {  // a sole sink's starts are filled in by resolve()
      out_.push_back(make_hit(j, score));
      return;
    }
    // Slots are indices into this slice's hits (a slice holds far fewer than 2^32).
    requests_.push_back({j, score, static_cast<std::uint32_t>(out_.size())});
    out_.push_back(hit{0, j + 1, p_.index, score, p_.dir});
  }

 private:
  const compiled_pattern& p_;
  std::string_view seq_;
  std::uint64_t lo_;
  bool hamming_;
  bool starts_;
  bool sole_;
  std::size_t first_;  ///< a sole sink: its first hit not yet resolved
  std::vector<hit>& out_;
  std::vector<start_request>& requests_;
  const simd::kernels& kernels_;  ///< the kernels of start finding and hit writing
  std::vector<detail::cut_cluster>* cut_;  ///< cluster mode: the clusters the slice's edges cut
};

/// Emits one hit per end (all-ends mode).
class all_ends_sink final : public start_sink {
 public:
  using start_sink::start_sink;
  void on_end(std::uint64_t j, std::uint32_t score) override { emit(j, score, 0); }
  void on_ends(const lane_hit* ends, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) emit(ends[i].pos, ends[i].score, 0);
  }
};

/// Groups runs of consecutive ends and emits one hit per run (cluster mode; the rule is
/// hits/clusters.hpp's). Streams: O(1) state however long a run is.
class cluster_sink final : public start_sink {
 public:
  cluster_sink(const compiled_pattern& p, std::string_view seq, std::uint64_t lo, std::uint64_t own_begin,
               std::uint64_t own_end, bool hamming, bool starts, std::vector<hit>& out,
               std::vector<start_request>& requests, bool sole, const simd::kernels& ks,
               std::vector<detail::cut_cluster>& cut)
      : start_sink(p, seq, lo, hamming, starts, out, requests, sole, ks, &cut),
        own_begin_(own_begin), own_end_(own_end) {}
  void on_end(std::uint64_t j, std::uint32_t score) override {
    const hits::end_run end = hits::end_run::at(j, score);
    if (open_ && run_.absorb(end)) return;
    finish();
    open_ = true;
    run_ = end;
  }
  void on_ends(const lane_hit* ends, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) cluster_sink::on_end(ends[i].pos, ends[i].score);
  }
  [[nodiscard]] bool wants_clusters() const override { return true; }
  void on_runs(const striped_clusters& res, std::uint64_t base, std::size_t stride) override {
    if (!direct()) {
      reserve(res);
      auto one = [&](std::uint64_t j, std::uint32_t score, std::uint8_t flags) { emit(j, score, flags); };
      walk_runs(res, base, stride, one, [&](const striped_cluster* r, std::size_t n, std::uint64_t b) {
        for (std::size_t i = 0; i < n; ++i) emit(b + r[i].best, r[i].score, 0);
      });
      return;
    }
    // A sole sink with starts filled in later: hits are written straight into room made in
    // `out` (this is the whole per-run cost of a dense output), a stripe's inner runs by a
    // vector loop.
    std::size_t n = 0;
    for (const std::uint32_t c : res.count) n += c;
    hit* h = grow(n);
    walk_runs(
        res, base, stride,
        [&](std::uint64_t j, std::uint32_t score, std::uint8_t sides) {
          cut(j, sides);
          *h++ = make_hit(j, score);
        },
        [&](const striped_cluster* r, std::size_t count, std::uint64_t b) {
          kernels().write_runs(r, count, b, pattern_index(), pattern_dir(), h);
          h += count;
        });
    shrink(h);
  }
  /// Passes each run of `res` that is complete to emit(best end, score, flags), joining a
  /// stripe's first run to the open one when they touch; the open run is kept in locals
  /// meanwhile and left open at the end. A stripe's runs between its first and its last are
  /// complete, touch neither end of the slice (flags 0) and go to inner(runs, count, base) in
  /// one call.
  template <class Emit, class Inner>
  void walk_runs(const striped_clusters& res, std::uint64_t base, std::size_t stride, Emit&& emit, Inner&& inner) {
    bool open = open_;
    hits::end_run run = run_;
    for (std::size_t s = 0; s < res.count.size(); ++s, base += stride) {
      const striped_cluster* r = res.recs.data() + s * res.cap;
      const std::uint32_t count = res.count[s];
      for (std::uint32_t i = 0; i < count; ++i) {
        if (i == 1 && count > 2) {  // runs 1 .. count - 2: the open one (run 0) is complete
          emit(run.best, run.best_score, run.sides(own_begin_, own_end_));
          inner(r + 1, count - 2, base);
          i = count - 1;
          open = false;
        }
        const hits::end_run next{base + r[i].first, base + r[i].last, base + r[i].best, r[i].score};
        if (open && run.absorb(next)) continue;  // continues a run cut by the previous stripe's end
        if (open) emit(run.best, run.best_score, run.sides(own_begin_, own_end_));
        open = true;
        run = next;
      }
    }
    open_ = open;
    run_ = run;
  }
  void finish() {
    if (!open_) return;
    open_ = false;
    emit(run_.best, run_.best_score, run_.sides(own_begin_, own_end_));
  }

 private:
  std::uint64_t own_begin_, own_end_;
  bool open_ = false;
  hits::end_run run_;  ///< the open run, while open_
};

/// Hamming search runs on the edit-distance engines: a window of m bytes with h <= k
/// mismatches ends where the edit distance is <= h, so the engines' ends (score <= k) hold
/// every Hamming end, and this sink keeps those whose window has <= k mismatches, with that
/// count as the score. The engines' speed, many patterns at once included, carries over.
class hamming_check final : public end_sink {
 public:
  hamming_check(const compiled_pattern& p, std::string_view seq, std::uint32_t k, end_sink& inner)
      : p_(p), text_(reinterpret_cast<const unsigned char*>(seq.data())), k_(k), inner_(inner) {}
  void on_end(std::uint64_t j, std::uint32_t) override {
    if (j + 1 < p_.m) return;
    const std::uint32_t mism = window_mismatches(p_, text_ + (j + 1 - p_.m), k_);
    if (mism <= k_) inner_.on_end(j, mism);
  }
  void on_ends(const lane_hit* ends, std::size_t n) override {
    for (std::size_t i = 0; i < n; ++i) hamming_check::on_end(ends[i].pos, ends[i].score);
  }

 private:
  const compiled_pattern& p_;
  const unsigned char* text_;
  std::uint32_t k_;
  end_sink& inner_;
};

class approx_matcher final : public detail::engine {
 public:
  approx_matcher(const std::vector<std::string>& patterns, const search_options& options)
      : all_ends_(options.all_ends), hamming_(options.hamming), starts_(options.starts),
        kernels_(simd::kernels_at(options.simd)) {
    if (options.max_errors < 0) throw error(errc::invalid_argument, "the error bound k must be >= 0");
    if (patterns.empty()) throw error(errc::invalid_argument, "no pattern given");
    pats_ = compile_strands(patterns, options, ks_);
    for (std::size_t i = 0; i < pats_.size(); ++i) lookbehind_ = std::max<std::size_t>(lookbehind_, pats_[i].m + ks_[i] - 1);
    approx_plan plan = plan_approx(pats_, ks_, options, kernels_);  // plan.hpp: every choice
    lanes_ = plan.lanes;
    finder_ = plan.finder;
    seeds_ = std::move(plan.seeds);
    seed_patterns_ = std::move(plan.seed_patterns);
    striped_ = plan.striped;
    blocked_ = plan.blocked;
    plans_ = std::move(plan.patterns);
    suffixes_.resize(pats_.size());
    for (std::size_t i = 0; i < pats_.size(); ++i)
      if (plans_[i].filter == filter_kind::suffix) suffixes_[i] = pattern_suffix(pats_[i], plans_[i].suffix_len);
  }

  /// Scans pattern i as the engine would without the suffix filter, the SIMD lanes taking it
  /// alone where they would take it with others.
  void scan_unfiltered(std::size_t i, std::string_view seq, std::size_t from, std::size_t report_from,
                       std::size_t to, end_sink& sink) const {
    if (scan_engine(i, seq, from, report_from, to, sink)) return;
    const compiled_pattern* pp = &pats_[i];
    end_sink* sp = &sink;
    scan_myers_lanes(lanes_, {&pp, 1}, {&ks_[i], 1}, seq, from, report_from, to, {&sp, 1});
  }
  /// Scans pattern i over seq[report_from, to) from a fresh column at `from`, as the engine
  /// picked for it does; false (nothing scanned) when that is the SIMD lanes, which the caller
  /// runs for all their patterns at once.
  bool scan_pattern(std::size_t i, std::string_view seq, std::size_t from, std::size_t report_from, std::size_t to,
                    end_sink& sink, suffix_filter_state& state) const {
    const compiled_pattern& p = pats_[i];
    const std::uint32_t k = ks_[i];
    if (plans_[i].filter == filter_kind::seeds) return true;  // scan_seeds takes it with the others
    if (plans_[i].filter == filter_kind::pigeon) {
      scan_pigeon(p, finder_, verify_lanes(), seq, from, report_from, to, k, sink);
      return true;
    }
    if (plans_[i].filter == filter_kind::suffix) {
      scan_suffix_filter(
          striped_, p, suffixes_[i], seq, from, report_from, to, k, sink,
          [&](std::size_t f, std::size_t lo, std::size_t hi) { scan_unfiltered(i, seq, f, lo, hi, sink); }, state);
      return true;
    }
    return scan_engine(i, seq, from, report_from, to, sink);
  }
  /// Scans ends [report_from, to) of the seed filter's patterns from a fresh column at `from`,
  /// pattern i's ends going to sink_of(i).
  template <class SinkOf>
  void scan_seeds(std::string_view seq, std::size_t from, std::size_t report_from, std::size_t to,
                  SinkOf&& sink_of) const {
    if (!seeds_) return;
    scan_seeded(
        *seeds_, seq, from, report_from, to,
        [&](std::uint32_t member, std::size_t ctx, std::size_t lo, std::size_t hi) {
          const std::size_t i = seed_patterns_[member];
          scan_myers_word(pats_[i], seq, ctx, lo, hi, ks_[i], sink_of(i));
        },
        [&](std::uint32_t member) {
          const std::size_t i = seed_patterns_[member];
          scan_unfiltered(i, seq, from, report_from, to, sink_of(i));
        });
  }
  /// scan_pattern without the filters: the engine's own kernel for pattern i.
  bool scan_engine(std::size_t i, std::string_view seq, std::size_t from, std::size_t report_from, std::size_t to,
                   end_sink& sink) const {
    const compiled_pattern& p = pats_[i];
    const std::uint32_t k = ks_[i];
    switch (plans_[i].kernel) {
      case kernel_kind::dp: scan_dp_sellers(p, seq, from, report_from, to, k, sink); break;
      case kernel_kind::word: scan_myers_word(p, seq, from, report_from, to, k, sink); break;
      case kernel_kind::blocked: scan_myers_blocked(p, seq, from, report_from, to, k, sink); break;
      case kernel_kind::striped: scan_myers_striped(striped_, p, seq, from, report_from, to, k, sink); break;
      case kernel_kind::lanes: return false;
      case kernel_kind::blocked_stripes:
        if (!blocked_(p, seq, from, report_from, to, k, sink)) scan_myers_blocked(p, seq, from, report_from, to, k, sink);
        break;
    }
    return true;
  }

  [[nodiscard]] std::size_t lookbehind() const override { return lookbehind_; }
  [[nodiscard]] std::size_t lookahead() const override { return 0; }
  [[nodiscard]] hit_key key() const override { return hit_key::last; }
  [[nodiscard]] bool one_pattern_strand() const override { return pats_.size() == 1; }
  [[nodiscard]] std::size_t scans_per_byte() const override { return pats_.size(); }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    if (own_begin >= own_end) return;
    const std::size_t from = own_begin >= lookbehind_ ? own_begin - lookbehind_ : 0;
    const std::size_t first = out.size();
    std::vector<detail::cut_cluster> cut;
    // Per thread, kept between slices: the start requests of every pattern.
    thread_local std::vector<std::vector<start_request>> requests;
    if (requests.size() < pats_.size()) requests.resize(pats_.size());
    std::vector<std::unique_ptr<start_sink>> sinks;
    sinks.reserve(pats_.size());
    const bool sole = pats_.size() == 1;
    for (std::size_t i = 0; i < pats_.size(); ++i) {
      const compiled_pattern& p = pats_[i];
      if (all_ends_)
        sinks.push_back(
            std::make_unique<all_ends_sink>(p, seq, from, hamming_, starts_, out, requests[i], sole, kernels_));
      else
        sinks.push_back(std::make_unique<cluster_sink>(p, seq, from, own_begin, own_end, hamming_, starts_, out,
                                                       requests[i], sole, kernels_, cut));
    }
    std::vector<hamming_check> checks;
    if (hamming_) {
      checks.reserve(pats_.size());
      for (std::size_t i = 0; i < pats_.size(); ++i) checks.emplace_back(pats_[i], seq, ks_[i], *sinks[i]);
    }
    // Several patterns over a long slice: the text in blocks that stay in a core's cache
    // while every pattern scans them. A block after the first gives each pattern the context
    // of its longest occurrence (m + k - 1 bytes), which keeps every score <= k exact.
    const std::size_t block = pats_.size() > 1 ? pattern_block : own_end - own_begin;
    // The suffix filter's dense-round skip carries over to this thread's next slices (text
    // near a dense stretch tends to be dense too). It only steers the filter's cost: a stale
    // state, even one left by another matcher at this address, changes no hit.
    thread_local std::vector<suffix_filter_state> states;
    thread_local const approx_matcher* states_of = nullptr;
    if (states_of != this || states.size() != pats_.size()) {
      states.assign(pats_.size(), suffix_filter_state{});
      states_of = this;
    }
    // SIMD lanes take every pattern of m <= 64 together; the rest go one by one.
    std::vector<const compiled_pattern*> lane_pats;
    std::vector<std::uint32_t> lane_ks;
    std::vector<end_sink*> lane_sinks;
    for (std::size_t bb = own_begin; bb < own_end;) {
      const std::size_t be = own_end - bb < block + block / 2 ? own_end : bb + block;
      lane_pats.clear();
      lane_ks.clear();
      lane_sinks.clear();
      for (std::size_t i = 0; i < pats_.size(); ++i) {
        end_sink& sink = hamming_ ? static_cast<end_sink&>(checks[i]) : *sinks[i];
        const std::size_t w = pats_[i].m + ks_[i] - 1;
        const std::size_t f = bb == own_begin ? from : std::max(from, bb - w);
        if (!scan_pattern(i, seq, f, bb, be, sink, states[i])) {
          lane_pats.push_back(&pats_[i]);
          lane_ks.push_back(ks_[i]);
          lane_sinks.push_back(&sink);
        }
      }
      const std::size_t fb = bb == own_begin ? from : std::max(from, bb - lookbehind_);
      if (!lane_pats.empty()) scan_myers_lanes(lanes_, lane_pats, lane_ks, seq, fb, bb, be, lane_sinks);
      scan_seeds(seq, fb, bb, be, [&](std::size_t i) -> end_sink& {
        return hamming_ ? static_cast<end_sink&>(checks[i]) : *sinks[i];
      });
      bb = be;
    }
    if (!all_ends_)
      for (auto& s : sinks) static_cast<cluster_sink&>(*s).finish();
    for (auto& s : sinks) s->resolve();
    // One pattern's sink emits in end order already; several interleave and need the sort.
    const auto begin = out.begin() + static_cast<std::ptrdiff_t>(first);
    if (pats_.size() > 1) std::sort(begin, out.end(), hit_order{hit_key::last});
    detail::mark_cut(out, first, cut, open);  // at most two per pattern-strand
  }

  /// Lanes for the filter's long verification windows (none when only the serial kernel runs).
  [[nodiscard]] const lanes_backend* verify_lanes() const {
    return lanes_.kernel == myers_lanes_serial ? nullptr : &lanes_;
  }

  /// Every (j, score_j <= k) of pattern 0 over the whole text (approx_end_scores).
  std::vector<end_score> end_scores(std::string_view text) const {
    vector_sink ends;
    const compiled_pattern& p = pats_[0];
    const std::uint32_t k = ks_[0];
    hamming_check check(p, text, k, ends);
    end_sink& sink = hamming_ ? static_cast<end_sink&>(check) : ends;
    suffix_filter_state state;
    if (plans_[0].filter == filter_kind::seeds)
      scan_seeds(text, 0, 0, text.size(), [&](std::size_t) -> end_sink& { return sink; });
    else if (!scan_pattern(0, text, 0, 0, text.size(), sink, state))
      scan_unfiltered(0, text, 0, 0, text.size(), sink);
    return std::move(ends.ends);
  }

 private:
  bool all_ends_;
  bool hamming_;
  bool starts_;
  const simd::kernels& kernels_;  ///< the table of options.simd: every kernel below is taken from it
  lanes_backend lanes_{myers_lanes_serial, 8};
  piece_finder finder_ = nullptr;
  striped_kernels striped_;  ///< m <= 32 goes to the striped kernel when it has one
  blocked_kernel blocked_ = nullptr;  ///< the striped blocked kernel (m > 64), if any
  std::vector<pattern_plan> plans_;  ///< per pattern: its filter and kernel (plan_approx)
  std::optional<seed_index> seeds_;  ///< the seed filter of the patterns whose filter is seeds
  std::vector<std::size_t> seed_patterns_;  ///< the pattern of each member of seeds_
  std::vector<compiled_pattern> suffixes_;  ///< per pattern: the suffix the filter scans (empty: none)
  std::vector<compiled_pattern> pats_;
  std::vector<std::uint32_t> ks_;
  std::size_t lookbehind_ = 0;
};

}  // namespace
}  // namespace approx_detail

std::unique_ptr<detail::engine> detail::make_approx_engine(const std::vector<std::string>& patterns,
                                                           const search_options& options) {
  return std::make_unique<approx_detail::approx_matcher>(patterns, options);
}

std::vector<end_score> approx_end_scores(std::string_view pattern, std::string_view text,
                                         const search_options& options) {
  search_options o = options;
  o.both_strands = false;
  const approx_detail::approx_matcher m({std::string(pattern)}, o);
  return m.end_scores(text);
}

std::vector<hit> approx_search_serial(std::string_view text, const std::vector<std::string>& patterns,
                                      const search_options& options) {
  const auto m = detail::make_approx_engine(patterns, options);
  std::vector<hit> out;
  std::vector<detail::open_mark> open;
  m->scan(text, 0, text.size(), out, open);
  return out;
}

}  // namespace trawl
