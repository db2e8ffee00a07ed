// streams.cpp — byte streams (file descriptors, memory, gzip by ISA-L or zlib, zstd) and
// sources: a mapped regular file, or a stream with its compression detected from its first
// bytes. Decompressors keep one input buffer each: memory does not grow with the input.
#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>
#include <zstd.h>
#ifdef TRAWL_HAVE_ISAL
#include <isa-l/igzip_lib.h>
#include <isa-l/crc.h>
#endif

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "io/file_names.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {

namespace {

[[noreturn]] void fail_errno(const std::string& name, const char* what) {
  throw error(errc::io_error, name + ": " + what + ": " + std::strerror(errno));
}

constexpr std::size_t kInputBuffer = std::size_t{256} << 10;

class fd_reader final : public byte_stream {
 public:
  fd_reader(int fd, std::string name) : fd_(fd), name_(std::move(name)) {
    // A larger pipe buffer lets the writer run ahead and each read take up to 1 MiB.
    struct stat st {};
    if (fstat(fd, &st) == 0 && S_ISFIFO(st.st_mode)) fcntl(fd, F_SETPIPE_SZ, 1 << 20);
  }
  std::ptrdiff_t read(char* buf, std::size_t n, int timeout_ms) override {
    for (;;) {
      if (timeout_ms >= 0) {
        pollfd p{fd_, POLLIN, 0};
        const int r = ::poll(&p, 1, timeout_ms);
        if (r < 0 && errno != EINTR) fail_errno(name_, "read error");
        if (r == 0) return -1;
        if (r < 0) continue;
      }
      const ssize_t r = ::read(fd_, buf, n);
      if (r >= 0) return r;
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {  // a non-blocking descriptor: wait for bytes
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, timeout_ms) == 0) return -1;
        continue;
      }
      fail_errno(name_, "read error");
    }
  }

 private:
  int fd_;
  std::string name_;
};

class memory_reader final : public byte_stream {
 public:
  memory_reader(std::string_view bytes, std::size_t piece) : bytes_(bytes), piece_(piece) {}
  std::ptrdiff_t read(char* buf, std::size_t n, int) override {
    std::size_t len = std::min(n, bytes_.size() - pos_);
    if (piece_ != 0) len = std::min(len, piece_);
    std::memcpy(buf, bytes_.data() + pos_, len);
    pos_ += len;
    return static_cast<std::ptrdiff_t>(len);
  }

 private:
  std::string_view bytes_;
  std::size_t piece_, pos_ = 0;
};

/// A stream whose first bytes were read already (to detect the compression).
class prefixed_reader final : public byte_stream {
 public:
  prefixed_reader(std::string prefix, std::unique_ptr<byte_stream> inner)
      : prefix_(std::move(prefix)), inner_(std::move(inner)) {}
  std::ptrdiff_t read(char* buf, std::size_t n, int timeout_ms) override {
    if (pos_ < prefix_.size()) {
      const std::size_t len = std::min(n, prefix_.size() - pos_);
      std::memcpy(buf, prefix_.data() + pos_, len);
      pos_ += len;
      return static_cast<std::ptrdiff_t>(len);
    }
    return inner_->read(buf, n, timeout_ms);
  }

 private:
  std::string prefix_;
  std::size_t pos_ = 0;
  std::unique_ptr<byte_stream> inner_;
};

/// The compressed input of a decompressor: a buffer refilled from the inner stream.
class input_window {
 public:
  explicit input_window(std::unique_ptr<byte_stream> inner) : inner_(std::move(inner)), buf_(kInputBuffer) {}
  [[nodiscard]] const unsigned char* data() const { return buf_.data() + pos_; }
  [[nodiscard]] std::size_t size() const { return len_ - pos_; }
  void consume(std::size_t n) { pos_ += n; }
  /// Refills an empty window: 1 = bytes came, 0 = the inner stream ended, -1 = timed out.
  int refill(int timeout_ms) {
    pos_ = len_ = 0;
    if (ended_) return 0;
    const std::ptrdiff_t r = inner_->read(reinterpret_cast<char*>(buf_.data()), buf_.size(), timeout_ms);
    if (r < 0) return -1;
    if (r == 0) {
      ended_ = true;
      return 0;
    }
    len_ = static_cast<std::size_t>(r);
    return 1;
  }

