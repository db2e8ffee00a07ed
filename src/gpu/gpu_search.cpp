// src/gpu/gpu_search.cpp — the public CUDA entry points (trawl/gpu.hpp): validation, plans,
// the chunked device scan, and the host work that turns per-end candidates into the exact
// hits and order of the CPU driver (clusters, leftmost starts, max_hits, early stop).
// Host cost: O(c log c) for c candidates plus O(m·(m+k)) per reported approximate hit.
#include "trawl/gpu.hpp"

#include <algorithm>
#include <span>
#include <thread>
#include <unordered_map>

#include "approx/approx_internal.hpp"
#include "gpu/gpu_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::gpu {

#ifndef TRAWL_HAVE_CUDA

bool available() noexcept { return false; }
std::string device_name(int) { return {}; }
std::uint64_t search_sequence(const std::vector<std::string>&, std::string_view, const search_options&,
                              const hit_callback&, const gpu_options&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
std::vector<hit> search(std::string_view, const std::vector<std::string>&, const search_options&, const gpu_options&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
best_result best_substring(std::string_view, std::string_view, const best_options&, const gpu_options&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}

#else

namespace {

using detail::task;

bool hit_less(const hit& a, const hit& b, hit_key key) {
  const std::uint64_t ka = key == hit_key::start ? a.start : a.end, kb = key == hit_key::start ? b.start : b.end;
  if (ka != kb) return ka < kb;
  if (a.pattern != b.pattern) return a.pattern < b.pattern;
  if (a.dir != b.dir) return a.dir < b.dir;
  if (a.start != b.start) return a.start < b.start;
  return a.end < b.end;
}

/// Runs `fn(i)` for i in [0, n) on all cores when n is large.
template <class Fn>
void parallel_for(std::size_t n, Fn fn) {
  const unsigned hw = std::max(1u, std::thread::hardware_concurrency());
  if (n < 256 || hw == 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  const std::size_t parts = std::min<std::size_t>(hw, n / 64);
  std::vector<std::thread> pool;
  for (std::size_t p = 0; p < parts; ++p)
    pool.emplace_back([&, p] {
      for (std::size_t i = p; i < n; i += parts) fn(i);
    });
  for (auto& t : pool) t.join();
}

/// Hands hits to the caller in order, in batches, honouring max_hits and early stop. Hits are
/// held until every hit that could still sort before them is known (the watermark).
class emitter {
 public:
  emitter(hit_key key, const hit_callback& cb, std::uint64_t max_hits) : key_(key), cb_(cb), max_(max_hits) {}

  void add(const hit& h) { pending_.push_back(h); }
  [[nodiscard]] bool stopped() const noexcept { return stopped_; }
  [[nodiscard]] std::uint64_t delivered() const noexcept { return delivered_; }

  /// Delivers the pending hits whose key is < watermark. `finish` fills in missing starts.
  template <class Finish>
  void flush(std::uint64_t watermark, Finish&& finish) {
    if (stopped_ || pending_.empty()) return;
    auto key = [&](const hit& h) { return key_ == hit_key::start ? h.start : h.end; };
    auto mid = std::partition(pending_.begin(), pending_.end(), [&](const hit& h) { return key(h) < watermark; });
    std::vector<hit> out(pending_.begin(), mid);
    pending_.erase(pending_.begin(), mid);
    if (out.empty()) return;
    std::sort(out.begin(), out.end(), [&](const hit& a, const hit& b) { return hit_less(a, b, key_); });
    if (max_ && delivered_ + out.size() > max_) out.resize(static_cast<std::size_t>(max_ - delivered_));
    finish(out);
    delivered_ += out.size();
    if (!out.empty() && !cb_(std::span<const hit>(out))) stopped_ = true;
    if (max_ && delivered_ >= max_) stopped_ = true;
  }

 private:
  hit_key key_;
  const hit_callback& cb_;
  std::uint64_t max_;
  std::uint64_t delivered_ = 0;
  bool stopped_ = false;
  std::vector<hit> pending_;
};

trawl::cuda::stream_config stream_cfg(const gpu_options& g) {
  trawl::cuda::stream_config c;
  c.device = g.device;
  c.chunk_size = g.chunk_size;
  c.fd = g.source_fd;
  c.fd_offset = g.source_offset;
  return c;
}

std::uint64_t search_exact(const std::vector<task>& tasks, std::string_view seq, const search_options& options,
                           const hit_callback& on_hits, const gpu_options& gpu) {
  trawl::cuda::exact_plan plan = detail::make_exact_plan(tasks, options);
  plan.algo = gpu.exact == exact_engine::sunday ? trawl::cuda::exact_plan::engine::sunday
                                                : trawl::cuda::exact_plan::engine::filter;
  plan.slice_length = gpu.slice_length;
  emitter out(hit_key::start, on_hits, options.max_hits);
  trawl::cuda::stream_exact(plan, seq, stream_cfg(gpu),
                            [&](std::uint64_t, std::uint64_t own_end, std::vector<trawl::cuda::candidate>& found) {
                              for (const auto& c : found) {
                                const task& t = tasks[c.task];
                                out.add(hit{c.pos, c.pos + t.text.size(), t.pattern, 0, t.dir, 0});
                              }
                              out.flush(own_end, [](std::vector<hit>&) {});
                              return !out.stopped();
                            });
  return out.delivered();
}

/// Approximate search (and exact search with IUPAC codes, as k = 0 with start keys).
std::uint64_t search_approx(const std::vector<task>& tasks, std::string_view seq, const search_options& options,
                            const hit_callback& on_hits, const gpu_options& gpu, bool exact_keys) {
  const auto k = static_cast<std::uint32_t>(options.max_errors);
  const std::vector<std::uint8_t> eq = detail::match_table(options);
  const bool hamming = options.hamming && k > 0;
  trawl::cuda::approx_plan plan = detail::make_approx_plan(tasks, eq, k, hamming);
  plan.algo = gpu.approx == approx_engine::warp    ? trawl::cuda::approx_plan::engine::warp
              : gpu.approx == approx_engine::tiled ? trawl::cuda::approx_plan::engine::tiled
                                                   : trawl::cuda::approx_plan::engine::automatic;
  plan.slice_length = gpu.slice_length;
  std::uint64_t max_m = 0;
  for (const task& t : tasks) max_m = std::max<std::uint64_t>(max_m, t.text.size());

  emitter out(exact_keys ? hit_key::start : hit_key::last, on_hits, options.max_hits);
  auto finish = [&](std::vector<hit>& hits) {
    if (exact_keys || hamming) return;  // starts already known
    parallel_for(hits.size(), [&](std::size_t i) {
      hit& h = hits[i];
      const task& t = tasks[static_cast<std::size_t>(h.start)];  // task index parked in start
      h.start = detail::leftmost_start(t.text, seq, h.end - 1, h.errors, eq);
    });
  };
  auto make_hit = [&](std::uint32_t ti, std::uint64_t pos, std::uint32_t score) {
    const task& t = tasks[ti];
    hit h{ti, pos + 1, t.pattern, score, t.dir, 0};  // start = task index until finish()
    if (exact_keys || hamming) h.start = pos + 1 - t.text.size();
    return h;
  };
  // cluster state per task: the current run of consecutive ends with score <= k
  struct run {
    std::uint64_t last = 0, best = 0;
    std::uint32_t best_score = 0;
    bool open = false;
  };
  std::vector<run> runs(tasks.size());
  std::vector<std::uint32_t> open_list;
  const bool clusters = !options.all_ends && !exact_keys;

  trawl::cuda::stream_approx(
      plan, seq, stream_cfg(gpu),
      [&](std::uint64_t, std::uint64_t own_end, std::vector<trawl::cuda::candidate>& found) {
        std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
          return a.pos != b.pos ? a.pos < b.pos : a.task < b.task;
        });
        if (!clusters) {
          for (const auto& c : found) out.add(make_hit(c.task, c.pos, c.score));
          // exact keys: a later end may still start before this chunk's end
          const std::uint64_t wm = exact_keys ? (own_end + 1 > max_m ? own_end + 1 - max_m : 0) : own_end + 1;
          out.flush(own_end >= seq.size() ? ~std::uint64_t{0} : wm, finish);
          return !out.stopped();
        }
        for (const auto& c : found) {
          run& r = runs[c.task];
          if (r.open && c.pos == r.last + 1) {
            r.last = c.pos;
            if (c.score < r.best_score) {
              r.best = c.pos;
              r.best_score = c.score;
            }
            continue;
          }
          if (r.open) out.add(make_hit(c.task, r.best, r.best_score));
          else open_list.push_back(c.task);
          r = run{c.pos, c.pos, c.score, true};
        }
        // close the runs that cannot continue into the next chunk
        const bool at_end = own_end >= seq.size();
        std::uint64_t watermark = own_end + 1;  // hit keys are end = pos + 1
        std::vector<std::uint32_t> still;
        for (std::uint32_t ti : open_list) {
          run& r = runs[ti];
          if (!r.open) continue;
          if (!at_end && r.last + 1 == own_end) {
            still.push_back(ti);
            watermark = std::min(watermark, r.best + 1);
          } else {
            out.add(make_hit(ti, r.best, r.best_score));
            r.open = false;
          }
        }
        open_list.swap(still);
        out.flush(at_end ? ~std::uint64_t{0} : watermark, finish);
        return !out.stopped();
      });
  return out.delivered();
}

}  // namespace

bool available() noexcept {
  try {
    return trawl::cuda::query_device(0).present;
  } catch (...) {
    return false;
  }
}

std::string device_name(int device) {
  try {
    return trawl::cuda::query_device(device).name;
  } catch (...) {
    return {};
  }
}

std::uint64_t search_sequence(const std::vector<std::string>& patterns, std::string_view seq,
                              const search_options& options, const hit_callback& on_hits, const gpu_options& gpu) {
  const std::vector<task> tasks = detail::make_tasks(patterns, options);
  if (!trawl::cuda::query_device(gpu.device).present) throw trawl::error(errc::no_device, "no CUDA device present");
  if (tasks.empty() || seq.empty()) return 0;
  if (options.max_errors > 0 || options.all_ends) return search_approx(tasks, seq, options, on_hits, gpu, false);
  if (detail::needs_iupac(tasks, options)) return search_approx(tasks, seq, options, on_hits, gpu, true);
  return search_exact(tasks, seq, options, on_hits, gpu);
}

std::vector<hit> search(std::string_view text, const std::vector<std::string>& patterns, const search_options& options,
                        const gpu_options& gpu) {
  std::vector<hit> all;
  search_sequence(patterns, text, options,
                  [&](std::span<const hit> batch) {
                    all.insert(all.end(), batch.begin(), batch.end());
                    return true;
                  },
                  gpu);
  return all;
}

best_result best_substring(std::string_view x, std::string_view y, const best_options& options,
                           const gpu_options& gpu) {
  if (x.empty()) throw trawl::error(errc::invalid_argument, "empty pattern");
  if (x.find('\0') != std::string_view::npos) throw trawl::error(errc::invalid_argument, "pattern contains a NUL byte");
  if (!trawl::cuda::query_device(gpu.device).present) throw trawl::error(errc::no_device, "no CUDA device present");
  best_result result;
  result.distance = static_cast<std::uint32_t>(x.size());
  if (y.empty()) {  // the empty substring, as the CPU engine reports it
    result.occurrences.push_back(hit{0, 0, 0, result.distance, strand::forward, 0});
    return result;
  }
  const auto engine = options.algorithm == best_algorithm::wavefront ? trawl::cuda::best_engine::wavefront
                                                                     : trawl::cuda::best_engine::myers;
  trawl::cuda::best_ends ends = trawl::cuda::best_substring_ends(x, y, engine, gpu.slice_length, gpu.device);
  result.distance = ends.distance;
  const std::vector<std::uint8_t> eq = detail::match_table(search_options{});
  result.occurrences.resize(ends.ends.size());
  parallel_for(ends.ends.size(), [&](std::size_t i) {
    const std::uint64_t j = ends.ends[i];
    result.occurrences[i] = hit{detail::leftmost_start(x, y, j, ends.distance, eq), j + 1, 0, ends.distance,
                                strand::forward, 0};
  });
  if (options.every_start) approx_detail::expand_every_start(x, y, result);
  return result;
}

#endif  // TRAWL_HAVE_CUDA

}  // namespace trawl::gpu
