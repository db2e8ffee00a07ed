// commands.hpp — the subcommands of the trawl CLI. Each file apps/trawl/cmd_*.cpp adds one
// subcommand to the CLI11 app; its callback runs the command and stores the exit status.
// Errors are thrown as trawl::error (or CLI::Error) and turned into "trawl: ..." + exit 2
// by main.cpp. Only apps/ prints.
#pragma once

#include <CLI/CLI.hpp>

#include <charconv>
#include <cstdint>
#include <string>

namespace trawl::cli {

/// Numeric options: a decimal integer in [lo, hi]; overflow, a sign where none belongs and
/// trailing junk are refused (one line, exit 2) before CLI11 converts the value.
inline CLI::Validator integer_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end != s.data() + s.size() || s.empty())
          return s + " is not an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        if (v < lo || v > hi) return s + " is out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        return {};
      },
      "INT", "integer_in");
}

/// Byte counts: integer_in's decimal integer, or one followed by K, M or G (KiB, MiB, GiB:
/// powers of 1024; "k", "KB", "KiB" alike), which the option then reads as its bytes.
inline CLI::Validator bytes_in(std::int64_t lo, std::int64_t hi) {
  return CLI::Validator(
      [lo, hi](std::string& s) -> std::string {
        const std::string range = "[" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
        std::int64_t v = 0;
        const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
        if (ec != std::errc() || end == s.data() || v < 0) return s + " is not a byte count in " + range + " (K, M, G: KiB, MiB, GiB)";
        std::string unit(end, static_cast<const char*>(s.data() + s.size()));
        for (char& c : unit) c = static_cast<char>(c >= 'a' && c <= 'z' ? c - 32 : c);
        if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
        if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
        const int shift = unit.empty() ? 0 : unit == "K" ? 10 : unit == "M" ? 20 : unit == "G" ? 30 : -1;
        if (shift < 0) return s + " is not a byte count in " + range + " (K, M, G: KiB, MiB, GiB)";
        if (v > (hi >> shift) || (v << shift) < lo) return s + " is out of range " + range;
        s = std::to_string(v << shift);
        return {};
      },
      "BYTES", "bytes_in");
}

/// Exit status of the command that ran: 0 = hits found / success, 1 = no hit, 2 = error.
struct run_state {
  int exit_code = 0;
};

/// The whole command line: parses argv, runs the subcommand, reports errors on stderr; returns
/// the exit status. run.cpp
int run(int argc, char** argv);

void add_search_command(CLI::App& root, run_state& state);  // cmd_search.cpp
void add_best_command(CLI::App& root, run_state& state);    // cmd_best.cpp
void add_index_command(CLI::App& root, run_state& state);   // cmd_index.cpp
void add_offtarget_command(CLI::App& root, run_state& state);  // cmd_offtarget.cpp
void add_pack_command(CLI::App& root, run_state& state);       // cmd_pack.cpp

}  // namespace trawl::cli
