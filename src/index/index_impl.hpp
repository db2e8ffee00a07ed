// index_impl.hpp — the parts of the Hybrid Index and the internal functions that build,
// query and serialize them. Internal to src/index (sdsl types never reach the public API).
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <concepts>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <span>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <sdsl/rmq_support.hpp>
#include <sdsl/sd_vector.hpp>
#include <sdsl/suffix_arrays.hpp>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "index/ef_set.hpp"
#include "index/fm_dna.hpp"
#include "index/fm_wt.hpp"
#include "index/range_max.hpp"
#include "index/run_bwt.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::index {

/// The FM-index of S'': profile "fast" samples the SA at every 16th text position (a locate
/// walk takes at most 15 LF steps), profile "small" at every 32nd. S'' over at most four
/// symbols (DNA) is held as fm_dna (fm_dna.hpp), over at most 255 byte values as fm_wt
/// (fm_wt.hpp), over all 256 byte values as fm_int (sdsl's csa_wt over the integer alphabet
/// byte + 1).
inline constexpr std::uint32_t fm_sa_sample = 16;
inline constexpr std::uint32_t fm_isa_sample = 64;
inline constexpr std::uint32_t fm_small_sa_sample = 32;
/// The FM-index parameters that the file does not spell out; stored in it and checked on load
/// (a file written by a build with other parameters would load and answer wrongly). The top
/// byte, 8, is a fixed part of the code that files carry.
inline constexpr std::uint32_t fm_layout_code = fm_sa_sample | fm_isa_sample << 8 | fm_small_sa_sample << 16 | 8u << 24;
using fm_int = sdsl::csa_wt<sdsl::wt_huff_int<>, fm_sa_sample, fm_isa_sample, sdsl::text_order_sa_sampling<>,
                            sdsl::isa_sampling<>, sdsl::int_alphabet<>>;
using fm_variant = std::variant<std::monostate, fm_int, fm_dna, fm_wt>;
/// fm_dna and fm_wt: the FM-indexes of this project's own layout.
template <class T>
concept own_fm = std::same_as<T, fm_dna> || std::same_as<T, fm_wt>;

/// The suffix-array sampling step of an FM-index kind (index_impl::fm_section::kind: 0 the
/// fast profile, 1 the fast profile over all 256 byte values, 2 the small profile).
constexpr std::uint64_t fm_sample_step(std::uint32_t kind) { return kind == 2 ? fm_small_sa_sample : fm_sa_sample; }
static_assert(fm_int::sa_sample_dens == fm_sa_sample);

/// SA[row] of an FM-index with text-order samples, in at most s - 1 LF steps. A walk that
/// finds no sample in s steps, or a value past the end, means the index is corrupt.
template <class Csa>
[[nodiscard]] std::uint64_t sa_at(const Csa& csa, std::uint64_t row) {
  std::uint64_t off = 0;
  while (!csa.sa_sample.is_sampled(row)) {
    if (++off == Csa::sa_sample_dens) throw error(errc::bad_format, "index is corrupt: a suffix-array walk finds no sample");
    row = csa.lf[row];
  }
  const std::uint64_t v = csa.sa_sample[row] + off;
  if (v >= csa.size()) throw error(errc::bad_format, "index is corrupt: a suffix-array value is out of range");
  return v;
}

// What the queries ask of an FM-index, for sdsl's and this project's alike.

