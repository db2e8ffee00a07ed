// plan.cpp — see plan.hpp.
#include "approx/plan.hpp"

#include <algorithm>
#include <string>

#include "trawl/error.hpp"

namespace trawl::approx_detail {

namespace {

/// The engine the options ask for (automatic, myers and myers_simd: the lanes, refined per
/// pattern).
enum class engine_kind { dp, myers_word, myers_blocked, myers_lanes, myers_striped, pigeon, suffix, seeds };

engine_kind engine_of(const search_options& o) {
  switch (o.approx) {
    case approx_algorithm::dp: return engine_kind::dp;
    case approx_algorithm::myers_word: return engine_kind::myers_word;
    case approx_algorithm::myers_blocked: return engine_kind::myers_blocked;
    case approx_algorithm::myers_filter: return engine_kind::pigeon;
    case approx_algorithm::myers_striped: return engine_kind::myers_striped;
    case approx_algorithm::myers_suffix: return engine_kind::suffix;
    case approx_algorithm::myers_seeds: return engine_kind::seeds;
    default: return engine_kind::myers_lanes;
  }
}

/// The striped blocked kernel computes all blocks of a column for 32 (AVX-512) or 16 (AVX2)
/// stripes; the scalar one with Ukkonen's cut-off about ⌈(k + 1)/64⌉ + 1 of them for one
/// stripe, at about `factor` times the kernel's cost per block: AVX-512 four (Peq by gather),
/// sixteen (3-bit byte codes) or twelve (4-bit codes), AVX2 two (gather) or eight (codes).
/// With k >= m/2 most ends of a text are <= k, and collecting them from the stripes costs
/// more than the scalar loop's direct reports. The break-even factor (blocks x speed ratio)
/// depends on the text (the cut-off goes deeper over 0/1, the scalar loop often needs one
/// block over letters at k < 64); each factor sits near the break-even of its texts and
/// misjudges a few patterns. Where auto asks (the pigeonhole filter's pieces under 8 bytes:
/// k >= m/8 - 1), any factor >= 8 sends every pattern of 2k < m to the stripes, which win there.
/// `ks`: the table whose blocked kernel would run (AVX2 or AVX-512, VBMI as its features say).
bool blocked_stripes_pay(const compiled_pattern& p, std::uint32_t k, const simd::kernels& ks) {
  std::size_t factor = 0;
  if (ks.level == simd_level::avx2)
    factor = blocked_stripes_coded_avx2(p) ? tuning::stripes_factor_avx2_coded : tuning::stripes_factor_avx2_gather;
  else if (const int bits = blocked_stripes_code_bits(p, ks.features.avx512vbmi); bits != 0)
    factor = bits == 3 ? tuning::stripes_factor_avx512_3bit : tuning::stripes_factor_avx512_4bit;
  else
    factor = tuning::stripes_factor_avx512_gather;
  return 2 * static_cast<std::size_t>(k) < p.m && p.words <= factor * ((k + 1 + 63) / 64 + 1);
}

}  // namespace

bool seeds_allowed(const search_options& options) {
  return options.approx == approx_algorithm::automatic || options.approx == approx_algorithm::myers ||
         options.approx == approx_algorithm::myers_seeds;
}

std::optional<seed_index> plan_seeds(std::span<const compiled_pattern* const> pats, std::span<const std::uint32_t> ks,
                                     bool forced) {
  std::optional<seed_index> seeds = seed_index::build(pats, ks);
  if (seeds && !forced &&
      (seeds->members().size() < tuning::seed_min_patterns || seeds->total_density() > tuning::seed_max_density))
    seeds.reset();
  return seeds;
}

std::optional<double> seeded_density(const std::vector<std::string>& patterns, const search_options& options) {
  const std::size_t strands = patterns.size() * (options.both_strands ? 2 : 1);
  if (!seeds_allowed(options) || options.max_errors < 0 || options.regex || strands < tuning::seed_min_patterns)
    return std::nullopt;
  for (const std::string& p : patterns)  // what compile_pattern would refuse, the matcher refuses later
    if (p.empty() || p.size() > tuning::word_max_m || p.find('\0') != std::string::npos) return std::nullopt;
  std::vector<std::uint32_t> ks;
  const std::vector<compiled_pattern> pats = compile_strands(patterns, options, ks);
  std::vector<const compiled_pattern*> ptrs;
  for (const compiled_pattern& p : pats) ptrs.push_back(&p);
  const auto seeds = plan_seeds(ptrs, ks, options.approx == approx_algorithm::myers_seeds);
  if (!seeds || seeds->members().size() != pats.size()) return std::nullopt;
  return seeds->total_density();
}

approx_plan plan_approx(const std::vector<compiled_pattern>& pats, const std::vector<std::uint32_t>& ks,
                        const search_options& options, const simd::kernels& kt) {
  approx_plan out;
  engine_kind engine = engine_of(options);
  const bool forced_lanes = options.approx == approx_algorithm::myers_simd;
  if (engine == engine_kind::myers_lanes) {
    out.lanes = kt.lanes;
    // auto on a CPU without SIMD (or forced serial): the plain one-word loop is faster than
    // the serial lanes reference
    if (!forced_lanes && out.lanes.kernel == myers_lanes_serial) engine = engine_kind::myers_word;
  }
  if ((engine == engine_kind::myers_striped || engine == engine_kind::suffix) && kt.striped.ends == nullptr)
    throw error(errc::invalid_argument, std::string("approx_algorithm::") +
                                            (engine == engine_kind::suffix ? "myers_suffix" : "myers_striped") +
                                            " needs AVX-512 (F, BW) or AVX2, and a simd level other than serial");
  // auto: one pattern of m <= 32 at a time over 64 stripes in 16/32-bit lanes where the CPU
  // has AVX-512BW or AVX2; the (pattern, stripe) lanes kernel for the rest of m <= 64
  if (engine == engine_kind::myers_striped || engine == engine_kind::suffix || engine == engine_kind::seeds ||
      (engine == engine_kind::myers_lanes && !forced_lanes))
    out.striped = kt.striped;
  // The seed filter: forced, or chosen by auto for a set of many patterns of m <= 64 over at
  // most four byte classes (DNA); the pass over the text serves all of them at once.
  std::vector<bool> seeded(pats.size(), false);
  if (seeds_allowed(options)) {
    std::vector<const compiled_pattern*> cand;
    std::vector<std::uint32_t> cand_k;
    std::vector<std::size_t> at;
    for (std::size_t i = 0; i < pats.size(); ++i)
      if (pats[i].m <= tuning::word_max_m) {
        cand.push_back(&pats[i]);
        cand_k.push_back(ks[i]);
        at.push_back(i);
      }
    out.seeds = plan_seeds(cand, cand_k, engine == engine_kind::seeds);
    if (out.seeds)
      for (const std::uint32_t c : out.seeds->members()) {
        seeded[at[c]] = true;
        out.seed_patterns.push_back(at[c]);
      }
  }
  if (engine == engine_kind::pigeon || options.approx == approx_algorithm::automatic ||
      options.approx == approx_algorithm::myers) {
    out.finder = kt.pieces;
    if (engine == engine_kind::pigeon) out.lanes = kt.lanes;
  }
  for (const compiled_pattern& p : pats)
    if (engine == engine_kind::myers_word && p.m > tuning::word_max_m && options.approx == approx_algorithm::myers_word)
      throw error(errc::invalid_argument, "myers-word needs patterns of at most 64 bytes");
  // m > 64 on the AVX-512 or AVX2 lanes backend (the CPU subsets the blocked stripes need
  // too; options.simd picks the level): the striped blocked kernel of that level where it pays
  if (engine == engine_kind::myers_lanes) out.blocked = kt.blocked.scan;
  const bool is_auto = out.finder != nullptr && engine != engine_kind::pigeon;
  const bool suffix_auto = engine == engine_kind::myers_lanes && !forced_lanes;
  out.patterns.resize(pats.size());
  for (std::size_t i = 0; i < pats.size(); ++i) {
    const compiled_pattern& p = pats[i];
    const std::uint32_t k = ks[i];
    pattern_plan& plan = out.patterns[i];
    const bool stripes = out.blocked != nullptr && p.m > tuning::word_max_m && blocked_stripes_pay(p, k, kt);
    const bool striped = out.striped.ends != nullptr && p.m <= tuning::striped_max_m;
    // the kernel
    switch (engine) {
      case engine_kind::dp: plan.kernel = kernel_kind::dp; break;
      case engine_kind::myers_blocked: plan.kernel = kernel_kind::blocked; break;
      case engine_kind::pigeon:  // where the filter does not apply (classes, k >= m): Myers
      case engine_kind::myers_word: plan.kernel = p.m <= tuning::word_max_m ? kernel_kind::word : kernel_kind::blocked; break;
      case engine_kind::myers_striped:
      case engine_kind::suffix:
      case engine_kind::seeds:
      case engine_kind::myers_lanes:
        if (striped) plan.kernel = kernel_kind::striped;
        else if (engine != engine_kind::myers_lanes || seeded[i]) plan.kernel = p.m <= tuning::word_max_m ? kernel_kind::word : kernel_kind::blocked;
        else if (p.m <= tuning::word_max_m) plan.kernel = kernel_kind::lanes;
        else plan.kernel = stripes ? kernel_kind::blocked_stripes : kernel_kind::blocked;
        break;
    }
    if (seeded[i]) {
      plan.filter = filter_kind::seeds;
      continue;
    }
    // The pigeonhole filter: forced, or chosen by auto when its pieces are selective (longer
    // where a striped kernel would take the pattern, which beats the filter on short pieces)
    // and the patterns are few (many short patterns share the SIMD lanes better).
    const std::size_t min_piece = striped || stripes ? tuning::pigeon_min_piece_striped : tuning::pigeon_min_piece;
    const bool wanted = engine == engine_kind::pigeon ||
                        (is_auto && (engine == engine_kind::myers_lanes || engine == engine_kind::myers_word) &&
                         pigeon_piece_len(p.m, k) >= min_piece &&
                         (pats.size() <= tuning::pigeon_max_short_patterns || p.m > tuning::word_max_m));
    if (wanted && pigeon_applicable(p, k)) {
      plan.filter = filter_kind::pigeon;
      continue;
    }
    // The suffix filter: forced, or chosen by auto for 16 < m <= 64 where the pigeonhole
    // filter did not take the pattern and the suffix is selective (suffix_filter_length).
    if (out.striped.ends == nullptr || p.m > tuning::word_max_m || !(suffix_auto || engine == engine_kind::suffix))
      continue;
    if (const std::size_t len = suffix_filter_length(p.m, k, engine == engine_kind::suffix); len != 0) {
      plan.filter = filter_kind::suffix;
      plan.suffix_len = len;
    }
  }
  return out;
}

}  // namespace trawl::approx_detail
