// trawl/io.hpp — the input layer: files, pipes, gzip and zstd as byte streams or mapped bytes;
// FASTA/FASTQ as records, parsed from memory or from a stream.
//
// Regular uncompressed files are memory-mapped (64-bit offsets; files over 4 GiB work).
// Everything else (pipes, stdin, files that cannot be mapped, gzip and zstd, detected from
// their first bytes) is read as a stream in pieces, so memory does not grow with the input.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace trawl::io {

/// Which library inflates gzip input: ISA-L's igzip when trawl was built with it (automatic),
/// or zlib.
enum class inflater { automatic, zlib, isal };

/// The compression of an input, as detected from its first bytes: a UCSC .2bit genome counts
/// as one, read as the FASTA text of the same genome.
enum class compression { none, gzip, zstd, twobit };

/// True when trawl was built with ISA-L (inflater::isal is available).
bool have_isal() noexcept;

/// A sequential stream of bytes: a pipe, a file read in pieces, or a decompressor over one.
class byte_stream {
 public:
  virtual ~byte_stream() = default;
  /// Reads up to n > 0 bytes into buf and returns how many: 0 at the end of the stream, -1
  /// when timeout_ms (>= 0) passed with no byte to return (timeout_ms < 0: wait for bytes).
  /// Throws trawl::error: io_error on a read error, bad_format on corrupt or truncated
  /// compressed data.
  virtual std::ptrdiff_t read(char* buf, std::size_t n, int timeout_ms) = 0;
};

/// A byte stream over a file descriptor (not owned); reads wait with poll().
std::unique_ptr<byte_stream> fd_stream(int fd, std::string name);
/// A byte stream over bytes in memory (not owned), handed out `piece` bytes at a time at most
/// (0: all at once); tests feed inputs 1..N bytes at a time with it.
std::unique_ptr<byte_stream> memory_stream(std::string_view bytes, std::size_t piece = 0);
/// Decompressing streams over `inner`: gzip (concatenated members, BGZF) and zstd (concatenated
/// frames). `name` is used in error messages.
std::unique_ptr<byte_stream> gzip_stream(std::unique_ptr<byte_stream> inner, std::string name,
                                         inflater which = inflater::automatic);
std::unique_ptr<byte_stream> zstd_stream(std::unique_ptr<byte_stream> inner, std::string name);
/// True when `head` begins with a .2bit file's signature (in either byte order).
bool is_twobit(std::string_view head) noexcept;
/// The FASTA text of the UCSC .2bit file `bytes` (version 0 or 1; not copied: they must outlive
/// the stream): its sequences in file order, named as in its index, in lines of 60 bases, N
/// blocks as N and soft-masked blocks in lower case. Throws trawl::error(bad_format) naming
/// `name` when the file is not a valid .2bit (every count, offset and block is checked first:
/// a block past its sequence's end, or two N or two mask blocks that overlap, are refused).
std::unique_ptr<byte_stream> twobit_stream(std::string_view bytes, std::string name);

/// The sequences of a UCSC .2bit file, for reading straight into memory: its index read and
/// checked as twobit_stream does (`bytes` are not copied; they must outlive it), each sequence
/// decoded on all cores.
class twobit_file {
 public:
  twobit_file(std::string_view bytes, const std::string& name);
  ~twobit_file();
  twobit_file(twobit_file&&) noexcept;
  twobit_file& operator=(twobit_file&&) noexcept;

  /// How many sequences it holds, and each one's name (up to a blank, as the record of its
  /// FASTA text is named) and length in bases, in file order.
  [[nodiscard]] std::size_t size() const noexcept;
  [[nodiscard]] std::string_view name(std::size_t i) const;
  [[nodiscard]] std::uint64_t length(std::size_t i) const;
  /// Sequence i's whole name, as the header line of its FASTA text reads (after the '>').
  [[nodiscard]] std::string_view header(std::size_t i) const;
  /// Sequence i's length(i) bases into out, as twobit_stream writes them (N blocks as N,
  /// soft-masked blocks in lower case), without line breaks (its blocks were checked when the
  /// file was opened).
  void decode(std::size_t i, char* out) const;
  /// Its bases [from, from + n) into out, as decode(i, out) writes them; throws
  /// trawl::error(invalid_argument) for a range past its end. Ranges of one long sequence
  /// decoded one after another (no other sequence between) read its block lists once.
  void decode(std::size_t i, std::uint64_t from, std::uint64_t n, char* out) const;
  /// Reads the block lists of every sequence over 256 Ki bases or of more than a few blocks
  /// now and keeps them (16 bytes a block): then decodes of ranges of many sequences at once,
  /// from many threads, read none (another sequence's are read with each decode, as always).
  /// Throws as decode for a damaged sequence; not to be called while decodes run.
  void keep_blocks();
  /// The host memory keep_blocks holds.
  [[nodiscard]] std::uint64_t kept_bytes() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// What an input holds: FASTA or FASTQ records, or plain bytes (automatic: decided by the
/// file's name or content, format_of_name and detect_format).
enum class format { automatic, plain, fasta, fastq };

/// Options of source::open.
struct open_options {
  std::string name;  ///< the input's name in records and messages (empty: the path)
  inflater gzip = inflater::automatic;
  bool map = true;  ///< map regular uncompressed files (false: read them as a stream)
};

/// One input opened for searching: the bytes of a mapped regular file, or a stream (pipes,
/// stdin, unmappable files, any compressed input, which is decompressed as it is read).
/// Move-only.
class source {
 public:
  /// Opens `path` ("-" = standard input). Throws trawl::error(io_error) if it is missing, a
  /// directory or unreadable, and trawl::error(bad_format) if its name ends in .2bit (perhaps
  /// then .gz, .bgz or .zst) and it is not a .2bit file. A compressed .2bit is decompressed
  /// whole and read as the .2bit (twobit()).
  static source open(const std::string& path, const open_options& options = {});
  /// A source over `stream` (compression detected from its first bytes), named `name`.
  static source from_stream(std::unique_ptr<byte_stream> stream, std::string name,
                            const open_options& options = {});
  /// A source over bytes in memory (not copied; they must outlive the source), named `name`:
  /// searched in place like a mapped file, or decompressed as a stream when they are gzip or
  /// zstd.
  static source from_memory(std::string_view bytes, std::string name, const open_options& options = {});

