// search_cases.hpp — the cases of the randomized tests as the library's options, in one place:
// a search mode (k, strands, every end, Hamming, IUPAC, case folding) and an off-target
// variant (PAMs, PAM side, limits, bulges); a test's table lists the cases, designated
// initializers naming what differs from the default. And the hits of a sliced search of one
// matcher, as the tests collect them.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace test_cases {

/// A search mode: search_options' matching fields.
struct search_mode {
  int k = 0;
  bool both = false, all_ends = false, hamming = false, iupac = false, fold = false;
};

/// The options of mode m (every other field at its default).
inline trawl::search_options options_of(const search_mode& m) {
  trawl::search_options o;
  o.max_errors = m.k;
  o.both_strands = m.both;
  o.all_ends = m.all_ends;
  o.hamming = m.hamming;
  o.iupac = m.iupac;
  o.ignore_case = m.fold;
  return o;
}

/// An off-target variant: offtarget::options' search fields.
struct offtarget_variant {
  std::vector<std::string> pams{"NGG"};
  trawl::offtarget::pam_side side = trawl::offtarget::pam_side::three_prime;
  int mismatches = 3, pam_mismatches = 0, dna_bulges = 0, rna_bulges = 0, max_edits = -1;
};

/// The options of variant v (every other field at its default).
inline trawl::offtarget::options options_of(const offtarget_variant& v) {
  trawl::offtarget::options o;
  o.pams = v.pams;
  o.side = v.side;
  o.mismatches = v.mismatches;
  o.pam_mismatches = v.pam_mismatches;
  o.dna_bulges = v.dna_bulges;
  o.rna_bulges = v.rna_bulges;
  o.max_edits = v.max_edits;
  return o;
}

/// What a failing check says about variant v.
inline std::string describe(const offtarget_variant& v) {
  return v.pams[0] + " mm " + std::to_string(v.mismatches) + " pam mm " + std::to_string(v.pam_mismatches) +
         " bulges " + std::to_string(v.dna_bulges) + "/" + std::to_string(v.rna_bulges) + " max edits " +
         std::to_string(v.max_edits);
}

/// Every hit of trawl::search_sequence of matcher m over t with options o, `threads` workers
/// and slices of `slice` bytes (0: the options' own), in the order delivered.
inline std::vector<trawl::hit> sliced_hits(const trawl::matcher& m, std::string_view t, trawl::search_options o,
                                           unsigned threads, std::size_t slice) {
  o.threads = threads;
  o.slice_size = slice;
  std::vector<trawl::hit> got;
  trawl::search_sequence(m, t, o, [&](std::span<const trawl::hit> hs) {
    got.insert(got.end(), hs.begin(), hs.end());
    return true;
  });
  return got;
}

}  // namespace test_cases