 private:
  std::unique_ptr<byte_stream> inner_;
  std::vector<unsigned char> buf_;
  std::size_t pos_ = 0, len_ = 0;
  bool ended_ = false;
};

/// What a decompressor does between members / frames and at the end, shared by the codecs:
/// `step` decodes from the window into [out, out + n) and says how far it got.
template <class Codec>
class decompressor final : public byte_stream {
 public:
  decompressor(std::unique_ptr<byte_stream> inner, std::string name, const char* kind)
      : in_(std::move(inner)), name_(std::move(name)), kind_(kind) {}

  std::ptrdiff_t read(char* buf, std::size_t n, int timeout_ms) override {
    for (;;) {
      if (done_) return 0;
      if (codec_.between_members()) {
        if (in_.size() == 0) {
          const int r = in_.refill(timeout_ms);
          if (r < 0) return -1;
          if (r == 0) {
            done_ = true;
            return 0;
          }
        }
        // gzip: zero padding may follow a member; anything else must start a new member.
        if (!codec_.start_member(in_, name_)) continue;
      }
      // Decode first: the codec may hold output from the last call even with no input left.
      const std::size_t before = in_.size();
      const std::size_t produced = codec_.step(in_, reinterpret_cast<unsigned char*>(buf), n, name_);
      if (produced > 0) return static_cast<std::ptrdiff_t>(produced);
      if (codec_.between_members()) continue;
      if (in_.size() > 0) {
        if (in_.size() == before) throw error(errc::bad_format, name_ + ": corrupt " + kind_ + " data");
        continue;
      }
      const int r = in_.refill(timeout_ms);
      if (r < 0) return -1;
      if (r == 0) throw error(errc::bad_format, name_ + ": truncated " + kind_ + " data");
    }
  }

 private:
  input_window in_;
  std::string name_;
  const char* kind_;
  Codec codec_;
  bool done_ = false;
};

bool is_gzip_magic(const unsigned char* p, std::size_t n) { return n >= 2 && p[0] == 0x1f && p[1] == 0x8b; }

/// Skips gzip padding (zero bytes) after a member; false when the window ran dry. Throws on
/// bytes that cannot start another member.
bool next_gzip_member(input_window& in, const std::string& name) {
  while (in.size() > 0 && *in.data() == 0) in.consume(1);
  if (in.size() == 0) return false;
  if (*in.data() != 0x1f) throw error(errc::bad_format, name + ": trailing garbage after gzip data");
  return true;
}

class zlib_codec {
 public:
  zlib_codec() {
    if (inflateInit2(&zs_, 15 + 32) != Z_OK) throw error(errc::bad_format, "cannot initialise zlib");
  }
  ~zlib_codec() { inflateEnd(&zs_); }
  zlib_codec(const zlib_codec&) = delete;
  zlib_codec& operator=(const zlib_codec&) = delete;
  [[nodiscard]] bool between_members() const { return between_; }
  bool start_member(input_window& in, const std::string& name) {
    if (!next_gzip_member(in, name)) return false;
    inflateReset(&zs_);
    between_ = false;
    return true;
  }
  std::size_t step(input_window& in, unsigned char* out, std::size_t n, const std::string& name) {
    zs_.next_in = const_cast<Bytef*>(in.data());
    zs_.avail_in = static_cast<uInt>(std::min<std::size_t>(in.size(), 1u << 30));
    zs_.next_out = out;
    zs_.avail_out = static_cast<uInt>(std::min<std::size_t>(n, 1u << 30));
    const uInt avail_in = zs_.avail_in, avail_out = zs_.avail_out;
    const int rc = inflate(&zs_, Z_NO_FLUSH);
    in.consume(avail_in - zs_.avail_in);
    if (rc == Z_STREAM_END) between_ = true;
    else if (rc != Z_OK && rc != Z_BUF_ERROR) throw error(errc::bad_format, name + ": corrupt gzip data");
    return avail_out - zs_.avail_out;
  }

