// cuda/agents/myers_tiled.cuh — per-block agent of the single-word Myers engine.
//
// A block owns a tile of S·SL text ends and G patterns (G·S threads). It stages the tile and
// m+k-1 bytes before it into shared memory with coalesced 16-byte loads, and each thread runs
// one pattern over one slice of SL ends, warming up over the ov bytes before the slice (a
// start that early gives exact scores for every end scoring <= k). Reads are 4 bytes at a
// time; SL/4 is odd so the slices of a warp fall in distinct banks. Hits go out through
// warp-aggregated atomics. Cost: O((SL + ov)/SL · n · G) word steps per block row.
//
// Raw mode (few patterns): the tile holds bytes and each pattern has a 256-entry Peq table
// in shared memory. Coded mode (many patterns): bytes are mapped to class codes while staging
// and Peq is [code][pattern], so the threads of a warp read consecutive words.
#pragma once

#include <cstdint>

#include "agents/emit.cuh"
#include "agents/myers_step.cuh"
#include "kernels/launch.cuh"

namespace trawl::cuda {

struct tiled_shape {
  std::uint32_t G = 1;   ///< patterns per block
  std::uint32_t S = 1;   ///< slices per tile
  std::uint32_t SL = 4;  ///< ends per slice (multiple of 4, SL/4 odd)
  std::uint32_t ov = 0;  ///< warm-up bytes before a slice (max m + k - 1)
};

template <class Word, bool Raw>
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
    const std::uint32_t task0 = blockIdx.y * shape.G;
    const std::uint32_t sigma = common.sigma;
    __shared__ std::uint8_t map_s[256];
    for (std::uint32_t i = tid; i < 256; i += nthreads) map_s[i] = common.code_map[i];
    __syncthreads();

    Word* peq_s = reinterpret_cast<Word*>(smem);
    const std::uint32_t peq_entries = Raw ? shape.G * 256u : sigma * shape.G;
    for (std::uint32_t i = tid; i < peq_entries; i += nthreads) {
      std::uint32_t g, c;
      if (Raw) {
        g = i >> 8;
        c = map_s[i & 255u];
      } else {
        c = i / shape.G;
        g = i % shape.G;
      }
      const std::uint32_t t = task0 + g;
      peq_s[i] = t < tasks.ntasks ? peq_g[static_cast<std::size_t>(t) * sigma + c] : Word(0);
    }
    unsigned char* tile = smem + ((peq_entries * sizeof(Word) + 15u) & ~15u);

