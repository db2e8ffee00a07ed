// text_buffer.cpp — see trawl/detail/text_buffer.hpp.
#include <algorithm>
#include <cstring>
#include <iterator>
#include <stdexcept>

#include "trawl/detail/text_buffer.hpp"

#include "common/count_byte.hpp"

namespace trawl::detail {

void text_buffer::append(std::uint64_t pos, std::string_view b, bool stable) {
  if (!view_.empty()) settle(begin());  // no drop_before since the last view: all of it stays
  if (held_.size() == dead_) {  // nothing held: start at pos
    reset();
    base_ = pos;
  }
  if (!stable && seam_ != 0) {
    // the bytes still held, copied, and the first seam bytes of the new ones; those held as a view
    if (external_) {
      owned_.assign(held_.substr(dead_));
      external_ = false;
    } else {
      owned_.erase(0, dead_);
    }
    base_ += dead_;
    dead_ = 0;
    owned_.append(b.substr(0, std::min(seam_, b.size())));
    held_ = owned_;
    view_ = b;
    view_pos_ = pos;
    return;
  }
  if (stable && (held_.empty() || (external_ && held_.data() + held_.size() == b.data()))) {
    held_ = std::string_view(held_.empty() ? b.data() : held_.data(), held_.size() + b.size());
    external_ = true;
    return;
  }
  if (external_) {  // the run of the input's bytes ends: copy what is held
    owned_.assign(held_);
    external_ = false;
  }
  owned_.append(b);
  held_ = owned_;
}

void text_buffer::settle(std::uint64_t from) {
  from = std::clamp(from, begin(), end());
  std::string kept;
  kept.reserve(static_cast<std::size_t>(end() - from));
  if (from < view_pos_) kept.append(held_.substr(static_cast<std::size_t>(from - base_), static_cast<std::size_t>(view_pos_ - from)));
  kept.append(view_.substr(static_cast<std::size_t>(std::max(from, view_pos_) - view_pos_)));
  owned_ = std::move(kept);
  held_ = owned_;
  base_ = from;
  dead_ = 0;
  external_ = false;
  view_ = {};
}

void text_buffer::drop_before(std::uint64_t pos) {
  if (!view_.empty()) {  // the view's bytes are valid now, not after: copy what stays held
    settle(std::max(pos, begin()));
    return;
  }
  if (pos <= begin()) return;
  dead_ = static_cast<std::size_t>(std::min(pos, end()) - base_);
  if (external_) {
    held_.remove_prefix(dead_);
    base_ += dead_;
    dead_ = 0;
  } else if (dead_ >= (std::size_t{1} << 16) && dead_ * 2 >= owned_.size()) {
    owned_.erase(0, dead_);
    held_ = owned_;
    base_ += dead_;
    dead_ = 0;
  }
}

std::string_view text_buffer::at(std::uint64_t a, std::uint64_t b) const {
  a = std::max(a, begin());
  b = std::min(b, end());
  if (a >= b) return {};
  if (b <= base_ + held_.size()) return held_.substr(static_cast<std::size_t>(a - base_), static_cast<std::size_t>(b - a));
  if (a < view_pos_) throw std::logic_error("text_buffer: a range longer than its seam");
  return view_.substr(static_cast<std::size_t>(a - view_pos_), static_cast<std::size_t>(b - a));
}

std::uint64_t text_buffer::find_newline(std::uint64_t pos) const {
  const std::string_view t = at(pos, end());
  const std::size_t nl = t.find('\n');
  return nl == std::string_view::npos ? end() : std::max(pos, begin()) + nl;
}

std::uint64_t text_buffer::line_start(std::uint64_t pos, std::uint64_t low) const {
  low = std::max(low, begin());
  const std::string_view t = at(low, pos);
  const std::size_t nl = t.rfind('\n');
  return nl == std::string_view::npos ? low : low + nl + 1;
}

std::uint64_t text_buffer::newlines(std::uint64_t a, std::uint64_t b) const {
  const std::string_view t = at(a, b);
  return count_byte(t.data(), t.size(), '\n');
}

char* window_set::add(std::uint64_t lo, std::size_t n) {
  if (!windows_.empty() && lo < windows_.back().hi) throw std::logic_error("window_set: windows out of order");
  if (n > room_ - used_) {
    const std::size_t room = std::max(used_ + n, 2 * room_);
    auto more = std::make_unique_for_overwrite<char[]>(room);
    if (used_ != 0) std::memcpy(more.get(), bytes_.get(), used_);
    bytes_ = std::move(more);
    room_ = room;
  }
  windows_.push_back({lo, lo + n, used_});
  used_ += n;
  return bytes_.get() + windows_.back().at;
}

std::string_view window_set::at(std::uint64_t a, std::uint64_t b) const {
  const auto w = std::upper_bound(windows_.begin(), windows_.end(), a, [](std::uint64_t v, const window& x) { return v < x.lo; });
  if (w == windows_.begin() || a >= std::prev(w)->hi) return {};  // no window holds a
  const window& x = *std::prev(w);
  b = std::min(b, x.hi);
  if (a >= b) return {};
  return std::string_view(bytes_.get() + x.at + (a - x.lo), static_cast<std::size_t>(b - a));
}

}  // namespace trawl::detail
