// src/gpu/gpu_search.cpp — the public CUDA entry points (trawl/gpu.hpp): the GPU matcher
// (plans, the device scan of a slice's window, per-end candidates turned into the hits a CPU
// matcher reports: clusters flagged open at the slice's edges, leftmost starts), run by the
// same slicing driver and hit pipeline as the CPU (search.cpp).
// Host cost: O(c log c) for c candidates plus O(m·(m+k)) per reported approximate hit.
#include "trawl/detail/engine.hpp"
#include "trawl/gpu.hpp"

#include <algorithm>
#include <span>
#include <condition_variable>
#include <memory>
#include <mutex>

#include <tbb/blocked_range.h>
#include <tbb/info.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "approx/approx_internal.hpp"
#include "approx/plan.hpp"
#include "exact/engines.hpp"
#include "gpu/gpu_internal.hpp"
#include "common/dispatch.hpp"
#include "common/reserved_text.hpp"
#include "hits/clusters.hpp"
#include "hits/starts.hpp"
#include "trawl/error.hpp"

namespace trawl::gpu {

#ifndef TRAWL_HAVE_CUDA

bool available() noexcept { return false; }
int device_count() noexcept { return 0; }
std::string device_name(int) { return {}; }
void prepare(const device_spec&) noexcept {}
std::shared_ptr<const void> keep_resident(std::string_view, const device_spec&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
std::uint64_t resident_bytes(const std::shared_ptr<const void>&) noexcept { return 0; }
std::unique_ptr<matcher> make_matcher(const std::vector<std::string>&, const search_options&, const gpu_options&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
std::unique_ptr<matcher> detail::make_matcher(const std::vector<std::string>&, const search_options&, const gpu_knobs&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
std::uint64_t detail::search_sequence(const std::vector<std::string>&, std::string_view, const search_options&,
                                      const hit_callback&, const gpu_knobs&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}
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
std::unique_ptr<trawl::detail::engine> detail::make_site_engine(const trawl::cuda::site_plan&, const device_spec&,
                                                                const gpu_knobs&) {
  throw trawl::error(errc::unsupported, "trawl was built without the CUDA backend");
}

#else

namespace {

using detail::task;

/// The host's cores for the work on a device's candidates: an arena of their own, since the
/// search's has a thread per device. Never destroyed (searches may run until exit).
tbb::task_arena& host_arena() {
  static auto* arena = new tbb::task_arena(tbb::info::default_concurrency());
  return *arena;
}

/// Runs `fn(i)` for i in [0, n) on all cores when n is large.
template <class Fn>
void parallel_for(std::size_t n, Fn fn) {
  if (n < 256) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  host_arena().execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, n, 1024), [&](const tbb::blocked_range<std::size_t>& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) fn(i);
    });
  });
}

/// Sorts [first, last) by `less` on all cores.
template <class It, class Less>
void parallel_sort(It first, It last, Less less) {
  host_arena().execute([&] { tbb::parallel_sort(first, last, less); });
}

/// The packer of dispatch level `level` for a stream's DNA, or none when `gpu` sends bytes.
dna_pack::pack_fn packer_of(const detail::gpu_knobs& gpu, simd_level level) {
  return gpu.pack_dna ? simd::kernels_at(level).pack : nullptr;
}

/// Whether `seq` lies in a reserved text (trawl::genome kept on GPUs), whose bytes are only on
/// the GPUs that hold it; throws when GPU `ordinal` does not hold `window` of it.
trawl::detail::reserved_view reserved_on(std::string_view seq, std::string_view window, int ordinal) {
  const trawl::detail::reserved_view where = trawl::detail::reserved_of(seq);
  if (where && !trawl::cuda::is_resident(ordinal, window))
    throw trawl::error(errc::invalid_argument, "a sequence kept on the GPU is searched on GPU " + std::to_string(ordinal) +
                                                   ", which does not hold it");
  return where;
}

/// The stream on GPU `ordinal` of a scan whose window starts at sequence offset `from`; DNA
/// is packed by `pack` (packer_of); the plan's device tables are kept in `plans`.
trawl::cuda::stream_config stream_config_of(const detail::gpu_knobs& gpu, int ordinal, std::uint64_t from,
                                            dna_pack::pack_fn pack, const trawl::cuda::plan_cache& plans) {
  trawl::cuda::stream_config cfg;
  cfg.device = ordinal;
  cfg.plans = &plans;
  cfg.chunk_size = gpu.chunk_size;
  cfg.fd = gpu.source_fd;
  cfg.fd_offset = gpu.source_offset + from;
  cfg.pack = pack;
  return cfg;
}

