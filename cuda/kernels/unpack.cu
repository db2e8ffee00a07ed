// cuda/kernels/unpack.cu — DNA text two bits a base (src/common/dna_pack.hpp) unpacked into
// the device's text buffer: one thread per 16 bases, then one block per run of bytes the codes
// do not give. O(n) device work for n bytes. A chunk sent over the bus is unpacked whole; a
// window of a text kept packed on the device (keep_resident) from any base on.
#include "common/check.cuh"
#include "common/dna_pack.hpp"
#include "kernels/launch.cuh"

namespace trawl::cuda {
namespace {

constexpr unsigned kThreads = 256;

/// The letters "ACTG" of codes 0-3, a byte each, little-endian.
constexpr std::uint32_t kLetters = 0x47544341u;

/// Bases [16t, 16t + 16) of the text from packed word t, or, with `shift` (twice the first
/// base's place in its word), from the two words that hold them.
__global__ void unpack_bases_kernel(const std::uint32_t* packed, unsigned shift, std::uint8_t* text, std::size_t n) {
  const std::size_t t = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  const std::size_t at = t * 16;
  if (at >= n) return;
  std::uint32_t w = packed[t];
  if (shift != 0) w = (w >> shift) | (packed[t + 1] << (32 - shift));
  std::uint32_t out[4];
#pragma unroll
  for (int q = 0; q < 4; ++q) {
    std::uint32_t v = 0;
#pragma unroll
    for (int b = 0; b < 4; ++b) v |= ((kLetters >> (8 * ((w >> (2 * (4 * q + b))) & 3u))) & 0xFFu) << (8 * b);
    out[q] = v;
  }
  if (at + 16 <= n) {
    *reinterpret_cast<uint4*>(text + at) = make_uint4(out[0], out[1], out[2], out[3]);
  } else {
    for (std::size_t i = 0; at + i < n; ++i) text[at + i] = static_cast<std::uint8_t>(out[i / 4] >> (8 * (i % 4)));
  }
}

__global__ void apply_runs_kernel(const dna_pack::run* runs, std::size_t count, std::uint8_t* text) {
  for (std::size_t r = blockIdx.x; r < count; r += gridDim.x) {
    const dna_pack::run x = runs[r];
    for (unsigned i = threadIdx.x; i < x.len; i += blockDim.x) {
      std::uint8_t& b = text[x.pos + i];
      b = x.lower ? static_cast<std::uint8_t>(b | 0x20u) : x.byte;
    }
  }
}

/// The runs of a resident text that meet [from, from + n), each clipped to it.
__global__ void apply_window_runs_kernel(const resident_run* runs, std::size_t count, std::uint64_t from,
                                         std::uint8_t* text, std::size_t n) {
  for (std::size_t r = blockIdx.x; r < count; r += gridDim.x) {
    const resident_run x = runs[r];
    const std::uint64_t lo = x.pos > from ? x.pos : from;
    const std::uint64_t end = x.pos + x.len, hi = end < from + n ? end : from + n;
    for (std::uint64_t p = lo + threadIdx.x; p < hi; p += blockDim.x) {
      std::uint8_t& b = text[p - from];
      b = x.lower ? static_cast<std::uint8_t>(b | 0x20u) : x.byte;
    }
  }
}

unsigned blocks_for(std::size_t n) { return static_cast<unsigned>(((n + 15) / 16 + kThreads - 1) / kThreads); }

}  // namespace

void launch_unpack_dna(const std::uint8_t* packed, const dna_pack::run* runs, std::size_t nruns, std::uint8_t* text,
                       std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  unpack_bases_kernel<<<blocks_for(n), kThreads, 0, stream>>>(reinterpret_cast<const std::uint32_t*>(packed), 0, text, n);
  TRAWL_CUDA_CHECK_LAUNCH("unpack_bases_kernel");
  if (nruns == 0) return;
  apply_runs_kernel<<<static_cast<unsigned>(std::min<std::size_t>(nruns, 65535)), kThreads, 0, stream>>>(runs, nruns,
                                                                                                        text);
  TRAWL_CUDA_CHECK_LAUNCH("apply_runs_kernel");
}

void launch_unpack_dna_window(const std::uint8_t* packed, std::uint64_t from, const resident_run* runs,
                              std::size_t nruns, std::uint8_t* text, std::size_t n, cudaStream_t stream) {
  if (n == 0) return;
  const auto* words = reinterpret_cast<const std::uint32_t*>(packed) + from / 16;
  unpack_bases_kernel<<<blocks_for(n), kThreads, 0, stream>>>(words, static_cast<unsigned>(2 * (from % 16)), text, n);
  TRAWL_CUDA_CHECK_LAUNCH("unpack_bases_kernel");
  if (nruns == 0) return;
  apply_window_runs_kernel<<<static_cast<unsigned>(std::min<std::size_t>(nruns, 65535)), kThreads, 0, stream>>>(
      runs, nruns, from, text, n);
  TRAWL_CUDA_CHECK_LAUNCH("apply_window_runs_kernel");
}

}  // namespace trawl::cuda
