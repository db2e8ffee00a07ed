// mpi.cpp — trawl under mpirun / srun: see mpi.hpp.
//
// Messages (a private duplicate of MPI_COMM_WORLD): rank 0 sends a worker a scan as a header
// with the tag of the slot it fills (slots: one per thread of each rank), followed for a slice
// sent by value by its bytes; the worker answers on the same tag with a status word and the
// hits (or an error line). Control messages (end of a search, end of the job with its status)
// use their own tag. Rank 0's scheduler threads call MPI concurrently
// (MPI_THREAD_MULTIPLE); a worker receives on its main thread and answers from its tasks.
#include "mpi.hpp"

#include <fcntl.h>
#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <tuple>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "trawl/hit.hpp"

#ifdef TRAWL_HAVE_MPI
#include <mpi.h>
#endif

namespace trawl::cli::mpi {

bool started_by_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

#ifndef TRAWL_HAVE_MPI

session::session(int&, char**& argv) {
#ifdef TRAWL_MPI_PROGRAM
  // the MPI build beside this executable takes over, with the same arguments
  if (!started_by_launcher()) return;
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string program = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  program = program.substr(0, program.rfind('/') + 1) + TRAWL_MPI_PROGRAM;
  ::execv(program.c_str(), argv);
  std::fprintf(stderr, "trawl: started by an MPI launcher, but %s (trawl's MPI build) cannot run: %s\n", program.c_str(),
               std::strerror(errno));
  std::exit(2);
#else
  (void)argv;
#endif
}
session::~session() = default;
int session::finish(int status) { return status; }
void keep_error(const std::string& line) { std::fprintf(stderr, "%s\n", line.c_str()); }
bool launched() { return false; }
bool active() { return false; }
int rank() { return 0; }
int size() { return 1; }
stream_result search(const matcher& m, io::source& input, const search_options& options,
                     const stream_options& stream, search_sink& sink, bool) {
  return search_input(m, input, options, stream, sink);
}
std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const index::locate_options& options) {
  return idx.search_records(patterns, options);
}
std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const search_options& search, const gpu::gpu_options& gpu) {
  return idx.search_records(patterns, search, gpu);
}
std::vector<std::uint64_t> count_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                         const index::locate_options& options) {
  return idx.count_records(patterns, options);
}

#else

namespace {

static_assert(std::is_trivially_copyable_v<hit>, "hits travel as bytes");

constexpr int ctrl_tag = 32000;     // above every slot's tag
constexpr int threads_tag = 32001;  // a worker's thread count, at the start of each search
constexpr int records_tag = 32002;  // a worker's index hits
enum : std::uint64_t { msg_scan_value = 1, msg_scan_file = 2, msg_search_done = 3, msg_finish = 4, msg_scan_lines = 5 };

/// A scan request: what the worker needs besides the bytes.
struct request {
  std::uint64_t kind = 0;
  std::uint64_t base = 0;       // by value and lines: sequence offset of the window's first byte; by file: file offset of seq
  std::uint64_t seq_size = 0;   // the window's bytes (by value: all sent; by lines: `sent` sent, the rest read)
  std::uint64_t own_begin = 0;  // in window coordinates
  std::uint64_t own_end = 0;
  std::uint64_t file_size = 0;  // by file and lines: the mapped file's size (a check that both ranks see one file)
  // by lines: the window's first `sent` bytes travel as bytes, the rest are FASTA sequence bytes
  // from line_seq on of the lines of `width` bytes that begin at file offset line_file
  std::uint64_t sent = 0;
  std::uint64_t line_file = 0;
  std::uint64_t line_seq = 0;
  std::uint64_t width = 0;
};

/// Appends `n` sequence bytes from `s` on of the FASTA lines of `width` bytes that begin at
/// `at` in `file` (see detail::window_origin); false when the file does not hold them so.
bool read_lines(std::string_view file, std::uint64_t at, std::uint64_t width, std::uint64_t s, std::uint64_t n,
                std::string& out) {
  if (width == 0) return false;
  while (n > 0) {
    const std::uint64_t col = s % width, take = std::min(n, width - col);
    const std::uint64_t from = at + s / width * (width + 1) + col;
    if (from > file.size() || take > file.size() - from) return false;
    if (col + take == width && from + take < file.size() && file[from + take] != '\n') return false;
    out.append(file.substr(from, take));
    s += take;
    n -= take;
  }
  return true;
}

struct state {
  bool on = false;
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  bool finished = false;  // MPI_Finalize done
  std::string error;      // a worker's own error line (keep_error)
  int err = 2;            // a worker's real stderr (its fd 2 is /dev/null)
} g;

[[noreturn]] void abort_job(const std::string& what) {
  if (!g.error.empty()) dprintf(g.err, "%s (rank %d)\n", g.error.c_str(), g.rank);
  dprintf(g.err, "trawl: rank %d: %s\n", g.rank, what.c_str());
  MPI_Abort(g.comm, 2);
  std::_Exit(2);
}

/// The next message from `source` with `tag` (or any), matched for MPI_Mrecv. MPI's blocking
/// calls spin a core while they wait, which would take it from this rank's scans (a launcher
/// binds a rank to its cores): this polls, sleeping between tries.
MPI_Message wait_message(int source, int tag, MPI_Status& st) {
  for (int tries = 0;; ++tries) {
    int flag = 0;
    MPI_Message msg;
    MPI_Improbe(source, tag, g.comm, &flag, &msg, &st);
    if (flag) return msg;
    // a scan takes milliseconds: after a quick first look, the sleeps grow to 1 ms, so that
    // many waiting threads cost little
    if (tries > 32) std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 10 * (tries - 32))));
  }
}

