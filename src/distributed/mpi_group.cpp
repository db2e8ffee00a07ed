// mpi_group.cpp — see mpi_group.hpp.
#include "distributed/mpi_group.hpp"

#include <mpi.h>
#include <sched.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "trawl/detail/engine.hpp"
#include "trawl/error.hpp"
#include "trawl/hit.hpp"

namespace trawl::distributed {

namespace {

static_assert(std::is_trivially_copyable_v<hit>, "hits travel as bytes");

constexpr int ctrl_tag = 32000;    // above every slot's tag
constexpr int hello_tag = 32001;   // a rank's hello at the start of each step
constexpr int gather_tag = 32002;  // a rank's share of a gather
enum : std::uint64_t { msg_scan_value = 1, msg_scan_file = 2, msg_search_done = 3, msg_finish = 4, msg_scan_lines = 5 };
enum : std::uint64_t { step_search = 1, step_gather = 2, step_finish = 3 };

const char* step_name(std::uint64_t step) {
  return step == step_search ? "a search" : step == step_gather ? "an index query" : step == step_finish ? "the end" : "?";
}

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

/// A rank's hello, followed in the same message by its last error line.
struct hello {
  std::uint64_t step = 0;
  std::uint64_t errors = 0;
  std::uint64_t threads = 0;
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

/// "trawl: rank R: what" from a rank's error line "trawl: what".
std::string on_rank(int rank, const std::string& line) {
  const std::string prefix = "trawl: ";
  const std::string what = line.rfind(prefix, 0) == 0 ? line.substr(prefix.size()) : line;
  return prefix + "rank " + std::to_string(rank) + ": " + what;
}

}  // namespace

struct mpi_group::state {
  MPI_Comm comm = MPI_COMM_NULL;
  int rank = 0, size = 1;
  bool finished = false;  // MPI_Finalize done
  mutable std::mutex error_mu;
  mutable std::uint64_t errors = 0;  // errors this rank met (note_error, a failed scan)
  mutable std::string last_error;
  std::function<void(const std::string&)> log;

  void note(const std::string& line) const {
    std::lock_guard lock(error_mu);
    ++errors;
    last_error = line;
  }

  /// The next message from `source` with `tag` (or any), matched for MPI_Mrecv. MPI's blocking
  /// calls spin a core while they wait, which would take it from this rank's scans (a launcher
  /// binds a rank to its cores): this polls, sleeping between tries.
  MPI_Message wait_message(int source, int tag, MPI_Status& st) const {
    for (int tries = 0;; ++tries) {
      int flag = 0;
      MPI_Message msg;
      MPI_Improbe(source, tag, comm, &flag, &msg, &st);
      if (flag) return msg;
      // a scan takes milliseconds: after a quick first look, the sleeps grow to 1 ms, so that
      // many waiting threads cost little
      if (tries > 32) std::this_thread::sleep_for(std::chrono::microseconds(std::min(1000, 10 * (tries - 32))));
    }
  }