/// The rows [lb, rb] whose suffixes start with sym (FM symbols); their number.
template <class Csa>
std::uint64_t fm_backward_search(const Csa& csa, const std::vector<std::uint64_t>& sym, std::uint64_t& lb,
                                 std::uint64_t& rb) {
  typename Csa::size_type l = 0, r = 0;
  const auto k = sdsl::backward_search(csa, 0, csa.size() - 1, sym.begin(), sym.end(), l, r);
  lb = l, rb = r;
  return k;
}
template <own_fm Fm>
std::uint64_t fm_backward_search(const Fm& fm, const std::vector<std::uint64_t>& sym, std::uint64_t& lb,
                                 std::uint64_t& rb) {
  return fm.backward_search(sym.data(), sym.size(), lb, rb);
}
/// f(SA[r]) for every row r in [b, e), in no fixed order.
template <class Csa, class F>
void fm_locate(const Csa& csa, std::uint64_t b, std::uint64_t e, F&& f) {
  for (std::uint64_t r = b; r < e; ++r) f(sa_at(csa, r));
}
template <own_fm Fm, class F>
void fm_locate(const Fm& fm, std::uint64_t b, std::uint64_t e, F&& f) {
  fm.locate(b, e, f);
}
/// S''[b, b + len) as FM symbols into out (len > 0).
template <class Csa>
void fm_extract_symbols(const Csa& csa, std::uint64_t b, std::uint64_t len, std::uint64_t* out) {
  sdsl::extract(csa, b, b + len - 1, out);
}
template <own_fm Fm>
void fm_extract_symbols(const Fm& fm, std::uint64_t b, std::uint64_t len, std::uint64_t* out) {
  fm.extract(b, len, out);
}

/// Bytes not cleared before use, large ones on huge pages where the kernel gives them: the big
/// buffers that parallel loops fill (their pages fault in on many cores) and walks read at random.
class byte_buffer {
 public:
  byte_buffer() = default;
  explicit byte_buffer(std::size_t n);
  [[nodiscard]] char* data() { return p_.get(); }
  [[nodiscard]] const char* data() const { return p_.get(); }
  [[nodiscard]] std::size_t size() const { return n_; }
  [[nodiscard]] std::string_view view() const { return {p_.get(), n_}; }

 private:
  struct release {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, release> p_;
  std::size_t n_ = 0;
};

/// Rank queries (how many elements are < x) on a sorted sequence of values below a universe,
/// through a table of bucket starts with about one element per bucket: O(1 + log of one
/// bucket's size) per query, O(size) packed entries, built on the calling arena's workers. The
/// sequence is a vector or any value(i), i < count, which every query is given again.
class bucket_rank {
 public:
  bucket_rank() = default;
  bucket_rank(const std::vector<std::uint64_t>& v, std::uint64_t universe)
      : bucket_rank(v.size(), universe, [&v](std::uint64_t i) { return v[i]; }) {}
  template <class Value>
  bucket_rank(std::uint64_t count, std::uint64_t universe, const Value& value) {
    const std::uint64_t per = universe / std::max<std::uint64_t>(count, 1);
    shift_ = per > 1 ? static_cast<unsigned>(std::bit_width(per) - 1) : 0;
    size_ = (universe >> shift_) + 2;
    first_ = sdsl::int_vector<>(size_, 0, static_cast<std::uint8_t>(std::max(1, static_cast<int>(std::bit_width(count)))));
    // buckets a worker fills in one pass: whole words of first_, so no two workers write one
    constexpr std::uint64_t run = std::uint64_t{1} << 14;
    tbb::parallel_for(std::uint64_t{0}, (size_ + run - 1) / run, [&](std::uint64_t r) {
      const std::uint64_t b0 = r * run, b1 = std::min(size_, b0 + run);
      std::uint64_t i = b0 == 0 ? 0 : first_at_or_after(0, count, b0 << shift_, value);
      for (std::uint64_t b = b0; b < b1; ++b) {
        while (i < count && (value(i) >> shift_) < b) ++i;
        first_[b] = i;
      }
    });
  }
  /// Elements of `v` (the vector it was built over) below x.
  [[nodiscard]] std::uint64_t below(const std::vector<std::uint64_t>& v, std::uint64_t x) const {
    return below(v.size(), x, [&v](std::uint64_t i) { return v[i]; });
  }
  /// Values below x of the sequence it was built over.
  template <class Value>
  [[nodiscard]] std::uint64_t below(std::uint64_t count, std::uint64_t x, const Value& value) const {
    const std::uint64_t b = x >> shift_;
    if (b + 1 >= size_) return count;
    const std::uint64_t lo = packed_at(first_, b);
    return first_at_or_after(lo, packed_at(first_, b + 1) - lo, x, value);
  }
  /// What below(v, x) reads, in two steps for a batch of queries: its bucket, then (with the
  /// bucket in cache) the elements it searches.
  void prefetch_bucket(std::uint64_t x) const { prefetch_packed(first_, std::min<std::uint64_t>(x >> shift_, size_ - 1)); }
  void prefetch_elements(const std::vector<std::uint64_t>& v, std::uint64_t x) const {
    if (const std::uint64_t b = x >> shift_; b + 1 < size_) {
      if (const std::uint64_t i = packed_at(first_, b); i < v.size()) __builtin_prefetch(&v[i]);
    }
  }

