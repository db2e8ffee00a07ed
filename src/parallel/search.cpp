// search.cpp — the slicing driver: the one place the library cuts text.
//
// A sequence of n bytes is cut into slices of owned key positions; slice i scans
// [begin_i - lookbehind, end_i + lookahead) so every hit is found by exactly the slice that
// owns its key position. Slices run on a oneTBB pipeline (parallel scan, serial in-order
// delivery), so the output is in text order and identical for every thread count and slice
// size. Approximate clusters cut by a slice edge arrive flagged (hit::open) and are merged
// here before delivery. O(n) bytes scanned plus (lookbehind + lookahead) per slice.
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_pipeline.h>
#include <tbb/info.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <map>
#include <mutex>
#include <optional>
#include <thread>

#include "trawl/approx.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "exact/engines.hpp"
#include "io/fasta_pieces.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

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
  if (options.max_errors < 0) throw error(errc::invalid_argument, "search_options::max_errors must be >= 0");
}

/// What the serial stage needs to know of a slice's hits without reading them.
struct slice_summary {
  bool any_open = false;  ///< some hit is a cluster piece cut by a slice edge
  bool one_id = true;     ///< all hits are of one (pattern, strand)
};

/// one_id: the engine's promise that all hits are of one (pattern, strand)
/// (engine::one_pattern_strand); the slice is then summarized without reading its hits, which
/// in a dense output cost as much to read again as to write.
slice_summary summarize(std::span<const hit> hits, std::span<const detail::open_mark> open, bool one_id) {
  slice_summary sum;
  if (hits.empty()) return sum;
  sum.any_open = !open.empty();
  if (one_id) return sum;
  const std::uint32_t pattern = hits[0].pattern;
  const strand dir = hits[0].dir;
  bool same = true;
  for (const hit& h : hits) same &= h.pattern == pattern && h.dir == dir;  // no early exit: the loop vectorizes
  sum.one_id = same;
  return sum;
}

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
        // Continue the cluster of the previous slice: keep the smaller score, leftmost on ties.
        if (before.errors <= hits[0].errors) hits[0] = before;
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
          // Continue the cluster of the previous slice: keep the smaller score, leftmost on ties.
          merged = it->second.errors <= h.errors ? it->second : h;
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

std::size_t choose_slice_size(std::size_t n, std::size_t total, unsigned threads, const detail::engine& m,
                              std::size_t requested) {
  if (requested != 0) return requested;
  // Enough slices to balance the threads, large enough that the context re-read is noise,
  // small enough that the hits of the slices in flight stay bounded when every position
  // matches (k >= m, or a one-letter DNA pattern): at most ~32 B per byte of a slice.
  // Approximate search is compute-bound, so its slices can be smaller still.
  const std::size_t context = m.lookbehind() + m.lookahead();
  const bool approx = m.key() == hit_key::last;
  // A set of approximate patterns scans each byte once per pattern-strand and sets every one
  // up per slice: its slices grow with the set, up to 1 MiB, while the whole input, where it
  // is known, still gives every thread four of them.
  const std::size_t scans = approx ? std::max<std::size_t>(1, m.scans_per_byte()) : 1;
  const std::size_t cap = approx ? std::min(std::size_t{1} << 20, (std::size_t{256} << 10) * scans)
                                 : (std::size_t{4} << 20);
  std::size_t s = n * scans / (static_cast<std::size_t>(threads) * 16 + 1);
  if (scans > 1 && total != 0) s = std::min(s, total / (static_cast<std::size_t>(threads) * 4));
  s = std::clamp<std::size_t>(s, std::size_t{1} << 16, cap);
  // Approximate slices of 4 KiB times an odd number: the striped kernels' 64 stripes, whose
  // stride is an odd multiple of 64 bytes, then cover a slice in one round (256 KiB took a
  // second round of 64 stripes of 64 bytes, each with its own warm-up; one thread over DNA,
  // Zen 5, 4 interleaved rounds: m = 8, k = 3: 71-73 against 73-75 ms).
  if (approx) s = (s / 4096 - 1) / 2 * 2 * 4096 + 4096;
  return std::max(s, 16 * context);
}

// ---- the scheduler: chunks of an input, slices of chunks, in-order delivery --------------

/// Recycles chunk and block buffers, so their pages are faulted in once per search. Buffers
/// come back with their size: a reader grows one to a block without zero-filling it again.
class buffer_pool {
 public:
  std::string take() {
    const std::lock_guard<std::mutex> lock(m_);
    if (free_.empty()) return {};
    std::string s = std::move(free_.back());
    free_.pop_back();
    return s;
  }
  void give(std::string&& s) {
    if (s.capacity() == 0) return;
    const std::lock_guard<std::mutex> lock(m_);
    if (free_.size() < 32) free_.push_back(std::move(s));
  }

 private:
  std::mutex m_;
  std::vector<std::string> free_;
};

/// A part of one record as a chunk holds it: the window [base, base + len) of the record and
/// the key positions it owns.
struct piece {
  std::uint64_t record = 0;  ///< record number within the input
  std::uint64_t base = 0;    ///< record position of the window's first byte
  std::size_t off = 0, len = 0;                ///< the window: chunk bytes [off, off + len)
  std::size_t own_begin = 0, own_end = 0;      ///< owned key positions, window coordinates
  std::uint32_t name = 0;    ///< first: the record's name, chunk::names[name]
  bool first = false, last = false;            ///< the record's first / last piece
};