/// This rank's worker threads: -j, else its share of the host's cores among the ranks there.
unsigned rank_threads(const search_options& o) {
  if (o.threads != 0) return o.threads;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof set, &set) == 0 && static_cast<unsigned>(CPU_COUNT(&set)) < cores)
    return static_cast<unsigned>(CPU_COUNT(&set));  // the launcher bound this rank to these cores
  const char* local = std::getenv("OMPI_COMM_WORLD_LOCAL_SIZE");
  const unsigned per_host = local != nullptr ? static_cast<unsigned>(std::max(1, std::atoi(local))) : 1u;
  return std::max(1u, cores / per_host);
}

/// Rank 0's engine: each scan fills a free slot, local (scanned here) or on a worker.
class pool_matcher final : public detail::engine_wrapper {
 public:
  pool_matcher(const detail::engine& local, unsigned local_slots, const std::vector<int>& remote_threads,
               std::string_view file)
      : engine_wrapper(local), file_(file) {
    for (unsigned s = 0; s < local_slots; ++s) free_.push_back({0, 0});
    int tag = 0;
    // Slices of a stream travel as bytes: two slots per remote thread, so that its next slice
    // is there when it finishes one. A file's travel as coordinates, and a second slice queued
    // on a worker would only wait there while another thread, at the end of the input, has
    // nothing to do: one slot each.
    const int per_thread = file.empty() ? 2 : 1;
    for (std::size_t r = 1; r < remote_threads.size(); ++r)
      for (int s = 0; s < per_thread * remote_threads[r]; ++s) free_.push_back({static_cast<int>(r), tag++});
    if (tag >= ctrl_tag) throw error(errc::invalid_argument, "MPI: too many worker threads (at most 32000 in all)");
  }
  [[nodiscard]] std::size_t slots() const { return free_.size(); }
  struct counts {
    std::uint64_t remote = 0, by_file = 0, bytes_sent = 0;
  };
  /// What went to the other ranks so far (--verbose).
  [[nodiscard]] counts traffic() const {
    return {remote_.load(), by_file_.load(), bytes_sent_.load()};
  }
  [[nodiscard]] bool uses_origin() const override { return !file_.empty(); }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& open) const override {
    scan_from({}, seq, own_begin, own_end, out, open);
  }

  /// A FASTA window whose lines are of one width travels as the bytes before its origin (the
  /// carried context) and the coordinates of the rest.
  void scan_from(const detail::window_origin& origin, std::string_view seq, std::size_t own_begin,
                 std::size_t own_end, std::vector<hit>& out, std::vector<detail::open_mark>& open) const override {
    const slot s = acquire();
    struct give_back {
      const pool_matcher& p;
      slot s;
      ~give_back() { p.release(s); }
    } back{*this, s};
    if (s.rank == 0) return inner().scan(seq, own_begin, own_end, out, open);
    request q;
    q.own_begin = own_begin;
    q.own_end = own_end;
    const char* send = nullptr;
    std::uint64_t shift = 0;  // added to the worker's hit coordinates
    if (!file_.empty() && seq.data() >= file_.data() && seq.data() + seq.size() <= file_.data() + file_.size()) {
      q.kind = msg_scan_file;  // the worker reads the same bytes from its own mapping
      q.base = static_cast<std::uint64_t>(seq.data() - file_.data());
      q.seq_size = seq.size();
      q.file_size = file_.size();
    } else {
      // the bytes the scan may read, in the worker's coordinates
      const std::size_t lo = own_begin - std::min(own_begin, lookbehind());
      const std::size_t hi = std::min(seq.size(), own_end + lookahead());
      q.kind = msg_scan_value;
      q.seq_size = hi - lo;
      q.sent = hi - lo;
      if (origin.width != 0 && hi > origin.from) {
        const std::size_t cut = std::max(lo, origin.from);
        q.kind = msg_scan_lines;
        q.sent = cut - lo;
        q.file_size = file_.size();
        q.line_file = origin.file_offset;
        q.line_seq = origin.seq_offset + (cut - origin.from);
        q.width = origin.width;
      }
      // an MPI message counts its bytes in an int: a window past 1 GiB (--chunk-size) is
      // scanned here
      if (q.sent > (std::size_t{1} << 30)) return inner().scan(seq, own_begin, own_end, out, open);
      q.base = lo;
      q.own_begin -= lo;
      q.own_end -= lo;
      send = seq.data() + lo;
      shift = lo;
    }
    remote_.fetch_add(1, std::memory_order_relaxed);
    if (q.kind != msg_scan_value) by_file_.fetch_add(1, std::memory_order_relaxed);
    if (send != nullptr) bytes_sent_.fetch_add(q.sent, std::memory_order_relaxed);
    MPI_Send(&q, sizeof q, MPI_BYTE, s.rank, s.tag, g.comm);
    if (send != nullptr) MPI_Send(send, static_cast<int>(q.sent), MPI_BYTE, s.rank, s.tag, g.comm);
    MPI_Status st;
    MPI_Message msg = wait_message(s.rank, s.tag, st);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::vector<char> reply(static_cast<std::size_t>(bytes));
    MPI_Mrecv(reply.data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    if (reply.empty() || reply[0] != 0)
      throw error(errc::io_error, "MPI: rank " + std::to_string(s.rank) + ": " +
                                      (reply.empty() ? std::string("empty reply") : std::string(reply.begin() + 1, reply.end())));
    // the reply: status byte, 3 bytes, the number of marks (uint32), the marks, the hits
    std::uint32_t marks = 0;
    std::memcpy(&marks, reply.data() + 4, 4);
    const std::size_t at = out.size(), hits_at = 8 + std::size_t{marks} * sizeof(detail::open_mark);
    for (std::uint32_t i = 0; i < marks; ++i) {
      detail::open_mark mk;
      std::memcpy(static_cast<void*>(&mk), reply.data() + 8 + i * sizeof mk, sizeof mk);
      open.push_back({at + mk.index, mk.sides});
    }
    const std::size_t n = (reply.size() - hits_at) / sizeof(hit);
    out.resize(at + n);
    std::memcpy(static_cast<void*>(out.data() + at), reply.data() + hits_at, n * sizeof(hit));
    for (std::size_t i = at; i < out.size(); ++i) out[i].start += shift, out[i].end += shift;
  }

 private:
  struct slot {
    int rank, tag;
  };
  slot acquire() const {
    std::unique_lock lock(mu_);
    cv_.wait(lock, [&] { return !free_.empty(); });
    const slot s = free_.back();
    free_.pop_back();
    return s;
  }
  void release(slot s) const {
    {
      std::lock_guard lock(mu_);
      free_.push_back(s);
    }
    cv_.notify_one();
  }

  std::string_view file_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable std::vector<slot> free_;
  mutable std::atomic<std::uint64_t> remote_{0}, by_file_{0}, bytes_sent_{0};
};

