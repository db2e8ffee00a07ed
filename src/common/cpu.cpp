// cpu.cpp — CPU features read once (cpu.hpp).
#include "common/cpu.hpp"

#include <atomic>

#include "trawl/error.hpp"

namespace trawl::cpu {
namespace {

features read_cpu() noexcept {
  features f;
#if defined(__x86_64__) || defined(__i386__)
  __builtin_cpu_init();
  f.avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") &&
           __builtin_cpu_supports("popcnt");
  f.avx512 = f.avx2 && __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  f.avx512vbmi = f.avx512 && __builtin_cpu_supports("avx512vbmi");
#endif
  return f;
}

const features& detected() noexcept {
  static const features f = read_cpu();
  return f;
}

std::atomic<unsigned> g_allowed{7u};  // bit 0 avx2, 1 avx512, 2 avx512vbmi

}  // namespace

features active() noexcept {
  const features& d = detected();
  const unsigned a = g_allowed.load(std::memory_order_relaxed);
  features f;
  f.avx2 = d.avx2 && (a & 1u) != 0;
  f.avx512 = f.avx2 && d.avx512 && (a & 2u) != 0;
  f.avx512vbmi = f.avx512 && d.avx512vbmi && (a & 4u) != 0;
  return f;
}

features at_level(simd_level level) {
  const features f = active();
  switch (level) {
    case simd_level::automatic: return f;
    case simd_level::serial: return {};
    case simd_level::avx2:
      if (!f.avx2) throw error(errc::unsupported, "simd_level::avx2 was asked for, but this CPU has no AVX2 (with BMI2)");
      return {true, false, false};
    case simd_level::avx512:
      if (!f.avx512)
        throw error(errc::unsupported, "simd_level::avx512 was asked for, but this CPU has no AVX-512 (F, BW, VL, DQ)");
      return f;
  }
  return {};
}

void limit(features allowed) noexcept {
  g_allowed.store((allowed.avx2 ? 1u : 0u) | (allowed.avx512 ? 2u : 0u) | (allowed.avx512vbmi ? 4u : 0u),
                  std::memory_order_relaxed);
}

}  // namespace trawl::cpu