/// Bytes of the input with the pieces cut from them: copied (streams) or a view of a mapping.
struct chunk {
  std::string owned;
  std::string_view bytes;
  std::vector<piece> pieces;
  std::vector<std::string> names;
  bool idle = false;  ///< the input paused after this chunk
  /// Bytes [at, at + len) are the sequence bytes seq, seq + 1, ... of FASTA lines of `width`
  /// bytes that begin at byte `file` of the mapped input (see detail::window_origin).
  struct origin_run {
    std::size_t at = 0, len = 0;
    std::uint64_t file = 0, seq = 0;
    std::uint32_t width = 0;
    /// Where sequence byte s of the run lies in the file.
    [[nodiscard]] std::uint64_t file_of(std::uint64_t s) const { return file + s + s / width; }
  };
  std::vector<origin_run> runs;  ///< in chunk order; only for an engine that uses origins
  buffer_pool* pool = nullptr;
  chunk() = default;
  chunk(const chunk&) = delete;
  chunk& operator=(const chunk&) = delete;
  ~chunk() {
    if (pool != nullptr) pool->give(std::move(owned));
  }
  [[nodiscard]] std::string_view window(const piece& p) const { return bytes.substr(p.off, p.len); }
  /// Where the bytes of p's window lie in the input file: those from the start of the run that
  /// holds its last byte (width 0: none does).
  [[nodiscard]] detail::window_origin origin(const piece& p) const {
    detail::window_origin o;
    if (p.len == 0) return o;
    const std::size_t last = p.off + p.len - 1;
    for (const origin_run& r : runs) {
      if (last < r.at || last >= r.at + r.len) continue;
      const std::size_t first = std::max(r.at, p.off);
      o.from = first - p.off;
      o.seq_offset = r.seq + (first - r.at);
      o.file_offset = r.file;
      o.width = r.width;
      break;
    }
    return o;
  }
};

/// One token of the pipeline: whole pieces [first, end) of a chunk, or one slice of a piece.
struct job {
  std::shared_ptr<const chunk> c;
  std::uint32_t first = 0, end = 0;
  bool split = false;                 ///< one slice [own_begin, own_end) of pieces[first]
  std::size_t own_begin = 0, own_end = 0;
  bool piece_first = true, piece_last = true;  ///< the slice is its piece's first / last
  bool idle = false;                  ///< the input paused after this job
  std::vector<hit> hits;              ///< every piece's hits, in record coordinates
  std::vector<std::uint32_t> ends;    ///< hits of the i-th piece end at ends[i]
  std::vector<detail::open_mark> open;     ///< the pieces' cut clusters (indices into hits)
  std::vector<std::uint32_t> open_ends;    ///< marks of the i-th piece end at open_ends[i]
  std::vector<slice_summary> sums;
};

/// Reads a stream on a thread of its own, into blocks of up to 1 MiB handed over in order. A
/// block is handed over early when the stream pauses for idle_ms.
class block_reader {
 public:
  struct block {
    std::string bytes;  ///< the block's bytes are bytes[headroom, size)
    bool idle = false, end = false;
    std::exception_ptr error;
  };

  /// Each block keeps `headroom` bytes free before its bytes, for the context of a chunk.
  block_reader(io::byte_stream& in, int idle_ms, std::size_t headroom, buffer_pool& pool)
      : in_(in), idle_ms_(idle_ms), headroom_(headroom), pool_(pool), thread_([this] { run(); }) {}
  ~block_reader() {
    stop();
    thread_.join();
  }
  block_reader(const block_reader&) = delete;
  block_reader& operator=(const block_reader&) = delete;

  /// The next block; an empty end block once stopped.
  block next() {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return !queue_.empty() || stop_; });
    if (queue_.empty()) return block{{}, false, true, nullptr};
    block b = std::move(queue_.front());
    queue_.pop_front();
    cv_.notify_all();
    return b;
  }
  void stop() {
    const std::lock_guard<std::mutex> lock(m_);
    stop_ = true;
    cv_.notify_all();
  }

 private:
  static constexpr std::size_t kBlock = std::size_t{1} << 20;
  static constexpr std::size_t kQueue = 4;

  bool push(block&& b) {
    std::unique_lock<std::mutex> lock(m_);
    cv_.wait(lock, [&] { return stop_ || queue_.size() < kQueue; });
    if (stop_) return false;
    queue_.push_back(std::move(b));
    cv_.notify_all();
    return true;
  }
  bool stopping() {
    const std::lock_guard<std::mutex> lock(m_);
    return stop_;
  }
  void run() {
    bool paused = false;  // an idle block was handed over and no byte came since
    for (;;) {
      block b;
      b.bytes = pool_.take();
      if (b.bytes.size() < headroom_ + kBlock) b.bytes.resize(headroom_ + kBlock);
      char* const data = b.bytes.data() + headroom_;
      std::size_t len = 0;
      try {
        while (len < kBlock) {
          const std::ptrdiff_t r = in_.read(data + len, kBlock - len, idle_ms_);
          if (r < 0) {  // a pause
            if (len > 0 || !paused) {
              b.idle = true;
              break;
            }
            if (stopping()) return;
            continue;
          }
          if (r == 0) {
            b.end = true;
            break;
          }
          len += static_cast<std::size_t>(r);
          if (stopping()) return;
        }
      } catch (...) {  // the bytes before the error are searched, then the error reported
        b.error = std::current_exception();
      }
      paused = b.idle;
      b.bytes.resize(headroom_ + len);
      const bool last = b.end || b.error;
      if (!push(std::move(b)) || last) return;
    }
  }

  io::byte_stream& in_;
  int idle_ms_;
  std::size_t headroom_;
  buffer_pool& pool_;
  std::mutex m_;
  std::condition_variable cv_;
  std::deque<block> queue_;
  bool stop_ = false;
  std::thread thread_;
};

