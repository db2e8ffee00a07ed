// search.cpp — the slicing driver: the one place the library cuts text.
//
// A sequence of n bytes is cut into slices of owned key positions; slice i scans
// [begin_i - lookbehind, end_i + lookahead) so every hit is found by exactly the slice that
// owns its key position. Slices run on a oneTBB pipeline (parallel scan, serial in-order
// delivery), so the output is in text order and identical for every thread count and slice
// size. Approximate clusters cut by a slice edge arrive flagged (detail::open_mark) and are
// joined before delivery (hits/delivery.hpp). O(n) bytes scanned plus (lookbehind + lookahead) per slice.
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
#include "common/count_byte.hpp"
#include "common/faulted.hpp"
#include "hits/delivery.hpp"
#include "parallel/block_reader.hpp"
#include "parallel/chunker.hpp"
#include "parallel/input_pieces.hpp"
#include "io/fasta_pieces.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl {

namespace {

using slicing::block_reader;
using slicing::buffer_capacity;
using slicing::buffer_pool;
using slicing::chunk;
using slicing::choose_slice_size;
using slicing::chunker;
using slicing::job;
using slicing::piece;
using slicing::fasta_piece;
using slicing::twobit_piece;
using slicing::twobit_planner;

void check_patterns(const std::vector<std::string>& patterns, const search_options& options) {
  if (patterns.empty()) throw error(errc::invalid_argument, "no pattern given");
  for (const auto& p : patterns) {
    if (p.empty()) throw error(errc::invalid_argument, "empty pattern");
    if (p.find('\0') != std::string::npos) throw error(errc::invalid_argument, "pattern contains a NUL byte");
  }
  if (options.max_errors < 0) throw error(errc::invalid_argument, "search_options::max_errors must be >= 0");
}

// ---- the scheduler: chunks of an input, slices of chunks, in-order delivery --------------

/// One search of one input: the input stage (reading, parsing, chunking), the parallel scan
/// of jobs and the in-order delivery to the sink.
class stream_search {
 public:
  stream_search(const matcher& m, const search_options& o, search_sink& sink, unsigned scans_in_flight = 0)
      : m_(detail::engine_of(m)), o_(o), sink_(sink) {
    const auto cores = static_cast<unsigned>(std::max(1, tbb::info::default_concurrency()));
    threads_ = std::max(o.threads != 0 ? std::min(o.threads, cores) : cores, scans_in_flight);
    one_id_ = m_.one_pattern_strand();
    wants_text_ = sink.wants_text();
    wants_heads_ = sink.wants_heads();
    wants_breaks_ = sink.wants_line_breaks();
    counts_breaks_ = wants_breaks_ && sink.counts_line_breaks();
    // a line's hits are left out only where none is dropped or cut short later
    settles_lines_ = wants_breaks_ && sink.settles_lines() && o_.max_hits == 0;
    steps_lines_ = wants_breaks_ && m_.key() == hit_key::start && m_.device() == device_kind::cpu;
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
    chunker::split(std::move(c), choose_slice_size(seq.size(), seq.size(), threads_, m_, o_.slice_size),
                   jobs_);
    input_done_ = true;
    memory_input_ = true;
    format_ = io::format::plain;
    run();
    return result();
  }

