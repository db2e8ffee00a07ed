// lz77.cpp — exact greedy LZ77 parse (longest previous factor) from the suffix array.
//
// Kärkkäinen, Kempa, Puglisi, "Linear time Lempel-Ziv factorization: simple, fast, small"
// (CPM 2013), algorithm KKP3. For every text position i, PSV[i]/NSV[i] are the nearest
// suffixes before/after i in suffix-array order with a smaller text position; the longest
// previous factor at i starts at one of them. Their LCPs with i are computed by direct
// comparison, only at phrase heads: each costs at most the phrase length + 1, so the parse
// is O(n) after the suffix array (libdivsufsort, O(n log n) worst case).
// Memory: text + SA + PSV + NSV = 13n bytes with 32-bit positions (n < 2^31), 25n with
// 64-bit ones (the SA doubles as the PSV/NSV stack and is freed before the parse).
//
// Relative LZ (Kuruppu, Puglisi, Zobel, "Relative Lempel-Ziv compression of genomes for
// large-scale storage and retrieval", SPIRE 2010) bounds that: the text's first r bytes (the
// reference) are parsed as above, and every later phrase is the longest match of what follows
// in the reference, found by binary search in the reference's suffix array (lcp-bounded
// comparisons: Manber and Myers' mlr). The reference's 4r-byte suffix array is kept for that;
// the later blocks are parsed in parallel, a phrase never crossing a block's end.
//
// In a collection of genomes of one species a reference phrase ends at every variant of the
// later genome *and* at every variant of the reference itself, though another earlier genome
// often carries the later one's allele there. A second pass therefore offers co-linear
// sources: the first pass's long phrases, merged while their shift (text position minus
// reference position) stays the same, map stretches of every later genome to reference
// coordinates ("chains"). At a phrase head i, the chain of i's own genome gives i's coordinate
// c; the chains of earlier genomes that cover c give candidate sources at the same coordinate,
// each extended by direct comparison. The phrase is the longest of those candidates and the
// reference match, so phrases end near the later genome's own variants only.
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>
#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <cstdint>
#include <cstring>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/parallel_for.h>

#include <divsufsort.h>
#include <divsufsort64.h>

#include "index/index_impl.hpp"
#include "trawl/error.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::index {

template <class Int>
void suffix_sort(std::string_view text, Int* sa) {
  const auto* t = reinterpret_cast<const sauchar_t*>(text.data());
  int rc = 0;
  if constexpr (std::is_same_v<Int, std::int32_t>) {
    rc = divsufsort(t, sa, static_cast<saidx_t>(text.size()));
  } else {
    rc = divsufsort64(t, sa, static_cast<saidx64_t>(text.size()));
  }
  if (rc != 0) throw error(errc::invalid_argument, "suffix sorting failed (out of memory?)");
}
template void suffix_sort<std::int32_t>(std::string_view, std::int32_t*);
template void suffix_sort<std::int64_t>(std::string_view, std::int64_t*);

template <class Int>
void suffix_sort(std::string_view text, Int* sa, const progress_callback& progress, std::string_view stage) {
  using clock = std::chrono::steady_clock;
  const std::uint64_t n = text.size();
  if (!progress) return suffix_sort(text, sa);
  progress(stage, 0, n);
  if (n < suffix_sort_estimate_from) {
    suffix_sort(text, sa);
    return;
  }
  // the expected time: a sort of the text's first 64th, scaled by n log n
  const auto t0 = clock::now();
  const std::uint64_t part = n / 64;
  {
    std::vector<Int> sa_part(part);
    suffix_sort(text.substr(0, part), sa_part.data());
  }
  const double t_part = std::chrono::duration<double>(clock::now() - t0).count();
  const double expect = t_part + t_part * 64.0 * std::log2(static_cast<double>(n)) / std::log2(static_cast<double>(part));
  std::mutex mu;
  std::condition_variable cv;
  bool finished = false;
  std::exception_ptr failed;
  std::thread sorter([&] {
    try {
      suffix_sort(text, sa);
    } catch (...) {
      failed = std::current_exception();
    }
    const std::lock_guard lock(mu);
    finished = true;
    cv.notify_one();
  });
  std::exception_ptr callback_failed;
  {
    std::unique_lock lock(mu);
    while (!cv.wait_for(lock, std::chrono::milliseconds(250), [&] { return finished; })) {
      const double share = std::chrono::duration<double>(clock::now() - t0).count() / expect;
      lock.unlock();
      try {
        if (!callback_failed) progress(stage, static_cast<std::uint64_t>(static_cast<double>(n) * std::min(share, 0.99)), n);
      } catch (...) {
        callback_failed = std::current_exception();  // the sort has no way to stop: waited for, then thrown
      }
      lock.lock();
    }
  }
  sorter.join();
  if (failed) std::rethrow_exception(failed);
  if (callback_failed) std::rethrow_exception(callback_failed);
}
template void suffix_sort<std::int32_t>(std::string_view, std::int32_t*, const progress_callback&, std::string_view);
template void suffix_sort<std::int64_t>(std::string_view, std::int64_t*, const progress_callback&, std::string_view);