  source();
  ~source();
  source(source&&) noexcept;
  source& operator=(source&&) noexcept;

  [[nodiscard]] const std::string& name() const noexcept;
  /// The format its file's name says (format_of_name of the path open() was given);
  /// automatic for standard input, streams and memory.
  [[nodiscard]] format named_format() const noexcept;
  /// The whole input when it is a mapped, uncompressed regular file; otherwise stream() reads it.
  [[nodiscard]] bool is_mapped() const noexcept;
  [[nodiscard]] std::string_view mapped() const noexcept;
  [[nodiscard]] byte_stream& stream();
  [[nodiscard]] compression compressed() const noexcept;
  /// The .2bit file's own bytes when the input is one (stream() reads its FASTA text); empty
  /// otherwise.
  [[nodiscard]] std::string_view twobit() const noexcept;
  /// About how many bytes the input holds: the mapped size, about 4x the file's size for a
  /// compressed regular file (text and DNA compress 3-5x), 0 when unknown (pipes).
  [[nodiscard]] std::uint64_t expected_size() const noexcept;

 private:
  static source open_any(const std::string& path, const open_options& options);
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// Reads a whole stream into memory (for the commands that need their input whole).
std::string read_all(byte_stream& in);

/// Writes `bytes` to the file `path` whole or not at all: to a temporary file in the same
/// folder, synced, then renamed over `path` (and the folder synced), so that a failed or
/// interrupted write (a full disk, a signal) leaves the file that was there as it was. The new
/// file takes the old one's permission bits, or 0644 less the umask. Throws
/// trawl::error(io_error) naming `path`; the temporary file is removed on failure.
void write_file_atomically(const std::string& path, std::string_view bytes);

/// True when `a` and `b` name the same existing file (the same device and inode), as when an
/// output would overwrite an input.
bool same_file(const std::string& a, const std::string& b) noexcept;

/// The bytes of one input, whole: mapped, or read (and decompressed) into memory. For the
/// commands that need the whole text (best, index build); searches stream (trawl/stream.hpp).
/// Move-only.
class input_buffer {
 public:
  /// Opens `path` ("-" = standard input). Throws trawl::error(io_error) if it is missing, a
  /// directory or unreadable, trawl::error(bad_format) on corrupt gzip or zstd data. With
  /// `one_text` its bytes are to be read as one text, so a .2bit file (whose records, not its
  /// FASTA text, are the genome) is refused with trawl::error(invalid_argument), before it is
  /// decoded.
  static input_buffer open(const std::string& path, bool one_text = false);
  /// Wraps bytes already in memory (for tests and library users).
  static input_buffer from_string(std::string bytes, std::string name = "-");

  input_buffer();
  ~input_buffer();
  input_buffer(input_buffer&&) noexcept;
  input_buffer& operator=(input_buffer&&) noexcept;

  [[nodiscard]] std::string_view bytes() const noexcept;
  [[nodiscard]] const std::string& name() const noexcept;
  [[nodiscard]] bool is_mapped() const noexcept;
  [[nodiscard]] bool was_compressed() const noexcept;
  /// The format its name says, as source::named_format (fasta for a .2bit, from a pipe too).
  [[nodiscard]] format named_format() const noexcept;