 private:
  /// The first i in [lo, lo + len) with value(i) >= x, or lo + len: a branch-free binary search.
  template <class Value>
  [[nodiscard]] static std::uint64_t first_at_or_after(std::uint64_t lo, std::uint64_t len, std::uint64_t x,
                                                       const Value& value) {
    while (len > 0) {
      const std::uint64_t half = len / 2;
      const bool below_x = value(lo + half) < x;
      lo = below_x ? lo + half + 1 : lo;
      len = below_x ? len - half - 1 : half;
    }
    return lo;
  }

  unsigned shift_ = 0;
  std::uint64_t size_ = 0;
  sdsl::int_vector<> first_;  // elements below b << shift_
};

/// Every by_src_block-th source start is sampled for the predecessor search.
inline constexpr std::uint64_t by_src_block = 16;

struct detail::index_impl {
  // -- shape --
  std::uint64_t n = 0;
  std::uint64_t z = 0;
  std::uint32_t max_len = 0;  // M
  std::string source_name;
  std::vector<record_span> records;

  // -- the parse: only "kept" copy phrases (length >= 2M, so S'' does not already hold them);
  //    the bytes of every other phrase are literal and lie in S''. (Ferrada et al.: short
  //    phrases merged into literal phrases, long ones kept as sources.)
  std::uint64_t kept = 0;              // number of kept phrases
  std::uint64_t literal_bytes = 0;     // bytes outside kept phrases
  ef_set kept_starts;                  // universe n+1: start of every kept phrase
  sdsl::int_vector<> by_src;           // ids of kept phrases sorted by (source start, id): order j
  sdsl::int_vector<> src_rank;         // the inverse: j of kept phrase id
  sdsl::int_vector<> src_sample;       // source start of j = k·by_src_block (predecessor search)
  sdsl::int_vector<> src_delta;        // source start of j minus src_sample[j / by_src_block]
  sdsl::int_vector<> src_len;          // length of the copy phrase by_src[j]
  // -- the sources as the recursion reads them, derived from the arrays above by
  //    index_sources() (after a build, and on load once they are checked): one packed read for
  //    each value a step needs, where the arrays above take two to four and a select --
  sdsl::int_vector<> src_start;        // source start of j
  sdsl::int_vector<> src_reach;        // inclusive source end of j at 2j, copy distance at 2j+1
  bucket_rank src_start_rank;          // over src_start
  range_max src_end;                   // range max over the inclusive source ends, by_src order
  sdsl::int_vector<> src_prefix_best;  // a j' <= j whose source reaches furthest (every item a
                                       // recursion starts, and every left part it splits off,
                                       // asks of a prefix: one read, not a range-max query)

  // -- S'' --
  std::uint64_t s2_len = 0;
  ef_set seg_s2;    // universe s2_len+1: segment starts in S'' and s2_len (segments: s2_builder.cpp)
  std::array<std::uint8_t, 256> char_map{};  // byte -> FM symbol (0 = absent)
  std::array<std::uint8_t, 256> char_unmap{};  // FM symbol (byte alphabet) -> byte
  std::uint32_t sigma = 0;
  /// The FM-index, built by fm_index() from the FM-index section on the first call.
  mutable fm_variant fm;

