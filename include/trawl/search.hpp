// trawl/search.hpp — multi-pattern search over a sequence, in parallel slices, in text order.
//
// This is the one place the library cuts text. A `matcher` (exact or approximate, CPU or GPU)
// scans a window of a sequence and reports the hits whose *key position* it owns; the driver
// cuts the sequence into slices of owned positions, extends each by the matcher's
// lookbehind/lookahead so no hit is lost or doubled at an edge, runs the slices on worker
// threads and hands the hits to the caller in text order, identical for every thread count
// and slice size.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/device.hpp"
#include "trawl/exact.hpp"
#include "trawl/hit.hpp"

namespace trawl {

namespace distributed {
class group;
}

namespace detail {
class engine;
struct engine_access;  // trawl/detail/engine.hpp: the library's way to a matcher's engine
}

/// A compiled pattern set, ready to search any sequence (search_sequence, search_input) from
/// several threads at once. Made by make_matcher (make_exact_matcher, ..., gpu::make_matcher);
/// its engine is the library's (trawl/detail/engine.hpp, not part of the API).
class matcher final {
 public:
  explicit matcher(std::unique_ptr<detail::engine> engine) noexcept;
  ~matcher();
  matcher(matcher&&) noexcept;
  matcher& operator=(matcher&&) noexcept;
  /// Where its scans run: cpu, or gpu with the GPU of each worker (gpu::make_matcher's).
  [[nodiscard]] device_spec device() const;

 private:
  friend struct detail::engine_access;
  std::unique_ptr<detail::engine> engine_;
};

/// The longest line (bytes, without its '\n') that search_options::regex searches; a longer
/// one is an error.
inline constexpr std::size_t regex_max_line = std::size_t{256} << 10;

/// The approximate search engine (search_options::approx; make_approx_matcher in approx.hpp
/// says what each does).
enum class approx_algorithm : std::uint8_t {
  automatic,      ///< per pattern: the seed, pigeonhole or suffix filter, the striped kernel, SIMD lanes or one-word Myers
  myers,          ///< the same as automatic
  dp,             ///< Sellers' DP (the reference)
  myers_word,     ///< one-word Myers (m <= 64)
  myers_blocked,  ///< blocked Myers
  myers_simd,     ///< SIMD lanes of (pattern, stripe) jobs (search_options::simd forces a level)
  myers_striped,  ///< one pattern over 64 text stripes (AVX-512BW or AVX2, m <= 32)
  myers_filter,   ///< the pigeonhole filter wherever it applies
  myers_suffix,   ///< the suffix filter wherever it applies (16 < m <= 64, AVX-512BW or AVX2)
  myers_seeds,    ///< the seed filter wherever it applies (m <= 64, at most four byte classes)
};

/// Parses "auto", "myers", "dp", "myers-word", "myers-blocked", "myers-simd", "myers-striped",
/// "myers-filter", "myers-suffix", "myers-seeds"; throws trawl::error(invalid_argument) on any other name.
approx_algorithm parse_approx_algorithm(std::string_view name);
/// The name parse_approx_algorithm reads.
std::string_view to_string(approx_algorithm a) noexcept;


/// What makes a pattern match a text (approx.hpp's rules: bytes, errors, strands): the part of
/// search_options that compiling a pattern, aligning it and printing a hit read.
struct match_rules {
  bool ignore_case = false;  ///< ASCII case-insensitive
  bool iupac = false;        ///< IUPAC codes in DNA patterns (N, R, Y, ...) match their base sets
  bool hamming = false;      ///< substitutions only
  bool both_strands = false; ///< the reverse complement of each pattern matches too
};

/// How a set of patterns is searched. Defaults are exact, forward strand, all cores.
struct search_options {
  // -- what counts as a hit --
  int max_errors = 0;          ///< k: edit distance bound (0 = exact search)
  bool hamming = false;        ///< substitutions only (k > 0)
  bool ignore_case = false;    ///< ASCII case-insensitive
  bool iupac = false;          ///< IUPAC codes in DNA patterns (N, R, Y, ...) match their base sets
  bool both_strands = false;   ///< also search the reverse complement of every pattern
  bool all_ends = false;       ///< approximate: report every end position, not one hit per cluster
  /// exact: only hits whose neighbouring bytes are not word bytes (letters, digits, '_', bytes
  /// >= 0x80) or the sequence's ends, as grep -w
  bool whole_words = false;
  /// exact: only hits that are a whole line (between '\n' or the sequence's ends), as grep -x
  bool whole_lines = false;
  /// exact: every pattern is a regular expression (PCRE2 syntax, bytes), matched within each
  /// line: a pattern's hits in a line are its leftmost-first matches, left to right, each
  /// starting where the previous one ended (as ripgrep -o). Lines may hold at most
  /// regex_max_line bytes. Not with both_strands or iupac.
  bool regex = false;
  /// approximate: compute every hit's leftmost start (a reverse Myers pass per hit). false
  /// leaves start == end, for callers that only count hits (the CLI's -c and -q).
  bool starts = true;
  // -- engines --
  exact_algorithm exact = exact_algorithm::automatic;
  simd_level simd = simd_level::automatic;
  approx_algorithm approx = approx_algorithm::automatic;
  // -- parallelism --
  /// Worker threads; 0 = all cores. Workers are oneTBB's, which reads the CPUs it may use
  /// once, from the first thread that uses it: pinned to one CPU at that moment, it keeps
  /// one worker whatever `threads` says.
  unsigned threads = 0;
  /// owned bytes per slice; 0 = automatic; at least 1/65536 of the input (a stream: of a chunk)
  std::size_t slice_size = 0;
  std::uint64_t max_hits = 0;   ///< stop after this many hits in a sequence (an input, for search_input); 0 = no limit
  device_spec device;           ///< where it runs (device.hpp); the GPU search uses device.gpus
  /// The processes that share the search (distributed.hpp: MPI ranks); null: this one alone
  const distributed::group* processes = nullptr;

