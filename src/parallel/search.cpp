// search.cpp — the slicing driver: the one place the library cuts text.
//
// A sequence of n bytes is cut into slices of owned key positions; slice i scans
// [begin_i - lookbehind, end_i + lookahead) so every hit is found by exactly the slice that
// owns its key position. Slices run on a oneTBB pipeline (parallel scan, serial in-order
// delivery), so the output is in text order and identical for every thread count and slice
// size. Approximate clusters cut by a slice edge arrive flagged (hit::open) and are merged
// here before delivery. O(n) bytes scanned plus (lookbehind + lookahead) per slice.
#include <tbb/parallel_pipeline.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <atomic>
#include <exception>
#include <map>
#include <mutex>

#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {

std::string reverse_complement(std::string_view dna) {
  std::string out(dna.size(), '\0');
  auto comp = [](char c) -> char {
    switch (c) {
      case 'A': return 'T'; case 'C': return 'G'; case 'G': return 'C'; case 'T': return 'A'; case 'U': return 'A';
      case 'a': return 't'; case 'c': return 'g'; case 'g': return 'c'; case 't': return 'a'; case 'u': return 'a';
      case 'R': return 'Y'; case 'Y': return 'R'; case 'K': return 'M'; case 'M': return 'K';
      case 'B': return 'V'; case 'V': return 'B'; case 'D': return 'H'; case 'H': return 'D';
      case 'r': return 'y'; case 'y': return 'r'; case 'k': return 'm'; case 'm': return 'k';
      case 'b': return 'v'; case 'v': return 'b'; case 'd': return 'h'; case 'h': return 'd';
      default: return c;  // N, S, W and anything else are their own complement
    }
  };
  for (std::size_t i = 0; i < dna.size(); ++i) out[dna.size() - 1 - i] = comp(dna[i]);
  return out;
}

namespace {

void check_patterns(const std::vector<std::string>& patterns, const search_options& options) {
  if (patterns.empty()) throw error(errc::invalid_argument, "no pattern given");
  for (const auto& p : patterns) {
    if (p.empty()) throw error(errc::invalid_argument, "empty pattern");
    if (p.find('\0') != std::string::npos) throw error(errc::invalid_argument, "pattern contains a NUL byte");
  }
  if (options.max_errors < 0) throw error(errc::invalid_argument, "the number of errors (-k) must be >= 0");
}

/// Orders hits as delivered: by key position, then pattern, strand, start, end.
struct hit_order {
  hit_key key;
  bool operator()(const hit& a, const hit& b) const {
    const std::uint64_t ka = key == hit_key::start ? a.start : a.end;
    const std::uint64_t kb = key == hit_key::start ? b.start : b.end;
    if (ka != kb) return ka < kb;
    if (a.pattern != b.pattern) return a.pattern < b.pattern;
    if (a.dir != b.dir) return a.dir < b.dir;
    if (a.start != b.start) return a.start < b.start;
    return a.end < b.end;
  }
};

/// What the serial stage needs to know of a slice's hits without reading them.
struct slice_summary {
  bool any_open = false;  ///< some hit is a cluster piece cut by a slice edge
  bool one_id = true;     ///< all hits are of one (pattern, strand)
};

/// one_id: the matcher's promise that all hits are of one (pattern, strand), so only the first
/// and the last can be open (matcher::one_pattern_strand); the slice is then summarized
/// without reading every hit (a dense output's hits are 32 bytes each, 5 % of a one-thread
/// m = 8, k = 3 DNA search on Zen 5 went to the loop below).
slice_summary summarize(const std::vector<hit>& hits, bool one_id) {
  slice_summary sum;
  if (hits.empty()) return sum;
  if (one_id) {
    sum.any_open = (hits.front().open | hits.back().open) != 0;
    return sum;
  }
  const std::uint32_t pattern = hits[0].pattern;
  const strand dir = hits[0].dir;
  std::uint8_t open = 0;
  bool same = true;
  for (const hit& h : hits) {  // one pass, no early exit: the loop vectorizes
    open |= h.open;
    same &= h.pattern == pattern && h.dir == dir;
  }
  sum.any_open = open != 0;
  sum.one_id = same;
  return sum;
}

/// A slice's hits as the parallel stage hands them to the serial one.
struct scanned_slice {
  std::vector<hit> hits;
  slice_summary sum;
};

/// Serial, in-order stage: merges cluster pieces and hands hits to the caller in order.
class ordered_delivery {
 public:
  ordered_delivery(hit_key key, std::uint64_t max_hits, const hit_callback& cb)
      : order_{key}, max_hits_(max_hits), cb_(cb) {}

