// pattern.cpp — compiles a pattern into Peq match bit-vectors under the matching rules of
// approx.hpp (exact bytes, ASCII case folding, IUPAC codes). O(256·m) time, O(256·⌈m/64⌉) space.
#include <algorithm>
#include <array>
#include <string>

#include "approx/approx_internal.hpp"
#include "common/iupac.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl::approx_detail {
namespace {

unsigned char lower(unsigned char c) { return (c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c; }
unsigned char upper(unsigned char c) { return (c >= 'a' && c <= 'z') ? static_cast<unsigned char>(c - 32) : c; }

/// Every text byte that pattern byte `pc` matches.
std::array<bool, 256> match_set(unsigned char pc, const match_rules& options) {
  std::array<bool, 256> set{};
  set[pc] = true;
  if (options.ignore_case) set[lower(pc)] = set[upper(pc)] = true;
  if (options.iupac) {
    const unsigned bits = detail::iupac_bits(pc);
    if (bits != 0) {
      set[lower(pc)] = set[upper(pc)] = true;
      for (unsigned b = 0; b < 4; ++b)
        if ((bits >> b) & 1u) {
          const auto ub = static_cast<unsigned char>("ACGT"[b]);
          set[ub] = set[lower(ub)] = true;
        }
    }
  }
  return set;
}

}  // namespace

compiled_pattern compile_pattern(std::string_view bytes, std::uint32_t index, strand dir, const match_rules& options) {
  if (bytes.empty()) throw error(errc::invalid_argument, "empty pattern");
  if (bytes.find('\0') != std::string_view::npos)
    throw error(errc::invalid_argument, "pattern " + std::to_string(index + 1) + " contains a NUL byte");
  compiled_pattern p;
  p.bytes = std::string(bytes);
  p.index = index;
  p.dir = dir;
  p.m = bytes.size();
  p.words = (p.m + 63) / 64;
  p.peq.assign(256 * p.words, 0);
  p.rpeq.assign(256 * p.words, 0);
  for (std::size_t i = 0; i < p.m; ++i) {
    auto set = match_set(static_cast<unsigned char>(bytes[i]), options);
    const std::size_t r = p.m - 1 - i;
    for (std::size_t c = 0; c < 256; ++c)
      if (set[c]) {
        p.peq[c * p.words + i / 64] |= std::uint64_t{1} << (i % 64);
        p.rpeq[c * p.words + r / 64] |= std::uint64_t{1} << (r % 64);
      }
  }
  return p;
}

std::vector<compiled_pattern> compile_strands(const std::vector<std::string>& patterns, const search_options& options,
                                              std::vector<std::uint32_t>& ks) {
  std::vector<compiled_pattern> pats;
  ks.clear();
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const auto idx = static_cast<std::uint32_t>(i);
    pats.push_back(compile_pattern(patterns[i], idx, strand::forward, options.rules()));
    if (options.both_strands)
      pats.push_back(compile_pattern(trawl::reverse_complement(patterns[i]), idx, strand::reverse, options.rules()));
  }
  for (const compiled_pattern& p : pats)
    ks.push_back(static_cast<std::uint32_t>(std::min<std::size_t>(static_cast<std::size_t>(options.max_errors), p.m)));
  return pats;
}

}  // namespace trawl::approx_detail
