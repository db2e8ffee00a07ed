// located_spill.cpp — external merge sort of located occurrences (see located_spill.hpp).
#include "index/located_spill.hpp"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <queue>

#include <fcntl.h>
#include <unistd.h>

#include "index/varint.hpp"
#include "trawl/error.hpp"

namespace trawl::index {
namespace {

constexpr std::size_t batch_keys = std::size_t{1} << 16;      // keys handed to on_keys at a time
constexpr std::size_t write_bytes = std::size_t{1} << 20;     // encoded bytes written at a time
constexpr std::size_t min_read_bytes = std::size_t{1} << 12;  // a run's read buffer, at least
constexpr std::size_t max_read_bytes = std::size_t{1} << 20;  // ... and at most

[[noreturn]] void fail(const std::string& dir, const char* what, int err) {
  throw error(errc::io_error, std::string("index: cannot ") + what + " the located positions in a temporary file in " +
                                  dir + ": " + std::strerror(err));
}

/// A run read back: its keys one at a time, from a buffer refilled with pread.
class run_reader {
 public:
  run_reader(int fd, std::uint64_t offset, std::uint64_t bytes, std::uint64_t keys, std::size_t buffer,
             const std::string& dir)
      : fd_(fd), at_(offset), end_(offset + bytes), left_(keys), buf_(buffer), dir_(&dir) {}

  /// The next key (the run must have one left).
  std::uint64_t next() {
    const auto delta = get_varint([&] {
      if (pos_ == len_) refill();
      return buf_[pos_++];
    });
    if (!delta) throw error(errc::io_error, "index: the temporary file of located positions in " + *dir_ + " changed while it was read");
    --left_;
    last_ += *delta;
    return last_;
  }
  [[nodiscard]] bool empty() const noexcept { return left_ == 0; }

 private:
  void refill() {
    const std::size_t want = static_cast<std::size_t>(std::min<std::uint64_t>(buf_.size(), end_ - at_));
    if (want == 0) throw error(errc::io_error, "index: the temporary file of located positions in " + *dir_ + " is shorter than written");
    ssize_t got;
    do got = ::pread(fd_, buf_.data(), want, static_cast<off_t>(at_));
    while (got < 0 && errno == EINTR);
    if (got < 0) fail(*dir_, "read", errno);
    if (got == 0) throw error(errc::io_error, "index: the temporary file of located positions in " + *dir_ + " is shorter than written");
    at_ += static_cast<std::uint64_t>(got);
    pos_ = 0;
    len_ = static_cast<std::size_t>(got);
  }

