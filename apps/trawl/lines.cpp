// lines.cpp — grep's line view of a search (see lines.hpp).
#include "lines.hpp"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include "trawl/error.hpp"

namespace trawl::cli {
namespace {

constexpr const char* color_source = "\033[35m";
constexpr const char* color_number = "\033[32m";
constexpr const char* color_match = "\033[1;31m";
constexpr const char* color_off = "\033[0m";

}  // namespace

line_sink::line_sink(writer& w, const line_options& opt, line_state& state, std::string display)
    : w_(w), opt_(opt), state_(state), display_(std::move(display)),
      every_hit_(opt.only_matching || opt.color) {}

void line_sink::begin_record(const record_info& r) {
  if (r.format != io::format::plain)
    throw error(errc::invalid_argument, display_ +
                                            ": -n, -b, -o, -v and context lines need plain text (FASTA/FASTQ records have "
                                            "no lines; add --no-fasta)");
  binary_ = false;
  text_.reset();
  ended_ = false;
  floor_ = cursor_ = clean_ = 0;
  line_no_ = 1;
  pending_.clear();
  head_ = 0;
  kept_start_ = kept_nl_ = none;
  kept_scan_ = 0;
  ring_.clear();
  after_left_ = 0;
}

void line_sink::text(std::uint64_t pos, std::string_view bytes, bool stable) {
  if (done_) return;
  caught_up_ = false;
  if (pos < (64 << 10) && opt_.binary != binary_files::text && !binary_) {
    const std::size_t n = std::min<std::uint64_t>(bytes.size(), (64 << 10) - pos);
    binary_ = std::memchr(bytes.data(), '\0', n) != nullptr;
    if (binary_ && opt_.binary == binary_files::without_match) {
      done_ = true;  // nothing selected, nothing read further
      return;
    }
  }
  text_.append(pos, bytes, stable);
  process();
}

bool line_sink::hits(std::span<const hit> hits) {
  if (done_) return false;
  if (!hits.empty()) {
    if (head_ == pending_.size()) pending_.clear(), head_ = 0;
    const std::size_t at = pending_.size();
    if (every_hit_) {
      pending_.insert(pending_.end(), hits.begin(), hits.end());
    } else {
      for (const hit& h : hits)
        if (first_in_line(h)) pending_.push_back(h);
    }
    for (std::size_t i = std::max<std::size_t>(at, 1); i < pending_.size() && !dirty_; ++i)
      dirty_ = pending_[i].start < pending_[i - 1].start;
  }
  process();
  return !done_;
}

bool line_sink::first_in_line(const hit& h) {
  // kept: no hit kept yet, one out of start order, or the kept hit's line decided already
  if (kept_start_ == none || h.start < kept_start_ || kept_start_ < cursor_) {
    kept_start_ = kept_scan_ = h.start;
    kept_nl_ = none;
    return true;
  }
  // bytes dropped below begin() lie in [cursor_, clean_), which holds no '\n' (process)
  if (kept_nl_ == none) kept_scan_ = std::max(kept_scan_, text_.begin());
  if (kept_nl_ == none && h.start > kept_scan_) {  // look for the kept line's end once, up to h
    const std::string_view b = text_.at(kept_scan_, h.start);
    const std::size_t nl = b.find('\n');
    if (nl != std::string_view::npos) kept_nl_ = kept_scan_ + nl;
    else kept_scan_ += b.size();
  }
  if (kept_nl_ == none ? h.start <= kept_scan_ : h.start <= kept_nl_) return false;  // the kept hit's line
  kept_start_ = kept_scan_ = h.start;
  kept_nl_ = none;
  return true;
}

void line_sink::floor(std::uint64_t pos) {
  if (done_) return;
  floor_ = std::max(floor_, pos);
  process();
}

void line_sink::end_record(std::uint64_t) {
  ended_ = true;
  process();
}

void line_sink::idle() {
  if (!done_ && opt_.newline_free) {
    caught_up_ = true;
    process();
  }
  w_.flush();
}

void line_sink::process() {
  if (dirty_) {
    std::sort(pending_.begin() + static_cast<std::ptrdiff_t>(head_), pending_.end(),
              [](const hit& a, const hit& b) { return a.start < b.start; });
    dirty_ = false;
  }
  // Without -v and context, only lines with a hit matter: skip to the next one.
  const bool skip = !opt_.invert && opt_.before == 0 && opt_.after == 0;
  while (!done_ && cursor_ < text_.end()) {
    const std::uint64_t decided = ended_ ? text_.end() : std::min(floor_, text_.end());
    if (skip) {
      const std::uint64_t next = head_ < pending_.size() ? std::min(pending_[head_].start, decided) : decided;
      // no newline lies in [cursor_, clean_): only the bytes after are searched, so that a
      // long line is read once however many times it is looked at
      const std::uint64_t low = std::max(cursor_, clean_);
      const std::uint64_t found = next > low ? text_.line_start(next, low) : low;
      const std::uint64_t ls = found > low ? found : cursor_;
      clean_ = std::max(clean_, next);
      if (ls > cursor_) {
        if (opt_.numbers || opt_.context) line_no_ += text_.newlines(cursor_, ls);  // else unread
        cursor_ = ls;
      }
      if ((head_ == pending_.size() && !ended_) || cursor_ >= text_.end()) break;
    }
    const std::uint64_t le = text_.find_newline(std::max(cursor_, clean_));
    const bool complete = le < text_.end();
    if (!complete) clean_ = text_.end();
    // the line's newline has come and no later hit can start in it (or at its newline): past
    // the floor, or, at a pause, when no hit can hold a newline
    if (!ended_ && (!complete || (floor_ <= le && !(caught_up_ && opt_.newline_free)))) break;
    std::size_t n = 0;
    while (head_ + n < pending_.size() && pending_[head_ + n].start <= le) ++n;
    decide(cursor_, le, n);
    head_ += n;
    cursor_ = complete ? le + 1 : text_.end();
    ++line_no_;
  }
  if (head_ > 4096 && head_ * 2 > pending_.size()) {
    pending_.erase(pending_.begin(), pending_.begin() + static_cast<std::ptrdiff_t>(head_));
    head_ = 0;
  }
  // the lines printed need their bytes from the first undecided line (or the before-context) on
  text_.drop_before(ring_.empty() ? cursor_ : ring_.front().start);
}

void line_sink::decide(std::uint64_t ls, std::uint64_t le, std::size_t nhits) {
  if (stopping_) {  // -m reached: the lines after are trailing context, whatever they hold
    if (after_left_ > 0) print_line(ls, le, line_no_, '-', 0);
    done_ = after_left_ <= 1;
    if (after_left_ > 0) --after_left_;
    return;
  }
  const bool selected = (nhits > 0) != opt_.invert;
  if (selected && binary_) {  // grep's note instead of the line's bytes, and the input ends
    ++selected_;
    w_.flush();
    std::fprintf(stderr, "trawl: %s: binary file matches\n", display_.c_str());
    done_ = true;
    return;
  }
  if (selected) {
    ++selected_;
    for (const held_line& h : ring_) print_line(h.start, h.end, h.number, '-', 0);
    ring_.clear();
    print_line(ls, le, line_no_, ':', nhits);
    after_left_ = opt_.after;
    if (opt_.max_lines != 0 && selected_ >= opt_.max_lines) {
      stopping_ = true;
      done_ = after_left_ == 0;
    }
  } else if (after_left_ > 0) {
    print_line(ls, le, line_no_, '-', 0);
    --after_left_;
  } else if (opt_.before > 0) {
    ring_.push_back({ls, le, line_no_});
    if (ring_.size() > opt_.before) ring_.pop_front();
  }
}

void line_sink::separator(std::uint64_t number) {
  if (opt_.context && state_.printed && (last_printed_ == 0 || number != last_printed_ + 1))
    w_.put("--\n");
  state_.printed = true;
  last_printed_ = number;
}

void line_sink::prefix(std::uint64_t number, std::uint64_t offset, char sep) {
  if (opt_.with_source) {
    if (opt_.color) tmp_ += color_source;
    tmp_ += display_;
    if (opt_.color) tmp_ += color_off;
    tmp_ += opt_.null ? '\0' : sep;
  }
  if (opt_.numbers) {
    if (opt_.color) tmp_ += color_number;
    tmp_ += std::to_string(number);
    if (opt_.color) tmp_ += color_off;
    tmp_ += sep;
  }
  if (opt_.byte_offsets) {
    tmp_ += std::to_string(offset);
    tmp_ += sep;
  }
}

void line_sink::print_line(std::uint64_t ls, std::uint64_t le, std::uint64_t number, char sep, std::size_t nhits) {
  separator(number);
  tmp_.clear();
  const hit* hs = pending_.data() + head_;
  if (opt_.only_matching) {
    for (std::size_t i = 0; i < nhits; ++i) {
      if (hs[i].end == hs[i].start) continue;  // an empty match (-E) prints nothing, as rg -o
      prefix(number, hs[i].start, sep);
      if (opt_.color) tmp_ += color_match;
      tmp_ += text_.at(hs[i].start, hs[i].end);
      if (opt_.color) tmp_ += color_off;
      tmp_ += '\n';
    }
    w_.put(tmp_);
    return;
  }
  prefix(number, ls, sep);
  if (!opt_.color || nhits == 0) {
    tmp_ += text_.at(ls, le);
  } else {
    // the hits' union, clipped to the line, highlighted
    std::uint64_t at = ls;
    for (std::size_t i = 0; i < nhits;) {
      const std::uint64_t s = std::max(hs[i].start, at);
      std::uint64_t e = std::min(hs[i].end, le);
      for (++i; i < nhits && hs[i].start <= e; ++i) e = std::max(e, std::min(hs[i].end, le));
      if (e <= s) continue;
      tmp_ += text_.at(at, s);
      tmp_ += color_match;
      tmp_ += text_.at(s, e);
      tmp_ += color_off;
      at = e;
    }
    tmp_ += text_.at(at, le);
  }
  tmp_ += '\n';
  w_.put(tmp_);
}

void line_counter::begin_record(const record_info& r) {
  records_ = r.format != io::format::plain;
  record_hits_ = 0;
  starts_.clear();
  breaks_.clear();
  breaks_head_ = 0;
  newlines_ = hit_lines_ = 0;
  last_break_ = none;
  counted_any_ = counted_open_ = false;
}

void line_counter::line_breaks(std::span<const std::uint64_t> ends, std::uint64_t count, std::uint64_t last,
                               std::uint64_t settled) {
  if (records_) return;
  if (settled != 0 && !done_) {  // lines after those counted so far, before every start held
    hit_lines_ += settled;
    if (!opt_.invert) {
      selected_ = opt_.max_lines != 0 ? std::min(hit_lines_, opt_.max_lines) : hit_lines_;
      done_ = opt_.max_lines != 0 && selected_ >= opt_.max_lines;
    }
  }
  newlines_ += count;
  if (last != none) last_break_ = last;
  for (const std::uint64_t e : ends) {
    if (counted_open_ && e >= open_start_) {  // the line counted last ends at its first break
      counted_end_ = e;
      counted_open_ = false;
    }
    // mostly past the last one; the line end of a hit that starts before these bytes may not be
    const auto at = std::lower_bound(breaks_.begin() + static_cast<std::ptrdiff_t>(breaks_head_), breaks_.end(), e);
    if (at == breaks_.end() || *at != e) breaks_.insert(at, e);
  }
}

bool line_counter::hits(std::span<const hit> hits) {
  if (done_) return false;
  if (records_) {
    record_hits_ += hits.size();
    return true;
  }
  for (const hit& h : hits) starts_.push_back(h.start);
  return true;
}

void line_counter::floor(std::uint64_t pos) {
  if (!records_ && !done_) settle(pos);
}

void line_counter::settle(std::uint64_t below) {
  const auto cut = std::partition(starts_.begin(), starts_.end(), [below](std::uint64_t s) { return s < below; });
  std::sort(starts_.begin(), cut);
  for (auto s = starts_.begin(); s != cut && !done_; ++s) {
    if (counted_any_ && (counted_open_ || *s <= counted_end_)) continue;  // its line is counted
    const auto next = std::lower_bound(breaks_.begin() + static_cast<std::ptrdiff_t>(breaks_head_), breaks_.end(), *s);
    counted_any_ = true;
    counted_open_ = next == breaks_.end();
    if (!counted_open_) counted_end_ = *next;
    else open_start_ = *s;
    ++hit_lines_;
    if (!opt_.invert) {
      selected_ = hit_lines_;
      done_ = opt_.max_lines != 0 && selected_ >= opt_.max_lines;
    }
  }
  starts_.erase(starts_.begin(), cut);
  // later starts are not before `below`: the breaks before it are not needed again
  while (breaks_head_ < breaks_.size() && breaks_[breaks_head_] < below) ++breaks_head_;
  if (breaks_head_ > 4096 && breaks_head_ * 2 > breaks_.size()) {
    breaks_.erase(breaks_.begin(), breaks_.begin() + static_cast<std::ptrdiff_t>(breaks_head_));
    breaks_head_ = 0;
  }
}

void line_counter::end_record(std::uint64_t length) {
  if (records_) {
    if (!done_ && (record_hits_ > 0) != opt_.invert) {
      ++selected_;
      done_ = opt_.max_lines != 0 && selected_ >= opt_.max_lines;
    }
    return;
  }
  // a start at the very end lies on no line when the text ends with its line break (an
  // empty match past the last '\n')
  const bool last_line_open = length > (last_break_ == none ? 0 : last_break_ + 1);
  if (!last_line_open) std::erase_if(starts_, [length](std::uint64_t s) { return s >= length; });
  if (!done_) settle(none);
  if (opt_.invert) {
    const std::uint64_t lines = newlines_ + (last_line_open ? 1 : 0);
    selected_ = lines - std::min(lines, hit_lines_);
    if (opt_.max_lines != 0) selected_ = std::min(selected_, opt_.max_lines);
  }
}

}  // namespace trawl::cli
