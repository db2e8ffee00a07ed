// cuda/agents/myers_tiled.cuh — per-block agent of the tiled Myers engine (one pattern per
// thread; W = 1 word of 32/64 bits, or W = 2/4 words of 64 bits for m <= 256).
//
// A block owns S·SL text ends and G patterns (G·S threads): thread (g, s) runs pattern g
// over slice s, warming up over the ov = max m + k - 1 bytes before it (a start that early
// gives exact scores for every end scoring <= k). The slices stream through shared memory in
// rounds of 64 bytes: 16-byte global loads, coalesced per slice and issued one round ahead
// (register double buffering), into rows padded to 17 words so the lanes of a warp read
// distinct banks. Raw mode (few patterns) keeps bytes and a 256-entry Peq per pattern; coded
// mode (many patterns) maps bytes to class codes while staging and lays Peq out as
// [code][word][pattern] so a warp reads consecutive words. Hits leave through warp-aggregated
// atomics. Cost: (SL + ov)·W word steps per thread, O(n) bytes read once.
#pragma once

#include <cstdint>

#include "agents/emit.cuh"
#include "agents/site_gate.cuh"
#include "agents/myers_step.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

struct tiled_shape {
  std::uint32_t G = 1;    ///< patterns per block
  std::uint32_t S = 1;    ///< slices per block
  std::uint32_t SL = 16;  ///< ends per slice (multiple of 16)
  std::uint32_t ov = 0;   ///< warm-up bytes before a slice (max m + k - 1)
};

/// Bytes of a slice per round: 64 when a block holds many slices; a block of one slice (many
/// patterns over it) stages the whole slice and its warm-up in one round (one barrier).
__host__ __device__ inline std::uint32_t tiled_round(std::uint32_t S, std::uint32_t SL, std::uint32_t ov) {
  return S == 1 ? (SL + ov + 15 + 15) / 16 * 16 : 64u;
}

/// Shared memory of one block: Peq table, then two row buffers of S rows of round/4 + 1 words.
__host__ __device__ inline std::size_t tiled_peq_bytes(std::uint32_t G, std::uint32_t sigma, std::uint32_t word_bytes, bool raw) {
  return ((raw ? G * 256u : sigma * G) * static_cast<std::size_t>(word_bytes) + 15) & ~std::size_t{15};
}
__host__ __device__ inline std::size_t tiled_rows_bytes(std::uint32_t S, std::uint32_t SL, std::uint32_t ov) {
  return 2u * S * (tiled_round(S, SL, ov) / 4 + 1) * 4u;
}

/// The four bytes of `b`, each replaced by its class code map[byte].
__device__ __forceinline__ std::uint32_t map_bytes(const std::uint8_t* map, std::uint32_t b) {
  return static_cast<std::uint32_t>(map[b & 255u]) | (static_cast<std::uint32_t>(map[(b >> 8) & 255u]) << 8) |
         (static_cast<std::uint32_t>(map[(b >> 16) & 255u]) << 16) | (static_cast<std::uint32_t>(map[b >> 24]) << 24);
}

template <class Word, int W, bool Raw>
struct myers_tiled_agent {
  const tiled_device_tasks& tasks;
  const approx_common& common;
  const text_window& w;
  const candidate_sink& sink;
  const tiled_shape& shape;
  unsigned char* smem;

