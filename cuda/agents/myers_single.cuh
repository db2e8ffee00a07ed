// cuda/agents/myers_single.cuh — per-block agent of the single-pattern Myers engine (m <= 32
// in a 32-bit word, m <= 64 in a 64-bit one): the one-pattern search, tuned for the fewest
// instructions per DP column. O(SL + ov) word steps per thread, text read once.
//
// A block of 256 threads owns 256 consecutive slices of SL ends; thread s runs the pattern over
// slice s after a warm-up of ov = m + k - 1 bytes. Slices stream through shared memory in
// rounds of 64 bytes (16-byte coalesced loads issued a round ahead, rows padded to 68 bytes
// so lane s reads bank 17s + i/4: conflict-free). What differs from the generic tiled agent:
//  - each step reads its text byte with a byte load at a compile-time offset (no shift/mask
//    on the integer pipe) and its Peq word from a 256-entry byte-indexed table, the address
//    formed by one IMAD (FMA pipe) instead of a LEA (ALU pipe);
//  - the score is checked once per group of 8 ends: it moves by at most 1 per end, so when
//    popc(Pv) - popc(Mv) > k + 8 at the group's start no end of the group can be a hit and
//    the 8 steps run without tracking it. The branch is taken warp-uniformly (__any_sync):
//    a divergent one would run both paths;
//  - full rounds without per-end bounds checks: ends past the slice are computed and never
//    reported (whatever bytes lie there), and positions are formed only on a hit;
//  - the step itself is Myers' 10 operations: 7 three-input logic ops, the addition and the
//    two shifts, which the compiler issues as IMAD (FMA pipe), leaving the ALU pipe 7 + ~1.
#pragma once

#include <cstdint>
#include <type_traits>

#include "agents/emit.cuh"
#include "agents/site_gate.cuh"
#include "agents/myers_step.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

/// One byte of shared memory at `addr + Off` (a compile-time offset): a byte load, so the
/// compiler cannot merge neighbouring bytes into a wider load plus PRMT extracts (ALU work).
template <int Off>
__device__ __forceinline__ std::uint32_t shared_byte(std::uint32_t addr) {
  std::uint32_t v;
  asm("ld.shared.u8 %0, [%1+%2];" : "=r"(v) : "r"(addr), "n"(Off));
  return v;
}

/// Peq word of byte `c` from the table at shared address `table`. The index is scaled by
/// `scale` (= sizeof(Word), passed at run time) in a multiply-add, which the compiler cannot
/// turn into a LEA: the address then costs an IMAD on the FMA pipe, not an ALU slot.
template <class Word>
__device__ __forceinline__ Word shared_peq(std::uint32_t table, std::uint32_t c, std::uint32_t scale) {
  std::uint32_t a;
  asm("mad.lo.u32 %0, %1, %2, %3;" : "=r"(a) : "r"(c), "r"(scale), "r"(table));
  Word v;
  if constexpr (sizeof(Word) == 4) asm("ld.shared.u32 %0, [%1];" : "=r"(v) : "r"(a));
  else asm("ld.shared.u64 %0, [%1];" : "=l"(v) : "r"(a));
  return v;
}

/// Unrolls f(std::integral_constant<int, 0>) ... f(std::integral_constant<int, N - 1>).
template <int I, int N, class F>
__device__ __forceinline__ void static_for(F&& f) {
  if constexpr (I < N) {
    f(std::integral_constant<int, I>{});
    static_for<I + 1, N>(f);
  }
}

struct single_shape {
  std::uint32_t SL = 1024;  ///< ends per slice
  std::uint32_t ov = 0;     ///< warm-up bytes (m + k - 1)
  std::uint32_t rounds = 1; ///< 64-byte rounds per slice, (SL + ov + 15) / 64 rounded up
  std::uint32_t word_bytes = 4;  ///< sizeof(Word), at run time (see shared_peq)
};

template <class Word>
struct myers_single_agent {
  static constexpr int kThreads = 256;
  static constexpr int kRound = 64;
  static constexpr int kRowBytes = 68;
  static constexpr int kGroup = 8;
  static constexpr int kBits = static_cast<int>(sizeof(Word) * 8);

  const tiled_device_tasks& task;
  const approx_common& common;
  const text_window& w;
  const candidate_sink& sink;
  const single_shape& shape;

