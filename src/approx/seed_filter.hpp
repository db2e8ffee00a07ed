// seed_filter.hpp — approximate search of many short patterns at once by exact lookups of
// their pieces' neighbourhoods (the seed filter). An alignment of P with <= k errors, P cut
// into j pieces with j·(e + 1) > k, gives one piece <= e errors; with e <= 1 every string
// within e of a piece is enumerated beforehand, and one pass over the text looks each of its
// substrings of those lengths up in one table for all patterns. A hit bounds the ends of the
// whole pattern to 2k + 1 positions, which one-word Myers verifies. The pass costs the same
// for one pattern or hundreds, so the filter is for sets (plan.hpp decides).
//
// It needs patterns whose bytes fall into at most four classes: each pattern byte matches the
// bytes of exactly one class, and a byte of no class matches no pattern byte (DNA patterns of
// A, C, G, T, with or without -i; not IUPAC codes in the patterns under --iupac). A text byte of
// no class (N, IUPAC letters, lowercase under case-sensitive rules) cannot be in a seed, so
// every alignment that holds one (an error each: at most k) is verified around its run.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string_view>
#include <vector>

#include "approx/approx_internal.hpp"

namespace trawl::approx_detail {

/// Ends [lo, hi] (inclusive) of member `member` that a seed hit leaves possible.
struct seed_window {
  std::uint64_t lo, hi;
  std::uint32_t member;
};

/// A maximal run [begin, end) of text bytes of no class.
struct classless_run {
  std::uint64_t begin, end;
};

class seed_index {
 public:
  /// The seeds of those of `pats` (m <= 64, error bounds `ks`) that the filter can take:
  /// members() lists them (indices into pats). Empty when the patterns' bytes do not fall
  /// into at most four classes, or none of them can be seeded.
  static std::optional<seed_index> build(std::span<const compiled_pattern* const> pats,
                                         std::span<const std::uint32_t> ks);

  [[nodiscard]] const std::vector<std::uint32_t>& members() const { return members_; }
  /// The filter's tables for the GPU (cuda::seed_plan's fields; member_task: the index of
  /// each member's pattern among those build() was given).
  template <class Plan>
  void export_tables(Plan& out) const;
  /// Expected seed hits per text byte over a uniform random text of four classes, of one member.
  [[nodiscard]] double density(std::size_t member) const { return density_[member]; }
  /// The same, of all members together.
  [[nodiscard]] double total_density() const {
    double d = 0;
    for (const double x : density_) d += x;
    return d;
  }

  /// Every window of the members' possible ends that a seed lying in seq[from, to) gives,
  /// and the runs of classless bytes of seq[from, to), in any order. False (and the outputs
  /// cut short) once more than `cap` windows or runs were found, or 16·cap seeds compared.
  bool find(std::string_view seq, std::size_t from, std::size_t to, std::vector<seed_window>& windows,
            std::vector<classless_run>& runs, std::size_t cap) const;

 private:
  struct slot {
    std::uint64_t tail = 0;
    std::uint32_t first = 0, count = 0;  ///< entries [first, first + count); count 0: empty
  };
  struct entry {
    std::uint64_t key;   ///< the seed's code, two bits a byte, its last byte lowest
    std::uint32_t member;
    std::uint16_t rest;  ///< pattern bytes after the piece
    std::uint8_t len;    ///< the seed's length
  };
  std::vector<std::uint32_t> members_;
  std::vector<double> density_;
  std::vector<std::uint32_t> ks_, ms_;  ///< per member
  std::array<std::uint8_t, 256> code_{};  ///< class of each byte, 4: none
  std::size_t tail_len_ = 0;              ///< the seeds are found by their last tail_len_ bytes
  std::vector<std::uint64_t> bitmap_;     ///< one bit per tail: some seed ends with it
  std::vector<slot> slots_;               ///< the tails' entries, open addressing
  unsigned slot_shift_ = 0;
  std::vector<entry> entries_;            ///< grouped by tail

  friend void scan_seeded(const seed_index&, std::string_view, std::size_t, std::size_t, std::size_t,
                          const std::function<void(std::uint32_t, std::size_t, std::size_t, std::size_t)>&,
                          const std::function<void(std::uint32_t)>&);
};

/// Scans ends [report_from, to) of every member, the DP as if the text started at `from`: the
/// seeds' windows, joined per member where a warm-up apart, go to verify(member, context,
/// first end, one past the last end) in ascending order per member; a member whose windows
/// cover much of the range (or every member, when the seeds are dense) goes to whole(member),
/// to be scanned unfiltered.
void scan_seeded(const seed_index& index, std::string_view seq, std::size_t from, std::size_t report_from,
                 std::size_t to,
                 const std::function<void(std::uint32_t, std::size_t, std::size_t, std::size_t)>& verify,
                 const std::function<void(std::uint32_t)>& whole);

template <class Plan>
void seed_index::export_tables(Plan& out) const {
  out.code = code_;
  out.tail_len = static_cast<std::uint32_t>(tail_len_);
  out.slot_shift = slot_shift_;
  out.bitmap = bitmap_;
  for (const slot& s : slots_) {
    out.slot_tail.push_back(s.tail);
    out.slot_first.push_back(s.first);
    out.slot_count.push_back(s.count);
  }
  for (const entry& e : entries_) {
    out.entry_key.push_back(e.key);
    out.entry_member.push_back(e.member);
    out.entry_rest.push_back(e.rest);
    out.entry_len.push_back(e.len);
  }
  out.member_task = members_;
  out.member_m = ms_;
  out.member_k = ks_;
}

}  // namespace trawl::approx_detail
