// trawl/index.hpp — the compressed Hybrid Index: LZ77 + an FM-index over the text around
// phrase boundaries, with a load-balanced parallel locate.
//
// Ferrada, Gagie, Hirvola, Puglisi, "Hybrid indexes for repetitive datasets" (2014);
// Ferrada, Kempa, Puglisi, "Hybrid alignment" (ALENEX 2018); Letelier, "Parallel pattern
// matching in compressed space" (the serial and static locate engines).
//
// How it works, in one paragraph. The text S (n bytes) is parsed greedily into z LZ77 phrases
// (longest previous factor, or a literal byte seen for the first time). Phrases of length
// >= 2M (M = max_len) are *kept* as copies of their source; the bytes of all other phrases
// are literal. S'' holds the literal bytes and the text within M-1 bytes of every kept phrase
// start (overlapping windows merged into segments, each text byte at most once); an FM-index
// over S'' finds the *primary* occurrences of a pattern (those not inside one kept phrase).
// Every other (*secondary*) occurrence lies inside a kept phrase and is found from an earlier
// one by the Kärkkäinen–Ukkonen recursion over the kept sources (sorted starts + a range
// maximum over their ends). Patterns longer than M are cut into M-byte windows; each
// window's hits that are primary for the whole pattern are verified against the text
// (extract) and deduplicated, so the answer stays exact for every length.
//
// Complexity: build O(n) time after suffix sorting (libdivsufsort, O(n log n) worst case);
// peak memory: the text, plus the exact parse of its first build_options::lz_reference bytes
// (12-16 bytes per byte), then the FM-index's section, made from the suffix array of S''
// (about 6.5 bytes per S'' byte). locate: O(m·log σ + hits_S''·s_SA + occ·(t_rmq + log z)).
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/gpu.hpp"
#include "trawl/io.hpp"
#include "trawl/hit.hpp"
#include "trawl/search.hpp"

