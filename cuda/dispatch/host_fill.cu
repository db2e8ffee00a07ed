// cuda/dispatch/host_fill.cu — the host worker pool and the parallel chunk fill (see
// host_fill.cuh).
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <climits>
#include <cstring>
#include <string>

#include <sys/mman.h>
#include <unistd.h>

#include "dispatch/host_fill.cuh"
#include "trawl/error.hpp"

#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22  // Linux 5.14; older kernels answer EINVAL, which is ignored
#endif

namespace trawl::cuda {

host_workers& host_workers::instance() {
  // Leaked on purpose: worker threads may still wait on its mutex while static destructors
  // run at exit; the process reclaims it.
  static host_workers* pool = new host_workers(std::max(1u, std::thread::hardware_concurrency()) - 1);
  return *pool;
}

host_workers::host_workers(unsigned n) {
  n = std::max(1u, n);
  threads_.reserve(n);
  for (unsigned i = 0; i < n; ++i) {
    threads_.emplace_back([this] { loop(); });
    threads_.back().detach();
  }
}

void host_workers::run_part(job& j, std::size_t p) noexcept {
  using clk = std::chrono::steady_clock;
  auto now = [] { return std::chrono::duration_cast<std::chrono::nanoseconds>(clk::now().time_since_epoch()).count(); };
  std::exception_ptr e;
  if (!j.cancelled.load(std::memory_order_relaxed)) {
    const std::int64_t t0 = now();
    for (std::int64_t cur = j.t_first.load(); t0 < cur && !j.t_first.compare_exchange_weak(cur, t0);) {
    }
    try {
      j.fn(p);
    } catch (...) {
      e = std::current_exception();
    }
    const std::int64_t t1 = now();
    for (std::int64_t cur = j.t_last.load(); t1 > cur && !j.t_last.compare_exchange_weak(cur, t1);) {
    }
  }
  std::lock_guard<std::mutex> lock(j.m);
  if (e && !j.error) j.error = e;
  if (++j.done == j.parts) j.cv.notify_all();
}

void host_workers::loop() {
  for (;;) {
    std::shared_ptr<job> j;
    std::size_t p = 0;
    {
      std::unique_lock<std::mutex> lock(m_);
      cv_.wait(lock, [&] { return !queue_.empty(); });
      j = queue_.front();
      p = j->next.fetch_add(1);
      if (p + 1 >= j->parts) queue_.pop_front();  // every part claimed
      if (p >= j->parts) continue;                 // claimed by a waiter meanwhile
    }
    run_part(*j, p);
  }
}

std::shared_ptr<host_workers::job> host_workers::submit(std::size_t parts, std::function<void(std::size_t)> fn) {
  auto j = std::make_shared<job>();
  j->parts = parts;
  j->fn = std::move(fn);
  if (parts == 0) return j;
  {
    std::lock_guard<std::mutex> lock(m_);
    queue_.push_back(j);
  }
  if (parts == 1) cv_.notify_one();
  else cv_.notify_all();
  return j;
}

void host_workers::wait(job& j) {
  for (std::size_t p; (p = j.next.fetch_add(1)) < j.parts;) run_part(j, p);
  std::unique_lock<std::mutex> lock(j.m);
  j.cv.wait(lock, [&] { return j.done == j.parts; });
  if (j.error) std::rethrow_exception(j.error);
}

void host_workers::cancel(job& j) noexcept {
  j.cancelled.store(true);
  for (std::size_t p; (p = j.next.fetch_add(1)) < j.parts;) run_part(j, p);
  std::unique_lock<std::mutex> lock(j.m);
  j.cv.wait(lock, [&] { return j.done == j.parts; });
}

namespace {

void pread_all(int fd, char* dst, std::size_t len, std::uint64_t off) {
  while (len > 0) {
    const ssize_t r = ::pread(fd, dst, len, static_cast<off_t>(off));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0)
      throw trawl::error(errc::io_error, r == 0 ? std::string("file shorter than expected while streaming to the GPU")
                                                : std::string("read failed while streaming to the GPU: ") +
                                                      std::strerror(errno));
    dst += r;
    len -= static_cast<std::size_t>(r);
    off += static_cast<std::uint64_t>(r);
  }
}

}  // namespace