  /// The whole next message from `source` with `tag`.
  std::string receive(int source, int tag, MPI_Status& st) const {
    MPI_Message msg = wait_message(source, tag, st);
    int bytes = 0;
    MPI_Get_count(&st, MPI_BYTE, &bytes);
    std::string out(static_cast<std::size_t>(bytes), '\0');
    MPI_Mrecv(out.data(), bytes, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    return out;
  }

  /// The start of a step. A worker says hello; rank 0 takes every worker's and checks that
  /// each is at the same step with as many errors as rank 0 (at the end, at most as many):
  /// else the job ends (job_ended) with the line that says why. Returns every rank's threads on rank 0 (`threads` elsewhere).
  std::vector<int> step(std::uint64_t kind, int threads) const {
    std::uint64_t mine = 0;
    std::string line;
    {
      std::lock_guard lock(error_mu);
      mine = errors;
      line = last_error;
    }
    std::vector<int> all(static_cast<std::size_t>(size), threads);
    if (rank != 0) {
      hello h{kind, mine, static_cast<std::uint64_t>(threads)};
      std::string msg(reinterpret_cast<const char*>(&h), sizeof h);
      msg += line;
      MPI_Send(msg.data(), static_cast<int>(msg.size()), MPI_BYTE, 0, hello_tag, comm);
      return all;
    }
    for (int r = 1; r < size; ++r) {
      MPI_Status st;
      const std::string msg = receive(r, hello_tag, st);
      hello h;
      if (msg.size() < sizeof h) throw job_ended{2, on_rank(r, "trawl: MPI: a malformed message")};
      std::memcpy(&h, msg.data(), sizeof h);
      const std::string theirs = msg.substr(sizeof h);
      if (h.errors > mine)  // it failed where rank 0 did not: its line, and the job ends
        throw job_ended{2, on_rank(r, theirs.empty() ? "trawl: failed" : theirs)};
      // rank 0 failed alone (an input only it could not read, its output): at the end, its
      // status stands; before, the others are out of step
      if (h.errors < mine && kind != step_finish)
        throw job_ended{2, "trawl: rank " + std::to_string(r) +
                               " did not meet rank 0's error above (do the inputs differ between hosts?); the job ends"};
      if (h.step != kind)
        throw job_ended{2, "trawl: rank " + std::to_string(r) + " is at " + step_name(h.step) + " where rank 0 is at " +
                               step_name(kind) + " (a different command line?); the job ends"};
      all[static_cast<std::size_t>(r)] = static_cast<int>(std::max<std::uint64_t>(1, std::min<std::uint64_t>(h.threads, 1u << 16)));
    }
    return all;
  }
};

namespace {

/// Rank 0's engine: each scan fills a free slot, local (scanned here) or on a worker.
class pool_engine final : public detail::engine_wrapper {
 public:
  pool_engine(const mpi_group::state& g, const detail::engine& local, unsigned local_slots,
              const std::vector<int>& remote_threads, std::string_view file)
      : engine_wrapper(local), g_(g), file_(file) {
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
  /// What went to the other ranks so far.
  [[nodiscard]] counts traffic() const { return {remote_.load(), by_file_.load(), bytes_sent_.load()}; }
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
      const pool_engine& p;
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
    MPI_Send(&q, sizeof q, MPI_BYTE, s.rank, s.tag, g_.comm);
    if (send != nullptr) MPI_Send(send, static_cast<int>(q.sent), MPI_BYTE, s.rank, s.tag, g_.comm);
    MPI_Status st;
    const std::string reply = g_.receive(s.rank, s.tag, st);
    if (reply.size() < 8 || reply[0] != 0)  // the worker counted this error as its own
      throw error(errc::io_error, "MPI: rank " + std::to_string(s.rank) + ": " +
                                      (reply.empty() ? std::string("empty reply") : reply.substr(1)));
    // the reply: status byte, 3 bytes, the number of marks (uint32), the marks, the hits
    std::uint32_t marks = 0;
    std::memcpy(&marks, reply.data() + 4, 4);
    const std::size_t at = out.size(), hits_at = 8 + std::size_t{marks} * sizeof(detail::open_mark);
    if (hits_at > reply.size() || (reply.size() - hits_at) % sizeof(hit) != 0)
      throw error(errc::io_error, "MPI: rank " + std::to_string(s.rank) + ": a malformed reply");
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

  const mpi_group::state& g_;
  std::string_view file_;
  mutable std::mutex mu_;
  mutable std::condition_variable cv_;
  mutable std::vector<slot> free_;
  mutable std::atomic<std::uint64_t> remote_{0}, by_file_{0}, bytes_sent_{0};
};

/// A worker's side of one search: scans until rank 0 ends the search (or the job), on a pool
/// of its own threads (oneTBB's workers may be limited to none when the launcher binds the
/// rank to one core) while this thread receives. A scan that fails answers with its error
/// line (rank 0's search fails with it). Throws job_ended when rank 0 ends the job.
void serve(const mpi_group::state& g, const detail::engine& m, io::source& input, unsigned threads) {
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
  const auto differs = [] {
    return error(errc::io_error, "the input differs from rank 0's (a shared file system is needed)");
  };
  auto scan_one = [&](work& w) {
    std::string reply(8, '\0');
    try {
      const request& q = w.q;
      if (q.kind == msg_scan_file && (file.size() != q.file_size || q.base > file.size() || q.seq_size > file.size() - q.base))
        throw differs();
      if (q.kind == msg_scan_lines && (file.size() != q.file_size || q.sent > q.seq_size ||
                                       !read_lines(file, q.line_file, q.width, q.line_seq, q.seq_size - q.sent, w.bytes)))
        throw differs();
      const std::string_view seq = q.kind != msg_scan_file ? std::string_view(w.bytes) : file.substr(q.base, q.seq_size);
      if (q.own_begin > q.own_end || q.own_end > seq.size()) throw error(errc::io_error, "MPI: a malformed scan request");
      std::vector<hit> hits;
      std::vector<detail::open_mark> open;
      m.scan(seq, q.own_begin, q.own_end, hits, open);
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
    MPI_Message msg = g.wait_message(0, MPI_ANY_TAG, st);
    MPI_Mrecv(&w.q, sizeof w.q, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    if (st.MPI_TAG == ctrl_tag) {
      stop();
      if (w.q.kind == msg_search_done) {
        // the search failed on rank 0 (there, or in a scan of this rank's): an error every
        // rank counts, as rank 0 reports it
        if (w.q.base != 0) g.note("trawl: " + input.name() + ": the search failed (see rank 0's message)");
        return;
      }
      throw job_ended{static_cast<int>(w.q.base), {}};  // rank 0 ended the job (it failed before this search ended)
    }
    w.tag = st.MPI_TAG;
    if (w.q.kind == msg_scan_value || w.q.kind == msg_scan_lines) {
      // the bytes come whatever the request holds (a check that fails answers with an error)
      w.bytes.resize(w.q.sent);
      if (w.q.kind == msg_scan_lines && w.q.seq_size >= w.q.sent && w.q.seq_size - w.q.sent <= file.size())
        w.bytes.reserve(w.q.seq_size);
      MPI_Recv(w.bytes.data(), static_cast<int>(w.q.sent), MPI_BYTE, 0, w.tag, g.comm, MPI_STATUS_IGNORE);
    }
    {
      std::lock_guard lock(mu);
      queue.push_back(std::move(w));
    }
    cv.notify_one();
  }
}

}  // namespace

mpi_group::mpi_group(int& argc, char**& argv) : s_(std::make_unique<state>()) {
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  MPI_Comm_dup(MPI_COMM_WORLD, &s_->comm);
  MPI_Comm_rank(s_->comm, &s_->rank);
  MPI_Comm_size(s_->comm, &s_->size);
  if (provided < MPI_THREAD_MULTIPLE)
    throw error(errc::unsupported, "MPI: this MPI library does not allow MPI calls from several threads");
}

mpi_group::~mpi_group() {
  if (!s_->finished) MPI_Finalize();
}

int mpi_group::rank() const { return s_->rank; }
int mpi_group::size() const { return s_->size; }
void mpi_group::note_error(const std::string& line) const { s_->note(line); }
void mpi_group::set_log(std::function<void(const std::string&)> log) { s_->log = std::move(log); }

stream_result mpi_group::search(const matcher& m, io::source& input, const search_options& options,
                                const stream_options& stream, search_sink& sink) const {
  const state& g = *s_;
  if (g.size == 1) return search_input(m, input, options, stream, sink);
  const int threads = static_cast<int>(rank_threads(options));
  const std::vector<int> all = g.step(step_search, threads);
  if (g.rank != 0) {
    serve(g, detail::engine_of(m), input, static_cast<unsigned>(threads));
    return {};
  }
  search_options o = options;
  o.threads = static_cast<unsigned>(threads);
  o.processes = nullptr;
  if (o.slice_size != 0) o.slice_size = std::max<std::size_t>(o.slice_size / static_cast<std::size_t>(g.size), 1u << 16);
  const matcher pool(std::make_unique<pool_engine>(g, detail::engine_of(m), static_cast<unsigned>(threads), all,
                                                   input.is_mapped() ? input.mapped() : std::string_view()));
  const auto& slots = static_cast<const pool_engine&>(detail::engine_of(pool));
  stream_options so = stream;
  so.scans_in_flight = static_cast<unsigned>(slots.slots());
  if (g.log) {
    int remote = 0;
    for (int r = 1; r < g.size; ++r) remote += all[static_cast<std::size_t>(r)];
    g.log(input.name() + ": split by text over " + std::to_string(g.size) + " MPI ranks: slices scanned on " +
          std::to_string(threads) + " threads here and " + std::to_string(remote) + " on the other ranks (" +
          std::to_string(slots.slots()) + " slots), every rank holding every pattern; slices of " +
          (input.is_mapped() ? "this file travel as coordinates (a FASTA file's where its lines are of one width)"
                             : "this stream travel as bytes"));
  }
  // the end of the search, to every worker: whether it failed (an error each rank counts, as
  // rank 0's front end reports it; a stop by the sink, such as a closed pipe, is none)
  const auto end_search = [&](bool failed) {
    request q;
    q.kind = msg_search_done;
    q.base = failed ? 1 : 0;
    for (int r = 1; r < g.size; ++r) MPI_Send(&q, sizeof q, MPI_BYTE, r, ctrl_tag, g.comm);
  };
  stream_result r;
  try {
    r = search_input(pool, input, o, so, sink);
  } catch (const std::exception&) {
    end_search(true);
    throw;
  } catch (...) {
    end_search(false);
    throw;
  }
  end_search(false);
  if (g.log) {
    const auto t = slots.traffic();
    char mib[32];
    std::snprintf(mib, sizeof mib, "%.1f", static_cast<double>(t.bytes_sent) / (1 << 20));
    g.log(input.name() + ": MPI: " + std::to_string(t.remote) + " slices scanned on other ranks, " +
          std::to_string(t.by_file) + " of them read there from the file; " + mib + " MiB of sequence sent");
  }
  return r;
}

std::vector<std::string> mpi_group::gather(std::string mine) const {
  const state& g = *s_;
  g.step(step_gather, 1);
  if (g.rank != 0) {
    MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_BYTE, 0, gather_tag, g.comm);
    return {};
  }
  std::vector<std::string> all(static_cast<std::size_t>(g.size));
  all[0] = std::move(mine);
  for (int r = 1; r < g.size; ++r) {
    MPI_Status st;
    all[static_cast<std::size_t>(r)] = g.receive(r, gather_tag, st);
  }
  return all;
}

int mpi_group::finish(int status) {
  state& g = *s_;
  g.step(step_finish, 1);
  if (g.rank == 0) {
    request q;
    q.kind = msg_finish;
    q.base = static_cast<std::uint64_t>(status);
    for (int r = 1; r < g.size; ++r) MPI_Send(&q, sizeof q, MPI_BYTE, r, ctrl_tag, g.comm);
  } else {
    request q;
    MPI_Status st;
    MPI_Message msg = g.wait_message(0, ctrl_tag, st);
    MPI_Mrecv(&q, sizeof q, MPI_BYTE, &msg, MPI_STATUS_IGNORE);
    status = static_cast<int>(q.base);
  }
  g.finished = true;
  MPI_Finalize();
  return status;
}

void mpi_group::abort(int status) {
  MPI_Abort(s_->comm, status);
  std::_Exit(status);
}

}  // namespace trawl::distributed