  /// An FM-index as its file section holds it: the BWT (raw bytes, the sentinel's row left out)
  /// and the suffix-array samples, made by the build or read and checked by the load. The file
  /// is written from it; the query structure (fm_variant) is built from it only when a query
  /// needs them (fm_index()), and S'' is decoded from it without them (s2_text()).
  struct fm_section {
    std::uint32_t kind = 0;  ///< see fm_sample_step
    std::uint64_t rows = 0;  ///< |S''| + 1
    std::uint64_t sentinel = 0;
    std::string bwt;                    ///< rows - 1 bytes: the BWT without the sentinel's row
    sdsl::int_vector<> marked;          ///< the sampled rows, ascending
    sdsl::int_vector<> samples;         ///< their text positions divided by the sampling step
  };
  std::uint32_t fm_kind = 0;  ///< fm_section::kind, also while the section is unread
  /// The section of a built index: the query structure and S'' are made from it and the file
  /// is written from it.
  std::optional<fm_section> fm_file;
  /// The section of an index read from bytes in its file form, compressed (the decoded form is
  /// several times larger and only the first FM-index use needs it): decoded for each use by
  /// with_fm_section(), written back as it is. The load checks it, except in a file that keeps
  /// S'' as text (approximate search reads that instead), where the first use does. Empty in
  /// an index loaded from a file, which reads the section from there for each use.
  byte_buffer fm_bytes;
  /// Calls f with the FM-index section (fm_file, or decode_fm_section()'s); does not call it
  /// when S'' is empty.
  void with_fm_section(const std::function<void(const fm_section&)>& f) const;
  /// The FM-index section decoded from fm_bytes, or read from the file of a loaded index (its
  /// checksum checked) and decoded; bad_format (naming that file) if it is corrupt. Nothing
  /// when S'' is empty.
  [[nodiscard]] std::optional<fm_section> decode_fm_section() const;
  /// The FM-index section's bytes, read from the file of a loaded index (unread) and checked
  /// against the table's checksum; bad_format or io_error naming the file.
  [[nodiscard]] byte_buffer fm_bytes_from_file() const;
  mutable std::once_flag fm_once;
  /// The FM-index over S'': built on the first call.
  [[nodiscard]] const fm_variant& fm_index() const;

  // -- the whole text's run-length BWT, which count reads when the build made it (empty
  //    otherwise, and while a loaded index has not read it: need(part::counts)) --
  run_bwt counts;
  bool has_counts = false;  ///< the build made a count index, or the file holds one

  // -- the parts of an index loaded from a file that are read on their first use (format.cpp) --
  /// `phrases`: the sections from the kept phrase starts to the S'' text, which locate,
  /// extract, search and count without a count index read (all but the FM-index's, which each
  /// use reads: decode_fm_section); `counts`: the count index.
  enum class part : std::uint8_t { phrases, counts };
  /// Reads part `p` of a loaded index's file when it is still unread, once, with the checks a
  /// load of the whole file makes; a no-op for an index built or read from bytes. Every public
  /// query calls it for what it reads. Throws bad_format (naming the file) when the part is
  /// corrupt or the file has changed since the load, io_error when it cannot be read.
  void need(part p) const;
  /// need(part::phrases) for a query that locates through the FM-index, with its query
  /// structure built first, so that the peak of that build does not meet the phrases.
  void need_for_locate() const {
    (void)fm_index();
    need(part::phrases);
  }
  /// The same for extract, which reads S'' through the FM-index unless the file holds S''.
  void need_for_extract() const {
    if (!s2_stored) (void)fm_index();
    need(part::phrases);
  }
  /// The file of an index loaded from one (open while the index lives), and the places of its
  /// sections (format.cpp); null for an index built or read from bytes.
  struct unread_file;
  std::shared_ptr<const unread_file> unread;
  /// The path of that file ("" without one).
  [[nodiscard]] const std::string& file_name() const;
  mutable std::once_flag phrases_read, counts_read;