namespace {

constexpr std::size_t kPage = 4096;

/// The parts a chunk of len bytes is filled in: page-aligned, about one per thread, at least
/// 1 MiB.
struct part_plan {
  std::size_t part, parts;
};
part_plan plan_parts(const host_workers& pool, std::size_t len) {
  constexpr std::size_t kMinPart = std::size_t{1} << 20;
  const std::size_t threads = pool.size() + 1;
  std::size_t part = std::max(kMinPart, (len + threads - 1) / threads);
  part = (part + kPage - 1) / kPage * kPage;
  return {part, (len + part - 1) / part};
}

/// Faults in text[from, from + len) ahead of its read: advice only, an error (an old kernel,
/// memory that is not a mapping) changes nothing.
void populate(const char* from, std::size_t len) {
  const auto lo = reinterpret_cast<std::uintptr_t>(from) & ~std::uintptr_t{kPage - 1};
  const auto hi = reinterpret_cast<std::uintptr_t>(from + len);
  madvise(reinterpret_cast<void*>(lo), hi - lo, MADV_POPULATE_READ);
}

/// Where a packed chunk's runs start in its buffer.
std::size_t runs_offset(std::size_t len) { return ((len + 3) / 4 + 7) / 8 * 8; }

}  // namespace

std::shared_ptr<host_workers::job> submit_fill(host_workers& pool, void* dst, const fill_source& src, std::size_t pos,
                                              std::size_t len) {
  const auto [part, parts] = plan_parts(pool, len);
  char* out = static_cast<char*>(dst);
  fill_source s = src;
  return pool.submit(parts, [=](std::size_t p) {
    const std::size_t a = p * part, b = std::min(len, a + part);
    if (s.fd >= 0) {
      pread_all(s.fd, out + a, b - a, s.fd_offset + pos + a);
      return;
    }
    const char* from = s.text.data() + pos + a;
    if (s.populate) populate(from, b - a);
    std::memcpy(out + a, from, b - a);
  });
}

std::size_t packed_size(const host_workers& pool, std::size_t len) {
  const auto [part, parts] = plan_parts(pool, len);
  (void)part;
  return runs_offset(len) + sizeof(dna_pack::run) * (len / 64 + parts);
}

packed_fill submit_pack(host_workers& pool, void* dst, const fill_source& src, std::size_t pos, std::size_t len,
                        dna_pack::pack_fn pack) {
  const auto [part, parts] = plan_parts(pool, len);
  packed_fill f;
  f.len = len;
  f.runs_at = runs_offset(len);
  for (std::size_t p = 0; p < parts; ++p) f.first_run.push_back(p * part / 64 + p);
  f.counts = std::make_shared<std::vector<std::size_t>>(parts, dna_pack::failed);
  auto* out = static_cast<std::uint8_t*>(dst);
  auto* runs = reinterpret_cast<dna_pack::run*>(out + f.runs_at);
  const fill_source s = src;
  auto failed = std::make_shared<std::atomic<bool>>(false);
  f.job = pool.submit(parts, [=, counts = f.counts, first = f.first_run](std::size_t p) {
    if (failed->load(std::memory_order_relaxed)) return;  // another part was not DNA: the chunk goes as bytes
    const std::size_t a = p * part, b = std::min(len, a + part);
    const char* from = s.text.data() + pos + a;
    if (s.populate) populate(from, b - a);
    const std::size_t n = pack(from, b - a, out + a / 4, runs + first[p], (b - a) / 64 + 1, static_cast<std::uint32_t>(a));
    (*counts)[p] = n;
    if (n == dna_pack::failed) failed->store(true, std::memory_order_relaxed);
  });
  return f;
}

std::size_t packed_fill::gather(void* dst) const {
  auto* runs = reinterpret_cast<dna_pack::run*>(static_cast<std::uint8_t*>(dst) + runs_at);
  std::size_t total = 0;
  for (std::size_t p = 0; p < counts->size(); ++p) {
    const std::size_t c = (*counts)[p];
    if (c == dna_pack::failed) return dna_pack::failed;
    if (total != first_run[p]) std::memmove(runs + total, runs + first_run[p], c * sizeof(dna_pack::run));
    total += c;
  }
  return total;
}

}  // namespace trawl::cuda
