// cmd_pack.cpp — `trawl pack IN -o OUT.2bit`: a FASTA/FASTQ genome as a UCSC .2bit file (two
// bits a base, N blocks, soft-mask blocks), which every command then reads as that FASTA.
#include <fmt/format.h>

#include <cstdint>
#include <cstdio>

#include <memory>
#include <initializer_list>
#include <string>
#include <string_view>

#include "commands.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::cli {
namespace {

struct pack_args {
  std::string input, output;
};

int run_pack(const pack_args& a) {
  std::string out = a.output;
  if (out.empty()) {
    if (a.input == "-") throw error(errc::invalid_argument, "pack: -o OUT is needed when the input is standard input");
    std::string base = a.input;
    const auto strip = [&](std::initializer_list<std::string_view> exts) {
      for (const std::string_view ext : exts)
        if (base.size() > ext.size() && base.ends_with(ext)) base.resize(base.size() - ext.size());
    };
    strip({".gz", ".bgz", ".zst"});
    strip({".fa", ".fasta", ".fna", ".fq", ".fastq"});
    out = base + ".2bit";
  }
  if (a.input != "-" && io::same_file(a.input, out))
    throw error(errc::invalid_argument, "pack: the output " + out + " is the input file");
  const auto in = io::input_buffer::open(a.input);
  const std::string name = a.input == "-" ? "(standard input)" : a.input;
  const io::format named = a.input == "-" ? io::format::automatic : io::format_of_name(a.input);
  const io::twobit_image image = io::to_twobit(in.bytes(), named, name);
  io::write_file_atomically(out, image.bytes);
  if (image.replaced > 0)
    fmt::print(stderr, "trawl pack: {} of {} {} N in {} (.2bit holds A, C, G, T and N only)\n",
               image.replaced == 1 ? "1 base" : fmt::format("{} bases", image.replaced), name,
               image.replaced == 1 ? "was an IUPAC code other than N and is" : "were IUPAC codes other than N and are", out);
  if (const std::uint64_t u = image.changed - image.replaced; u > 0)
    fmt::print(stderr, "trawl pack: {} of {} {} T in {}\n", u == 1 ? "1 base" : fmt::format("{} bases", u), name,
               u == 1 ? "was U and is" : "were U and are", out);
  return 0;
}

}  // namespace

void add_pack_command(CLI::App& root, run_state& state) {
  auto a = std::make_shared<pack_args>();
  CLI::App* cmd = root.add_subcommand("pack", "write a FASTA/FASTQ genome as a UCSC .2bit file");
  cmd->footer(
      "A .2bit file holds each record's name and its bases at two bits each, with its runs of N and its\n"
      "lower-case (soft-masked) runs: A, C, G, T and N only. U is written as T, and the other IUPAC codes\n"
      "(R, Y, S, W, K, M, B, D, H, V) as N, how many of each said on stderr; any other byte, and two\n"
      "records of one name, are refused. Every trawl command reads the file as that FASTA (same names,\n"
      "coordinates and output), and so do UCSC's tools.");
  cmd->add_option("input", a->input, "FASTA/FASTQ file (gzip, zstd; '-' = stdin)")->required();
  cmd->add_option("-o,--output", a->output, "the .2bit file (default: the input's name with .2bit for .fa/.fasta/...)");
  cmd->callback([a, &state] { state.exit_code = run_pack(*a); });
}

}  // namespace trawl::cli
