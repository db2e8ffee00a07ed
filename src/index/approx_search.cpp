// approx_search.cpp — hybrid_index::search_records with search options: approximate search
// (and exact search with case or IUPAC rules) through the index.
//
// Let L = m + k (m for Hamming search), k < m. An end j's score (approx.hpp) is decided by the
// window W_j = S[j-L+1, j] once that window lies in j's record: a substring within k of the
// pattern is at most m + k long. With L <= M every window lies inside one segment of S'' or
// strictly inside one kept phrase (s2_builder.cpp), and inside a kept phrase it is a copy of
// the window at the same offset of the phrase's source. So the ends within k are
//  (1) the ends of a scan of S'' whose window lies in one segment and is not inside one kept
//      phrase: the primary ends. The scan runs over S'' as it is, its segments side by side:
//      an alignment within k spans at most L bytes, so at an end whose window lies in one
//      segment the scan's score is the segment's own wherever either is <= k. It runs on the
//      GPU when search_options::device and choose_device say so for the length of the kernel;
//  (2) their copies, found by the Kärkkäinen–Ukkonen recursion on the windows, as locate finds
//      secondary occurrences (each copy once);
//  (3) the ends within L - 1 bytes of a record's start, whose windows the record cuts: taken
//      from a scan of the record's first bytes instead.
// From the ends of each (record, pattern, strand) the hits are made as a scan makes them
// (hits/clusters.hpp): every end, or per run of consecutive ends its best one; the starts come
// from the extracted text. Patterns with k >= m or L > M are searched in each extracted record.
#include <algorithm>
#include <cstring>
#include <tuple>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "trawl/detail/engine.hpp"
#include "distributed/deal.hpp"
#include "hits/clusters.hpp"
#include "hits/starts.hpp"
#include "index/index_impl.hpp"
#include "index/ku_recursion.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"

namespace trawl::index {
namespace {

/// An end within k: text position j (inclusive, in the records concatenated).
struct end_hit {
  std::uint64_t j;
  std::uint32_t pattern;
  std::uint32_t errors;
  strand dir;
};

/// Every end within k of `seq` (all_ends options) to `add`, in order: on the search's workers,
/// or, for a short sequence, in one scan on this thread.
template <class F>
void scan_ends(const matcher& m, std::string_view seq, const search_options& ends, F&& add) {
  if (seq.size() < (std::size_t{1} << 16)) {
    std::vector<hit> out;
    std::vector<trawl::detail::open_mark> open;  // all ends: no clusters
    trawl::detail::engine_of(m).scan(seq, 0, seq.size(), out, open);
    for (const hit& h : out) add(h);
    return;
  }
  search_sequence(m, seq, ends, [&](std::span<const hit> hs) {
    for (const hit& h : hs) add(h);
    return true;
  });
}

/// An exact search is a locate: of the patterns, and with both strands of their reverse
/// complements as extra patterns, whose hits as_search_hit turns back into reverse hits.
bool located(const search_options& s) {
  return s.max_errors == 0 && !s.all_ends && !s.ignore_case && !s.iupac;
}
std::vector<std::string> located_patterns(const std::vector<std::string>& patterns, bool both_strands) {
  std::vector<std::string> all = patterns;
  if (both_strands)
    for (const auto& p : patterns) all.push_back(reverse_complement(p));
  return all;
}
void as_search_hit(record_hit& rh, std::size_t patterns) {
  if (rh.h.pattern >= patterns) {
    rh.h.pattern -= static_cast<std::uint32_t>(patterns);
    rh.h.dir = strand::reverse;
  }
}

}  // namespace

std::uint64_t hybrid_index::for_each_search_hit(const std::vector<std::string>& patterns, const search_options& search,
                                                const std::function<bool(std::span<const record_hit>)>& on_hits) const {
  if (!located(search))
    throw error(errc::invalid_argument, "index: for_each_search_hit takes an exact search (no max_errors, all_ends, ignore_case or iupac)");
  // for_each_record_hit gives (record, start, pattern of `all`): the hits of one start are
  // put in the search's order before they are handed over
  constexpr record_hit_order order{hit_order{hit_key::start}};
  constexpr std::size_t batch = std::size_t{1} << 16;
  std::vector<record_hit> out;
  std::size_t group = 0;  // out[group, end): the hits of one (record, start)
  std::uint64_t handed = 0;
  bool go = true;
  locate_options lo;
  lo.threads = search.threads;
  for_each_record_hit(located_patterns(patterns, search.both_strands), lo, [&](std::span<const record_hit> hits) {
    for (record_hit rh : hits) {
      if (group < out.size() && (out[group].record != rh.record || out[group].h.start != rh.h.start)) {
        std::sort(out.begin() + static_cast<std::ptrdiff_t>(group), out.end(), order);
        if (out.size() >= batch) {
          handed += out.size();
          go = on_hits(out);
          out.clear();
          if (!go) return false;
        }
        group = out.size();
      }
      as_search_hit(rh, patterns.size());
      out.push_back(rh);
    }
    return true;
  });
  if (go && !out.empty()) {
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(group), out.end(), order);
    handed += out.size();
    on_hits(out);
  }
  return handed;
}

