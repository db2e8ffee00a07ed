// site_handover.cpp — a site_sink's calls in order on a thread of their own (site_handover.hpp).
#include "offtarget/site_handover.hpp"

#include <tbb/parallel_for.h>

#include <utility>

namespace trawl::offtarget {

namespace {
/// The most sites queued (with their strings; the storage released after them waits too):
/// the caller waits beyond.
constexpr std::size_t max_queued = std::size_t{1} << 20;
}  // namespace

site_handover::site_handover(site_sink& out, unsigned threads, std::size_t from)
    : out_(out), from_(from), arena_(threads != 0 ? static_cast<int>(threads) : tbb::task_arena::automatic) {}

site_handover::~site_handover() {
  if (!thread_.joinable()) return;
  {
    std::lock_guard<std::mutex> lock(mu_);
    stop_ = true;
  }
  changed_.notify_all();
  thread_.join();
}

bool site_handover::idle() {
  std::lock_guard<std::mutex> lock(mu_);
  return queue_.empty() && !busy_;
}

void site_handover::rethrow() {
  std::exception_ptr e;
  {
    std::lock_guard<std::mutex> lock(mu_);
    e = failed_;
  }
  if (e) std::rethrow_exception(e);
}

void site_handover::push(job&& j) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    // the thread first: if it cannot start, nothing is queued for it
    if (!thread_.joinable()) thread_ = std::thread([this] { run(); });
    changed_.wait(lock, [&] { return queued_sites_ < max_queued || failed_; });
    if (!failed_) {
      queued_sites_ += j.sites;
      queue_.push_back(std::move(j));
    }
  }
  changed_.notify_all();
  rethrow();
}

void site_handover::begin_record(const record_info& r) {
  rethrow();
  if (idle()) return out_.begin_record(r);
  job j;
  j.what = job::begin;
  j.name = r.name;
  j.info = r;
  push(std::move(j));
}

void site_handover::sites(std::span<const std::span<const site>> batches) {
  rethrow();
  job j;
  for (const auto& b : batches)
    if (!b.empty()) j.batches.push_back(b), j.sites += b.size();
  if (j.sites == 0) return;
  if (j.sites < from_ && idle()) {
    for (const auto& b : j.batches) out_.sites(b);
    return;
  }
  push(std::move(j));
}

std::vector<site> site_handover::take() {
  const std::lock_guard<std::mutex> lock(spare_mu_);
  if (spare_.empty()) return {};
  std::vector<site> s = std::move(spare_.back());
  spare_.pop_back();
  spare_sites_ -= s.size();
  return s;
}

void site_handover::give_back(std::vector<site> spare) {
  if (spare.empty()) return;
  const std::lock_guard<std::mutex> lock(spare_mu_);
  if (spare_sites_ >= max_queued) return;  // freed
  spare_sites_ += spare.size();
  spare_.push_back(std::move(spare));
}

void site_handover::release(std::vector<site>&& storage) {
  if (idle()) {
    give_back(std::move(storage));
    return;
  }
  job j;
  j.what = job::free;
  j.storage = std::move(storage);
  push(std::move(j));
}

void site_handover::end_record() {
  rethrow();
  if (idle()) return out_.end_record();
  job j;
  j.what = job::end;
  push(std::move(j));
}

void site_handover::finish() {
  {
    std::unique_lock<std::mutex> lock(mu_);
    changed_.wait(lock, [&] { return queue_.empty() && !busy_; });
  }
  rethrow();
}

void site_handover::run() {
  std::unique_lock<std::mutex> lock(mu_);
  for (;;) {
    changed_.wait(lock, [&] { return !queue_.empty() || stop_; });
    if (queue_.empty()) return;
    // the storage released next, all of it at once: each one's strings freed on a core
    std::vector<std::vector<site>> freed;
    while (!queue_.empty() && queue_.front().what == job::free) {
      freed.push_back(std::move(queue_.front().storage));
      queue_.pop_front();
    }
    job j;
    const bool call = freed.empty();
    if (call) {
      j = std::move(queue_.front());
      queue_.pop_front();
    }
    busy_ = true;
    const bool dropped = static_cast<bool>(failed_);
    lock.unlock();
    std::exception_ptr error;
    if (!call) {
      // kept for the sites built next, up to as many as may wait here; the rest freed on all
      // cores
      {
        const std::lock_guard<std::mutex> spare_lock(spare_mu_);
        while (!freed.empty() && spare_sites_ < max_queued) {
          spare_sites_ += freed.back().size();
          spare_.push_back(std::move(freed.back()));
          freed.pop_back();
        }
      }
      arena_.execute([&] {
        tbb::parallel_for(std::size_t{0}, freed.size(), [&](std::size_t i) { std::vector<site>().swap(freed[i]); });
      });
    } else if (!dropped) {
      try {
        if (j.what == job::begin) {
          j.info.name = j.name;
          out_.begin_record(j.info);
        } else if (j.what == job::batch) {
          for (const auto& b : j.batches) out_.sites(b);
        } else {
          out_.end_record();
        }
      } catch (...) {
        error = std::current_exception();
      }
    }
    lock.lock();
    if (call) queued_sites_ -= j.sites;
    if (error && !failed_) failed_ = error;
    busy_ = false;
    changed_.notify_all();
  }
}

}  // namespace trawl::offtarget
