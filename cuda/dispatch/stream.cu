// cuda/dispatch/stream.cu — texts of any size through the device in chunks: chunk i owns
// positions [c_i, c_i + chunk) and carries `lookbehind` bytes before and `lookahead` after,
// so every key position is decided by exactly one chunk and results do not depend on the
// chunk size.
//
// Chunks flow through a ring of S slots (pinned host buffer, device text buffer, candidate
// buffer, stream). The slots belong to the device and persist across calls (allocated on
// first use, grown when a larger chunk is asked for; one set per search running at once on
// the device), so a search pays no cudaHostAlloc. While
// the GPU copies and scans chunks i-S+2..i, the host worker pool fills chunk i+1 on every
// core (pread from a file descriptor, or a pre-faulted copy from memory), and the sink of
// chunk i-S+1 runs on the calling thread. Cost: one host pass and one H2D copy per byte.
// With stream_config::pack, DNA goes two bits a base (src/common/dna_pack.hpp): the fill packs
// instead of copying, a quarter of the bytes (plus the runs of other bytes) cross the bus, and
// a kernel unpacks them into the slot's text buffer. A chunk that is not DNA enough to pack
// goes as bytes, and so does the rest of the stream. A text kept on the device
// (keep_resident) is kept two bits a base when it is DNA, and each chunk's window is unpacked
// from it into a slot.
#include <algorithm>
#include <chrono>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "api/backend.hpp"
#include "common/check.cuh"
#include "dispatch/host_fill.cuh"
#include "dispatch/plans.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

namespace {

using clk = std::chrono::steady_clock;
double seconds(clk::time_point a, clk::time_point b) { return std::chrono::duration<double>(b - a).count(); }

constexpr std::size_t kPadding = 128;
constexpr std::size_t kAlign = 256;  // a resident window's first byte: cudaMalloc's alignment
constexpr std::size_t kDefaultChunk = std::size_t{16} << 20;  // tuned: bench/records/stream-45052f7-h100.csv
constexpr std::size_t kDefaultSlots = 4;
/// Chunks shorter than this go as bytes: the pinned buffer must hold the packing and its runs.
constexpr std::size_t kPackFrom = std::size_t{64} << 10;

struct slot {
  pinned_array<std::uint8_t> host;
  device_array<std::uint8_t> text;
  device_array<candidate> out;
  device_array<unsigned long long> count{1};
  pinned_array<unsigned long long> host_count{1};
  /// The kernels' ends before a plan's site test (tests_sites), which keeps some in `out`.
  device_array<candidate> raw;
  device_array<unsigned long long> raw_count{1};
  pinned_array<unsigned long long> host_raw_count{1};
  /// A chunk sent two bits a base (stream_config::pack): its packed bytes and runs, unpacked
  /// into `text` on the device.
  device_array<std::uint8_t> packed;
  seed_scratch seeds;  ///< the seed filter's pass (an approx_device_plan with seeds)
  stream_owner stream;
};

/// Whether a plan's ends pass its site test on the device before they are taken.
template <class Plan>
bool tests_sites(const Plan& plan) {
  if constexpr (requires { plan.tests_sites(); }) return plan.tests_sites();
  else return false;
}

/// A set of staging slots of one device, used by one search at a time.
struct staging {
  bool write_combined = false;
  std::vector<std::unique_ptr<slot>> slots;

