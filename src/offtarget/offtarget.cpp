// offtarget.cpp — CRISPR off-target sites (offtarget.hpp): the candidate search over
// protospacer + PAM, the exact classification of each candidate's PAM positions (align_counts,
// align_traced_into; align_bits past their limits), and the sink that hands sites over in order;
// site_finder.hpp finds and builds the sites of a candidate.
#include "trawl/detail/text_buffer.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/offtarget.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "common/iupac.hpp"
#include "common/line_vector.hpp"
#include "gpu/gpu_internal.hpp"
#include "offtarget/pam_scan.hpp"
#include "offtarget/site_align.hpp"
#include "offtarget/site_finder.hpp"
#include "offtarget/site_handover.hpp"
#include "offtarget/site_search.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"

namespace trawl::offtarget {
namespace {

using namespace finding;
using namespace site_align;

/// The candidate matcher with the candidates that have no site removed, on the workers: the
/// site sink then classifies (again) only hits that make sites. Without `classify`, only the
/// reach: for a GPU's candidate matcher, whose ends the site test (searcher::site_test) has
/// already classified as the chunks came, and which must see the bytes around them.
class site_filter_matcher final : public detail::engine_wrapper {
 public:
  site_filter_matcher(const detail::engine& inner, const site_finder& finder, std::size_t before, std::size_t after,
                      bool classify, std::unique_ptr<matcher> owner)
      : engine_wrapper(inner), owner_(std::move(owner)), finder_(finder), before_(before), after_(after),
        classify_(classify) {}
  [[nodiscard]] std::size_t lookbehind() const override { return std::max(inner().lookbehind(), before_); }
  [[nodiscard]] std::size_t lookahead() const override { return inner().lookahead() + after_; }
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    const std::size_t first = out.size(), open_first = open.size();
    inner().scan(seq, own_begin, own_end, out, open);
    if (!classify_) return;
    const auto text = text_of(seq);
    // candidates are many where sites are few (bulges): classify them on all the search's cores
    const std::size_t n = out.size() - first;
    std::vector<char> keep(n, 0);
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 256), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) keep[i] = finder_.has_site(out[first + i], text) ? 1 : 0;
    });
    detail::keep_hits(out, first, open, open_first, [&](std::size_t i) { return keep[i - first] != 0; });
  }

 private:
  std::unique_ptr<matcher> owner_;  ///< the inner engine's matcher, when this filter owns it
  const site_finder& finder_;
  std::size_t before_, after_;
  bool classify_;
};

/// The candidate matcher with the insides of long runs of N (either case) left out. A run of N
/// takes no part in a site (N in the genome matches nothing), and a candidate end d bytes into a
/// run costs at least d - (the N codes of its pattern, which match the genome's N) errors: so
/// no candidate ends more than `margin` = k + those codes bytes into a run, and the positions
/// past that are not scanned. Runs of N in assemblies (gaps, centromeres) are long and many.
class n_run_matcher final : public detail::engine_wrapper {
 public:
  n_run_matcher(const detail::engine& inner, std::size_t margin) : engine_wrapper(inner), margin_(margin) {}
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    const auto is_n = [&seq](std::size_t i) { return (seq[i] | 0x20) == 'n'; };
    std::size_t from = own_begin;  // the next position to scan
    for (std::size_t i = own_begin; i < own_end;) {
      if (!is_n(i)) {
        ++i;
        continue;
      }
      std::size_t r0 = i, r1 = i;
      while (r0 > 0 && is_n(r0 - 1)) --r0;
      while (r1 < seq.size() && is_n(r1)) ++r1;
      if (r1 - r0 > 2 * margin_ + 1) {  // [r0 + margin + 1, r1): no candidate ends there
        const std::size_t stop = std::min(own_end, r0 + margin_ + 1);
        if (from < stop) inner().scan(seq, from, stop, out, open);
        from = std::max(from, r1);
      }
      i = r1;
    }
    if (from < own_end) inner().scan(seq, from, own_end, out, open);
  }

 private:
  std::size_t margin_;
};

/// The cores the search's host work takes: options::threads, or every core.
int cores_of(const options& o) { return o.threads != 0 ? static_cast<int>(o.threads) : tbb::info::default_concurrency(); }