namespace trawl::index {

namespace detail {
struct index_access;  // trawl/detail/testing.hpp
struct index_impl;    // the index's data (src/index/index_impl.hpp)
}

/// Which locate engine runs the secondary-occurrence recursion.
enum class locate_engine {
  serial,         ///< Letelier's sequential algorithm (Algorithms 1–2), one thread
  static_chunks,  ///< Letelier's parallel algorithm (Algorithms 3–4): primaries cut in equal chunks
  balanced,       ///< default: oneTBB work stealing over primaries and recursion branches
};
/// "serial", "static" or "balanced" as a locate_engine (the CLI's spelling); invalid_argument
/// for another name.
locate_engine locate_engine_named(std::string_view name);

/// Reported while an index is built: `stage` names the step, `done`/`total` its progress. The
/// suffix sorts ("suffix array", "count index", "fm-index") of large texts report an estimate
/// at intervals (the share of their expected time gone by), since the sort itself reports none.
using progress_callback = std::function<void(std::string_view stage, std::uint64_t done, std::uint64_t total)>;

/// How the FM-index over S'' trades size for primary-locate speed: text-order suffix-array
/// samples every 16 or every 32 positions of S''. The file holds the BWT (zstd) and the
/// samples; a query's structure adds about 1.15 (H0 + 1) bits per S'' byte in memory.
enum class fm_profile {
  fast,   ///< SA sampled every 16: an LF walk of at most 15 steps per located row
  small,  ///< SA sampled every 32 (half the samples, walks twice as long); with M = 16 the
          ///< profile for repetitive text (`trawl index build --small`)
};

/// build_options::count_index.
enum class count_structure { automatic, on, off };
/// "auto", "on" or "off" as a count_structure (the CLI's and Python's spelling); invalid_argument
/// for another name.
count_structure count_structure_named(std::string_view name);

struct build_options {
  /// M: every substring of length <= M that crosses a phrase boundary is kept in S''.
  /// Patterns up to M bytes are answered from S'' directly; longer ones through windows +
  /// verification. 1 <= max_len <= 4096.
  std::uint32_t max_len = 32;
  /// Read FASTA/FASTQ input (trawl::io::detect_format) as records: sequences concatenated,
  /// names and offsets kept. build() only.
  bool detect_fasta = true;
  fm_profile profile = fm_profile::fast;
  /// Bytes of the input parsed by exact greedy LZ77 (a suffix array of them: 12 bytes per
  /// byte at the parse's peak); the rest is parsed relative to them: each phrase the longer of
  /// the longest match in them and a copy of earlier text at the same place of the reference
  /// (co-linear sources: a collection of genomes loses little against the exact parse; text
  /// that repeats itself but not the reference still parses into more phrases). 0: automatic,
  /// the whole input while its parse stays within 1 GiB (inputs up to 89 MB), else the first
  /// 64 MiB (16 bytes per reference byte).
  std::uint64_t lz_reference = 0;
  /// Whether the index holds the whole text's run-length BWT, with which count takes O(m)
  /// rank queries whatever the number of occurrences (without it, count visits the
  /// occurrences or runs a program over the parse). Its size grows with the BWT's runs: small on
  /// repetitive text, large on text that does not repeat. automatic: for the fast profile, when
  /// the text's suffix array (4 bytes a byte) fits in 1 GiB; on: always (a suffix array of 4
  /// bytes a byte, 8 from 2 GiB on, at the build's peak); off: never.
  count_structure count_index = count_structure::automatic;
  /// Keep S'' in the file as text too (zstd-compressed): the
  /// approximate search through the index reads it instead of decoding it from the BWT (one
  /// random access per byte of S'').
  bool kernel_text = false;
  /// Use 64-bit suffix-array positions even for small texts (tests the large-text path).
  bool force_64bit = false;
  /// Called from the building thread; never printed by the library. May be empty.
  progress_callback progress;
};

struct locate_options {
  locate_engine engine = locate_engine::balanced;
  unsigned threads = 0;  ///< 0 = all cores (oneTBB default); serial ignores it
  /// The processes that share count_records and search_records, the patterns dealt out over
  /// them (distributed.hpp); null: this one alone
  const distributed::group* processes = nullptr;
  /// for_each_record_hit: bytes of located occurrences (and their sort's scratch) held in
  /// memory; more are sorted in runs through a temporary file in $TMPDIR (else /tmp)
  std::size_t sort_memory = std::size_t{64} << 20;
};

/// One FASTA record (or the whole plain input) inside the indexed text.
struct record_span {
  std::string name;
  std::uint64_t start = 0;   ///< offset of the record's first byte in the concatenated text
  std::uint64_t length = 0;
};

/// A hit of search_records(): `record` indexes records(); hit coordinates are record-relative.
struct record_hit {
  std::uint32_t record = 0;
  trawl::hit h;
  friend bool operator==(const record_hit& a, const record_hit& b) { return a.record == b.record && a.h == b.h; }
};

/// The order of record_hits: by record, then the hit order (hit.hpp) within a record.
struct record_hit_order {
  hit_order within;
  constexpr bool operator()(const record_hit& a, const record_hit& b) const noexcept {
    return a.record != b.record ? a.record < b.record : within(a.h, b.h);
  }
};

/// Sizes and shape, for `trawl index info`.
struct index_info {
  std::uint64_t n = 0;             ///< text length
  std::uint64_t z = 0;             ///< LZ77 phrases
  std::uint64_t kept = 0;          ///< phrases kept as copies (length >= 2M); the rest are literal
  std::uint64_t literal_bytes = 0; ///< bytes outside kept phrases (all of them lie in S'')
  std::uint32_t max_len = 0;       ///< M
  std::uint64_t s2_length = 0;     ///< |S''|
  std::uint64_t segments = 0;      ///< merged windows in S''
  std::uint32_t sigma = 0;         ///< distinct bytes
  std::uint64_t bwt_runs = 0;      ///< runs of the count index's BWT (build_options::count_index); 0: none
  std::vector<std::pair<std::string, std::uint64_t>> part_bytes;  ///< serialized size of each part
  std::uint64_t total_bytes = 0;
  [[nodiscard]] double bits_per_char() const { return n ? 8.0 * static_cast<double>(total_bytes) / static_cast<double>(n) : 0.0; }
};

/// The Hybrid Index. Immutable after build/load; every const member is safe to call from
/// several threads at once. Move-only.
class hybrid_index {
 public:
  /// Indexes `bytes`. With options.detect_fasta, FASTA/FASTQ input (as the name
  /// `source_name` says, io::format_of_name, else as the content shows) is read with
  /// trawl::io::record_reader (line breaks removed, record names + offsets kept); otherwise
  /// the bytes are the text (one record named `source_name`).
  /// Throws trawl::error(invalid_argument) for a bad max_len, bad_format for bad FASTQ.
  static hybrid_index build(std::string_view bytes, std::string source_name = "-", const build_options& options = {});
  /// FASTA/FASTQ `bytes` (`named`: the format the file's name says, io::format_of_name; else
  /// the content decides, io::detect_format) as build() reads them: the records'
  /// sequences appended to `text`, their spans to `records`. False (nothing appended) for
  /// plain text. With build_records, a caller can free the input's bytes before the build.
  static bool read_records(std::string_view bytes, const std::string& source_name, std::string& text,
                           std::vector<record_span>& records, io::format named = io::format::automatic);
  /// Indexes an already concatenated text with explicit records (offsets must tile the text).
  static hybrid_index build_records(std::string text, std::vector<record_span> records, std::string source_name,
                                    const build_options& options = {});