  /// At least `n` slots with `len` bytes of text, `capacity` candidates and `raw` candidates
  /// before the site test each (grow only).
  void ensure(std::size_t n, std::size_t len, std::size_t capacity, std::size_t raw = 0) {
    while (slots.size() < n) slots.push_back(std::make_unique<slot>());
    for (std::size_t i = 0; i < n; ++i) {
      slot& s = *slots[i];
      if (s.host.size() < len) {
        s.host.reset(0);
        s.host.set_write_combined(write_combined);
        s.host.reset(len);
      }
      if (s.text.size() < len + kPadding) {
        s.text.reset(0);
        s.text.reset(len + kPadding);
        // on the slot's stream: a cudaMemset on the legacy stream is not ordered before the
        // copies of this (non-blocking) stream and could zero text that was already copied
        TRAWL_CUDA_CHECK(cudaMemsetAsync(s.text.get(), 0, len + kPadding, s.stream.get()));
      }
      if (s.out.size() < capacity) {
        s.out.reset(0);
        s.out.reset(capacity);
      }
      if (s.raw.size() < raw) {
        s.raw.reset(0);
        s.raw.reset(raw);
      }
    }
  }
};

/// On any exit from a scope that drives the first S slots of a staging set: no copy may still
/// read their pinned buffers, no kernel may still write their candidates.
struct slots_drain {
  staging& st;
  std::size_t S;
  ~slots_drain() {
    for (std::size_t i = 0; i < S; ++i) cudaStreamSynchronize(st.slots[i]->stream.get());
  }
};

/// Waits for the work of the first S slots of `st`.
void sync_slots(staging& st, std::size_t S) {
  for (std::size_t i = 0; i < S; ++i) TRAWL_CUDA_CHECK(cudaStreamSynchronize(st.slots[i]->stream.get()));
}

/// Per-device persistent staging: the sets not in use, kept for the next search. Leaked on
/// purpose (like the worker pool): freeing pinned memory from a static destructor races the
/// CUDA runtime's own teardown at exit.
struct staging_registry {
  /// Sets kept per device: the searches that run at once on one device (a pool's workers,
  /// the driver's slices) each keep theirs; more are freed when their search ends.
  static constexpr std::size_t kKept = 4;
  std::mutex m;
  std::vector<std::vector<std::unique_ptr<staging>>> free;  ///< per device
  static staging_registry& instance() {
    static staging_registry* r = new staging_registry;
    return *r;
  }
  /// A free set of `device` of the asked kind, else a new one.
  std::unique_ptr<staging> take(int device, bool write_combined) {
    const auto d = static_cast<std::size_t>(device);
    {
      std::lock_guard<std::mutex> lock(m);
      if (free.size() <= d) free.resize(d + 1);
      auto& f = free[d];
      f.reserve(kKept);  // give() never grows it
      for (std::size_t i = f.size(); i-- > 0;)
        if (f[i]->write_combined == write_combined) {
          std::unique_ptr<staging> st = std::move(f[i]);
          f.erase(f.begin() + static_cast<std::ptrdiff_t>(i));
          return st;
        }
    }
    auto st = std::make_unique<staging>();
    st->write_combined = write_combined;
    return st;
  }
  void give(int device, std::unique_ptr<staging> st) noexcept {
    std::unique_ptr<staging> dropped;  // freed outside the lock
    std::lock_guard<std::mutex> lock(m);
    auto& f = free[static_cast<std::size_t>(device)];
    if (f.size() < kKept) f.push_back(std::move(st));
    else dropped = std::move(st);
  }
};

/// A staging set of the device for one search, given back to the registry at its end.
class staging_lease {
 public:
  staging_lease(int device, bool write_combined)
      : device_(device), st_(staging_registry::instance().take(device, write_combined)) {}
  ~staging_lease() { staging_registry::instance().give(device_, std::move(st_)); }
  staging_lease(const staging_lease&) = delete;
  staging_lease& operator=(const staging_lease&) = delete;
  staging& get() const noexcept { return *st_; }

