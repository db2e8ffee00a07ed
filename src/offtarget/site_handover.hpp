// site_handover.hpp — a site_sink's calls made in order on a thread of their own, so that the
// off-target search's sink (offtarget.cpp) builds the next batch of sites while the last one
// is handed over (printed, for the CLI). Small batches, with nothing queued, are handed over
// on the caller's thread, and no thread is started.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <span>
#include <string>
#include <thread>
#include <vector>

#include <tbb/task_arena.h>

#include "trawl/offtarget.hpp"
#include "trawl/stream.hpp"

namespace trawl::offtarget {

class site_handover {
 public:
  /// The least batch queued for the thread while nothing waits, unless told otherwise.
  static constexpr std::size_t async_from = 4096;
  /// `threads`: the cores that free released storage (0: all).
  site_handover(site_sink& out, unsigned threads, std::size_t from = async_from);
  /// Makes every call queued (dropping what they throw), then ends the thread: when the
  /// caller unwinds from an error, the sites found before it are still handed over first.
  ~site_handover();
  site_handover(const site_handover&) = delete;
  site_handover& operator=(const site_handover&) = delete;

  void begin_record(const record_info& r);
  /// Sites to hand over, in order: the batches one after another. Their storage stays where
  /// it is until release() is given it or finish() returns.
  void sites(std::span<const std::span<const site>> batches);
  /// Storage whose sites have all been given to sites(): kept for take() once they are handed
  /// over (up to as many sites as may wait to be handed over), or freed.
  void release(std::vector<site>&& storage);
  /// Sites already handed over, whose strings keep their room, to be overwritten (empty if
  /// none): building the next sites in them costs no allocation. Thread-safe.
  std::vector<site> take();
  /// Sites from take() left unused.
  void give_back(std::vector<site> spare);
  void end_record();
  /// Returns once every call is made; throws what the first call that threw threw. A call
  /// that throws drops the calls after it, and every later call of the caller throws it too.
  void finish();

 private:
  struct job {
    enum kind { begin, batch, free, end } what = batch;
    std::string name;  ///< begin: the record's name (info.name views it)
    record_info info;
    std::vector<std::span<const site>> batches;
    std::size_t sites = 0;  ///< in the batches
    std::vector<site> storage;
  };
  /// Queues j, waiting while too many sites wait; starts the thread.
  void push(job&& j);
  /// True when nothing is queued or being handed over (the caller may call out_ itself).
  bool idle();
  /// Throws what a call on the thread threw.
  void rethrow();
  void run();

  site_sink& out_;
  std::size_t from_;
  std::mutex mu_;
  std::condition_variable changed_;
  std::deque<job> queue_;
  std::size_t queued_sites_ = 0;
  bool busy_ = false, stop_ = false;
  std::exception_ptr failed_;
  std::mutex spare_mu_;
  std::vector<std::vector<site>> spare_;  ///< released storage, for take()
  std::size_t spare_sites_ = 0;
  tbb::task_arena arena_;  ///< frees released storage
  std::thread thread_;
};

}  // namespace trawl::offtarget
