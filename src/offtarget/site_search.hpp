// site_search.hpp — what offtarget::searcher runs: the candidate search (guide x PAM patterns,
// both strands, IUPAC, Hamming without bulges) and the classification of its hits into sites.
// Its parts are here for the tests that check each against the whole, CPU and GPU.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "trawl/detail/engine.hpp"
#include "gpu/gpu_internal.hpp"
#include "offtarget/site_handover.hpp"
#include "trawl/gpu.hpp"
#include "trawl/offtarget.hpp"

namespace trawl::offtarget {

/// The sink of one input's candidate search (site_search::sink): each site once, in order, to
/// a site_sink, large batches on a thread of their own (site_handover).
class site_collector : public search_sink {
 public:
  /// Returns once every site has been handed over; throws what the site_sink threw. Called
  /// once the search has returned.
  virtual void finish() = 0;
};

/// Bytes [lo, hi) of record `record`, written to `out` (a record not held whole).
using record_reader = std::function<void(std::uint32_t record, std::uint64_t lo, std::uint64_t hi, char* out)>;

/// The sites of records read only around their candidates (site_search::windowed): each
/// record begun, its candidates (hits of the candidate search) handed over in batches in the
/// order of their ends, and ended; then finish().
class window_classifier {
 public:
  virtual ~window_classifier() = default;
  virtual void begin_record(const record_info& info, std::uint64_t length) = 0;
  /// Candidates whose positions are `offset` past the record's (a joined text's hits, the
  /// record `offset` bytes in: shifted, and a start before the record clipped to its first byte).
  virtual void candidates(std::span<const hit> found, std::uint64_t offset) = 0;
  virtual void end_record() = 0;
  /// Returns once every site has been handed over; throws what the site_sink threw.
  virtual void finish() = 0;
};

class site_search {
 public:
  /// As searcher's constructor.
  site_search(std::vector<guide> guides, options opt);
  ~site_search();
  site_search(const site_search&) = delete;
  site_search& operator=(const site_search&) = delete;

  [[nodiscard]] const std::vector<guide>& guides() const;
  [[nodiscard]] const options& opts() const;
  stream_result search(io::source& input, site_sink& out, const std::function<void(const search_plan&)>& planned,
                       const std::function<void(std::uint64_t)>& progress = {}) const;
  void search(const index::hybrid_index& idx, site_sink& out) const;

  /// The candidate patterns (guide x PAM) and the options to search them with.
  [[nodiscard]] const std::vector<std::string>& patterns() const;
  [[nodiscard]] const search_options& candidate_options() const;
  /// The CPU's candidate matcher: runs of N skipped, candidates without a site dropped.
  [[nodiscard]] const matcher& cpu_matcher() const;
  /// The site test of a candidate end, for a GPU's candidate search (gpu_knobs::keep_end):
  /// each chunk's ends are classified on all cores as they come, while the device runs on.
  [[nodiscard]] gpu::detail::end_test site_test() const;
  /// site_test() as the device runs it (gpu_knobs::device_end_test), per pattern.
  [[nodiscard]] std::shared_ptr<const cuda::site_end_test> device_site_test() const;
  /// The GPU's candidate matcher for a search planned from candidate_options() (plan_search),
  /// on the GPUs of planned.device (`knobs`: the GPU search's sizes and kernels), searching with the bytes
  /// around each candidate that the sites read: without bulges the GPU's own scan of the PAM
  /// positions (guides of at most 64 bases); otherwise the library's GPU search, its ends
  /// classified by site_test() as each chunk comes.
  [[nodiscard]] std::unique_ptr<matcher> gpu_matcher(const search_options& planned, const gpu::detail::gpu_knobs& knobs = {}) const;
  /// A sink for the candidate search of one input, handing its sites to `out`: batches of
  /// `async_from` sites or more on a thread of their own. Each batch's sites are built on
  /// about a core per 24 Ki of its candidates.
  [[nodiscard]] std::unique_ptr<site_collector> sink(site_sink& out, std::size_t async_from = site_handover::async_from) const;
  /// The sites of an index's records from its candidates (hybrid_index::search_records of
  /// patterns() with candidate_options()).
  void classify(const index::hybrid_index& idx, const std::vector<index::record_hit>& candidates, site_sink& out) const;
  /// Sites to `out` from candidates of records read through `read` around them; `test`: a
  /// candidate is kept only when it has a site (candidates a GPU's scan has tested need not be).
  /// The candidates are classified in groups whose bytes span at most `span`, read whole where
  /// they are dense.
  [[nodiscard]] std::unique_ptr<window_classifier> windowed(site_sink& out, record_reader read, bool test,
                                                            std::uint64_t span = std::uint64_t{64} << 20) const;

 private:
  /// `inner` behind the site filter (owned with it when `owner` holds it).
  std::unique_ptr<detail::engine> make_filter(const detail::engine& inner, bool classify,
                                              std::unique_ptr<matcher> owner = nullptr) const;
  struct data;
  std::unique_ptr<data> d_;
};

/// A searcher's site_search, for the library's own drivers (trawl::genome).
struct searcher_access {
  static const site_search& of(const searcher& s) noexcept { return *s.impl_; }
};

}  // namespace trawl::offtarget