 private:
  int device_;
  std::unique_ptr<staging> st_;
};

struct geometry {
  std::size_t c0 = 0, c1 = 0, b0 = 0, len = 0;
};

/// Chunk i of a sequence of n bytes: it owns [c0, c1) and reads [b0, b0 + len).
geometry chunk_geometry(std::size_t i, std::size_t n, std::size_t chunk, std::size_t lookbehind, std::size_t lookahead) {
  geometry g;
  g.c0 = i * chunk;
  g.c1 = std::min(n, g.c0 + chunk);
  g.b0 = g.c0 - std::min(g.c0, lookbehind);
  g.len = std::min(n, g.c1 + lookahead) - g.b0;
  return g;
}

/// The plan's kernels over w on slot s's stream, with its scratch where the plan takes one;
/// `sites`: their ends go to the plan's site test next (approx_device_plan::launch's gate).
template <class Plan>
void launch_on(const Plan& plan, slot& s, const text_window& w, const candidate_sink& sink, bool sites = false) {
  if constexpr (std::is_same_v<Plan, approx_device_plan>) plan.launch(w, sink, s.stream.get(), &s.seeds, sites);
  else plan.launch(w, sink, s.stream.get());
}

/// Runs the plan's kernels over window `w` on slot `s`, their count copied back to the host.
template <class Plan>
void launch_window(const Plan& plan, slot& s, const text_window& w) {
  TRAWL_CUDA_CHECK(cudaMemsetAsync(s.count.get(), 0, sizeof(unsigned long long), s.stream.get()));
  const candidate_sink out{s.out.get(), s.count.get(), s.out.size()};
  bool tested = false;
  if constexpr (requires { plan.tests_sites(); })
    if (plan.tests_sites()) {
      TRAWL_CUDA_CHECK(cudaMemsetAsync(s.raw_count.get(), 0, sizeof(unsigned long long), s.stream.get()));
      launch_on(plan, s, w, candidate_sink{s.raw.get(), s.raw_count.get(), s.raw.size()}, true);
      plan.test_sites(w, s.raw.get(), s.raw_count.get(), s.raw.size(), out, s.stream.get());
      TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.host_raw_count.get(), s.raw_count.get(), sizeof(unsigned long long),
                                       cudaMemcpyDeviceToHost, s.stream.get()));
      tested = true;
    }
  if (!tested) launch_on(plan, s, w, out);
  TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.host_count.get(), s.count.get(), sizeof(unsigned long long),
                                   cudaMemcpyDeviceToHost, s.stream.get()));
}

/// Waits for a slot's kernels and takes their candidates into `found`. When they outgrew the
/// slot's buffers (`sites`: the ends before the site test too), those are grown and `again`
/// (the chunk's kernels, whose text is still on the device) runs first.
template <class Again>
void take_candidates(slot& s, bool sites, stream_stats& stats, std::vector<candidate>& found, Again&& again) {
  const auto t0 = clk::now();
  TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
  stats.gpu_wait_s += seconds(t0, clk::now());
  std::size_t total = static_cast<std::size_t>(*s.host_count.get());
  const std::size_t raw = sites ? static_cast<std::size_t>(*s.host_raw_count.get()) : 0;
  if (total > s.out.size() || raw > s.raw.size()) {
    const auto grow = [](device_array<candidate>& a, std::size_t n) {
      if (n <= a.size()) return;
      a.reset(0);
      a.reset(n + n / 4);
    };
    grow(s.out, std::max(total, raw));  // every end kept is one of the raw ends
    grow(s.raw, raw);
    again();
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
    total = static_cast<std::size_t>(*s.host_count.get());
  }
  found.resize(total);
  if (total) {
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(found.data(), s.out.get(), total * sizeof(candidate), cudaMemcpyDeviceToHost,
                                     s.stream.get()));
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));
  }
}

/// A host text's copy in device memory (keep_resident), found by the host address of a
/// sequence that lies inside it: the bytes, or for DNA the two-bit packing and its runs, of
/// which a search unpacks each window into a slot.
struct resident_copy {
  int device;
  const char* host;
  std::size_t size;
  device_array<std::uint8_t> text;    ///< the bytes, when not packed
  device_array<std::uint8_t> packed;  ///< (size + 3) / 4 bytes and kPackedTail more, when packed
  device_array<resident_run> runs;
  std::vector<resident_run> host_runs;  ///< the same, in text order: which meet a window

  [[nodiscard]] bool is_packed() const noexcept { return packed.size() != 0; }
  /// The runs [first, last) that meet bytes [from, from + n).
  [[nodiscard]] std::pair<std::size_t, std::size_t> runs_meeting(std::uint64_t from, std::size_t n) const {
    const auto b = host_runs.begin();
    const auto first = std::partition_point(b, host_runs.end(), [&](const resident_run& r) { return r.pos + r.len <= from; });
    const auto last = std::partition_point(first, host_runs.end(), [&](const resident_run& r) { return r.pos < from + n; });
    return {static_cast<std::size_t>(first - b), static_cast<std::size_t>(last - b)};
  }
};

