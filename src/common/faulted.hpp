// faulted.hpp — growing a large buffer with its pages faulted in on every core.
#pragma once

#include <cstddef>
#include <string>

namespace trawl {

/// `s` resized to n bytes. A buffer that grows by much is first faulted in on the cores of the
/// calling task arena (its capacity, MADV_POPULATE_WRITE, Linux 5.14; elsewhere advice that
/// does nothing), so that the resize's zero fill does not take its page faults one at a time
/// on the calling thread.
void resize_faulted(std::string& s, std::size_t n);

}  // namespace trawl
