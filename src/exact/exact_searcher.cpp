// exact_searcher.cpp — the public exact_searcher: compiles a pattern once and dispatches to
// the chosen engine. The SIMD backend is the dispatch table's (common/dispatch.hpp) for the
// options' level.
#include <utility>

#include "exact/engines.hpp"
#include "common/dispatch.hpp"
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
  if (name == "vectorscan") return exact_algorithm::vectorscan;
  if (name == "kmer") return exact_algorithm::kmer;
  if (name == "teddy") return exact_algorithm::teddy;
  if (name == "aho") return exact_algorithm::aho;
  throw error(errc::invalid_argument, "unknown exact algorithm '" + std::string(name) +
                                          "' (expected bf, kmp, horspool, sunday, simd, vectorscan, kmer, teddy, aho or auto)");
}

std::string_view to_string(exact_algorithm a) {
  switch (a) {
    case exact_algorithm::automatic: return "auto";
    case exact_algorithm::brute_force: return "bf";
    case exact_algorithm::kmp: return "kmp";
    case exact_algorithm::horspool: return "horspool";
    case exact_algorithm::sunday: return "sunday";
    case exact_algorithm::simd: return "simd";
    case exact_algorithm::vectorscan: return "vectorscan";
    case exact_algorithm::kmer: return "kmer";
    case exact_algorithm::teddy: return "teddy";
    case exact_algorithm::aho: return "aho";
  }
  return "?";
}

bool cpu_supports(simd_level level) { return simd::supported(level); }

namespace {

engine_fn pick_engine(exact_algorithm a, simd_level level) {
  switch (a) {
    case exact_algorithm::brute_force: return find_brute_force;
    case exact_algorithm::kmp: return find_kmp;
    case exact_algorithm::horspool: return find_horspool;
    case exact_algorithm::sunday: return find_sunday;
    case exact_algorithm::vectorscan:
    case exact_algorithm::kmer:
    case exact_algorithm::teddy:
    case exact_algorithm::aho:
      throw error(errc::invalid_argument, std::string(to_string(a)) + " searches pattern sets: use make_matcher");
    case exact_algorithm::automatic:
    case exact_algorithm::simd: break;
  }
  return simd::kernels_at(level).find;
}

}  // namespace

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
