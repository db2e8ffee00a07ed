// index_file.hpp — edits index files as a hostile author would: replace a section's bytes and
// recompute the section, table and header checksums, so that the edited file passes them and
// reaches the loader's structure checks. Used by the index tests and by fuzz_index's mutator.
// Knows the container (src/index/format.cpp's header and table), the FM-index section's head
// (src/index/fm_store.cpp), the S'' text section and the count index's section, so that the
// BWT, the text and the runs can be edited and recompressed.
#pragma once

#include <zlib.h>
#include <zstd.h>

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace index_file {

constexpr std::size_t header_size = 44;  // magic 8 | version 4 | sections 4 | n 8 | z 8 | M 4 | kind 4 | crc 4
constexpr std::size_t entry_size = 32;   // id 4 | 0 4 | offset 8 | size 8 | crc 4 | 0 4

inline std::uint32_t crc(const char* p, std::size_t n) {
  return static_cast<std::uint32_t>(crc32(crc32(0L, Z_NULL, 0), reinterpret_cast<const Bytef*>(p), static_cast<uInt>(n)));
}

template <class T>
T get(const std::string& f, std::size_t at) {
  T v{};
  std::memcpy(&v, f.data() + at, sizeof(T));
  return v;
}

template <class T>
void set(std::string& f, std::size_t at, T v) {
  std::memcpy(f.data() + at, &v, sizeof(T));
}

/// The sections' bodies in table order, or nothing when the container is not well formed.
inline std::optional<std::vector<std::string>> sections(const std::string& f) {
  if (f.size() < header_size) return std::nullopt;
  const auto n = get<std::uint32_t>(f, 12);
  if (n == 0 || n > 64 || f.size() < header_size + n * entry_size + 4) return std::nullopt;
  std::vector<std::string> out;
  for (std::uint32_t i = 0; i < n; ++i) {
    const std::size_t e = header_size + i * entry_size;
    const auto off = get<std::uint64_t>(f, e + 8), size = get<std::uint64_t>(f, e + 16);
    if (off > f.size() || size > f.size() - off) return std::nullopt;
    out.emplace_back(f.substr(off, size));
  }
  return out;
}

/// The file with the header and table of `f` and the given bodies, all checksums recomputed.
inline std::string assemble(const std::string& f, const std::vector<std::string>& bodies) {
  std::string out = f.substr(0, header_size);
  set<std::uint32_t>(out, 12, static_cast<std::uint32_t>(bodies.size()));
  set<std::uint32_t>(out, header_size - 4, crc(out.data(), header_size - 4));
  std::string table(bodies.size() * entry_size, '\0');
  std::uint64_t off = header_size + table.size() + 4;
  for (std::size_t i = 0; i < bodies.size(); ++i) {
    const std::size_t e = i * entry_size;
    const std::size_t old = header_size + e;
    set<std::uint32_t>(table, e, f.size() >= old + 4 ? get<std::uint32_t>(f, old) : static_cast<std::uint32_t>(i + 1));
    set<std::uint64_t>(table, e + 8, off);
    set<std::uint64_t>(table, e + 16, bodies[i].size());
    set<std::uint32_t>(table, e + 24, crc(bodies[i].data(), bodies[i].size()));
    off += bodies[i].size();
  }
  out += table;
  std::string c(4, '\0');
  set<std::uint32_t>(c, 0, crc(table.data(), table.size()));
  out += c;
  for (const auto& b : bodies) out += b;
  return out;
}

/// Recomputes the header checksum after an edit of the header's fields.
inline void fix_header(std::string& f) {
  if (f.size() >= header_size) set<std::uint32_t>(f, header_size - 4, crc(f.data(), header_size - 4));
}

/// `f` with section `index` (0-based, table order) replaced by `body`, checksums recomputed.
inline std::string with_section(const std::string& f, std::size_t index, std::string body) {
  auto s = sections(f);
  if (!s || index >= s->size()) return f;
  (*s)[index] = std::move(body);
  return assemble(f, *s);
}

/// The FM-index section: u64 rows | u64 sentinel row | u64 zstd size | zstd(BWT) | the rest.
struct fm_section {
  std::uint64_t rows = 0, sentinel = 0;
  std::string bwt, rest;
};

inline std::optional<fm_section> parse_fm(const std::string& body) {
  if (body.size() < 24) return std::nullopt;
  fm_section fm;
  fm.rows = get<std::uint64_t>(body, 0);
  fm.sentinel = get<std::uint64_t>(body, 8);
  const auto zn = get<std::uint64_t>(body, 16);
  if (zn > body.size() - 24) return std::nullopt;
  const unsigned long long n = ZSTD_getFrameContentSize(body.data() + 24, zn);
  if (n == ZSTD_CONTENTSIZE_ERROR || n == ZSTD_CONTENTSIZE_UNKNOWN || n > (1u << 26)) return std::nullopt;
  fm.bwt.resize(n);
  if (ZSTD_decompress(fm.bwt.data(), n, body.data() + 24, zn) != n) return std::nullopt;
  fm.rest = body.substr(24 + zn);
  return fm;
}

/// The section with the BWT in `frames` zstd frames of about equal size (the writer cuts one
/// per 64 MiB), each with its content size unless `sizes` is false.
inline std::string compose_fm(const fm_section& fm, std::size_t frames = 1, bool sizes = true) {
  std::string z;
  for (std::size_t f = 0; f < frames; ++f) {
    const std::size_t b = fm.bwt.size() * f / frames, e = fm.bwt.size() * (f + 1) / frames;
    std::string part(ZSTD_compressBound(e - b), '\0');
    ZSTD_CCtx* cx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cx, ZSTD_c_contentSizeFlag, sizes ? 1 : 0);
    ZSTD_CCtx_setParameter(cx, ZSTD_c_compressionLevel, 1);
    part.resize(ZSTD_compress2(cx, part.data(), part.size(), fm.bwt.data() + b, e - b));
    ZSTD_freeCCtx(cx);
    z += part;
  }
  std::string out(24, '\0');
  set<std::uint64_t>(out, 0, fm.rows);
  set<std::uint64_t>(out, 8, fm.sentinel);
  set<std::uint64_t>(out, 16, z.size());
  return out + z + fm.rest;
}

