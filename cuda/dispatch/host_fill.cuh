// cuda/dispatch/host_fill.cuh — filling pinned staging buffers from host text on all cores:
// a process-wide pool of worker threads (started on the first GPU stream, asleep when idle)
// and the fill of one chunk, split into page-aligned parts: for text in memory each part is
// pre-faulted in the kernel (MADV_POPULATE_READ, so a cold mmap'ed file costs no per-page
// trap) and copied; for a file descriptor each part is read with pread() straight into the
// pinned buffer. Cost: one pass over the chunk's bytes, on every core.
#pragma once

#include <atomic>
#include <climits>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <exception>
#include <functional>
#include <memory>
#include <mutex>
#include <string_view>
#include <thread>
#include <vector>

#include "common/dna_pack.hpp"

namespace trawl::cuda {

/// Worker threads that run the parts of fill jobs. The thread that waits on a job runs
/// unclaimed parts itself, so a job finishes even when every worker is busy.
class host_workers {
 public:
  struct job {
    std::size_t parts = 0;
    std::function<void(std::size_t)> fn;
    std::atomic<std::size_t> next{0};  ///< next unclaimed part
    std::atomic<bool> cancelled{false};
    std::atomic<std::int64_t> t_first{INT64_MAX};  ///< steady-clock ns: first part started
    std::atomic<std::int64_t> t_last{0};           ///< last part finished
    std::size_t done = 0;              ///< guarded by m
    std::exception_ptr error;          ///< first failure, guarded by m
    std::mutex m;
    std::condition_variable cv;
  };

  /// The process-wide pool (hardware threads - 1 workers, at least 1). Created on first use
  /// and never destroyed (its threads sleep until the process exits).
  static host_workers& instance();

  /// Queues fn(0) ... fn(parts - 1) to run on the workers; returns at once.
  std::shared_ptr<job> submit(std::size_t parts, std::function<void(std::size_t)> fn);
  /// Runs unclaimed parts of `j` on this thread, then waits for the rest; rethrows the first
  /// exception a part threw.
  void wait(job& j);
  /// As wait(), but parts not yet started are skipped and nothing is rethrown.
  void cancel(job& j) noexcept;

  [[nodiscard]] unsigned size() const noexcept { return static_cast<unsigned>(threads_.size()); }

 private:
  explicit host_workers(unsigned n);
  void loop();
  static void run_part(job& j, std::size_t p) noexcept;

  std::mutex m_;
  std::condition_variable cv_;
  std::deque<std::shared_ptr<job>> queue_;
  std::vector<std::thread> threads_;
};

/// Where the bytes of a chunk come from: `text` in memory, or when fd >= 0 the same bytes
/// read from fd at fd_offset + position.
struct fill_source {
  std::string_view text;
  int fd = -1;
  std::uint64_t fd_offset = 0;
  bool populate = true;  ///< memory: MADV_POPULATE_READ each part before copying it
};

/// Splits [pos, pos + len) of `src` into page-aligned parts of about `part_bytes` (at most
/// 4 per worker) and returns a job that copies them to dst[0, len). Throws (from wait) a
/// trawl::error(io_error) when pread fails or the file is shorter than expected.
std::shared_ptr<host_workers::job> submit_fill(host_workers& pool, void* dst, const fill_source& src, std::size_t pos,
                                              std::size_t len);

/// A chunk being packed two bits a base (src/common/dna_pack.hpp) into a pinned buffer, in
/// the parts submit_fill would copy: the packed bytes at [0, runs_at), then room for each
/// part's runs (part p's from run first_run[p], one per 64 bytes of the part, plus one).
struct packed_fill {
  std::shared_ptr<host_workers::job> job;
  std::size_t len = 0;
  std::size_t runs_at = 0;
  std::vector<std::size_t> first_run;
  std::shared_ptr<std::vector<std::size_t>> counts;  ///< per part: its runs, or dna_pack::failed

  /// After the job: the parts' runs moved together behind the packed bytes. Returns the runs,
  /// or dna_pack::failed when a part's text was not DNA enough to pack (then the buffer must
  /// be filled again by submit_fill).
  std::size_t gather(void* dst) const;
};

/// Pinned bytes that submit_pack may write for a chunk of `len` bytes.
std::size_t packed_size(const host_workers& pool, std::size_t len);

/// As submit_fill, but packing [pos, pos + len) of src.text (a text in memory) with `pack`.
packed_fill submit_pack(host_workers& pool, void* dst, const fill_source& src, std::size_t pos, std::size_t len,
                        dna_pack::pack_fn pack);

}  // namespace trawl::cuda