/// The GPU as a matcher: scan() runs the device over the window a slice reads and reports the
/// hits it owns, clusters cut by its edges flagged open, as the CPU matchers do; ordering,
/// merging, max_hits and early stop are the slicing driver's (search.cpp), the same for both.
/// The device streams the window through its own ring of pinned buffers (stream.cu).
class gpu_matcher final : public trawl::detail::engine {
 public:
  gpu_matcher(const std::vector<std::string>& patterns, const search_options& options, const detail::gpu_knobs& gpu,
              int ordinal)
      : tasks_(detail::make_tasks(patterns, options)), gpu_(gpu), ordinal_(ordinal),
        k_(static_cast<std::uint32_t>(options.max_errors)), pack_(packer_of(gpu, options.simd)) {
    if (!trawl::cuda::query_device(ordinal).present) throw trawl::error(errc::no_device, "no CUDA device present");
    if (gpu.keep_end && !options.all_ends)
      throw trawl::error(errc::invalid_argument, "keep_end needs search_options::all_ends");
    std::size_t min_m = ~std::size_t{0};
    for (std::size_t i = 0; i < tasks_.size(); ++i) {
      max_m_ = std::max<std::size_t>(max_m_, tasks_[i].text.size());
      min_m = std::min<std::size_t>(min_m, tasks_[i].text.size());
      const std::size_t slot = 2 * std::size_t{tasks_[i].pattern} + (tasks_[i].dir == strand::reverse ? 1 : 0);
      if (task_of_.size() <= slot) task_of_.resize(slot + 1);
      task_of_[slot] = static_cast<std::uint32_t>(i);
    }
    approx_ = options.max_errors > 0 || options.all_ends;
    // Exact search with IUPAC codes runs the approximate kernel at k = 0, keyed by starts.
    iupac_ = !approx_ && detail::needs_iupac(tasks_, options);
    hamming_ = options.hamming && k_ > 0;
    // Hamming ends where k is small against m come from the edit-distance kernel, whose ends
    // (score <= k) hold every window of at most k mismatches, each window then checked on the
    // host; the Hamming kernel is slower (5k <= m: where the edit kernel's ends stay sparse).
    hamming_check_ = hamming_ && 5 * std::size_t{k_} <= min_m;
    clusters_ = approx_ && !options.all_ends;
    starts_ = options.starts && approx_ && !hamming_;
    if (starts_) starts_kernels_ = simd::kernels_at(options.simd).starts;
    // For the CPU's start finder (align.cpp) and the Hamming check: each task's text as the
    // device matches it.
    if (starts_ || hamming_check_)
      for (const task& t : tasks_) task_patterns_.push_back(approx_detail::compile_pattern(t.text, 0, strand::forward, options.rules()));
    if (approx_ || iupac_) {
      eq_ = detail::match_table(options);
      approx_plan_ = detail::make_approx_plan(tasks_, eq_, approx_ ? k_ : 0, hamming_ && !hamming_check_);
      approx_plan_.algo = gpu.approx == approx_engine::warp    ? trawl::cuda::approx_plan::engine::warp
                          : gpu.approx == approx_engine::tiled ? trawl::cuda::approx_plan::engine::tiled
                                                               : trawl::cuda::approx_plan::engine::automatic;
      approx_plan_.slice_length = gpu.slice_length;
      // A set of short DNA patterns goes through the seed filter where the CPU's plan would
      // take every one of them (approx/plan.hpp decides), verified on the device.
      if (approx_ && !hamming_ && !(gpu.device_end_test && gpu.keep_end) && gpu.approx == approx_engine::automatic &&
          approx_detail::seeds_allowed(options) && max_m_ <= 64) {
        std::vector<approx_detail::compiled_pattern> compiled;
        std::vector<const approx_detail::compiled_pattern*> ptrs;
        std::vector<std::uint32_t> ks;
        compiled.reserve(tasks_.size());
        for (const task& t : tasks_) {
          compiled.push_back(approx_detail::compile_pattern(t.text, 0, strand::forward, options.rules()));
          ks.push_back(std::min<std::uint32_t>(k_, static_cast<std::uint32_t>(t.text.size())));
        }
        for (const auto& c : compiled) ptrs.push_back(&c);
        const auto seeds = approx_detail::plan_seeds(ptrs, ks, options.approx == approx_algorithm::myers_seeds);
        if (seeds && seeds->members().size() == tasks_.size()) {
          auto sp = std::make_shared<trawl::cuda::seed_plan>();
          seeds->export_tables(*sp);
          approx_plan_.seeds = std::move(sp);
        }
      }
      if (gpu.device_end_test && gpu.keep_end) {
        auto test = std::make_shared<trawl::cuda::site_end_test>(*gpu.device_end_test);
        test->guide_of.clear();
        test->pam_of.clear();
        for (const task& t : tasks_) {
          test->guide_of.push_back(gpu.device_end_test->guide_of.at(t.pattern));
          test->pam_of.push_back(gpu.device_end_test->pam_of.at(t.pattern));
          test->reverse.push_back(t.dir == strand::reverse ? 1 : 0);
        }
        approx_plan_.sites = std::move(test);
      }
    } else {
      exact_plan_ = detail::make_exact_plan(tasks_, options);
      // the filter tests every pattern-strand at every start: past a few, the hash lookup wins
      constexpr std::size_t hashed_from = 8;
      using kernel = trawl::cuda::exact_plan::engine;
      exact_plan_.algo = gpu.exact == exact_engine::sunday   ? kernel::sunday
                         : gpu.exact == exact_engine::filter ? kernel::filter
                         : gpu.exact == exact_engine::hashed || tasks_.size() >= hashed_from ? kernel::hashed
                                                                                             : kernel::filter;
      exact_plan_.slice_length = gpu.slice_length;
    }
  }

