// trawl/genome.hpp — a genome read once and kept for many searches.
//
// A genome is the records of a FASTA, FASTQ or .2bit file (any of them gzip- or
// zstd-compressed; plain text is one record named as the input), their sequences read once
// into one buffer. Its searches run on those bytes with no further reading or parsing, and
// give what the same search of the file gives (search_input over it, offtarget::searcher's
// search of it), record by record. With a GPU in its device, the buffer is copied once to
// each GPU listed and kept there (gpu::keep_resident; DNA two bits a base): a GPU search then
// moves no text.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/device.hpp"
#include "trawl/index.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"

namespace trawl {

class genome {
 public:
  /// Reads `path` ("-": standard input). `device`: where its searches may run; a GPU device
  /// (or automatic, when a GPU is present) keeps the sequences on those GPUs. Throws
  /// trawl::error: io_error, bad_format (corrupt compression, bad FASTQ), no_device for a GPU
  /// device without a GPU, gpu_error when the device memory is short.
  static genome open(const std::string& path, const device_spec& device = {});
  /// The same from bytes in memory (copied), named `name`.
  static genome from_bytes(std::string_view bytes, const std::string& name, const device_spec& device = {});

  genome();
  ~genome();
  genome(genome&&) noexcept;
  genome& operator=(genome&&) noexcept;

  [[nodiscard]] const std::string& name() const noexcept;
  /// The input's format: fasta, fastq or plain (a .2bit file reads as FASTA).
  [[nodiscard]] io::format format() const noexcept;
  /// The records: names, and each sequence's place (start) and length in the buffer.
  [[nodiscard]] std::span<const index::record_span> records() const noexcept;
  [[nodiscard]] std::string_view sequence(std::uint32_t record) const;
  /// Total sequence bytes.
  [[nodiscard]] std::uint64_t bases() const noexcept;
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

 private:
  struct impl;
  explicit genome(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace trawl
