// format.cpp — the index file: a versioned binary container with a CRC-32 per section.
//
// Layout (little-endian):
//   header   magic "TRAWLHIX" | u32 version | u32 sections | u64 n | u64 z | u32 M |
//            u32 FM kind (0 fast bytes, 1 integer alphabet, 2 small bytes) | u32 crc32(header so far)
//   table    per section: u32 id | u32 0 | u64 offset | u64 size | u32 crc32 | u32 0;
//            then u32 crc32(table)
//   payload  the sections, back to back, in our own encodings (file_io.hpp): the "meta" record
//            (starting with the FM-index parameters: fm_layout_code), packed integer vectors,
//            Elias–Fano sets as (universe, low ints, high bits), and the FM-index's primary
//            data (fm_store.cpp); last, S'' as text when the build was asked to keep it
//            (u64 |S''| | put_zstd frames of 4 MiB; an empty section otherwise: approximate
//            search then decodes S'' from the BWT); last, the whole text's run-length BWT for
//            count (run_bwt.hpp; empty when the build made none). Version 7 files, without the
//            last two sections, and version 8 files, without the last, still load. Derived structures (rank/select supports, the range maximum
//            over source ends, the FM-index's wavelet tree) are not stored but rebuilt.
// Loading checks magic, version, the header and table CRCs and that sections tile the file,
// then reads the meta section. The other sections come in two parts, each read (from the
// bytes, or from the file kept open: index_impl::need) and checked whole before a query reads
// it: the phrases (kept phrase starts to S'' text) and the count index. A part's sections'
// CRCs are checked before they are parsed; then every size against the bytes that back it,
// and that the sections agree with each other and the meta values (the FM-index's section of
// a file that keeps S'' as text: on the first query that needs it). Nothing in the file
// reaches a deserializer that trusts its input. Any failure is trawl::error(bad_format) with
// one line. Time O(size of the parts read); the FM-index's wavelet tree is rebuilt on first
// use.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_invoke.h>
#include <zlib.h>

#include "index/file_io.hpp"
#include "index/index_impl.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::index {
namespace {

constexpr char magic[8] = {'T', 'R', 'A', 'W', 'L', 'H', 'I', 'X'};
constexpr std::uint32_t format_version = 9;
/// Version 7 files (without the S'' text and count sections) and version 8 files (without the
/// count section) still load.
constexpr std::uint32_t oldest_version = 7;
constexpr std::size_t header_size = 8 + 4 + 4 + 8 + 8 + 4 + 4 + 4;
constexpr std::size_t entry_size = 32;

enum section_id : std::uint32_t {
  sec_meta = 1, sec_kept_starts, sec_src_rank, sec_by_src, sec_src_sample, sec_src_delta, sec_src_len,
  sec_seg_s2, sec_fm, sec_s2_text, sec_counts, sec_end
};
constexpr const char* section_names[] = {"", "meta", "kept phrase starts", "source ranks",
                                         "sources by start", "source start samples", "source start deltas",
                                         "source lengths", "S'' segment map", "FM-index of S''",
                                         "S'' text", "count index"};
/// S'' as text: zstd frames of this many bytes (decompressed in parallel on load), at this level.
constexpr std::size_t s2_text_frame = std::size_t{1} << 22;
constexpr int s2_text_level = 9;
/// The S'' text may expand at most this much over its compressed bytes.
constexpr std::uint64_t max_s2_text_expansion = 64;

/// CRC-32 of each of `parts`: pieces of 8 MiB of all of them on the arena's threads at once,
/// joined by crc32_combine.
std::vector<std::uint32_t> crcs(const std::vector<std::string_view>& parts) {
  constexpr std::size_t piece = std::size_t{1} << 23;
  std::vector<std::size_t> first(parts.size() + 1, 0);  // parts[i]'s pieces are first[i]..first[i+1)-1
  for (std::size_t i = 0; i < parts.size(); ++i)
    first[i + 1] = first[i] + std::max<std::size_t>(1, (parts[i].size() + piece - 1) / piece);
  std::vector<uLong> part(first.back());
  tbb::parallel_for(std::size_t{0}, part.size(), [&](std::size_t q) {
    const std::size_t i = static_cast<std::size_t>(std::upper_bound(first.begin(), first.end(), q) - first.begin()) - 1;
    const std::string_view p = parts[i].substr((q - first[i]) * piece, piece);
    part[q] = crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(p.data()), static_cast<uInt>(p.size()));
  });
  std::vector<std::uint32_t> out(parts.size());
  for (std::size_t i = 0; i < parts.size(); ++i) {
    uLong c = part[first[i]];
    for (std::size_t q = first[i] + 1; q < first[i + 1]; ++q)
      c = crc32_combine(c, part[q], static_cast<z_off_t>(std::min(piece, parts[i].size() - (q - first[i]) * piece)));
    out[i] = static_cast<std::uint32_t>(c);
  }
  return out;
}