 private:
  z_stream zs_{};
  bool between_ = false;  // the first member starts at once: the caller checked the magic
};

#ifdef TRAWL_HAVE_ISAL
/// The length of the gzip member header (RFC 1952: the fixed ten bytes, then FEXTRA, FNAME,
/// FCOMMENT and FHCRC as its flags say) at the start of `h`, or 0 while `h` does not hold all
/// of it. Throws on a header that is not gzip's or whose CRC16 is wrong.
std::size_t gzip_header_length(std::string_view h, const std::string& name) {
  if (h.size() < 10) return 0;
  const auto u = [&](std::size_t i) -> unsigned { return static_cast<unsigned char>(h[i]); };
  if (u(0) != 0x1f || u(1) != 0x8b || u(2) != 8 || (u(3) & 0xe0u) != 0)
    throw error(errc::bad_format, name + ": corrupt gzip data (not a deflate member header)");
  const unsigned flags = u(3);
  std::size_t p = 10;
  if ((flags & 4u) != 0) {  // FEXTRA: its length, then its bytes
    if (h.size() < p + 2) return 0;
    p += 2 + (u(p) | u(p + 1) << 8);
    if (h.size() < p) return 0;
  }
  for (const unsigned zero_ended : {8u, 16u}) {  // FNAME, FCOMMENT
    if ((flags & zero_ended) == 0) continue;
    const std::size_t end = h.find('\0', p);
    if (end == std::string_view::npos) return 0;
    p = end + 1;
  }
  if ((flags & 2u) != 0) {  // FHCRC: the low 16 bits of the CRC-32 of the header before it
    if (h.size() < p + 2) return 0;
    const std::uint32_t crc = crc32_gzip_refl(0, reinterpret_cast<const unsigned char*>(h.data()), p);
    if ((u(p) | u(p + 1) << 8) != (crc & 0xffffu)) throw error(errc::bad_format, name + ": corrupt gzip header (header CRC)");
    p += 2;
  }
  return p;
}

/// ISA-L inflates each member's deflate data and checks its trailer; the member's header is
/// read here (isal_inflate's own header reader refuses valid FHCRC headers).
class isal_codec {
 public:
  isal_codec() { reset(); }
  [[nodiscard]] bool between_members() const { return between_; }
  bool start_member(input_window& in, const std::string& name) {
    if (!next_gzip_member(in, name)) return false;
    reset();
    return true;
  }
  std::size_t step(input_window& in, unsigned char* out, std::size_t n, const std::string& name) {
    if (!header_read_) {
      // the header's bytes, gathered across refills; the bytes after it stay in the window
      constexpr std::size_t max_header = std::size_t{1} << 20;
      const std::size_t before = header_.size();
      const std::size_t take = std::min(in.size(), max_header - before);
      header_.append(reinterpret_cast<const char*>(in.data()), take);
      const std::size_t len = gzip_header_length(header_, name);
      if (len == 0) {
        if (header_.size() >= max_header) throw error(errc::bad_format, name + ": corrupt gzip header (over 1 MiB)");
        in.consume(take);
        return 0;
      }
      in.consume(len - before);
      header_.clear();
      header_read_ = true;
    }
    st_->next_in = const_cast<std::uint8_t*>(in.data());
    st_->avail_in = static_cast<std::uint32_t>(std::min<std::size_t>(in.size(), 1u << 30));
    st_->next_out = out;
    st_->avail_out = static_cast<std::uint32_t>(std::min<std::size_t>(n, 1u << 30));
    const std::uint32_t avail_in = st_->avail_in, avail_out = st_->avail_out;
    const int rc = isal_inflate(st_.get());
    in.consume(avail_in - st_->avail_in);
    if (rc < 0 || rc == ISAL_NEED_DICT) throw error(errc::bad_format, name + ": corrupt gzip data");
    if (st_->block_state == ISAL_BLOCK_FINISH) between_ = true;
    return avail_out - st_->avail_out;
  }