  __device__ void run() const {
    const Word* peq_g = static_cast<const Word*>(tasks.peq);
    const std::uint32_t tid = threadIdx.x, nthreads = blockDim.x;
    const std::uint32_t G = shape.G, S = shape.S;
    const std::uint32_t task0 = blockIdx.y * G;
    const std::uint32_t sigma = common.sigma;
    __shared__ std::uint8_t map_s[256];
    for (std::uint32_t i = tid; i < 256; i += nthreads) map_s[i] = common.code_map[i];
    __syncthreads();

    Word* peq_s = reinterpret_cast<Word*>(smem);
    const std::uint32_t entries = (Raw ? G * 256u : sigma * G) * W;
    for (std::uint32_t i = tid; i < entries; i += nthreads) {
      std::uint32_t g, c, q;
      if (Raw) {  // [g][byte][q]
        q = i % W;
        c = map_s[(i / W) & 255u];
        g = i / (256u * W);
      } else {  // [code][q][g]
        g = i % G;
        q = (i / G) % W;
        c = i / (G * W);
      }
      const std::uint32_t t = task0 + g;
      peq_s[i] = t < tasks.ntasks ? peq_g[(static_cast<std::size_t>(t) * sigma + c) * W + q] : Word(0);
    }
    std::uint32_t* rows = reinterpret_cast<std::uint32_t*>(smem + tiled_peq_bytes(G, sigma, sizeof(Word) * W, Raw));

    const std::uint32_t kRound = tiled_round(S, shape.SL, shape.ov), kRowWords = kRound / 4 + 1, kQuarters = kRound / 16;
    const std::size_t TL = static_cast<std::size_t>(S) * shape.SL;
    const std::size_t tile_begin = w.own_begin + blockIdx.x * TL;
    const std::size_t tile_end = tile_begin + TL < w.own_end ? tile_begin + TL : w.own_end;
    auto slice_start = [&](std::uint32_t s) -> std::size_t {  // 16-aligned warm-up start
      const std::size_t b = tile_begin + static_cast<std::size_t>(s) * shape.SL;
      return (b >= shape.ov ? b - shape.ov : 0) & ~std::size_t{15};
    };
    const std::uint32_t rounds = (shape.SL + shape.ov + 15 + kRound - 1) / kRound;

    // loaders: piece p = (slice p / kQuarters, 16-byte piece p % kQuarters) of the round;
    // 4·S pieces (S > 1) or 16 (S = 1) over G·S threads: at most 4 per thread
    constexpr int kMaxPieces = 4;
    uint4 staged[kMaxPieces];
    auto load = [&](std::uint32_t r) {
#pragma unroll
      for (int i = 0; i < kMaxPieces; ++i) {
        const std::uint32_t p = tid + static_cast<std::uint32_t>(i) * nthreads;
        staged[i] = make_uint4(0, 0, 0, 0);
        if (p < kQuarters * S) {
          const std::size_t at = slice_start(p / kQuarters) + static_cast<std::size_t>(r) * kRound + 16 * (p % kQuarters);
          if (at < w.len) staged[i] = *reinterpret_cast<const uint4*>(w.data + at);
        }
      }
    };
    auto store = [&](std::uint32_t buf) {
#pragma unroll
      for (int i = 0; i < kMaxPieces; ++i) {
        const std::uint32_t p = tid + static_cast<std::uint32_t>(i) * nthreads;
        if (p < kQuarters * S) {
          std::uint32_t v[4] = {staged[i].x, staged[i].y, staged[i].z, staged[i].w};
          std::uint32_t* row = rows + (buf * S + p / kQuarters) * kRowWords + 4 * (p % kQuarters);
#pragma unroll
          for (int q = 0; q < 4; ++q) {
            std::uint32_t b = v[q];
            if (!Raw) b = map_bytes(map_s, b);
            row[q] = b;
          }
        }
      }
    };

    // this thread's pattern and slice
    const std::uint32_t g = tid / S, s = tid % S;
    const std::uint32_t t = task0 + g;
    const std::size_t sub_begin = tile_begin + static_cast<std::size_t>(s) * shape.SL;
    const bool active = g < G && t < tasks.ntasks && sub_begin < tile_end;
    const std::size_t sub_end = sub_begin + shape.SL < tile_end ? sub_begin + shape.SL : tile_end;
    const std::size_t start = slice_start(s);
    const std::uint32_t m = active ? tasks.lengths[t] : 1;
    const std::uint32_t id = active ? tasks.ids[t] : 0;
    const int k = static_cast<int>(common.k);
    constexpr int bits = static_cast<int>(sizeof(Word) * 8);
    Word pv[W], mv[W];
    {
      const int free_rows = bits * W - static_cast<int>(m);  // left-aligned: free rows at the bottom
#pragma unroll
      for (int q = 0; q < W; ++q) {
        const int lo_bit = bits * q;
        pv[q] = free_rows <= lo_bit ? ~Word(0) : (free_rows >= lo_bit + bits ? Word(0) : ~Word(0) << (free_rows - lo_bit));
        mv[q] = 0;
      }
    }
    const Word* my_peq = Raw ? peq_s + static_cast<std::size_t>(g) * 256u * W : peq_s + g;

    auto compute = [&](std::uint32_t buf, std::uint32_t r) {
      const std::size_t base = start + static_cast<std::size_t>(r) * kRound;
      if (!active || base >= sub_end) return;
      const std::uint32_t* row = rows + (buf * S + s) * kRowWords;
      auto column4 = [&](std::uint32_t i) {
        const std::uint32_t word = row[i];
        const std::size_t pos = base + 4 * i;
        // The score moves by at most 1 per column: above k + 4 now, none of the next four
        // ends can be a hit, so the score is not tracked (it is popc(Pv) - popc(Mv)). The
        // branch is taken by the lanes together (__all_sync): a divergent one runs both paths,
        // which at a large k (most lanes near k + 4) is most of the time.
        int score = 0;
#pragma unroll
        for (int q = 0; q < W; ++q) score += column_score(pv[q], mv[q]);
        if (__all_sync(__activemask(), score > k + 4)) {
#pragma unroll
          for (int b = 0; b < 4; ++b) {
            const std::uint32_t c = (word >> (8 * b)) & 255u;
            if constexpr (W == 1) {
              myers_search_step_fast<Word>(Raw ? my_peq[c] : my_peq[c * G], pv[0], mv[0]);
            } else {
              int h = 0;
#pragma unroll
              for (int q = 0; q < W; ++q)
                h = myers_block_step(Raw ? my_peq[c * W + q] : my_peq[(c * W + q) * G], pv[q], mv[q], h, 63);
            }
          }
          return;
        }
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const std::uint32_t c = (word >> (8 * b)) & 255u;
          if constexpr (W == 1) {
            score += myers_search_step<Word>(Raw ? my_peq[c] : my_peq[c * G], pv[0], mv[0]);
          } else {
            int h = 0;
#pragma unroll
            for (int q = 0; q < W; ++q)
              h = myers_block_step(Raw ? my_peq[c * W + q] : my_peq[(c * W + q) * G], pv[q], mv[q], h, 63);
            score += h;
          }
          if (score <= k) {
            const std::size_t j = pos + static_cast<std::size_t>(b);
            if (j >= sub_begin && j < sub_end)
              emit_end(common, w, sink, j, id, static_cast<std::uint32_t>(score));
          }
        }
      };
      if (S == 1) {
        for (std::uint32_t i = 0; i < kRound / 4 && base + 4 * i < sub_end; ++i) column4(i);
      } else {  // 16 words per round, known at compile time
#pragma unroll 4
        for (std::uint32_t i = 0; i < 16; ++i) {
          if (base + 4 * i >= sub_end) break;
          column4(i);
        }
      }
    };

    if (S == 1) {  // one round: every thread stages a share of the slice, no register buffering
      for (std::uint32_t p = tid; p < kQuarters; p += nthreads) {
        const std::size_t at = slice_start(0) + 16 * static_cast<std::size_t>(p);
        uint4 x = make_uint4(0, 0, 0, 0);
        if (at < w.len) x = *reinterpret_cast<const uint4*>(w.data + at);
        std::uint32_t v[4] = {x.x, x.y, x.z, x.w};
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          std::uint32_t b = v[q];
          if (!Raw) b = map_bytes(map_s, b);
          rows[4 * p + q] = b;
        }
      }
      __syncthreads();
      compute(0, 0);
      return;
    }
    load(0);
    store(0);
    __syncthreads();
    for (std::uint32_t r = 0; r < rounds; ++r) {
      const bool more = r + 1 < rounds;
      if (more) load(r + 1);  // in flight while this round computes
      compute(r & 1u, r);
      if (more) store((r + 1) & 1u);
      __syncthreads();
    }
  }
};

}  // namespace trawl::cuda
