// twobit_encode.hpp — a .2bit file written from sequences in any form (io::to_twobit's core):
// from a FASTA/FASTQ text, or from the records of a genome held in memory.
#pragma once

#include <functional>
#include <span>
#include <string>
#include <string_view>

#include "trawl/io.hpp"

namespace trawl::io::detail {

/// Sets the next sequence's name and bases (they must stay valid until the next call) and
/// returns true, or returns false after the last.
using next_sequence = std::function<bool(std::string_view& name, std::string_view& bases)>;

/// The .2bit file of the sequences `next` gives, as to_twobit writes it and with its errors
/// (naming `name`).
twobit_image encode_twobit(const next_sequence& next, const std::string& name);

/// The same of sequences that all stay valid while it runs (a genome's records): many encoded
/// at once, on all cores. A throw is the first failing sequence's.
twobit_image encode_twobit(std::span<const std::string_view> names, std::span<const std::string_view> sequences,
                           const std::string& name);

}  // namespace trawl::io::detail
