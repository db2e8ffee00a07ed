// main.cpp — the trawl executable: process-wide settings (signals, MPI), then the command line
// (run.cpp).
#include <signal.h>

#include "commands.hpp"
#include "mpi.hpp"
#include "trawl/detail/sigbus.hpp"
#include "trawl/io.hpp"

int main(int argc, char** argv) {
  // A closed pipe shows up as EPIPE on write (handled quietly), not as a signal.
  signal(SIGPIPE, SIG_IGN);
  trawl::io::install_sigbus_guard();
  trawl::io::install_interrupt_cleanup();  // an interrupted index or summary write leaves no temporary
  trawl::cli::mpi::session mpi(argc, argv);  // under mpirun / srun (mpi.hpp)
  int status = 2;
  try {
    status = trawl::cli::run(argc, argv);
  } catch (const trawl::distributed::job_ended& e) {  // a rank failed where the others did not
    mpi.end(e);
  }
  return mpi.finish(status);
}