/// Collects the candidates of one input's records and hands their sites to a site_sink, each
/// site once (its best alignment over the candidates and PAMs that give it), in order.
///
/// A batch of hits is cut by position into blocks, each the sites whose PAM starts in its
/// range, built apart on several cores (places, ranks, alignments): the blocks come out in key
/// order, and the sink hands their sites over where they were built, through a site_handover
/// (while the next batch is built).
class candidate_sink final : public site_collector {
 public:
  /// A batch's sites are built on up to `cores` cores; with `per_core`, on about one core per
  /// per_core candidates of the batch (a power of two, at least 4).
  candidate_sink(const site_finder& finder, const options& o, std::size_t reach, site_sink& out, std::size_t async_from,
                 int cores, std::size_t per_core = 0)
      : finder_(finder), reach_(reach), text_(2 * reach + 64), cores_(cores), per_core_(per_core),
        handover_(out, o.threads, async_from) {}

  void begin_record(const record_info& r) override {
    text_.reset();
    for (site_block& b : pending_) handover_.release(std::move(b.sites));
    pending_.clear();
    handover_.begin_record(r);
  }
  [[nodiscard]] bool wants_text() const override { return true; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override { text_.append(pos, bytes, stable); }
  /// The record's bytes read from `windows` instead of those handed to text(), until unset
  /// (null): windows that hold every byte the sites of the next hits() read.
  void read_windows(const detail::window_set* windows) { windows_ = windows; }
  bool hits(std::span<const hit> found) override {
    if (found.empty()) return true;
    const auto by_end = [](const hit& a, const hit& b) { return a.end < b.end; };
    std::vector<hit> sorted;
    if (!std::is_sorted(found.begin(), found.end(), by_end)) {  // an exact search's come by start
      sorted.assign(found.begin(), found.end());
    }
    // in an arena of its own (the search's may have a thread per GPU), a few blocks a core
    tbb::task_arena& arena = arena_for(found.size());
    if (!sorted.empty()) {
      arena.execute([&] { tbb::parallel_sort(sorted.begin(), sorted.end(), by_end); });
      found = sorted;
    }
    const std::size_t per = std::clamp<std::size_t>(found.size() / (8 * static_cast<std::size_t>(arena.max_concurrency())),
                                                    256, 8192);
    std::vector<site_block> built((found.size() + per - 1) / per);
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, built.size(), [&](std::size_t b) { build(found, b * per, per, built[b]); });
    });
    add(built);
    return true;
  }
  void floor(std::uint64_t pos) override {
    // a later candidate ends past pos, so its sites reach back at most `reach` bytes before it
    const std::uint64_t keep = pos > reach_ ? pos - reach_ : 0;
    flush(keep);
    text_.drop_before(keep);
  }
  void end_record(std::uint64_t) override {
    flush(~std::uint64_t{0});
    handover_.end_record();
  }
  void finish() override { handover_.finish(); }

 private:
  /// Sites in key order with their keys and ranks (site_finder::rank); those before `first`
  /// are handed over.
  struct site_block {
    std::vector<offtarget::site> sites;
    std::vector<site_key> keys;
    std::vector<site_finder::rank_t> ranks;
    std::size_t first = 0;
    [[nodiscard]] bool empty() const { return first == sites.size(); }
  };

  /// The sites of `found` (by end) whose PAM starts in [the end of hit `from`, the end of hit
  /// `from + per`) (the first block from 0, the last one with no end): the places its hits
  /// imply there, each key's best, each built.
  void build(std::span<const hit> found, std::size_t from, std::size_t per, site_block& to) {
    const std::uint64_t lo = from == 0 ? 0 : found[from].end;
    const bool last = from + per >= found.size();
    const std::uint64_t hi = last ? ~std::uint64_t{0} : found[from + per].end;
    if (lo == hi) return;
    // a hit's places start in [end - reach, end): the hits that end in (lo, hi + reach)
    const auto first = std::upper_bound(found.begin(), found.end(), lo, [](std::uint64_t v, const hit& h) { return v < h.end; });
    const auto stop = last ? found.end()
                           : std::lower_bound(first, found.end(), hi + reach_, [](const hit& h, std::uint64_t v) { return h.end < v; });
    struct place {
      site_key key;
      std::uint32_t pam;
      bool operator<(const place& o) const { return key < o.key || (!(o.key < key) && pam < o.pam); }
      bool operator==(const place& o) const { return !(key < o.key) && !(o.key < key) && pam == o.pam; }
    };
    thread_local std::vector<place> places;
    places.clear();
    for (auto h = first; h != stop; ++h)
      finder_.places_of(*h, [&](const site_key& k, std::uint32_t pam) {
        if (k.pam_start >= lo && k.pam_start < hi) places.push_back(place{k, pam});
      });
    // many candidates of a search with bulges imply the same places
    std::sort(places.begin(), places.end());
    places.erase(std::unique(places.begin(), places.end()), places.end());
    const auto text = [this](std::uint64_t a, std::uint64_t b) { return windows_ ? windows_->at(a, b) : text_.at(a, b); };
    // sites already handed over, whose strings keep their room: built into, they allocate nothing
    std::vector<offtarget::site> spare = handover_.take();
    const auto next_site = [&]() -> offtarget::site& {
      if (spare.empty()) spare = handover_.take();
      if (spare.empty()) return to.sites.emplace_back();
      to.sites.push_back(std::move(spare.back()));
      spare.pop_back();
      return to.sites.back();
    };
    site_finder::aligned aligned;
    for (std::size_t i = 0, j; i < places.size(); i = j) {
      for (j = i + 1; j < places.size() && !(places[i].key < places[j].key); ++j) {
      }
      std::uint32_t pam = places[i].pam;
      if (j - i > 1) {  // places of several PAMs: the best site's
        std::optional<site_finder::rank_t> best;
        for (std::size_t k = i; k < j; ++k)
          if (const auto r = finder_.rank_at(places[k].key, places[k].pam, text); r && (!best || *r < *best)) best = r;
        if (!best) continue;
        pam = best->second;
      }
      const site_key& key = places[i].key;
      if (!finder_.aligned_at(key.guide, pam, key.dir, key.pam_start, text, aligned)) continue;
      offtarget::site& st = next_site();
      finder_.write(aligned, st);
      to.keys.push_back(key);
      to.ranks.push_back(site_finder::rank(st));
    }
    handover_.give_back(std::move(spare));
  }

  /// The arena that builds a batch of n candidates (per_core_: its width a power of two near
  /// n / per_core_, at least 4; made when first needed).
  tbb::task_arena& arena_for(std::size_t n) {
    int width = cores_;
    if (per_core_ != 0) {
      const auto want = static_cast<double>(n) / static_cast<double>(per_core_);
      width = 4;
      while (width < cores_ && static_cast<double>(width) * 1.5 < want) width *= 2;
      width = std::min(width, cores_);
    }
    auto& a = arenas_[width];
    if (!a) a = std::make_unique<tbb::task_arena>(width, 1, tbb::task_arena::priority::high);
    return *a;
  }

  /// Adds the blocks of a batch (in key order) to the pending sites. A pending site of a key
  /// the batch has too (a place the last batch's candidates implied as well) is merged with
  /// it: the better alignment stays, the pending one on a tie.
  void add(std::vector<site_block>& built) {
    auto head = std::find_if(built.begin(), built.end(), [](const site_block& b) { return !b.empty(); });
    if (head == built.end()) return;
    if (!pending_.empty() && !(pending_.back().keys.back() < head->keys[head->first])) {
      const site_key from = head->keys[head->first], upto = pending_.back().keys.back();
      site_block old, fresh, merged;  // the pending sites from `from` on, the batch's up to `upto`
      const auto take = [](site_block& b, std::size_t i, site_block& to) {
        to.sites.push_back(std::move(b.sites[i]));
        to.keys.push_back(b.keys[i]);
        to.ranks.push_back(b.ranks[i]);
      };
      // the pending sites from `from` on: the last blocks' (a block may hold few sites)
      std::size_t at = pending_.size() - 1;
      while (at > 0 && !(pending_[at].keys[pending_[at].first] < from)) --at;
      for (std::size_t q = at; q < pending_.size(); ++q) {
        site_block& p = pending_[q];
        const auto n = static_cast<std::size_t>(
            std::lower_bound(p.keys.begin() + static_cast<std::ptrdiff_t>(p.first), p.keys.end(), from) - p.keys.begin());
        for (std::size_t i = n; i < p.sites.size(); ++i) take(p, i, old);
        p.sites.resize(n), p.keys.resize(n), p.ranks.resize(n);
      }
      while (!pending_.empty() && pending_.back().empty()) {
        handover_.release(std::move(pending_.back().sites));
        pending_.pop_back();
      }
      for (auto b = head; b != built.end(); ++b) {
        while (!b->empty() && !(upto < b->keys[b->first])) take(*b, b->first++, fresh);
        if (!b->empty()) break;
      }
      for (std::size_t i = 0, j = 0; i < old.sites.size() || j < fresh.sites.size();) {
        if (j == fresh.sites.size() || (i < old.sites.size() && old.keys[i] < fresh.keys[j])) {
          take(old, i++, merged);
        } else if (i == old.sites.size() || fresh.keys[j] < old.keys[i]) {
          take(fresh, j++, merged);
        } else {  // one key: the better alignment
          if (fresh.ranks[j] < old.ranks[i]) take(fresh, j, merged);
          else take(old, i, merged);
          ++i, ++j;
        }
      }
      if (!merged.empty()) pending_.push_back(std::move(merged));
    }
    for (site_block& b : built)
      if (!b.empty()) pending_.push_back(std::move(b));
  }

  /// Hands over the sites whose PAM starts before `bound`, where they are.
  void flush(std::uint64_t bound) {
    const site_key end_key{bound, 0, strand::forward};
    std::vector<std::span<const offtarget::site>> spans;
    std::size_t spent = 0;  // the blocks handed over whole
    for (; spent < pending_.size(); ++spent) {
      site_block& b = pending_[spent];
      const auto e = std::lower_bound(b.keys.begin() + static_cast<std::ptrdiff_t>(b.first), b.keys.end(), end_key);
      const auto n = static_cast<std::size_t>(e - b.keys.begin()) - b.first;
      spans.push_back(std::span<const offtarget::site>(b.sites).subspan(b.first, n));
      b.first += n;
      if (!b.empty()) break;
    }
    handover_.sites(spans);
    for (; spent > 0; --spent) {
      handover_.release(std::move(pending_.front().sites));
      pending_.pop_front();
    }
  }

  const site_finder& finder_;
  std::size_t reach_;
  /// The text a site reads: at most reach bytes before a candidate's end and the bulges' after
  /// it, within 2 * reach + 64 (its seam): the text is copied only there.
  detail::text_buffer text_;
  const detail::window_set* windows_ = nullptr;
  /// The sites not handed over yet, in key order, one per key; a block's sites before its
  /// `first` may be waiting in handover_, which frees the block once it has them all.
  std::deque<site_block> pending_;
  int cores_;
  std::size_t per_core_;
  std::map<int, std::unique_ptr<tbb::task_arena>> arenas_;  ///< by width: build a batch's sites
  site_handover handover_;  ///< after pending_: ends its thread before the blocks go
};

}  // namespace

