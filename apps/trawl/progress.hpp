// progress.hpp — the progress line of a long search on a terminal's stderr (while the output
// goes to a file or a pipe): bytes done of the input, the rate, the time left and where it
// runs, redrawn at most four times a second from its second second on, and cleared at the end.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

namespace trawl::cli {

class progress_line {
 public:
  /// `on`: draw at all (the caller's test: stderr a terminal, stdout not, no --no-progress).
  /// `total`: the input's expected size (0: unknown, no percentage).
  progress_line(bool on, std::string name, std::uint64_t total);
  ~progress_line();
  progress_line(const progress_line&) = delete;
  progress_line& operator=(const progress_line&) = delete;
  /// A new stage of the job (its name shown after the job's) with its own total, rate and time
  /// left; `bytes`: the totals count bytes (else things: a percentage and the time left only).
  void stage(std::string name, std::uint64_t total, bool bytes = true);
  /// Where it runs: "CPU", or the GPU workers, e.g. "GPU 0,1".
  void where(std::string w) { where_ = std::move(w); }
  /// `bytes` of the input taken in so far.
  void update(std::uint64_t bytes);
  /// Clears the line, if drawn.
  void done();

 private:
  using clock = std::chrono::steady_clock;
  bool on_;
  std::string name_, stage_, where_;
  std::uint64_t total_;
  bool bytes_ = true;
  clock::time_point start_, last_, stage_start_;
  bool drawn_ = false;
};

/// Whether a command draws progress lines: stderr a terminal, stdout not, and not `off`.
bool progress_wanted(bool off);

}  // namespace trawl::cli
