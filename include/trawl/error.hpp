// trawl/error.hpp — the one error type of the library, for CPU and GPU alike.
//
// The library never prints and never exits: every failure is reported by throwing
// trawl::error with a code and a one-line message that a CLI can print as is.
#pragma once

#include <stdexcept>
#include <string>

namespace trawl {

/// What went wrong, coarse enough for a caller to branch on.
enum class errc {
  invalid_argument,  ///< bad pattern, option or parameter (empty pattern, NUL byte, k < 0, ...)
  io_error,          ///< a file could not be opened, read, mapped or written
  bad_format,        ///< malformed input data (corrupt gzip, truncated or foreign index file, ...)
  unsupported,       ///< a feature is not available in this build (e.g. CUDA backend not compiled)
  no_device,         ///< a GPU was requested but none is present
  gpu_error,         ///< a CUDA call failed
};

/// Exception thrown by every trawl function on failure. what() is a single line.
class error : public std::runtime_error {
 public:
  error(errc code, const std::string& message) : std::runtime_error(message), code_(code) {}
  [[nodiscard]] errc code() const noexcept { return code_; }

 private:
  errc code_;
};

}  // namespace trawl
