// locate_serial.cpp — Letelier's sequential locate (Algorithms 1–2): every primary
// occurrence, then the Kärkkäinen–Ukkonen recursion from each, on one thread. The recursion
// runs on an explicit stack, so a deep chain of copies cannot overflow the call stack.
// O(occ · (t_rmq + log z)) time, O(occ) space (with a sink: the stack, see ku_step).
#include "index/ku_recursion.hpp"

namespace trawl::index {

std::vector<std::uint64_t> locate_serial(const detail::index_impl& ix, const std::vector<std::uint64_t>& prim,
                                         std::uint64_t m, const occurrence_sink* sink) {
  std::vector<std::uint64_t> out;
  if (sink == nullptr) out = prim;
  std::vector<ku_item> stack;
  for (std::uint64_t x : prim) {
    if (sink != nullptr) out.push_back(x);
    stack.push_back(ku_root(ix, x));
    while (!stack.empty()) {
      const ku_item it = stack.back();
      stack.pop_back();
      ku_step(ix, m, it, stack, out);
      flush_occurrences(out, sink);
    }
  }
  flush_occurrences(out, sink, true);
  return out;
}

}  // namespace trawl::index