 private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

/// The format a file's content shows, by a rule a user can predict: FASTA when it begins (past
/// a byte order mark and blank lines) with a '>' header line followed by a line of sequence
/// letters (A-Z, a-z, '*' and '-': IUPAC nucleotide and amino-acid codes, gaps, stops);
/// FASTQ when it begins with a whole record ('@' header, lines of sequence letters or an empty
/// read, '+' line, quality lines as long as the sequence: one line each, or several as the
/// Sanger format allows); otherwise plain text. So a text file that merely
/// starts with '>' (a quoted mail, a Markdown note) is plain text.
format detect_format(std::string_view bytes);

/// The format a file's name says: fasta for .fa .fasta .fna .ffn .faa .frn and .2bit (whose
/// FASTA text it is read as, even where its first record is empty), fastq for .fq .fastq (each
/// also with .gz, .bgz or .zst after it, any case); automatic otherwise (the content decides,
/// detect_format).
format format_of_name(std::string_view path);

/// One searchable sequence: a FASTA/FASTQ record with its line breaks removed, or a whole
/// plain input (named after the input).
struct record {
  std::string_view name;      ///< record id (header up to the first blank), or the input name
  std::string_view sequence;  ///< valid until the next call of next()
  std::uint64_t index = 0;    ///< 0-based record number within the input
};

/// Receives what a record_parser finds, in input order.
class record_handler {
 public:
  virtual ~record_handler() = default;
  /// A record begins: its id (FASTA/FASTQ), or the input's name (plain input).
  virtual void begin_record(std::string_view name) = 0;
  /// Just before begin_record of a FASTA/FASTQ record: its whole header line (after '>' or
  /// '@', without its line break) and, for FASTQ, its qualities (empty for FASTA, and unless
  /// record_parser::keep_qualities). By default ignored.
  virtual void heads(std::string_view header, std::string_view quality) { (void)header, (void)quality; }
  /// The next bytes of the current record's sequence (line breaks removed).
  virtual void sequence(std::string_view bytes) = 0;
  virtual void end_record() = 0;
};

/// Parses records from an input handed over in pieces of any size (1 byte and up): the same
/// records, names and sequences as record_reader over the whole input. Memory: the longest
/// header line plus, for FASTQ, the current record's sequence (and qualities, when kept).
class record_parser {
 public:
  /// `fmt` automatic: detected from the first bytes (as detect_format, deciding once enough
  /// bytes are seen: at most three lines).
  record_parser(format fmt, std::string input_name, record_handler& out);
  /// The next piece of the input. Throws trawl::error(bad_format) on a malformed record.
  void feed(std::string_view bytes);
  /// The input ended: completes the last record (an empty plain input is one empty record).
  void finish();
  [[nodiscard]] format detected() const noexcept { return fmt_; }
  /// True inside a record: for a plain input, once its first byte came (every later byte is
  /// the record's sequence, so a caller may take it without feed()).
  [[nodiscard]] bool in_record() const noexcept { return in_record_; }
  /// Keep each FASTQ record's qualities for record_handler::heads (default: skipped).
  void keep_qualities(bool keep) noexcept { keep_qualities_ = keep; }

 private:
  void parse(std::string_view bytes);
  std::size_t gather_lines(std::string_view bytes, std::size_t at);
  void fail(const std::string& what) const;
  void begin_fasta();  ///< the record whose header line is in line_ begins
  void begin_fastq();  ///< the record of header_, fastq_seq_ and fastq_qual_ begins
  format fmt_;
  std::string input_name_;
  record_handler& out_;
  std::string probe_;          ///< bytes held until the format is known
  std::string line_;           ///< a header line cut by a piece edge
  std::string header_;         ///< FASTQ: the current record's header
  std::string fastq_seq_;      ///< FASTQ: the current record's sequence until its quality line
  std::string fastq_qual_;     ///< FASTQ: its qualities, when kept
  std::size_t fastq_line_ = 0;  ///< FASTQ: where in fastq_seq_ its current sequence line began
  int state_ = 0;              ///< where in a record the parser is (records.cpp)
  bool in_record_ = false, bom_checked_ = false, keep_qualities_ = false;
  std::uint64_t count_ = 0;
  std::size_t qual_left_ = 0;
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

/// A .2bit file made by to_twobit: its bytes, how many bases it wrote as N that were IUPAC
/// codes other than N, and how many bases read back as another letter (those, and U as T).
struct twobit_image {
  std::string bytes;
  std::uint64_t replaced = 0;
  std::uint64_t changed = 0;
};

/// The UCSC .2bit file of the FASTA/FASTQ records in `bytes` (`fmt`: as record_reader takes
/// it), version 0, or 1 when its offsets pass 32 bits: names and soft-masking (lower case) kept,
/// runs of N as N blocks. .2bit holds A, C, G, T and N only: U is written as T (as UCSC reads
/// it), and the IUPAC codes R, Y, S, W, K, M, B, D, H and V (any case) as N (`replaced` counts
/// them). Throws trawl::error(invalid_argument) naming `name` on plain text, a name of more
/// than 255 bytes, two records of one name, a record over 4 Gbases, or any other byte in a
/// sequence. A FASTA is parsed and encoded in pieces on all cores; a FASTQ's long sequences
/// are encoded on all cores.
twobit_image to_twobit(std::string_view bytes, format fmt, const std::string& name);

}  // namespace trawl::io