namespace {

/// The exact parse of `text`; with `keep_sa`, its suffix array is left there (text.size()
/// entries); with `on_sa`, it is handed over as soon as it is sorted.
template <class Int>
std::vector<lz77_phrase> kkp3(std::string_view text, const progress_callback& progress,
                              std::vector<Int>* keep_sa = nullptr, const whole_suffix_array* on_sa = nullptr) {
  const auto n = static_cast<std::int64_t>(text.size());
  std::vector<lz77_phrase> phrases;
  if (n == 0) return phrases;
  // sa has two extra slots so the sentinels -1 at both ends need no special case.
  std::vector<Int> sa(static_cast<std::size_t>(n) + 2);
  suffix_sort<Int>(text, sa.data() + 1, progress, "suffix array");
  sa[0] = -1;
  sa[static_cast<std::size_t>(n) + 1] = -1;
  if (progress) progress("suffix array", static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));
  if (keep_sa) keep_sa->assign(sa.begin() + 1, sa.end() - 1);
  if (on_sa != nullptr && *on_sa) {
    if constexpr (std::is_same_v<Int, std::int32_t>) (*on_sa)(sa.data() + 1, nullptr);
    else (*on_sa)(nullptr, sa.data() + 1);
  }

  // PSV/NSV in text order with a stack of increasing text positions (KKP3). The stack lives
  // in the prefix of `sa` already read (top index <= i).
  std::vector<Int> psv(static_cast<std::size_t>(n)), nsv(static_cast<std::size_t>(n));
  {
    std::size_t top = 0;  // sa[0..top] is the stack; sa[0] = -1 stays at the bottom
    for (std::size_t i = 1; i <= static_cast<std::size_t>(n) + 1; ++i) {
      const Int cur = sa[i];
      while (sa[top] > cur) {
        const auto x = static_cast<std::size_t>(sa[top]);
        nsv[x] = cur;
        psv[x] = sa[top - 1];
        --top;
      }
      sa[++top] = cur;
    }
  }
  std::vector<Int>().swap(sa);

  // Greedy parse: at a head i, the longest previous factor is max(lcp(i, psv), lcp(i, nsv)).
  const char* t = text.data();
  auto lcp = [&](std::int64_t a, std::int64_t b) -> std::int64_t {  // a < b: self-overlap is fine
    std::int64_t l = 0;
    while (b + l < n && t[a + l] == t[b + l]) ++l;
    return l;
  };
  std::int64_t i = 0;
  std::uint64_t next_report = 1u << 24;
  while (i < n) {
    const std::int64_t p = psv[static_cast<std::size_t>(i)], q = nsv[static_cast<std::size_t>(i)];
    std::int64_t lp = p >= 0 ? lcp(p, i) : 0, lq = q >= 0 ? lcp(q, i) : 0;
    lz77_phrase ph;
    ph.pos = static_cast<std::uint64_t>(i);
    if (lp == 0 && lq == 0) {
      ph.len = 1;
      ph.literal = true;
    } else if (lp >= lq) {
      ph.len = static_cast<std::uint64_t>(lp);
      ph.src = static_cast<std::uint64_t>(p);
    } else {
      ph.len = static_cast<std::uint64_t>(lq);
      ph.src = static_cast<std::uint64_t>(q);
    }
    phrases.push_back(ph);
    i += static_cast<std::int64_t>(ph.len);
    if (progress && static_cast<std::uint64_t>(i) >= next_report) {
      progress("lz77", static_cast<std::uint64_t>(i), static_cast<std::uint64_t>(n));
      next_report = static_cast<std::uint64_t>(i) + (1u << 24);
    }
  }
  if (progress) progress("lz77", static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));
  return phrases;
}

