// deal.hpp — index queries shared by a job's processes (distributed.hpp): the patterns dealt
// round robin over the ranks, each rank answering its own, the answers gathered on rank 0.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "trawl/distributed.hpp"
#include "trawl/index.hpp"

namespace trawl::distributed {

/// `run` over this rank's share of `patterns` (pattern numbers made global again); on rank 0
/// every rank's hits sorted by `order`, elsewhere none.
std::vector<index::record_hit> deal_records(
    const group& g, const std::vector<std::string>& patterns,
    const std::function<std::vector<index::record_hit>(const std::vector<std::string>&)>& run,
    index::record_hit_order order);

/// `run` (a count per pattern) over this rank's share of `patterns`; on rank 0 every pattern's
/// count, elsewhere an empty vector.
std::vector<std::uint64_t> deal_counts(const group& g, const std::vector<std::string>& patterns,
                                       const std::function<std::vector<std::uint64_t>(const std::vector<std::string>&)>& run);

}  // namespace trawl::distributed
