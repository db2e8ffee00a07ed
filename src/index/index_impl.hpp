// index_impl.hpp — the parts of the Hybrid Index and the internal functions that build,
// query and serialize them. Internal to src/index (sdsl types never reach the public API).
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include <sdsl/rmq_support.hpp>
#include <sdsl/sd_vector.hpp>
#include <sdsl/suffix_arrays.hpp>

#include "index/range_max.hpp"
#include "trawl/index.hpp"

namespace trawl::index {

/// FM-index of S'', profile "fast": plain Huffman-shaped wavelet tree, SA every 16 positions
/// (primary locate cost), ISA every 64 (extract cost). About 8.6 bits per S'' byte on English.
inline constexpr std::uint32_t fm_sa_sample = 16;
inline constexpr std::uint32_t fm_isa_sample = 64;

/// S'' over at most 255 distinct bytes (remapped to 1..σ so sdsl's reserved 0 is free).
using fm_byte = sdsl::csa_wt<sdsl::wt_huff<>, fm_sa_sample, fm_isa_sample>;
/// Profile "small": RRR-compressed wavelet tree (≈ nH_k), SA sampled every 32 text
/// positions and the ISA derived from those samples. About 3 bits per S'' byte on English,
/// primary locate ≈ 5-10x slower than "fast".
using fm_byte_small = sdsl::csa_wt<sdsl::wt_huff<sdsl::rrr_vector<63>>, 32, 32, sdsl::text_order_sa_sampling<>,
                                   sdsl::text_order_isa_sampling_support<>>;
/// S'' using all 256 byte values (either profile): integer alphabet, symbol = byte + 1.
using fm_int = sdsl::csa_wt<sdsl::wt_huff_int<>, fm_sa_sample, fm_isa_sample, sdsl::sa_order_sa_sampling<>,
                            sdsl::isa_sampling<>, sdsl::int_alphabet<>>;

/// An Elias–Fano set with its rank/select supports (re-bound after a move or load).
struct ef_set {
  sdsl::sd_vector<> bits;
  sdsl::sd_vector<>::rank_1_type rank;
  sdsl::sd_vector<>::select_1_type select;

  ef_set() = default;
  ef_set(const ef_set&) = delete;
  ef_set& operator=(const ef_set&) = delete;
  ef_set(ef_set&& o) noexcept { *this = std::move(o); }
  ef_set& operator=(ef_set&& o) noexcept {
    bits = std::move(o.bits);
    bind();
    return *this;
  }
  /// Members (strictly increasing, all < universe).
  void assign(std::uint64_t universe, const std::vector<std::uint64_t>& members) {
    sdsl::sd_vector_builder b(universe, members.size());
    for (auto v : members) b.set(v);
    bits = sdsl::sd_vector<>(b);
    bind();
  }
  void bind() {
    rank = sdsl::sd_vector<>::rank_1_type(&bits);
    select = sdsl::sd_vector<>::select_1_type(&bits);
  }
  /// Number of members < x (x <= universe).
  [[nodiscard]] std::uint64_t count_below(std::uint64_t x) const { return rank(x); }
  /// The i-th member, 0-based.
  [[nodiscard]] std::uint64_t at(std::uint64_t i) const { return select(i + 1); }
};

/// v[i] of a bit-compressed vector, always inlined (int_vector's own reads are sometimes
/// outlined into a call in the hot loops of the recursion).
[[gnu::always_inline]] inline std::uint64_t packed_at(const sdsl::int_vector<>& v, std::uint64_t i) {
  const std::uint64_t w = v.width(), bit = i * w, off = bit & 63;
  const std::uint64_t* d = v.data() + (bit >> 6);
  std::uint64_t x = d[0] >> off;
  if (off + w > 64) x |= d[1] << (64 - off);
  return w == 64 ? x : x & ((std::uint64_t{1} << w) - 1);
}

/// Every by_src_block-th source start is sampled for the predecessor search.
inline constexpr std::uint64_t by_src_block = 16;

struct hybrid_index::impl {
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
  ef_set kept_ends;                    // universe n+1: exclusive end of every kept phrase
  sdsl::int_vector<> by_src;           // ids of kept phrases sorted by (source start, id): order j
  sdsl::int_vector<> src_rank;         // the inverse: j of kept phrase id
  sdsl::int_vector<> src_sample;       // source start of j = k·by_src_block (predecessor search)
  sdsl::int_vector<> src_delta;        // source start of j minus src_sample[j / by_src_block]
  range_max src_end;                   // inclusive source ends in by_src order, with range max

