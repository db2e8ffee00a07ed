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
#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

#include <divsufsort.h>
#include <divsufsort64.h>

#include "index/index_impl.hpp"
#include "trawl/error.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::index {
namespace {

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

template <class Int>
std::vector<lz77_phrase> kkp3(std::string_view text, const progress_callback& progress) {
  const auto n = static_cast<std::int64_t>(text.size());
  std::vector<lz77_phrase> phrases;
  if (n == 0) return phrases;
  if (progress) progress("suffix array", 0, static_cast<std::uint64_t>(n));
  // sa has two extra slots so the sentinels -1 at both ends need no special case.
  std::vector<Int> sa(static_cast<std::size_t>(n) + 2);
  suffix_sort<Int>(text, sa.data() + 1);
  sa[0] = -1;
  sa[static_cast<std::size_t>(n) + 1] = -1;
  if (progress) progress("suffix array", static_cast<std::uint64_t>(n), static_cast<std::uint64_t>(n));

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

}  // namespace

std::vector<lz77_phrase> lz77_parse(std::string_view text, bool force_64bit, const progress_callback& progress) {
  if (!force_64bit && text.size() < (std::uint64_t{1} << 31) - 2) return kkp3<std::int32_t>(text, progress);
  return kkp3<std::int64_t>(text, progress);
}

}  // namespace trawl::index