/// The longest prefix of text[i, n) that occurs in the reference text[0, r) (sa: its suffix
/// array), as (length, start); length 0 when its first byte is not there.
template <class Int>
std::pair<std::uint64_t, std::uint64_t> longest_in_reference(std::string_view text, std::uint64_t r, const std::vector<Int>& sa,
                                                             std::uint64_t i) {
  const char* t = text.data();
  const std::uint64_t n = text.size();
  // lcp of the reference suffix at `s` with text[i, n), from `from` on
  auto extend = [&](std::uint64_t s, std::uint64_t from) {
    std::uint64_t l = from;
    while (s + l < r && i + l < n && t[s + l] == t[i + l]) ++l;
    return l;
  };
  // the first suffix not below text[i, n): sa[0, lo) are below, sa[hi, r) are not
  std::uint64_t lo = 0, hi = r, lcp_lo = 0, lcp_hi = 0;
  while (lo < hi) {
    const std::uint64_t mid = lo + (hi - lo) / 2, s = static_cast<std::uint64_t>(sa[mid]);
    const std::uint64_t l = extend(s, std::min(lcp_lo, lcp_hi));
    const bool below = i + l < n && (s + l == r || static_cast<unsigned char>(t[s + l]) < static_cast<unsigned char>(t[i + l]));
    if (below) lo = mid + 1, lcp_lo = l;
    else hi = mid, lcp_hi = l;
  }
  std::pair<std::uint64_t, std::uint64_t> best{0, 0};
  for (const std::uint64_t k : {lo, lo - 1})  // the longest match is a neighbour of that place
    if (k < r) {
      const std::uint64_t s = static_cast<std::uint64_t>(sa[k]);
      if (const std::uint64_t l = extend(s, 0); l > best.first) best = {l, s};
    }
  return best;
}

/// The length of the common prefix of text[a, end) and text[b, end), a word at a time.
inline std::uint64_t common_prefix(const char* t, std::uint64_t a, std::uint64_t b, std::uint64_t end) {
  const std::uint64_t lim = end - std::max(a, b);
  std::uint64_t l = 0;
  for (; l + 8 <= lim; l += 8) {
    std::uint64_t x, y;
    std::memcpy(&x, t + a + l, 8);
    std::memcpy(&y, t + b + l, 8);
    if (x != y) {
      const std::uint64_t d = x ^ y;
      if constexpr (std::endian::native == std::endian::little) return l + static_cast<std::uint64_t>(std::countr_zero(d)) / 8;
      else return l + static_cast<std::uint64_t>(std::countl_zero(d)) / 8;
    }
  }
  while (l < lim && t[a + l] == t[b + l]) ++l;
  return l;
}

/// Stretches of the text past the reference that copy the reference at one shift: text
/// position = reference coordinate + shift over [begin, end). In text order, disjoint.
struct colinear_chains {
  struct chain {
    std::uint64_t begin = 0, end = 0;  ///< reference coordinates
    std::int64_t shift = 0;
    [[nodiscard]] std::uint64_t text_begin() const { return begin + static_cast<std::uint64_t>(shift); }
  };
  static constexpr unsigned kBucketBits = 12;  ///< coordinates per bucket: 4096
  std::vector<chain> chains;
  std::vector<std::uint64_t> first;  ///< per bucket, where its chains begin in `ids`
  std::vector<std::uint64_t> ids;    ///< chains that overlap a bucket, ascending