/// A worker's side of one search: scans until rank 0 ends the search (or the job), on a pool
/// of its own threads (oneTBB's workers may be limited to none when the launcher binds the
/// rank to one core) while this thread receives.
void serve(const detail::engine& m, io::source& input, unsigned threads) {
  const std::string_view file = input.is_mapped() ? input.mapped() : std::string_view();
  struct work {
    request q;
    int tag = 0;
    std::string bytes;
  };
  std::mutex mu, send_mu;  // send_mu: one reply at a time
  std::condition_variable cv;
  std::deque<work> queue;
  bool closing = false;
  auto scan_one = [&](work& w) {
    std::string reply(8, '\0');
    try {
      if (w.q.kind == msg_scan_lines &&
          !read_lines(file, w.q.line_file, w.q.width, w.q.line_seq, w.q.seq_size - w.q.sent, w.bytes))
        throw error(errc::io_error, "MPI: the input's lines differ from rank 0's (a shared file system is needed)");
      const std::string_view seq = w.q.kind != msg_scan_file ? std::string_view(w.bytes) : file.substr(w.q.base, w.q.seq_size);
      std::vector<hit> hits;
      std::vector<detail::open_mark> open;
      m.scan(seq, w.q.own_begin, w.q.own_end, hits, open);
      const auto marks = static_cast<std::uint32_t>(open.size());
      std::memcpy(reply.data() + 4, &marks, 4);
      reply.append(reinterpret_cast<const char*>(open.data()), open.size() * sizeof(detail::open_mark));
      reply.append(reinterpret_cast<const char*>(hits.data()), hits.size() * sizeof(hit));
    } catch (const std::exception& e) {
      reply = std::string(1, '\1') + e.what();
    }
    std::lock_guard lock(send_mu);
    MPI_Send(reply.data(), static_cast<int>(reply.size()), MPI_BYTE, 0, w.tag, g.comm);
  };
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t)
    pool.emplace_back([&] {
      for (;;) {
        work w;
        {
          std::unique_lock lock(mu);
          cv.wait(lock, [&] { return closing || !queue.empty(); });
          if (queue.empty()) return;
          w = std::move(queue.front());
          queue.pop_front();
        }
        scan_one(w);
      }
    });
  auto stop = [&] {
    {
      std::lock_guard lock(mu);
      closing = true;
    }
    cv.notify_all();
    for (auto& t : pool) t.join();
  };
  for (;;) {
    work w;
    MPI_Status st;
    MPI_Message msg = wait_message(0, MPI_ANY_TAG, st);
    MPI_Mrecv(&w.q, sizeof w.q, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == ctrl_tag) {
      stop();
      if (w.q.kind == msg_search_done) return;
      MPI_Finalize();  // msg_finish: rank 0 ended the job (it failed before this search ended)
      std::_Exit(static_cast<int>(w.q.base));
    }
    w.tag = st.MPI_TAG;
    if (w.q.kind == msg_scan_value || w.q.kind == msg_scan_lines) {
      if (w.q.kind == msg_scan_lines && (file.size() != w.q.file_size || w.q.sent > w.q.seq_size))
        abort_job("the input differs from rank 0's (a shared file system is needed)");
      w.bytes.resize(w.q.sent);
      if (w.q.kind == msg_scan_lines) w.bytes.reserve(w.q.seq_size);
      MPI_Recv(w.bytes.data(), static_cast<int>(w.q.sent), MPI_BYTE, 0, w.tag, g.comm, MPI_STATUS_IGNORE);
    } else if (w.q.kind != msg_scan_file || file.size() != w.q.file_size || w.q.base + w.q.seq_size > file.size()) {
      abort_job("the input differs from rank 0's (a shared file system is needed)");
    }
    {
      std::lock_guard lock(mu);
      queue.push_back(std::move(w));
    }
    cv.notify_one();
  }
}

}  // namespace