struct site_search::data {
  std::vector<guide> guides;  ///< upper case, each with its mismatch limit
  options o;
  std::vector<std::string> patterns;
  std::vector<std::pair<std::uint32_t, std::uint32_t>> pattern_of;  ///< pattern -> (guide, PAM)
  search_options so;
  std::size_t longest = 0;
  std::size_t reach = 0;  ///< a site starts at most this many bytes before its candidate's end
  std::unique_ptr<site_finder> finder;
  std::unique_ptr<matcher> candidates;  ///< the library's candidate matcher
  std::unique_ptr<pam_tables> tables;        ///< without bulges: the PAM scan's
  std::unique_ptr<detail::engine> pam_scan;  ///< without bulges: the CPU's candidates, from the PAMs
  std::unique_ptr<n_run_matcher> skip_n;
  std::unique_ptr<matcher> cpu;  ///< skip_n, filtered
};

/// The longest guide a searcher takes (protospacers are 17-30 bases; past this it is a
/// sequence pasted by mistake).
constexpr std::size_t max_guide = 100;
static_assert(max_guide <= site_rows::max_traced_guide, "a site's columns are traced from its rows");

site_search::site_search(std::vector<guide> guides, options o) : d_(std::make_unique<data>()) {
  data& s = *d_;
  if (guides.empty()) throw error(errc::invalid_argument, "offtarget: no guide");
  if (o.pams.empty()) throw error(errc::invalid_argument, "offtarget: no PAM");
  if (o.mismatches < 0 || o.pam_mismatches < 0 || o.dna_bulges < 0 || o.rna_bulges < 0 || o.mismatches > 64 ||
      o.pam_mismatches > 64 || o.dna_bulges > 16 || o.rna_bulges > 16 || o.max_edits > 96)
    throw error(errc::invalid_argument,
                "offtarget::options: mismatches and pam_mismatches must be in 0..64, bulges in 0..16, max_edits <= 96");
  for (std::string& p : o.pams) {
    p = detail::ascii_upper(p);
    if (!detail::iupac_sequence(p)) throw error(errc::invalid_argument, "offtarget: PAM " + p + " is not DNA (IUPAC)");
  }
  for (guide& g : guides) {
    g.protospacer = detail::ascii_upper(g.protospacer);
    if (!detail::iupac_sequence(g.protospacer)) throw error(errc::invalid_argument, "offtarget: guide " + g.name + " is not DNA (IUPAC)");
    if (g.protospacer.size() > max_guide)
      throw error(errc::invalid_argument, "offtarget: guide " + g.name + " is longer than " + std::to_string(max_guide) +
                                              " bases: give the protospacer alone");
    // a guide pasted with its PAM: a protospacer of 20 or more bases, then a PAM on its side
    // (the PAMs are upper case by now)
    for (const std::string& pam : o.pams) {
      const std::string& p = g.protospacer;
      if (p.size() < 20 + pam.size()) continue;
      const std::size_t at = o.side == pam_side::three_prime ? p.size() - pam.size() : 0;
      bool is_pam = true;
      for (std::size_t i = 0; i < pam.size() && is_pam; ++i)
        is_pam = (detail::iupac_bits(static_cast<unsigned char>(p[at + i])) &
                  ~detail::iupac_bits(static_cast<unsigned char>(pam[i]))) == 0;
      if (is_pam)
        throw error(errc::invalid_argument, "offtarget: guide " + g.name + " " +
                                                (o.side == pam_side::three_prime ? "ends" : "starts") + " with its PAM (" +
                                                p.substr(at, pam.size()) + " for " + pam + "): give the protospacer alone");
    }
    if (g.mismatches < 0) g.mismatches = o.mismatches;
    if (g.mismatches > 64) throw error(errc::invalid_argument, "offtarget: guide " + g.name + ": more than 64 mismatches");
  }
  s.guides = std::move(guides);
  s.o = std::move(o);
  // one pattern per (guide, PAM)
  int k = 0;
  const bool five = s.o.side == pam_side::five_prime;
  for (std::uint32_t gi = 0; gi < s.guides.size(); ++gi) {
    const int spacer = s.guides[gi].mismatches + s.o.dna_bulges + s.o.rna_bulges;
    k = std::max(k, (s.o.max_edits >= 0 ? std::min(spacer, s.o.max_edits) : spacer) + s.o.pam_mismatches);
    for (std::uint32_t pi = 0; pi < s.o.pams.size(); ++pi) {
      const std::string& spacer_seq = s.guides[gi].protospacer;
      s.patterns.push_back(five ? s.o.pams[pi] + spacer_seq : spacer_seq + s.o.pams[pi]);
      s.pattern_of.emplace_back(gi, pi);
      s.longest = std::max(s.longest, s.patterns.back().size());
    }
  }
  s.so.max_errors = k;
  s.so.hamming = s.o.dna_bulges == 0 && s.o.rna_bulges == 0;  // without bulges a site is a window
  s.so.iupac = true;
  s.so.both_strands = true;
  s.so.all_ends = true;  // every window: a cluster's one hit could hide a site
  s.so.starts = false;   // sites are anchored at the PAM, found from the ends
  s.so.threads = s.o.threads;
  s.so.device = s.o.device;
  s.so.processes = s.o.processes;
  s.reach = s.longest + static_cast<std::size_t>(k + s.o.dna_bulges) + 1;
  s.finder = std::make_unique<site_finder>(s.guides, s.o, s.pattern_of);
  s.candidates = make_matcher(s.patterns, s.so);
  std::size_t n_codes = 0;  // the most N codes in one pattern: they match the genome's N
  for (const auto& p : s.patterns)
    n_codes = std::max<std::size_t>(n_codes, static_cast<std::size_t>(std::count(p.begin(), p.end(), 'N')));
  // Without bulges a site is a window at a PAM: the CPU finds exactly the ends with a site
  // from the PAM positions, far fewer steps than a Hamming search of every window.
  if (s.so.hamming) {
    s.tables = std::make_unique<pam_tables>(make_pam_tables(s.guides, s.o));
    s.pam_scan = make_pam_scan(*s.tables);
  }
  s.skip_n = std::make_unique<n_run_matcher>(s.pam_scan ? *s.pam_scan : trawl::detail::engine_of(*s.candidates),
                                             static_cast<std::size_t>(k) + n_codes);
  s.cpu = std::make_unique<matcher>(make_filter(*s.skip_n, !s.pam_scan));
}