  /// Takes one slice's hits, with their summary (summarize(hits, ...), made by the thread that
  /// scanned the slice: this serial stage then reads no hit but the first and the last in the
  /// common cases, where reading them all from another core's cache bounded dense outputs
  /// on many threads); returns false once the search should stop.
  bool take(std::vector<hit>& hits, const slice_summary& sum) {
    if (pending_.empty() && buffer_.empty() && !sum.any_open)
      return deliver(hits);  // the common case: nothing to merge, already in order
    if (buffer_.empty() && one_strand(hits, sum.one_id)) return take_one(hits);
    return merge(hits);
  }
  bool finish() {
    for (auto& [id, h] : pending_) buffer_.push_back(h);
    pending_.clear();
    return flush(true);
  }

  [[nodiscard]] std::uint64_t delivered() const { return delivered_; }

  /// True when every hit (one_id: they are all of one pattern and strand), and the pending
  /// piece if any, is of one (pattern, strand).
  bool one_strand(const std::vector<hit>& hits, bool one_id) const {
    if (hits.empty() || !one_id || pending_.size() > 1) return false;
    const auto id = std::make_pair(hits[0].pattern, hits[0].dir);
    return pending_.empty() || pending_.begin()->first == id;
  }
  /// take() for one (pattern, strand), in place: only the first hit can continue the pending
  /// piece, only the last can stay open, and the rest are in order already.
  bool take_one(std::vector<hit>& hits) {
    const auto id = std::make_pair(hits[0].pattern, hits[0].dir);
    if (!pending_.empty()) {
      const hit before = pending_.begin()->second;
      pending_.clear();
      if (hits[0].open & 1u) {
        // Continue the cluster of the previous slice: keep the smaller score, leftmost on ties.
        if (before.errors <= hits[0].errors) {
          const std::uint8_t flags = hits[0].open;
          hits[0] = before;
          hits[0].open = flags;
        }
      } else {
        std::vector<hit> one{before};  // complete; it ends before every hit of this slice
        if (!deliver(one)) return false;
      }
    }
    hits[0].open &= static_cast<std::uint8_t>(~1u);
    std::size_t n = hits.size();
    if (hits.back().open & 2u) {
      hit last = hits.back();
      last.open = 0;
      pending_[id] = last;
      --n;
    }
    hits.resize(n);
    return deliver(hits);
  }
  [[nodiscard]] bool stopped() const { return stopped_; }

 private:
  /// The general case: cluster pieces of several patterns, or a buffer not yet delivered.
  bool merge(std::vector<hit>& hits) {
    std::map<std::pair<std::uint32_t, strand>, hit> still_open;
    for (hit& h : hits) {
      const auto id = std::make_pair(h.pattern, h.dir);
      hit merged = h;
      if (h.open & 1u) {
        if (auto it = pending_.find(id); it != pending_.end()) {
          // Continue the cluster of the previous slice: keep the smaller score, leftmost on ties.
          merged = it->second.errors <= h.errors ? it->second : h;
          pending_.erase(it);
        }
      }
      merged.open = 0;
      if (h.open & 2u) still_open[id] = merged;
      else buffer_.push_back(merged);
    }
    // Pieces left pending from the previous slice that were not continued are complete.
    for (auto& [id, h] : pending_) buffer_.push_back(h);
    pending_ = std::move(still_open);
    return flush(false);
  }