session::session(int& argc, char**& argv) {
  if (!started_by_launcher()) return;
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_dup(MPI_COMM_WORLD, &g.comm);
  MPI_Comm_rank(g.comm, &g.rank);
  MPI_Comm_size(g.comm, &g.size);
  g.on = true;
  if (provided < MPI_THREAD_MULTIPLE) abort_job("this MPI library does not allow MPI calls from several threads");
  if (g.rank != 0) {  // rank 0 prints the output and the errors that every rank meets
    const int null = ::open("/dev/null", O_WRONLY);
    g.err = ::dup(2);
    if (null >= 0) ::dup2(null, 1), ::dup2(null, 2);
  }
}

session::~session() {
  if (g.on && !g.finished) MPI_Finalize();
}

int session::finish(int status) {
  if (!g.on) return status;
  if (g.rank == 0) {
    request q;
    q.kind = msg_finish;
    q.base = static_cast<std::uint64_t>(status);
    for (int r = 1; r < g.size; ++r) MPI_Send(&q, sizeof q, MPI_BYTE, r, ctrl_tag, g.comm);
  } else {
    request q;
    MPI_Status st;
    MPI_Recv(&q, sizeof q, MPI_BYTE, 0, MPI_ANY_TAG, g.comm, &st);
    if (st.MPI_TAG != ctrl_tag || q.kind != msg_finish)
      abort_job(status == 2 ? "failed where rank 0 did not (see its message above)"
                            : "out of step with rank 0 (a different command or input?)");
    if (status != 2 || q.base == 2) status = static_cast<int>(q.base);
  }
  g.finished = true;
  MPI_Finalize();
  return status;
}

