// mpi.hpp — trawl under mpirun / srun (OpenMPI; built when CMake finds MPI).
//
// Every rank runs the same command line. Rank 0 runs the command as one process would, with
// one difference: the slices its scheduler cuts are scanned on every rank (its own threads
// included), each remote rank taking as many at once as it has threads. A slice of a regular
// file goes out as its coordinates (every rank maps the same file: a shared file system), any
// other slice as its bytes; the hits come back to rank 0, whose scheduler orders, merges and
// prints them exactly as for one process, so the output is byte-identical. The other ranks
// print nothing (their stdout is /dev/null) and only serve scans: each of their searches is
// paired with rank 0's by order, and they report an error only when it is theirs alone: a
// rank that fails where rank 0 did not aborts the whole job with its message. Index queries
// (search --index, index count/locate) deal the patterns out over the ranks instead.
#pragma once

#include <cstdint>
#include <string>

#include "trawl/index.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli::mpi {

/// Whether an MPI launcher (mpirun, srun) started this process.
bool started_by_launcher();

/// MPI for the life of the process: initialized when the process was started by an MPI
/// launcher (and MPI is built in), else nothing. The `trawl` executable, built without MPI
/// where `trawl-mpi` is built with it, executes `trawl-mpi` from its own directory instead. On ranks other than 0, stdout and stderr
/// become /dev/null (what they would print, rank 0 prints).
class session {
 public:
  session(int& argc, char**& argv);
  ~session();
  session(const session&) = delete;
  session& operator=(const session&) = delete;
  /// The job's exit status: rank 0's, which every rank returns.
  int finish(int status);
};

/// A worker's error line, printed (with its rank) only if the job must end because of it:
/// rank 0 reports the errors every rank meets.
void keep_error(const std::string& line);

/// True when started by an MPI launcher. Its ranks' stdout and stderr are pseudo-terminals
/// that it forwards, so they are never taken for a user's terminal.
bool launched();

/// True in a job of more than one rank.
bool active();
int rank();
int size();

/// One search of `input` with `m`: search_input on rank 0 with the scans spread over every
/// rank; on the other ranks, the scans rank 0 sends for this search (returns no hits).
/// Without active(), just search_input.
/// With `verbose`, rank 0 says on stderr how the search is split.
stream_result search(const matcher& m, io::source& input, const search_options& options,
                     const stream_options& stream, search_sink& sink, bool verbose = false);

/// idx.search_records(patterns, options) with the patterns dealt round robin over the ranks:
/// rank 0 gets every hit, in the order one process gives them (record, start, pattern); the
/// other ranks get none. Without active(), just idx.search_records.
std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const index::locate_options& options);
/// The same with search options (idx.search_records(patterns, search, gpu)): rank 0 gets every hit in
/// a search's order (record, then start for exact search or end for approximate search,
/// pattern, strand).
std::vector<index::record_hit> search_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                              const search_options& search, const gpu::gpu_options& gpu = {});

/// idx.count_records(patterns, options) with the patterns dealt round robin over the ranks:
/// rank 0 gets every count, the other ranks an empty vector.
std::vector<std::uint64_t> count_records(const index::hybrid_index& idx, const std::vector<std::string>& patterns,
                                         const index::locate_options& options);

}  // namespace trawl::cli::mpi