  bool flush(bool all) {
    // The buffer is a sorted run (the slice's hits, in order) plus a few cluster pieces
    // appended after it: sort the unsorted tail and merge, O(n) for dense outputs.
    const auto tail = std::is_sorted_until(buffer_.begin(), buffer_.end(), order_);
    if (tail != buffer_.end()) {
      std::sort(tail, buffer_.end(), order_);
      std::inplace_merge(buffer_.begin(), tail, buffer_.end(), order_);
    }
    std::size_t ready = buffer_.size();
    if (!all && !pending_.empty()) {
      // A pending cluster's final end is at least its current best end.
      std::uint64_t watermark = ~std::uint64_t{0};
      for (auto& [id, h] : pending_) watermark = std::min(watermark, h.end);
      ready = static_cast<std::size_t>(
          std::partition_point(buffer_.begin(), buffer_.end(), [&](const hit& h) { return h.end < watermark; }) -
          buffer_.begin());
    }
    std::vector<hit> out(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(ready));
    buffer_.erase(buffer_.begin(), buffer_.begin() + static_cast<std::ptrdiff_t>(ready));
    return deliver(out);
  }

  bool deliver(std::vector<hit>& hits) {
    if (stopped_) return false;
    if (hits.empty()) return true;
    std::size_t count = hits.size();
    if (max_hits_ != 0 && delivered_ + count >= max_hits_) {
      count = static_cast<std::size_t>(max_hits_ - delivered_);
      stopped_ = true;
    }
    delivered_ += count;
    if (!cb_(std::span<const hit>(hits.data(), count))) stopped_ = true;
    return !stopped_;
  }

  hit_order order_;
  std::uint64_t max_hits_;
  const hit_callback& cb_;
  std::uint64_t delivered_ = 0;
  bool stopped_ = false;
  std::map<std::pair<std::uint32_t, strand>, hit> pending_;
  std::vector<hit> buffer_;
};

std::size_t choose_slice_size(std::size_t n, unsigned threads, const matcher& m, std::size_t requested) {
  if (requested != 0) return requested;
  // Enough slices to balance the threads, large enough that the context re-read is noise,
  // small enough that the hits of the slices in flight stay bounded when every position
  // matches (k >= m, or a one-letter DNA pattern): at most ~32 B per byte of a slice.
  // Approximate search is compute-bound, so its slices can be smaller still.
  const std::size_t context = m.lookbehind() + m.lookahead();
  const bool approx = m.key() == hit_key::last;
  const std::size_t cap = approx ? (std::size_t{256} << 10) : (std::size_t{4} << 20);
  std::size_t s = n / (static_cast<std::size_t>(threads) * 16 + 1);
  s = std::clamp<std::size_t>(s, std::size_t{1} << 16, cap);
  // Approximate slices of 4 KiB times an odd number: the striped kernels' 64 stripes, whose
  // stride is an odd multiple of 64 bytes, then cover a slice in one round (256 KiB took a
  // second round of 64 stripes of 64 bytes, each with its own warm-up; one thread over DNA,
  // Zen 5, 4 interleaved rounds: m = 8, k = 3: 71-73 against 73-75 ms).
  if (approx) s = (s / 4096 - 1) / 2 * 2 * 4096 + 4096;
  return std::max(s, 16 * context);
}

}  // namespace

std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options) {
  check_patterns(patterns, options);
  if (options.max_errors > 0 || options.all_ends) return make_approx_matcher(patterns, options);
  if (options.iupac) return make_iupac_exact_matcher(patterns, options);
  return make_exact_matcher(patterns, options);
}