  [[nodiscard]] std::size_t lookbehind() const override {
    return approx_ ? max_m_ + (hamming_ ? 0 : k_) - 1 : 0;
  }
  [[nodiscard]] std::size_t lookahead() const override { return approx_ ? 0 : max_m_ - 1; }
  [[nodiscard]] hit_key key() const override { return approx_ ? hit_key::last : hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override { return tasks_.size() == 1; }
  [[nodiscard]] device_spec device() const override { return {device_kind::gpu, {ordinal_}}; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<trawl::detail::open_mark>& open) const override {
    if (own_begin >= own_end || tasks_.empty()) return;
    const std::size_t from = own_begin >= lookbehind() ? own_begin - lookbehind() : 0;
    const std::size_t to = std::min(seq.size(), own_end + lookahead());
    const std::string_view window = seq.substr(from, to - from);
    const trawl::cuda::stream_config cfg = stream_config_of(gpu_, ordinal_, from, pack_, plans_);
    // A sequence kept only on the GPU (a reserved text): the device scans its copy, and the
    // bytes around the ends are read through the text's reader.
    const trawl::detail::reserved_view where = reserved_on(seq, window, ordinal_);
    // a site test reads at most a pattern, its errors and the PAM before an end, the errors after it
    const std::size_t reach_before = max_m_ + k_ + 64, reach_after = std::size_t{k_} + 64;
    // Candidates in sequence coordinates, keyed by their owned position (the start for exact
    // keys, the last byte otherwise), only those this slice owns.
    std::vector<trawl::cuda::candidate> found;
    auto collect = [&](std::uint64_t, std::uint64_t, std::vector<trawl::cuda::candidate>& cs) {
      // a chunk's candidates (dense at large k) tested on all cores, here, while the device
      // runs the next chunks
      std::vector<std::uint8_t> keep(cs.size());
      parallel_for(cs.size(), [&](std::size_t i) {
        trawl::cuda::candidate& c = cs[i];
        c.pos += from;
        const task& t = tasks_[c.task];
        const std::uint64_t key = iupac_ ? c.pos + 1 - t.text.size() : c.pos;
        // an end the device's site test confirmed needs no second test here
        const bool confirmed = (c.score & trawl::cuda::site_end_test::confirmed) != 0;
        c.score &= ~trawl::cuda::site_end_test::confirmed;
        keep[i] = key >= own_begin && key < own_end &&
                  (!gpu_.keep_end || confirmed || test_end(seq, where, c.pos + 1, t, reach_before, reach_after));
      });
      const std::size_t before = found.size();
      for (std::size_t i = 0; i < cs.size(); ++i)
        if (keep[i] != 0) found.push_back(cs[i]);
      // All ends: each chunk's ends in the hits' order (end, pattern, strand); the chunks come
      // in text order, and so the whole list.
      if (approx_ && !clusters_)
        parallel_sort(found.begin() + static_cast<std::ptrdiff_t>(before), found.end(),
                      [](const trawl::cuda::candidate& x, const trawl::cuda::candidate& y) {
                        return x.pos != y.pos ? x.pos < y.pos : x.task < y.task;  // tasks: by (pattern, strand)
                      });
      return true;
    };
    if (approx_ || iupac_) trawl::cuda::stream_approx(approx_plan_, window, cfg, collect);
    else trawl::cuda::stream_exact(exact_plan_, window, cfg, collect);

    if (hamming_check_) keep_hamming_windows(seq, where, found);

    const std::size_t first = out.size();
    std::vector<trawl::detail::cut_cluster> cut;
    if (!approx_) {
      for (const auto& c : found) {
        const std::uint64_t m = tasks_[c.task].text.size();
        const std::uint64_t start = iupac_ ? c.pos + 1 - m : c.pos;
        out.push_back(hit{start, start + m, tasks_[c.task].pattern, 0, tasks_[c.task].dir});
      }
    } else {
      // Clusters (hits/clusters.hpp): the runs of consecutive ends of one task, sorted by
      // (task, position); a run at an edge of the owned range is open on that side. All ends:
      // each end a hit.
      if (clusters_)
        std::sort(found.begin(), found.end(), [](const auto& x, const auto& y) {
          return x.task != y.task ? x.task < y.task : x.pos < y.pos;
        });
      auto make = [&](const trawl::cuda::candidate& c) {
        const task& t = tasks_[c.task];
        const std::uint64_t start = hamming_ ? c.pos + 1 - t.text.size() : c.pos + 1;
        return hit{start, c.pos + 1, t.pattern, c.score, t.dir};
      };
      using trawl::cuda::candidate;
      hits::for_each_run(
          found.data(), found.size(), clusters_, [](const candidate& a, const candidate& b) { return a.task == b.task; },
          [](const candidate& c) { return c.pos; }, [](const candidate& c) { return c.score; },
          [&](std::size_t best, const hits::end_run& run) {
            out.push_back(make(found[best]));
            const std::uint8_t sides = clusters_ ? run.sides(own_begin, own_end) : 0;
            if (sides != 0) cut.push_back({out.back().end, out.back().pattern, out.back().dir, sides});
          });
      const auto pattern_of = [&](const hit& h) -> const approx_detail::compiled_pattern& {
        return task_patterns_[task_of_[2 * std::size_t{h.pattern} + (h.dir == strand::reverse ? 1 : 0)]];
      };
      if (starts_ && !where) {
        hits::fill_starts(std::span<hit>(out.data() + first, out.size() - first), seq, 0, starts_kernels_, pattern_of);
      } else if (starts_) {  // each hit's start from the bytes it can span, read for it
        parallel_for(out.size() - first, [&](std::size_t i) {
          hit& h = out[first + i];
          const approx_detail::compiled_pattern& p = pattern_of(h);
          const std::uint64_t lo = h.end > p.m + k_ ? h.end - p.m - k_ : 0;
          thread_local std::string buf;
          const std::string_view bytes = trawl::detail::read_bytes(seq, where, lo, h.end, buf);
          hit local = h;
          local.end -= lo;
          hits::fill_starts(p, bytes, 0, std::span<hit>(&local, 1), starts_kernels_);
          h.start = local.start + lo;
        });
      }
    }
    if (!approx_ || clusters_)
      parallel_sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order::of(approx_));
    trawl::detail::mark_cut(out, first, cut, open);
  }

