// exact_searcher.cpp — the public exact_searcher: compiles a pattern once and dispatches to
// the chosen engine. The SIMD backend is picked here, once, from a run-time CPU check.
#include <utility>

#include "exact/engines.hpp"
#include "trawl/error.hpp"

namespace trawl {

using namespace exact_detail;

exact_algorithm parse_exact_algorithm(std::string_view name) {
  if (name == "auto") return exact_algorithm::automatic;
  if (name == "bf") return exact_algorithm::brute_force;
  if (name == "kmp") return exact_algorithm::kmp;
  if (name == "horspool") return exact_algorithm::horspool;
  if (name == "sunday") return exact_algorithm::sunday;
  if (name == "simd") return exact_algorithm::simd;
  throw error(errc::invalid_argument,
              "unknown exact algorithm '" + std::string(name) + "' (expected bf, kmp, horspool, sunday, simd or auto)");
}

std::string_view to_string(exact_algorithm a) {
  switch (a) {
    case exact_algorithm::automatic: return "auto";
    case exact_algorithm::brute_force: return "bf";
    case exact_algorithm::kmp: return "kmp";
    case exact_algorithm::horspool: return "horspool";
    case exact_algorithm::sunday: return "sunday";
    case exact_algorithm::simd: return "simd";
  }
  return "?";
}

bool cpu_supports(simd_level level) {
#if defined(__x86_64__) || defined(__i386__)
  switch (level) {
    case simd_level::automatic:
    case simd_level::serial: return true;
    case simd_level::avx2: return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("bmi2");
    case simd_level::avx512:
      return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
             __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("bmi2");
  }
  return false;
#else
  return level == simd_level::automatic || level == simd_level::serial;
#endif
}

namespace {

simd_level best_simd_level() {
  if (cpu_supports(simd_level::avx512)) return simd_level::avx512;
  if (cpu_supports(simd_level::avx2)) return simd_level::avx2;
  return simd_level::serial;
}

engine_fn pick_engine(exact_algorithm a, simd_level level) {
  switch (a) {
    case exact_algorithm::brute_force: return find_brute_force;
    case exact_algorithm::kmp: return find_kmp;
    case exact_algorithm::horspool: return find_horspool;
    case exact_algorithm::sunday: return find_sunday;
    case exact_algorithm::automatic:
    case exact_algorithm::simd: break;
  }
  if (level == simd_level::automatic) level = best_simd_level();
  if (!cpu_supports(level)) throw error(errc::unsupported, "this CPU does not support the requested SIMD level");
  switch (level) {
    case simd_level::avx512: return find_simd_avx512;
    case simd_level::avx2: return find_simd_avx2;
    default: return find_simd_serial;
  }
}

}  // namespace

std::string_view simd_backend_name() {
  switch (best_simd_level()) {
    case simd_level::avx512: return "avx512";
    case simd_level::avx2: return "avx2";
    default: return "serial";
  }
}

struct exact_searcher::impl {
  compiled_pattern pattern;
  exact_algorithm algorithm;
  engine_fn engine;
};

exact_searcher::exact_searcher(std::string_view pattern, const exact_options& options) {
  if (pattern.empty()) throw error(errc::invalid_argument, "empty pattern");
  impl_ = std::make_unique<impl>(impl{compile(pattern, options.ignore_case), options.algorithm,
                                      pick_engine(options.algorithm, options.simd)});
}

exact_searcher::~exact_searcher() = default;
exact_searcher::exact_searcher(exact_searcher&&) noexcept = default;
exact_searcher& exact_searcher::operator=(exact_searcher&&) noexcept = default;

void exact_searcher::find(std::string_view text, std::size_t from, std::size_t to,
                          std::vector<std::uint64_t>& starts) const {
  if (from >= to || from >= text.size()) return;
  impl_->engine(impl_->pattern, text, from, to, starts);
}

std::vector<std::uint64_t> exact_searcher::find_all(std::string_view text) const {
  std::vector<std::uint64_t> starts;
  find(text, 0, text.size(), starts);
  return starts;
}

std::size_t exact_searcher::size() const noexcept { return impl_->pattern.pat.size(); }
exact_algorithm exact_searcher::algorithm() const noexcept { return impl_->algorithm; }

}  // namespace trawl
