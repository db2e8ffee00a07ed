// pam_scan.hpp — the candidate engine of an off-target search without bulges: every PAM
// position, then the guides whose protospacer lies within its mismatch limit there. Not installed.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "../../cuda/api/backend.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/offtarget.hpp"

namespace trawl::offtarget {

/// What the PAM scan of the CPU and of the GPU searches with, made once from the guides.
///
/// A site without bulges is a window (protospacer + PAM without gaps), so at each position
/// where a PAM fits, a guide is tested only when one of M + 1 disjoint blocks of its
/// protospacer (M: the largest mismatch limit), read from the PAM outward, matches the genome
/// exactly, which one of them must (pigeonhole). Blocks are looked up by the 2-bit codes of
/// their bases (A 0, C 1, G 2, T 3; base i of a block in bits 2i..); a block with IUPAC codes
/// is listed under each key it matches. Guides are numbered as given; the patterns (guide x
/// PAM) are guide * pams.size() + PAM.
struct pam_tables {
  static constexpr std::size_t per_word = 16;  ///< bases per 64-bit word, 4 bits each (iupac_bits)
  bool three_prime = true;  ///< the PAM is 3' of the protospacer
  int pam_limit = 0;        ///< PAM mismatches allowed
  std::vector<std::vector<unsigned char>> pams;  ///< per PAM: iupac_bits of its codes, 5' -> 3'
  std::vector<std::uint32_t> length;  ///< per guide: its protospacer's length
  std::vector<int> limit;             ///< per guide: the protospacer mismatches it allows
  std::size_t stride = 0;             ///< words per guide in `words`
  /// per guide: iupac_bits of its protospacer from the PAM outward, base i in bits 4(i % 16)
  /// of word i / 16; zero past its length
  std::vector<std::uint64_t> words;
  std::size_t shortest = 0, longest = 0, longest_pam = 0;
  std::size_t blocks = 0, block_len = 0;  ///< 0 blocks: every guide is in `always`
  /// per (block, key), block * 4^block_len + key: its guides are ids[first[i] .. first[i + 1])
  std::vector<std::uint32_t> first, ids;
  std::vector<std::uint32_t> always;  ///< guides tested at every PAM (a block of too many codes)
  std::size_t most_listed = 0;        ///< the most guides under one key
};

/// The tables of `guides` (upper case, each with its own mismatch limit) under `o` (no bulges).
pam_tables make_pam_tables(const std::vector<guide>& guides, const options& o);

/// The CPU engine of the tables: the ends of every site, as hits of the patterns guide x PAM on
/// both strands (key hit_key::last), exactly the candidate ends that have a site.
/// O(n * PAMs + sites * (blocks * block_len + candidate guides * stride)) per scan.
std::unique_ptr<detail::engine> make_pam_scan(pam_tables tables);

/// The GPU's PAM scan of the same tables (guides of at most cuda::site_plan::max_longest bases).
cuda::site_plan gpu_site_plan(const pam_tables& t);

}  // namespace trawl::offtarget