 private:
  /// Whether gpu_.keep_end keeps the end `end` of task t: the test is given the bytes of seq
  /// from `before` bytes before the end to `after` past it, where seq is a reserved text.
  bool test_end(std::string_view seq, const trawl::detail::reserved_view& where, std::uint64_t end, const task& t,
                std::size_t before, std::size_t after) const {
    if (!where) return gpu_.keep_end(seq, end, t.pattern, t.dir);
    const std::uint64_t lo = end > before ? end - before : 0;
    thread_local std::string buf;
    return gpu_.keep_end(trawl::detail::read_bytes(seq, where, lo, end + after, buf), end - lo, t.pattern, t.dir);
  }

  /// Keeps the ends whose window of m bytes has at most k mismatches, scored by that count.
  void keep_hamming_windows(std::string_view seq, const trawl::detail::reserved_view& where,
                            std::vector<trawl::cuda::candidate>& found) const {
    std::vector<std::uint8_t> keep(found.size(), 0);
    parallel_for(found.size(), [&](std::size_t i) {
      trawl::cuda::candidate& c = found[i];
      const approx_detail::compiled_pattern& p = task_patterns_[c.task];
      if (c.pos + 1 < p.m) return;
      thread_local std::string buf;
      const std::string_view bytes = trawl::detail::read_bytes(seq, where, c.pos + 1 - p.m, c.pos + 1, buf);
      const std::uint32_t mism =
          approx_detail::window_mismatches(p, reinterpret_cast<const unsigned char*>(bytes.data()), k_);
      if (mism <= k_) {
        c.score = mism;
        keep[i] = 1;
      }
    });
    std::size_t n = 0;
    for (std::size_t i = 0; i < found.size(); ++i)
      if (keep[i] != 0) found[n++] = found[i];
    found.resize(n);
  }