/// The capacity of every pool buffer (chunks and FASTA pieces): a chunk's size and context, and
/// room past them, since a FASTA piece ends with the line that reaches its size; the same for
/// both, so that a reused buffer never grows.
constexpr std::size_t buffer_capacity(std::size_t chunk_size, std::size_t context) {
  return chunk_size + context + (std::size_t{64} << 10);
}

/// The one place that cuts text: turns records into chunks (each piece of a record carries
/// the matcher's context: lookbehind bytes before its owned positions, lookahead after) and
/// chunks into jobs of about `slice` owned bytes.
class chunker final : public io::record_handler {
 public:
  chunker(const detail::engine& m, std::size_t chunk_size, std::size_t slice, buffer_pool& pool, std::deque<std::shared_ptr<job>>& out)
      : lookbehind_(m.lookbehind()), lookahead_(m.lookahead()), chunk_size_(chunk_size), slice_(slice), pool_(pool), out_(out) {
    new_chunk();
  }

  void begin_record(std::string_view name) override {
    in_record_ = true;
    name_.assign(name);
    rec_pos_ = owned_ = base_ = 0;
    win_off_ = cur_->owned.size();
    first_ = true;
  }
  void sequence(std::string_view bytes) override { sequence(bytes, 0, 0); }
  /// As sequence(bytes); when width != 0 the bytes are FASTA lines of that width from byte
  /// `file_at` of the mapped input (a line start), noted as the chunks' origin runs.
  void sequence(std::string_view bytes, std::uint64_t file_at, std::uint32_t width) {
    std::uint64_t seq = 0;
    while (!bytes.empty()) {
      const std::size_t take = std::min(bytes.size(), chunk_size_ - fresh_);
      if (width != 0) add_run(cur_->owned.size(), take, file_at, seq, width);
      seq += take;
      cur_->owned.append(bytes.substr(0, take));
      fresh_ += take;
      rec_pos_ += take;
      bytes.remove_prefix(take);
      if (fresh_ >= chunk_size_) seal(false);
    }
  }
  /// The next bytes of a plain input, bytes[off, size) of a block: when the chunk holds only
  /// the carried context, the block becomes the chunk (the context is copied before its bytes,
  /// into its headroom) and is handed over at once; otherwise its bytes are copied.
  /// `file_at` and `width`, when width != 0: the block's bytes from `off` are FASTA lines of
  /// that width from byte file_at of the mapped input (see chunk::origin).
  void adopt(std::string&& block, std::size_t off, std::uint64_t file_at = 0, std::uint32_t width = 0) {
    const std::size_t carry = cur_->owned.size() - win_off_;
    if (!in_record_ || !cur_->pieces.empty() || fresh_ != 0 || win_off_ != 0 || carry > off) {
      sequence(std::string_view(block).substr(off), file_at, width);
      pool_.give(std::move(block));
      return;
    }
    std::memcpy(block.data() + (off - carry), cur_->owned.data(), carry);
    pool_.give(std::move(cur_->owned));
    cur_->owned = std::move(block);
    if (width != 0) add_run(off, cur_->owned.size() - off, file_at, 0, width);
    win_off_ = off - carry;
    const std::size_t len = cur_->owned.size() - off;
    fresh_ += len;
    rec_pos_ += len;
    seal(false);
  }
  /// True when the chunk holds bytes or pieces beyond the carried context (adopt would copy).
  [[nodiscard]] bool holds_new_bytes() const { return fresh_ != 0 || !cur_->pieces.empty(); }
  void end_record() override {
    emit(rec_pos_, true);
    in_record_ = false;
    ++record_;
    if (fresh_ >= chunk_size_ || cur_->pieces.size() >= kMaxPieces) seal(false);
  }

  /// Hands the chunk over as jobs (a record in progress is owned up to its bytes minus the
  /// lookahead) and starts the next, which carries the context of that record.
  void seal(bool idle) {
    if (in_record_) emit(rec_pos_ >= lookahead_ ? rec_pos_ - lookahead_ : 0, false);
    if (cur_->pieces.empty() && !idle) {  // nothing owned yet (chunks shorter than the context)
      fresh_ = 0;
      return;
    }
    std::shared_ptr<chunk> done = std::move(cur_);
    done->bytes = done->owned;
    done->idle = idle;
    new_chunk();
    if (in_record_) {  // carry the record's context into the new chunk
      const std::uint64_t keep = owned_ >= lookbehind_ ? owned_ - lookbehind_ : 0;
      cur_->owned.append(done->bytes.substr(win_off_ + (keep - base_), rec_pos_ - keep));
      base_ = keep;
      win_off_ = 0;
    }
    split(std::move(done), slice_, out_);
  }

  /// Cuts a chunk's pieces into jobs: small pieces together, large ones in slices.
  static void split(std::shared_ptr<const chunk> c, std::size_t slice, std::deque<std::shared_ptr<job>>& out) {
    const std::size_t before = out.size();
    const auto n = static_cast<std::uint32_t>(c->pieces.size());
    std::uint32_t group = 0;
    std::size_t group_bytes = 0;
    auto close_group = [&](std::uint32_t end) {
      if (group == end) return;
      auto j = std::make_shared<job>();
      j->c = c;
      j->first = group;
      j->end = end;
      out.push_back(std::move(j));
      group = end;
      group_bytes = 0;
    };
    for (std::uint32_t i = 0; i < n; ++i) {
      const piece& p = c->pieces[i];
      const std::size_t own = p.own_end - p.own_begin;
      if (own <= slice) {
        group_bytes += own + 64;  // a piece costs something even when it is short
        if (group_bytes >= slice) close_group(i + 1);
        continue;
      }
      close_group(i);
      for (std::size_t b = p.own_begin; b < p.own_end; b += slice) {
        auto j = std::make_shared<job>();
        j->c = c;
        j->first = i;
        j->end = i + 1;
        j->split = true;
        j->own_begin = b;
        j->own_end = std::min(p.own_end, b + slice);
        j->piece_first = b == p.own_begin;
        j->piece_last = j->own_end == p.own_end;
        out.push_back(std::move(j));
      }
      group = i + 1;
    }
    close_group(n);
    if (c->idle) {
      if (out.size() == before) {  // nothing to search: the pause alone
        auto j = std::make_shared<job>();
        j->c = c;
        out.push_back(std::move(j));
      }
      out.back()->idle = true;
    }
  }