  // -- S'' as bytes, decoded from the FM-index on the first approximate search (s2_text) --
  mutable std::once_flag s2_once;
  mutable byte_buffer s2_bytes;
  mutable std::atomic<bool> s2_decoded{false};  ///< s2_bytes is complete: extract reads it
  /// The file holds S'' as text (build_options::kernel_text): s2_bytes is read with the phrases.
  bool s2_stored = false;

  // -- the segment map as plain arrays, for mapping FM-index rows to the text (primaries) --
  struct segment_table {
    std::vector<std::uint64_t> s2;    ///< S'' start of every segment, then s2_len
    std::vector<std::uint64_t> text;  ///< text start of every segment, then n
    bucket_rank s2_rank;              ///< over s2
  };
  mutable std::once_flag segment_table_once;
  mutable segment_table seg_table;
  /// The table, filled (in parallel, isolated) on the first call, unless the load set it.
  [[nodiscard]] const segment_table& segments_plain() const;
  /// Fills the table from its two columns (segments + 1 entries each); called under
  /// segment_table_once, by segments_plain() or by the load, which decodes them for its checks.
  void set_segments(std::vector<std::uint64_t> s2, std::vector<std::uint64_t> text) const;
  /// is_primary(x, m) for x in segment k of that table, without a search: the segment lies
  /// between kept phrase k - 1 (which ends M - 1 bytes into it) and kept phrase k (which starts
  /// M bytes before its end).
  [[nodiscard]] bool is_primary_in(const segment_table& segs, std::uint64_t k, std::uint64_t x, std::uint64_t m) const {
    const std::uint64_t t_k = segs.text[k], len = segs.s2[k + 1] - segs.s2[k];
    if (k < kept && x + max_len >= t_k + len) return x + m > segs.text[k + 1] + max_len - 1;
    return k == 0 || x + m > t_k + max_len - 1;
  }

  // -- the kept phrases in text order as plain arrays, for counting (count.cpp) --
  struct phrase_table {
    std::vector<std::uint64_t> pos, len, src;
    bucket_rank pos_rank;  ///< over pos
  };
  mutable std::once_flag phrases_once;
  mutable phrase_table phrases;
  /// The table, filled on the first call.
  [[nodiscard]] const phrase_table& phrases_in_text_order() const;

  // -- the kept phrases split for counting (count.cpp) --
  /// A kept phrase is a leaf when no occurrence inside it can be copied again: its target is
  /// at least 2M long, lies inside one record and meets no source. Every other kept phrase
  /// is inner. Counting walks the recursion over the inner phrases only; the copies that an
  /// occurrence x (of length m <= 2M) has in leaves number
  ///   |{leaf: source start <= x}| - |{leaf: source end (inclusive) < x + m - 1}|
  /// (a leaf source ending before x + m - 1 and starting after x would be shorter than m).
  struct count_tree {
    std::vector<std::uint64_t> leaf_first, leaf_last;  ///< leaf source starts, inclusive ends; each sorted
    bucket_rank leaf_first_rank, leaf_last_rank;
    std::vector<std::uint64_t> inner_first, inner_last, inner_shift;  ///< inner phrases by source start
    bucket_rank inner_first_rank;
    range_max inner_reach;  ///< over inner_last
  };
  mutable std::once_flag count_tree_once;
  mutable count_tree tree;
  /// The split, made on the first call.
  [[nodiscard]] const count_tree& counting_tree() const;

  // -- the file's section sizes, for info() (filled on load or on the first info()) --
  mutable std::mutex file_parts_mutex;
  mutable std::vector<std::pair<std::string, std::uint64_t>> file_parts;

