// cuda/common/check.cuh — checked CUDA calls and RAII owners for device memory, pinned host
// memory, streams and events. Every failure becomes trawl::error(errc::gpu_error).
#pragma once

#include <cuda_runtime.h>

#include <cstddef>
#include <string>
#include <utility>

#include "trawl/error.hpp"

namespace trawl::cuda {

[[noreturn]] inline void throw_cuda(cudaError_t e, const char* what, const char* file, int line) {
  throw trawl::error(errc::gpu_error, std::string("CUDA error in ") + what + " (" + file + ":" + std::to_string(line) +
                                          "): " + cudaGetErrorString(e));
}

}  // namespace trawl::cuda

/// Checks a CUDA runtime call; throws trawl::error(gpu_error) with the call and location.
#define TRAWL_CUDA_CHECK(call)                                                    \
  do {                                                                            \
    cudaError_t trawl_e_ = (call);                                                \
    if (trawl_e_ != cudaSuccess) ::trawl::cuda::throw_cuda(trawl_e_, #call, __FILE__, __LINE__); \
  } while (0)

/// Checks the last launch (configuration errors) without synchronizing.
#define TRAWL_CUDA_CHECK_LAUNCH(name) TRAWL_CUDA_CHECK(cudaPeekAtLastError())

namespace trawl::cuda {

/// Where an owned array lives: device memory (cudaMalloc).
struct device_memory {
  [[nodiscard]] void* allocate(std::size_t bytes) const {
    void* p = nullptr;
    TRAWL_CUDA_CHECK(cudaMalloc(&p, bytes));
    return p;
  }
  static void release(void* p) noexcept { cudaFree(p); }
};

/// Page-locked host memory (for asynchronous copies). Write-combined: the host only writes it
/// (streaming stores) and the device reads it over PCIe at full speed.
struct pinned_memory {
  bool write_combined = false;
  [[nodiscard]] void* allocate(std::size_t bytes) const {
    void* p = nullptr;
    TRAWL_CUDA_CHECK(cudaHostAlloc(&p, bytes, write_combined ? cudaHostAllocWriteCombined : cudaHostAllocDefault));
    return p;
  }
  static void release(void* p) noexcept { cudaFreeHost(p); }
};

/// Owns n elements of T in Memory (device_memory or pinned_memory).
template <class T, class Memory>
class owned_array {
 public:
  owned_array() = default;
  explicit owned_array(std::size_t n, Memory memory = {}) : memory_(memory) { reset(n); }
  ~owned_array() { release(); }
  owned_array(const owned_array&) = delete;
  owned_array& operator=(const owned_array&) = delete;
  owned_array(owned_array&& o) noexcept
      : memory_(o.memory_), p_(std::exchange(o.p_, nullptr)), n_(std::exchange(o.n_, 0)) {}
  owned_array& operator=(owned_array&& o) noexcept {
    if (this != &o) {
      release();
      memory_ = o.memory_;
      p_ = std::exchange(o.p_, nullptr);
      n_ = std::exchange(o.n_, 0);
    }
    return *this;
  }
  void reset(std::size_t n) {
    release();
    if (n == 0) return;
    p_ = static_cast<T*>(memory_.allocate(n * sizeof(T)));
    n_ = n;
  }
  T* get() const noexcept { return p_; }
  std::size_t size() const noexcept { return n_; }

 protected:
  Memory memory_{};

 private:
  void release() noexcept {
    if (p_) Memory::release(p_);
    p_ = nullptr;
    n_ = 0;
  }
  T* p_ = nullptr;
  std::size_t n_ = 0;
};

template <class T>
using device_array = owned_array<T, device_memory>;

/// Pinned host memory, write-combined where the host only writes it.
template <class T>
class pinned_array : public owned_array<T, pinned_memory> {
 public:
  pinned_array() = default;
  explicit pinned_array(std::size_t n, bool write_combined = false)
      : owned_array<T, pinned_memory>(n, pinned_memory{write_combined}) {}
  /// Takes effect at the next reset().
  void set_write_combined(bool wc) noexcept { this->memory_.write_combined = wc; }
};

class stream_owner {
 public:
  stream_owner() { TRAWL_CUDA_CHECK(cudaStreamCreateWithFlags(&s_, cudaStreamNonBlocking)); }
  ~stream_owner() {
    if (s_) cudaStreamDestroy(s_);
  }
  stream_owner(const stream_owner&) = delete;
  stream_owner& operator=(const stream_owner&) = delete;
  cudaStream_t get() const noexcept { return s_; }

 private:
  cudaStream_t s_ = nullptr;
};

class event_owner {
 public:
  event_owner() { TRAWL_CUDA_CHECK(cudaEventCreate(&e_)); }
  ~event_owner() {
    if (e_) cudaEventDestroy(e_);
  }
  event_owner(const event_owner&) = delete;
  event_owner& operator=(const event_owner&) = delete;
  cudaEvent_t get() const noexcept { return e_; }

 private:
  cudaEvent_t e_ = nullptr;
};

/// Selects `device`, mapping "no such device" to errc::no_device.
inline void select_device(int device) {
  int count = 0;
  cudaError_t e = cudaGetDeviceCount(&count);
  if (e != cudaSuccess || count == 0) {
    cudaGetLastError();
    throw trawl::error(errc::no_device, "no CUDA device present");
  }
  if (device < 0 || device >= count)
    throw trawl::error(errc::no_device, "CUDA device " + std::to_string(device) + " does not exist");
  TRAWL_CUDA_CHECK(cudaSetDevice(device));
}

}  // namespace trawl::cuda