struct resident_registry {
  std::mutex m;
  std::vector<std::weak_ptr<resident_copy>> copies;
  static resident_registry& instance() {
    static resident_registry* r = new resident_registry;  // leaked on purpose, as the staging registry
    return *r;
  }
  /// The copy on `device` holding all of `seq`, or null.
  std::shared_ptr<resident_copy> find(int device, std::string_view seq) {
    std::lock_guard<std::mutex> lock(m);
    for (std::size_t i = 0; i < copies.size();) {
      std::shared_ptr<resident_copy> c = copies[i].lock();
      if (!c) {  // its handle is gone
        copies.erase(copies.begin() + static_cast<std::ptrdiff_t>(i));
        continue;
      }
      if (c->device == device && seq.data() >= c->host && seq.data() + seq.size() <= c->host + c->size) return c;
      ++i;
    }
    return nullptr;
  }
};

/// run_stream over a sequence whose bytes are already on the device: the same chunks (so the
/// same candidates), each scanned where it lies in the resident copy, on the staging slots'
/// streams; no fill, no copy.
template <class Plan>
void run_resident(const Plan& plan, std::string_view seq, const resident_copy& copy, std::size_t lookbehind,
                  std::size_t lookahead, const stream_config& config, const chunk_sink& sink, clk::time_point t_begin) {
  const std::size_t n = seq.size();
  const std::size_t chunk = std::min(n, config.chunk_size ? config.chunk_size : kDefaultChunk);
  const std::size_t nchunks = (n + chunk - 1) / chunk;
  const std::size_t S = std::min(nchunks, std::clamp<std::size_t>(config.slots ? config.slots : kDefaultSlots, 1, 16));
  const std::size_t capacity = std::clamp<std::size_t>(chunk / 16, 4096, std::size_t{1} << 22);
  const std::size_t max_len = std::min(n, chunk + lookbehind + lookahead);
  staging_lease lease(config.device, config.write_combined);
  staging& st = lease.get();
  st.ensure(S, max_len, capacity, tests_sites(plan) ? capacity : 0);
  const auto origin = static_cast<std::uint64_t>(seq.data() - copy.host);  // seq's first byte in the copy
  stream_stats stats;
  stats.setup_s = seconds(t_begin, clk::now());
  const slots_drain guard{st, S};
  auto geometry_of = [&](std::size_t i) { return chunk_geometry(i, n, chunk, lookbehind, lookahead); };
  auto run_kernels = [&](slot& s, const geometry& g) {
    if (copy.is_packed()) {  // the window unpacked into the slot's buffer, from its first byte
      const auto [first, last] = copy.runs_meeting(origin + g.b0, g.len);
      launch_unpack_dna_window(copy.packed.get(), origin + g.b0, copy.runs.get() + first, last - first, s.text.get(),
                               g.len, s.stream.get());
      launch_window(plan, s, text_window{s.text.get(), g.len, g.c0 - g.b0, g.c1 - g.b0, g.b0});
      return;
    }
    // The kernels load the text in aligned vectors. Inside the sequence the window starts
    // at the aligned byte of the copy (cudaMalloc aligns it) at or before its first byte: the
    // bytes it adds lie further back than any hit reaches, so they change no hit. A first
    // window that would start before the sequence (and see bytes that are not in it) is
    // copied to the slot's aligned buffer instead.
    const std::uint8_t* at = copy.text.get() + origin + g.b0;
    const std::size_t shift = static_cast<std::size_t>(reinterpret_cast<std::uintptr_t>(at) % kAlign);
    text_window w{at - shift, g.len + shift, g.c0 - g.b0 + shift, g.c1 - g.b0 + shift, g.b0 - shift};
    if (shift > g.b0) {
      TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.text.get(), at, g.len, cudaMemcpyDeviceToDevice, s.stream.get()));
      w = text_window{s.text.get(), g.len, g.c0 - g.b0, g.c1 - g.b0, g.b0};
    }
    launch_window(plan, s, w);
  };
  std::vector<candidate> found;
  // chunk i runs on slot i % S; chunks i + 1 .. i + S - 1 run while chunk i is collected
  for (std::size_t i = 0; i < std::min(S, nchunks); ++i) run_kernels(*st.slots[i], geometry_of(i));
  for (std::size_t i = 0; i < nchunks; ++i) {
    slot& s = *st.slots[i % S];
    const geometry g = geometry_of(i);
    take_candidates(s, tests_sites(plan), stats, found, [&] { run_kernels(s, g); });
    if (i + S < nchunks) run_kernels(s, geometry_of(i + S));
    plan.remap(found);
    const auto t1 = clk::now();
    const bool more = sink(g.c0, g.c1, found);
    stats.sink_s += seconds(t1, clk::now());
    ++stats.chunks;
    if (!more) break;
  }
  stats.total_s = seconds(t_begin, clk::now());
  if (config.stats) *config.stats = stats;
}