  [[nodiscard]] match_rules rules() const noexcept { return {ignore_case, iupac, hamming, both_strands}; }
};

/// Sets the engine `name` names (the CLI's --algorithm, Python's algorithm=) for a search with
/// `options` (max_errors, all_ends and regex already set): an approximate engine for
/// approximate search; for exact search an exact engine (exact.hpp), or an approximate
/// engine's name, which exact search accepts and ignores (k = 0 finds every occurrence
/// whatever engine is named); a regex search takes only "auto". Throws
/// trawl::error(invalid_argument) on an unknown name or a name the search cannot take.
void set_algorithm(search_options& options, std::string_view name);

/// The device that a search of `patterns` patterns (options.both_strands: twice as many
/// pattern-strands) over about `bytes` bytes of text runs on (0 = unknown: the CPU unless
/// options.device is gpu). Automatic: the GPU for approximate searches whose pattern-strands x
/// bytes exceed what the CPU cores do in about the GPU's fixed start-up cost, when a GPU is
/// present; CUDA is touched only then, so a search the CPU serves costs the same on a host
/// with a GPU. Throws trawl::error(no_device) when options.device is gpu and none is present.
device_kind choose_device(const search_options& options, std::size_t patterns, std::uint64_t bytes);
/// The same, priced with the patterns themselves: a set the CPU runs through the seed filter
/// (approx.hpp: many short DNA patterns) costs it about the same whatever its size, so the GPU
/// takes it only where that pass over the bytes would outlast the GPU's start-up.
device_kind choose_device(const search_options& options, const std::vector<std::string>& patterns,
                          std::uint64_t bytes);

/// Reverse complement of a DNA string (ACGT, acgt, IUPAC codes; other bytes are kept).
std::string reverse_complement(std::string_view dna);

/// Builds the matcher for `patterns` (exact when max_errors == 0, approximate otherwise).
/// Throws trawl::error on an empty pattern, a NUL byte in a pattern, or bad options.
std::unique_ptr<matcher> make_matcher(const std::vector<std::string>& patterns, const search_options& options);

/// Builds an exact matcher (each pattern forward, and reversed-complemented if asked).
std::unique_ptr<matcher> make_exact_matcher(const std::vector<std::string>& patterns, const search_options& options);

/// Exact search with IUPAC codes in the patterns (options.iupac, k = 0), same order as
/// make_exact_matcher: the matching rules are those of approx.hpp.
std::unique_ptr<matcher> make_iupac_exact_matcher(const std::vector<std::string>& patterns,
                                                  const search_options& options);

/// Searches `seq` with `m` on options.threads workers and calls `on_hits` in text order:
/// sorted by key position (start for exact, end for approximate), then pattern, strand.
/// Returns the number of hits delivered. Stops early when on_hits returns false or
/// options.max_hits is reached.
std::uint64_t search_sequence(const matcher& m, std::string_view seq, const search_options& options,
                              const hit_callback& on_hits);

/// The hits of one text of search_many: `text` indexes the texts given.
using text_hits_callback = std::function<bool(std::uint32_t text, std::span<const hit> hits)>;

/// Searches each of `texts` with `patterns` as search_sequence searches it alone (coordinates
/// in that text), on options.threads workers and, where options.device plans the GPU for
/// their total size, on the GPU. Calls `on_hits` text by text in order, each text's hits in
/// search_sequence's order; stops when it returns false. Many small texts cost about what
/// their total size costs in one text.
void search_many(const std::vector<std::string>& patterns, std::span<const std::string_view> texts,
                 const search_options& options, const text_hits_callback& on_hits);

/// Convenience: all hits of `patterns` in `text`, in text order.
std::vector<hit> search(std::string_view text, const std::vector<std::string>& patterns,
                        const search_options& options = {});

}  // namespace trawl