  std::vector<task> tasks_;
  std::vector<std::uint32_t> task_of_;  ///< task of (pattern, strand), at 2 * pattern + strand
  detail::gpu_knobs gpu_;
  int ordinal_;  ///< the GPU it runs on
  std::uint32_t k_;
  dna_pack::pack_fn pack_;  ///< the transfer's packer, of options.simd's dispatch table
  std::size_t max_m_ = 1;
  bool approx_ = false, iupac_ = false, hamming_ = false, clusters_ = false, starts_ = false;
  bool hamming_check_ = false;  ///< Hamming by the edit-distance kernel and a host check
  std::vector<std::uint8_t> eq_;
  std::vector<approx_detail::compiled_pattern> task_patterns_;  ///< per task, when starts_ or hamming_check_
  approx_detail::start_kernels starts_kernels_;  ///< the start kernels of options.simd's dispatch table
  trawl::cuda::approx_plan approx_plan_;
  trawl::cuda::exact_plan exact_plan_;
  trawl::cuda::plan_cache plans_;  ///< the device tables of the plan it scans with, uploaded once
};

/// The GPU's PAM scan (site_plan): a slice's window streamed through the device, its sites
/// turned into the hits the CPU's PAM scan reports (src/offtarget/pam_scan.hpp).
class site_matcher final : public trawl::detail::engine {
 public:
  site_matcher(trawl::cuda::site_plan plan, const detail::gpu_knobs& gpu, int ordinal)
      : plan_(std::move(plan)), gpu_(gpu), ordinal_(ordinal), pack_(packer_of(gpu, simd_level::automatic)) {
    if (!trawl::cuda::query_device(ordinal).present) throw trawl::error(errc::no_device, "no CUDA device present");
    if (plan_.longest > trawl::cuda::site_plan::max_longest)
      throw trawl::error(errc::unsupported, "the GPU's site scan takes guides of at most 64 bases");
  }
  [[nodiscard]] std::size_t lookbehind() const override { return std::size_t{plan_.longest} + plan_.longest_pam; }
  [[nodiscard]] std::size_t lookahead() const override { return 0; }
  [[nodiscard]] hit_key key() const override { return hit_key::last; }
  [[nodiscard]] device_spec device() const override { return {device_kind::gpu, {ordinal_}}; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<trawl::detail::open_mark>&) const override {
    if (own_begin >= own_end) return;
    const std::size_t from = own_begin >= lookbehind() ? own_begin - lookbehind() : 0;
    const std::size_t to = std::min(seq.size(), own_end);
    const trawl::cuda::stream_config cfg = stream_config_of(gpu_, ordinal_, from, pack_, plans_);
    (void)reserved_on(seq, seq.substr(from, to - from), ordinal_);  // the scan reads no host bytes
    std::vector<trawl::cuda::candidate> found;
    trawl::cuda::stream_sites(plan_, seq.substr(from, to - from), cfg,
                              [&](std::uint64_t, std::uint64_t, std::vector<trawl::cuda::candidate>& cs) {
                                for (const auto& c : cs)
                                  if (c.pos + from >= own_begin && c.pos + from < own_end)
                                    found.push_back({c.pos + from, c.task, c.score});
                                return true;
                              });
    // by (end, pattern, strand): task = 2 * pattern + strand; a guide exact in two blocks twice
    parallel_sort(found.begin(), found.end(), [](const trawl::cuda::candidate& x, const trawl::cuda::candidate& y) {
      return x.pos != y.pos ? x.pos < y.pos : x.task < y.task;
    });
    found.erase(std::unique(found.begin(), found.end(),
                            [](const auto& x, const auto& y) { return x.pos == y.pos && x.task == y.task; }),
                found.end());
    const auto npams = static_cast<std::uint32_t>(plan_.pams.size());
    for (const auto& c : found) {
      const std::uint32_t pattern = c.task / 2;
      const std::uint64_t m = plan_.lengths[pattern / npams] + plan_.pams[pattern % npams].size();
      out.push_back(hit{c.pos + 1 - m, c.pos + 1, pattern, c.score, c.task % 2 == 1 ? strand::reverse : strand::forward});
    }
  }