/// The S'' text section (empty when not stored): u64 |S''| | u64 zstd size | zstd frames.
inline std::optional<std::string> parse_text(const std::string& body) {
  if (body.size() < 16) return std::nullopt;
  const auto len = get<std::uint64_t>(body, 0), zn = get<std::uint64_t>(body, 8);
  if (len > (1u << 26) || zn != body.size() - 16) return std::nullopt;
  std::string text(len, '\0');
  if (ZSTD_decompress(text.data(), len, body.data() + 16, zn) != len) return std::nullopt;
  return text;
}

/// The section of `text` claiming length `len`, in `frames` frames (each with its content size
/// unless `sizes` is false).
inline std::string compose_text(const std::string& text, std::uint64_t len, std::size_t frames = 1, bool sizes = true) {
  std::string z;
  for (std::size_t f = 0; f < frames; ++f) {
    const std::size_t b = text.size() * f / frames, e = text.size() * (f + 1) / frames;
    std::string part(ZSTD_compressBound(e - b), '\0');
    ZSTD_CCtx* cx = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(cx, ZSTD_c_contentSizeFlag, sizes ? 1 : 0);
    part.resize(ZSTD_compress2(cx, part.data(), part.size(), text.data() + b, e - b));
    ZSTD_freeCCtx(cx);
    z += part;
  }
  std::string out(16, '\0');
  set<std::uint64_t>(out, 0, len);
  set<std::uint64_t>(out, 8, z.size());
  return out + z;
}

/// The count index's section (src/index/run_bwt.hpp): u64 rows | u64 runs | u64 n_l | u64 zstd
/// size | zstd(lengths as LEB128) | u64 sentinel run | u64 zstd size | zstd(other heads - 1).
struct counts_section {
  std::uint64_t rows = 0;
  std::vector<std::uint64_t> lengths;
  std::uint64_t sentinel = 0;
  std::string heads;  ///< every run's symbol less one but the sentinel's
};

inline std::optional<counts_section> parse_counts(const std::string& body) {
  counts_section c;
  std::size_t at = 0;
  auto u64 = [&]() -> std::optional<std::uint64_t> {
    if (body.size() - at < 8) return std::nullopt;
    at += 8;
    return get<std::uint64_t>(body, at - 8);
  };
  auto unzstd = [&](std::uint64_t len) -> std::optional<std::string> {
    const auto zn = u64();
    if (!zn || *zn > body.size() - at || len > (1u << 26)) return std::nullopt;
    std::string out(len, '\0');
    if (ZSTD_decompress(out.data(), len, body.data() + at, *zn) != len) return std::nullopt;
    at += *zn;
    return out;
  };
  const auto rows = u64(), runs = u64(), nl = u64();
  if (!rows || !runs || !nl) return std::nullopt;
  c.rows = *rows;
  const auto lengths = unzstd(*nl);
  if (!lengths) return std::nullopt;
  for (std::size_t i = 0; i < lengths->size();) {
    std::uint64_t v = 0;
    for (unsigned shift = 0; i < lengths->size(); shift += 7) {
      const auto b = static_cast<unsigned char>((*lengths)[i++]);
      v |= static_cast<std::uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) break;
    }
    c.lengths.push_back(v);
  }
  const auto sentinel = u64();
  if (!sentinel || c.lengths.size() != *runs) return std::nullopt;
  c.sentinel = *sentinel;
  const auto heads = unzstd(*runs - 1);
  if (!heads || at != body.size()) return std::nullopt;
  c.heads = *heads;
  return c;
}

inline std::string zstd_field(const std::string& bytes) {
  std::string z(ZSTD_compressBound(bytes.size()), '\0');
  z.resize(ZSTD_compress(z.data(), z.size(), bytes.data(), bytes.size(), 1));
  std::string out(8, '\0');
  set<std::uint64_t>(out, 0, z.size());
  return out + z;
}

inline std::string compose_counts(const counts_section& c) {
  std::string lengths;
  for (std::uint64_t v : c.lengths) {
    for (; v >= 0x80; v >>= 7) lengths.push_back(static_cast<char>(v | 0x80));
    lengths.push_back(static_cast<char>(v));
  }
  std::string out(24, '\0');
  set<std::uint64_t>(out, 0, c.rows);
  set<std::uint64_t>(out, 8, c.lengths.size());
  set<std::uint64_t>(out, 16, lengths.size());
  out += zstd_field(lengths);
  std::string s(8, '\0');
  set<std::uint64_t>(s, 0, c.sentinel);
  return out + s + zstd_field(c.heads);
}

}  // namespace index_file