  /// The first phrase of at least `anchor` bytes opens a chain; later phrases of the same
  /// shift extend it, whatever lies between them. `blocks`: the first pass's phrases, in
  /// text order.
  colinear_chains(const std::vector<std::vector<lz77_phrase>>& blocks, std::uint64_t r) {
    constexpr std::uint64_t anchor = 32;
    for (const auto& block : blocks)
      for (const lz77_phrase& ph : block) {
        if (ph.literal || ph.len < anchor) continue;
        const auto shift = static_cast<std::int64_t>(ph.pos - ph.src);
        if (!chains.empty() && chains.back().shift == shift && chains.back().end <= ph.src) chains.back().end = ph.src + ph.len;
        else chains.push_back({ph.src, ph.src + ph.len, shift});
      }
    const std::uint64_t buckets = (r >> kBucketBits) + 1;
    first.assign(buckets + 1, 0);
    for (const chain& c : chains)
      for (std::uint64_t b = c.begin >> kBucketBits; b <= (c.end - 1) >> kBucketBits; ++b) ++first[b + 1];
    for (std::uint64_t b = 0; b < buckets; ++b) first[b + 1] += first[b];
    ids.resize(first[buckets]);
    std::vector<std::uint64_t> fill(first.begin(), first.end() - 1);
    for (std::uint64_t k = 0; k < chains.size(); ++k)
      for (std::uint64_t b = chains[k].begin >> kBucketBits; b <= (chains[k].end - 1) >> kBucketBits; ++b) ids[fill[b]++] = k;
  }

  /// The longest match at text position i (bounded by end) among the chains before i that
  /// cover i's coordinate, as (length, source); (0, 0) when none. `own` is the number of
  /// chains that begin at or before i.
  [[nodiscard]] std::pair<std::uint64_t, std::uint64_t> longest(const char* t, std::uint64_t i, std::uint64_t end,
                                                                std::uint64_t own) const {
    std::pair<std::uint64_t, std::uint64_t> best{0, 0};
    if (own == 0) return best;
    const chain& mine = chains[own - 1];
    const auto c = static_cast<std::uint64_t>(static_cast<std::int64_t>(i) - mine.shift);
    if (c < mine.begin || (c >> kBucketBits) + 1 >= first.size()) return best;
    // The earliest genomes first: copies of one stretch then share their sources, so the
    // recursion finds them side by side in source order (one range) instead of along a chain
    // of copies of copies. Two candidates that stop at the same place have most likely met a
    // variant of this genome, which no other candidate passes.
    constexpr int tries = 8;
    auto it = ids.begin() + static_cast<std::ptrdiff_t>(first[c >> kBucketBits]);
    const auto hi = std::lower_bound(it, ids.begin() + static_cast<std::ptrdiff_t>(first[(c >> kBucketBits) + 1]), own - 1);
    std::uint64_t last = 0;
    for (int tried = 0; it != hi && tried < tries;) {
      const chain& other = chains[*it++];
      if (c < other.begin || c >= other.end) continue;
      const auto src = static_cast<std::uint64_t>(static_cast<std::int64_t>(c) + other.shift);
      if (src >= i) continue;
      ++tried;
      const std::uint64_t l = common_prefix(t, src, i, end);
      if (l > best.first) best = {l, src};
      if ((l != 0 && l == last) || best.first == end - i) break;
      last = l;
    }
    return best;
  }
};

