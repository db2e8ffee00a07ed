// trawl/detail/engine.hpp — the engines behind a trawl::matcher: the interface every CPU, GPU
// and wrapping engine implements, and the driver (search.cpp) calls. For the library and
// trawl's own programs (the CLI's MPI engine); not installed and not part of the API (see
// docs/API.md).
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::detail {

/// A cluster hit (approximate search, one hit per cluster) whose cluster a scan's edges cut:
/// out[index] is the best end so far of a cluster that reaches own_begin (sides bit 0) and/or
/// own_end - 1 (bit 1), so it may go on in the neighbouring slice. The driver merges the
/// pieces; callers never see them.
struct open_mark {
  std::size_t index = 0;
  std::uint8_t sides = 0;
};

/// Where a scanned window's bytes lie in the mapped input file, when the driver knows it:
/// window bytes [from, end) are sequence bytes of a FASTA file read in lines of `width` bytes,
/// each ended by '\n' (the last may be shorter), that begin at byte `file_offset` of the
/// mapping (a line start); window byte from + i is that run's sequence byte seq_offset + i,
/// which lies at file_offset + s + s / width for s = seq_offset + i.
struct window_origin {
  std::size_t from = 0;
  std::uint64_t seq_offset = 0;
  std::uint64_t file_offset = 0;
  std::uint32_t width = 0;  ///< 0: the window's bytes are only in memory
};

/// A compiled pattern set that scans any window of a sequence. Implementations must be safe
/// to call scan() on from several threads at once.
class engine {
 public:
  virtual ~engine() = default;
  /// Bytes before an owned range that a scan needs to see (m+k-1 for approximate search).
  [[nodiscard]] virtual std::size_t lookbehind() const = 0;
  /// Bytes after an owned range that a scan needs to see (max m - 1 for exact search).
  [[nodiscard]] virtual std::size_t lookahead() const = 0;
  [[nodiscard]] virtual hit_key key() const = 0;
  /// True when every hit a scan appends is of one (pattern, strand), so that in a scan's
  /// sorted output only the first and the last hit can be open. The driver then summarizes a
  /// slice without reading its hits. The default makes no such promise.
  [[nodiscard]] virtual bool one_pattern_strand() const { return false; }
  /// How many times a scan reads each byte (an approximate engine: once per pattern-strand),
  /// the weight the driver gives a slice's bytes.
  [[nodiscard]] virtual std::size_t scans_per_byte() const { return 1; }
  /// Where the scans run: the CPU, or the GPUs of a GPU engine (one per worker, in order).
  [[nodiscard]] virtual device_spec device() const { return device_kind::cpu; }
  /// Appends every hit whose key position p satisfies own_begin <= p < own_end, sorted by
  /// (key position, pattern, strand, start, end), and an open_mark (indices into `out`,
  /// ascending) for each cluster hit cut by own_begin or own_end - 1. `seq` is the whole
  /// sequence and coordinates are sequence offsets; only [own_begin - lookbehind, own_end +
  /// lookahead) is read.
  virtual void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
                    std::vector<open_mark>& open) const = 0;
  /// True when the engine can use where a window's bytes lie in the input file (scan_from),
  /// so that the driver works it out; the default does not.
  [[nodiscard]] virtual bool uses_origin() const { return false; }
  /// As scan(), told where the window's bytes lie in the input file (origin.width != 0).
  virtual void scan_from(const window_origin& origin, std::string_view seq, std::size_t own_begin,
                         std::size_t own_end, std::vector<hit>& out, std::vector<open_mark>& open) const {
    (void)origin;
    scan(seq, own_begin, own_end, out, open);
  }
};

/// An engine around another (a filter, a dispatcher): what it does not override is the inner
/// engine's, so a property added to engine reaches every wrapper.
class engine_wrapper : public engine {
 public:
  explicit engine_wrapper(const engine& inner) noexcept : inner_(&inner) {}
  [[nodiscard]] std::size_t lookbehind() const override { return inner_->lookbehind(); }
  [[nodiscard]] std::size_t lookahead() const override { return inner_->lookahead(); }
  [[nodiscard]] hit_key key() const override { return inner_->key(); }
  [[nodiscard]] bool one_pattern_strand() const override { return inner_->one_pattern_strand(); }
  [[nodiscard]] std::size_t scans_per_byte() const override { return inner_->scans_per_byte(); }
  [[nodiscard]] device_spec device() const override { return inner_->device(); }

 protected:
  [[nodiscard]] const engine& inner() const noexcept { return *inner_; }

 private:
  const engine* inner_;
};

/// A cluster hit a scan's edges cut, by what identifies it among cluster hits (its end, pattern
/// and strand), for an engine that orders its hits only after it has found them.
struct cut_cluster {
  std::uint64_t end = 0;
  std::uint32_t pattern = 0;
  strand dir = strand::forward;
  std::uint8_t sides = 0;
};

/// Appends to `open` the marks of `cut` by their places in out[first..), which is sorted by
/// (end, pattern, strand) and holds each of them once (one hit per cluster).
inline void mark_cut(const std::vector<hit>& out, std::size_t first, const std::vector<cut_cluster>& cut,
                     std::vector<open_mark>& open) {
  const std::size_t open_first = open.size();
  for (const cut_cluster& c : cut) {
    const auto at = std::lower_bound(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), c,
                                     [](const hit& h, const cut_cluster& k) {
                                       if (h.end != k.end) return h.end < k.end;
                                       if (h.pattern != k.pattern) return h.pattern < k.pattern;
                                       return h.dir < k.dir;
                                     });
    open.push_back({static_cast<std::size_t>(at - out.begin()), c.sides});
  }
  std::sort(open.begin() + static_cast<std::ptrdiff_t>(open_first), open.end(),
            [](const open_mark& a, const open_mark& b) { return a.index < b.index; });
}

/// Keeps the hits out[i], i >= first, that keep(i) accepts, in order, and the marks of those
/// kept (their indices moved with them); open[open_first..) are the marks of out[first..).
template <class Keep>
void keep_hits(std::vector<hit>& out, std::size_t first, std::vector<open_mark>& open, std::size_t open_first,
               Keep&& keep) {
  std::size_t w = first, m = open_first, wm = open_first;
  for (std::size_t i = first; i < out.size(); ++i) {
    const bool marked = m < open.size() && open[m].index == i;
    if (keep(i)) {
      if (marked) open[wm++] = {w, open[m].sides};
      out[w++] = out[i];
    }
    if (marked) ++m;
  }
  out.resize(w);
  open.resize(wm);
}

/// The engine for `patterns` under `options` (make_matcher's).
std::unique_ptr<engine> make_engine(const std::vector<std::string>& patterns, const search_options& options);
/// The engines of make_exact_matcher, make_iupac_exact_matcher and make_approx_matcher.
std::unique_ptr<engine> make_exact_engine(const std::vector<std::string>& patterns, const search_options& options);
std::unique_ptr<engine> make_iupac_exact_engine(const std::vector<std::string>& patterns,
                                                const search_options& options);
std::unique_ptr<engine> make_approx_engine(const std::vector<std::string>& patterns, const search_options& options);

/// A matcher's engine, for the library's own drivers (not part of the API).
struct engine_access {
  static const engine& of(const matcher& m) noexcept { return *m.engine_; }
};
inline const engine& engine_of(const matcher& m) noexcept { return engine_access::of(m); }

}  // namespace trawl::detail