template <class Plan>
void run_stream(const Plan& plan, std::string_view seq, std::size_t lookbehind, std::size_t lookahead,
                const stream_config& config, const chunk_sink& sink, clk::time_point t_begin) {
  const std::size_t n = seq.size();
  const std::shared_ptr<resident_copy> resident = resident_registry::instance().find(config.device, seq);
  if (resident) return run_resident(plan, seq, *resident, lookbehind, lookahead, config, sink, t_begin);
  const std::size_t chunk = std::min(n, config.chunk_size ? config.chunk_size : kDefaultChunk);
  const std::size_t nchunks = (n + chunk - 1) / chunk;
  const std::size_t S = std::min(nchunks, std::clamp<std::size_t>(config.slots ? config.slots : kDefaultSlots, 1, 16));
  const std::size_t max_len = std::min(n, chunk + lookbehind + lookahead);
  const std::size_t capacity = std::clamp<std::size_t>(chunk / 16, 4096, std::size_t{1} << 22);
  staging_lease lease(config.device, config.write_combined);
  staging& st = lease.get();
  st.ensure(S, max_len, capacity, tests_sites(plan) ? capacity : 0);
  host_workers& pool = host_workers::instance();
  const fill_source src{seq, config.fd, config.fd_offset, config.populate};
  stream_stats stats;
  const auto t_setup = clk::now();
  stats.setup_s = seconds(t_begin, t_setup);

  std::vector<geometry> geo(S);
  std::vector<std::shared_ptr<host_workers::job>> fills(S);
  std::vector<std::optional<packed_fill>> packs(S);  // the slot's fill packs its chunk
  std::vector<clk::time_point> fill_start(S);
  // On any exit: no fill may still write into the pinned buffers (then, the slots drained).
  struct drain {
    host_workers& pool;
    std::vector<std::shared_ptr<host_workers::job>>& fills;
    slots_drain slots;
    ~drain() {
      for (auto& f : fills)
        if (f) pool.cancel(*f);
    }
  } guard{pool, fills, {st, S}};

  bool packing = config.pack != nullptr && config.fd < 0 && max_len >= kPackFrom;  // off once a chunk is not DNA
  if (packing)  // before the pipeline: a cudaMalloc in it would wait for the whole device
    for (std::size_t i = 0; i < S; ++i) {
      slot& s = *st.slots[i];
      const std::size_t need = packed_size(pool, max_len) + 4;  // the unpack reads whole words
      if (s.packed.size() < need) {
        s.packed.reset(0);
        s.packed.reset(need);
      }
    }
  auto geometry_of = [&](std::size_t i) { return chunk_geometry(i, n, chunk, lookbehind, lookahead); };
  auto start_fill = [&](std::size_t i) {
    const std::size_t k = i % S;
    slot& s = *st.slots[k];
    geo[k] = geometry_of(i);
    fill_start[k] = clk::now();
    const std::size_t len = geo[k].len;
    packs[k].reset();
    if (packing && len >= kPackFrom && len <= UINT32_MAX && packed_size(pool, len) <= s.host.size() &&
        packed_size(pool, len) + 4 <= s.packed.size()) {
      packs[k] = submit_pack(pool, s.host.get(), src, geo[k].b0, len, config.pack);
      fills[k] = packs[k]->job;
    } else {
      fills[k] = submit_fill(pool, s.host.get(), src, geo[k].b0, len);
    }
  };
  // chunk i's bytes from its slot's pinned buffer into the text buffer: packed, or as they are
  // (also when its packing failed: then the slot is filled again, here)
  auto upload = [&](std::size_t i) {
    const std::size_t k = i % S;
    slot& s = *st.slots[k];
    const std::size_t len = geo[k].len;
    if (packs[k]) {
      const std::size_t runs = packs[k]->gather(s.host.get());
      if (runs != dna_pack::failed) {
        const std::size_t bytes = packs[k]->runs_at + runs * sizeof(dna_pack::run);
        TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.packed.get(), s.host.get(), bytes, cudaMemcpyHostToDevice, s.stream.get()));
        launch_unpack_dna(s.packed.get(), reinterpret_cast<const dna_pack::run*>(s.packed.get() + packs[k]->runs_at),
                          runs, s.text.get(), len, s.stream.get());
        stats.bytes += bytes;
        ++stats.packed_chunks;
        return;
      }
      packing = false;
      auto again = submit_fill(pool, s.host.get(), src, geo[k].b0, len);
      pool.wait(*again);
    }
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(s.text.get(), s.host.get(), len, cudaMemcpyHostToDevice, s.stream.get()));
    stats.bytes += len;
  };
  auto run_kernels = [&](slot& s, const geometry& g) {
    launch_window(plan, s, text_window{s.text.get(), g.len, g.c0 - g.b0, g.c1 - g.b0, g.b0});
  };
  // waits for chunk i's copy and kernels and takes its candidates; the slot is then free
  auto collect = [&](std::size_t i, std::vector<candidate>& found) {
    const std::size_t k = i % S;
    slot& s = *st.slots[k];
    take_candidates(s, tests_sites(plan), stats, found, [&] { run_kernels(s, geo[k]); });
  };
  std::vector<candidate> found;
  auto deliver = [&](std::size_t i) -> bool {
    const geometry g = geometry_of(i);
    plan.remap(found);
    const auto t0 = clk::now();
    const bool more = sink(g.c0, g.c1, found);
    stats.sink_s += seconds(t0, clk::now());
    return more;
  };

  start_fill(0);
  std::size_t delivered = 0;  // chunks [0, delivered) went to the sink
  bool stop = false;
  for (std::size_t i = 0; i < nchunks && !stop; ++i) {
    const std::size_t k = i % S;
    const auto t0 = clk::now();
    pool.wait(*fills[k]);
    const auto t1 = clk::now();
    stats.fill_wait_s += seconds(t0, t1);
    const auto first = fills[k]->t_first.load(), last = fills[k]->t_last.load();
    stats.fill_s += last > first ? static_cast<double>(last - first) * 1e-9 : 0.0;
    fills[k].reset();
    slot& s = *st.slots[k];
    upload(i);
    run_kernels(s, geo[k]);
    ++stats.chunks;
    // the slot of chunk i + 1 was last used by chunk i + 1 - S: take its candidates, refill
    // the slot, then hand the candidates to the sink while the fill runs
    const bool have = i + 1 >= S;
    if (have) collect(i + 1 - S, found);
    if (i + 1 < nchunks) start_fill(i + 1);
    if (have) {
      stop = !deliver(i + 1 - S);
      delivered = i + 2 - S;
    }
  }
  for (; !stop && delivered < nchunks; ++delivered) {
    collect(delivered, found);
    stop = !deliver(delivered);
  }
  stats.total_s = seconds(t_begin, clk::now());
  if (config.stats) *config.stats = stats;
}

}  // namespace