std::uint64_t search_sequence(const matcher& m, std::string_view seq, const search_options& options,
                              const hit_callback& on_hits) {
  const std::size_t n = seq.size();
  ordered_delivery out(m.key(), options.max_hits, on_hits);
  if (n == 0) return 0;
  // More workers than the machine has cores cannot help; oneTBB would refuse them anyway.
  const auto cores = static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
  const unsigned threads = options.threads != 0 ? std::min(options.threads, cores) : cores;
  const std::size_t slice = std::max<std::size_t>(1, choose_slice_size(n, threads, m, options.slice_size));
  const std::size_t slices = (n + slice - 1) / slice;
  const bool one_id = m.one_pattern_strand();

  if (threads == 1 || slices == 1) {
    std::vector<hit> hits;
    for (std::size_t i = 0; i < slices; ++i) {
      hits.clear();
      m.scan(seq, i * slice, std::min(n, (i + 1) * slice), hits);
      if (!out.take(hits, summarize(hits, one_id))) return out.delivered();
    }
    out.finish();
    return out.delivered();
  }

  std::atomic<bool> stop{false};
  std::exception_ptr error_ptr;
  std::mutex error_mutex;
  auto fail = [&](std::exception_ptr e) {
    const std::lock_guard<std::mutex> lock(error_mutex);
    if (!error_ptr) error_ptr = std::move(e);
    stop.store(true);
  };
  std::size_t next = 0;
  // The slices' hit vectors are recycled: a dense output would otherwise fault in fresh pages
  // for every slice. At most the slices in flight hold one each.
  std::mutex pool_mutex;
  std::vector<std::vector<hit>> pool;
  auto take_vector = [&] {
    const std::lock_guard<std::mutex> lock(pool_mutex);
    if (pool.empty()) return std::vector<hit>{};
    std::vector<hit> v = std::move(pool.back());
    pool.pop_back();
    return v;
  };
  auto give_vector = [&](std::vector<hit>&& v) {
    v.clear();
    const std::lock_guard<std::mutex> lock(pool_mutex);
    pool.push_back(std::move(v));
  };
  tbb::task_arena arena(static_cast<int>(threads));
  arena.execute([&] {
    tbb::parallel_pipeline(
        static_cast<std::size_t>(threads) * 2,  // slices in flight: bounds the memory of their hits
        tbb::make_filter<void, std::size_t>(tbb::filter_mode::serial_in_order,
                                            [&](tbb::flow_control& fc) -> std::size_t {
                                              if (next >= slices || stop.load(std::memory_order_relaxed)) {
                                                fc.stop();
                                                return 0;
                                              }
                                              return next++;
                                            }) &
            tbb::make_filter<std::size_t, scanned_slice>(
                tbb::filter_mode::parallel,
                [&](std::size_t i) {
                  scanned_slice r{take_vector(), {}};
                  if (!stop.load(std::memory_order_relaxed)) {
                    try {
                      m.scan(seq, i * slice, std::min(n, (i + 1) * slice), r.hits);
                      r.sum = summarize(r.hits, one_id);
                    } catch (...) {
                      fail(std::current_exception());
                    }
                  }
                  return r;
                }) &
            tbb::make_filter<scanned_slice, void>(tbb::filter_mode::serial_in_order, [&](scanned_slice r) {
              if (!stop.load(std::memory_order_relaxed)) {
                try {
                  if (!out.take(r.hits, r.sum)) stop.store(true);
                } catch (...) {
                  fail(std::current_exception());
                }
              }
              give_vector(std::move(r.hits));
            }));
  });
  // Errors (an engine's or the caller's callback's) are carried out of the pipeline, which
  // then drains normally, and rethrown here.
  if (error_ptr) std::rethrow_exception(error_ptr);
  if (!stop.load()) out.finish();
  return out.delivered();
}

std::vector<hit> search(std::string_view text, const std::vector<std::string>& patterns, const search_options& options) {
  auto m = make_matcher(patterns, options);
  std::vector<hit> all;
  search_sequence(*m, text, options, [&](std::span<const hit> hs) {
    all.insert(all.end(), hs.begin(), hs.end());
    return true;
  });
  return all;
}

}  // namespace trawl