std::uint32_t crc(std::string_view s) { return crcs({s})[0]; }

/// A copy of `bytes`, its pieces of 8 MiB copied (and their pages faulted in) on the arena's
/// threads.
byte_buffer copy_of(std::string_view bytes) {
  constexpr std::size_t piece = std::size_t{1} << 23;
  byte_buffer out(bytes.size());
  tbb::parallel_for(std::size_t{0}, (bytes.size() + piece - 1) / piece, [&](std::size_t q) {
    const std::string_view p = bytes.substr(q * piece, piece);
    std::memcpy(out.data() + q * piece, p.data(), p.size());
  });
  return out;
}

using file::bad;
using file::put;
using file::reader;

std::string ef_bytes(const ef_set& e) {
  const std::uint64_t universe = e.bits.size();
  std::string out;
  file::put_ef(out, universe, e.count_below(universe), [&](std::uint64_t i) { return e.at(i); });
  return out;
}

void load_ef(std::string_view bytes, ef_set& e, const char* name) {
  reader r{bytes, 0};
  std::uint64_t universe = 0;
  const auto members = file::get_ef(r, universe, name);
  if (r.left() != 0) bad(std::string("section '") + name + "' has trailing bytes");
  e.assign(universe, members);
}

std::string ints_bytes(const sdsl::int_vector<>& v) {
  std::string out;
  file::put_ints(out, v);
  return out;
}

void load_ints(std::string_view bytes, sdsl::int_vector<>& v, const char* name) {
  reader r{bytes, 0};
  v = file::get_ints(r, name);
  if (r.left() != 0) bad(std::string("section '") + name + "' has trailing bytes");
}

std::string meta_bytes(const detail::index_impl& ix) {
  std::string m;
  put<std::uint32_t>(m, fm_layout_code);
  put<std::uint64_t>(m, ix.s2_len);
  put<std::uint64_t>(m, ix.kept);
  put<std::uint64_t>(m, ix.literal_bytes);
  put<std::uint32_t>(m, ix.sigma);
  m.append(reinterpret_cast<const char*>(ix.char_map.data()), 256);
  m.append(reinterpret_cast<const char*>(ix.char_unmap.data()), 256);
  put<std::uint32_t>(m, static_cast<std::uint32_t>(ix.source_name.size()));
  m += ix.source_name;
  put<std::uint64_t>(m, ix.records.size());
  for (const auto& r : ix.records) {
    put<std::uint32_t>(m, static_cast<std::uint32_t>(r.name.size()));
    m += r.name;
    put<std::uint64_t>(m, r.start);
    put<std::uint64_t>(m, r.length);
  }
  return m;
}

std::vector<std::pair<std::uint32_t, std::string>> sections(const detail::index_impl& ix) {
  std::vector<std::pair<std::uint32_t, std::string>> s;
  s.emplace_back(sec_meta, meta_bytes(ix));
  s.emplace_back(sec_kept_starts, ef_bytes(ix.kept_starts));
  s.emplace_back(sec_src_rank, ints_bytes(ix.src_rank));
  s.emplace_back(sec_by_src, ints_bytes(ix.by_src));
  s.emplace_back(sec_src_sample, ints_bytes(ix.src_sample));
  s.emplace_back(sec_src_delta, ints_bytes(ix.src_delta));
  s.emplace_back(sec_src_len, ints_bytes(ix.src_len));
  s.emplace_back(sec_seg_s2, ef_bytes(ix.seg_s2));
  std::string fm;
  if (ix.fm_file) write_fm(*ix.fm_file, fm);
  else if (ix.fm_bytes.size() > 0 || !ix.unread || ix.s2_len == 0) fm.assign(ix.fm_bytes.view());
  else fm.assign(ix.fm_bytes_from_file().view());
  s.emplace_back(sec_fm, std::move(fm));
  std::string text;  // empty: not stored
  if (ix.s2_stored) {
    put<std::uint64_t>(text, ix.s2_len);
    file::put_zstd(text, ix.s2_text(), s2_text_frame, s2_text_level);
  }
  s.emplace_back(sec_s2_text, std::move(text));
  std::string counts;  // empty: not built
  if (ix.has_counts) ix.counts.write(counts);
  s.emplace_back(sec_counts, std::move(counts));
  return s;
}

}  // namespace

