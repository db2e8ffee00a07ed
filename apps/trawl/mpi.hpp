// mpi.hpp — trawl under mpirun / srun. The job's processes are a distributed::group (the
// library's MPI group, src/distributed/mpi_group.hpp) that the commands put in their options:
// every rank runs the same command line, rank 0 prints what one process would, byte for byte,
// and the other ranks scan its slices (or answer their share of an index query's patterns).
// Their stdout and stderr are /dev/null: rank 0 prints their error lines when the job must
// end because of them.
#pragma once

#include <string>

#include "trawl/distributed.hpp"

namespace trawl::cli::mpi {

/// Whether an MPI launcher (mpirun, srun) started this process.
bool started_by_launcher();

/// MPI for the life of the process, when an MPI launcher started it and MPI is built in: the
/// `trawl` executable, built without MPI where `trawl-mpi` is built with it, executes
/// `trawl-mpi` from its own directory instead.
class session {
 public:
  session(int& argc, char**& argv);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  /// The job's exit status: rank 0's, which every rank returns (or the job's end, as end()).
  int finish(int status);
  /// The job ends now: rank 0 prints the line, and every rank exits with the status.
  [[noreturn]] void end(const distributed::job_ended& e);
};

/// The job's processes for the commands' options; null outside an MPI job.
const distributed::group* processes();

/// An error line: printed on stderr by rank 0 (with `print`), counted on every rank
/// (distributed.hpp).
void error_line(const std::string& line, bool print = true);

/// True when started by an MPI launcher. Its ranks' stdout and stderr are pseudo-terminals
/// that it forwards, so they are never taken for a user's terminal.
bool launched();

/// This process's rank (0 outside a job).
int rank();

/// --verbose: rank 0 says on stderr how each search is split over the ranks.
void set_verbose(bool verbose);

}  // namespace trawl::cli::mpi