 private:
  static constexpr std::size_t kMaxPieces = std::size_t{1} << 16;

  /// Notes chunk bytes [at, at + len) as sequence bytes seq.. of the FASTA lines from byte
  /// `file`; a run that goes on where the chunk's last one ends, in the chunk and in the file,
  /// extends it.
  void add_run(std::size_t at, std::size_t len, std::uint64_t file, std::uint64_t seq, std::uint32_t width) {
    const chunk::origin_run r{at, len, file, seq, width};
    if (!cur_->runs.empty()) {
      chunk::origin_run& b = cur_->runs.back();
      if (b.at + b.len == at && b.width == width && b.file_of(b.seq + b.len) == r.file_of(seq)) {
        b.len += len;
        return;
      }
    }
    cur_->runs.push_back(r);
  }

  void new_chunk() {
    cur_ = std::make_shared<chunk>();
    cur_->pool = &pool_;
    cur_->owned = pool_.take();
    cur_->owned.clear();
    cur_->owned.reserve(buffer_capacity(chunk_size_, lookbehind_ + lookahead_));
    fresh_ = 0;
  }
  /// A piece of the record in progress owning [owned_, own_to).
  void emit(std::uint64_t own_to, bool last) {
    if (own_to <= owned_ && !last) return;
    piece p;
    p.record = record_;
    p.base = base_;
    p.off = win_off_;
    p.len = static_cast<std::size_t>(rec_pos_ - base_);
    p.own_begin = static_cast<std::size_t>(owned_ - base_);
    p.own_end = static_cast<std::size_t>(std::max(own_to, owned_) - base_);
    p.first = first_;
    p.last = last;
    if (first_) {
      p.name = static_cast<std::uint32_t>(cur_->names.size());
      cur_->names.push_back(name_);
    }
    cur_->pieces.push_back(p);
    first_ = false;
    owned_ = std::max(own_to, owned_);
  }

  std::size_t lookbehind_, lookahead_, chunk_size_, slice_;
  buffer_pool& pool_;
  std::deque<std::shared_ptr<job>>& out_;
  std::shared_ptr<chunk> cur_;
  std::size_t fresh_ = 0;  ///< new bytes in cur_ (not counting the carried context)
  // The record in progress.
  bool in_record_ = false, first_ = true;
  std::string name_;
  std::uint64_t record_ = 0, rec_pos_ = 0, owned_ = 0, base_ = 0;
  std::size_t win_off_ = 0;
};

/// One search of one input: the input stage (reading, parsing, chunking), the parallel scan
/// of jobs and the in-order delivery to the sink.
class stream_search {
 public:
  stream_search(const matcher& m, const search_options& o, search_sink& sink, unsigned scans_in_flight = 0)
      : m_(m.engine()), o_(o), sink_(sink) {
    const auto cores = static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
    threads_ = std::max(o.threads != 0 ? std::min(o.threads, cores) : cores, scans_in_flight);
    one_id_ = m_.one_pattern_strand();
    wants_text_ = sink.wants_text();
    deliver_cb_ = [this](std::span<const hit> hs) {
      delivered_ += hs.size();
      return sink_.hits(hs);
    };
  }

  /// One record held in memory, named `name`: no copy.
  stream_result run_memory(std::string_view seq, std::string name) {
    auto c = std::make_shared<chunk>();
    c->bytes = seq;
    c->names.push_back(std::move(name));
    piece p;
    p.len = seq.size();
    p.own_end = seq.size();
    p.first = p.last = true;
    c->pieces.push_back(p);
    chunker::split(std::move(c), choose_slice_size(seq.size(), seq.size(), threads_, m_, o_.slice_size), jobs_);
    input_done_ = true;
    format_ = io::format::plain;
    run();
    return result();
  }

  /// An input read through the parser: a mapped FASTA/FASTQ file, or any stream.
  stream_result run_input(io::source& input, const stream_options& so) {
    format_ = so.format;
    if (input.is_mapped()) {
      const std::string_view bytes = input.mapped();
      if (so.format == io::format::plain ||
          (so.format == io::format::automatic && io::detect_format(bytes) == io::format::plain))
        return run_memory(bytes, input.name());
    }
    const std::size_t chunk_size = so.chunk_size != 0 ? so.chunk_size : kDefaultChunk;
    const std::size_t total = input.is_mapped() ? input.mapped().size() : 0;
    chunker_ = std::make_unique<chunker>(m_, chunk_size, choose_slice_size(chunk_size, total, threads_, m_, o_.slice_size),
                                         pool_, jobs_);
    // A mapped FASTA file is parsed in pieces on every worker (fasta_pieces.hpp).
    fasta_pieces_ = input.is_mapped() && threads_ > 1 && so.format != io::format::fastq &&
                    so.format != io::format::plain && io::detect_format(input.mapped()) == io::format::fasta;
    piece_size_ = chunk_size;
    parser_ = std::make_unique<io::record_parser>(fasta_pieces_ ? io::format::fasta : so.format, input.name(), *chunker_);
    if (input.is_mapped()) mapped_ = input.mapped();
    else reader_ = std::make_unique<block_reader>(input.stream(), so.idle_ms, m_.lookbehind() + m_.lookahead(), pool_);
    file_begin_ = mapped_.data();
    uses_origin_ = m_.uses_origin();
    const unsigned parse_threads = std::max(threads_, so.parse_threads);
    if (fasta_pieces_ && parse_threads > 1) parse_arena_.emplace(static_cast<int>(parse_threads));
    if (fasta_pieces_) skip_to_first_record();
    run();
    if (reader_) reader_->stop();
    return result();
  }