void keep_error(const std::string& line) { g.error = line; }
bool launched() { return g.on; }
bool active() { return g.on && g.size > 1; }
int rank() { return g.rank; }
int size() { return g.size; }

stream_result search(const matcher& m, io::source& input, const search_options& options, const stream_options& stream,
                     search_sink& sink, bool verbose) {
  if (!active()) return search_input(m, input, options, stream, sink);
  int threads = static_cast<int>(rank_threads(options));
  std::vector<int> all(static_cast<std::size_t>(g.size), threads);
  if (g.rank != 0) MPI_Send(&threads, 1, MPI_INT, 0, threads_tag, g.comm);
  else
    for (int r = 1; r < g.size; ++r) MPI_Recv(&all[static_cast<std::size_t>(r)], 1, MPI_INT, r, threads_tag, g.comm, MPI_STATUS_IGNORE);
  if (g.rank != 0) {
    serve(m.engine(), input, static_cast<unsigned>(threads));
    return {};
  }
  search_options o = options;
  o.threads = static_cast<unsigned>(threads);
  if (o.slice_size != 0) o.slice_size = std::max<std::size_t>(o.slice_size / static_cast<std::size_t>(g.size), 1u << 16);
  const matcher pool(std::make_unique<pool_matcher>(m.engine(), static_cast<unsigned>(threads), all,
                                                    input.is_mapped() ? input.mapped() : std::string_view()));
  const auto& slots = static_cast<const pool_matcher&>(pool.engine());
  stream_options so = stream;
  so.scans_in_flight = static_cast<unsigned>(slots.slots());
  if (verbose) {
    int remote = 0;
    for (int r = 1; r < g.size; ++r) remote += all[static_cast<std::size_t>(r)];
    std::fprintf(stderr,
                 "trawl: %s: split by text over %d MPI ranks: slices scanned on %d threads here and %d on the "
                 "other ranks (%zu slots), every rank holding every pattern; slices of %s\n",
                 input.name().c_str(), g.size, threads, remote, slots.slots(),
                 input.is_mapped() ? "this file travel as coordinates (a FASTA file's where its lines are of one width)"
                                     : "this stream travel as bytes");
  }
  struct end_search {
    ~end_search() {
      request q;
      q.kind = msg_search_done;
      for (int r = 1; r < g.size; ++r) MPI_Send(&q, sizeof q, MPI_BYTE, r, ctrl_tag, g.comm);
    }
  } done;
  stream_result r = search_input(pool, input, o, so, sink);
  if (verbose) {
    const auto t = slots.traffic();
    std::fprintf(stderr, "trawl: %s: MPI: %llu slices scanned on other ranks, %llu of them read there from the file; %.1f MiB of sequence sent\n",
                 input.name().c_str(), static_cast<unsigned long long>(t.remote), static_cast<unsigned long long>(t.by_file),
                 static_cast<double>(t.bytes_sent) / (1 << 20));
  }
  return r;
}

