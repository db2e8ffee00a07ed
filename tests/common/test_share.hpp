// test_share.hpp — the share of a heavy randomized test's cases that a build runs.
//
// The release build runs every case. The ASan + UBSan build (TRAWL_SANITIZE) runs the engines
// and the oracles 10-30x slower; there a heavy randomized test runs every `every`-th of its
// cases (TRAWL_TEST_SHARE, set by tests/CMakeLists.txt), by running number, so the same ones
// on every run, and the suite fits the CI's time.
// A test that draws each case before it asks runs exactly cases of the release build.
#pragma once

#include <cstdint>

namespace test_share {

inline constexpr std::uint64_t every = TRAWL_TEST_SHARE;

/// The running count of one test's cases.
class cases {
 public:
  /// True if this build runs the next case.
  [[nodiscard]] bool runs() { return n_++ % every == 0; }

 private:
  std::uint64_t n_ = 0;
};

}  // namespace test_share
