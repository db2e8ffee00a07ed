// myers_lanes.cpp — packs (pattern, text stripe) jobs into SIMD lanes and runs a lanes kernel
// (serial / AVX2 / AVX-512: the dispatch table's, common/dispatch.hpp). Stripes of one pattern overlap by m+k-1
// bytes of warm-up so every reported score is exact. O(n·⌈P/L⌉) steps of L lanes for P patterns.
#include <algorithm>
#include <limits>

#include "approx/approx_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::approx_detail {

void myers_lanes_serial(const lane_job* jobs, std::size_t steps, const std::uint64_t* peq, const unsigned char* seq,
                        std::vector<lane_hit>& hits) {
  // The plain one-word Myers loop (myers_word.cpp) run lane after lane: the reference the
  // SIMD kernels are tested against.
  for (std::uint32_t l = 0; l < 8; ++l) {
    const lane_job& job = jobs[l];
    std::uint64_t pv = ~std::uint64_t{0}, mv = 0, score = job.m;
    for (std::size_t t = 0; t < steps; ++t) {
      const std::uint64_t pos = job.text_pos + t;
      const std::uint64_t eq = peq[job.peq_offset + seq[pos]];
      const std::uint64_t xv = eq | mv;
      const std::uint64_t xh = (((eq & pv) + pv) ^ pv) | eq;
      std::uint64_t ph = mv | ~(xh | pv);
      std::uint64_t mh = pv & xh;
      score += (ph & job.hibit) != 0;
      score -= (mh & job.hibit) != 0;
      ph <<= 1;
      mh <<= 1;
      pv = mh | ~(xv | ph);
      mv = ph & xv;
      if (score <= job.k && pos >= job.report_lo) hits.push_back({pos, static_cast<std::uint32_t>(score), l});
    }
  }
}

void sort_by_lane(const std::vector<lane_hit>& hits, std::size_t lanes, std::vector<lane_hit>& sorted) {
  std::vector<std::size_t> at(lanes + 1, 0);
  for (const lane_hit& h : hits) ++at[h.lane + 1];
  for (std::size_t l = 0; l < lanes; ++l) at[l + 1] += at[l];
  sorted.resize(hits.size());
  for (const lane_hit& h : hits) sorted[at[h.lane]++] = h;
}

namespace {

constexpr std::size_t stripe_chunk = std::size_t{1} << 16;  // report positions per stripe per call
constexpr std::size_t min_stripe = 256;                     // below this the scalar loop is cheaper

}  // namespace

void scan_myers_lanes(const lanes_backend& backend, std::span<const compiled_pattern* const> patterns,
                      std::span<const std::uint32_t> ks, std::string_view seq, std::size_t from,
                      std::size_t report_from, std::size_t to, std::span<end_sink* const> sinks) {
  const std::size_t nl = backend.lanes;
  const auto* text = reinterpret_cast<const unsigned char*>(seq.data());
  std::vector<lane_job> jobs(nl);
  std::vector<lane_hit> hits;
  std::vector<std::uint64_t> peq;
  std::vector<lane_hit> sorted;
  for (std::size_t first = 0; first < patterns.size(); first += nl) {
    const std::size_t q = std::min(nl, patterns.size() - first);  // patterns in this batch
    const std::size_t s = nl / q;                                   // stripes per pattern
    std::size_t w = 0;                                              // warm-up bytes per stripe
    peq.assign(q * 256, 0);
    for (std::size_t i = 0; i < q; ++i) {
      const compiled_pattern& p = *patterns[first + i];
      w = std::max<std::size_t>(w, p.m + ks[first + i] - 1);
      std::copy(p.peq.begin(), p.peq.end(), peq.begin() + static_cast<std::ptrdiff_t>(i * 256));
    }
    auto scalar = [&](std::size_t ctx, std::size_t lo, std::size_t hi) {
      for (std::size_t i = 0; i < q; ++i)
        scan_myers_word(*patterns[first + i], seq, ctx, lo, hi, ks[first + i], *sinks[first + i]);
    };
    // Positions closer than w to `from` lack a full warm-up inside [from, to): do them serially.
    std::size_t a = report_from;
    const std::size_t pre_end = std::min(to, std::max(a, from + w));
    if (a < pre_end) {
      scalar(from, a, pre_end);
      a = pre_end;
    }
    while (a < to) {
      const std::size_t b = std::min(to, a + s * stripe_chunk);
      const std::size_t stripe = (b - a) / s;
      if (stripe < min_stripe) {
        scalar(a - w, a, b);
        a = b;
        continue;
      }
      for (std::size_t i = 0; i < q; ++i) {
        const compiled_pattern& p = *patterns[first + i];
        for (std::size_t t = 0; t < s; ++t) {
          lane_job& job = jobs[i * s + t];
          job.report_lo = a + t * stripe;
          job.text_pos = job.report_lo - w;
          job.peq_offset = i * 256;
          job.hibit = std::uint64_t{1} << (p.m - 1);
          job.m = p.m;
          job.k = ks[first + i];
        }
      }
      for (std::size_t l = q * s; l < nl; ++l) {  // idle lanes: rerun lane 0, never report
        jobs[l] = jobs[0];
        jobs[l].report_lo = std::numeric_limits<std::uint64_t>::max();
      }
      hits.clear();
      backend.kernel(jobs.data(), stripe + w, peq.data(), text, hits);
      // Lanes of one pattern are its stripes in text order.
      sort_by_lane(hits, nl, sorted);
      for (const lane_hit& h : sorted) sinks[first + h.lane / s]->on_end(h.pos, h.score);
      const std::size_t done = a + s * stripe;
      if (done < b) scalar(done - w, done, b);
      a = b;
    }
  }
}

}  // namespace trawl::approx_detail
