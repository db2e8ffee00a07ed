// parallel/block_reader.hpp — a stream read on a thread of its own into blocks handed over in
// order, so the driver's workers search while the next bytes arrive.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <exception>
#include <mutex>
#include <string>
#include <thread>

#include "parallel/chunker.hpp"
#include "trawl/io.hpp"

namespace trawl::slicing {

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

}  // namespace trawl::slicing
