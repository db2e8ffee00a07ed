// run_search.cpp — the one entry that plans, builds and runs the search of an input
// (stream.hpp), in this process or spread over a job's (options.processes): the CLI, Python,
// offtarget and the MPI ranks all come through here.
#include "trawl/distributed.hpp"
#include "trawl/gpu.hpp"
#include "trawl/stream.hpp"

namespace trawl {

stream_result run_search(const std::vector<std::string>& patterns, io::source& input, const search_options& options,
                         const stream_options& stream, search_sink& sink, const run_steps& steps) {
  // A caller's own GPU matcher (offtarget's site scan) comes with a CPU engine other than
  // make_matcher's, which the patterns alone cannot price.
  const search_plan plan = steps.make_gpu ? plan_search(options, patterns.size(), input, stream)
                                          : plan_search(options, patterns, input, stream);
  if (steps.planned) steps.planned(plan);
  std::unique_ptr<matcher> made;
  const matcher* m = steps.cpu;
  if (plan.device == device_kind::gpu) {
    made = steps.make_gpu ? steps.make_gpu(plan.options) : gpu::make_matcher(patterns, plan.options);
    m = made.get();
  } else if (m == nullptr) {
    made = make_matcher(patterns, plan.options);
    m = made.get();
  }
  const distributed::group* processes = options.processes;
  stream_result result = processes != nullptr && processes->size() > 1
                             ? processes->search(*m, input, plan.options, plan.stream, sink)
                             : search_input(*m, input, plan.options, plan.stream, sink);
  result.device = m->device();
  return result;
}

}  // namespace trawl
