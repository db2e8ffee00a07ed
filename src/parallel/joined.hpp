// joined.hpp — texts searched as one sequence, each followed by a run of NUL bytes that no hit
// can cross (search_many.cpp): one scan, and on the GPU one stream, for many texts.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/search.hpp"

namespace trawl::detail {

/// Whether texts joined with runs of `gap` NUL bytes give each text's own hits, for these
/// patterns and options: edit-distance or exact search (no Hamming windows, whole lines or
/// regular expressions), every pattern longer than k, and gap > the longest pattern + k.
bool joins(const std::vector<std::string>& patterns, const search_options& options, std::size_t gap);

/// Searches `joined`, which holds text t at [begin[t], begin[t] + length[t]) followed by a run
/// of NULs as joins() asks, with `m` (the matcher of `patterns`; the GPU when choose_device
/// picks it for the whole length) and hands each text's hits, in its coordinates, to
/// `on_hits` as search_many does.
void search_joined(const std::vector<std::string>& patterns, const matcher& m, std::string_view joined,
                   std::span<const std::uint64_t> begin, std::span<const std::uint64_t> length,
                   const search_options& options, const text_hits_callback& on_hits);

}  // namespace trawl::detail