void host_fill(void* dst, std::string_view seq, std::size_t pos, std::size_t len, const stream_config& config) {
  host_workers& pool = host_workers::instance();
  auto job = submit_fill(pool, dst, fill_source{seq, config.fd, config.fd_offset, config.populate}, pos, len);
  pool.wait(*job);
}

namespace {

/// Bytes kept after a resident packing, zero: a window's unpack reads the word after its last.
constexpr std::size_t kPackedTail = 16;

using text_producer = std::function<void(std::uint64_t, std::size_t, char*)>;

/// Where the fill of chunk [at, at + len) of a text to keep resident reads it: the text where
/// it lies, or (with `produce`) the chunk produced into `scratch`; and the chunk's first byte
/// there.
std::pair<fill_source, std::size_t> resident_source(std::string_view text, const text_producer& produce, std::size_t at,
                                                    std::size_t len, std::string& scratch) {
  if (!produce) return {fill_source{text, -1, 0, stream_config{}.populate}, at};
  if (scratch.size() < len) scratch.resize(len);
  produce(at, len, scratch.data());
  return {fill_source{std::string_view(scratch.data(), len), -1, 0, false}, 0};
}

/// `text` sent to copy.text as bytes, a chunk at a time through the staging slots' pinned
/// buffers, each filled on every core.
void upload_bytes(resident_copy& copy, std::string_view text, const text_producer& produce) {
  copy.text.reset(text.size() + kPadding);
  TRAWL_CUDA_CHECK(cudaMemset(copy.text.get() + text.size(), 0, kPadding));
  const std::size_t chunk = std::min(text.size(), kDefaultChunk);
  if (chunk == 0) return;
  staging_lease lease(copy.device, false);
  staging& st = lease.get();
  const std::size_t S = std::min<std::size_t>(kDefaultSlots, (text.size() + chunk - 1) / chunk);
  st.ensure(S, chunk, 4096);
  const slots_drain guard{st, S};
  host_workers& pool = host_workers::instance();
  std::string scratch;
  for (std::size_t at = 0, i = 0; at < text.size(); at += chunk, ++i) {
    slot& s = *st.slots[i % S];
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));  // its last copy is done
    const std::size_t len = std::min(chunk, text.size() - at);
    const auto [src, pos] = resident_source(text, produce, at, len, scratch);
    auto job = submit_fill(pool, s.host.get(), src, pos, len);
    pool.wait(*job);
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(copy.text.get() + at, s.host.get(), len, cudaMemcpyHostToDevice, s.stream.get()));
  }
  sync_slots(st, S);
}

