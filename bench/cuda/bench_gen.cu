// bench_gen.cu — device-side random text for the CUDA benchmark (hash of the position, so
// any size is generated at memory speed and the same seed gives the same text).
#include <cstdint>
#include <string>

#include "common/check.cuh"

using namespace trawl;

namespace {
__device__ __forceinline__ std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdull;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53ull;
  x ^= x >> 33;
  return x;
}

/// text[i] = alphabet[hash(seed, i) % sigma], 16 bytes per thread.
__global__ void gen_text(std::uint8_t* out, std::size_t n, std::uint64_t seed, const char* alpha, int sigma) {
  const std::size_t i = (static_cast<std::size_t>(blockIdx.x) * blockDim.x + threadIdx.x) * 16;
  if (i >= n) return;
  std::uint64_t h1 = mix(seed ^ (i * 0x9e3779b97f4a7c15ull)), h2 = mix(h1 + 1);
  for (int q = 0; q < 16 && i + q < n; ++q) {
    const std::uint64_t h = q < 8 ? h1 >> (8 * q) : h2 >> (8 * (q - 8));
    out[i + q] = static_cast<std::uint8_t>(alpha[(h & 0xff) % static_cast<unsigned>(sigma)]);
  }
}

}  // namespace

void generate(std::uint8_t* d, std::size_t n, std::uint64_t seed, const std::string& alphabet) {
  cuda::device_array<char> a(alphabet.size());
  TRAWL_CUDA_CHECK(cudaMemcpy(a.get(), alphabet.data(), alphabet.size(), cudaMemcpyHostToDevice));
  const std::size_t threads = (n + 15) / 16;
  gen_text<<<static_cast<unsigned>((threads + 255) / 256), 256>>>(d, n, seed, a.get(), static_cast<int>(alphabet.size()));
  TRAWL_CUDA_CHECK(cudaGetLastError());
  TRAWL_CUDA_CHECK(cudaDeviceSynchronize());
}

