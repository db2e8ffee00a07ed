// main.cpp — the trawl command line: subcommands, error reporting and exit codes.
// Exit status, grep style: 0 = something found (or success), 1 = nothing found, 2 = error.
#include <fmt/format.h>
#include <signal.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>

#include "commands.hpp"
#include "output.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

int main(int argc, char** argv) {
  // A closed pipe shows up as EPIPE on write (handled quietly), not as a signal.
  signal(SIGPIPE, SIG_IGN);
  trawl::io::install_sigbus_guard();

  CLI::App app{"trawl — exact, approximate and compressed-index string search", "trawl"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trawl 0.1.0");
  trawl::cli::run_state state;
  trawl::cli::add_search_command(app, state);
  trawl::cli::add_best_command(app, state);
  trawl::cli::add_index_command(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    // One line, grep style, exit 2.
    std::fprintf(stderr, "trawl: %s (see trawl --help)\n", e.what());
    return 2;
  } catch (const trawl::cli::broken_pipe&) {
    return state.exit_code;
  } catch (const trawl::error& e) {
    std::fprintf(stderr, "trawl: %s\n", e.what());
    return 2;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "trawl: out of memory\n");
    return 2;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "trawl: %s\n", e.what());
    return 2;
  }
  // Output written through stdio (index build's summary) is checked here, once: a full disk
  // is an error; a closed pipe is not.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    if (errno == EPIPE) return state.exit_code;
    std::fprintf(stderr, "trawl: cannot write the output: %s\n", errno != 0 ? std::strerror(errno) : "write error");
    return 2;
  }
  return state.exit_code;
}