/// `text` packed two bits a base with `pack` (a chunk at a time on every core, as a stream
/// packs) into copy.packed and copy.runs. False, with nothing kept, when a chunk is not DNA
/// enough to pack.
bool upload_packed(resident_copy& copy, std::string_view text, dna_pack::pack_fn pack, const text_producer& produce) {
  const std::size_t n = text.size();
  // chunk i packs to bytes [i * chunk / 4, ...): chunk is a multiple of 4 where there are more
  const std::size_t chunk = std::min(n, kDefaultChunk);
  staging_lease lease(copy.device, false);
  staging& st = lease.get();
  const std::size_t S = std::min<std::size_t>(kDefaultSlots, (n + chunk - 1) / chunk);
  st.ensure(S, chunk, 4096);
  host_workers& pool = host_workers::instance();
  if (packed_size(pool, chunk) > chunk) return false;  // the pinned buffer would not hold the packing
  copy.packed.reset((n + 3) / 4 + kPackedTail);
  TRAWL_CUDA_CHECK(cudaMemset(copy.packed.get() + (n + 3) / 4, 0, kPackedTail));
  const slots_drain guard{st, S};
  std::string scratch;
  std::vector<resident_run>& runs = copy.host_runs;
  for (std::size_t at = 0, i = 0; at < n; at += chunk, ++i) {
    slot& s = *st.slots[i % S];
    TRAWL_CUDA_CHECK(cudaStreamSynchronize(s.stream.get()));  // its last copy is done
    const std::size_t len = std::min(chunk, n - at);
    const auto [src, pos] = resident_source(text, produce, at, len, scratch);
    const packed_fill f = submit_pack(pool, s.host.get(), src, pos, len, pack);
    pool.wait(*f.job);
    const std::size_t count = f.gather(s.host.get());
    if (count == dna_pack::failed) {
      sync_slots(st, S);
      copy.packed.reset(0);
      runs = {};
      return false;
    }
    const auto* r = reinterpret_cast<const dna_pack::run*>(s.host.get() + f.runs_at);
    for (std::size_t k = 0; k < count; ++k) runs.push_back({at + r[k].pos, r[k].len, r[k].byte, r[k].lower});
    TRAWL_CUDA_CHECK(cudaMemcpyAsync(copy.packed.get() + at / 4, s.host.get(), (len + 3) / 4, cudaMemcpyHostToDevice,
                                     s.stream.get()));
  }
  sync_slots(st, S);
  if (!runs.empty()) {
    copy.runs.reset(runs.size());
    TRAWL_CUDA_CHECK(cudaMemcpy(copy.runs.get(), runs.data(), runs.size() * sizeof(resident_run), cudaMemcpyHostToDevice));
  }
  return true;
}

}  // namespace

std::shared_ptr<const void> keep_resident(int device, std::string_view text, dna_pack::pack_fn pack,
                                          const text_producer& produce) {
  select_device(device);
  auto copy = std::make_shared<resident_copy>();
  copy->device = device;
  copy->host = text.data();
  copy->size = text.size();
  if (pack == nullptr || text.size() < kPackFrom || !upload_packed(*copy, text, pack, produce))
    upload_bytes(*copy, text, produce);
  resident_registry& r = resident_registry::instance();
  {
    std::lock_guard<std::mutex> lock(r.m);
    r.copies.push_back(copy);
  }
  return copy;
}