 private:
  trawl::cuda::site_plan plan_;
  detail::gpu_knobs gpu_;
  int ordinal_;
  dna_pack::pack_fn pack_;  ///< the transfer's packer
  trawl::cuda::plan_cache plans_;  ///< plan_'s device tables, uploaded once
};

}  // namespace

bool available() noexcept {
  try {
    return trawl::cuda::query_device(0).present;
  } catch (...) {
    return false;
  }
}

int device_count() noexcept {
  int n = 0;
  while (n < 64 && trawl::cuda::query_device(n).present) ++n;
  return n;
}

std::string device_name(int device) {
  try {
    return trawl::cuda::query_device(device).name;
  } catch (...) {
    return {};
  }
}

void prepare(const device_spec& device) noexcept {
  if (device.kind == device_kind::cpu) return;
  for (const int d : device.workers()) trawl::cuda::start_device(d);
}

std::shared_ptr<const void> keep_resident(std::string_view text, const device_spec& device) {
  const int present = device_count();
  std::vector<std::shared_ptr<const void>> copies;
  for (const int d : device.workers()) {
    if (d < 0 || d >= present)
      throw trawl::error(errc::no_device, present == 0 ? "no CUDA device is present" : "there is no GPU " + std::to_string(d));
    const trawl::detail::reserved_view where = trawl::detail::reserved_of(text);
    std::function<void(std::uint64_t, std::size_t, char*)> produce;
    if (where)
      produce = [read = where.read, origin = where.origin](std::uint64_t pos, std::size_t n, char* out) {
        (*read)(origin + pos, n, out);
      };
    copies.push_back(
        trawl::cuda::keep_resident(d, text, packer_of(detail::gpu_knobs{}, simd_level::automatic), produce));
  }
  return std::make_shared<std::vector<std::shared_ptr<const void>>>(std::move(copies));
}

std::uint64_t resident_bytes(const std::shared_ptr<const void>& handle) noexcept {
  if (!handle) return 0;
  const auto& copies = *static_cast<const std::vector<std::shared_ptr<const void>>*>(handle.get());
  return copies.empty() ? 0 : trawl::cuda::resident_bytes(copies.front().get());
}

/// Several GPU workers behind one matcher: a scan takes a free worker and runs on its device,
/// so the driver's parallel slices spread over every listed device.
class gpu_pool final : public trawl::detail::engine {
 public:
  /// make(ordinal) -> the engine of GPU `ordinal`, for each of `ordinals`
  template <class Make>
  gpu_pool(const std::vector<int>& ordinals, Make make) {
    for (const int d : ordinals) workers_.push_back(make(d));
    busy_.assign(workers_.size(), false);
  }
  [[nodiscard]] device_spec device() const override {
    device_spec d(device_kind::gpu);
    for (const auto& w : workers_) d.gpus.push_back(w->device().first_gpu());
    return d;
  }
  [[nodiscard]] std::size_t lookbehind() const override { return workers_[0]->lookbehind(); }
  [[nodiscard]] std::size_t lookahead() const override { return workers_[0]->lookahead(); }
  [[nodiscard]] hit_key key() const override { return workers_[0]->key(); }
  [[nodiscard]] bool one_pattern_strand() const override { return workers_[0]->one_pattern_strand(); }
  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<trawl::detail::open_mark>& open) const override {
    std::size_t w = 0;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return std::find(busy_.begin(), busy_.end(), false) != busy_.end(); });
      w = static_cast<std::size_t>(std::find(busy_.begin(), busy_.end(), false) - busy_.begin());
      busy_[w] = true;
    }
    struct release {
      const gpu_pool& p;
      std::size_t w;
      ~release() {
        const std::lock_guard<std::mutex> lock(p.m_);
        p.busy_[w] = false;
        p.cv_.notify_one();
      }
    } done{*this, w};
    workers_[w]->scan(seq, own_begin, own_end, out, open);
  }

 private:
  std::vector<std::unique_ptr<trawl::detail::engine>> workers_;
  mutable std::mutex m_;
  mutable std::condition_variable cv_;
  mutable std::vector<bool> busy_;
};

