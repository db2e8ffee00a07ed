// record_hits.hpp — a search sink for tests that keeps every hit with its record number.
#pragma once

#include <cstdint>
#include <span>
#include <utility>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/stream.hpp"

namespace testing_sinks {

/// Collects (record, hit) of a stream search, in the order the search hands them over.
class record_hits final : public trawl::search_sink {
 public:
  std::vector<std::pair<std::uint64_t, trawl::hit>> found;
  void begin_record(const trawl::record_info& r) override { record_ = r.index; }
  bool hits(std::span<const trawl::hit> hs) override {
    for (const auto& h : hs) found.emplace_back(record_, h);
    return true;
  }
  void end_record(std::uint64_t) override {}

 private:
  std::uint64_t record_ = 0;
};

}  // namespace testing_sinks
