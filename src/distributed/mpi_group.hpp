// mpi_group.hpp — the processes of an MPI job (mpirun, srun; OpenMPI) as a distributed::group.
// Built into libtrawl_mpi, beside the library, where CMake finds MPI: a program that links it
// loads MPI's libraries; libtrawl does not.
//
// A search (distributed.hpp) runs on rank 0 as in one process, its scheduler's slices scanned
// on every rank, each remote rank taking as many at once as it has threads: a slice of a
// regular file goes out as its coordinates (every rank maps the same file: a shared file
// system; a FASTA slice as the bytes before the window's origin and the coordinates of its
// lines), any other slice as its bytes; the hits come back to rank 0, whose scheduler orders,
// merges and hands them on as for one process.
//
// Messages (on a private duplicate of MPI_COMM_WORLD): each step begins with every other
// rank's hello to rank 0 (the step, its error count and last error line, its threads). In a
// search, rank 0 sends a worker a scan as a header with the tag of the slot it fills (slots:
// one per thread of each rank), followed for a slice sent by value by its bytes; the worker
// answers on the same tag with a status and the hits (or an error line). Control messages (end
// of a search, end of the job) use their own tag. Rank 0's scheduler threads call MPI
// concurrently (MPI_THREAD_MULTIPLE); a worker receives on its main thread and answers from
// its own threads.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "trawl/distributed.hpp"

namespace trawl::distributed {

class mpi_group final : public group {
 public:
  /// MPI_Init_thread (MPI_THREAD_MULTIPLE) and the job's communicator. Throws trawl::error
  /// when the MPI library cannot call from several threads.
  mpi_group(int& argc, char**& argv);
  /// MPI_Finalize, unless finish() or abort() ended the job.
  ~mpi_group() override;
  mpi_group(const mpi_group&) = delete;
  mpi_group& operator=(const mpi_group&) = delete;

  [[nodiscard]] int rank() const override;
  [[nodiscard]] int size() const override;
  stream_result search(const matcher& m, io::source& input, const search_options& options, const stream_options& stream,
                       search_sink& sink) const override;
  [[nodiscard]] std::vector<std::string> gather(std::string mine) const override;
  void note_error(const std::string& line) const override;

  /// Told how each search is split and what went to the other ranks (rank 0; a --verbose
  /// front end's stderr); empty: nothing is said.
  void set_log(std::function<void(const std::string&)> log);

  /// The last step: every rank's status becomes rank 0's `status`, returned on every rank, and
  /// MPI is finalized. Throws job_ended when a rank failed where rank 0 did not.
  int finish(int status);
  /// Ends every process of the job now with `status` (MPI_Abort): after job_ended, or when a
  /// rank cannot go on.
  [[noreturn]] void abort(int status);

  struct state;  ///< the communicator and this rank's errors (mpi_group.cpp)

 private:
  std::unique_ptr<state> s_;
};

}  // namespace trawl::distributed