site_search::~site_search() = default;

const std::vector<guide>& site_search::guides() const { return d_->guides; }
const options& site_search::opts() const { return d_->o; }
const std::vector<std::string>& site_search::patterns() const { return d_->patterns; }
const search_options& site_search::candidate_options() const { return d_->so; }
const matcher& site_search::cpu_matcher() const { return *d_->cpu; }

std::unique_ptr<detail::engine> site_search::make_filter(const detail::engine& inner, bool classify,
                                                      std::unique_ptr<matcher> owner) const {
  // a site reaches m + P + DNA bulges before a candidate's end, and DNA + RNA bulges past it
  const data& s = *d_;
  return std::make_unique<site_filter_matcher>(inner, *s.finder, s.longest + static_cast<std::size_t>(s.o.dna_bulges) + 1,
                                               static_cast<std::size_t>(s.o.dna_bulges + s.o.rna_bulges) + 1, classify,
                                               std::move(owner));
}

gpu::detail::end_test site_search::site_test() const {
  const site_finder* finder = d_->finder.get();
  return [finder](std::string_view seq, std::uint64_t end, std::uint32_t pattern, strand dir) {
    return finder->has_site(hit{0, end, pattern, 0, dir}, text_of(seq));
  };
}

std::shared_ptr<const cuda::site_end_test> site_search::device_site_test() const {
  const data& s = *d_;
  auto t = std::make_shared<cuda::site_end_test>();
  t->three_prime = s.o.side == pam_side::three_prime;
  t->pam_limit = static_cast<std::uint32_t>(s.o.pam_mismatches);
  t->dna_bulges = static_cast<std::uint32_t>(s.o.dna_bulges);
  t->rna_bulges = static_cast<std::uint32_t>(s.o.rna_bulges);
  t->max_edits = s.o.max_edits;
  const auto bits = [](std::string_view seq) {
    std::vector<std::uint8_t> b;
    for (const char c : seq) b.push_back(static_cast<std::uint8_t>(detail::iupac_bits(static_cast<unsigned char>(c))));
    return b;
  };
  for (const guide& g : s.guides) {  // from the PAM outward, as site_finder reads them
    std::string outward = g.protospacer;
    if (t->three_prime) std::reverse(outward.begin(), outward.end());
    t->guides.push_back(bits(outward));
    t->limits.push_back(g.mismatches);
  }
  for (const std::string& p : s.o.pams) t->pams.push_back(bits(p));
  for (const auto& [gi, pi] : s.pattern_of) {
    t->guide_of.push_back(gi);
    t->pam_of.push_back(pi);
  }
  return t;
}

