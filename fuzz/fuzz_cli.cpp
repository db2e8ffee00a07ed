// fuzz_cli.cpp — the whole command line on hostile argument lists: the input is split at NUL
// bytes into at most 16 arguments, which run as `trawl ARGS...` in a sandbox directory holding
// small inputs (t.txt, g.fa, g.fa.gz, p.txt, guides.txt, t.thi), rewritten before each run.
// Every run must end with a status of 0, 1 or 2 (2 with one line on stderr), never a crash,
// a hang or an allocation over the limit. Arguments that would leave the sandbox (absolute
// paths, "..") are dropped; stdin is /dev/null and stdout is discarded.
#include <fcntl.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "commands.hpp"
#include "gzip.hpp"
#include "trawl/index.hpp"

namespace {

std::vector<std::pair<std::string, std::string>> files;

void write_sandbox() {
  for (const auto& [name, bytes] : files) std::ofstream(name, std::ios::binary | std::ios::trunc) << bytes;
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  const std::string text =
      "In the beginning God created the heaven and the earth.\nAnd the earth was without form, and void;\n"
      "and darkness was upon the face of the deep.\nACGTACGTTGCAGGATTACA\n";
  const std::string fa = ">chr1 one\nACGTACGTTGCAGGATTACAGGTTTAGGCCATGGACGTAGG\nACGTAGGTTTGG\n>chr2\nGGATTACAACGTNNNNACGTAGG\n";
  files = {{"t.txt", text},
           {"g.fa", fa},
           {"g.fa.gz", gzip(fa)},
           {"p.txt", "earth\nACGT\nthe\n"},
           {"guides.txt", ">g1\nACGTACGTTGCAGGATTACA\n>g2\nGGATTACAACGTACGTAGGT\n"},
           {"t.thi", trawl::index::hybrid_index::build(text + text, "t.txt").to_bytes()}};
  const auto dir = std::filesystem::temp_directory_path() / ("trawl_fuzz_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::filesystem::current_path(dir);
  const int in = ::open("/dev/null", O_RDONLY), out = ::open("/dev/null", O_WRONLY);
  ::dup2(in, 0);
  ::dup2(out, 1);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::vector<std::string> args{"trawl"};
  std::string cur;
  for (std::size_t i = 0; i <= size && args.size() <= 16; ++i) {
    if (i == size || data[i] == 0) {
      if (cur.size() <= 64 && cur.find("..") == std::string::npos && (cur.empty() || cur[0] != '/')) args.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(static_cast<char>(data[i]));
    }
  }
  write_sandbox();
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  std::clearerr(stdout);
  const int status = trawl::cli::run(static_cast<int>(args.size()), argv.data());
  if (status < 0 || status > 2) std::abort();
  return 0;
}