  /// Reads an index file. A regular file is kept open (one descriptor while the index lives)
  /// and read a part at a time, when a query first needs it: the header, section table and
  /// records now; the phrases and FM-index (for locate, extract, search, and count without a
  /// count index or over several records) and the count index later. So a process that only
  /// counts in a one-record index never holds the rest, and a file saved over this one by name
  /// leaves it answering. Anything else (standard input "-", a pipe, a compressed file) is read
  /// whole now. Each part is checked (magic, version, section sizes, its CRC-32, then its
  /// contents) before anything reads it. Throws trawl::error(io_error) if unreadable,
  /// trawl::error(bad_format) for a truncated, corrupted, foreign or newer-version file; a
  /// query throws the same, naming the file, when the part it reads is corrupt or the file was
  /// changed in place since the load.
  static hybrid_index load(const std::string& path);
  /// Reads an index from its file's bytes, whole and checked as load() checks a file.
  static hybrid_index from_bytes(std::string_view file_bytes);
  /// Writes the index (versioned binary format, see src/index/format.cpp). Throws io_error.
  void save(const std::string& path) const;
  [[nodiscard]] std::string to_bytes() const;

  hybrid_index();
  ~hybrid_index();
  hybrid_index(hybrid_index&&) noexcept;
  hybrid_index& operator=(hybrid_index&&) noexcept;

  [[nodiscard]] std::uint64_t size() const noexcept;  ///< n
  [[nodiscard]] std::uint32_t max_len() const noexcept;
  [[nodiscard]] const std::string& source_name() const noexcept;
  [[nodiscard]] std::span<const record_span> records() const noexcept;
  /// The record holding text offset `pos` (pos < size()).
  [[nodiscard]] std::uint32_t record_of(std::uint64_t pos) const;

  /// Every start of `pattern` in the concatenated text, sorted ascending; identical for every
  /// engine and thread count. An empty pattern has no occurrence.
  [[nodiscard]] std::vector<std::uint64_t> locate(std::string_view pattern, const locate_options& options = {}) const;
  /// Number of occurrences (== locate(pattern).size()), without listing them: large answers
  /// cost time in the number of kept phrases, not occurrences.
  [[nodiscard]] std::uint64_t count(std::string_view pattern, const locate_options& options = {}) const;
  /// For each pattern, the number of its occurrences inside one record each (the size of its
  /// share of search_records(patterns)). For `trawl index count`.
  [[nodiscard]] std::vector<std::uint64_t> count_records(const std::vector<std::string>& patterns,
                                                         const locate_options& options = {}) const;
  /// S[start, start+len), clipped to the text. Throws invalid_argument if start > size().
  [[nodiscard]] std::string extract(std::uint64_t start, std::uint64_t len) const;
  /// The record named `name` (the first, when several share it). Throws invalid_argument when
  /// none is.
  [[nodiscard]] std::uint32_t record_named(std::string_view name) const;
  /// Bytes [start, end) of record `record`, in record coordinates (as search_records reports
  /// hits). Throws invalid_argument unless record < records().size() and start <= end <= its
  /// length.
  [[nodiscard]] std::string extract_record(std::uint32_t record, std::uint64_t start, std::uint64_t end) const;

