// src/gpu/gpu_plan.cpp — patterns → kernel plans for the CUDA backend: which text byte
// matches which pattern symbol (case folding, IUPAC codes) is decided here once, as byte
// classes and Myers match vectors (Peq). O(σ² + Σm·σ) time. Also which kernel a site plan takes
// (cuda::direct_serves), decided on the host.
#include <algorithm>
#include <array>
#include <map>

#include "common/iupac.hpp"
#include "gpu/gpu_internal.hpp"
#include "trawl/error.hpp"

namespace trawl::gpu::detail {

namespace {

unsigned char upper(unsigned char c) { return (c >= 'a' && c <= 'z') ? static_cast<unsigned char>(c - 32) : c; }
unsigned char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c; }

}  // namespace

std::vector<task> make_tasks(const std::vector<std::string>& patterns, const search_options& options) {
  if (patterns.empty()) throw trawl::error(errc::invalid_argument, "no pattern given");
  if (options.max_errors < 0) throw trawl::error(errc::invalid_argument, "search_options::max_errors must be >= 0");
  std::vector<task> tasks;
  tasks.reserve(patterns.size() * (options.both_strands ? 2 : 1));
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const std::string& p = patterns[i];
    if (p.empty()) throw trawl::error(errc::invalid_argument, "empty pattern");
    if (p.find('\0') != std::string::npos) throw trawl::error(errc::invalid_argument, "pattern contains a NUL byte");
    tasks.push_back(task{p, static_cast<std::uint32_t>(i), strand::forward});
    if (options.both_strands) tasks.push_back(task{trawl::reverse_complement(p), static_cast<std::uint32_t>(i), strand::reverse});
  }
  return tasks;
}

std::vector<std::uint8_t> match_table(const search_options& options) {
  // the rules of approx.hpp: the byte itself; with ignore_case its other case; with iupac a
  // code matches itself and its bases, in either case
  std::vector<std::uint8_t> eq(256 * 256, 0);
  for (unsigned pc = 0; pc < 256; ++pc) {
    const auto p = static_cast<unsigned char>(pc);
    auto set = [&](unsigned char t) { eq[pc * 256 + t] = 1; };
    set(p);
    if (options.ignore_case) {
      set(lower(p));
      set(upper(p));
    }
    const unsigned bases = options.iupac ? trawl::detail::iupac_bits(p) : 0;
    if (bases != 0) {
      set(lower(p));
      set(upper(p));
      const char acgt[] = "ACGT";
      for (int b = 0; b < 4; ++b)
        if (bases & (1u << b)) {
          set(static_cast<unsigned char>(acgt[b]));
          set(lower(static_cast<unsigned char>(acgt[b])));
        }
    }
  }
  return eq;
}

bool needs_iupac(const std::vector<task>& tasks, const search_options& options) {
  if (!options.iupac) return false;
  for (const task& t : tasks)
    for (char ch : t.text)
      if (trawl::detail::iupac_bits(static_cast<unsigned char>(ch)) != 0) return true;  // bases match in either case
  return false;
}

trawl::cuda::exact_plan make_exact_plan(const std::vector<task>& tasks, const search_options& options) {
  trawl::cuda::exact_plan plan;
  plan.fold = options.ignore_case;
  for (const task& t : tasks) {
    std::string p = t.text;
    if (plan.fold)
      for (char& ch : p) ch = static_cast<char>(lower(static_cast<unsigned char>(ch)));
    plan.patterns.push_back(std::move(p));
  }
  return plan;
}

trawl::cuda::approx_plan make_approx_plan(const std::vector<task>& tasks, const std::vector<std::uint8_t>& eq,
                                          std::uint32_t k, bool hamming) {
  trawl::cuda::approx_plan plan;
  plan.k = k;
  plan.hamming = hamming;
  // byte classes: text bytes with the same match vector over all pattern bytes share a code
  std::array<bool, 256> used{};
  for (const task& t : tasks)
    for (char ch : t.text) used[static_cast<unsigned char>(ch)] = true;
  std::map<std::array<std::uint64_t, 4>, std::uint32_t> classes;
  std::vector<unsigned> representative;
  for (unsigned tc = 0; tc < 256; ++tc) {
    std::array<std::uint64_t, 4> sig{};
    for (unsigned pc = 0; pc < 256; ++pc)
      if (used[pc] && eq[pc * 256 + tc]) sig[pc / 64] |= std::uint64_t{1} << (pc % 64);
    auto [it, fresh] = classes.try_emplace(sig, static_cast<std::uint32_t>(classes.size()));
    if (fresh) representative.push_back(tc);
    plan.code[tc] = static_cast<std::uint8_t>(it->second);
  }
  plan.sigma = static_cast<std::uint32_t>(classes.size());
  for (const task& t : tasks) {
    const auto m = static_cast<std::uint32_t>(t.text.size());
    const std::uint32_t W = (m + 63) / 64;
    std::vector<std::uint64_t> peq(static_cast<std::size_t>(plan.sigma) * W, 0);
    for (std::uint32_t c = 0; c < plan.sigma; ++c)
      for (std::uint32_t i = 0; i < m; ++i)
        if (eq[static_cast<unsigned char>(t.text[i]) * 256u + representative[c]])
          peq[static_cast<std::size_t>(c) * W + i / 64] |= std::uint64_t{1} << (i % 64);
    plan.lengths.push_back(m);
    plan.peq.push_back(std::move(peq));
  }
  return plan;
}

}  // namespace trawl::gpu::detail

namespace trawl::cuda {

bool direct_serves(const site_plan& plan) {
  const std::size_t patterns = plan.lengths.size() * plan.pams.size();
  if (patterns == 0 || patterns > plan.direct_up_to || plan.longest > 32 || std::min(plan.pam_limit, plan.longest_pam) > 7)
    return false;
  for (std::size_t g = 0; g < plan.lengths.size(); ++g)
    for (std::uint32_t i = 0; i < plan.lengths[g]; ++i) {
      const unsigned code = plan.code(g, i);
      if (code != 1 && code != 2 && code != 4 && code != 8 && code != 15) return false;
    }
  return true;
}

}  // namespace trawl::cuda
