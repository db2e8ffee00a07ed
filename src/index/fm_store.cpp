// fm_store.cpp — the FM-index of S'' in the index file. The file holds only its primary data:
// the BWT and the text-order suffix-array samples. Every derived structure is made from them
// on first use: fm_dna (four symbols) and fm_wt (up to 255 byte values) from the checked BWT
// and samples; for all 256 byte values sdsl builds the alphabet and the wavelet tree (with its
// rank and select supports) from the BWT, build_one makes the SA and ISA samples from the
// checked samples, and the index is loaded from what sdsl's serializers write of these objects.
// No byte of the file reaches sdsl's deserializers, which trust their input.
//
// Section layout (file_io.hpp encodings):
//   u64 rows N (|S''| + 1) | u64 row of the sentinel | u64 zstd size | zstd frames of the other
//   N - 1 BWT symbols, a byte each (the FM symbol; for the integer alphabet, the byte it stands
//   for), one per 64 MiB, each with its content size, so that they compress and decompress in
//   parallel (a single frame reads the same) | the marked rows (an
//   Elias–Fano set below N) | samples (ints: SA[row] / s at each marked row, in row order)
//
// What is checked before sdsl sees anything: N against the header, the sentinel row, the
// decompressed length, the symbols, one marked row per s text positions, and the samples being
// a permutation (sdsl's ISA support follows it as cycles). What cannot be checked without a walk
// over the whole BWT (that it is the BWT of S'') is what `verify` does; every query walk is
// bounded (sa_at) so a wrong BWT gives wrong answers or "corrupt", never a hang.
#include <algorithm>
#include <atomic>
#include <bit>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>

#include "index/file_io.hpp"
#include "index/index_impl.hpp"
#include "index/sdsl_ram.hpp"