template <class Int>
std::vector<lz77_phrase> relative(std::string_view text, std::uint64_t r, const progress_callback& progress) {
  std::vector<Int> sa;
  std::vector<lz77_phrase> phrases = kkp3<Int>(text.substr(0, r), progress, &sa);
  const std::uint64_t n = text.size();
  const char* t = text.data();
  constexpr std::uint64_t block = std::uint64_t{1} << 22;
  const std::uint64_t blocks = (n - r + block - 1) / block;
  // Block b's phrases, each the longest match in the reference (taken from `earlier`, a parse
  // of the same block, where a phrase starts at the same place) or, given chains, a longer
  // co-linear source (a reference match on ties).
  auto parse_block = [&](std::uint64_t b, const colinear_chains* chains, const std::vector<lz77_phrase>& earlier) {
    const std::uint64_t end = std::min(n, r + (b + 1) * block);
    std::vector<lz77_phrase> out;
    std::size_t at = 0;
    std::uint64_t own = 0;  // chains that begin at or before i
    if (chains)
      own = static_cast<std::uint64_t>(
          std::upper_bound(chains->chains.begin(), chains->chains.end(), r + b * block,
                           [](std::uint64_t i, const colinear_chains::chain& c) { return i < c.text_begin(); }) -
          chains->chains.begin());
    for (std::uint64_t i = r + b * block; i < end;) {
      while (at < earlier.size() && earlier[at].pos < i) ++at;
      std::pair<std::uint64_t, std::uint64_t> best;
      if (at < earlier.size() && earlier[at].pos == i) best = {earlier[at].literal ? 0 : earlier[at].len, earlier[at].src};
      else best = longest_in_reference(text.substr(0, end), r, sa, i);
      if (chains) {
        while (own < chains->chains.size() && chains->chains[own].text_begin() <= i) ++own;
        if (const auto co = chains->longest(t, i, end, own); co.first > best.first) best = co;
      }
      lz77_phrase ph;
      ph.pos = i;
      if (best.first == 0) ph.len = 1, ph.literal = true;
      else ph.len = best.first, ph.src = best.second;
      out.push_back(ph);
      i += ph.len;
    }
    return out;
  };
  // Each pass parses a round of blocks on all cores at a time and reports progress between
  // rounds: the first from the reference alone, the second with the first pass's chains.
  const std::uint64_t round = 64;
  auto in_rounds = [&](const char* stage, const auto& parse) {
    for (std::uint64_t b0 = 0; b0 < blocks; b0 += round) {
      const std::uint64_t b1 = std::min(blocks, b0 + round);
      tbb::parallel_for(b0, b1, parse);
      if (progress) progress(stage, r + std::min(n - r, b1 * block), n);
    }
  };
  std::vector<std::vector<lz77_phrase>> parsed(blocks);
  in_rounds("relative lz", [&](std::uint64_t b) { parsed[b] = parse_block(b, nullptr, {}); });
  const colinear_chains chains(parsed, r);
  in_rounds("co-linear lz", [&](std::uint64_t b) {
    std::vector<lz77_phrase> second = parse_block(b, &chains, parsed[b]);
    // A few far sources widen the stored source deltas of every phrase (one width for all):
    // a block keeps its first parse unless the second cuts its phrases by 1/16.
    if (second.size() * 16 <= parsed[b].size() * 15) parsed[b].swap(second);
  });
  std::uint64_t total = phrases.size();
  for (const auto& part : parsed) total += part.size();
  phrases.reserve(total);
  for (auto& part : parsed) {
    phrases.insert(phrases.end(), part.begin(), part.end());
    std::vector<lz77_phrase>().swap(part);
  }
  return phrases;
}

}  // namespace

std::vector<lz77_phrase> lz77_parse(std::string_view text, bool force_64bit, const progress_callback& progress) {
  if (!force_64bit && text.size() < (std::uint64_t{1} << 31) - 2) return kkp3<std::int32_t>(text, progress);
  return kkp3<std::int64_t>(text, progress);
}

std::vector<lz77_phrase> lz77_parse_for_index(std::string_view text, std::uint64_t reference, bool force_64bit,
                                              const progress_callback& progress, const whole_suffix_array& on_sa) {
  if (std::min<std::uint64_t>(reference, text.size()) < text.size())
    return lz77_parse_relative(text, reference, force_64bit, progress);
  if (!force_64bit && text.size() < (std::uint64_t{1} << 31) - 2) return kkp3<std::int32_t>(text, progress, nullptr, &on_sa);
  return kkp3<std::int64_t>(text, progress, nullptr, &on_sa);
}

std::vector<lz77_phrase> lz77_parse_relative(std::string_view text, std::uint64_t reference, bool force_64bit,
                                             const progress_callback& progress) {
  const std::uint64_t r = std::min<std::uint64_t>(reference, text.size());
  if (r == text.size()) return lz77_parse(text, force_64bit, progress);
  if (!force_64bit && r < (std::uint64_t{1} << 31) - 2) return relative<std::int32_t>(text, r, progress);
  return relative<std::int64_t>(text, r, progress);
}

}  // namespace trawl::index
