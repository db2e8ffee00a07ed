// zstd_frames.cpp — byte strings in the index file as independent zstd frames (file_io.hpp),
// so that they compress and decompress in parallel.
#include <tbb/parallel_for.h>
#include <zstd.h>

#include "index/file_io.hpp"

namespace trawl::index::file {

void put_zstd(std::string& out, std::string_view bytes, std::size_t frame, int level) {
  const std::size_t frames = (bytes.size() + frame - 1) / frame;
  std::vector<std::string> z(frames);
  tbb::parallel_for(std::size_t{0}, frames, [&](std::size_t f) {
    const std::size_t b = f * frame, len = std::min(frame, bytes.size() - b);
    z[f].resize(ZSTD_compressBound(len));
    const std::size_t zn = ZSTD_compress(z[f].data(), z[f].size(), bytes.data() + b, len, level);
    if (ZSTD_isError(zn)) throw error(errc::io_error, std::string("index: zstd: ") + ZSTD_getErrorName(zn));
    z[f].resize(zn);
  });
  std::uint64_t zn = 0;
  for (const auto& f : z) zn += f.size();
  put<std::uint64_t>(out, zn);
  for (const auto& f : z) out += f;
}

std::string_view get_zstd_bytes(reader& r, std::uint64_t len, std::uint64_t max_expansion, const char* what) {
  const auto zn = r.get<std::uint64_t>();
  const std::string_view z = r.bytes(zn);
  if (len > max_expansion * zn + (1u << 20))
    bad(std::string(what) + " claims to expand more than " + std::to_string(max_expansion) + "-fold");
  return z;
}

void get_zstd(std::string_view z, char* out, std::uint64_t len, const char* what,
              const std::function<void(std::string_view)>& each_frame) {
  struct piece {
    std::string_view z;
    std::uint64_t at, len;
  };
  std::vector<piece> frames;  // each where its content size puts it
  std::uint64_t at = 0;
  const std::string why = std::string(what) + " does not decompress to its length";
  for (std::string_view rest = z; !rest.empty();) {
    const std::size_t fz = ZSTD_findFrameCompressedSize(rest.data(), rest.size());
    const unsigned long long fl = ZSTD_isError(fz) ? ZSTD_CONTENTSIZE_ERROR : ZSTD_getFrameContentSize(rest.data(), fz);
    if (fl == ZSTD_CONTENTSIZE_ERROR || fl == ZSTD_CONTENTSIZE_UNKNOWN || fl > len - at) bad(why);
    frames.push_back({rest.substr(0, fz), at, fl});
    at += fl;
    rest.remove_prefix(fz);
  }
  if (at != len) bad(why);
  tbb::parallel_for(std::size_t{0}, frames.size(), [&](std::size_t f) {
    const piece& p = frames[f];
    const std::size_t got = ZSTD_decompress(out + p.at, p.len, p.z.data(), p.z.size());
    if (ZSTD_isError(got) || got != p.len) bad(why);
    if (each_frame) each_frame(std::string_view(out + p.at, p.len));
  });
}

}  // namespace trawl::index::file