std::string serialize_index(const detail::index_impl& ix) {
  const auto secs = sections(ix);
  std::string out;
  out.append(magic, 8);
  put<std::uint32_t>(out, format_version);
  put<std::uint32_t>(out, static_cast<std::uint32_t>(secs.size()));
  put<std::uint64_t>(out, ix.n);
  put<std::uint64_t>(out, ix.z);
  put<std::uint32_t>(out, ix.max_len);
  put<std::uint32_t>(out, ix.fm_kind);
  put<std::uint32_t>(out, crc(out));
  std::string table;
  std::uint64_t offset = header_size + secs.size() * entry_size + 4;
  for (const auto& [id, bytes] : secs) {
    put<std::uint32_t>(table, id);
    put<std::uint32_t>(table, 0);
    put<std::uint64_t>(table, offset);
    put<std::uint64_t>(table, bytes.size());
    put<std::uint32_t>(table, crc(bytes));
    put<std::uint32_t>(table, 0);
    offset += bytes.size();
  }
  out += table;
  put<std::uint32_t>(out, crc(table));
  for (const auto& sec : secs) out += sec.second;
  return out;
}

/// f(i) for every i < n, on the arena's threads (a check that throws stops the rest).
template <class F>
void each(std::uint64_t n, F&& f) {
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, n, 1u << 14), [&](const auto& r) {
    for (std::uint64_t i = r.begin(); i < r.end(); ++i) f(i);
  });
}

/// Runs the tasks side by side, each to its end even when another throws (TBB would cancel the
/// others' nested parallel checks, and their serial code would go on to read what those had
/// not checked), then rethrows the first task's exception.
template <class... F>
void invoke_checked(const F&... f) {
  std::array<std::exception_ptr, sizeof...(F)> errors;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    tbb::parallel_invoke([&] {
      try {
        f();
      } catch (...) {
        errors[I] = std::current_exception();
      }
    }...);
  }(std::index_sequence_for<F...>{});
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
}

/// The phrase and segment sections against each other, then the recursion's source tables
/// (index_impl::index_sources).
void check_phrases(detail::index_impl& ix) {
  // the kept phrase starts and the segments' S'' starts, decoded once for the checks below
  const std::uint64_t M = ix.max_len;
  std::vector<std::uint64_t> starts(ix.kept);
  decode_all(ix.kept_starts, ix.kept, starts.data());
  const auto end_of = [&](std::uint64_t k) { return starts[k] + packed_at(ix.src_len, packed_at(ix.src_rank, k)); };
  // the source order: by_src and src_rank are inverse permutations, source starts do not
  // decrease along it, every source starts before its phrase (extract relies on it), and each
  // sample is the start of its block's first source (the predecessor search relies on it)
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, ix.kept, 1u << 14), [&](const auto& rg) {
    constexpr std::uint64_t ahead = 16;  // the random reads of a later j prefetched
    for (std::uint64_t j = rg.begin(); j < rg.end(); ++j) {
      if (j + ahead < rg.end()) {
        const std::uint64_t later = std::min(packed_at(ix.by_src, j + ahead), ix.kept - 1);
        prefetch_packed(ix.src_rank, later);
        __builtin_prefetch(&starts[later]);
      }
      const std::uint64_t id = packed_at(ix.by_src, j);
      if (id >= ix.kept || packed_at(ix.src_rank, id) != j ||
          (j > 0 && ix.stored_source_start(j) < ix.stored_source_start(j - 1)) ||
          ix.stored_source_start(j) >= starts[id] || (j % by_src_block == 0 && packed_at(ix.src_delta, j) != 0))
        bad("inconsistent sections");
    }
  });
  // kept phrases: at least 2M long, disjoint, inside the text; then the segments of S''
  // (s2_builder.cpp): one before every kept phrase's gap and one after the last (left out when
  // empty), each as long as the text it stands for
  each(ix.kept, [&](std::uint64_t k) {
    const std::uint64_t p = starts[k], len = packed_at(ix.src_len, packed_at(ix.src_rank, k));
    if (p < (k == 0 ? 1 : end_of(k - 1)) || len < 2 * M || len > ix.n - p) bad("inconsistent sections");
  });
  const bool last_empty = ix.kept > 0 && M == 1 && end_of(ix.kept - 1) == ix.n;
  const std::uint64_t segs = ix.n == 0 ? 0 : ix.kept + 1 - (last_empty ? 1 : 0);
  if (ix.seg_s2.count_below(ix.s2_len + 1) != segs + 1 || ix.seg_s2.at(segs) != ix.s2_len) bad("inconsistent sections");
  std::vector<std::uint64_t> s2_starts(segs + 1);
  decode_all(ix.seg_s2, segs + 1, s2_starts.data());
  std::vector<std::uint64_t> text_starts(segs + 1);
  each(segs, [&](std::uint64_t k) {
    const std::uint64_t text_end = k < ix.kept ? starts[k] + M : ix.n;
    const std::uint64_t text_start = k == 0 ? 0 : end_of(k - 1) - (M - 1);
    if (s2_starts[k + 1] - s2_starts[k] != text_end - text_start) bad("inconsistent sections");
    text_starts[k] = text_start;
  });
  // the plain segment table (index_impl::segments_plain) from the arrays decoded here
  text_starts[segs] = ix.n;
  std::call_once(ix.segment_table_once, [&] { ix.set_segments(std::move(s2_starts), std::move(text_starts)); });
  ix.index_sources(starts);
}

