// run.cpp — the trawl command line: subcommands, error reporting and exit codes.
// Exit status, grep style: 0 = something found (or success), 1 = nothing found, 2 = error.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <exception>
#include <string>
#include <vector>

#include "commands.hpp"
#include "mpi.hpp"
#include "output.hpp"
#include "trawl/error.hpp"

namespace {

/// Edit distance of two option names (small: the options of one subcommand).
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// "; did you mean --count?" for an unknown long option close to one of `cmd`'s, else "".
std::string suggestion(const CLI::App& cmd) {
  for (const std::string& arg : cmd.remaining()) {
    if (arg.rfind("--", 0) != 0) continue;
    const std::string name = arg.substr(2, arg.find('=') == std::string::npos ? std::string::npos : arg.find('=') - 2);
    std::string best;
    std::size_t best_d = 3;  // at most two edits away
    for (const CLI::Option* opt : cmd.get_options())
      for (const std::string& l : opt->get_lnames())
        if (const std::size_t d = distance(name, l); d < best_d || (l.rfind(name, 0) == 0 && best.empty()))
          best_d = std::min(d, best_d), best = l;
    if (!best.empty()) return "; did you mean --" + best + "?";
  }
  return {};
}

/// An error line on stderr (under MPI, rank 0's: mpi.hpp).
void report(const std::string& line) { trawl::cli::mpi::error_line(line); }

/// Help and version text reached stdout: `status`, or 2 with one line when the write failed
/// (a full disk, /dev/full); a closed pipe ends it quietly, as for any other output.
int printed(int status) {
  errno = 0;
  if (std::fflush(stdout) == 0 && std::ferror(stdout) == 0) return status;
  if (errno == EPIPE) return status;
  report(std::string("trawl: cannot write the output: ") + (errno != 0 ? std::strerror(errno) : "write error"));
  return 2;
}

}  // namespace

int trawl::cli::run(int argc, char** argv) {
  CLI::App app{"trawl — exact, approximate and compressed-index string search", "trawl"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "trawl 0.1.0");
  trawl::cli::run_state state;
  trawl::cli::add_search_command(app, state);
  trawl::cli::add_best_command(app, state);
  trawl::cli::add_index_command(app, state);
  trawl::cli::add_offtarget_command(app, state);
  trawl::cli::add_pack_command(app, state);
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return printed(app.exit(e));
  } catch (const CLI::CallForAllHelp& e) {
    return printed(app.exit(e));
  } catch (const CLI::CallForVersion& e) {
    return printed(app.exit(e));
  } catch (const CLI::ParseError& e) {
    // One line, grep style, exit 2, naming the help of the subcommand that was used.
    const auto used = app.get_subcommands();
    const std::string help = used.empty() ? "trawl --help" : "trawl " + used.front()->get_name() + " --help";
    const std::string hint = used.empty() ? "" : suggestion(*used.front());
    if (used.empty() && argc > 1 && argv[1][0] != '-') {  // a misspelt subcommand
      std::string best;
      for (const CLI::App* sub : app.get_subcommands({}))
        if (distance(argv[1], sub->get_name()) <= 2) best = sub->get_name();
      report(fmt::format("trawl: unknown command '{}'{} (see trawl --help)", argv[1],
                         best.empty() ? "" : "; did you mean " + best + "?"));
      return 2;
    }
    report(fmt::format("trawl: {}{} (see {})", e.what(), hint, help));
    return 2;
  } catch (const trawl::cli::broken_pipe&) {
    return state.exit_code;
  } catch (const trawl::error& e) {
    report(fmt::format("trawl: {}", e.what()));
    return 2;
  } catch (const std::bad_alloc&) {
    report("trawl: out of memory");
    return 2;
  } catch (const std::exception& e) {
    report(fmt::format("trawl: {}", e.what()));
    return 2;
  }
  // Output written through stdio (index build's summary) is checked here, once: a full disk
  // is an error; a closed pipe is not.
  errno = 0;
  if (std::fflush(stdout) != 0 || std::ferror(stdout) != 0) {
    if (errno == EPIPE) return state.exit_code;
    report(fmt::format("trawl: cannot write the output: {}", errno != 0 ? std::strerror(errno) : "write error"));
    return 2;
  }
  return state.exit_code;
}
