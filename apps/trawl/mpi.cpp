// mpi.cpp — see mpi.hpp.
#include "mpi.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>

#include "trawl/error.hpp"

#ifdef TRAWL_HAVE_MPI
#include "distributed/mpi_group.hpp"
#endif

namespace trawl::cli::mpi {

bool started_by_launcher() {
  return std::getenv("OMPI_COMM_WORLD_SIZE") != nullptr || std::getenv("PMIX_RANK") != nullptr ||
         std::getenv("PMI_RANK") != nullptr;
}

#ifndef TRAWL_HAVE_MPI

session::session(int&, char**& argv) {
#ifdef TRAWL_MPI_PROGRAM
  // the MPI build beside this executable takes over, with the same arguments
  if (!started_by_launcher()) return;
  char self[4096];
  const ssize_t n = ::readlink("/proc/self/exe", self, sizeof self - 1);
  std::string program = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
  program = program.substr(0, program.rfind('/') + 1) + TRAWL_MPI_PROGRAM;
  ::execv(program.c_str(), argv);
  std::fprintf(stderr, "trawl: started by an MPI launcher, but %s (trawl's MPI build) cannot run: %s\n", program.c_str(),
               std::strerror(errno));
  std::exit(2);
#else
  (void)argv;
#endif
}
session::~session() = default;
int session::finish(int status) { return status; }
void session::end(const distributed::job_ended& e) {
  if (!e.line.empty()) std::fprintf(stderr, "%s\n", e.line.c_str());
  std::exit(e.status);
}
const distributed::group* processes() { return nullptr; }
void error_line(const std::string& line, bool print) {
  if (print) std::fprintf(stderr, "%s\n", line.c_str());
}
bool launched() { return false; }
int rank() { return 0; }
void set_verbose(bool) {}

#else

namespace {
std::unique_ptr<distributed::mpi_group> job;
}  // namespace

session::session(int& argc, char**& argv) {
  if (!started_by_launcher()) return;
  try {
    job = std::make_unique<distributed::mpi_group>(argc, argv);
  } catch (const error& e) {
    std::fprintf(stderr, "trawl: %s\n", e.what());
    std::exit(2);
  }
  if (job->rank() != 0) {  // rank 0 prints the output, and the errors of every rank
    const int null = ::open("/dev/null", O_WRONLY);
    if (null >= 0) ::dup2(null, 1), ::dup2(null, 2);
  }
}

session::~session() { job.reset(); }

int session::finish(int status) {
  if (!job) return status;
  try {
    status = job->finish(status);
  } catch (const distributed::job_ended& e) {
    end(e);
  }
  job.reset();
  return status;
}

void session::end(const distributed::job_ended& e) {
  if (job && job->rank() == 0 && !e.line.empty()) std::fprintf(stderr, "%s\n", e.line.c_str());
  std::fflush(stdout);
  std::fflush(stderr);
  if (!job) std::exit(e.status);
  job->abort(e.status);
}

const distributed::group* processes() { return job.get(); }

void error_line(const std::string& line, bool print) {
  if (print && rank() == 0) std::fprintf(stderr, "%s\n", line.c_str());
  if (job) job->note_error(line);
}

bool launched() { return job != nullptr; }
int rank() { return job ? job->rank() : 0; }

void set_verbose(bool verbose) {
  if (!job) return;
  if (verbose && job->rank() == 0) job->set_log([](const std::string& line) { std::fprintf(stderr, "trawl: %s\n", line.c_str()); });
  else job->set_log({});
}

#endif

}  // namespace trawl::cli::mpi