namespace {

/// Where the sections lie in an index file, from its header and section table.
struct layout {
  std::uint32_t version = 0, nsec = 0, flags = 0;
  std::uint64_t file_size = 0;
  std::array<std::uint64_t, sec_end> off{}, size{};
  std::array<std::uint32_t, sec_end> crc{};  ///< as the table stores them
  /// Section `id` of the file's bytes.
  [[nodiscard]] std::string_view of(std::string_view bytes, std::uint32_t id) const { return bytes.substr(off[id], size[id]); }
};

/// The version `v`, if this build reads it.
void check_version(std::uint32_t v) {
  if (v < oldest_version || v > format_version)
    bad("unsupported version " + std::to_string(v) + " (this build reads versions " + std::to_string(oldest_version) +
        " to " + std::to_string(format_version) + ")");
}

/// The bytes of the header and the section table, from the header's first bytes (at least
/// header_size, or the whole file when it is shorter).
std::uint64_t head_size(std::string_view header) {
  if (header.size() < 8 || std::memcmp(header.data(), magic, 8) != 0) bad("not a trawl index (bad magic)");
  if (header.size() < header_size) bad("truncated header");
  reader r{header, 8};
  check_version(r.get<std::uint32_t>());
  const auto nsec = r.get<std::uint32_t>();
  if (nsec == 0 || nsec >= sec_end) bad("unexpected section count");
  return header_size + std::uint64_t{nsec} * entry_size + 4;
}

/// Checks the header and the section table (`head`: the file's first bytes, at least
/// head_size of them) of a file of `file_size` bytes, sets the header's values in ix and
/// returns the sections' places; every section lies inside the file and they tile it.
layout read_layout(std::string_view head, std::uint64_t file_size, detail::index_impl& ix) {
  if (head.size() < 8 || std::memcmp(head.data(), magic, 8) != 0) bad("not a trawl index (bad magic)");
  layout L;
  L.file_size = file_size;
  reader r{head, 8};
  L.version = r.get<std::uint32_t>();
  check_version(L.version);
  L.nsec = r.get<std::uint32_t>();
  ix.n = r.get<std::uint64_t>();
  ix.z = r.get<std::uint64_t>();
  ix.max_len = r.get<std::uint32_t>();
  L.flags = r.get<std::uint32_t>();
  const auto hcrc = r.get<std::uint32_t>();
  if (hcrc != crc(head.substr(0, header_size - 4))) bad("header checksum mismatch");
  if (L.nsec != (L.version == 7 ? sec_s2_text - 1 : L.version == 8 ? sec_counts - 1 : sec_end - 1))
    bad("unexpected section count");
  if (ix.max_len < 1 || ix.max_len > 4096 || L.flags > 2 || ix.z > ix.n) bad("header values out of range");
  const std::size_t table_at = r.at;
  if (head.size() - table_at < L.nsec * entry_size + 4) bad("truncated section table");
  const std::string_view table = head.substr(table_at, L.nsec * entry_size);
  r.at = table_at + L.nsec * entry_size;
  if (r.get<std::uint32_t>() != crc(table)) bad("section table checksum mismatch");
  std::uint64_t expect = header_size + L.nsec * entry_size + 4;
  reader t{table, 0};
  ix.file_parts.clear();
  for (std::uint32_t i = 0; i < L.nsec; ++i) {
    const auto id = t.get<std::uint32_t>();
    t.get<std::uint32_t>();
    const auto off = t.get<std::uint64_t>();
    const auto size = t.get<std::uint64_t>();
    const auto scrc = t.get<std::uint32_t>();
    t.get<std::uint32_t>();
    if (id != i + 1 || off != expect) bad("bad section table");
    if (off > file_size || size > file_size - off) bad("truncated (section '" + std::string(section_names[id]) + "')");
    L.off[id] = off;
    L.size[id] = size;
    L.crc[id] = scrc;
    ix.file_parts.emplace_back(section_names[id], size);
    expect = off + size;
  }
  if (expect != file_size) bad("trailing bytes after the last section");
  return L;
}

/// Checks that sections first..last (their bytes in `payload`, by id) have the checksums the
/// table gives.
void check_crcs(const layout& L, const std::array<std::string_view, sec_end>& payload, std::uint32_t first,
                std::uint32_t last) {
  const std::vector<std::string_view> parts(payload.begin() + first, payload.begin() + last + 1);
  const std::vector<std::uint32_t> computed = crcs(parts);
  for (std::uint32_t id = first; id <= last; ++id)
    if (computed[id - first] != L.crc[id]) bad("checksum mismatch in section '" + std::string(section_names[id]) + "'");
}

void read_meta(std::string_view bytes, const layout& L, detail::index_impl& ix) {
  reader m{bytes, 0};
  if (m.get<std::uint32_t>() != fm_layout_code)
    bad("FM-index written with other sample rates / bit vectors than this build uses; rebuild the index");
  ix.s2_len = m.get<std::uint64_t>();
  ix.kept = m.get<std::uint64_t>();
  ix.literal_bytes = m.get<std::uint64_t>();
  ix.sigma = m.get<std::uint32_t>();
  const std::string_view cm = m.bytes(256), cu = m.bytes(256);
  std::memcpy(ix.char_map.data(), cm.data(), 256);
  std::memcpy(ix.char_unmap.data(), cu.data(), 256);
  // the byte maps are what the build makes of the set of bytes present
  std::array<bool, 256> present{};
  for (unsigned c = 0; c < 256; ++c) present[c] = ix.char_map[c] != 0;
  std::array<std::uint8_t, 256> map{}, unmap{};
  const std::uint32_t sigma = make_byte_maps(present, map, unmap);
  if (sigma != ix.sigma || map != ix.char_map || unmap != ix.char_unmap || (L.flags == 1) != (sigma == 256))
    bad("inconsistent byte alphabet");
  ix.source_name = std::string(m.bytes(m.get<std::uint32_t>()));
  const auto nrec = m.get<std::uint64_t>();
  if (nrec > bytes.size()) bad("bad record count");
  ix.records.clear();
  std::uint64_t at = 0;
  for (std::uint64_t i = 0; i < nrec; ++i) {
    record_span rs;
    rs.name = std::string(m.bytes(m.get<std::uint32_t>()));
    rs.start = m.get<std::uint64_t>();
    rs.length = m.get<std::uint64_t>();
    if (rs.start != at || rs.length > ix.n - at) bad("records do not tile the text");
    at += rs.length;
    ix.records.push_back(std::move(rs));
  }
  if (at != ix.n || m.at != bytes.size()) bad("bad meta section");
  // sections whose presence the meta values decide
  if ((L.size[sec_fm] == 0) != (ix.s2_len == 0)) bad("inconsistent sections");
  ix.fm_kind = L.flags;
  ix.has_counts = L.size[sec_counts] > 0;
  ix.s2_stored = L.size[sec_s2_text] > 0;
}

/// The phrase sections (kept phrase starts to S'' text, checksums checked) into ix, checked
/// against each other and the meta values. The FM-index's section is checked and a copy kept
/// (fm_bytes), unless `fm_in_file`: then each use reads it from the file and checks it there
/// (index_impl::decode_fm_section).
void read_phrases(const std::array<std::string_view, sec_end>& payload, bool fm_in_file, detail::index_impl& ix) {
  invoke_checked([&] { load_ef(payload[sec_kept_starts], ix.kept_starts, "kept phrase starts"); },
                 [&] { load_ef(payload[sec_seg_s2], ix.seg_s2, "S'' segment map"); },
                 [&] {
                   load_ints(payload[sec_src_rank], ix.src_rank, "source ranks");
                   load_ints(payload[sec_by_src], ix.by_src, "sources by start");
                   load_ints(payload[sec_src_sample], ix.src_sample, "source start samples");
                   load_ints(payload[sec_src_delta], ix.src_delta, "source start deltas");
                   load_ints(payload[sec_src_len], ix.src_len, "source lengths");
                 });

  // the parts must agree with each other and with the header
  const bool ok = ix.kept <= ix.z && ix.literal_bytes <= ix.n && ix.kept_starts.bits.size() == ix.n + 1 &&
                  ix.kept_starts.count_below(ix.n + 1) == ix.kept && ix.src_rank.size() == ix.kept &&
                  ix.by_src.size() == ix.kept && ix.src_delta.size() == ix.kept &&
                  ix.src_sample.size() == (ix.kept + by_src_block - 1) / by_src_block &&
                  ix.src_len.size() == ix.kept && ix.seg_s2.bits.size() == ix.s2_len + 1 && ix.s2_len <= ix.n;
  if (!ok) bad("inconsistent sections");
  // S'' as text, when the file holds it: its length, then its frames
  std::string_view s2_frames;
  if (!payload[sec_s2_text].empty()) {
    reader r2{payload[sec_s2_text], 0};
    if (r2.get<std::uint64_t>() != ix.s2_len) bad("S'' text does not match the segment map");
    s2_frames = file::get_zstd_bytes(r2, ix.s2_len, max_s2_text_expansion, "S'' text");
    if (r2.left() != 0) bad("S'' text section has trailing bytes");
  }
  // The FM-index's section and the S'' text are read beside the other checks (each reads only
  // what is loaded). With the S'' text in the file, the FM-index's section is checked on its
  // first use instead: approximate search needs only the text.
  invoke_checked(
      [&] {
        if (ix.s2_len == 0 || fm_in_file) return;
        if (!ix.s2_stored) (void)read_fm(payload[sec_fm], ix.fm_kind, ix.s2_len + 1, ix.sigma);  // checked, not kept
        ix.fm_bytes = copy_of(payload[sec_fm]);
      },
      [&] {
        if (!ix.s2_stored) return;
        byte_buffer s2(ix.s2_len);  // its pages fault in on the threads that decompress into it
        file::get_zstd(s2_frames, s2.data(), s2.size(), "S'' text");
        ix.s2_bytes = std::move(s2);
        ix.s2_decoded.store(true, std::memory_order_release);
      },
      [&] { check_phrases(ix); });
  if (ix.s2_len == 0) ix.fm = std::monostate{};
}

void read_counts(std::string_view payload, const layout& L, detail::index_impl& ix) {
  if (!payload.empty()) ix.counts = run_bwt::read(payload, ix.n, run_symbols(ix.char_map, ix.sigma), L.file_size);
}

/// n bytes of fd (the file `name`) at offset `at`, read in pieces of 8 MiB on the arena's
/// threads (their pages fault in there). bad_format when the file ends before them.
byte_buffer read_at(int fd, const std::string& name, std::uint64_t at, std::uint64_t n) {
  constexpr std::uint64_t piece = std::uint64_t{1} << 23;
  byte_buffer out(n);
  tbb::parallel_for(std::uint64_t{0}, (n + piece - 1) / piece, [&](std::uint64_t q) {
    std::uint64_t got = q * piece;
    const std::uint64_t end = std::min(n, got + piece);
    while (got < end) {
      const ssize_t r = ::pread(fd, out.data() + got, end - got, static_cast<off_t>(at + got));
      if (r < 0 && errno == EINTR) continue;
      if (r < 0) throw error(errc::io_error, "cannot read " + name + ": " + std::strerror(errno));
      if (r == 0) bad("the file is shorter than when it was loaded");
      got += static_cast<std::uint64_t>(r);
    }
  });
  return out;
}

/// Runs f, a bad_format error of it naming the file `name` (io_error names it already).
template <class F>
auto naming(const std::string& name, F&& f) {
  try {
    return f();
  } catch (const error& e) {
    if (e.code() == errc::io_error) throw error(errc::io_error, std::string("index file: ") + e.what());
    if (e.code() != errc::bad_format) throw;
    throw error(errc::bad_format, (name == "-" ? std::string("(standard input)") : name) + ": " + e.what());
  }
}

}  // namespace