std::unique_ptr<site_collector> site_search::sink(site_sink& out, std::size_t async_from) const {
  // A stream's batches are its chunks, each built while the input is parsed and the scans are
  // fed: a batch takes cores by its size, not all of them from that work.
  // a core per 24 Ki candidates: tuned on a GPU host, see docs/PERFORMANCE.md
  return std::make_unique<candidate_sink>(*d_->finder, d_->o, d_->reach, out, async_from, cores_of(d_->o),
                                          std::size_t{24} << 10);
}

std::unique_ptr<matcher> site_search::gpu_matcher(const search_options& planned, const gpu::detail::gpu_knobs& given) const {
  gpu::detail::gpu_knobs knobs(given);
  const data& s = *d_;
  if (s.tables && s.tables->longest <= cuda::site_plan::max_longest) {
    cuda::site_plan plan = gpu_site_plan(*s.tables);
    if (knobs.site_direct_up_to) plan.direct_up_to = *knobs.site_direct_up_to;
    auto scan = std::make_unique<matcher>(gpu::detail::make_site_engine(plan, planned.device, knobs));
    const detail::engine& inner = trawl::detail::engine_of(*scan);
    return std::make_unique<matcher>(make_filter(inner, false, std::move(scan)));
  }
  knobs.keep_end = site_test();
  knobs.device_end_test = device_site_test();
  auto search = gpu::detail::make_matcher(s.patterns, planned, knobs);
  const detail::engine& inner = trawl::detail::engine_of(*search);
  return std::make_unique<matcher>(make_filter(inner, false, std::move(search)));
}