std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options,
                                      const gpu_options& gpu) {
  return detail::make_matcher(patterns, options, detail::gpu_knobs(gpu));
}

std::unique_ptr<matcher> detail::make_matcher(const std::vector<std::string>& patterns, const search_options& options,
                                              const gpu_knobs& gpu) {
  if (options.regex) throw trawl::error(errc::invalid_argument, "search_options::regex runs on the CPU");
  const std::vector<int> ordinals = options.device.workers();
  std::unique_ptr<trawl::detail::engine> e;
  if (ordinals.size() > 1)
    e = std::make_unique<gpu_pool>(ordinals, [&](int d) { return std::make_unique<gpu_matcher>(patterns, options, gpu, d); });
  else
    e = std::make_unique<gpu_matcher>(patterns, options, gpu, ordinals[0]);
  return std::make_unique<matcher>(with_boundaries(std::move(e), options));
}

std::unique_ptr<trawl::detail::engine> detail::make_site_engine(const trawl::cuda::site_plan& plan,
                                                                const device_spec& device, const gpu_knobs& gpu) {
  const std::vector<int> ordinals = device.workers();
  if (ordinals.size() > 1)
    return std::make_unique<gpu_pool>(ordinals, [&](int d) { return std::make_unique<site_matcher>(plan, gpu, d); });
  return std::make_unique<site_matcher>(plan, gpu, ordinals[0]);
}

std::uint64_t search_sequence(const std::vector<std::string>& patterns, std::string_view seq,
                              const search_options& options, const hit_callback& on_hits, const gpu_options& gpu) {
  return detail::search_sequence(patterns, seq, options, on_hits, detail::gpu_knobs(gpu));
}

std::uint64_t detail::search_sequence(const std::vector<std::string>& patterns, std::string_view seq,
                                      const search_options& options, const hit_callback& on_hits, const gpu_knobs& gpu) {
  const auto m = detail::make_matcher(patterns, options, gpu);
  // One slice per worker and then some (one slice for one device, which streams it in its own
  // chunks); as many driver threads as workers.
  const std::size_t workers = options.device.workers().size();
  search_options sliced = options;
  sliced.threads = static_cast<unsigned>(workers);
  sliced.slice_size = workers == 1 ? std::max<std::size_t>(seq.size(), 1) : seq.size() / (4 * workers) + 1;
  return trawl::search_sequence(*m, seq, sliced, on_hits);
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
  const int ordinal = options.device.first_gpu();
  if (!trawl::cuda::query_device(ordinal).present) throw trawl::error(errc::no_device, "no CUDA device present");
  best_result result;
  result.distance = static_cast<std::uint32_t>(x.size());
  if (y.empty()) {  // the empty substring, as the CPU engine reports it
    result.occurrences.push_back(hit{0, 0, 0, result.distance, strand::forward});
    return result;
  }
  const auto engine = options.algorithm == best_algorithm::wavefront ? trawl::cuda::best_engine::wavefront
                                                                     : trawl::cuda::best_engine::myers;
  trawl::cuda::best_ends ends = trawl::cuda::best_substring_ends(x, y, engine, gpu.slice_length, ordinal);
  result.distance = ends.distance;
  const auto p = approx_detail::compile_pattern(x, 0, strand::forward, match_rules{});
  result.occurrences.resize(ends.ends.size());
  for (std::size_t i = 0; i < ends.ends.size(); ++i)
    result.occurrences[i] = hit{0, ends.ends[i] + 1, 0, ends.distance, strand::forward};
  hits::fill_starts(std::span<hit>(result.occurrences), y, 0, simd::kernels_at(options.simd).starts,
                    [&](const hit&) -> const approx_detail::compiled_pattern& { return p; });
  if (options.every_start) approx_detail::expand_every_start(x, y, result);
  return result;
}

#endif  // TRAWL_HAVE_CUDA

}  // namespace trawl::gpu