    const std::size_t TL = static_cast<std::size_t>(shape.S) * shape.SL;
    const std::size_t tile_begin = w.own_begin + blockIdx.x * TL;
    const std::size_t tile_end = tile_begin + TL < w.own_end ? tile_begin + TL : w.own_end;
    const std::size_t lo = (tile_begin >= shape.ov ? tile_begin - shape.ov : 0) & ~std::size_t{15};
    const std::size_t hi = (tile_end + 15) & ~std::size_t{15};
    for (std::size_t v = tid; v < (hi - lo) / 16; v += nthreads) {
      uint4 x = *reinterpret_cast<const uint4*>(w.data + lo + 16 * v);
      if (!Raw) {
        std::uint32_t* words = reinterpret_cast<std::uint32_t*>(&x);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const std::uint32_t b = words[q];
          words[q] = static_cast<std::uint32_t>(map_s[b & 255u]) | (static_cast<std::uint32_t>(map_s[(b >> 8) & 255u]) << 8) |
                     (static_cast<std::uint32_t>(map_s[(b >> 16) & 255u]) << 16) |
                     (static_cast<std::uint32_t>(map_s[b >> 24]) << 24);
        }
      }
      *reinterpret_cast<uint4*>(tile + 16 * v) = x;
    }
    __syncthreads();

    const std::uint32_t g = tid / shape.S, s = tid % shape.S;
    const std::uint32_t t = task0 + g;
    if (g >= shape.G || t >= tasks.ntasks) return;
    const std::size_t sub_begin = tile_begin + static_cast<std::size_t>(s) * shape.SL;
    if (sub_begin >= tile_end) return;
    const std::size_t sub_end = sub_begin + shape.SL < tile_end ? sub_begin + shape.SL : tile_end;
    const std::size_t start = (sub_begin >= shape.ov ? sub_begin - shape.ov : 0) & ~std::size_t{3};

    constexpr int bits = static_cast<int>(sizeof(Word) * 8);
    const std::uint32_t m = tasks.lengths[t];
    const std::uint32_t id = tasks.ids[t];
    const std::uint32_t k = common.k;
    Word pv = ~Word(0) << (bits - static_cast<int>(m));  // pattern rows: D[i][-1] = i
    Word mv = 0;
    const std::uint32_t* tw = reinterpret_cast<const std::uint32_t*>(tile);
    const Word* my_peq = Raw ? peq_s + g * 256u : peq_s + g;
    for (std::size_t pos = start; pos < sub_end; pos += 4) {
      const std::uint32_t word = tw[(pos - lo) >> 2];
      // The score moves by at most 1 per column: when it is above k + 4 now, none of the next
      // four ends can be a hit and the score need not be tracked (it is recomputed by popcount).
      int score = column_score(pv, mv);
      if (score > static_cast<int>(k) + 4) {
#pragma unroll
        for (int b = 0; b < 4; ++b) {
          const std::uint32_t c = (word >> (8 * b)) & 255u;
          myers_search_step_fast<Word>(Raw ? my_peq[c] : my_peq[c * shape.G], pv, mv);
        }
        continue;
      }
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const std::uint32_t c = (word >> (8 * b)) & 255u;
        const Word eq = Raw ? my_peq[c] : my_peq[c * shape.G];
        score += myers_search_step<Word>(eq, pv, mv);
        if (score <= static_cast<int>(k)) {
          const std::size_t j = pos + static_cast<std::size_t>(b);
          if (j >= sub_begin && j < sub_end)
            emit_candidate(sink.out, sink.count, sink.capacity, w.base + j, id, static_cast<std::uint32_t>(score));
        }
      }
    }
  }
};

/// Multi-word variant (W 64-bit words, m <= 64·W): the same tiles and slices, the column
/// split into W blocks chained by their horizontal carries (Hyyrö), the pattern left-aligned
/// in the 64·W-bit column so the score is again popc(Pv) - popc(Mv).
template <int W, bool Raw>
struct myers_tiled_multi_agent {
  const tiled_device_tasks& tasks;
  const approx_common& common;
  const text_window& w;
  const candidate_sink& sink;
  const tiled_shape& shape;
  unsigned char* smem;