namespace trawl::index {
namespace {

using file::bad;
using file::put;

/// The BWT may expand at most this much over its compressed bytes: a bound on what a small file
/// can make the loader allocate, about 7 bytes per BWT byte while the FM-index is rebuilt.
constexpr std::uint64_t max_bwt_expansion = 64;
constexpr int zstd_level = 9;

/// The BWT's bytes per zstd frame.
constexpr std::size_t zstd_frame = std::size_t{1} << 26;

/// The width of a marked row below `rows`.
std::uint8_t marked_width(std::uint64_t rows) {
  return static_cast<std::uint8_t>(std::max(1, static_cast<int>(std::bit_width(rows - 1))));
}

/// Checks the section: its sizes, the BWT's symbols and the samples (a permutation of the
/// sampled text positions).
detail::index_impl::fm_section check_section(std::string_view body, std::uint32_t kind, std::uint64_t rows,
                                             std::uint32_t sigma, std::uint64_t s) {
  detail::index_impl::fm_section out;
  out.kind = kind;
  out.rows = rows;
  file::reader r{body, 0};
  if (r.get<std::uint64_t>() != rows) bad("FM-index size does not match S''");
  const auto sentinel = r.get<std::uint64_t>();
  if (sentinel >= rows) bad("FM-index sentinel row out of range");
  const std::string_view z = file::get_zstd_bytes(r, rows - 1, max_bwt_expansion, "FM-index BWT");
  out.sentinel = sentinel;
  out.bwt.assign(rows - 1, '\0');
  const std::uint64_t k = (rows + s - 1) / s;
  std::uint64_t universe = 0;
  tbb::parallel_invoke(
      [&] {
        // each frame's symbols checked while it is still in cache
        const auto symbols = [&](std::string_view frame) {
          unsigned char lo = 255, hi = 0;  // a min/max reduction the compiler vectorizes
          for (const char ch : frame) {
            const auto b = static_cast<unsigned char>(ch);
            lo = std::min(lo, b);
            hi = std::max(hi, b);
          }
          if (!frame.empty() && (lo == 0 || hi > sigma)) bad("FM-index BWT holds a symbol outside the alphabet");
        };
        file::get_zstd(z, out.bwt.data(), out.bwt.size(), "FM-index BWT",
                       kind == 1 ? std::function<void(std::string_view)>() : std::function<void(std::string_view)>(symbols));
      },
      [&] {
        out.marked = sdsl::int_vector<>(0, 0, marked_width(rows));
        file::get_ef_into(r, universe, "FM-index marked rows", out.marked);
        out.samples = file::get_ints(r, "FM-index samples");
        if (r.left() != 0) bad("FM-index section has trailing bytes");
        if (universe != rows || out.marked.size() != k || out.samples.size() != k) bad("FM-index samples do not match S''");
        std::vector<bool> seen(k, false);
        for (std::uint64_t j = 0; j < k; ++j) {
          const std::uint64_t v = out.samples[j];
          if (v >= k || seen[v]) bad("FM-index samples are not a permutation");
          seen[v] = true;
        }
      });
  return out;
}

/// sdsl's serialized form of `x`.
template <class T>
std::string serialized(const T& x) {
  std::ostringstream os;
  x.serialize(os);
  return std::move(os).str();
}

/// Builds fm_int from a checked section in place (csa_wt's ISA support points into its own SA
/// samples, so a built one must not be moved). sdsl builds the alphabet and the wavelet tree
/// from the BWT; the SA and ISA samples come from the section's samples, on a second thread;
/// the index is then loaded from their serialized forms, which sdsl itself wrote.
void build_int(const detail::index_impl::fm_section& sec, fm_variant& fm) {
  using Csa = fm_int;
  constexpr std::uint64_t s = Csa::sa_sample_dens;
  constexpr std::uint8_t width = Csa::alphabet_type::int_width;
  const std::uint64_t rows = sec.rows;
  ram_cache cache;
  sdsl::cache_config& cfg = cache.cfg;
  const char* const key = sdsl::key_trait<width>::KEY_BWT;
  {
    // the BWT as symbols byte + 1, with the sentinel (symbol 0) put back at its row
    sdsl::int_vector<> bwt(rows, 0, 9);
    for (std::uint64_t i = 0, row = 0; i < sec.bwt.size(); ++i, ++row) {
      if (row == sec.sentinel) ++row;
      bwt[row] = std::uint64_t{static_cast<unsigned char>(sec.bwt[i])} + 1;
    }
    store_in_ram(bwt, key, cfg);
  }
  using sa_sample = typename Csa::sa_sample_type;
  using marked_rank = std::decay_t<decltype(std::declval<const sa_sample&>().rank_marked)>;
  std::string wt_bytes, alphabet_bytes, sa_bytes, isa_bytes;
  tbb::parallel_invoke(
      [&] {
        sdsl::int_vector_buffer<width> buf(sdsl::cache_file_name(key, cfg));
        alphabet_bytes = serialized(typename Csa::alphabet_type(buf, rows));
        wt_bytes = serialized(typename Csa::wavelet_tree_type(buf, rows));
      },
      [&] {
        // text_order_sampling's members: SA[row] / s at the marked rows in row order (as wide
        // as it makes them), the marked rows, their rank support
        sdsl::int_vector<> samples(sec.samples.size(), 0, static_cast<std::uint8_t>(sdsl::bits::hi(rows / s) + 1));
        sdsl::bit_vector marked_bits(rows, 0);
        for (std::uint64_t j = 0; j < sec.marked.size(); ++j) {
          samples[j] = sec.samples[j];
          marked_bits[sec.marked[j]] = 1;
        }
        const typename sa_sample::bv_type marked(marked_bits);
        { sdsl::bit_vector().swap(marked_bits); }
        sa_bytes = serialized(samples) + serialized(marked) + serialized(marked_rank(&marked));
        // isa_sampling's: the row of every isa_sample_dens-th text position (each one sampled)
        constexpr std::uint64_t si = Csa::isa_sample_dens;
        static_assert(si % s == 0);
        sdsl::int_vector<> isa((rows - 1) / si + 1, 0, static_cast<std::uint8_t>(sdsl::bits::hi(rows) + 1));
        for (std::uint64_t j = 0; j < sec.marked.size(); ++j)
          if (const std::uint64_t t = sec.samples[j] * s; t % si == 0) isa[t / si] = sec.marked[j];
        isa_bytes = serialized(isa);
      });
  std::istringstream in(std::move(wt_bytes) + sa_bytes + isa_bytes + alphabet_bytes);  // csa_wt::load's order
  fm.emplace<Csa>().load(in);
  if (!in || std::get<Csa>(fm).size() != rows) bad("FM-index could not be rebuilt");
}

}  // namespace

void write_fm(const detail::index_impl::fm_section& sec, std::string& out) {
  put<std::uint64_t>(out, sec.rows);
  put<std::uint64_t>(out, sec.sentinel);
  file::put_zstd(out, sec.bwt, zstd_frame, zstd_level);
  file::put_ef(out, sec.rows, sec.marked.size(), [&](std::uint64_t i) { return sec.marked[i]; });
  file::put_ints(out, sec.samples);
}

detail::index_impl::fm_section make_fm_section(std::string_view s2, std::uint32_t kind, const progress_callback& progress) {
  detail::index_impl::fm_section sec;
  sec.kind = kind;
  const std::uint64_t n = s2.size(), rows = n + 1, s = fm_sample_step(kind);
  sec.rows = rows;
  // Row 0 is the sentinel's suffix (text position n); row r > 0 is the suffix array's r - 1.
  const auto fill = [&](const auto* sa) {
    const auto pos = [&](std::uint64_t row) { return row == 0 ? n : static_cast<std::uint64_t>(sa[row - 1]); };
    constexpr std::uint64_t block = std::uint64_t{1} << 20;
    const std::uint64_t blocks = (rows + block - 1) / block;
    std::vector<std::uint64_t> sampled(blocks + 1, 0);  // per block: its marked rows, then where they go
    std::atomic<std::uint64_t> sentinel{rows};
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
      for (std::uint64_t r = b * block, e = std::min(rows, r + block); r < e; ++r) {
        const std::uint64_t p = pos(r);
        if (p == 0) sentinel.store(r, std::memory_order_relaxed);
        sampled[b + 1] += p % s == 0;
      }
    });
    for (std::uint64_t b = 0; b < blocks; ++b) sampled[b + 1] += sampled[b];
    sec.sentinel = sentinel.load();
    sec.bwt.resize(n);
    // the samples as words first: blocks start at any index, and two workers must not write
    // one word of a packed vector
    const std::uint64_t k = sampled[blocks];
    std::vector<std::uint64_t> marked(k), samples(k);
    tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
      std::uint64_t at = sampled[b];
      for (std::uint64_t r = b * block, e = std::min(rows, r + block); r < e; ++r) {
        const std::uint64_t p = pos(r);
        if (p != 0) sec.bwt[r - (r > sec.sentinel ? 1 : 0)] = s2[p - 1];
        if (p % s == 0) {
          marked[at] = r;
          samples[at++] = p / s;
        }
      }
    });
    sec.marked = sdsl::int_vector<>(k, 0, marked_width(rows));
    sec.samples = sdsl::int_vector<>(k, 0, static_cast<std::uint8_t>(sdsl::bits::hi(rows / s) + 1));
    constexpr std::uint64_t run = 64;  // a run's packed values fill whole words
    tbb::parallel_for(std::uint64_t{0}, (k + run - 1) / run, [&](std::uint64_t i) {
      for (std::uint64_t j = i * run; j < std::min(k, (i + 1) * run); ++j) {
        sec.marked[j] = marked[j];
        sec.samples[j] = samples[j];
      }
    });
  };
  if (n < (std::uint64_t{1} << 31) - 1) {
    std::vector<std::int32_t> sa(n);
    suffix_sort<std::int32_t>(s2, sa.data(), progress, "fm-index");
    fill(sa.data());
  } else {
    std::vector<std::int64_t> sa(n);
    suffix_sort<std::int64_t>(s2, sa.data(), progress, "fm-index");
    fill(sa.data());
  }
  return sec;
}

