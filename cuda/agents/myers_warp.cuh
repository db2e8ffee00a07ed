// cuda/agents/myers_warp.cuh — per-warp agent of the multi-word Myers engine (any m up to
// 32·R·64). Lane L holds words [L·R, L·R + R) of the column; the lanes are a pipeline along
// the text: at step s lane L processes text column s - L, taking the horizontal carry of its
// lowest word from lane L-1 (computed one step earlier for the same column) by a shuffle.
// Each warp scans one pattern over one slice of ends, warming up over m+k-1 bytes before it.
// Cost: (SL + m + k + lanes) steps of R word updates per warp.
#pragma once

#include <cstdint>

#include "agents/emit.cuh"
#include "agents/site_gate.cuh"
#include "agents/myers_step.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

template <int R>
struct myers_warp_agent {
  const multi_device_tasks& tasks;
  const approx_common& common;
  const text_window& w;
  const candidate_sink& sink;
  std::uint32_t* scores;
  const std::uint8_t* map_s;

  __device__ void run(std::uint32_t t, std::size_t a, std::size_t b) const {
    const int lane = static_cast<int>(threadIdx.x & 31u);
    const std::uint32_t m = tasks.lengths[t];
    const std::uint32_t id = tasks.ids[t];
    const std::uint32_t k = common.k;
    const int W = static_cast<int>((m + 63) / 64);
    const int lanes_used = (W + R - 1) / R;
    const int last_word = W - 1;
    const int last_lane = last_word / R;
    const int last_bit = static_cast<int>((m - 1) & 63u);
    const std::uint64_t* peq = tasks.peq + tasks.offsets[t];
    const std::size_t ov = static_cast<std::size_t>(m) + k - 1;
    const std::size_t s0 = a >= ov ? a - ov : 0;

    std::uint64_t pv[R], mv[R];
#pragma unroll
    for (int r = 0; r < R; ++r) {
      pv[r] = ~0ull;
      mv[r] = 0;
    }
    int score = static_cast<int>(m);
    int carry = 0;
    // Text prefetch: lane q holds the codes of relative columns 32·batch + q (cur), the batch
    // before (prev) and the batch after (next, loaded one batch ahead to hide its latency).
    // Lane L at step st needs column st - L, in cur or prev of lane (st - L) mod 32.
    const std::size_t len = b - s0;
    auto load = [&](std::size_t rel) -> std::uint32_t {
      return rel < len ? map_s[w.data[s0 + rel]] : 0u;
    };
    std::uint32_t prev = 0, cur = load(static_cast<std::size_t>(lane)), next = load(32 + static_cast<std::size_t>(lane));
    const long long steps = static_cast<long long>(len) + lanes_used - 1;
    for (long long st = 0; st < steps; ++st) {
      if ((st & 31) == 0 && st > 0) {
        prev = cur;
        cur = next;
        next = load(static_cast<std::size_t>(st) + 32 + static_cast<std::size_t>(lane));
      }
      const long long jr = st - lane;
      const int src = static_cast<int>(jr & 31);
      const std::uint32_t from_cur = __shfl_sync(0xffffffffu, cur, src);
      const std::uint32_t from_prev = __shfl_sync(0xffffffffu, prev, src);
      int hout = 0;
      if (lane < lanes_used && jr >= 0 && static_cast<std::size_t>(jr) < len) {
        const std::size_t col = s0 + static_cast<std::size_t>(jr);
        const std::uint32_t c = jr >= (st & ~31ll) ? from_cur : from_prev;
        const std::uint64_t* pq = peq + static_cast<std::size_t>(c) * W + lane * R;
        int h = lane == 0 ? 0 : carry;
#pragma unroll
        for (int r = 0; r < R; ++r) {
          const int word = lane * R + r;
          if (word <= last_word) {
            h = myers_block_step(__ldg(pq + r), pv[r], mv[r], h, word == last_word ? last_bit : 63);
            if (word == last_word) score += h;
          }
        }
        hout = h;
        if (lane == last_lane && col >= a) {
          if (scores) {
            scores[col - w.own_begin] = static_cast<std::uint32_t>(score);
          } else if (score <= static_cast<int>(k)) {
            emit_end(common, w, sink, col, id, static_cast<std::uint32_t>(score));
          }
        }
      }
      carry = __shfl_up_sync(0xffffffffu, hout, 1);
    }
  }
};

/// Hamming distance of every owned end: thread per (end, pattern), O(m) with early exit.
struct hamming_agent {
  const multi_device_tasks& tasks;
  const approx_common& common;
  const text_window& w;
  const candidate_sink& sink;
  const std::uint8_t* map_s;

  __device__ void run(std::uint32_t t, std::size_t j) const {
    const std::uint32_t m = tasks.lengths[t];
    if (j + 1 < m) return;
    const std::uint32_t W = (m + 63) / 64;
    const std::uint64_t* peq = tasks.peq + tasks.offsets[t];
    const std::size_t s = j + 1 - m;
    std::uint32_t mism = 0;
    for (std::uint32_t i = 0; i < m; ++i) {
      const std::uint32_t c = map_s[w.data[s + i]];
      mism += static_cast<std::uint32_t>(((__ldg(peq + static_cast<std::size_t>(c) * W + i / 64) >> (i & 63u)) & 1ull) ^ 1ull);
      if (mism > common.k) return;
    }
    emit_candidate(sink.out, sink.count, sink.capacity, w.base + j, tasks.ids[t], mism);
  }
};

}  // namespace trawl::cuda