  __device__ void run() const {
    __shared__ Word peq_s[256];
    __shared__ __align__(16) std::uint8_t rows[2][kThreads * kRowBytes];
    const std::uint32_t tid = threadIdx.x;
    {  // Peq by byte value: the pattern's classes through the code map
      const Word* peq_g = static_cast<const Word*>(task.peq);
      peq_s[tid] = peq_g[common.code_map[tid]];
    }

    const std::size_t TL = static_cast<std::size_t>(kThreads) * shape.SL;
    const std::size_t tile_begin = w.own_begin + static_cast<std::size_t>(blockIdx.x) * TL;
    const std::uint32_t ov = shape.ov;
    auto slice_start = [&](std::uint32_t s) -> std::size_t {  // 16-aligned warm-up start
      const std::size_t b = tile_begin + static_cast<std::size_t>(s) * shape.SL;
      return (b >= ov ? b - ov : 0) & ~std::size_t{15};
    };

    // loaders: 4 pieces of 16 bytes per thread per round: slices tid/4 + 64i, quarter tid%4
    const std::uint8_t* src[4];
#pragma unroll
    for (int i = 0; i < 4; ++i) src[i] = w.data + slice_start(tid / 4 + 64u * i) + 16u * (tid % 4);
    const std::uint8_t* const text_end = w.data + w.len;
    uint4 staged[4];
    auto load = [&](std::uint32_t r) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        const std::uint8_t* p = src[i] + static_cast<std::size_t>(r) * kRound;
        staged[i] = p < text_end ? *reinterpret_cast<const uint4*>(p) : make_uint4(0, 0, 0, 0);
      }
    };
    auto store = [&](std::uint32_t buf) {
#pragma unroll
      for (int i = 0; i < 4; ++i) {
        auto* row = reinterpret_cast<std::uint32_t*>(rows[buf] + (tid / 4 + 64u * i) * kRowBytes + 16u * (tid % 4));
        row[0] = staged[i].x;
        row[1] = staged[i].y;
        row[2] = staged[i].z;
        row[3] = staged[i].w;
      }
    };

    // this thread's slice
    const std::size_t sub_begin = tile_begin + static_cast<std::size_t>(tid) * shape.SL;
    std::size_t sub_end = sub_begin + shape.SL < w.own_end ? sub_begin + shape.SL : w.own_end;
    if (sub_end < sub_begin) sub_end = sub_begin;  // past the window: computes, reports nothing
    const std::size_t start = slice_start(tid);
    const std::uint32_t m = task.max_length;
    const std::uint32_t id = task.ids[0];
    const int k = static_cast<int>(common.k);
    Word pv = ~Word(0) << (kBits - static_cast<int>(m));  // left-aligned: free rows (below) are 0
    Word mv = 0;

    const auto table = static_cast<std::uint32_t>(__cvta_generic_to_shared(peq_s));
    const std::uint32_t scale = shape.word_bytes;
    auto compute = [&](std::uint32_t buf, std::uint32_t r) {
      const auto row = static_cast<std::uint32_t>(__cvta_generic_to_shared(rows[buf] + tid * kRowBytes));
#pragma unroll 2
      for (int g = 0; g < kRound / kGroup; ++g) {
        const std::uint32_t bytes = row + static_cast<std::uint32_t>(g * kGroup);
        // Each step loads its own Peq word where it uses it, so the group holds no 8 words
        // loaded ahead of the score check (bench/records/cuda-78089da-h200.csv).
        auto peq_of = [&](auto b) -> Word { return shared_peq<Word>(table, shared_byte<b()>(bytes), scale); };
        const int score0 = column_score(pv, mv);
        if (__any_sync(0xffffffffu, score0 <= k + kGroup)) {
          int score = score0;
          static_for<0, kGroup>([&](auto b) {
            score += myers_search_step<Word>(peq_of(b), pv, mv);
            if (score <= k) {
              const std::size_t j = start + static_cast<std::size_t>(r) * kRound + static_cast<std::size_t>(g * kGroup + b());
              if (j >= sub_begin && j < sub_end)
                emit_end(common, w, sink, j, id, static_cast<std::uint32_t>(score));
            }
          });
        } else {
          static_for<0, kGroup>([&](auto b) { myers_search_step_fast<Word>(peq_of(b), pv, mv); });
        }
      }
    };

    load(0);
    store(0);
    __syncthreads();
    for (std::uint32_t r = 0; r < shape.rounds; ++r) {
      const bool more = r + 1 < shape.rounds;
      if (more) load(r + 1);  // in flight while this round computes
      compute(r & 1u, r);
      if (more) store((r + 1) & 1u);
      __syncthreads();
    }
  }
};

}  // namespace trawl::cuda
