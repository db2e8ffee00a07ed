// progress.cpp — see progress.hpp.
#include "progress.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cstdio>

#include "mpi.hpp"

namespace trawl::cli {
namespace {

std::string size_of(double bytes) {
  if (bytes >= 1e9) return fmt::format("{:.1f} GB", bytes / 1e9);
  if (bytes >= 1e6) return fmt::format("{:.0f} MB", bytes / 1e6);
  return fmt::format("{:.0f} kB", bytes / 1e3);
}

}  // namespace

bool progress_wanted(bool off) { return !off && isatty(2) != 0 && isatty(1) == 0 && !mpi::launched(); }

progress_line::progress_line(bool on, std::string name, std::uint64_t total)
    : on_(on), name_(std::move(name)), total_(total), start_(clock::now()), last_(start_), stage_start_(start_) {}

void progress_line::stage(std::string name, std::uint64_t total, bool bytes) {
  stage_ = std::move(name);
  total_ = total;
  bytes_ = bytes;
  stage_start_ = clock::now();
}

progress_line::~progress_line() { done(); }

void progress_line::update(std::uint64_t bytes) {
  if (!on_) return;
  const auto now = clock::now();
  if (now - start_ < std::chrono::seconds(1) || now - last_ < std::chrono::milliseconds(250)) return;
  last_ = now;
  const double secs = std::chrono::duration<double>(now - stage_start_).count();
  const double rate = secs >= 0.5 ? static_cast<double>(bytes) / secs : 0.0;  // a stage's first moments: no rate yet
  std::string line = fmt::format("trawl: {}: ", name_);
  if (!stage_.empty()) line += stage_ + ": ";
  if (!bytes_) {
    if (total_ > 0 && bytes <= total_) {
      line += fmt::format("{:.0f} %", 100.0 * static_cast<double>(bytes) / static_cast<double>(total_));
      if (rate > 0) line += fmt::format(", {:.0f} s left", static_cast<double>(total_ - bytes) / rate);
    }
  } else if (total_ > 0 && bytes <= total_) {
    line += fmt::format("{:.0f} % of {}", 100.0 * static_cast<double>(bytes) / static_cast<double>(total_),
                        size_of(static_cast<double>(total_)));
    if (rate > 0)
      line += fmt::format(", {}/s, {:.0f} s left", size_of(rate), static_cast<double>(total_ - bytes) / rate);
  } else {
    line += size_of(static_cast<double>(bytes));
    if (rate > 0) line += fmt::format(", {}/s", size_of(rate));
  }
  if (!where_.empty()) line += " (" + where_ + ")";
  std::fprintf(stderr, "\r%s\033[K", line.c_str());
  std::fflush(stderr);
  drawn_ = true;
}

void progress_line::done() {
  if (!drawn_) return;
  std::fprintf(stderr, "\r\033[K");
  std::fflush(stderr);
  drawn_ = false;
}

}  // namespace trawl::cli