  /// locate for each pattern (the same lists). With the balanced engine the patterns are
  /// spread over the threads, and a pattern with a large answer shares its work too.
  [[nodiscard]] std::vector<std::vector<std::uint64_t>> locate_many(const std::vector<std::string>& patterns,
                                                                    const locate_options& options = {}) const;
  /// All occurrences of all patterns inside one record each (hits crossing a record boundary
  /// are dropped), sorted by (record, start, pattern); hit coordinates are record-relative,
  /// half-open, errors = 0, strand forward. For `trawl search --index` and `trawl index locate`.
  [[nodiscard]] std::vector<record_hit> search_records(const std::vector<std::string>& patterns,
                                                       const locate_options& options = {}) const;
  /// search_records(patterns, options) handed over in batches, in the same order, in bounded
  /// memory: the occurrences are sorted in options.sort_memory, in runs through a temporary
  /// file when they need more (an external merge sort, the sorted keys' differences as
  /// LEB128 varints on disk). `on_hits` gets each batch and returns false to stop. Returns the hits
  /// handed over. Throws trawl::error(io_error) when the temporary file fails.
  std::uint64_t for_each_record_hit(const std::vector<std::string>& patterns, const locate_options& options,
                                    const std::function<bool(std::span<const record_hit>)>& on_hits) const;
  /// An exact search through the index (no max_errors, all_ends, ignore_case or iupac; else
  /// invalid_argument) handed over in batches: the hits of search_records(patterns, search) in
  /// its order, in bounded memory (for_each_record_hit). `on_hits` returns false
  /// to stop. Returns the hits handed over.
  std::uint64_t for_each_search_hit(const std::vector<std::string>& patterns, const search_options& search,
                                    const std::function<bool(std::span<const record_hit>)>& on_hits) const;
  /// Search through the index with the search options of search.hpp: every hit of `patterns`
  /// inside one record, exactly as trawl::search over that record reports it (approx.hpp: the
  /// same ends, clusters, starts and errors), in record coordinates, sorted by record, then as
  /// a search orders hits (start for exact search, end for approximate search), pattern, strand.
  /// Honours max_errors, hamming, ignore_case, iupac, both_strands, all_ends, starts,
  /// approx, threads and device (the scan of the kernel on the GPUs of device.workers(), one
  /// share of the kernel each, when choose_device says so for its length; `gpu`: the GPU
  /// search's knobs); whole_words and whole_lines
  /// are refused (invalid_argument).
  /// When every pattern has k < m and m + k <= max_len() (m for hamming), the engines scan
  /// S'' alone and the Kärkkäinen–Ukkonen recursion copies the ends they find into the kept
  /// phrases; otherwise every record is extracted and searched. Exact search without
  /// ignore_case or iupac is locate's. `ran_on`, when given, is set to where the scan of the
  /// kernel ran: the GPUs of device.workers(), or the CPU (also when no kernel was scanned).
  [[nodiscard]] std::vector<record_hit> search_records(const std::vector<std::string>& patterns,
                                                       const search_options& search,
                                                       const gpu::gpu_options& gpu = {},
                                                       device_spec* ran_on = nullptr) const;

  [[nodiscard]] index_info info() const;

  /// A full self-check, for index files from elsewhere. Decodes S'' from the FM-index by one
  /// LF walk over every row (which must be a single cycle, with every suffix-array sample
  /// right), rebuilds the text from S'' and the kept phrases, checks that every kept phrase is
  /// a copy of its source and that extract() gives that text. With `source`, the text must also
  /// equal it, read as build() reads it (FASTA/FASTQ: the records' sequences concatenated).
  /// Returns "" when everything holds, else one line saying what does not. Time
  /// O(n + |S''|·log σ), memory n bytes (the text, held once; extract is compared with it a
  /// MiB at a time). The file's checksums catch accidental damage; this catches a file that is
  /// inconsistent however it was made, so that its answers can be trusted.
  /// An index with a count index (build_options::count_index) has it compared with the runs of
  /// the rebuilt text's BWT (a suffix array of it: 4 more bytes a byte, 8 from 2 GiB on).
  [[nodiscard]] std::string verify(std::optional<std::string_view> source = std::nullopt) const;

 private:
  using impl = detail::index_impl;
  friend struct detail::index_access;
  explicit hybrid_index(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace trawl::index