  /// An input read through the parser: a mapped FASTA/FASTQ file, or any stream.
  stream_result run_input(io::source& input, const stream_options& given) {
    progress_ = given.progress;
    // the format asked for, else the one the file's name says, else the content decides
    stream_options so = given;
    if (so.format == io::format::automatic) so.format = input.named_format();
    format_ = so.format;
    const std::size_t chunk_size = so.chunk_size != 0 ? so.chunk_size : kDefaultChunk;
    if (!input.twobit().empty() && so.format == io::format::fasta)
      return run_twobit(input, chunk_size, std::max(threads_, so.parse_threads));
    if (!input.twobit().empty())  // as plain bytes or FASTQ its FASTA text would give made-up offsets
      throw error(errc::invalid_argument, input.name() + ": a .2bit genome is read only as its records (FASTA)");
    if (input.is_mapped()) {
      const std::string_view bytes = input.mapped();
      if (so.format == io::format::plain ||
          (so.format == io::format::automatic && io::detect_format(bytes) == io::format::plain))
        return run_memory(bytes, input.name());
    }
    const std::size_t total = input.is_mapped() ? input.mapped().size() : 0;
    chunker_ = std::make_unique<chunker>(m_, chunk_size,
                                         choose_slice_size(chunk_size, total, threads_, m_, o_.slice_size),
                                         pool_, jobs_);
    // A mapped FASTA file is parsed in pieces on every worker (fasta_pieces.hpp).
    fasta_pieces_ = input.is_mapped() && threads_ > 1 &&
                    (so.format == io::format::fasta ||
                     (so.format == io::format::automatic && io::detect_format(input.mapped()) == io::format::fasta));
    piece_size_ = chunk_size;
    parser_ = std::make_unique<io::record_parser>(fasta_pieces_ ? io::format::fasta : so.format, input.name(), *chunker_);
    chunker_->keep_heads(wants_heads_);
    parser_->keep_qualities(wants_heads_);
    if (input.is_mapped()) mapped_ = input.mapped();
    else reader_ = std::make_unique<block_reader>(input.stream(), so.idle_ms, m_.lookbehind() + m_.lookahead(), pool_);
    file_begin_ = mapped_.data();
    uses_origin_ = m_.uses_origin();
    const unsigned parse_threads = std::max(threads_, so.parse_threads);
    if (fasta_pieces_ && parse_threads > 1) parse_arena_.emplace(static_cast<int>(parse_threads));
    if (fasta_pieces_) {
      skip_to_first_record();
      pieces_begin_ = mapped_.data();
      if (!mapped_.empty() && mapped_[0] != '>')  // as the record parser says it
        throw error(errc::bad_format, input.name() + ": FASTA record 1 does not start with '>'");
    }
    run();
    if (reader_) reader_->stop();
    return result();
  }

  /// A .2bit file: its sequences decoded a chunk at a time, on `parse_threads` cores (a GPU's
  /// search has few threads of its own), straight into the buffers the chunks adopt; no FASTA
  /// text is made or parsed.
  stream_result run_twobit(io::source& input, std::size_t chunk_size, unsigned parse_threads) {
    parse_arena_.emplace(static_cast<int>(parse_threads));
    twobit_ = std::make_unique<io::twobit_file>(input.twobit(), input.name());
    twobit_plan_ = std::make_unique<twobit_planner>(*twobit_, chunk_size);
    std::uint64_t bases = 0;
    for (std::size_t i = 0; i < twobit_->size(); ++i) bases += twobit_->length(i);
    chunker_ = std::make_unique<chunker>(
        m_, chunk_size,
        choose_slice_size(chunk_size, static_cast<std::size_t>(bases), threads_, m_, o_.slice_size), pool_, jobs_);
    chunker_->keep_heads(wants_heads_);
    piece_size_ = chunk_size;
    run();
    return result();
  }

 private:
  static constexpr std::size_t kDefaultChunk = std::size_t{4} << 20;
  /// At most this many bytes of FASTA or .2bit pieces are cut ahead (and at most one piece per
  /// worker).
  static constexpr std::size_t kFastaAheadBytes = std::size_t{128} << 20;
  /// The parts a large FASTA piece is parsed in, in parallel (parse_in_parts): at most this
  /// size, and small enough that each parse thread gets two.
  static constexpr std::size_t kFastaPart = std::size_t{4} << 20;
  static constexpr std::size_t kFastaMinPart = std::size_t{1} << 20;
  /// The steps a slice is scanned in where the sink counts lines (scan): small enough that the
  /// read for their line breaks finds them in the core's cache.
  static constexpr std::size_t kLineStep = std::size_t{512} << 10;