stream_result site_search::search(io::source& input, site_sink& out,
                                  const std::function<void(const search_plan&)>& planned,
                                  const std::function<void(std::uint64_t)>& progress) const {
  const data& s = *d_;
  const auto sites = sink(out);
  run_steps steps;
  steps.cpu = s.cpu.get();
  steps.planned = planned;
  steps.make_gpu = [this](const search_options& options) { return gpu_matcher(options); };
  stream_options stream;
  stream.progress = progress;
  const stream_result r = run_search(s.patterns, input, s.so, stream, *sites, steps);
  sites->finish();
  return r;
}

void site_search::search(const index::hybrid_index& idx, site_sink& out) const {
  classify(idx, idx.search_records(d_->patterns, d_->so), out);
}

/// The sites of records read only around their candidates (window_classifier).
class windowed_sites final : public window_classifier {
 public:
  windowed_sites(const site_finder& finder, const options& o, std::size_t reach, site_sink& out, record_reader read,
                 bool test, std::uint64_t span)
      : finder_(finder), reach_(reach), span_(span),
        after_(static_cast<std::uint64_t>(o.dna_bulges + o.rna_bulges) + 8), read_(std::move(read)), test_(test),
        arena_(cores_of(o), 1, tbb::task_arena::priority::high),
        sink_(finder, o, reach, out, site_handover::async_from, cores_of(o)) {}
  void begin_record(const record_info& info, std::uint64_t length) override {
    record_ = static_cast<std::uint32_t>(info.index);
    length_ = length;
    sink_.begin_record(info);
  }
  void candidates(std::span<const hit> found, std::uint64_t offset) override {
    if (found.empty()) return;
    // by end (a GPU's come so), in record coordinates: a copy, made on all cores, only to
    // shift or sort them
    const auto by_end = [](const hit& a, const hit& b) { return a.end < b.end; };
    std::span<const hit> hits = found;
    const bool sorted = std::is_sorted(found.begin(), found.end(), by_end);
    if (offset != 0 || !sorted) {
      own_.resize(found.size());
      arena_.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, found.size(), 1 << 14), [&](const tbb::blocked_range<std::size_t>& b) {
          for (std::size_t i = b.begin(); i != b.end(); ++i) {
            hit h = found[i];
            h.start = std::max(h.start, offset) - offset;
            h.end -= offset;
            own_[i] = h;
          }
        });
      });
      if (!sorted) std::stable_sort(own_.begin(), own_.end(), by_end);
      hits = own_;
    }
    // A site reaches `reach` bytes before its candidate's end and the bulges after it. The
    // candidates go in groups whose bytes span at most span_: where their windows would cover
    // an eighth of that or more, the span is read whole (dense candidates: a search with
    // bulges), else the windows around them, overlapping ones merged.
    const std::uint64_t before = reach_ + 8;
    const auto lo_of = [&](const hit& h) { return h.end > before ? h.end - before : 0; };
    const auto hi_of = [&](const hit& h) { return std::min(length_, h.end + after_); };
    for (std::size_t c = 0; c < hits.size();) {
      const std::uint64_t lo = lo_of(hits[c]);
      const auto past = std::partition_point(hits.begin() + static_cast<std::ptrdiff_t>(c) + 1, hits.end(),
                                             [&](const hit& h) { return hi_of(h) <= lo + span_; });
      const std::span<const hit> group = hits.subspan(c, static_cast<std::size_t>(past - hits.begin()) - c);
      c += group.size();
      const std::uint64_t hi = hi_of(group.back());
      windows_.clear();
      if (lo < hi && group.size() * (before + after_) * 8 >= hi - lo) {
        char* to = windows_.add(lo, static_cast<std::size_t>(hi - lo));
        constexpr std::uint64_t kPiece = std::uint64_t{1} << 20;
        arena_.execute([&] {
          tbb::parallel_for(std::uint64_t{0}, (hi - lo + kPiece - 1) / kPiece, [&](std::uint64_t p) {
            const std::uint64_t a = lo + p * kPiece, b = std::min(hi, a + kPiece);
            read_(record_, a, b, to + (a - lo));
          });
        });
      } else {
        for (std::size_t i = 0; i < group.size();) {
          const std::uint64_t wlo = lo_of(group[i]);
          std::uint64_t whi = hi_of(group[i]);
          std::size_t j = i + 1;
          while (j < group.size() && lo_of(group[j]) <= whi) whi = std::max(whi, hi_of(group[j++]));
          if (wlo < whi) windows_.add(wlo, static_cast<std::size_t>(whi - wlo));
          i = j;
        }
        // on all cores, in an arena of their own (the caller may be a search's worker, its
        // arena a thread per GPU)
        arena_.execute([&] {
          tbb::parallel_for(std::size_t{0}, windows_.size(), [&](std::size_t w) {
            read_(record_, windows_.lo(w), windows_.hi(w), windows_.data(w));
          });
        });
      }
      classify(group);
    }
  }
  void end_record() override { sink_.end_record(length_); }
  void finish() override { sink_.finish(); }

 private:
  /// Hands a group of candidates (by end) to the sink, the windows read for them; with
  /// `test`, only those that have a site, found on all cores (the sink classifies them again).
  void classify(std::span<const hit> group) {
    std::vector<hit> kept;
    if (test_) {
      const auto text = [this](std::uint64_t a, std::uint64_t b) { return windows_.at(a, b); };
      std::vector<char> keep(group.size(), 0);
      arena_.execute([&] {
        tbb::parallel_for(tbb::blocked_range<std::size_t>(0, group.size(), 256), [&](const tbb::blocked_range<std::size_t>& b) {
          for (std::size_t h = b.begin(); h != b.end(); ++h) keep[h] = finder_.has_site(group[h], text) ? 1 : 0;
        });
      });
      for (std::size_t h = 0; h < group.size(); ++h)
        if (keep[h]) kept.push_back(group[h]);
      group = kept;
    }
    sink_.read_windows(&windows_);
    sink_.hits(group);
    sink_.read_windows(nullptr);
    // later candidates end at or after the last of these
    if (!group.empty()) sink_.floor(group.back().end);
  }

  const site_finder& finder_;
  std::size_t reach_;
  std::uint64_t span_;
  std::uint64_t after_;
  record_reader read_;
  bool test_;
  tbb::task_arena arena_;  ///< reads the windows and tests the candidates
  candidate_sink sink_;
  detail::window_set windows_;
  std::vector<hit> own_;  ///< candidates shifted or sorted
  std::uint32_t record_ = 0;
  std::uint64_t length_ = 0;
};

