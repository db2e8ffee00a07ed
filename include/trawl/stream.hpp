// trawl/stream.hpp — searching an input as it arrives: files, pipes, gzip and zstd streams,
// FASTA/FASTQ records, in bounded memory.
//
// The input is cut into chunks (a mapped file is not copied; a stream is read into chunks of
// stream_options::chunk_size new bytes), each carrying the record bytes a matcher needs before
// and after its owned positions. Chunks are cut into slices for the worker threads, and hits
// reach the sink in input order: by record, then as search_sequence orders them. The output is
// the same for every chunk size, slice size and thread count.
//
// Memory: the chunks in flight (about 2 per worker thread at most, each chunk_size plus the
// matcher's context) and the blocks read ahead (4 of 1 MiB); the hits of the slices in flight.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "trawl/hit.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"

namespace trawl {

/// One record of an input as a sink sees it begin.
struct record_info {
  std::string_view name;  ///< record id (FASTA/FASTQ), or the input's name (plain input)
  std::uint64_t index = 0;  ///< 0-based record number within the input
  io::format format = io::format::plain;  ///< the input's format, as detected
  /// Only for a sink whose wants_heads() is true, else empty: the record's whole header line
  /// (after '>' or '@', without its line break) and, for FASTQ, its qualities.
  std::string_view header;
  std::string_view quality;
};

/// Receives the results of a stream search, on one thread at a time, in input order.
class search_sink {
 public:
  virtual ~search_sink() = default;
  virtual void begin_record(const record_info& record) = 0;
  /// True when the sink reads the searched bytes: text() is then called.
  [[nodiscard]] virtual bool wants_text() const { return false; }
  /// True when the sink reads record_info::header and ::quality (FASTQ): they are then kept
  /// for it (for FASTQ as many bytes again as the sequence).
  [[nodiscard]] virtual bool wants_heads() const { return false; }
  /// The next bytes of the current record, starting at record position `pos`: every byte once,
  /// in order. Hits are handed over only after the bytes they cover. `stable`: the bytes stay
  /// where they are until the search returns (a mapped input), so a sink may keep a view of
  /// them instead of a copy; otherwise they stay valid until the sink's next call of floor(),
  /// end_record() or text() returns (the driver calls floor() after their hits), so a sink
  /// may copy only the bytes it still needs then.
  virtual void text(std::uint64_t pos, std::string_view bytes, bool stable) { (void)pos, (void)bytes, (void)stable; }
  /// Hits of the current record in text order. Return false to stop the search.
  virtual bool hits(std::span<const hit> hits) = 0;
  /// True when the sink counts lines without reading the text: line_breaks() is then called,
  /// with what the workers found of the '\n' bytes. counts_line_breaks(): it also needs them
  /// counted (grep -v -c).
  [[nodiscard]] virtual bool wants_line_breaks() const { return false; }
  [[nodiscard]] virtual bool counts_line_breaks() const { return false; }
  /// With wants_line_breaks(): true when the sink needs of each line only whether a hit starts
  /// on it (grep -c, -l, -L, -q). The workers then count the lines with a hit that lie whole
  /// in their bytes themselves, and hand over neither those lines' hits nor their ends.
  [[nodiscard]] virtual bool settles_lines() const { return false; }
  /// The next bytes of the current record (each byte once, in order; before the hits that
  /// end in them): `ends`, sorted, holds the first '\n' among them and, for each of their hits,
  /// the first '\n' at or after its start, up to their end (for a hit that starts before them
  /// it may lie before them), and may hold other '\n' positions of them; with
  /// counts_line_breaks(), `count` is their '\n' bytes and `last` the last one's position (~0:
  /// none); with settles_lines(), `settled` is the lines with a hit that lie whole in them,
  /// after their first '\n' (their hits are left out).
  virtual void line_breaks(std::span<const std::uint64_t> ends, std::uint64_t count, std::uint64_t last,
                           std::uint64_t settled) {
    (void)ends, (void)count, (void)last, (void)settled;
  }
  /// No hit of the current record handed over from now on starts before `pos`.
  virtual void floor(std::uint64_t pos) { (void)pos; }
  /// The current record ended; `length` is its sequence length.
  virtual void end_record(std::uint64_t length) = 0;
  /// The input paused (no byte for stream_options::idle_ms): every hit of the bytes read so
  /// far has been handed over. A sink that writes to a pipe or terminal flushes now.
  virtual void idle() {}
  /// True when the sink wants nothing more, asked after each end_record(): the search then
  /// stops as when hits() returns false (a sink that hands each record's hits on at its end
  /// learns there that its caller wants no more).
  [[nodiscard]] virtual bool done() const { return false; }
};

/// How an input is read and cut.
struct stream_options {
  io::format format = io::format::automatic;  ///< automatic: detected from the first bytes
  std::size_t chunk_size = 0;  ///< new bytes per chunk; 0 = automatic (4 MiB); 1 works
  int idle_ms = 50;            ///< a stream that pauses this long has its bytes so far searched
  /// Slices scanned at once; 0 = the search's threads. A matcher whose scans mostly wait on
  /// work done elsewhere (other processes, devices) can ask for more: the search then runs
  /// this many workers, most of them waiting, on the threads' cores.
  unsigned scans_in_flight = 0;
  /// Threads that parse a mapped FASTA file; 0 = the search's threads. A matcher whose few
  /// scans are long (a GPU's) leaves the other cores to the parse: it then runs on this many.
  unsigned parse_threads = 0;
  /// Told, on the search's input thread, how many bytes of the input (decompressed) it has
  /// taken in so far, as it goes (a front end's progress line; it may run ahead of the scans by
  /// the chunks in flight). Empty: nothing is told.
  std::function<void(std::uint64_t bytes)> progress;
};

/// What a stream search did.
struct stream_result {
  std::uint64_t hits = 0;     ///< hits handed to the sink
  std::uint64_t records = 0;  ///< records begun
  bool stopped = false;       ///< the sink or options.max_hits ended it early
  io::format format = io::format::plain;
  device_spec device = device_kind::cpu;  ///< where the scans ran (matcher::device)
};

/// Where and how a search of `patterns` pattern(s) over `input` runs: what choose_device picks
/// for options.device and about input.expected_size() bytes, and the options to run it with.
struct search_plan {
  device_kind device = device_kind::cpu;  ///< cpu or gpu
  /// On the GPU the device streams each slice in its own chunks: one slice per GPU worker of a
  /// mapped input (or one stream chunk), and one thread per worker and one more, so the next
  /// chunk is read while the devices search. On the CPU: `options` as given.
  search_options options;
  stream_options stream;  ///< on the GPU, chunks of 256 MiB unless chunk_size is set
};

/// The plan for searching `input` (on the GPU, one worker per GPU of options.device.workers()).
/// The plan's options keep options.device whole. Throws trawl::error(no_device) as choose_device.
search_plan plan_search(const search_options& options, std::size_t patterns, const io::source& input,
                        const stream_options& stream);
/// The same, the device chosen with the patterns themselves (choose_device): for a search
/// whose CPU matcher is make_matcher's.
search_plan plan_search(const search_options& options, const std::vector<std::string>& patterns,
                        const io::source& input, const stream_options& stream);

/// What run_search does besides the default at each step: all optional.
struct run_steps {
  /// The CPU's matcher, compiled once for several inputs; null: make_matcher(patterns, plan).
  const matcher* cpu = nullptr;
  /// The GPU's matcher for the planned options (e.g. offtarget's site scan); empty:
  /// gpu::make_matcher(patterns, planned options).
  std::function<std::unique_ptr<matcher>(const search_options& planned)> make_gpu;
  /// Told the plan before the search starts (the CLI's --verbose line).
  std::function<void(const search_plan&)> planned;
};

/// The one entry that plans, builds and runs a search of one input, used by every front end:
/// plan_search picks the device for `input` (options.device, carried whole to the engine),
/// the matcher of that device is made (or `steps.cpu` taken), and the search runs. The
/// result's device is the matcher's: the GPUs whose workers ran it.
stream_result run_search(const std::vector<std::string>& patterns, io::source& input, const search_options& options,
                         const stream_options& stream, search_sink& sink, const run_steps& steps = {});

/// Searches `input` with `m` on options.threads workers (options.max_hits: per input) and
/// hands records and hits to `sink` in input order. A stream is read on a thread of its own
/// while the workers search. Stops reading when the sink returns false. Throws trawl::error
/// on a read error or malformed data, after handing over the hits of the bytes before it.
stream_result search_input(const matcher& m, io::source& input, const search_options& options,
                           const stream_options& stream, search_sink& sink);

}  // namespace trawl
