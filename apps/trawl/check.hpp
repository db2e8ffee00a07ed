// check.hpp — `trawl search --check`: re-verifies every reported hit against the text with a
// plain dynamic program that shares no code with the engines (after WFA2's --check).
#pragma once

#include <string>
#include <string_view>

#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::cli {

/// Empty if `h` is a correct hit of `pattern` (as given, forward) under `o`, `text` being the
/// bytes [h.start, h.end) of the sequence (shorter when the hit lies outside it); otherwise a
/// one-line reason.
std::string check_hit(const hit& h, std::string_view pattern, std::string_view text, const search_options& o);

}  // namespace trawl::cli
