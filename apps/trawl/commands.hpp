// commands.hpp — the subcommands of the trawl CLI. Each file apps/trawl/cmd_*.cpp adds one
// subcommand to the CLI11 app; its callback runs the command and stores the exit status.
// Errors are thrown as trawl::error (or CLI::Error) and turned into "trawl: ..." + exit 2
// by main.cpp. Only apps/ prints.
#pragma once

#include <CLI/CLI.hpp>

namespace trawl::cli {

/// Exit status of the command that ran: 0 = hits found / success, 1 = no hit, 2 = error.
struct run_state {
  int exit_code = 0;
};

void add_search_command(CLI::App& root, run_state& state);  // cmd_search.cpp
void add_best_command(CLI::App& root, run_state& state);    // cmd_best.cpp
void add_index_command(CLI::App& root, run_state& state);   // cmd_index.cpp

}  // namespace trawl::cli