/// A loaded index's file, open while the index lives (a file replaced under the same name
/// leaves this one readable), and where its sections lie: each part is read from it and checked
/// by its checksums when it is needed.
struct detail::index_impl::unread_file {
  int fd = -1;
  std::string name;
  layout at;
  unread_file(int f, std::string n, const layout& L) : fd(f), name(std::move(n)), at(L) {}
  unread_file(const unread_file&) = delete;
  unread_file& operator=(const unread_file&) = delete;
  ~unread_file() { ::close(fd); }
};

const std::string& detail::index_impl::file_name() const {
  static const std::string none;
  return unread ? unread->name : none;
}

void detail::index_impl::need(part p) const {
  if (!unread) return;
  std::call_once(p == part::phrases ? phrases_read : counts_read, [&] {
    // the parts a query reads are filled here, under the flag, before any query reads them
    auto& self = const_cast<index_impl&>(*this);
    const unread_file& f = *unread;
    const layout& L = f.at;
    naming(f.name, [&] {
      file::with_sizes_checked([&] {
        tbb::this_task_arena::isolate([&] {  // as in fm_index: parallel work under a once flag
          std::array<std::string_view, sec_end> payload{};
          if (p == part::counts) {
            const byte_buffer bytes = read_at(f.fd, f.name, L.off[sec_counts], L.size[sec_counts]);
            payload[sec_counts] = bytes.view();
            check_crcs(L, payload, sec_counts, sec_counts);
            read_counts(payload[sec_counts], L, self);
            return;
          }
          // the sections before the FM-index's (small), and the S'' text (decompressed, then
          // dropped); the FM-index's section is read on each use (decode_fm_section)
          const byte_buffer head = read_at(f.fd, f.name, L.off[sec_kept_starts], L.off[sec_fm] - L.off[sec_kept_starts]);
          const byte_buffer text = L.nsec >= sec_s2_text ? read_at(f.fd, f.name, L.off[sec_s2_text], L.size[sec_s2_text]) : byte_buffer{};
          for (std::uint32_t id = sec_kept_starts; id < sec_fm; ++id)
            payload[id] = head.view().substr(L.off[id] - L.off[sec_kept_starts], L.size[id]);
          payload[sec_s2_text] = text.view();
          check_crcs(L, payload, sec_kept_starts, sec_fm - 1);
          check_crcs(L, payload, sec_s2_text, sec_s2_text);
          read_phrases(payload, true, self);
        });
      });
    });
  });
}

