// twobit_encode.hpp — a .2bit file written from sequences in any form (io::to_twobit's core):
// from a FASTA/FASTQ text, or from the records of a genome held in memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
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

/// A .2bit file written from sequences whose bases come in spans (a FASTA parsed in pieces):
/// each sequence begun in order, then its bases given in spans, in order, each encoded where it
/// lies, many at once on all cores, into one arena of `room` bytes (its pages touched as they
/// are written): room for a quarter byte a base and up to 3/4 of a byte more a sequence. Throws
/// as to_twobit, naming `name`; std::logic_error past the room, or for bases of a sequence
/// given after bases of a later one.
class twobit_builder {
 public:
  /// The next bases of sequence `seq` (numbered from 0 as begun).
  struct span {
    std::size_t seq = 0;
    std::string_view bases;
  };

  twobit_builder(std::string name, std::size_t room);
  ~twobit_builder();
  twobit_builder(const twobit_builder&) = delete;
  twobit_builder& operator=(const twobit_builder&) = delete;

  /// Sequence `name` begins; it is number sequences() - 1. Its name is checked with its bases
  /// (or at finish()), in order.
  void begin(std::string_view name);
  [[nodiscard]] std::size_t sequences() const noexcept;
  /// Spans in order: each continues its sequence, which no later sequence's bases precede.
  void add(std::span<const span> spans);
  /// Bases that read back as another letter (U, IUPAC codes but N), so far.
  [[nodiscard]] std::uint64_t changed() const noexcept;
  /// The file of the sequences begun.
  twobit_image finish();

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The .2bit file of a FASTA input that starts with a header line, parsed and encoded on all
/// cores (parse_fasta_windows into a twobit_builder), as to_twobit writes it; with `exact`,
/// none (and the encoding stops) once a base would read back as another letter.
std::optional<twobit_image> encode_fasta(std::string_view bytes, const std::string& name, bool exact);

}  // namespace trawl::io::detail