  // -- S'' --
  std::uint64_t s2_len = 0;
  ef_set seg_s2;    // universe s2_len+1: segment starts in S'' and s2_len
  ef_set seg_text;  // universe n+1: segment starts in the text
  std::array<std::uint8_t, 256> char_map{};  // byte -> FM symbol (0 = absent)
  std::array<std::uint8_t, 256> char_unmap{};  // FM symbol (byte alphabet) -> byte
  std::uint32_t sigma = 0;
  std::variant<std::monostate, fm_byte, fm_int, fm_byte_small> fm;

  // -- helpers (hybrid_index.cpp) --
  /// The kept phrase holding text position x, or `kept` if none does.
  [[nodiscard]] std::uint64_t kept_of(std::uint64_t x) const {
    const std::uint64_t k = kept_starts.count_below(x + 1);
    return k > 0 && x < kept_ends.at(k - 1) ? k - 1 : kept;
  }
  /// True if [x, x+m) is not inside one kept phrase.
  [[nodiscard]] bool is_primary(std::uint64_t x, std::uint64_t m) const;
  /// Number of copy phrases whose source starts at or before x (prefix of by_src).
  [[nodiscard]] std::uint64_t sources_upto(std::uint64_t x) const;
  /// Source start of the copy phrase by_src[j] (nondecreasing in j; stored in j order, so the
  /// predecessor search reads neighbouring bits).
  [[nodiscard]] std::uint64_t source_start(std::uint64_t j) const {
    return packed_at(src_sample, j / by_src_block) + packed_at(src_delta, j);
  }
  /// Source start of kept phrase id (text order).
  [[nodiscard]] std::uint64_t source_of_phrase(std::uint64_t id) const { return source_start(src_rank[id]); }
  /// Target start minus source start of the copy phrase by_src[j] (an occurrence x inside its
  /// source recurs at x + distance).
  [[nodiscard]] std::uint64_t copy_distance(std::uint64_t j) const {
    return kept_starts.at(packed_at(by_src, j)) - source_start(j);
  }
  /// Text starts of the primary occurrences of `pattern` (see locate_primary), unsorted.
  /// With `parallel`, the suffix-array rows are located with tbb::parallel_for in the
  /// calling arena.
  [[nodiscard]] std::vector<std::uint64_t> primaries(std::string_view pattern, bool parallel) const;
  /// Appends S[x, x+len) (inside the text) to out.
  void extract_into(std::uint64_t x, std::uint64_t len, std::string& out) const;
  void rebind();
};

// -- builders --
/// Whether an LZ77 phrase is kept as a copy (its interior is not covered by S'' windows).
inline bool kept_phrase(const lz77_phrase& ph, std::uint32_t max_len) { return !ph.literal && ph.len >= 2ull * max_len; }
/// The merged windows of S'' as (text start, length): [p - M + 1, p + M) around a kept
/// phrase start p, [p - M + 1, p + len + M - 1) around every other phrase.
std::vector<std::pair<std::uint64_t, std::uint64_t>> s2_segments(const std::vector<lz77_phrase>& phrases,
                                                                 std::uint64_t n, std::uint32_t max_len);

// -- locate engines (locate_serial.cpp, locate_parallel.cpp) --
/// All occurrences from `prim` (the primaries of a pattern of length m), unsorted.
std::vector<std::uint64_t> locate_serial(const hybrid_index::impl& ix, const std::vector<std::uint64_t>& prim,
                                         std::uint64_t m);
/// The parallel engines find the primaries themselves (in parallel) and return all
/// occurrences sorted.
std::vector<std::uint64_t> locate_static_chunks(const hybrid_index::impl& ix, std::string_view pattern, unsigned threads);
std::vector<std::uint64_t> locate_balanced(const hybrid_index::impl& ix, std::string_view pattern, unsigned threads);

// -- file format (format.cpp) --
std::string serialize_index(const hybrid_index::impl& ix);
void deserialize_index(std::string_view bytes, hybrid_index::impl& ix);
/// Serialized size of each part, for info().
std::vector<std::pair<std::string, std::uint64_t>> part_sizes(const hybrid_index::impl& ix);

}  // namespace trawl::index