namespace {

/// The patterns dealt round robin over the ranks, each rank's hits by `run`, gathered on rank 0
/// and sorted by `before`.
template <class Run, class Less>
std::vector<index::record_hit> deal_patterns(const std::vector<std::string>& patterns, Run&& run, Less&& before) {
  static_assert(std::is_trivially_copyable_v<index::record_hit>, "index hits travel as bytes");
  std::vector<std::string> mine;
  std::vector<std::uint32_t> global;  // pattern number of each of mine
  for (std::size_t i = static_cast<std::size_t>(g.rank); i < patterns.size(); i += static_cast<std::size_t>(g.size)) {
    mine.push_back(patterns[i]);
    global.push_back(static_cast<std::uint32_t>(i));
  }
  std::vector<index::record_hit> hits = mine.empty() ? std::vector<index::record_hit>() : run(mine);
  for (auto& h : hits) h.h.pattern = global[h.h.pattern];
  if (g.rank != 0) {
    MPI_Send(hits.data(), static_cast<int>(hits.size() * sizeof(index::record_hit)), MPI_BYTE, 0, records_tag, g.comm);
    return {};
  }
  for (int r = 1; r < g.size; ++r) {
    MPI_Status st;
    MPI_Message msg = wait_message(r, records_tag, st);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    const std::size_t at = hits.size(), n = static_cast<std::size_t>(bytes) / sizeof(index::record_hit);
    hits.resize(at + n);
    MPI_Mrecv(static_cast<void*>(hits.data() + at), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
  }
  std::sort(hits.begin(), hits.end(), before);
  return hits;
}

}  // namespace

std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const index::locate_options& options) {
  if (!active()) return idx.search_records(patterns, options);
  return deal_patterns(
      patterns, [&](const std::vector<std::string>& mine) { return idx.search_records(mine, options); },
      index::record_hit_order{hit_order{hit_key::start}});
}

std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const search_options& search, const gpu::gpu_options& gpu) {
  if (!active()) return idx.search_records(patterns, search, gpu);
  return deal_patterns(
      patterns, [&](const std::vector<std::string>& mine) { return idx.search_records(mine, search, gpu); },
      index::record_hit_order{hit_order::of(search.max_errors > 0 || search.all_ends)});
}

std::vector<std::uint64_t> count_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                         const index::locate_options& options) {
  if (!active()) return idx.count_records(patterns, options);
  const auto step = static_cast<std::size_t>(g.size);
  std::vector<std::string> mine;
  for (std::size_t i = static_cast<std::size_t>(g.rank); i < patterns.size(); i += step) mine.push_back(patterns[i]);
  const std::vector<std::uint64_t> counts = mine.empty() ? std::vector<std::uint64_t>() : idx.count_records(mine, options);
  if (g.rank != 0) {
    MPI_Send(counts.data(), static_cast<int>(counts.size() * sizeof(std::uint64_t)), MPI_BYTE, 0, records_tag, g.comm);
    return {};
  }
  std::vector<std::uint64_t> out(patterns.size(), 0);
  for (std::size_t k = 0; k < counts.size(); ++k) out[k * step] = counts[k];
  for (int r = 1; r < g.size; ++r) {
    MPI_Status st;
    MPI_Message msg = wait_message(r, records_tag, st);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::vector<std::uint64_t> theirs(static_cast<std::size_t>(bytes) / sizeof(std::uint64_t));
    MPI_Mrecv(static_cast<void*>(theirs.data()), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    for (std::size_t k = 0; k < theirs.size() && static_cast<std::size_t>(r) + k * step < out.size(); ++k)
      out[static_cast<std::size_t>(r) + k * step] = theirs[k];
  }
  return out;
}

#endif

}  // namespace trawl::cli::mpi