std::optional<detail::index_impl::fm_section> detail::index_impl::decode_fm_section() const {
  std::optional<fm_section> out;
  if (s2_len == 0) return out;
  if (fm_bytes.size() > 0) {
    file::with_sizes_checked([&] { out = read_fm(fm_bytes.view(), fm_kind, s2_len + 1, sigma); });
  } else if (unread) {
    const byte_buffer bytes = fm_bytes_from_file();
    naming(unread->name, [&] {
      file::with_sizes_checked([&] { out = read_fm(bytes.view(), fm_kind, s2_len + 1, sigma); });
    });
  }
  return out;
}

byte_buffer detail::index_impl::fm_bytes_from_file() const {
  return naming(unread->name, [&] {
    const layout& L = unread->at;
    byte_buffer bytes = read_at(unread->fd, unread->name, L.off[sec_fm], L.size[sec_fm]);
    std::array<std::string_view, sec_end> payload{};
    payload[sec_fm] = bytes.view();
    check_crcs(L, payload, sec_fm, sec_fm);
    return bytes;
  });
}

void deserialize_index(std::string_view bytes, detail::index_impl& ix) {
  const layout L = read_layout(bytes, bytes.size(), ix);
  std::array<std::string_view, sec_end> payload{};
  for (std::uint32_t id = 1; id <= L.nsec; ++id) payload[id] = L.of(bytes, id);
  check_crcs(L, payload, 1, L.nsec);
  read_meta(payload[sec_meta], L, ix);
  invoke_checked([&] { read_phrases(payload, false, ix); }, [&] { read_counts(payload[sec_counts], L, ix); });
}

