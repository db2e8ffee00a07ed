// seed_filter.cpp — see seed_filter.hpp. Building: O(256·n) for the classes, O(m²) per pattern
// for its neighbourhoods. A scan: one bitmap probe per text byte, the seeds of a passed tail
// compared, O(m + k) per window verified.
#include "approx/seed_filter.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <tuple>

namespace trawl::approx_detail {

namespace {

constexpr std::uint8_t no_class = 4;
// Seeds shorter than this hit too often to filter anything (4^6 = 4096 strings).
constexpr std::size_t min_seed = 6;
// A pattern whose seeds hit more often than this (per text byte, on random DNA) is left to
// the other engines: its verifications would cost more than scanning it.
constexpr double max_member_density = 1.0 / 512;

std::uint64_t seed_hash(std::uint64_t tail) { return tail * 0x9E3779B97F4A7C15ull; }

std::uint64_t len_mask(std::size_t len) { return len >= 32 ? ~std::uint64_t{0} : (std::uint64_t{1} << (2 * len)) - 1; }

std::uint64_t encode(const std::vector<std::uint8_t>& s) {
  std::uint64_t c = 0;
  for (const std::uint8_t x : s) c = c << 2 | x;
  return c;
}

/// Every string within e (0 or 1) edits of s, as (length, code), duplicates included.
void neighbours(const std::vector<std::uint8_t>& s, unsigned e, std::vector<std::pair<std::uint8_t, std::uint64_t>>& out) {
  out.emplace_back(static_cast<std::uint8_t>(s.size()), encode(s));
  if (e == 0) return;
  std::vector<std::uint8_t> t;
  for (std::size_t i = 0; i < s.size(); ++i)
    for (std::uint8_t c = 0; c < 4; ++c) {
      if (c == s[i]) continue;
      t = s;
      t[i] = c;
      out.emplace_back(static_cast<std::uint8_t>(t.size()), encode(t));
    }
  for (std::size_t i = 0; i < s.size(); ++i) {
    t = s;
    t.erase(t.begin() + static_cast<std::ptrdiff_t>(i));
    out.emplace_back(static_cast<std::uint8_t>(t.size()), encode(t));
  }
  for (std::size_t i = 0; i <= s.size(); ++i)
    for (std::uint8_t c = 0; c < 4; ++c) {
      t = s;
      t.insert(t.begin() + static_cast<std::ptrdiff_t>(i), c);
      out.emplace_back(static_cast<std::uint8_t>(t.size()), encode(t));
    }
}

/// The seeds of one pattern (its class codes, error bound k): pieces with j·(e + 1) > k, the
/// error budget e per piece (0 or 1) whichever hits less often. Each seed as (length, code,
/// pattern bytes after its piece); empty when no cut gives seeds of min_seed bytes and at
/// most 32.
std::vector<std::tuple<std::uint8_t, std::uint64_t, std::uint32_t>> pattern_seeds(const std::vector<std::uint8_t>& codes,
                                                                                   std::uint32_t k, double& density) {
  const std::size_t m = codes.size();
  std::vector<std::tuple<std::uint8_t, std::uint64_t, std::uint32_t>> best;
  density = 0;
  for (unsigned e = 0; e <= 1; ++e) {
    // j·(e + 1) > k, and pieces short enough that a seed (a piece and e insertions) fits 32 bytes
    const std::size_t j = std::max<std::size_t>(k / (e + 1) + 1, (m + 31 - e) / (32 - e));
    if (j > m || m / j < min_seed + e) continue;
    std::vector<std::tuple<std::uint8_t, std::uint64_t, std::uint32_t>> seeds;
    std::vector<std::pair<std::uint8_t, std::uint64_t>> near;
    std::size_t at = 0;
    for (std::size_t i = 0; i < j; ++i) {
      const std::size_t len = m / j + (i < m % j ? 1 : 0);
      near.clear();
      neighbours(std::vector<std::uint8_t>(codes.begin() + static_cast<std::ptrdiff_t>(at),
                                           codes.begin() + static_cast<std::ptrdiff_t>(at + len)),
                 e, near);
      at += len;
      for (const auto& [l, c] : near) seeds.emplace_back(l, c, static_cast<std::uint32_t>(m - at));
    }
    std::sort(seeds.begin(), seeds.end());
    seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
    double d = 0;
    for (const auto& s : seeds) d += std::ldexp(1.0, -2 * std::get<0>(s));
    if (best.empty() || d < density) {
      best = std::move(seeds);
      density = d;
    }
  }
  return best;
}

}  // namespace

std::optional<seed_index> seed_index::build(std::span<const compiled_pattern* const> pats,
                                            std::span<const std::uint32_t> ks) {
  if (pats.empty()) return std::nullopt;
  for (const compiled_pattern* p : pats)
    if (p->words != 1) return std::nullopt;
  // Each byte's match column over all patterns, through a hash (equal columns are then
  // compared whole): O(256·n), however many patterns there are.
  std::array<std::uint64_t, 256> hash{};
  for (const compiled_pattern* p : pats)
    for (unsigned c = 0; c < 256; ++c) hash[c] = (hash[c] ^ p->peq[c]) * 0x9E3779B97F4A7C15ull + 1;
  auto same_column = [&](unsigned a, unsigned b) {
    if (hash[a] != hash[b]) return false;
    for (const compiled_pattern* p : pats)
      if (p->peq[a] != p->peq[b]) return false;
    return true;
  };
  // The classes: the distinct match columns of the bytes the patterns use, at most four.
  std::vector<unsigned> reps;
  std::array<int, 256> class_of{};
  class_of.fill(-1);
  for (const compiled_pattern* p : pats)
    for (const char ch : p->bytes) {
      const auto b = static_cast<unsigned char>(ch);
      if (class_of[b] >= 0) continue;
      std::size_t x = 0;
      while (x < reps.size() && !same_column(b, reps[x])) ++x;
      if (x == reps.size()) {
        if (reps.size() == 4) return std::nullopt;
        reps.push_back(b);
      }
      class_of[b] = static_cast<int>(x);
    }
  std::vector<std::vector<std::uint8_t>> codes(pats.size());
  for (std::size_t n = 0; n < pats.size(); ++n)
    for (const char ch : pats[n]->bytes) codes[n].push_back(static_cast<std::uint8_t>(class_of[static_cast<unsigned char>(ch)]));
  // Each pattern byte matches the bytes of its class and of no other class ...
  for (std::size_t n = 0; n < pats.size(); ++n)
    for (std::size_t x = 0; x < reps.size(); ++x) {
      std::uint64_t want = 0;
      for (std::size_t i = 0; i < codes[n].size(); ++i)
        if (codes[n][i] == x) want |= std::uint64_t{1} << i;
      if (pats[n]->peq[reps[x]] != want) return std::nullopt;
    }
  // ... and a byte of no class matches no pattern byte (under IUPAC rules a text G matches
  // both R and S: with patterns of R and S it would be of neither class and still match).
  seed_index idx;
  for (unsigned c = 0; c < 256; ++c) {
    idx.code_[c] = no_class;
    for (std::size_t x = 0; x < reps.size(); ++x)
      if (same_column(c, reps[x])) idx.code_[c] = static_cast<std::uint8_t>(x);
    if (idx.code_[c] == no_class)
      for (const compiled_pattern* p : pats)
        if (p->peq[c] != 0) return std::nullopt;
  }
  // Every member's seeds, then one table of (length, seed) over all of them.
  struct row {
    std::uint8_t len;
    std::uint64_t key;
    std::uint32_t member, rest;
    auto operator<=>(const row&) const = default;
  };
  std::vector<row> rows;
  for (std::size_t n = 0; n < pats.size(); ++n) {
    double d = 0;
    auto seeds = pattern_seeds(codes[n], ks[n], d);
    if (seeds.empty() || d > max_member_density) continue;
    const auto member = static_cast<std::uint32_t>(idx.members_.size());
    idx.members_.push_back(static_cast<std::uint32_t>(n));
    idx.density_.push_back(d);
    idx.ks_.push_back(ks[n]);
    idx.ms_.push_back(static_cast<std::uint32_t>(pats[n]->m));
    for (const auto& [l, c, rest] : seeds) rows.push_back({l, c, member, rest});
  }
  if (idx.members_.empty()) return std::nullopt;
  // A seed is looked up by its last tail_len_ bytes (the shortest seed's length, at most 11:
  // a bitmap of 4^11 bits is 512 KiB, within a core's L2) and then compared whole.
  std::size_t shortest = 32;
  for (const row& r : rows) shortest = std::min<std::size_t>(shortest, r.len);
  idx.tail_len_ = std::min<std::size_t>(shortest, 11);
  const std::uint64_t tail_mask = len_mask(idx.tail_len_);
  std::sort(rows.begin(), rows.end(), [&](const row& x, const row& y) {
    return std::make_tuple(x.key & tail_mask, x.len, x.key, x.member, x.rest) <
           std::make_tuple(y.key & tail_mask, y.len, y.key, y.member, y.rest);
  });
  rows.erase(std::unique(rows.begin(), rows.end()), rows.end());
  std::size_t tails = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (i == 0 || (rows[i].key & tail_mask) != (rows[i - 1].key & tail_mask)) ++tails;
  idx.bitmap_.assign(std::max<std::size_t>(1, (tail_mask >> 6) + 1), 0);
  const std::size_t slots = std::bit_ceil(std::max<std::size_t>(16, 2 * tails));  // at most half full
  idx.slot_shift_ = 64 - static_cast<unsigned>(std::countr_zero(slots));
  idx.slots_.assign(slots, slot{});
  idx.entries_.reserve(rows.size());
  for (std::size_t i = 0; i < rows.size();) {
    const std::uint64_t tail = rows[i].key & tail_mask;
    std::size_t e = i;
    while (e < rows.size() && (rows[e].key & tail_mask) == tail) ++e;
    idx.bitmap_[tail >> 6] |= std::uint64_t{1} << (tail & 63);
    std::size_t s = seed_hash(tail) >> idx.slot_shift_;
    while (idx.slots_[s].count != 0) s = (s + 1) & (slots - 1);
    idx.slots_[s] = {tail, static_cast<std::uint32_t>(idx.entries_.size()), static_cast<std::uint32_t>(e - i)};
    for (; i < e; ++i)
      idx.entries_.push_back({rows[i].key, rows[i].member, static_cast<std::uint16_t>(rows[i].rest), rows[i].len});
  }
  return idx;
}

bool seed_index::find(std::string_view seq, std::size_t from, std::size_t to, std::vector<seed_window>& windows,
                      std::vector<classless_run>& runs, std::size_t cap) const {
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  const std::size_t q = tail_len_;
  const std::uint64_t tail_mask = len_mask(q);
  const std::uint64_t* bitmap = bitmap_.data();
  const std::size_t slot_mask = slots_.size() - 1;
  // In batches: first every byte's tail is looked up in the bitmap without a branch, the
  // positions it passes listed (the lookups are independent, so many are in flight at once);
  // then the listed ones are compared with their seeds.
  constexpr std::size_t batch = 1024;
  std::array<std::uint32_t, batch> at;
  std::array<std::uint64_t, batch> codes;
  std::array<std::uint8_t, batch> valids;
  std::uint64_t code = 0;
  std::uint64_t valid = 0;  // bytes of a class ending at t, at most 64
  std::size_t compares = 0;
  bool in_run = false;
  std::size_t run_begin = from;
  for (std::size_t b0 = from; b0 < to; b0 += batch) {
    const std::size_t nb = std::min(batch, to - b0);
    std::size_t passed = 0;
    for (std::size_t i = 0; i < nb; ++i) {
      const std::uint8_t x = code_[text[b0 + i]];
      if (x == no_class) [[unlikely]] {
        if (!in_run) {
          in_run = true;
          run_begin = b0 + i;
        }
        valid = 0;
        continue;
      }
      if (in_run) [[unlikely]] {
        in_run = false;
        runs.push_back({run_begin, b0 + i});
        if (runs.size() > cap) return false;
      }
      code = code << 2 | x;
      valid = std::min<std::uint64_t>(valid + 1, 64);
      const std::uint64_t tail = code & tail_mask;
      at[passed] = static_cast<std::uint32_t>(i);
      codes[passed] = code;
      valids[passed] = static_cast<std::uint8_t>(valid);
      passed += (bitmap[tail >> 6] >> (tail & 63)) & static_cast<std::uint64_t>(valid >= q);
    }
    for (std::size_t p = 0; p < passed; ++p) {
      const std::uint64_t c = codes[p], tail = c & tail_mask;
      const std::size_t t = b0 + at[p];
      std::size_t s = seed_hash(tail) >> slot_shift_;
      while (slots_[s].count == 0 || slots_[s].tail != tail) s = (s + 1) & slot_mask;  // the bitmap says it is there
      const slot& sl = slots_[s];
      // seeds that share a tail (many patterns with a common end, over text repeating it)
      // cost their compares whether or not they hit: they count against the cap too
      compares += sl.count;
      for (std::uint32_t i = sl.first; i < sl.first + sl.count; ++i) {
        const entry& en = entries_[i];
        if (en.len > valids[p] || (c & len_mask(en.len)) != en.key) continue;
        const std::uint32_t k = ks_[en.member];
        windows.push_back({t + (en.rest > k ? en.rest - k : 0), t + en.rest + k, en.member});
      }
    }
    if (windows.size() > cap || compares > 16 * cap) return false;
  }
  if (in_run) runs.push_back({run_begin, to});
  return true;
}

void scan_seeded(const seed_index& index, std::string_view seq, std::size_t from, std::size_t report_from,
                 std::size_t to,
                 const std::function<void(std::uint32_t, std::size_t, std::size_t, std::size_t)>& verify,
                 const std::function<void(std::uint32_t)>& whole) {
  if (report_from >= to) return;
  const std::size_t members = index.members_.size();
  // Per thread, kept between calls.
  thread_local std::vector<seed_window> wins;
  thread_local std::vector<classless_run> runs;
  wins.clear();
  runs.clear();
  // Past one window per 4 ends the verifications cost about what the unfiltered scan of a set
  // of a few dozen patterns does.
  const std::size_t cap = (to - report_from) / 4 + 64;
  const bool found = index.find(seq, from, to, wins, runs, cap);
  if (!found || runs.size() * 2 * members + wins.size() > cap) {
    for (std::uint32_t mi = 0; mi < members; ++mi) whole(mi);
    return;
  }
  // An alignment that holds a classless byte of run [b, e) ends inside the run's first k
  // bytes, or after the run, starting at most k bytes before its end: within m + k of e.
  for (const classless_run& r : runs)
    for (std::uint32_t mi = 0; mi < members; ++mi) {
      const std::uint64_t k = index.ks_[mi], m = index.ms_[mi];
      if (k == 0) continue;
      wins.push_back({r.begin, std::min<std::uint64_t>(r.end, r.begin + k) - 1, mi});
      wins.push_back({r.end, r.end + m + k, mi});
    }
  // By member (a counting sort), then by first end within each member's few windows.
  thread_local std::vector<seed_window> by_member;
  thread_local std::vector<std::size_t> first;
  first.assign(members + 1, 0);
  for (const seed_window& sw : wins) ++first[sw.member + 1];
  for (std::size_t mi = 0; mi < members; ++mi) first[mi + 1] += first[mi];
  by_member.resize(wins.size());
  for (const seed_window& sw : wins) by_member[first[sw.member]++] = sw;
  wins.swap(by_member);
  for (std::size_t mi = 0, b = 0; mi < members; ++mi) {
    const std::size_t e = first[mi];
    std::sort(wins.begin() + static_cast<std::ptrdiff_t>(b), wins.begin() + static_cast<std::ptrdiff_t>(e),
              [](const seed_window& x, const seed_window& y) { return x.lo < y.lo; });
    b = e;
  }
  thread_local std::vector<std::pair<std::uint64_t, std::uint64_t>> merged;
  for (std::size_t g = 0; g < wins.size();) {
    const std::uint32_t mi = wins[g].member;
    const std::uint64_t w = index.ms_[mi] + index.ks_[mi] - 1;  // an end's occurrence lies in the w bytes before it
    merged.clear();
    std::uint64_t cost = 0;
    for (; g < wins.size() && wins[g].member == mi; ++g) {
      const std::uint64_t lo = std::max<std::uint64_t>(wins[g].lo, report_from);
      const std::uint64_t hi = std::min<std::uint64_t>(wins[g].hi, to - 1);
      if (lo > hi) continue;
      if (!merged.empty() && lo <= merged.back().second + w) {
        merged.back().second = std::max(merged.back().second, hi);
        continue;
      }
      merged.emplace_back(lo, hi);
    }
    for (const auto& [lo, hi] : merged) cost += hi - lo + 1 + w;
    if (cost > (to - report_from) / 2) {
      whole(mi);
      continue;
    }
    for (const auto& [lo, hi] : merged) verify(mi, lo - from >= w ? lo - w : from, lo, hi + 1);
  }
}

}  // namespace trawl::approx_detail
