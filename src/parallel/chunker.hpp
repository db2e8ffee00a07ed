// parallel/chunker.hpp — the one place that cuts text (search.hpp, stream.hpp): records become
// chunks of bytes (copied from a stream, or views of a mapping), each piece of a record
// carrying the matcher's context, and chunks become the jobs the driver's workers scan. Also
// the buffers they recycle. chunker.cpp: how large a job is, and the fault-in of a fresh buffer.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>


#include "hits/delivery.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/io.hpp"

namespace trawl::slicing {

/// The owned bytes of a slice (a job) for a chunk of n new bytes out of `total` (0: unknown),
/// scanned by `threads` workers with matcher m; `requested` (stream_options' slice size), when
/// not 0, is obeyed down to 1/65536 of the chunk.
std::size_t choose_slice_size(std::size_t n, std::size_t total, unsigned threads, const detail::engine& m,
                              std::size_t requested);

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
  bool sequence = false;  ///< of a FASTA/FASTQ record (its line breaks are gone), not of plain text
};

/// Bytes of the input with the pieces cut from them: copied (streams) or a view of a mapping.
struct chunk {
  std::string owned;
  std::string_view bytes;
  std::vector<piece> pieces;
  std::vector<std::string> names;
  /// With chunker::keep_heads: each record's header line and qualities, as names
  std::vector<std::string> headers, qualities;
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
  std::vector<hits::slice_summary> sums;
  /// For a sink that counts lines (search_sink::line_breaks): the line ends the pieces' hits
  /// need, those of the i-th piece ending at breaks_end[i], and each piece's '\n' count and last
  std::vector<std::uint64_t> breaks;
  std::vector<std::uint32_t> breaks_end;
  std::vector<std::uint64_t> breaks_count, breaks_last;
  std::vector<std::uint64_t> breaks_settled;  ///< per piece: the lines it counted itself (settles_lines)
  std::vector<std::uint64_t> starts;  ///< scratch of find_breaks
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

  /// Keep each record's header line and qualities in its chunk (chunk::headers, ::qualities).
  void keep_heads(bool keep) noexcept { keep_heads_ = keep; }
  void heads(std::string_view header, std::string_view quality) override {
    next_is_sequence_ = true;
    if (keep_heads_) {
      header_.assign(header);
      quality_.assign(quality);
    }
  }
  void begin_record(std::string_view name) override {
    in_record_ = true;
    sequence_ = std::exchange(next_is_sequence_, false);  // heads() came first: a FASTA/FASTQ record
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
    p.sequence = sequence_;
    if (first_) {
      p.name = static_cast<std::uint32_t>(cur_->names.size());
      cur_->names.push_back(name_);
      if (keep_heads_) {  // the record's own heads, never the last record's
        cur_->headers.push_back(std::exchange(header_, {}));
        cur_->qualities.push_back(std::exchange(quality_, {}));
      }
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
  bool in_record_ = false, first_ = true, keep_heads_ = false;
  bool next_is_sequence_ = false, sequence_ = false;
  std::string name_, header_, quality_;
  std::uint64_t record_ = 0, rec_pos_ = 0, owned_ = 0, base_ = 0;
  std::size_t win_off_ = 0;
};

}  // namespace trawl::slicing
