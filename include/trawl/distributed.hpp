// trawl/distributed.hpp — searches shared by the processes of a job (MPI ranks).
//
// Every process of a job runs the same calls in the same order. A search of an input
// (run_search, with search_options::processes set) runs on rank 0 as in one process, with the
// slices its scheduler cuts scanned on every rank; the hits come back to rank 0, which hands
// them to its sink in the order one process gives. The other ranks' sinks get nothing. Index
// queries with locate_options::processes or search_options::processes deal the patterns out
// over the ranks and gather the answers on rank 0.
//
// Every collective step (a search, an index query, the end of the job) begins with each rank
// telling rank 0 how many errors it has met: a rank that failed where rank 0 did not (an input
// it could not open, read or scan) ends the job there with its error line, instead of leaving
// the others waiting for it. The group that speaks MPI is libtrawl_mpi's (src/distributed/mpi_group.hpp).
#pragma once

#include <stdexcept>
#include <string>
#include <vector>

#include "trawl/stream.hpp"

namespace trawl::distributed {

/// The job must end now with `status` on every rank: thrown by a group's collective calls when
/// the ranks are out of step (one failed where the others did not) or rank 0 ended the job.
/// `line` is the error line to report (rank 0 only; empty on the other ranks or when reported).
struct job_ended {
  int status = 2;
  std::string line;
};

/// The processes of one job. Calls are collective: every rank makes them in the same order.
class group {
 public:
  virtual ~group() = default;
  [[nodiscard]] virtual int rank() const = 0;
  [[nodiscard]] virtual int size() const = 0;

  /// A search of `input` with `m`: on rank 0, search_input with the scans spread over every
  /// rank (stream.scans_in_flight is raised to the slots of every rank); on the other ranks, the
  /// scans rank 0 sends for it (no hit reaches `sink`). Throws job_ended when the job must end.
  virtual stream_result search(const matcher& m, io::source& input, const search_options& options,
                               const stream_options& stream, search_sink& sink) const = 0;

  /// Every rank's `mine`, on rank 0 (element r: rank r's); an empty vector on the other ranks.
  /// Throws job_ended when the job must end.
  [[nodiscard]] virtual std::vector<std::string> gather(std::string mine) const = 0;

  /// An error this rank met and reported (or, off rank 0, kept): counted in every step's check,
  /// and the line rank 0 prints if this rank alone met it.
  virtual void note_error(const std::string& line) const = 0;
};

}  // namespace trawl::distributed