std::vector<record_hit> hybrid_index::search_records(const std::vector<std::string>& patterns,
                                                     const search_options& search, const gpu::gpu_options& gpu,
                                                     device_spec* ran_on) const {
  if (ran_on != nullptr) *ran_on = device_spec{device_kind::cpu};  // unless the kernel's scan runs on GPUs below
  if (search.whole_words || search.whole_lines)
    throw error(errc::invalid_argument, "index: search_options::whole_words and whole_lines are not searched through an index");
  if (search.processes != nullptr && search.processes->size() > 1) {
    // on every rank before the deal, as in count_records: what the search reads
    if (located(search)) {
      impl_->need_for_locate();
    } else {
      impl_->need(impl::part::phrases);
      (void)impl_->s2_text();
    }
    search_options here = search;
    here.processes = nullptr;
    return distributed::deal_records(
        *search.processes, patterns, [&](const std::vector<std::string>& mine) { return search_records(mine, here, gpu); },
        record_hit_order{hit_order::of(search.max_errors > 0 || search.all_ends)});
  }
  impl_->need(impl::part::phrases);
  const impl& ix = *impl_;
  const bool approximate = search.max_errors > 0 || search.all_ends;
  if (located(search)) {
    locate_options lo;
    lo.threads = search.threads;
    std::vector<record_hit> out = search_records(located_patterns(patterns, search.both_strands), lo);
    for (auto& rh : out) as_search_hit(rh, patterns.size());
    std::sort(out.begin(), out.end(), record_hit_order{hit_order{hit_key::start}});
    return out;
  }

  // every end within k (exact search with case or IUPAC rules: the ends at distance 0)
  search_options ends = search;
  ends.all_ends = true;
  ends.starts = false;
  ends.max_hits = 0;
  ends.device = device_kind::cpu;
  const auto m = make_matcher(patterns, ends);  // the scan of S'' may run on a GPU (below); the rest on the CPU
  const auto k = static_cast<std::uint64_t>(search.max_errors);
  std::vector<std::uint64_t> window(patterns.size());
  std::uint64_t widest = 0;
  bool through_s2 = true;
  for (std::size_t p = 0; p < patterns.size(); ++p) {
    window[p] = search.hamming ? patterns[p].size() : patterns[p].size() + k;
    widest = std::max(widest, window[p]);
    through_s2 = through_s2 && k < patterns[p].size() && window[p] <= ix.max_len;
  }
  const unsigned threads = resolve_threads(search.threads);
  tbb::task_arena arena(static_cast<int>(threads));
  std::vector<end_hit> found;

  arena.execute([&] {
    if (!through_s2) {
      for (const record_span& rec : ix.records) {
        std::string text;
        if (rec.length > 0) ix.extract_into(rec.start, rec.length, text);
        scan_ends(*m, text, ends, [&](const hit& h) { found.push_back({rec.start + h.end - 1, h.pattern, h.errors, h.dir}); });
      }
      return;
    }
    // (1) the primary ends, from S''. No primary end's window lies in the first M - L bytes of
    // a segment (inside kept phrase k - 1) or reaches its last M - L + 1 (inside kept phrase k),
    // for the widest window L: when L < M the CPU's scan reads each segment without them, its
    // piece, the pieces side by side.
    const std::string_view s2 = ix.s2_text();
    const detail::index_impl::segment_table& segs = ix.segments_plain();
    const std::uint64_t nseg = segs.s2.size() - 1;
    const bool gpu_scan = choose_device(search, patterns, s2.size()) == device_kind::gpu;
    // Through S'' widest <= M. The GPU scans the segments whole: its scan of the bytes cut
    // costs less than copying the pieces.
    const std::uint64_t cut = gpu_scan ? 0 : ix.max_len - widest;
    const auto piece_shift = [&](std::uint64_t g) { return g > 0 ? cut : 0; };  // its first byte in segment g
    std::vector<std::uint64_t> cut_at;  // where segment k's piece starts in the pieces
    byte_buffer pieces;
    std::string_view scanned = s2;
    if (cut > 0) {
      cut_at.assign(nseg + 1, 0);
      const auto piece_len = [&](std::uint64_t g) -> std::uint64_t {
        const std::uint64_t len = segs.s2[g + 1] - segs.s2[g], tail = g < ix.kept ? cut + 1 : 0;
        return len > piece_shift(g) + tail ? len - piece_shift(g) - tail : 0;
      };
      for (std::uint64_t g = 0; g < nseg; ++g) cut_at[g + 1] = cut_at[g] + piece_len(g);
      pieces = byte_buffer(cut_at[nseg]);
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, nseg, 1u << 12), [&](const auto& r) {
        for (std::uint64_t g = r.begin(); g < r.end(); ++g)
          std::memcpy(pieces.data() + cut_at[g], s2.data() + segs.s2[g] + piece_shift(g), cut_at[g + 1] - cut_at[g]);
      });
      scanned = pieces.view();
    }
    const std::vector<std::uint64_t>& piece_at = cut > 0 ? cut_at : segs.s2;  // where segment k's piece starts
    std::vector<end_hit> primary;
    std::uint64_t seg = 0;
    search_options s2_scan = ends;
    std::unique_ptr<matcher> on_gpu;
    if (gpu_scan) {  // one slice a device, streamed by it in its chunks
      s2_scan.device = search.device;
      const std::size_t devices = search.device.workers().size();
      s2_scan.slice_size = scanned.size() / devices + 1;
      s2_scan.threads = static_cast<unsigned>(devices + 1);
      on_gpu = gpu::make_matcher(patterns, s2_scan, gpu);
      if (ran_on != nullptr) *ran_on = on_gpu->device();
    }
    scan_ends(on_gpu ? *on_gpu : *m, scanned, s2_scan, [&](const hit& h) {
      const std::uint64_t at = h.end - 1;
      while (piece_at[seg + 1] <= at) ++seg;
      const std::uint64_t off = at - piece_at[seg];
      const std::uint64_t L = window[h.pattern];
      if (off + 1 < L) return;  // the window reaches out of the piece: a copy, or cut by a record
      const std::uint64_t j = segs.text[seg] + piece_shift(seg) + off;
      if (!ix.is_primary_in(segs, seg, j + 1 - L, L)) return;  // inside one kept phrase: the recursion finds it
      primary.push_back({j, h.pattern, h.errors, h.dir});
    });
    // (2) their copies
    tbb::enumerable_thread_specific<std::vector<end_hit>> copies;
    tbb::parallel_for(std::size_t{0}, primary.size(), [&](std::size_t i) {
      const end_hit& e = primary[i];
      const std::uint64_t L = window[e.pattern];
      auto& out = copies.local();
      std::vector<ku_item> stack{ku_root(ix, e.j + 1 - L)};
      std::vector<std::uint64_t> starts;
      while (!stack.empty()) {
        const ku_item it = stack.back();
        stack.pop_back();
        ku_step(ix, L, it, stack, starts);
      }
      for (std::uint64_t x : starts) out.push_back({x + L - 1, e.pattern, e.errors, e.dir});
    });
    found = std::move(primary);
    for (auto& c : copies) found.insert(found.end(), c.begin(), c.end());
    // (3) the ends near record starts: from the records' first bytes
    std::erase_if(found, [&](const end_hit& e) {
      const record_span& rec = ix.records[record_of(e.j)];
      return e.j + 1 < rec.start + window[e.pattern];
    });
    tbb::enumerable_thread_specific<std::vector<end_hit>> heads;
    tbb::parallel_for(std::size_t{0}, ix.records.size(), [&](std::size_t r) {
      const record_span& rec = ix.records[r];
      const std::uint64_t len = std::min(rec.length, widest - 1);
      if (len == 0) return;
      std::string head;
      ix.extract_into(rec.start, len, head);
      auto& out = heads.local();
      scan_ends(*m, head, ends, [&](const hit& h) {
        if (h.end < window[h.pattern]) out.push_back({rec.start + h.end - 1, h.pattern, h.errors, h.dir});
      });
    });
    for (auto& h : heads) found.insert(found.end(), h.begin(), h.end());
  });

  // the hits, from the ends of each (record, pattern, strand)
  std::vector<std::pair<std::uint32_t, end_hit>> by_record;
  by_record.reserve(found.size());
  for (const end_hit& e : found) by_record.emplace_back(record_of(e.j), e);
  found = {};
  tbb::parallel_sort(by_record.begin(), by_record.end(), [](const auto& a, const auto& b) {
    return std::tie(a.first, a.second.pattern, a.second.dir, a.second.j) <
           std::tie(b.first, b.second.pattern, b.second.dir, b.second.j);
  });
  std::vector<record_hit> out;
  using record_end = std::pair<std::uint32_t, end_hit>;
  const auto same_group = [](const record_end& a, const record_end& b) {
    return a.first == b.first && a.second.pattern == b.second.pattern && a.second.dir == b.second.dir;
  };
  hits::for_each_run(by_record.data(), by_record.size(), approximate && !search.all_ends, same_group,
                     [](const record_end& e) { return e.second.j; }, [](const record_end& e) { return e.second.errors; },
                     [&](std::size_t best, const hits::end_run&) {
    const auto& [r, eh] = by_record[best];
    const std::uint64_t rs = ix.records[r].start;
    record_hit rh;
    rh.record = r;
    rh.h.end = eh.j - rs + 1;
    rh.h.start = rh.h.end;
    rh.h.pattern = eh.pattern;
    rh.h.errors = eh.errors;
    rh.h.dir = eh.dir;
    out.push_back(rh);
  });
  if (search.starts) {
    const bool exact_starts = search.hamming || !approximate;
    // pieces of hits of one pattern and strand (out holds them in runs), each compiled once
    constexpr std::size_t piece = 256;
    std::vector<std::size_t> firsts;
    for (std::size_t i = 0; i < out.size(); ++i)
      if (i == 0 || out[i].h.pattern != out[i - 1].h.pattern || out[i].h.dir != out[i - 1].h.dir ||
          i - firsts.back() == piece)
        firsts.push_back(i);
    firsts.push_back(out.size());
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, firsts.size() - 1, [&](std::size_t q) {
        const hit& first = out[firsts[q]].h;
        const std::string& pat = patterns[first.pattern];
        const std::uint64_t m_p = pat.size();
        approx_detail::compiled_pattern p;
        if (!exact_starts)
          p = approx_detail::compile_pattern(first.dir == strand::forward ? pat : reverse_complement(pat), 0,
                                             strand::forward, search.rules());
        std::string text;
        for (std::size_t i = firsts[q]; i < firsts[q + 1]; ++i) {
          hit& h = out[i].h;
          if (exact_starts) {
            h.start = h.end - m_p;
            continue;
          }
          // the hit in its own window of the record: the scalar pass (no batch kernels)
          const std::uint64_t rs = ix.records[out[i].record].start;
          const std::uint64_t w0 = h.end > m_p + h.errors ? h.end - m_p - h.errors : 0;  // record coordinates
          text.clear();
          ix.extract_into(rs + w0, h.end - w0, text);
          hit here = h;
          here.end -= w0;
          hits::fill_starts(p, text, 0, std::span<hit>(&here, 1), approx_detail::start_kernels{});
          h.start = w0 + here.start;
        }
      });
    });
  }
  // the order of a search: record, then start (exact) or end (approximate), pattern, strand
  tbb::parallel_sort(out.begin(), out.end(), record_hit_order{hit_order::of(approximate)});
  return out;
}

}  // namespace trawl::index
