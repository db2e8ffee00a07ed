// trawl/io.hpp — the input layer: files, stdin and gzip as bytes; FASTA/FASTQ as records.
//
// Regular files are memory-mapped (64-bit offsets; files over 4 GiB work). Pipes and stdin
// are read into memory. Gzip input (detected by its magic bytes) is decompressed with zlib.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trawl::io {

/// The bytes of one input, owned (mapped or in memory). Move-only.
class input_buffer {
 public:
  /// Opens `path` ("-" = standard input). Throws trawl::error(io_error) if it is missing, a
  /// directory or unreadable, trawl::error(bad_format) on corrupt gzip data.
  static input_buffer open(const std::string& path);
  /// Wraps bytes already in memory (for tests and library users).
  static input_buffer from_string(std::string bytes, std::string name = "-");

  input_buffer();
  ~input_buffer();
  input_buffer(input_buffer&&) noexcept;
  input_buffer& operator=(input_buffer&&) noexcept;

  [[nodiscard]] std::string_view bytes() const noexcept;
  [[nodiscard]] const std::string& name() const noexcept;
  [[nodiscard]] bool is_mapped() const noexcept;
  [[nodiscard]] bool was_gzip() const noexcept;

  struct impl;

 private:
  std::unique_ptr<impl> impl_;
};

/// Makes a file that shrinks while mapped readable as zero bytes instead of killing the
/// process with SIGBUS, and records that it happened (see sigbus_seen()). Installs a
/// process-wide SIGBUS handler, so it is only called by applications, once, at start-up.
void install_sigbus_guard();
/// True once a guarded SIGBUS has happened: results computed since may rest on zeros.
bool sigbus_seen() noexcept;

enum class format { automatic, plain, fasta, fastq };

/// Guesses the format from the content: '>' first → FASTA, '@' first with a '+' line third →
/// FASTQ, otherwise plain.
format detect_format(std::string_view bytes);

/// One searchable sequence: a FASTA/FASTQ record with its line breaks removed, or a whole
/// plain input (named after the input).
struct record {
  std::string_view name;      ///< record id (header up to the first blank), or the input name
  std::string_view sequence;  ///< valid until the next call of next()
  std::uint64_t index = 0;    ///< 0-based record number within the input
};

/// Iterates the records of an input. For plain inputs there is exactly one record.
class record_reader {
 public:
  record_reader(std::string_view bytes, format fmt, std::string input_name);
  /// Fills `r` with the next record; false at the end. Throws trawl::error(bad_format) on a
  /// malformed FASTQ record.
  bool next(record& r);
  [[nodiscard]] format detected() const noexcept { return fmt_; }

 private:
  std::string_view bytes_;
  format fmt_;
  std::string input_name_;
  std::size_t pos_ = 0;
  std::uint64_t count_ = 0;
  bool done_ = false;
  std::string seq_buf_;
};

}  // namespace trawl::io