detail::index_impl::fm_section read_fm(std::string_view body, std::uint32_t kind, std::uint64_t rows,
                                       std::uint32_t sigma) {
  if (rows < 2) bad("FM-index of an empty S''");
  if (kind > 2) bad("FM-index kind unknown");
  return check_section(body, kind, rows, sigma, fm_sample_step(kind));
}

namespace {

/// build_fm with the section's samples given apart (copied or moved out of it).
void build_own(const detail::index_impl::fm_section& section, sdsl::int_vector<> samples, std::uint32_t sigma,
               fm_variant& fm) {
  const std::uint64_t step = fm_sample_step(section.kind);
  if (sigma <= fm_dna::max_sigma)
    fm.emplace<fm_dna>(section.rows, section.sentinel, section.bwt, section.marked, std::move(samples), step);
  else
    fm.emplace<fm_wt>(section.rows, section.sentinel, section.bwt, section.marked, std::move(samples), step);
}

}  // namespace

void build_fm(const detail::index_impl::fm_section& section, std::uint32_t sigma, fm_variant& fm) {
  if (section.kind == 1) build_int(section, fm);
  else build_own(section, section.samples, sigma, fm);
}

void build_fm(detail::index_impl::fm_section&& section, std::uint32_t sigma, fm_variant& fm) {
  if (section.kind == 1) build_int(section, fm);
  else build_own(section, std::move(section.samples), sigma, fm);
}

}  // namespace trawl::index