 private:
  void reset() {
    if (!st_) st_ = std::make_unique<inflate_state>();
    isal_inflate_init(st_.get());
    st_->crc_flag = ISAL_GZIP_NO_HDR_VER;  // the trailer's CRC-32 checked
    between_ = false;
    header_read_ = false;
    header_.clear();
  }
  std::unique_ptr<inflate_state> st_;  // large (tens of KiB): on the heap
  bool between_ = false;
  bool header_read_ = false;
  std::string header_;  ///< the member header's bytes so far
};
#endif

class zstd_codec {
 public:
  zstd_codec() : dctx_(ZSTD_createDCtx()) {
    if (dctx_ == nullptr) throw error(errc::bad_format, "cannot initialise zstd");
  }
  ~zstd_codec() { ZSTD_freeDCtx(dctx_); }
  zstd_codec(const zstd_codec&) = delete;
  zstd_codec& operator=(const zstd_codec&) = delete;
  // zstd decodes concatenated frames itself; "between" = the last frame is complete.
  [[nodiscard]] bool between_members() const { return complete_; }
  bool start_member(input_window&, const std::string&) {
    complete_ = false;
    return true;
  }
  std::size_t step(input_window& in, unsigned char* out, std::size_t n, const std::string& name) {
    ZSTD_inBuffer ib{in.data(), in.size(), 0};
    ZSTD_outBuffer ob{out, n, 0};
    const std::size_t rc = ZSTD_decompressStream(dctx_, &ob, &ib);
    in.consume(ib.pos);
    if (ZSTD_isError(rc) != 0u)
      throw error(errc::bad_format, name + ": corrupt zstd data (" + ZSTD_getErrorName(rc) + ")");
    complete_ = rc == 0;
    return ob.pos;
  }

 private:
  ZSTD_DCtx* dctx_;
  bool complete_ = false;
};

/// Reads up to n bytes, waiting as long as it takes (fewer only at the end).
std::string read_prefix(byte_stream& in, std::size_t n) {
  std::string out(n, '\0');
  std::size_t len = 0;
  while (len < n) {
    const std::ptrdiff_t r = in.read(out.data() + len, n - len, -1);
    if (r <= 0) break;
    len += static_cast<std::size_t>(r);
  }
  out.resize(len);
  return out;
}

compression detect_compression(std::string_view b) {
  const auto* p = reinterpret_cast<const unsigned char*>(b.data());
  if (is_gzip_magic(p, b.size())) return compression::gzip;
  if (b.size() >= 4 && p[0] == 0x28 && p[1] == 0xb5 && p[2] == 0x2f && p[3] == 0xfd) return compression::zstd;
  // a skippable frame (pzstd and seekable zstd write one first); the decoder skips it
  if (b.size() >= 4 && (p[0] & 0xf0) == 0x50 && p[1] == 0x2a && p[2] == 0x4d && p[3] == 0x18) return compression::zstd;
  if (is_twobit(b)) return compression::twobit;
  return compression::none;
}

}  // namespace

bool have_isal() noexcept {
#ifdef TRAWL_HAVE_ISAL
  return true;
#else
  return false;
#endif
}

std::unique_ptr<byte_stream> fd_stream(int fd, std::string name) {
  return std::make_unique<fd_reader>(fd, std::move(name));
}

std::unique_ptr<byte_stream> memory_stream(std::string_view bytes, std::size_t piece) {
  return std::make_unique<memory_reader>(bytes, piece);
}

