// hits/delivery.hpp — the last stage of the hit pipeline: hits of the slices a search cut, in
// slice order, joined where a slice edge cut a cluster (hits/clusters.hpp) and handed to the
// caller in the hit order (hit.hpp), up to a limit. Serial: the slicing driver calls it from
// its in-order stage.
#pragma once

#include <algorithm>
#include <cstdint>
#include <map>
#include <span>
#include <utility>
#include <vector>

#include "hits/clusters.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/hit.hpp"

namespace trawl::hits {

/// What the serial stage needs to know of a slice's hits without reading them.
struct slice_summary {
  bool any_open = false;  ///< some hit is a cluster piece cut by a slice edge
  bool one_id = true;     ///< all hits are of one (pattern, strand)
};

/// one_id: the engine's promise that all hits are of one (pattern, strand)
/// (engine::one_pattern_strand); the slice is then summarized without reading its hits, which
/// in a dense output cost as much to read again as to write.
slice_summary summarize(std::span<const hit> hits, std::span<const detail::open_mark> open, bool one_id);

/// Serial, in-order stage: merges cluster pieces and hands hits to the caller in order.
class ordered_delivery {
 public:
  ordered_delivery(hit_key key, std::uint64_t max_hits, const hit_callback& cb)
      : order_{key}, max_hits_(max_hits), cb_(cb) {}

  /// Takes one slice's hits and the marks of its cut clusters (indices into hits), with their
  /// summary (summarize(hits, ...), made by the thread that scanned the slice: this serial
  /// stage then reads no hit but the first and the last in the common cases, where reading
  /// them all from another core's cache bounded dense outputs on many threads); returns false
  /// once the search should stop.
  bool take(std::vector<hit>& hits, std::span<const detail::open_mark> open, const slice_summary& sum) {
    if (pending_.empty() && buffer_.empty() && !sum.any_open)
      return deliver(hits);  // the common case: nothing to merge, already in order
    if (buffer_.empty() && one_strand(hits, sum.one_id)) return take_one(hits, open);
    return merge(hits, open);
  }
  bool finish() {
    for (auto& [id, h] : pending_) buffer_.push_back(h);
    pending_.clear();
    return flush(true);
  }

  [[nodiscard]] std::uint64_t delivered() const { return delivered_; }
  /// The lowest start of a hit taken but not yet delivered (~0 when none).
  [[nodiscard]] std::uint64_t lowest_start() const {
    std::uint64_t low = ~std::uint64_t{0};
    for (const auto& [id, h] : pending_) low = std::min(low, h.start);
    for (const hit& h : buffer_) low = std::min(low, h.start);
    return low;
  }

  /// True when every hit (one_id: they are all of one pattern and strand), and the pending
  /// piece if any, is of one (pattern, strand).
  bool one_strand(const std::vector<hit>& hits, bool one_id) const {
    if (hits.empty() || !one_id || pending_.size() > 1) return false;
    const auto id = std::make_pair(hits[0].pattern, hits[0].dir);
    return pending_.empty() || pending_.begin()->first == id;
  }
  /// take() for one (pattern, strand), in place: only the first hit can continue the pending
  /// piece, only the last can stay open, and the rest are in order already.
  bool take_one(std::vector<hit>& hits, std::span<const detail::open_mark> open) {
    const auto id = std::make_pair(hits[0].pattern, hits[0].dir);
    const std::size_t n = hits.size();
    const std::uint8_t first_sides = !open.empty() && open.front().index == 0 ? open.front().sides : 0;
    const std::uint8_t last_sides = !open.empty() && open.back().index == n - 1 ? open.back().sides : 0;
    if (!pending_.empty()) {
      const hit before = pending_.begin()->second;
      pending_.clear();
      if (first_sides & 1u) {
        hits[0] = join(before, hits[0]);  // the cluster of the previous slice goes on
      } else {
        std::vector<hit> one{before};  // complete; it ends before every hit of this slice
        if (!deliver(one)) return false;
      }
    }
    if (last_sides & 2u) {
      pending_[id] = hits.back();
      hits.pop_back();
    }
    return deliver(hits);
  }
  [[nodiscard]] bool stopped() const { return stopped_; }

 private:
  /// The general case: cluster pieces of several patterns, or a buffer not yet delivered.
  bool merge(std::vector<hit>& hits, std::span<const detail::open_mark> open) {
    std::map<std::pair<std::uint32_t, strand>, hit> still_open;
    std::size_t m = 0;
    for (std::size_t i = 0; i < hits.size(); ++i) {
      const hit& h = hits[i];
      const std::uint8_t sides = m < open.size() && open[m].index == i ? open[m++].sides : 0;
      const auto id = std::make_pair(h.pattern, h.dir);
      hit merged = h;
      if (sides & 1u) {
        if (auto it = pending_.find(id); it != pending_.end()) {
          merged = join(it->second, h);  // the cluster of the previous slice goes on
          pending_.erase(it);
        }
      }
      if (sides & 2u) still_open[id] = merged;
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

}  // namespace trawl::hits