 private:
  static constexpr std::size_t kDefaultChunk = std::size_t{4} << 20;
  /// At most this many bytes of FASTA pieces are cut ahead (and at most one piece per worker).
  static constexpr std::size_t kFastaAheadBytes = std::size_t{128} << 20;
  /// The parts a large FASTA piece is parsed in, in parallel (parse_in_parts).
  static constexpr std::size_t kFastaPart = std::size_t{4} << 20;

  stream_result result() {
    if (input_error_) std::rethrow_exception(input_error_);
    stream_result r;
    r.hits = delivered_;
    r.records = records_;
    r.stopped = stop_.load();
    r.format = format_;
    return r;
  }

  void run() {
    if (threads_ == 1 || (input_done_ && jobs_.size() <= 1)) {
      while (auto j = next_job()) {
        scan(*j);
        deliver(*j);
      }
    } else {
      run_parallel();
    }
    if (error_) std::rethrow_exception(error_);
    if (input_error_ && od_ && !stop_.load()) {  // the input broke mid-record: what was found stands
      od_->finish();
      sink_.end_record(text_end_);
    }
  }

  void run_parallel() {
    // The slices' hit vectors are recycled: a dense output would otherwise fault in fresh
    // pages for every slice. At most the jobs in flight hold one each.
    // more workers than cores only when scans wait elsewhere (stream_options::scans_in_flight)
    std::optional<tbb::global_control> allow;
    if (threads_ > tbb::global_control::active_value(tbb::global_control::max_allowed_parallelism))
      allow.emplace(tbb::global_control::max_allowed_parallelism, threads_);
    tbb::task_arena arena(static_cast<int>(threads_));
    arena.execute([&] {
      struct wait_parses {  // the pieces parsed ahead hold this search: wait for them however the pipeline ends
        tbb::task_group& g;
        ~wait_parses() { g.wait(); }
      } waiting{parse_tasks_};
      tbb::parallel_pipeline(
          static_cast<std::size_t>(threads_) * 2,  // jobs in flight: bounds the memory of their hits
          tbb::make_filter<void, std::shared_ptr<job>>(tbb::filter_mode::serial_in_order,
                                                       [&](tbb::flow_control& fc) {
                                                         auto j = next_job();
                                                         if (!j) fc.stop();
                                                         return j;
                                                       }) &
              tbb::make_filter<std::shared_ptr<job>, std::shared_ptr<job>>(tbb::filter_mode::parallel,
                                                                           [&](std::shared_ptr<job> j) {
                                                                             if (j) scan(*j);
                                                                             return j;
                                                                           }) &
              tbb::make_filter<std::shared_ptr<job>, void>(tbb::filter_mode::serial_in_order,
                                                           [&](std::shared_ptr<job> j) {
                                                             if (j) deliver(*j);
                                                           }));
    });
  }

  /// The input stage: the next job, reading and parsing as much input as it takes; null at
  /// the end, after a stop, or after an input error (whose bytes before are searched first).
  std::shared_ptr<job> next_job() {
    while (jobs_.empty()) {
      if (input_done_ || stop_.load(std::memory_order_relaxed)) return nullptr;
      try {
        if (reader_) {
          block_reader::block b = reader_->next();
          if (stop_.load()) return nullptr;
          const std::size_t head = m_.lookbehind() + m_.lookahead();
          if (b.bytes.size() > head) {
            if (parser_->detected() == io::format::plain && parser_->in_record())
              chunker_->adopt(std::move(b.bytes), head);  // plain streams are not copied again
            else
              parser_->feed(std::string_view(b.bytes).substr(head));
          }
          pool_.give(std::move(b.bytes));
          if (b.error) std::rethrow_exception(b.error);
          if (b.end) finish_input();
          else if (b.idle) chunker_->seal(true);
        } else if (fasta_pieces_) {
          next_fasta_piece();
          if (mapped_.empty() && ahead_.empty()) {
            if (fasta_open_) chunker_->end_record();
            fasta_open_ = false;
            finish_input();
          }
        } else {
          const std::size_t n = std::min(mapped_.size(), kDefaultChunk);
          parser_->feed(mapped_.substr(0, n));
          mapped_.remove_prefix(n);
          if (mapped_.empty()) finish_input();
        }
      } catch (...) {
        input_error_ = std::current_exception();
        input_done_ = true;
        chunker_->seal(false);  // search the bytes before the error
      }
    }
    if (stop_.load(std::memory_order_relaxed)) return nullptr;
    auto j = std::move(jobs_.front());
    jobs_.pop_front();
    return j;
  }
  /// Past a byte order mark and the blank lines before the first '>' (detect_format found one).
  void skip_to_first_record() {
    if (mapped_.substr(0, 3) == "\xEF\xBB\xBF") mapped_.remove_prefix(3);
    while (!mapped_.empty() && (mapped_[0] == '\n' || mapped_[0] == '\r')) mapped_.remove_prefix(1);
  }