std::unique_ptr<byte_stream> gzip_stream(std::unique_ptr<byte_stream> inner, std::string name, inflater which) {
#ifdef TRAWL_HAVE_ISAL
  if (which != inflater::zlib)
    return std::make_unique<decompressor<isal_codec>>(std::move(inner), std::move(name), "gzip");
#else
  if (which == inflater::isal) throw error(errc::unsupported, "trawl was built without ISA-L");
#endif
  return std::make_unique<decompressor<zlib_codec>>(std::move(inner), std::move(name), "gzip");
}

std::unique_ptr<byte_stream> zstd_stream(std::unique_ptr<byte_stream> inner, std::string name) {
  return std::make_unique<decompressor<zstd_codec>>(std::move(inner), std::move(name), "zstd");
}

std::string read_all(byte_stream& in) {
  std::string data;
  std::size_t len = 0;
  data.resize(std::size_t{1} << 16);
  for (;;) {
    if (len == data.size()) data.resize(data.size() * 2);
    const std::ptrdiff_t r = in.read(data.data() + len, data.size() - len, -1);
    if (r <= 0) break;
    len += static_cast<std::size_t>(r);
  }
  data.resize(len);
  return data;
}

// ---- source ------------------------------------------------------------------------------

struct source::impl {
  std::string name;
  int fd = -1;  // owned (files), or -1
  const char* map = nullptr;
  std::size_t map_len = 0;
  bool unmap = true;  // map came from mmap (false: the caller's memory)
  std::unique_ptr<byte_stream> stream;
  compression comp = compression::none;
  std::uint64_t file_size = 0;  // regular files
  format named = format::automatic;  // what the file's name says
  std::string whole;  // a .2bit read from a stream (its index points anywhere in it)

  ~impl() {
    stream.reset();  // before the mapping it may read
    if (map != nullptr && unmap) munmap(const_cast<char*>(map), map_len);
    if (fd >= 0) ::close(fd);
  }

  /// Wraps a raw stream in the decompressor its first bytes call for.
  void wrap(std::unique_ptr<byte_stream> raw, const open_options& o) {
    std::string head = read_prefix(*raw, 4);
    comp = detect_compression(head);
    auto s = std::make_unique<prefixed_reader>(std::move(head), std::move(raw));
    if (comp == compression::gzip) stream = gzip_stream(std::move(s), name, o.gzip);
    else if (comp == compression::zstd) stream = zstd_stream(std::move(s), name);
    else if (comp == compression::twobit) twobit_over(read_all(*s));
    else stream = std::move(s);
    if (comp != compression::gzip && comp != compression::zstd) return;
    // a compressed .2bit: decompressed whole, then read as one
    std::string inner = read_prefix(*stream, 4);
    auto d = std::make_unique<prefixed_reader>(inner, std::move(stream));
    if (is_twobit(inner)) {
      twobit_over(read_all(*d));
      comp = compression::twobit;
    } else {
      stream = std::move(d);
    }
  }

  /// A .2bit file's FASTA text, over `bytes` kept here.
  void twobit_over(std::string bytes) {
    whole = std::move(bytes);
    stream = twobit_stream(whole, name);
    named = format::fasta;
  }
};

source::source() : impl_(std::make_unique<impl>()) {}
source::~source() = default;
source::source(source&&) noexcept = default;
source& source::operator=(source&&) noexcept = default;

