// deal.cpp — see deal.hpp.
#include "deal.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "trawl/error.hpp"

namespace trawl::distributed {

namespace {

static_assert(std::is_trivially_copyable_v<index::record_hit>, "index hits travel as bytes");

/// This rank's share: patterns rank, rank + size, ...
std::vector<std::string> share(const group& g, const std::vector<std::string>& patterns) {
  std::vector<std::string> mine;
  for (std::size_t i = static_cast<std::size_t>(g.rank()); i < patterns.size(); i += static_cast<std::size_t>(g.size()))
    mine.push_back(patterns[i]);
  return mine;
}

template <class T>
std::string bytes_of(const std::vector<T>& v) {
  return std::string(reinterpret_cast<const char*>(v.data()), v.size() * sizeof(T));
}

template <class T>
std::vector<T> from_bytes(const std::string& b) {
  if (b.size() % sizeof(T) != 0) throw error(errc::io_error, "MPI: a rank's answer is cut short");
  std::vector<T> v(b.size() / sizeof(T));
  std::memcpy(static_cast<void*>(v.data()), b.data(), b.size());
  return v;
}

}  // namespace

std::vector<index::record_hit> deal_records(
    const group& g, const std::vector<std::string>& patterns,
    const std::function<std::vector<index::record_hit>(const std::vector<std::string>&)>& run,
    index::record_hit_order order) {
  const auto step = static_cast<std::uint32_t>(g.size()), rank = static_cast<std::uint32_t>(g.rank());
  const std::vector<std::string> mine = share(g, patterns);
  std::vector<index::record_hit> hits = mine.empty() ? std::vector<index::record_hit>() : run(mine);
  for (auto& h : hits) h.h.pattern = rank + h.h.pattern * step;
  const std::vector<std::string> all = g.gather(bytes_of(hits));
  if (g.rank() != 0) return {};
  for (std::size_t r = 1; r < all.size(); ++r) {
    const auto theirs = from_bytes<index::record_hit>(all[r]);
    for (const auto& h : theirs)
      if (h.h.pattern >= patterns.size() || h.h.pattern % step != r)
        throw error(errc::io_error, "MPI: rank " + std::to_string(r) + " answered for a pattern not its own");
    hits.insert(hits.end(), theirs.begin(), theirs.end());
  }
  std::sort(hits.begin(), hits.end(), order);
  return hits;
}

std::vector<std::uint64_t> deal_counts(const group& g, const std::vector<std::string>& patterns,
                                       const std::function<std::vector<std::uint64_t>(const std::vector<std::string>&)>& run) {
  const auto step = static_cast<std::size_t>(g.size());
  const std::vector<std::string> mine = share(g, patterns);
  const std::vector<std::uint64_t> counts = mine.empty() ? std::vector<std::uint64_t>() : run(mine);
  const std::vector<std::string> all = g.gather(bytes_of(counts));
  if (g.rank() != 0) return {};
  std::vector<std::uint64_t> out(patterns.size(), 0);
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto theirs = from_bytes<std::uint64_t>(all[r]);
    for (std::size_t k = 0; k < theirs.size() && r + k * step < out.size(); ++k) out[r + k * step] = theirs[k];
  }
  return out;
}

}  // namespace trawl::distributed