  __device__ void run() const {
    using Word = std::uint64_t;
    const Word* peq_g = static_cast<const Word*>(tasks.peq);
    const std::uint32_t tid = threadIdx.x, nthreads = blockDim.x;
    const std::uint32_t task0 = blockIdx.y * shape.G;
    const std::uint32_t sigma = common.sigma;
    __shared__ std::uint8_t map_s[256];
    for (std::uint32_t i = tid; i < 256; i += nthreads) map_s[i] = common.code_map[i];
    __syncthreads();
    // Raw: [g][byte][word]; coded: [code][word][g] (consecutive g for the lanes of a warp)
    Word* peq_s = reinterpret_cast<Word*>(smem);
    const std::uint32_t entries = (Raw ? shape.G * 256u : sigma * shape.G) * W;
    for (std::uint32_t i = tid; i < entries; i += nthreads) {
      std::uint32_t g, c, wd;
      if (Raw) {
        wd = i % W;
        c = map_s[(i / W) & 255u];
        g = i / (256u * W);
      } else {
        g = i % shape.G;
        wd = (i / shape.G) % W;
        c = i / (shape.G * W);
      }
      const std::uint32_t t = task0 + g;
      peq_s[i] = t < tasks.ntasks ? peq_g[(static_cast<std::size_t>(t) * sigma + c) * W + wd] : Word(0);
    }
    unsigned char* tile = smem + ((entries * sizeof(Word) + 15u) & ~15u);
    const std::size_t TL = static_cast<std::size_t>(shape.S) * shape.SL;
    const std::size_t tile_begin = w.own_begin + blockIdx.x * TL;
    const std::size_t tile_end = tile_begin + TL < w.own_end ? tile_begin + TL : w.own_end;
    const std::size_t lo = (tile_begin >= shape.ov ? tile_begin - shape.ov : 0) & ~std::size_t{15};
    const std::size_t hi = (tile_end + 15) & ~std::size_t{15};
    for (std::size_t v = tid; v < (hi - lo) / 16; v += nthreads) {
      uint4 x = *reinterpret_cast<const uint4*>(w.data + lo + 16 * v);
      if (!Raw) {
        std::uint32_t* words = reinterpret_cast<std::uint32_t*>(&x);
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          const std::uint32_t b = words[q];
          words[q] = static_cast<std::uint32_t>(map_s[b & 255u]) | (static_cast<std::uint32_t>(map_s[(b >> 8) & 255u]) << 8) |
                     (static_cast<std::uint32_t>(map_s[(b >> 16) & 255u]) << 16) |
                     (static_cast<std::uint32_t>(map_s[b >> 24]) << 24);
        }
      }
      *reinterpret_cast<uint4*>(tile + 16 * v) = x;
    }
    __syncthreads();

    const std::uint32_t g = tid / shape.S, s = tid % shape.S;
    const std::uint32_t t = task0 + g;
    if (g >= shape.G || t >= tasks.ntasks) return;
    const std::size_t sub_begin = tile_begin + static_cast<std::size_t>(s) * shape.SL;
    if (sub_begin >= tile_end) return;
    const std::size_t sub_end = sub_begin + shape.SL < tile_end ? sub_begin + shape.SL : tile_end;
    const std::size_t start = (sub_begin >= shape.ov ? sub_begin - shape.ov : 0) & ~std::size_t{3};
    const std::uint32_t m = tasks.lengths[t];
    const std::uint32_t id = tasks.ids[t];
    const int k = static_cast<int>(common.k);
    const int free_rows = 64 * W - static_cast<int>(m);
    Word pv[W], mv[W];
#pragma unroll
    for (int q = 0; q < W; ++q) {
      const int lo_bit = 64 * q;
      pv[q] = free_rows <= lo_bit ? ~Word(0) : (free_rows >= lo_bit + 64 ? Word(0) : ~Word(0) << (free_rows - lo_bit));
      mv[q] = 0;
    }
    const std::uint32_t* tw = reinterpret_cast<const std::uint32_t*>(tile);
    for (std::size_t pos = start; pos < sub_end; pos += 4) {
      const std::uint32_t word = tw[(pos - lo) >> 2];
      int score = 0;
#pragma unroll
      for (int q = 0; q < W; ++q) score += __popcll(pv[q]) - __popcll(mv[q]);
      const bool track = score <= k + 4;
#pragma unroll
      for (int b = 0; b < 4; ++b) {
        const std::uint32_t c = (word >> (8 * b)) & 255u;
        int h = 0;
#pragma unroll
        for (int q = 0; q < W; ++q) {
          const Word eq = Raw ? peq_s[(g * 256u + c) * W + q] : peq_s[(c * W + q) * shape.G + g];
          h = myers_block_step(eq, pv[q], mv[q], h, 63);
        }
        if (track) {
          score += h;
          if (score <= k) {
            const std::size_t j = pos + static_cast<std::size_t>(b);
            if (j >= sub_begin && j < sub_end)
              emit_candidate(sink.out, sink.count, sink.capacity, w.base + j, id, static_cast<std::uint32_t>(score));
          }
        }
      }
    }
  }
};

}  // namespace trawl::cuda