const std::string& source::name() const noexcept { return impl_->name; }
format source::named_format() const noexcept { return impl_->named; }
bool source::is_mapped() const noexcept { return impl_->map != nullptr && impl_->comp == compression::none; }
std::string_view source::mapped() const noexcept {
  return impl_->map != nullptr ? std::string_view(impl_->map, impl_->map_len) : std::string_view();
}
byte_stream& source::stream() {
  if (!impl_->stream) impl_->stream = memory_stream(mapped());
  return *impl_->stream;
}
compression source::compressed() const noexcept { return impl_->comp; }
std::string_view source::twobit() const noexcept {
  if (impl_->comp != compression::twobit) return {};
  return !impl_->whole.empty() ? std::string_view(impl_->whole) : std::string_view(impl_->map, impl_->map_len);
}
std::uint64_t source::expected_size() const noexcept {
  if (is_mapped()) return impl_->map_len;
  return impl_->comp != compression::none ? impl_->file_size * 4 : impl_->file_size;
}

source source::from_stream(std::unique_ptr<byte_stream> stream, std::string name, const open_options& options) {
  source s;
  s.impl_->name = std::move(name);
  s.impl_->wrap(std::move(stream), options);
  return s;
}

source source::from_memory(std::string_view bytes, std::string name, const open_options& options) {
  if (is_twobit(bytes.substr(0, 4))) {  // decoded in place
    source s;
    s.impl_->name = std::move(name);
    s.impl_->comp = compression::twobit;
    s.impl_->named = format::fasta;
    s.impl_->map = bytes.data();
    s.impl_->map_len = bytes.size();
    s.impl_->unmap = false;
    s.impl_->stream = twobit_stream(bytes, s.impl_->name);
    return s;
  }
  if (detect_compression(bytes.substr(0, 4)) != compression::none) return from_stream(memory_stream(bytes), std::move(name), options);
  source s;
  s.impl_->name = std::move(name);
  s.impl_->map = bytes.data() != nullptr ? bytes.data() : "";
  s.impl_->map_len = bytes.size();
  s.impl_->unmap = false;
  return s;
}

source source::open(const std::string& path, const open_options& options) {
  source s = open_any(path, options);
  // a file named .2bit that is not one is damaged: read as text, it would give no hit or false ones
  if (path != "-" && s.impl_->comp != compression::twobit && detail::bare_name(path).ends_with(".2bit"))
    throw error(errc::bad_format, s.impl_->name + ": not a .2bit file: it does not start with the .2bit signature");
  return s;
}

source source::open_any(const std::string& path, const open_options& options) {
  source s;
  impl& d = *s.impl_;
  d.name = options.name.empty() ? path : options.name;
  const bool is_stdin = path == "-";
  if (!is_stdin) d.named = format_of_name(path);
  int fd = 0;
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(d.name, "cannot open");
    d.fd = fd;
  }
  struct stat st {};
  if (fstat(fd, &st) != 0) fail_errno(d.name, "cannot stat");
  if (S_ISDIR(st.st_mode)) throw error(errc::io_error, d.name + ": is a directory");
  if (S_ISREG(st.st_mode)) d.file_size = static_cast<std::uint64_t>(st.st_size);
  // Regular files with a size are mapped; procfs and sysfs files (size 0, or not mappable),
  // devices and pipes are read.
  if (options.map && S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto len = static_cast<std::size_t>(st.st_size);
    void* p = mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p != MAP_FAILED) {
      const compression c = detect_compression(std::string_view(static_cast<const char*>(p), std::min<std::size_t>(len, 4)));
      if (c == compression::twobit) {  // decoded from the mapping, in file order
        madvise(p, len, MADV_WILLNEED);
        d.map = static_cast<const char*>(p);
        d.map_len = len;
        d.comp = compression::twobit;
        d.named = format::fasta;
        d.stream = twobit_stream(std::string_view(d.map, len), d.name);
        return s;
      }
      // A compressed file is read, not mapped: its pages would count against the process.
      if (c == compression::none) {
        madvise(p, len, MADV_SEQUENTIAL);  // advice only; failures are harmless
        madvise(p, len, MADV_WILLNEED);
        d.map = static_cast<const char*>(p);
        d.map_len = len;
        return s;
      }
      munmap(p, len);
    }
  }
  d.wrap(fd_stream(fd, d.name), options);
  return s;
}

}  // namespace trawl::io