  int fd_;
  std::uint64_t at_, end_, left_;
  std::vector<char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  std::uint64_t last_ = 0;
  const std::string* dir_;
};

}  // namespace

void sort_keys(std::vector<std::uint64_t>& v, std::uint64_t bound) {
  std::vector<std::uint64_t> scratch;
  sort_keys(v, bound, scratch);
}

void sort_keys(std::vector<std::uint64_t>& v, std::uint64_t bound, std::vector<std::uint64_t>& scratch) {
  constexpr unsigned digit = 11;
  constexpr std::size_t buckets = std::size_t{1} << digit;
  if (v.size() < 8192) {
    std::sort(v.begin(), v.end());
    return;
  }
  const unsigned bits = static_cast<unsigned>(std::bit_width(bound));
  std::vector<std::uint64_t>& tmp = scratch;
  tmp.resize(v.size());
  std::vector<std::size_t> count(buckets);
  for (unsigned shift = 0; shift < bits; shift += digit) {
    std::fill(count.begin(), count.end(), 0);
    for (std::uint64_t x : v) ++count[(x >> shift) & (buckets - 1)];
    std::size_t at = 0;
    for (auto& c : count) {
      const std::size_t k = c;
      c = at;
      at += k;
    }
    for (std::uint64_t x : v) tmp[count[(x >> shift) & (buckets - 1)]++] = x;
    v.swap(tmp);
  }
}

located_spill::located_spill(std::uint64_t text_size, std::size_t patterns, std::size_t memory_bytes)
    : bits_(static_cast<unsigned>(std::bit_width(patterns > 1 ? patterns - 1 : std::size_t{0}))),
      capacity_(std::max<std::size_t>(memory_bytes / (2 * sizeof(std::uint64_t)), batch_keys)) {
  if (bits_ >= 64 || std::bit_width(text_size) + bits_ > 64)
    throw error(errc::invalid_argument, "index: " + std::to_string(patterns) + " patterns are too many to locate at once in a text of " +
                                            std::to_string(text_size) + " bytes");
  max_key_ = ((text_size + 1) << bits_) - 1;  // positions < text_size
}

located_spill::~located_spill() {
  if (fd_ >= 0) ::close(fd_);
}

void located_spill::add(std::span<const std::uint64_t> positions, std::uint32_t pattern) {
  const std::lock_guard lock(mu_);
  for (std::size_t i = 0; i < positions.size();) {
    const std::size_t take = std::min(positions.size() - i, capacity_ - std::min(capacity_, keys_.size()));
    if (keys_.capacity() < keys_.size() + take)  // grows to the capacity, not past it
      keys_.reserve(std::min(capacity_, std::max(2 * keys_.capacity(), keys_.size() + take)));
    for (std::size_t j = i; j < i + take; ++j) keys_.push_back(positions[j] << bits_ | pattern);
    i += take;
    if (keys_.size() >= capacity_) write_run();
  }
}

void located_spill::write_run() {
  if (fd_ < 0) {
    const char* tmp = std::getenv("TMPDIR");
    dir_ = tmp != nullptr && *tmp != '\0' ? tmp : "/tmp";
    std::string name = dir_ + "/trawl-locate-XXXXXX";
    fd_ = ::mkostemp(name.data(), O_CLOEXEC);
    if (fd_ < 0) fail(dir_, "create", errno);
    ::unlink(name.c_str());  // the file lives as long as the descriptor
  }
  sort_keys(keys_, max_key_, scratch_);
  const run r{file_bytes_, 0, keys_.size()};
  std::vector<char> out;
  out.reserve(write_bytes + 16);
  std::uint64_t last = 0, written = 0;
  auto flush = [&] {
    for (std::size_t at = 0; at < out.size();) {
      const ssize_t n = ::pwrite(fd_, out.data() + at, out.size() - at, static_cast<off_t>(file_bytes_ + written));
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) fail(dir_, "write", n < 0 ? errno : ENOSPC);
      at += static_cast<std::size_t>(n);
      written += static_cast<std::uint64_t>(n);
    }
    out.clear();
  };
  for (std::uint64_t key : keys_) {
    std::uint64_t delta = key - last;
    last = key;
    put_varint(delta, [&](std::uint8_t b) { out.push_back(static_cast<char>(b)); });
    if (out.size() >= write_bytes) flush();
  }
  flush();
  runs_.push_back({r.offset, written, r.keys});
  file_bytes_ += written;
  keys_.clear();
}

void located_spill::drain(const std::function<bool(std::span<const std::uint64_t>)>& on_keys) {
  const std::lock_guard lock(mu_);
  sort_keys(keys_, max_key_, scratch_);
  std::vector<std::uint64_t>().swap(scratch_);
  if (runs_.empty()) {
    for (std::size_t i = 0; i < keys_.size(); i += batch_keys)
      if (!on_keys(std::span<const std::uint64_t>(keys_).subspan(i, std::min(batch_keys, keys_.size() - i)))) return;
    return;
  }
  // the runs and the keys still in memory (source runs_.size()), merged by a heap of heads
  const std::size_t read = std::clamp<std::size_t>(capacity_ * sizeof(std::uint64_t) / runs_.size(), min_read_bytes,
                                                   max_read_bytes);
  std::vector<run_reader> readers;
  readers.reserve(runs_.size());
  for (const run& r : runs_) readers.emplace_back(fd_, r.offset, r.bytes, r.keys, read, dir_);
  using head = std::pair<std::uint64_t, std::size_t>;  // (key, source)
  std::priority_queue<head, std::vector<head>, std::greater<>> heads;
  for (std::size_t s = 0; s < readers.size(); ++s)
    if (!readers[s].empty()) heads.emplace(readers[s].next(), s);
  std::size_t mem = 0;
  if (!keys_.empty()) heads.emplace(keys_[mem++], readers.size());
  std::vector<std::uint64_t> out;
  out.reserve(batch_keys);
  while (!heads.empty()) {
    const auto [key, s] = heads.top();
    heads.pop();
    if (s < readers.size()) {
      if (!readers[s].empty()) heads.emplace(readers[s].next(), s);
    } else if (mem < keys_.size()) {
      heads.emplace(keys_[mem++], s);
    }
    out.push_back(key);
    if (out.size() == batch_keys) {
      if (!on_keys(out)) return;
      out.clear();
    }
  }
  if (!out.empty()) on_keys(out);
}

}  // namespace trawl::index