  /// A piece of a mapped FASTA file: its bytes, and once parsed, its sequence and record heads.
  struct fasta_piece {
    std::string_view bytes;
    std::string out;
    std::vector<io::fasta_head> heads;
    /// parsed, when the engine uses origins: where the lines of the lead (the bytes before the
    /// first header), then of each record's part, begin in the piece, and their width
    /// (fasta_line_width; 0: not of one width)
    struct lines {
      std::size_t from = 0;
      std::uint32_t width = 0;
    };
    std::vector<lines> parts;
    std::atomic<int> state{0};  ///< 0 waiting, 1 being parsed, 2 parsed
  };


  /// parse_fasta_piece on the parse arena's threads, for a large piece (a GPU's chunk): parts
  /// of about kFastaPart bytes, cut at line starts, each parsed into a buffer of its own and
  /// then copied into place. `out` keeps its old bytes until they are overwritten (no
  /// zero-fill when a recycled buffer is large enough). The parts' buffers are recycled.
  void parse_in_parts(std::string_view bytes, std::size_t headroom, std::string& out, std::vector<io::fasta_head>& heads) {
    std::vector<std::size_t> cuts{0};
    while (cuts.back() < bytes.size()) cuts.push_back(io::fasta_piece_end(bytes, cuts.back(), kFastaPart));
    const std::size_t n = cuts.size() - 1;
    std::vector<std::string> outs(n);
    {
      const std::lock_guard<std::mutex> lock(parsed_m_);
      for (std::size_t i = 0; i < n && !spare_parts_.empty(); ++i) {
        outs[i] = std::move(spare_parts_.back());
        spare_parts_.pop_back();
      }
    }
    std::vector<std::vector<io::fasta_head>> hs(n);
    parse_arena_->execute([&] {
      tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
        outs[i].reserve(cuts[i + 1] - cuts[i]);  // a part's sequence is never longer than its bytes
        io::parse_fasta_piece(bytes.substr(cuts[i], cuts[i + 1] - cuts[i]), 0, outs[i], hs[i]);
      });
    });
    std::vector<std::size_t> at(n + 1, headroom);
    for (std::size_t i = 0; i < n; ++i) at[i + 1] = at[i] + outs[i].size();
    heads.clear();
    for (std::size_t i = 0; i < n; ++i)
      for (const io::fasta_head& h : hs[i]) heads.push_back({at[i] + h.at, h.name, cuts[i] + h.line});
    out.resize(at[n]);
    parse_arena_->execute([&] {
      tbb::parallel_for(std::size_t{0}, n, [&](std::size_t i) {
        if (!outs[i].empty()) std::memcpy(out.data() + at[i], outs[i].data(), outs[i].size());
      });
    });
    const std::lock_guard<std::mutex> lock(parsed_m_);
    for (std::string& o : outs) spare_parts_.push_back(std::move(o));
  }

  /// p.parts, for a parsed piece.
  static void line_parts(fasta_piece& p, std::size_t headroom) {
    const auto& hs = p.heads;
    p.parts.clear();
    const std::size_t lead_end = hs.empty() ? p.bytes.size() : hs[0].line;
    const std::size_t lead = (hs.empty() ? p.out.size() : hs[0].at) - headroom;
    p.parts.push_back({0, lead == 0 ? 0 : io::fasta_line_width(p.bytes.substr(0, lead_end), lead)});
    for (std::size_t h = 0; h < hs.size(); ++h) {
      const std::size_t nl = p.bytes.find('\n', hs[h].line);  // its lines begin after its header line
      const std::size_t from = nl == std::string_view::npos ? p.bytes.size() : nl + 1;
      const std::size_t to = h + 1 < hs.size() ? hs[h + 1].line : p.bytes.size();
      const std::size_t len = (h + 1 < hs.size() ? hs[h + 1].at : p.out.size()) - hs[h].at;
      p.parts.push_back({from, len == 0 ? 0 : io::fasta_line_width(p.bytes.substr(from, to - from), len)});
    }
  }

  /// Parses `p` unless someone else took it.
  void parse_piece(fasta_piece& p) {
    int waiting = 0;
    if (!p.state.compare_exchange_strong(waiting, 1)) return;
    const std::size_t headroom = m_.lookbehind() + m_.lookahead();
    if (parse_arena_ && p.bytes.size() >= 4 * kFastaPart) parse_in_parts(p.bytes, headroom, p.out, p.heads);
    else io::parse_fasta_piece(p.bytes, headroom, p.out, p.heads);
    if (uses_origin_) line_parts(p, headroom);
    {
      const std::lock_guard<std::mutex> lock(parsed_m_);
      p.state.store(2);
    }
    parsed_cv_.notify_all();
  }

  /// The next piece of a mapped FASTA file to the chunker. Pieces (a chunk's size each, cut at
  /// line starts) are cut ahead and offered to the workers, which parse them while the input
  /// stage hands the earlier ones on; the input stage parses a piece itself when no worker
  /// has taken it (the workers are busy scanning, or waiting on a device). A piece inside one
  /// record becomes a chunk as it is (its headroom takes the carried context); the others
  /// are copied.
  void next_fasta_piece() {
    const std::size_t headroom = m_.lookbehind() + m_.lookahead();
    const std::size_t ahead = std::max<std::size_t>(2, std::min<std::size_t>(threads_, kFastaAheadBytes / piece_size_));
    while (ahead_.size() < ahead && !mapped_.empty()) {
      auto p = std::make_shared<fasta_piece>();
      const std::size_t end = io::fasta_piece_end(mapped_, 0, piece_size_);
      p->bytes = mapped_.substr(0, end);
      mapped_.remove_prefix(end);
      p->out = pool_.take();
      p->out.reserve(std::max(headroom + p->bytes.size(), buffer_capacity(piece_size_, headroom)));
      ahead_.push_back(p);
      parse_tasks_.run([this, p] { parse_piece(*p); });
    }
    const std::shared_ptr<fasta_piece> p = std::move(ahead_.front());
    ahead_.pop_front();
    parse_piece(*p);
    {
      std::unique_lock<std::mutex> lock(parsed_m_);
      parsed_cv_.wait(lock, [&] { return p->state.load() == 2; });
    }
    std::string& o = p->out;
    const auto& hs = p->heads;
    const std::size_t lead = hs.empty() ? o.size() : hs[0].at;
    const auto piece_at = static_cast<std::uint64_t>(p->bytes.data() - file_begin_);
    const auto part = [&](std::size_t i) { return i < p->parts.size() ? p->parts[i] : fasta_piece::lines{}; };
    if (lead > headroom) {  // the record open before the piece goes on (the input began with '>')
      if (hs.empty()) {
        if (chunker_->holds_new_bytes()) chunker_->seal(false);
        chunker_->adopt(std::move(o), headroom, piece_at, part(0).width);
        return;
      }
      chunker_->sequence(std::string_view(o).substr(headroom, lead - headroom), piece_at, part(0).width);
    }
    for (std::size_t h = 0; h < hs.size(); ++h) {
      if (fasta_open_) chunker_->end_record();
      chunker_->begin_record(hs[h].name);
      fasta_open_ = true;
      const std::size_t end = h + 1 < hs.size() ? hs[h + 1].at : o.size();
      if (end > hs[h].at)
        chunker_->sequence(std::string_view(o).substr(hs[h].at, end - hs[h].at), piece_at + part(h + 1).from,
                           part(h + 1).width);
    }
    pool_.give(std::move(o));
  }

  void finish_input() {
    parser_->finish();
    chunker_->seal(false);
    input_done_ = true;
    if (parser_->detected() != io::format::automatic) format_ = parser_->detected();
  }

  /// The parallel stage: every piece of the job scanned, hits in record coordinates.
  void scan(job& j) const {
    if (stop_.load(std::memory_order_relaxed)) return;
    try {
      j.hits = take_vector();
      for (std::uint32_t i = j.first; i < j.end; ++i) {
        const piece& p = j.c->pieces[i];
        const std::size_t from = j.hits.size(), open_from = j.open.size();
        const detail::window_origin origin = j.c->origin(p);
        if (origin.width != 0)
          m_.scan_from(origin, j.c->window(p), j.split ? j.own_begin : p.own_begin, j.split ? j.own_end : p.own_end,
                       j.hits, j.open);
        else
          m_.scan(j.c->window(p), j.split ? j.own_begin : p.own_begin, j.split ? j.own_end : p.own_end, j.hits, j.open);
        if (p.base != 0)
          for (std::size_t h = from; h < j.hits.size(); ++h) j.hits[h].start += p.base, j.hits[h].end += p.base;
        for (std::size_t o = open_from; o < j.open.size(); ++o) j.open[o].index -= from;  // piece-relative
        j.ends.push_back(static_cast<std::uint32_t>(j.hits.size()));
        j.open_ends.push_back(static_cast<std::uint32_t>(j.open.size()));
        j.sums.push_back(summarize(std::span<const hit>(j.hits.data() + from, j.hits.size() - from),
                                   std::span<const detail::open_mark>(j.open.data() + open_from, j.open.size() - open_from),
                                   one_id_));
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }

  /// The serial stage: records begun and ended, cluster pieces merged, hits to the sink.
  void deliver(job& j) {
    if (stop_.load(std::memory_order_relaxed)) {
      give_vector(std::move(j.hits));
      return;
    }
    try {
      std::vector<hit> one;
      for (std::uint32_t i = j.first; i < j.end; ++i) {
        const piece& p = j.c->pieces[i];
        if (p.first && j.piece_first) {
          ++records_;
          if (parser_ && parser_->detected() != io::format::automatic) format_ = parser_->detected();
          sink_.begin_record(record_info{j.c->names[p.name], p.record, format_});
          const std::uint64_t left = o_.max_hits == 0 ? 0 : o_.max_hits - delivered_;
          od_.emplace(m_.key(), left, deliver_cb_);
          text_end_ = 0;
        }
        const bool ends_record = p.last && j.piece_last;
        const std::size_t own_end = j.split ? j.own_end : p.own_end;
        if (wants_text_) {
          const std::uint64_t upto = p.base + (ends_record ? p.len : std::min(p.len, own_end + m_.lookahead()));
          if (upto > text_end_)
            sink_.text(text_end_, j.c->window(p).substr(text_end_ - p.base, upto - text_end_), j.c->owned.empty());
          text_end_ = std::max(text_end_, upto);
        }
        const std::uint32_t from = i == j.first ? 0 : j.ends[i - j.first - 1];
        const std::uint32_t to = j.ends[i - j.first];
        const std::uint32_t open_from = i == j.first ? 0 : j.open_ends[i - j.first - 1];
        const std::span<const detail::open_mark> open(j.open.data() + open_from, j.open_ends[i - j.first] - open_from);
        bool go;
        if (j.end - j.first == 1) {
          go = od_->take(j.hits, open, j.sums[0]);
        } else {
          one.assign(j.hits.begin() + from, j.hits.begin() + to);
          go = od_->take(one, open, j.sums[i - j.first]);
        }
        if (!go) {
          stop();
          break;
        }
        if (wants_text_) {
          const std::uint64_t own = p.base + own_end;
          const std::uint64_t bound = m_.key() == hit_key::start ? own : (own > m_.lookbehind() ? own - m_.lookbehind() : 0);
          sink_.floor(std::min(bound, od_->lowest_start()));
        }
        if (ends_record) {
          if (!od_->finish()) stop();
          sink_.end_record(p.base + p.len);
          od_.reset();
          if (stop_.load()) break;
        }
      }
      if (j.idle && !stop_.load()) sink_.idle();
    } catch (...) {
      fail(std::current_exception());
    }
    give_vector(std::move(j.hits));
  }

  void stop() {
    stop_.store(true);
    if (reader_) reader_->stop();
  }
  void fail(std::exception_ptr e) const {
    const std::lock_guard<std::mutex> lock(error_mutex_);
    if (!error_) error_ = std::move(e);
    stop_.store(true);
  }

  std::vector<hit> take_vector() const {
    const std::lock_guard<std::mutex> lock(vectors_mutex_);
    if (vectors_.empty()) return {};
    std::vector<hit> v = std::move(vectors_.back());
    vectors_.pop_back();
    return v;
  }
  void give_vector(std::vector<hit>&& v) const {
    if (v.capacity() == 0) return;
    v.clear();
    const std::lock_guard<std::mutex> lock(vectors_mutex_);
    vectors_.push_back(std::move(v));
  }

  const detail::engine& m_;
  const search_options& o_;
  search_sink& sink_;
  unsigned threads_ = 1;
  /// parse_in_parts' threads: an arena of their own, so that the search's arena keeps one
  /// thread per scan in flight and the parts never wait on a thread held by a scan.
  std::optional<tbb::task_arena> parse_arena_;
  bool one_id_ = false, wants_text_ = false;
  hit_callback deliver_cb_;
  // input stage
  buffer_pool pool_;
  std::unique_ptr<chunker> chunker_;
  std::unique_ptr<io::record_parser> parser_;
  bool fasta_pieces_ = false, fasta_open_ = false;
  bool uses_origin_ = false;          ///< FASTA pieces note their line width (engine::uses_origin)
  const char* file_begin_ = nullptr;  ///< the mapped input's first byte
  std::size_t piece_size_ = 0;
  std::deque<std::shared_ptr<fasta_piece>> ahead_;  ///< cut, offered to the workers, not yet handed on
  std::mutex parsed_m_;
  std::vector<std::string> spare_parts_;  ///< parse_in_parts' buffers, guarded by parsed_m_
  std::condition_variable parsed_cv_;
  tbb::task_group parse_tasks_;
  std::unique_ptr<block_reader> reader_;
  std::string_view mapped_;
  std::deque<std::shared_ptr<job>> jobs_;
  bool input_done_ = false;
  std::exception_ptr input_error_;
  io::format format_ = io::format::plain;
  // delivery stage
  std::optional<ordered_delivery> od_;
  std::uint64_t delivered_ = 0, records_ = 0, text_end_ = 0;
  // shared
  mutable std::atomic<bool> stop_{false};
  mutable std::mutex error_mutex_, vectors_mutex_;
  mutable std::exception_ptr error_;
  mutable std::vector<std::vector<hit>> vectors_;
};

/// search_sequence's sink: hits to the caller's callback.
class callback_sink final : public search_sink {
 public:
  explicit callback_sink(const hit_callback& cb) : cb_(cb) {}
  void begin_record(const record_info&) override {}
  bool hits(std::span<const hit> hs) override { return cb_(hs); }
  void end_record(std::uint64_t) override {}

 private:
  const hit_callback& cb_;
};

}  // namespace