std::unique_ptr<window_classifier> site_search::windowed(site_sink& out, record_reader read, bool test,
                                                          std::uint64_t span) const {
  return std::make_unique<windowed_sites>(*d_->finder, d_->o, d_->reach, out, std::move(read), test, span);
}

void site_search::classify(const index::hybrid_index& idx, const std::vector<index::record_hit>& found,
                           site_sink& out) const {
  const auto records = idx.records();
  const auto sites = windowed(out, [&idx](std::uint32_t r, std::uint64_t lo, std::uint64_t hi, char* to) {
    const std::string bytes = idx.extract_record(r, lo, hi);
    std::copy(bytes.begin(), bytes.end(), to);
  }, true);
  std::vector<hit> hits;
  for (std::size_t i = 0; i < found.size();) {
    const std::uint32_t r = found[i].record;
    hits.clear();
    for (; i < found.size() && found[i].record == r; ++i) hits.push_back(found[i].h);
    record_info info;
    info.name = records[r].name;
    info.index = r;
    info.format = io::format::fasta;
    sites->begin_record(info, records[r].length);
    sites->candidates(hits, 0);
    sites->end_record();
  }
  sites->finish();
}

searcher::searcher(std::vector<guide> guides, options opt)
    : impl_(std::make_unique<site_search>(std::move(guides), std::move(opt))) {}
searcher::~searcher() = default;
const std::vector<guide>& searcher::guides() const { return impl_->guides(); }
const options& searcher::opts() const { return impl_->opts(); }
stream_result searcher::search(io::source& input, site_sink& out, const std::function<void(const search_plan&)>& planned,
                               const std::function<void(std::uint64_t)>& progress) const {
  return impl_->search(input, out, planned, progress);
}
void searcher::search(const index::hybrid_index& idx, site_sink& out) const { impl_->search(idx, out); }

}  // namespace trawl::offtarget
