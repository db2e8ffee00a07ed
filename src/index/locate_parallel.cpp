// locate_parallel.cpp — the two parallel locate engines.
//
// static_chunks: Letelier's Algorithms 3–4: the primaries are cut into `threads`
//   equal chunks, each thread runs the whole recursion of its chunk into its own buffer, and a
//   prefix sum over the buffer sizes places them in the result. Unbalanced: one primary with a
//   huge recursion tree keeps one thread busy while the others idle.
// balanced: a serial probe of 256 recursion steps first (small answers end there, no workers
//   woken); then oneTBB work stealing. Primaries are handed out in small blocks, and a task whose
//   local stack of recursion branches grows gives its older half (the larger subtrees, near
//   the root) away as a new task, so idle workers steal branches of the secondary recursion
//   too. Buffers are per thread; a prefix-sum copy and a parallel sort give text order.
// Both locate the primaries' suffix-array rows in parallel first (tbb::parallel_for).
// Both: O(occ · (t_rmq + log z) / p + occ log occ / p) time on p threads, O(occ) space; with
// a sink (streamed locate) the occurrences leave in unsorted batches and are not sorted here.
#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>

#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>
#include <tbb/task_group.h>

#include "index/ku_recursion.hpp"

namespace trawl::index {
namespace {

/// Concatenates per-thread buffers (prefix sum of their sizes) and sorts, in the calling arena.
std::vector<std::uint64_t> merge_sorted(const std::vector<const std::vector<std::uint64_t>*>& bufs) {
  std::vector<std::size_t> at(bufs.size() + 1, 0);
  for (std::size_t i = 0; i < bufs.size(); ++i) at[i + 1] = at[i] + bufs[i]->size();
  std::vector<std::uint64_t> out(at.back());
  tbb::parallel_for(std::size_t{0}, bufs.size(), [&](std::size_t i) {
    std::copy(bufs[i]->begin(), bufs[i]->end(), out.begin() + static_cast<std::ptrdiff_t>(at[i]));
  });
  tbb::parallel_sort(out.begin(), out.end());
  return out;
}

}  // namespace

std::vector<std::uint64_t> locate_static_chunks(const detail::index_impl& ix, std::string_view pattern, unsigned threads,
                                                const occurrence_sink* sink) {
  const unsigned nt = resolve_threads(threads);
  const std::uint64_t m = pattern.size();
  tbb::task_arena arena(static_cast<int>(nt));
  std::vector<std::uint64_t> prim;
  arena.execute([&] { prim = ix.primaries(pattern, nt > 1); });
  std::vector<std::vector<std::uint64_t>> bufs(nt);
  auto work = [&](unsigned t) {
    const std::size_t b = prim.size() * t / nt, e = prim.size() * (t + 1) / nt;
    std::vector<std::uint64_t>& out = bufs[t];
    std::vector<ku_item> stack;
    for (std::size_t i = b; i < e; ++i) {
      out.push_back(prim[i]);
      stack.push_back(ku_root(ix, prim[i]));
      while (!stack.empty()) {
        const ku_item it = stack.back();
        stack.pop_back();
        ku_step(ix, m, it, stack, out);
        flush_occurrences(out, sink);
      }
    }
    flush_occurrences(out, sink, true);
  };
  if (nt == 1) {
    work(0);
  } else {
    // a sink may throw (its temporary file fails): caught on each thread, the first thrown
    // once every thread has ended
    std::vector<std::exception_ptr> failed(nt);
    std::vector<std::thread> pool;
    for (unsigned t = 0; t < nt; ++t)
      pool.emplace_back([&, t] {
        try {
          work(t);
        } catch (...) {
          failed[t] = std::current_exception();
        }
      });
    for (auto& th : pool) th.join();
    for (const auto& f : failed)
      if (f) std::rethrow_exception(f);
  }
  if (sink != nullptr) return {};
  std::vector<const std::vector<std::uint64_t>*> ptrs;
  for (const auto& b : bufs) ptrs.push_back(&b);
  return arena.execute([&] { return merge_sorted(ptrs); });
}

std::vector<std::uint64_t> locate_balanced(const detail::index_impl& ix, std::string_view pattern, unsigned threads,
                                           const occurrence_sink* sink) {
  tbb::task_arena arena(static_cast<int>(resolve_threads(threads)));
  return arena.execute([&] { return locate_balanced_here(ix, pattern, sink); });
}

std::vector<std::uint64_t> locate_balanced_here(const detail::index_impl& ix, std::string_view pattern,
                                                const occurrence_sink* sink) {
  const std::uint64_t m = pattern.size();
  std::vector<std::uint64_t> prim = ix.primaries(pattern, tbb::this_task_arena::max_concurrency() > 1);
  // A short serial probe finishes small answers without waking the workers (a parallel
  // locate of a few hundred occurrences costs more than it saves).
  constexpr std::size_t probe_steps = 256;
  std::vector<std::uint64_t> head(prim);  // every primary is an occurrence
  std::vector<ku_item> pending;
  std::size_t next = 0;
  for (std::size_t steps = 0; steps < probe_steps && (next < prim.size() || !pending.empty()); ++steps) {
    if (pending.empty()) pending.push_back(ku_root(ix, prim[next++]));
    const ku_item it = pending.back();
    pending.pop_back();
    ku_step(ix, m, it, pending, head);
  }
  flush_occurrences(head, sink, true);
  if (next == prim.size() && pending.empty()) {
    std::sort(head.begin(), head.end());
    return head;
  }

  tbb::enumerable_thread_specific<std::vector<std::uint64_t>> bufs;
  constexpr std::size_t prim_block = 64;   // primaries (or pending items) per initial task
  constexpr std::size_t split_at = 16;     // stack depth that makes a task give work away
  constexpr std::size_t min_steps = 64;    // steps a task runs between two give-aways

  tbb::task_group tg;
  // Runs the recursion of a stack of items; oneTBB's task_group::run is safe from inside tasks.
  std::function<void(std::vector<ku_item>)> run = [&](std::vector<ku_item> stack) {
    std::vector<std::uint64_t>& out = bufs.local();
    std::size_t steps = 0;
    while (!stack.empty()) {
      const ku_item it = stack.back();
      stack.pop_back();
      ku_step(ix, m, it, stack, out);
      flush_occurrences(out, sink);
      if (++steps >= min_steps && stack.size() >= split_at) {
        std::vector<ku_item> give(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(stack.size() / 2));
        stack.erase(stack.begin(), stack.begin() + static_cast<std::ptrdiff_t>(give.size()));
        tg.run([&run, g = std::move(give)] { run(g); });
        steps = 0;
      }
    }
  };
  for (std::size_t b = 0; b < pending.size(); b += prim_block) {  // the probe's open branches
    std::vector<ku_item> part(pending.begin() + static_cast<std::ptrdiff_t>(b),
                              pending.begin() + static_cast<std::ptrdiff_t>(std::min(pending.size(), b + prim_block)));
    tg.run([&run, g = std::move(part)] { run(g); });
  }
  for (std::size_t b = next; b < prim.size(); b += prim_block) {  // the primaries not reached
    tg.run([&, b] {
      const std::size_t e = std::min(prim.size(), b + prim_block);
      std::vector<ku_item> stack;
      for (std::size_t i = b; i < e; ++i) stack.push_back(ku_root(ix, prim[i]));
      run(std::move(stack));
    });
  }
  tg.wait();
  if (sink != nullptr) {
    for (auto& b : bufs) flush_occurrences(b, sink, true);
    return {};
  }
  std::vector<const std::vector<std::uint64_t>*> ptrs{&head};
  for (const auto& b : bufs) ptrs.push_back(&b);
  return merge_sorted(ptrs);
}

}  // namespace trawl::index