matcher::matcher(std::unique_ptr<detail::engine> engine) noexcept : engine_(std::move(engine)) {}
matcher::~matcher() = default;
device_spec matcher::device() const { return engine_->device(); }
matcher::matcher(matcher&&) noexcept = default;
matcher& matcher::operator=(matcher&&) noexcept = default;

std::unique_ptr<detail::engine> detail::make_engine(const std::vector<std::string>& patterns,
                                                   const search_options& options) {
  check_patterns(patterns, options);
  if (options.regex) return make_regex_matcher(patterns, options);
  if (options.max_errors > 0 || options.all_ends) return with_boundaries(make_approx_engine(patterns, options), options);
  if (options.iupac) return with_boundaries(make_iupac_exact_engine(patterns, options), options);
  return with_boundaries(make_exact_engine(patterns, options), options);
}

std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options) {
  return std::make_unique<matcher>(detail::make_engine(patterns, options));
}

std::unique_ptr<matcher> make_exact_matcher(const std::vector<std::string>& patterns, const search_options& options) {
  return std::make_unique<matcher>(detail::make_exact_engine(patterns, options));
}

std::unique_ptr<matcher> make_iupac_exact_matcher(const std::vector<std::string>& patterns,
                                                  const search_options& options) {
  return std::make_unique<matcher>(detail::make_iupac_exact_engine(patterns, options));
}

std::unique_ptr<matcher> make_approx_matcher(const std::vector<std::string>& patterns, const search_options& options) {
  return std::make_unique<matcher>(detail::make_approx_engine(patterns, options));
}

std::uint64_t search_sequence(const matcher& m, std::string_view seq, const search_options& options,
                              const hit_callback& on_hits) {
  callback_sink sink(on_hits);
  return stream_search(m, options, sink).run_memory(seq, {}).hits;
}

stream_result search_input(const matcher& m, io::source& input, const search_options& options,
                           const stream_options& stream, search_sink& sink) {
  stream_result result = stream_search(m, options, sink, stream.scans_in_flight).run_input(input, stream);
  result.device = m.device();
  return result;
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