bool is_resident(int device, std::string_view seq) { return resident_registry::instance().find(device, seq) != nullptr; }

std::size_t resident_bytes(const void* handle) noexcept {
  const auto* c = static_cast<const resident_copy*>(handle);
  return c->text.size() + c->packed.size() + c->runs.size() * sizeof(resident_run);
}

void release_staging(int device) noexcept {
  if (device < 0) return;
  staging_registry& r = staging_registry::instance();
  std::vector<std::unique_ptr<staging>> old;
  {
    std::lock_guard<std::mutex> lock(r.m);
    if (r.free.size() > static_cast<std::size_t>(device)) old.swap(r.free[static_cast<std::size_t>(device)]);
  }
  // freed here (a search still running keeps its set, and gives it back when it ends)
}

struct plan_cache::impl {
  std::mutex m;
  const void* of = nullptr;  ///< the host plan the device plans were made of
  std::map<int, std::shared_ptr<const void>> plans;  ///< per device: its device plan

  /// Each device's plan freed with its device current (the caller's restored).
  ~impl() {
    if (plans.empty()) return;
    int current = -1;
    const bool known = cudaGetDevice(&current) == cudaSuccess;
    for (auto& [device, plan] : plans) {
      cudaSetDevice(device);
      plan.reset();
    }
    if (known) cudaSetDevice(current);
    cudaGetLastError();
  }
};

plan_cache::plan_cache() : impl_(std::make_unique<impl>()) {}
plan_cache::~plan_cache() = default;

namespace {

/// The device plan of `plan` on `config.device` (the current device): config.plans' when it
/// holds one, else made by make() (and kept there, when there is a cache).
template <class DevicePlan, class Plan, class Make>
std::shared_ptr<const DevicePlan> device_plan(const Plan& plan, const stream_config& config, Make make) {
  if (config.plans == nullptr) return make();
  plan_cache::impl& c = config.plans->get();
  const std::lock_guard<std::mutex> lock(c.m);  // one upload per device, however many callers
  if (c.of == nullptr) c.of = &plan;
  if (c.of != &plan) throw std::logic_error("a plan_cache serves one plan only");
  std::shared_ptr<const void>& kept = c.plans[config.device];
  if (!kept) kept = make();
  return std::static_pointer_cast<const DevicePlan>(kept);
}

}  // namespace

void stream_exact(const exact_plan& plan, std::string_view seq, const stream_config& config, const chunk_sink& sink) {
  const auto t0 = clk::now();
  select_device(config.device);
  if (plan.patterns.empty() || seq.empty()) return;
  const auto dplan =
      device_plan<exact_device_plan>(plan, config, [&] { return std::make_shared<const exact_device_plan>(plan); });
  run_stream(*dplan, seq, 0, dplan->max_length - 1, config, sink, t0);
}

void stream_approx(const approx_plan& plan, std::string_view seq, const stream_config& config,
                   const chunk_sink& sink) {
  const auto t0 = clk::now();
  select_device(config.device);
  if (plan.lengths.empty() || seq.empty()) return;
  const auto dplan = device_plan<approx_device_plan>(
      plan, config, [&] { return std::make_shared<const approx_device_plan>(plan, query_device(config.device)); });
  run_stream(*dplan, seq, dplan->max_length + plan.k - 1, 0, config, sink, t0);
}

void stream_sites(const site_plan& plan, std::string_view seq, const stream_config& config, const chunk_sink& sink) {
  const auto t0 = clk::now();
  select_device(config.device);
  if (plan.lengths.empty() || plan.pams.empty() || seq.empty()) return;
  if (plan.longest > site_plan::max_longest)
    throw trawl::error(errc::unsupported, "the GPU's site scan takes guides of at most 64 bases");
  const auto dplan = device_plan<site_device_plan>(plan, config, [&] { return std::make_shared<const site_device_plan>(plan); });
  run_stream(*dplan, seq, std::size_t{plan.longest} + plan.longest_pam, 0, config, sink, t0);
}

}  // namespace trawl::cuda
