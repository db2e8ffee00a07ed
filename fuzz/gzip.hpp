// gzip.hpp — a gzip member of a string, for the fuzz targets' seeds and sandbox files.
#pragma once

#include <zlib.h>

#include <string>

/// With `extra`, `name` or `comment` (non-empty) and `hcrc`, the member's header carries FEXTRA,
/// FNAME, FCOMMENT and FHCRC, as bgzip's (FEXTRA) and some archivers' headers do.
inline std::string gzip(const std::string& s, const std::string& extra = {}, const std::string& name = {},
                        const std::string& comment = {}, bool hcrc = false) {
  z_stream zs{};
  deflateInit2(&zs, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
  gz_header h{};
  h.extra = reinterpret_cast<Bytef*>(const_cast<char*>(extra.data()));
  h.extra_len = static_cast<uInt>(extra.size());
  h.name = name.empty() ? Z_NULL : reinterpret_cast<Bytef*>(const_cast<char*>(name.c_str()));
  h.comment = comment.empty() ? Z_NULL : reinterpret_cast<Bytef*>(const_cast<char*>(comment.c_str()));
  h.hcrc = hcrc ? 1 : 0;
  if (!extra.empty() || !name.empty() || !comment.empty() || hcrc) {
    if (extra.empty()) h.extra = Z_NULL;
    deflateSetHeader(&zs, &h);
  }
  std::string out(deflateBound(&zs, static_cast<uLong>(s.size())) + 32, '\0');
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(s.data()));
  zs.avail_in = static_cast<uInt>(s.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  deflate(&zs, Z_FINISH);
  out.resize(zs.total_out);
  deflateEnd(&zs);
  return out;
}
