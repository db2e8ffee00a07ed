// parallel/chunker.cpp — the slicing policy of chunker.hpp.
#include "parallel/chunker.hpp"

namespace trawl::slicing {

std::size_t choose_slice_size(std::size_t n, std::size_t total, unsigned threads, const detail::engine& m,
                              std::size_t requested) {
  // a slice is a job with its own bookkeeping: a chunk of n bytes is cut into at most 65536 of
  // them whatever size is asked, so that their memory stays bounded by the chunk
  constexpr std::size_t max_slices = std::size_t{1} << 16;
  if (requested != 0) return std::max(requested, (n + max_slices - 1) / max_slices);
  // Enough slices to balance the threads, large enough that the context re-read is noise,
  // small enough that the hits of the slices in flight stay bounded when every position
  // matches (k >= m, or a one-letter DNA pattern): at most ~32 B per byte of a slice.
  // Approximate search is compute-bound, so its slices can be smaller still.
  const std::size_t context = m.lookbehind() + m.lookahead();
  const bool approx = m.key() == hit_key::last;
  // A set of approximate patterns scans each byte once per pattern-strand and sets every one
  // up per slice: its slices grow with the set, up to 1 MiB, while the whole input, where it
  // is known, still gives every thread four of them.
  const std::size_t scans = approx ? std::max<std::size_t>(1, m.scans_per_byte()) : 1;
  const std::size_t cap = approx ? std::min(std::size_t{1} << 20, (std::size_t{256} << 10) * scans) : (std::size_t{4} << 20);
  std::size_t s = n * scans / (static_cast<std::size_t>(threads) * 16 + 1);
  if (scans > 1 && total != 0) s = std::min(s, total / (static_cast<std::size_t>(threads) * 4));
  s = std::clamp<std::size_t>(s, std::size_t{1} << 16, cap);
  // Approximate slices of 4 KiB times an odd number: the striped kernels' 64 stripes, whose
  // stride is an odd multiple of 64 bytes, then cover a slice in one round (256 KiB would
  // take a second round of 64 stripes of 64 bytes, each with its own warm-up;
  // bench/records/approx-slices-7894e6f-h100.csv).
  if (approx) s = (s / 4096 - 1) / 2 * 2 * 4096 + 4096;
  return std::max({s, 16 * context, (n + max_slices - 1) / max_slices});
}

}  // namespace trawl::slicing