std::vector<std::pair<std::string, std::uint64_t>> part_sizes(const detail::index_impl& ix) {
  std::lock_guard lock(ix.file_parts_mutex);
  if (ix.file_parts.empty())
    for (const auto& [id, b] : sections(ix)) ix.file_parts.emplace_back(section_names[id], b.size());
  return ix.file_parts;
}

hybrid_index hybrid_index::from_bytes(std::string_view file_bytes) {
  auto ix = std::make_unique<impl>();
  file::with_sizes_checked([&] { deserialize_index(file_bytes, *ix); });
  return hybrid_index(std::move(ix));
}

namespace {

/// Appends up to n bytes of `in` to `out` (fewer only where the stream ends).
void append_up_to(io::byte_stream& in, std::size_t n, std::string& out) {
  const std::size_t at = out.size();
  out.resize(at + n);
  std::size_t got = 0;
  while (got < n) {
    const std::ptrdiff_t r = in.read(out.data() + at + got, n - got, -1);
    if (r <= 0) break;
    got += static_cast<std::size_t>(r);
  }
  out.resize(at + got);
}

/// An index file from a stream (a pipe, a device, "-"): the magic checked before anything
/// more is read, then the header and section table, whose sizes bound the rest of the read.
std::string read_index_stream(io::byte_stream& in) {
  std::string bytes;
  append_up_to(in, 8, bytes);
  if (bytes.size() < 8 || std::memcmp(bytes.data(), magic, 8) != 0) bad("not a trawl index (bad magic)");
  append_up_to(in, header_size - 8, bytes);
  const std::uint64_t head = head_size(bytes);
  const auto nsec = static_cast<std::uint32_t>((head - header_size - 4) / entry_size);
  append_up_to(in, head - header_size, bytes);
  if (bytes.size() < head) bad("truncated section table");
  // the last section's end is the file's size
  reader t{std::string_view(bytes).substr(header_size + (nsec - 1) * entry_size, entry_size), 8};
  const auto off = t.get<std::uint64_t>();
  const auto size = t.get<std::uint64_t>();
  if (off < bytes.size() || size > ~std::uint64_t{0} - off) bad("bad section table");
  const std::uint64_t total = off + size;
  if (total - bytes.size() > std::numeric_limits<std::size_t>::max() / 2) bad("bad section table");
  // read in pieces: memory grows with the bytes that come, not with what the table claims
  while (bytes.size() < total) {
    const std::size_t before = bytes.size();
    append_up_to(in, static_cast<std::size_t>(std::min<std::uint64_t>(total - before, std::uint64_t{64} << 20)), bytes);
    if (bytes.size() == before) bad("truncated (the file ends before its last section)");
  }
  std::string extra;
  append_up_to(in, 1, extra);
  if (!extra.empty()) bad("trailing bytes after the last section");
  return bytes;
}

}  // namespace

