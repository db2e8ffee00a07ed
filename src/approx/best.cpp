// best.cpp — best approximate substring ASM(X, Y): cuts Y's end positions into pieces (each
// read with 2|X| bytes of context, enough for any optimal substring, whose length is at most
// |X| + ASM <= 2|X|), runs the chosen engine on the pieces in parallel threads and merges.
// Cost: the engine's, divided by the threads.
#include <algorithm>
#include <thread>

#include "approx/approx_internal.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"

namespace trawl {

best_algorithm parse_best_algorithm(std::string_view name) {
  if (name == "auto") return best_algorithm::automatic;
  if (name == "myers") return best_algorithm::myers;
  if (name == "wavefront") return best_algorithm::wavefront;
  throw error(errc::invalid_argument, "unknown best algorithm '" + std::string(name) + "' (expected auto, myers, wavefront)");
}

best_result best_substring(std::string_view x, std::string_view y, const best_options& options) {
  if (x.empty()) throw error(errc::invalid_argument, "empty pattern");
  if (x.find('\0') != std::string_view::npos) throw error(errc::invalid_argument, "pattern contains a NUL byte");
  if (options.device.kind == device_kind::gpu) return gpu::best_substring(x, y, options);
  best_result result;
  if (y.empty()) {
    result.distance = static_cast<std::uint32_t>(x.size());
    result.occurrences.push_back(hit{0, 0, 0, result.distance, strand::forward});
    return result;
  }
  const bool wavefront = options.algorithm == best_algorithm::wavefront;
  const std::size_t m = x.size(), n = y.size();
  unsigned threads = options.threads != 0 ? options.threads : std::max(1u, std::thread::hardware_concurrency());
  // Pieces are worth their 2m context only when much longer than it.
  const std::size_t min_piece = std::max<std::size_t>(8 * m, 4096);
  const std::size_t pieces = std::clamp<std::size_t>(n / min_piece, 1, threads);
  const std::size_t step = (n + pieces - 1) / pieces;
  std::vector<approx_detail::best_piece> parts(pieces);
  // Myers: an upper bound of ASM from a prefix of Y's ends (inside piece 0, which therefore
  // reaches it) lets every piece skip the rows that cannot get down to it (Ukkonen), and keeps
  // the SIMD engines' reports few; the striped blocked engine (|X| > 64) needs none.
  auto bound = static_cast<std::uint32_t>(m);
  const std::size_t shortest = n - (pieces - 1) * step;  // the last piece
  if (!wavefront && !approx_detail::best_bound_unneeded(m, shortest, options.simd)) {
    const std::size_t sample = std::min(step, std::max<std::size_t>(std::size_t{1} << 16, 32 * m));
    if (sample < n) bound = approx_detail::best_piece_myers(x, y, 0, 0, sample, bound, options.simd).distance;
  }
  auto run = [&](std::size_t t) {
    const std::size_t lo = t * step, hi = std::min(n, lo + step);
    const std::size_t ctx = lo >= 2 * m ? lo - 2 * m : 0;
    parts[t] = wavefront ? approx_detail::best_piece_wavefront(x, y, ctx, lo, hi)
                         : approx_detail::best_piece_myers(x, y, ctx, lo, hi, bound, options.simd);
  };
  if (pieces == 1) {
    run(0);
  } else {
    std::vector<std::thread> pool;
    std::vector<std::exception_ptr> errors(pieces);
    for (std::size_t t = 0; t < pieces; ++t)
      pool.emplace_back([&, t] {
        try {
          run(t);
        } catch (...) {
          errors[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (auto& e : errors)
      if (e) std::rethrow_exception(e);
  }
  result.distance = ~std::uint32_t{0};
  for (const auto& p : parts) result.distance = std::min(result.distance, p.distance);
  for (auto& p : parts)
    if (p.distance == result.distance)
      result.occurrences.insert(result.occurrences.end(), p.occurrences.begin(), p.occurrences.end());
  if (options.every_start) approx_detail::expand_every_start(x, y, result);
  return result;
}

bool for_each_optimal_substring(std::string_view x, std::string_view y, const best_result& r,
                                const std::function<bool(const hit&)>& on_occurrence) {
  auto occurrence = [&](std::uint64_t start, std::uint64_t end) {
    return on_occurrence(hit{start, end, 0, r.distance, strand::forward});
  };
  // ASM == |X|: the empty substring before the first byte is optimal too (it ends at no byte;
  // with an empty y it is the only substring).
  if (r.distance == x.size() && !occurrence(0, 0)) return false;
  if (y.empty()) return true;
  const approx_detail::compiled_pattern p = approx_detail::compile_pattern(x, 0, strand::forward, match_rules{});
  std::vector<std::uint64_t> starts;
  std::uint64_t last_end = 0;  // r may list an end once per start already (every_start)
  for (const hit& h : r.occurrences) {
    if (h.end == last_end) continue;  // also skips [0, 0), done above
    last_end = h.end;
    approx_detail::every_start(p, y, h.end - 1, r.distance, 0, starts);
    for (const std::uint64_t z : starts)
      if (!occurrence(z, h.end)) return false;
  }
  return true;
}

namespace approx_detail {

void expand_every_start(std::string_view x, std::string_view y, best_result& r) {
  std::vector<hit> all;
  all.reserve(r.occurrences.size());
  for_each_optimal_substring(x, y, r, [&](const hit& h) {
    all.push_back(h);
    return true;
  });
  r.occurrences = std::move(all);
}

}  // namespace approx_detail

}  // namespace trawl
