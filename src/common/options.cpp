// options.cpp — names that front ends turn into search options (search.hpp): one meaning for
// the CLI's flags and Python's keywords.
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {

void set_algorithm(search_options& options, std::string_view name) {
  if (options.regex) {
    if (name != "auto") throw error(errc::invalid_argument, "regex picks its own engine: algorithm must be \"auto\"");
    return;
  }
  if (options.max_errors > 0 || options.all_ends) {
    options.approx = parse_approx_algorithm(name);
  } else if (name == "dp" || name.substr(0, 5) == "myers") {
    // k = 0 without all_ends is exact search whatever engine is named: every occurrence, the
    // same set an approximate engine finds at distance 0, so a loop over k = 0, 1, 2 ... runs
    // as it reads. The name is still checked.
    (void)parse_approx_algorithm(name);
  } else {
    options.exact = parse_exact_algorithm(name);
  }
}

}  // namespace trawl
