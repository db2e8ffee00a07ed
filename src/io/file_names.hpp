// file_names.hpp — what a file's name says, for format_of_name (records.cpp) and source::open's
// refusal of a file named .2bit that is not one (streams.cpp).
#pragma once

#include <string>
#include <string_view>

namespace trawl::io::detail {

/// The last component of `path` in lower case (ASCII), without one trailing .gz, .bgz or .zst
/// (where a name is left before it).
std::string bare_name(std::string_view path);

}  // namespace trawl::io::detail
