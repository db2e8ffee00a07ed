// located_spill.hpp — the occurrences of several patterns, sorted by (text position, pattern)
// in bounded memory, for the streamed locate (hybrid_index::for_each_record_hit).
//
// An external merge sort. Each occurrence is one 64-bit key, position << b | pattern (b bits
// for the pattern numbers). Keys are gathered in memory up to a budget; a full buffer is
// radix-sorted and written to an unlinked temporary file (in $TMPDIR, else /tmp) as one run of
// LEB128 deltas (a byte a key where keys lie within 128 of each other). drain() merges the runs and
// the last buffer. O(occ · log(runs) + occ · passes) time; memory: the budget, plus a read
// buffer per run while draining.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <span>
#include <string>
#include <vector>

namespace trawl::index {

/// Sorts values all below `bound`: an LSD radix sort on 11-bit digits for large vectors (3
/// passes for bound < 2^33), std::sort for small ones. O(v · ⌈log2 bound / 11⌉) time, a
/// second vector of v's size as scratch.
void sort_keys(std::vector<std::uint64_t>& v, std::uint64_t bound);
/// The same with `scratch` as the second vector (resized to v's size; kept for the next call).
void sort_keys(std::vector<std::uint64_t>& v, std::uint64_t bound, std::vector<std::uint64_t>& scratch);

class located_spill {
 public:
  /// Keys for positions below `text_size` and pattern numbers below `patterns`; holds keys and
  /// the sort's scratch in about `memory_bytes` (at least 64 Ki keys) before it writes a run. Throws
  /// trawl::error(invalid_argument) when a key does not fit in 64 bits.
  located_spill(std::uint64_t text_size, std::size_t patterns, std::size_t memory_bytes);
  ~located_spill();
  located_spill(const located_spill&) = delete;
  located_spill& operator=(const located_spill&) = delete;

  /// Adds occurrences of pattern `pattern`, in any order. Safe from several threads at once.
  /// Throws trawl::error(io_error) when a run cannot be written.
  void add(std::span<const std::uint64_t> positions, std::uint32_t pattern);
  /// Hands every key over in ascending order, in batches; `on_keys` returns false to stop.
  /// Once, after the last add. Throws trawl::error(io_error) when a run cannot be read back.
  void drain(const std::function<bool(std::span<const std::uint64_t>)>& on_keys);

  [[nodiscard]] unsigned pattern_bits() const noexcept { return bits_; }
  [[nodiscard]] std::uint64_t position_of(std::uint64_t key) const noexcept { return key >> bits_; }
  [[nodiscard]] std::uint32_t pattern_of(std::uint64_t key) const noexcept {
    return static_cast<std::uint32_t>(key & ((std::uint64_t{1} << bits_) - 1));
  }
  /// Runs written to the temporary file so far.
  [[nodiscard]] std::size_t runs() const noexcept { return runs_.size(); }

 private:
  struct run {
    std::uint64_t offset, bytes, keys;
  };
  void write_run();  // sorts keys_ and appends it to the file as one run; mu_ held

  unsigned bits_;
  std::uint64_t max_key_;
  std::size_t capacity_;  // keys held before a run is written
  std::mutex mu_;
  std::vector<std::uint64_t> keys_, scratch_;
  std::vector<run> runs_;
  std::string dir_;
  int fd_ = -1;
  std::uint64_t file_bytes_ = 0;
};

}  // namespace trawl::index
