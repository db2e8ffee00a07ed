// myers_striped.cpp — plans the striped kernel (myers_striped_avx512.cpp) over a range: the
// reported ends are cut into 64 equal stripes per round, each read from m+k-1 bytes before
// its first end so every score is exact; the ends a round cannot split evenly go to the next
// round, and those too close to `from` for a full warm-up to the one-word loop. O(n) bytes, O(n/64) vector steps.
#include <algorithm>

#include "approx/approx_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::approx_detail {

namespace {

constexpr std::size_t stripes = 64;
constexpr std::size_t round_ends = std::size_t{1} << 14;  // ends per stripe per round (1 MiB)
constexpr std::size_t min_stripe = 8;                     // below this the word loop is cheaper

struct striped_scratch {
  std::vector<lane_hit> hits, sorted;
  striped_clusters runs;
  /// The calls in a row on this thread that met a byte outside 0x40-0x7F or ran masked
  /// without trying (see scan_myers_striped).
  unsigned masked_calls = 0;
};

/// How often a thread whose text has left 0x40-0x7F tries the unmasked lookup again: one call
/// in this many.
constexpr unsigned unmasked_retry = 32;

}  // namespace

void end_sink::on_ends(const lane_hit* ends, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) on_end(ends[i].pos, ends[i].score);
}

striped_pattern make_striped_pattern(const compiled_pattern& p, std::uint32_t k) {
  if (p.m == 0 || p.m > 32 || k > p.m) throw error(errc::invalid_argument, "striped kernel: pattern of 1-32 bytes, k <= m");
  striped_pattern sp;
  sp.width = p.m <= 16 ? 16 : 32;
  sp.d = static_cast<std::uint32_t>(static_cast<std::size_t>(sp.width) - p.m);
  sp.kk = k + sp.d;
  for (std::size_t c = 0; c < 256; ++c) {
    sp.peq[c] = static_cast<std::uint32_t>(p.peq[c] << sp.d);
    if (sp.peq[c] != 0) sp.quarters |= 1u << (c / 64);
  }
  return sp;
}

void write_run_hits_serial(const striped_cluster* r, std::size_t n, std::uint64_t base, std::uint32_t pattern,
                           strand dir, hit* out) {
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint64_t end = base + r[i].best + 1;
    out[i] = hit{end, end, pattern, r[i].score, dir};
  }
}

striped_pattern narrow_striped_pattern(const striped_pattern& sp) {
  striped_pattern n = sp;
  n.width = 8;
  n.d = sp.d - 8;
  n.kk = sp.kk - 8;
  for (std::uint32_t& e : n.peq) e >>= 8;
  return n;
}

void scan_myers_striped(const striped_kernels& kernel, const compiled_pattern& p, std::string_view seq,
                        std::size_t from, std::size_t report_from, std::size_t to, std::uint32_t k, end_sink& sink,
                        const striped_pattern* prebuilt) {
  if (report_from >= to) return;
  const striped_pattern sp = prebuilt != nullptr ? *prebuilt : make_striped_pattern(p, k);
  const std::size_t w = p.m + k - 1;  // warm-up: the longest occurrence is m + k bytes
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  std::size_t a = report_from;
  const std::size_t pre_end = std::min(to, std::max(a, from + w));
  if (a < pre_end) {
    scan_myers_word(p, seq, from, a, pre_end, k, sink);
    a = pre_end;
  }
  // Per thread, kept between calls: a dense output would otherwise fault in fresh pages for
  // every slice.
  thread_local striped_scratch scratch;
  std::vector<lane_hit>& hits = scratch.hits;
  std::vector<lane_hit>& sorted = scratch.sorted;
  // The default report mode wants one hit per run of ends: the kernels form the runs.
  const striped_clusters_kernel runs_kernel = sink.wants_clusters() ? kernel.runs : nullptr;
  // Only a pattern matching bytes of 0x40-0x7F alone can use the AVX-512 kernel's unmasked
  // lookup; it is tried while the text keeps to those bytes (the kernel checks them as it
  // reads), and a round that meets another byte is run again with the mask. A text that met
  // one (spaces, line breaks) is likely to meet more in the next slice, whose first round
  // would then run twice: after such a call this thread runs masked, trying again every
  // unmasked_retry calls.
  const bool can_q1 = kernel.quarter1 && sp.quarters == 2u;
  bool q1 = can_q1 && scratch.masked_calls % unmasked_retry == 0;
  const bool tried = q1;
  bool rounds = false;  // whether a striped round ran (short texts run word-wise only)
  while (a < to) {
    // Stripe lengths are odd multiples of 64 bytes (or below 64): with a stride of a multiple
    // of 4 KiB all 64 streams would fall into one L1 set and thrash it. The ends left over
    // go to the next, shorter round.
    const std::size_t raw = std::min(round_ends, (to - a) / stripes);
    if (raw < min_stripe) {
      scan_myers_word(p, seq, a - w, a, to, k, sink);
      break;
    }
    rounds = true;
    std::size_t stripe = raw;
    if (raw >= 128) stripe = raw % 128 >= 64 ? raw - raw % 128 + 64 : raw - raw % 128 - 64;
    else if (raw >= 64) stripe = 64;
    if (runs_kernel != nullptr) {
      striped_clusters& res = scratch.runs;
      if (!runs_kernel(sp, text + (a - w), stripe, stripe + w, w, q1, res))
        runs_kernel(sp, text + (a - w), stripe, stripe + w, w, q1 = false, res);
      sink.on_runs(res, a - w, stripe);  // stripes are in text order
    } else {
      hits.clear();
      if (!kernel.ends(sp, text + (a - w), stripe, stripe + w, w, a - w, q1, hits)) {
        hits.clear();
        kernel.ends(sp, text + (a - w), stripe, stripe + w, w, a - w, q1 = false, hits);
      }
      sort_by_lane(hits, stripes, sorted);  // stripes are in text order
      sink.on_ends(sorted.data(), sorted.size());
    }
    a += stripes * stripe;
  }
  if (can_q1 && rounds) scratch.masked_calls = tried && q1 ? 0 : scratch.masked_calls + 1;
}

}  // namespace trawl::approx_detail
