// trawl/detail/text_buffer.hpp — the record bytes a search_sink that reads the text around its
// hits still holds (the CLI's printers, offtarget's site sink). Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trawl::detail {

/// The bytes of the current record that a search_sink still needs, [begin(), end()), for sinks
/// that read the text around hits (wants_text): a view of a mapped input while its bytes come
/// in one run (trawl::search_sink::text's `stable`), else a copy.
///
/// With a `seam` (the longest range at() is asked for), bytes that are not stable are not
/// copied on arrival: they are held as a view, beside a copy of the bytes still held before
/// them and of their first `seam` bytes, so that every range of at most `seam` bytes lies in
/// one of the two; drop_before() (the sink's floor, while the bytes are still valid) then
/// copies only what stays held. The copy per append is O(seam + the bytes still held).
class text_buffer {
 public:
  explicit text_buffer(std::size_t seam = 0) : seam_(seam) {}
  void reset() {
    base_ = 0;
    dead_ = 0;
    owned_.clear();
    held_ = {};
    external_ = false;
    view_ = {};
    view_pos_ = 0;
  }
  /// Appends the record's bytes from `pos` (the end of what is held); `stable`: they stay valid
  /// (trawl::search_sink::text), so a run of them is held as a view.
  void append(std::uint64_t pos, std::string_view b, bool stable);
  /// Forgets the bytes before `pos` (amortized: the buffer is compacted when half is dead).
  void drop_before(std::uint64_t pos);
  [[nodiscard]] std::uint64_t begin() const { return base_ + dead_; }
  [[nodiscard]] std::uint64_t end() const { return view_.empty() ? base_ + held_.size() : view_pos_ + view_.size(); }
  /// The held bytes of [a, b), clipped to what is held. With a seam, a range longer than it
  /// across the copied bytes and the view throws std::logic_error.
  [[nodiscard]] std::string_view at(std::uint64_t a, std::uint64_t b) const;
  /// Position of the first '\n' at or after `pos`, or end() when none is held.
  [[nodiscard]] std::uint64_t find_newline(std::uint64_t pos) const;
  /// Start of the line holding `pos`: after the last '\n' in [max(low, begin()), pos), or
  /// max(low, begin()) when there is none.
  [[nodiscard]] std::uint64_t line_start(std::uint64_t pos, std::uint64_t low = 0) const;
  /// Number of '\n' in [a, b).
  [[nodiscard]] std::uint64_t newlines(std::uint64_t a, std::uint64_t b) const;

 private:
  std::uint64_t base_ = 0;   ///< record position of held_[0]
  std::size_t dead_ = 0;     ///< held_[0, dead_) is no longer needed
  std::string owned_;        ///< the copy, when held_ is not a view of the input
  std::string_view held_;
  bool external_ = false;    ///< held_ views the input
  std::size_t seam_ = 0;     ///< 0: bytes that are not stable are copied on arrival
  std::string_view view_;    ///< with a seam: the last bytes that were not stable, until drop_before
  std::uint64_t view_pos_ = 0;  ///< record position of view_[0] (held_ ends seam bytes into it)

  /// The view copied: held_ becomes a copy of [from, end()).
  void settle(std::uint64_t from);
};

/// The bytes of a record known only around some of its positions (the candidates of sites
/// whose record is not held whole: an index's, a genome kept two bits a base): windows [lo, hi)
/// in record order, apart from each other.
class window_set {
 public:
  void clear() {
    used_ = 0;
    windows_.clear();
  }
  /// Room for window [lo, lo + n), after the last one: its bytes are to be written there.
  char* add(std::uint64_t lo, std::size_t n);
  /// The bytes of [a, b) in the window that holds a, clipped to it; none when no window holds a.
  [[nodiscard]] std::string_view at(std::uint64_t a, std::uint64_t b) const;
  [[nodiscard]] std::size_t size() const noexcept { return windows_.size(); }
  [[nodiscard]] std::uint64_t lo(std::size_t w) const noexcept { return windows_[w].lo; }
  [[nodiscard]] std::uint64_t hi(std::size_t w) const noexcept { return windows_[w].hi; }
  /// Window w's bytes, writable until the next add().
  [[nodiscard]] char* data(std::size_t w) noexcept { return bytes_.get() + windows_[w].at; }

 private:
  struct window {
    std::uint64_t lo, hi;
    std::size_t at;  ///< its bytes in bytes_
  };
  /// The windows' bytes, one after another: used_ of room_, kept from one clear() to the next
  /// and never filled before the caller writes them.
  std::unique_ptr<char[]> bytes_;
  std::size_t used_ = 0, room_ = 0;
  std::vector<window> windows_;
};

}  // namespace trawl::detail