  /// `n` more input bytes taken in: told to stream_options::progress.
  void taken(std::uint64_t n) {
    consumed_ += n;
    if (progress_ && n > 0) progress_(consumed_);
  }

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
      sink_.end_record(std::max(text_end_, owned_end_));
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
            taken(b.bytes.size() - head);
            if (parser_->detected() == io::format::plain && parser_->in_record())
              chunker_->adopt(std::move(b.bytes), head);  // plain streams are not copied again
            else
              parser_->feed(std::string_view(b.bytes).substr(head));
          }
          pool_.give(std::move(b.bytes));
          if (b.error) std::rethrow_exception(b.error);
          if (b.end) finish_input();
          else if (b.idle) chunker_->seal(true);
        } else if (twobit_) {
          next_twobit_piece();
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
          taken(n);
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

  /// parse_fasta_piece on the parse arena's threads, for a large piece (a GPU's chunk): parts
  /// of 1-4 MiB (two a thread), cut at line starts, each parsed into a buffer of its own and
  /// then copied into place. `out` keeps its old bytes until they are overwritten (no
  /// zero-fill when a recycled buffer is large enough; a fresh one is faulted in on all
  /// cores first). The parts' buffers are recycled.
  void parse_in_parts(std::string_view bytes, std::size_t headroom, std::string& out, std::vector<io::fasta_head>& heads) {
    std::vector<std::size_t> cuts{0};
    const auto workers = static_cast<std::size_t>(std::max(1, parse_arena_->max_concurrency()));
    const std::size_t part = std::clamp(bytes.size() / (2 * workers), kFastaMinPart, kFastaPart);
    while (cuts.back() < bytes.size()) cuts.push_back(io::fasta_piece_end(bytes, cuts.back(), part));
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
    parse_arena_->execute([&] { resize_faulted(out, at[n]); });
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
    try {  // a worker's task: what it throws goes to the input stage, which waits on the piece
      if (parse_arena_ && p.bytes.size() >= 4 * kFastaPart) parse_in_parts(p.bytes, headroom, p.out, p.heads);
      else io::parse_fasta_piece(p.bytes, headroom, p.out, p.heads);
      if (uses_origin_) line_parts(p, headroom);
    } catch (...) {
      p.error = std::current_exception();
    }
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
      // cut in the file from its first record on, whose bytes before a piece say whether it
      // starts inside a line
      const auto from = static_cast<std::size_t>(mapped_.data() - pieces_begin_);
      const std::size_t end =
          io::fasta_piece_end(std::string_view(pieces_begin_, from + mapped_.size()), from, piece_size_) - from;
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
    if (p->error) std::rethrow_exception(p->error);
    std::string& o = p->out;
    const auto& hs = p->heads;
    const std::size_t lead = hs.empty() ? o.size() : hs[0].at;
    const auto piece_at = static_cast<std::uint64_t>(p->bytes.data() - file_begin_);
    taken(piece_at + p->bytes.size() - consumed_);
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
      std::string_view header;  // the header line that hs[h].name begins, for a sink that reads it
      if (wants_heads_) {
        const std::string_view from = std::string_view(p->bytes).substr(hs[h].line + 1);
        header = from.substr(0, from.find('\n'));
        if (!header.empty() && header.back() == '\r') header.remove_suffix(1);
      }
      chunker_->heads(header, {});
      chunker_->begin_record(hs[h].name);
      fasta_open_ = true;
      const std::size_t end = h + 1 < hs.size() ? hs[h + 1].at : o.size();
      if (end > hs[h].at)
        chunker_->sequence(std::string_view(o).substr(hs[h].at, end - hs[h].at), piece_at + part(h + 1).from,
                           part(h + 1).width);
    }
    pool_.give(std::move(o));
  }

  void decode_piece(twobit_piece& p) {
    int waiting = 0;
    if (!p.state.compare_exchange_strong(waiting, 1)) return;
    const auto work = [&] { p.decode(*twobit_, m_.lookbehind() + m_.lookahead(), pool_); };
    // A piece offered to the workers is decoded in the search's arena, isolated: waiting on
    // its parts, a thread takes up no other task (the input stage, which may wait on this very
    // piece). The others on the parse threads: a GPU's large pieces, and a one-thread search's.
    if (p.offered) tbb::this_task_arena::isolate(work);
    else parse_arena_->execute(work);
    {
      const std::lock_guard<std::mutex> lock(parsed_m_);
      p.state.store(2);
    }
    parsed_cv_.notify_all();
  }

  /// The next piece of the .2bit to the chunker, each record begun before its first bases and
  /// ended after its last; the input's end after the last. Pieces are planned ahead and offered
  /// to the workers, which decode them while the input stage hands the earlier ones on, as
  /// next_fasta_piece does with a FASTA's pieces.
  void next_twobit_piece() {
    const io::twobit_file& f = *twobit_;
    // Offered only when several threads scan small pieces: a GPU's few threads feed their
    // devices and must not be held by a large piece's decode, and one thread decodes each
    // piece itself. Otherwise the input stage decodes each piece in turn, none planned ahead.
    const bool offer = threads_ > 1 && piece_size_ < 4 * kFastaPart;
    const std::size_t ahead =
        offer ? std::max<std::size_t>(2, std::min<std::size_t>(threads_, kFastaAheadBytes / piece_size_)) : 1;
    while (twobit_ahead_.size() < ahead && !twobit_plan_->done()) {
      twobit_ahead_.push_back(twobit_plan_->next());
      twobit_ahead_.back()->offered = offer;
      if (offer) parse_tasks_.run([this, p = twobit_ahead_.back()] { decode_piece(*p); });
    }
    if (twobit_ahead_.empty()) {
      chunker_->seal(false);
      input_done_ = true;
      return;
    }
    const std::shared_ptr<twobit_piece> p = std::move(twobit_ahead_.front());
    twobit_ahead_.pop_front();
    const auto begin = [&](std::size_t seq) {
      chunker_->heads(wants_heads_ ? f.header(seq) : std::string_view(), {});
      chunker_->begin_record(f.name(seq));
    };
    const std::size_t headroom = m_.lookbehind() + m_.lookahead();
    if (!p->whole) {
      const twobit_piece::part& q = p->parts[0];
      if (q.at == 0) {
        // a long record starts a chunk of its own, which adopts its first block instead of
        // copying it after the records before: the chunk before goes to the scans before this
        // piece is decoded
        if (chunker_->holds_new_bytes()) chunker_->seal(false);
        begin(q.seq);
      }
      wait_decoded(*p);
      if (p->error) std::rethrow_exception(p->error);
      taken(q.n);
      chunker_->adopt(std::move(p->out), headroom);
      if (q.at + q.n == f.length(q.seq)) chunker_->end_record();
      return;
    }
    // short records whole, copied into the chunks; those before a damaged one are searched
    wait_decoded(*p);
    for (std::size_t i = 0; i < p->parts.size(); ++i) {
      const twobit_piece::part& q = p->parts[i];
      begin(q.seq);
      if (p->error && i == p->failed) std::rethrow_exception(p->error);
      if (q.n > 0) chunker_->sequence(std::string_view(p->out).substr(headroom + q.off, q.n));
      taken(q.n);
      chunker_->end_record();
    }
    pool_.give(std::move(p->out));
  }

  /// Waits until piece p is decoded, decoding it here when no worker has taken it.
  void wait_decoded(twobit_piece& p) {
    decode_piece(p);
    std::unique_lock<std::mutex> lock(parsed_m_);
    parsed_cv_.wait(lock, [&] { return p.state.load() == 2; });
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
        const std::size_t own_begin = j.split ? j.own_begin : p.own_begin, own_end = j.split ? j.own_end : p.own_end;
        const auto scan_range = [&](std::size_t b, std::size_t e) {
          if (origin.width != 0)
            m_.scan_from(origin, j.c->window(p), b, e, j.hits, j.open);
          else
            m_.scan(j.c->window(p), b, e, j.hits, j.open);
        };
        if (!wants_breaks_ || p.sequence) {
          scan_range(own_begin, own_end);
          if (wants_breaks_) no_breaks(j);
        } else {
          // On the CPU, hits kept by their start: the slice is scanned in steps, and each step's
          // line breaks are found right after its scan, while its bytes are in the core's cache.
          // Hits kept by their end (clusters) are scanned whole, since a step's edge would cut
          // them, and so is a device's slice, which it scans at once.
          const std::size_t step = steps_lines_ ? kLineStep : own_end - own_begin;
          const std::size_t breaks_from = j.breaks.size();
          line_tally tally;
          std::size_t at = own_begin;
          do {
            const std::size_t to = own_end - at > step ? at + step : own_end;
            const std::size_t step_from = j.hits.size(), step_open = j.open.size();
            scan_range(at, to);
            find_breaks(j, p, step_from, j.open.size() == step_open, at, to, tally);
            at = to;
          } while (at < own_end);
          end_breaks(j, p, breaks_from, own_begin, own_end, tally);
        }
        if (p.base != 0)
          for (std::size_t h = from; h < j.hits.size(); ++h) j.hits[h].start += p.base, j.hits[h].end += p.base;
        for (std::size_t o = open_from; o < j.open.size(); ++o) j.open[o].index -= from;  // piece-relative
        j.ends.push_back(static_cast<std::uint32_t>(j.hits.size()));
        j.open_ends.push_back(static_cast<std::uint32_t>(j.open.size()));
        j.sums.push_back(hits::summarize(std::span<const hit>(j.hits.data() + from, j.hits.size() - from),
                                   std::span<const detail::open_mark>(j.open.data() + open_from, j.open.size() - open_from),
                                   one_id_));
      }
    } catch (...) {
      fail(std::current_exception());
    }
  }

  /// The lowest start a hit kept past `own` (in the bytes after it) can have: `own` for hits
  /// kept by their start, lookbehind bytes before it for hits kept by their end.
  [[nodiscard]] std::uint64_t later_starts_from(std::uint64_t own) const {
    return m_.key() == hit_key::start ? own : (own > m_.lookbehind() ? own - m_.lookbehind() : 0);
  }

  /// What find_breaks gathers of a piece's steps, for end_breaks.
  struct line_tally {
    std::uint64_t count = 0;                 ///< '\n' bytes (counts_breaks_)
    std::uint64_t last = ~std::uint64_t{0};  ///< the last of them
    std::uint64_t settled = 0;               ///< lines counted here (settles_lines_)
  };

  /// A FASTA/FASTQ record's sequence has no lines: a piece of it has no break to hand on.
  static void no_breaks(job& j) {
    j.breaks_end.push_back(static_cast<std::uint32_t>(j.breaks.size()));
    j.breaks_count.push_back(0);
    j.breaks_last.push_back(~std::uint64_t{0});
    j.breaks_settled.push_back(0);
  }

  /// For a sink that counts lines: the line ends the hits of bytes [a, b) of piece p (j.hits
  /// from `from` on, in window coordinates) need, found on this worker, and the first '\n' of
  /// those bytes, so that the sink never reads the text (search_sink::line_breaks). For a sink
  /// that settles_lines(), and bytes whose hits are all final (`whole`: no cluster cut by their
  /// edges), the lines with a hit between their first '\n' and their last are counted here and
  /// their hits dropped.
  void find_breaks(job& j, const piece& p, std::size_t from, bool whole, std::size_t a, std::size_t b,
                   line_tally& tally) const {
    const std::string_view w = j.c->window(p);
    a = std::min(w.size(), a);
    b = std::min(w.size(), b);
    const auto next_break = [&](std::size_t at) {
      const void* nl = at < b ? std::memchr(w.data() + at, '\n', b - at) : nullptr;
      return nl == nullptr ? b : static_cast<std::size_t>(static_cast<const char*>(nl) - w.data());
    };
    // the first '\n' (it ends a line that earlier bytes left open), then the line end of each
    // hit's start, in order of the starts: every byte of [a, b) is read once at most
    const std::size_t f = next_break(a);
    if (f < b) j.breaks.push_back(p.base + f);
    std::vector<std::uint64_t>& starts = j.starts;
    starts.clear();
    for (std::size_t h = from; h < j.hits.size(); ++h) starts.push_back(j.hits[h].start);
    if (m_.key() != hit_key::start) std::sort(starts.begin(), starts.end());  // else a scan sorts them
    std::size_t end = f;  // the line end found last: [a, end] is read
    const bool settle = settles_lines_ && whole;
    // only the lines that end before the next bytes' hits can start are these bytes' alone
    const std::uint64_t settle_below = later_starts_from(b);
    std::uint64_t settled = 0;
    std::size_t settled_to = f;  // the lines of the starts in (f, settled_to] lie whole in [a, b)
    for (const std::uint64_t s : starts) {
      if (s < a) {  // a start in the bytes before: its line may end there
        const void* nl = std::memchr(w.data() + s, '\n', a - s);
        if (nl != nullptr) j.breaks.push_back(p.base + static_cast<std::uint64_t>(static_cast<const char*>(nl) - w.data()));
        continue;  // else its line ends at f, or past b
      }
      if (s >= b || s <= end) continue;  // the line end is found, or lies past b
      end = next_break(s);
      if (end >= b) continue;
      if (settle && end < settle_below) {  // s > f: its line begins and ends in [a, b)
        ++settled;
        settled_to = end;
      } else {
        j.breaks.push_back(p.base + end);
      }
    }
    if (settled != 0) {
      const auto lies_whole = [&](const hit& h) { return h.start > f && h.start <= settled_to; };
      j.hits.erase(std::remove_if(j.hits.begin() + static_cast<std::ptrdiff_t>(from), j.hits.end(), lies_whole),
                   j.hits.end());
      tally.settled += settled;
    }
    if (counts_breaks_ && a < b) {
      const std::uint64_t count = detail::count_byte(w.data() + a, b - a, '\n');
      if (count != 0) {
        tally.count += count;
        tally.last =
            p.base + static_cast<std::uint64_t>(static_cast<const char*>(memrchr(w.data() + a, '\n', b - a)) - w.data());
      }
    }
  }

  /// The piece's breaks, found from j.breaks[first] on by its steps over [a, b), and its tally,
  /// as line_breaks() takes them.
  void end_breaks(job& j, const piece& p, std::size_t first, std::size_t a, std::size_t b,
                  const line_tally& tally) const {
    std::sort(j.breaks.begin() + static_cast<std::ptrdiff_t>(first), j.breaks.end());
    j.breaks.erase(std::unique(j.breaks.begin() + static_cast<std::ptrdiff_t>(first), j.breaks.end()), j.breaks.end());
    j.breaks_end.push_back(static_cast<std::uint32_t>(j.breaks.size()));
    std::uint64_t last = tally.last;
    if (!counts_breaks_) {  // the last '\n' where it ends the piece (the text's end)
      const std::string_view w = j.c->window(p);
      b = std::min(w.size(), b);
      if (std::min(w.size(), a) < b && w[b - 1] == '\n') last = p.base + b - 1;
    }
    j.breaks_count.push_back(tally.count);
    j.breaks_last.push_back(last);
    j.breaks_settled.push_back(tally.settled);
  }

  /// The serial stage: records begun and ended, cluster pieces merged, hits to the sink.
  void deliver(job& j) {
    if (stop_.load(std::memory_order_relaxed)) {
      give_vector(std::move(j.hits));
      return;
    }
    if (memory_input_ && j.split) taken(j.own_end - std::min<std::uint64_t>(j.own_end, consumed_));
    try {
      std::vector<hit> one;
      for (std::uint32_t i = j.first; i < j.end; ++i) {
        const piece& p = j.c->pieces[i];
        if (p.first && j.piece_first) {
          ++records_;
          if (parser_ && parser_->detected() != io::format::automatic) format_ = parser_->detected();
          record_info info{j.c->names[p.name], p.record, format_, {}, {}};
          if (wants_heads_ && p.name < j.c->headers.size()) {
            info.header = j.c->headers[p.name];
            info.quality = j.c->qualities[p.name];
          }
          sink_.begin_record(info);
          const std::uint64_t left = o_.max_hits == 0 ? 0 : o_.max_hits - delivered_;
          od_.emplace(m_.key(), left, deliver_cb_);
          text_end_ = owned_end_ = 0;
        }
        const bool ends_record = p.last && j.piece_last;
        const std::size_t own_end = j.split ? j.own_end : p.own_end;
        owned_end_ = std::max<std::uint64_t>(owned_end_, p.base + own_end);
        if (wants_text_) {
          const std::uint64_t upto = p.base + (ends_record ? p.len : std::min(p.len, own_end + m_.lookahead()));
          if (upto > text_end_)
            sink_.text(text_end_, j.c->window(p).substr(text_end_ - p.base, upto - text_end_), j.c->owned.empty());
          text_end_ = std::max(text_end_, upto);
        }
        if (wants_breaks_) {
          const std::size_t k = i - j.first;
          const std::uint32_t bf = k == 0 ? 0 : j.breaks_end[k - 1];
          sink_.line_breaks(std::span<const std::uint64_t>(j.breaks.data() + bf, j.breaks_end[k] - bf), j.breaks_count[k],
                            j.breaks_last[k], j.breaks_settled[k]);
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
        if (wants_text_ || wants_breaks_) {
          const std::uint64_t own = p.base + own_end;
          const std::uint64_t bound = later_starts_from(own);
          sink_.floor(std::min(bound, od_->lowest_start()));
        }
        if (ends_record) {
          if (!od_->finish()) stop();
          sink_.end_record(p.base + p.len);
          if (sink_.done()) stop();
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
  /// parse_in_parts' and a .2bit's decode's threads: an arena of their own, so that the search's
  /// arena keeps one thread per scan in flight and the parts never wait on a thread held by a scan.
  std::optional<tbb::task_arena> parse_arena_;
  bool one_id_ = false, wants_text_ = false, wants_heads_ = false, wants_breaks_ = false, counts_breaks_ = false;
  bool settles_lines_ = false;
  bool steps_lines_ = false;  ///< scan: slices scanned in kLineStep steps for their line breaks
  std::function<void(std::uint64_t)> progress_;  ///< stream_options::progress
  std::uint64_t consumed_ = 0;                   ///< input bytes taken in so far
  bool memory_input_ = false;                    ///< run_memory: its progress is told as it is delivered
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
  std::unique_ptr<io::twobit_file> twobit_;  ///< a .2bit input (run_twobit)
  std::unique_ptr<twobit_planner> twobit_plan_;  ///< its pieces
  std::deque<std::shared_ptr<twobit_piece>> twobit_ahead_;  ///< planned, offered to the workers, not yet handed on
  std::string_view mapped_;
  std::deque<std::shared_ptr<job>> jobs_;
  bool input_done_ = false;
  std::exception_ptr input_error_;
  io::format format_ = io::format::plain;
  // delivery stage
  std::optional<hits::ordered_delivery> od_;
  std::uint64_t delivered_ = 0, records_ = 0, text_end_ = 0;
  std::uint64_t owned_end_ = 0;  ///< the end of the current record's bytes delivered so far
  const char* pieces_begin_ = nullptr;  ///< a mapped FASTA's first record: a line start
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