namespace {

/// Loads into ix the index in the regular file `path` when it starts with the index magic: its
/// header, section table and meta read and checked now, its other parts on their first use
/// (index_impl::need), from the file kept open. False when it does not start with the magic or
/// is no longer a regular file.
bool load_lazily(const std::string& path, detail::index_impl& ix) {
  struct owned {
    int fd;
    ~owned() {
      if (fd >= 0) ::close(fd);
    }
  } own{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK)};  // a FIFO put in its place does not block
  if (own.fd < 0) throw error(errc::io_error, "cannot open " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(own.fd, &st) != 0 || !S_ISREG(st.st_mode)) return false;
  ::fcntl(own.fd, F_SETFL, ::fcntl(own.fd, F_GETFL) & ~O_NONBLOCK);
  const auto size = static_cast<std::uint64_t>(st.st_size);
  auto file = std::make_shared<detail::index_impl::unread_file>(own.fd, path, layout{});
  const int fd = std::exchange(own.fd, -1);  // the file's now
  const byte_buffer header = read_at(fd, path, 0, std::min<std::uint64_t>(size, header_size));
  if (header.size() < 8 || std::memcmp(header.data(), magic, 8) != 0) return false;
  const byte_buffer head = read_at(fd, path, 0, std::min(size, head_size(header.view())));
  file->at = read_layout(head.view(), size, ix);
  const layout& L = file->at;
  const byte_buffer meta = read_at(fd, path, L.off[sec_meta], L.size[sec_meta]);
  std::array<std::string_view, sec_end> payload{};
  payload[sec_meta] = meta.view();
  check_crcs(L, payload, sec_meta, sec_meta);
  read_meta(meta.view(), L, ix);
  ix.unread = std::move(file);
  return true;
}

}  // namespace

hybrid_index hybrid_index::load(const std::string& path) {
  // A regular file holding an index is opened and kept open, and read part by part as queries
  // need them (load_lazily). Anything else (a pipe, "-", a compressed file) is read whole, as
  // far as its header says. Every error names the file.
  return naming(path, [&]() -> hybrid_index {
    struct stat st {};
    if (path != "-" && ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode)) {  // not opened first: a FIFO would block
      auto ix = std::make_unique<impl>();
      bool loaded = false;
      file::with_sizes_checked([&] { loaded = load_lazily(path, *ix); });
      if (loaded) return hybrid_index(std::move(ix));
      const io::input_buffer in = io::input_buffer::open(path);  // compressed, or no index
      return from_bytes(in.bytes());
    }
    auto src = io::source::open(path);
    const std::string bytes = read_index_stream(src.stream());
    return from_bytes(bytes);
  });
}

std::string hybrid_index::to_bytes() const {
  impl_->need(impl::part::phrases);
  impl_->need(impl::part::counts);
  return serialize_index(*impl_);
}

void hybrid_index::save(const std::string& path) const { io::write_file_atomically(path, to_bytes()); }

}  // namespace trawl::index
