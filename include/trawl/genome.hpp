// trawl/genome.hpp — a genome read once and kept for many searches.
//
// A genome is the records of a FASTA, FASTQ or .2bit file (any of them gzip- or
// zstd-compressed; plain text is one record named as the input), read once. Its searches give
// what the same search of the file gives (search_input over it, offtarget::searcher's search
// of it), record by record, with no further reading or parsing of the file.
//
// How it is kept: DNA whose every base .2bit holds as it is (A, C, G, T and N, in either case;
// names of 1 to 255 bytes without a control character, records under 4 Gbases) is kept two
// bits a base in host memory, as a .2bit image (of a .2bit file, its own bytes, every block
// checked when it is read). With a GPU in its device, the sequences are also copied once to
// each GPU listed and kept there (gpu::keep_resident; DNA two bits a base): a search on those
// GPUs moves no text, and for a genome kept as an image reads from host memory only the bytes
// around its hits, decoded from the image. Other searches decode the image as they go: records
// of 1 MiB and more on average as a search of a .2bit file decodes its chunks, shorter ones
// (reads, contigs) a window of whole records at a time, searched as one text. Other text (U,
// other IUPAC codes, protein, plain text) is kept as bytes, and a GPU keeps a copy of them.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/approx.hpp"
#include "trawl/device.hpp"
#include "trawl/index.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace trawl {

class genome {
 public:
  /// Reads `path` ("-": standard input). `device`: where its searches may run; a GPU device
  /// (or automatic, when a GPU is present) keeps the sequences on those GPUs. `pack`: keep DNA
  /// two bits a base in host memory where it can be (above); false: as bytes, which searches
  /// read with no decoding. Throws trawl::error: io_error, bad_format (corrupt
  /// compression, bad FASTQ, a damaged .2bit), no_device for a GPU device without a GPU,
  /// gpu_error when the device memory is short.
  static genome open(const std::string& path, const device_spec& device = {}, bool pack = true);
  /// The same from bytes in memory (copied), named `name`.
  static genome from_bytes(std::string_view bytes, const std::string& name, const device_spec& device = {},
                           bool pack = true);

  genome();
  ~genome();
  genome(genome&&) noexcept;
  genome& operator=(genome&&) noexcept;

  [[nodiscard]] const std::string& name() const noexcept;
  /// The input's format: fasta, fastq or plain (a .2bit file reads as FASTA).
  [[nodiscard]] io::format format() const noexcept;
  /// The records: names, and each sequence's place (start) and length, as in one buffer of
  /// the sequences, each followed by 256 NUL bytes (also when kept two bits a base).
  [[nodiscard]] std::span<const index::record_span> records() const noexcept;
  /// A record's sequence, whole or its bases [start, start + length): a copy (decoded, when
  /// kept two bits a base), so a view of it lives as long as the string. Throws
  /// trawl::error(invalid_argument) for a record or range past the end.
  [[nodiscard]] std::string sequence(std::uint32_t record) const;
  [[nodiscard]] std::string sequence(std::uint32_t record, std::uint64_t start, std::uint64_t length) const;
  /// Total sequence bytes.
  [[nodiscard]] std::uint64_t bases() const noexcept;
  /// True when the sequences are kept two bits a base in host memory (above).
  [[nodiscard]] bool packed() const noexcept;
  /// The host memory that holds the sequences: the .2bit image (and, for a genome kept on
  /// GPUs, the block lists kept for the reads around hits), or the bytes with their gaps.
  [[nodiscard]] std::uint64_t host_bytes() const noexcept;
  /// The GPUs that hold the sequences (none: the genome is kept in host memory only).
  [[nodiscard]] const std::vector<int>& resident_gpus() const noexcept;
  /// The device memory that holds the sequences on each of those GPUs (gpu::resident_bytes):
  /// for DNA of 64 KiB or more, two bits a base and the runs of other bytes; 0 in host memory
  /// only.
  [[nodiscard]] std::uint64_t resident_bytes() const noexcept;

  /// The hits of `patterns` in each record, in record coordinates, as a search of the file
  /// reports them: `on_hits` gets one record's hits at a time, records in order (records
  /// without a hit are skipped), each record's hits in search_sequence's order; it returns
  /// false to stop. options.device decides where it runs, as for a search of the file. Throws
  /// as search_sequence.
  void search(const std::vector<std::string>& patterns, const search_options& options,
              const text_hits_callback& on_hits) const;
  /// Convenience: every hit, as (record, hit), records in order.
  [[nodiscard]] std::vector<index::record_hit> search(const std::vector<std::string>& patterns,
                                                      const search_options& options = {}) const;
  /// The off-target sites of `guides` in every record, handed to `out` record by record as
  /// searcher.search of the file hands them (record_info.index: the record's number), on the
  /// device searcher.opts().device picks for each record.
  void offtarget(const offtarget::searcher& guides, offtarget::site_sink& out) const;

  /// best's answer: the least distance, and the substrings that reach it.
  struct best_answer {
    std::uint32_t distance = 0;
    /// Each optimal [start, end) in record coordinates, hit.errors the distance and hit.dir
    /// the strand of x that reaches it: records in order, in each the forward strand's then
    /// the reverse's, each by end then start.
    std::vector<index::record_hit> occurrences;
  };
  /// The best approximate substrings of `x` in the records, as `trawl best` of the file gives
  /// them: the least edit distance between x (with both_strands, also its reverse complement)
  /// and a substring of a record, and every substring of every record at that distance
  /// (options.every_start; else each optimal end's leftmost start). No record: distance |x|
  /// and none. options.device: where best_substring runs (a GPU reads each record from host
  /// memory). Throws as best_substring.
  [[nodiscard]] best_answer best(std::string_view x, const best_options& options = {}, bool both_strands = false) const;

 private:
  struct impl;
  explicit genome(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace trawl