  // -- helpers (hybrid_index.cpp) --
  /// The record holding text position x < n (records tile the text; empty records share a
  /// start, and upper_bound lands after the last one with start <= x).
  [[nodiscard]] std::uint64_t record_of(std::uint64_t x) const {
    const auto it = std::upper_bound(records.begin(), records.end(), x,
                                     [](std::uint64_t p, const record_span& s) { return p < s.start; });
    return static_cast<std::uint64_t>(it - records.begin()) - 1;
  }
  /// True if [x, x + len) lies inside one record.
  [[nodiscard]] bool in_one_record(std::uint64_t x, std::uint64_t len) const {
    const record_span& r = records[record_of(x)];
    return x + len <= r.start + r.length;
  }
  /// The kept phrase holding text position x, or `kept` if none does.
  [[nodiscard]] std::uint64_t kept_of(std::uint64_t x) const {
    const std::uint64_t k = kept_starts.count_below(x + 1);
    return k > 0 && x < kept_end(k - 1) ? k - 1 : kept;
  }
  /// Exclusive end of kept phrase id (its length is stored in source order).
  [[nodiscard]] std::uint64_t kept_end(std::uint64_t id) const {
    return kept_starts.at(id) + packed_at(src_len, packed_at(src_rank, id));
  }
  /// Text start of S'' segment k: 0, then M-1 bytes before the end of kept phrase k-1.
  [[nodiscard]] std::uint64_t segment_text_start(std::uint64_t k) const {
    return k == 0 ? 0 : kept_end(k - 1) - (max_len - 1);
  }
  /// Number of S'' segments whose text start is <= y (y < n): the segment holding y, plus one.
  [[nodiscard]] std::uint64_t segments_upto(std::uint64_t y) const {
    // kept phrases starting at or before y, all but the last ending at or before y; one
    // starting after y ends past y + 2M (phrases are >= 2M long)
    const std::uint64_t k = kept_starts.count_below(y + 1);
    return k == 0 ? 1 : k + (kept_end(k - 1) <= y + max_len - 1 ? 1 : 0);
  }
  /// True if [x, x+m) is not inside one kept phrase.
  [[nodiscard]] bool is_primary(std::uint64_t x, std::uint64_t m) const;
  /// Number of copy phrases whose source starts at or before x (prefix of by_src).
  [[nodiscard]] std::uint64_t sources_upto(std::uint64_t x) const {
    return src_start_rank.below(kept, x + 1, [this](std::uint64_t j) { return packed_at(src_start, j); });
  }
  /// Source start of by_src[j] as the file keeps it (sampled start plus delta), for the load's
  /// checks and index_sources().
  [[nodiscard]] std::uint64_t stored_source_start(std::uint64_t j) const {
    return packed_at(src_sample, j / by_src_block) + packed_at(src_delta, j);
  }
  /// Fills src_start, src_reach, src_start_rank, src_end and src_prefix_best from the checked arrays above and the
  /// decoded kept phrase starts (text order), on the calling arena's workers.
  void index_sources(std::span<const std::uint64_t> starts);
  /// Source start of the copy phrase by_src[j] (nondecreasing in j).
  [[nodiscard]] std::uint64_t source_start(std::uint64_t j) const { return packed_at(src_start, j); }
  /// Inclusive end of the source of by_src[j] (the values of src_end).
  [[nodiscard]] std::uint64_t source_end(std::uint64_t j) const { return packed_at(src_reach, 2 * j); }
  /// An index in [lo, hi] of a source reaching furthest right.
  [[nodiscard]] std::uint64_t furthest_source(std::uint64_t lo, std::uint64_t hi) const {
    if (lo == 0) return packed_at(src_prefix_best, hi);
    return src_end.argmax(lo, hi, [this](std::uint64_t j) { return source_end(j); });
  }
  /// Source start of kept phrase id (text order).
  [[nodiscard]] std::uint64_t source_of_phrase(std::uint64_t id) const { return source_start(src_rank[id]); }
  /// Target start minus source start of the copy phrase by_src[j] (an occurrence x inside its
  /// source recurs at x + distance).
  [[nodiscard]] std::uint64_t copy_distance(std::uint64_t j) const {
    return packed_at(src_reach, 2 * j + 1);
  }
  /// Text starts of the primary occurrences of `pattern` (see locate_primary), unsorted.
  /// With `parallel`, the suffix-array rows are located with tbb::parallel_for in the
  /// calling arena.
  [[nodiscard]] std::vector<std::uint64_t> primaries(std::string_view pattern, bool parallel) const;
  /// Appends S[x, x+len) (inside the text) to out.
  void extract_into(std::uint64_t x, std::uint64_t len, std::string& out) const;
  /// S'' as bytes: decoded once, in parallel pieces, and kept.
  [[nodiscard]] std::string_view s2_text() const;
  /// Number of S'' segments (segment k is S''[seg_s2.at(k), seg_s2.at(k+1)) at text offset
  /// segment_text_start(k)).
  [[nodiscard]] std::uint64_t segments() const { return seg_s2.count_below(s2_len + 1) - 1; }
};

/// The byte maps of a text whose bytes are `present`: char_map (byte -> FM symbol 1..σ, 255 for
/// every byte past the 255th), char_unmap (its inverse for the byte alphabet); returns σ.
inline std::uint32_t make_byte_maps(const std::array<bool, 256>& present, std::array<std::uint8_t, 256>& map,
                                    std::array<std::uint8_t, 256>& unmap) {
  map.fill(0);
  unmap.fill(0);
  std::uint32_t sigma = 0;
  for (unsigned c = 0; c < 256; ++c)
    if (present[c]) {
      ++sigma;
      map[c] = static_cast<std::uint8_t>(sigma < 256 ? sigma : 255);
      if (sigma < 256) unmap[sigma] = static_cast<std::uint8_t>(c);
    }
  return sigma;
}

// -- builders --
/// Whether an LZ77 phrase is kept as a copy (its interior is not covered by S'' windows).
inline bool kept_phrase(const lz77_phrase& ph, std::uint32_t max_len) { return !ph.literal && ph.len >= 2ull * max_len; }
/// The merged windows of S'' as (text start, length): [p - M + 1, p + M) around a kept
/// phrase start p, [p - M + 1, p + len + M - 1) around every other phrase.
std::vector<std::pair<std::uint64_t, std::uint64_t>> s2_segments(const std::vector<lz77_phrase>& phrases,
                                                                 std::uint64_t n, std::uint32_t max_len);

// -- locate engines (locate_serial.cpp, locate_parallel.cpp) --
/// Where a streaming engine hands over what it finds: each thread's occurrences whenever it
/// holds locate_flush_at of them, and its last ones; unsorted, from any thread.
using occurrence_sink = std::function<void(std::span<const std::uint64_t>)>;
inline constexpr std::size_t locate_flush_at = std::size_t{1} << 16;
/// All occurrences from `prim` (the primaries of a pattern of length m), unsorted; with a
/// sink, handed to it instead (the result is empty).
std::vector<std::uint64_t> locate_serial(const detail::index_impl& ix, const std::vector<std::uint64_t>& prim,
                                         std::uint64_t m, const occurrence_sink* sink = nullptr);
/// The parallel engines find the primaries themselves (in parallel) and return all
/// occurrences sorted; with a sink, they hand them to it unsorted instead.
std::vector<std::uint64_t> locate_static_chunks(const detail::index_impl& ix, std::string_view pattern, unsigned threads,
                                                const occurrence_sink* sink = nullptr);
std::vector<std::uint64_t> locate_balanced(const detail::index_impl& ix, std::string_view pattern, unsigned threads,
                                           const occurrence_sink* sink = nullptr);
/// The balanced engine in the calling task arena (its workers, and the primaries located in
/// parallel when it has more than one).
std::vector<std::uint64_t> locate_balanced_here(const detail::index_impl& ix, std::string_view pattern,
                                                const occurrence_sink* sink = nullptr);

/// Worker threads of a query: `threads`, or all cores (oneTBB's default arena) for 0.
inline unsigned resolve_threads(unsigned threads) {
  return threads != 0 ? threads : static_cast<unsigned>(tbb::this_task_arena::max_concurrency());
}

// -- count (count.cpp) --
/// Recursion steps per kept phrase and worker that count tries before it switches to the
/// phrase dynamic program: about the program's own cost per phrase, so that count takes at
/// most about twice the time of the cheaper way.
inline constexpr std::uint64_t count_probe_steps_per_phrase = 4;
/// Chain steps per kept phrase after which the dynamic program gives up (a parse whose copies
/// nest that deeply everywhere) and the recursion counts every occurrence.
inline constexpr std::uint64_t count_dp_steps_per_phrase = 256;
/// Bytes of text around record boundaries that count through the run-length BWT reads to take
/// out the occurrences across them; with more, count takes the other ways.
inline constexpr std::uint64_t count_boundary_bytes = std::uint64_t{1} << 16;
/// Number of occurrences of `pattern` (inside one record each with `in_records`). With
/// `parallel`, the primaries are located and the recursion probe runs on the workers of the
/// calling arena.
std::uint64_t count_occurrences(const detail::index_impl& ix, std::string_view pattern, bool in_records, bool parallel,
                                detail::count_path path = detail::count_path::automatic);

// -- suffix sorting (lz77.cpp) --
/// The suffix array of `text` into sa[0, text.size()) (libdivsufsort; Int is std::int32_t for
/// texts below 2^31 bytes, else std::int64_t). Throws trawl::error when it fails.
template <class Int>
void suffix_sort(std::string_view text, Int* sa);
/// Texts from this size on have their sort's progress estimated (a smaller sort ends before a
/// progress line would be drawn).
inline constexpr std::uint64_t suffix_sort_estimate_from = std::uint64_t{1} << 24;
/// suffix_sort reporting `stage` to `progress` (may be empty) from the calling thread. The sort
/// itself has no progress to report: from suffix_sort_estimate_from bytes on it runs on a
/// thread of its own while this one reports, at intervals, the share of its expected time gone
/// by (short of the whole until it ends; the caller reports the stage's end). The expected time
/// comes from a sort of the text's first 64th, scaled by n log n, so a repetitive text is
/// expected to take a repetitive text's time.
template <class Int>
void suffix_sort(std::string_view text, Int* sa, const progress_callback& progress, std::string_view stage);

/// Receives the whole text's suffix array (one pointer set: 32- or 64-bit positions), valid
/// during the call.
using whole_suffix_array = std::function<void(const std::int32_t*, const std::int64_t*)>;
/// lz77_parse_relative for the build: an exact parse (the reference is the whole text) also
/// hands the suffix array it sorts to `on_sa`, which is not called otherwise.
std::vector<lz77_phrase> lz77_parse_for_index(std::string_view text, std::uint64_t reference, bool force_64bit,
                                              const progress_callback& progress, const whole_suffix_array& on_sa);

// -- file format (format.cpp) --
std::string serialize_index(const detail::index_impl& ix);
void deserialize_index(std::string_view bytes, detail::index_impl& ix);
/// The FM-index section (fm_store.cpp): its primary data out, everything rebuilt and checked in.
void write_fm(const detail::index_impl::fm_section& section, std::string& out);
/// The section of the FM-index over `s2` (its symbols as the section stores them: the FM
/// symbols 1..sigma, or for kind 1 the bytes themselves), from its suffix array.
detail::index_impl::fm_section make_fm_section(std::string_view s2, std::uint32_t kind,
                                               const progress_callback& progress = {});
/// Checks an FM-index section (kind: as fm_section::kind) and returns it unbuilt.
detail::index_impl::fm_section read_fm(std::string_view body, std::uint32_t kind, std::uint64_t rows, std::uint32_t sigma);
/// Builds the FM-index of a checked section into `fm`.
void build_fm(const detail::index_impl::fm_section& section, std::uint32_t sigma, fm_variant& fm);
/// The same, taking the section's samples (the query structure keeps them).
void build_fm(detail::index_impl::fm_section&& section, std::uint32_t sigma, fm_variant& fm);
/// Serialized size of each part, for info().
std::vector<std::pair<std::string, std::uint64_t>> part_sizes(const detail::index_impl& ix);

}  // namespace trawl::index
