// input_buffer.cpp — one input's bytes: a read-only memory map for regular files, an in-memory
// copy for pipes and stdin, zlib-inflated bytes for gzip input. O(n) for reads, O(1) to map.
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {

struct input_buffer::impl {
  std::string name;
  const char* map = nullptr;  // mmap'ed region, or nullptr
  std::size_t map_len = 0;
  std::string owned;          // bytes read or inflated
  bool gzip = false;

  ~impl() {
    if (map != nullptr) munmap(const_cast<char*>(map), map_len);
  }
  [[nodiscard]] std::string_view bytes() const { return map != nullptr ? std::string_view(map, map_len) : owned; }
};

namespace {

[[noreturn]] void fail_errno(const std::string& path, const char* what) {
  throw error(errc::io_error, path + ": " + what + ": " + std::strerror(errno));
}

bool is_gzip(std::string_view b) {
  return b.size() >= 2 && static_cast<unsigned char>(b[0]) == 0x1f && static_cast<unsigned char>(b[1]) == 0x8b;
}

/// Inflates every gzip member of `in` (concatenated members are legal gzip).
std::string gunzip(std::string_view in, const std::string& path) {
  std::string out;
  out.resize(std::max<std::size_t>(in.size() * 3, 1 << 16));
  z_stream zs{};
  if (inflateInit2(&zs, 15 + 32) != Z_OK) throw error(errc::bad_format, path + ": cannot initialise zlib");
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data()));
  std::size_t consumed = 0, produced = 0;
  for (;;) {
    const std::size_t in_chunk = std::min<std::size_t>(in.size() - consumed, 1u << 30);
    zs.avail_in = static_cast<uInt>(in_chunk);
    if (produced == out.size()) out.resize(out.size() * 2);
    const std::size_t out_chunk = std::min<std::size_t>(out.size() - produced, 1u << 30);
    zs.next_out = reinterpret_cast<Bytef*>(out.data() + produced);
    zs.avail_out = static_cast<uInt>(out_chunk);
    const int rc = inflate(&zs, Z_NO_FLUSH);
    consumed += in_chunk - zs.avail_in;
    produced += out_chunk - zs.avail_out;
    if (rc == Z_STREAM_END) {
      // Skip padding zeros, then another member may follow.
      while (consumed < in.size() && in[consumed] == '\0') ++consumed;
      if (consumed >= in.size()) break;
      if (!is_gzip(in.substr(consumed))) {
        inflateEnd(&zs);
        throw error(errc::bad_format, path + ": trailing garbage after gzip data");
      }
      inflateReset(&zs);
      zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(in.data() + consumed));
      continue;
    }
    if (rc != Z_OK && rc != Z_BUF_ERROR) {
      inflateEnd(&zs);
      throw error(errc::bad_format, path + ": corrupt gzip data");
    }
    if (rc == Z_BUF_ERROR && consumed >= in.size() && zs.avail_out != 0) {
      inflateEnd(&zs);
      throw error(errc::bad_format, path + ": truncated gzip data");
    }
  }
  inflateEnd(&zs);
  out.resize(produced);
  return out;
}

std::string read_all(int fd, const std::string& path) {
  std::string data;
  std::size_t len = 0;
  data.resize(1 << 20);
  for (;;) {
    if (len == data.size()) data.resize(data.size() * 2);
    const ssize_t r = ::read(fd, data.data() + len, data.size() - len);
    if (r < 0) {
      if (errno == EINTR) continue;
      fail_errno(path, "read error");
    }
    if (r == 0) break;
    len += static_cast<std::size_t>(r);
  }
  data.resize(len);
  return data;
}

std::atomic<bool> g_sigbus_seen{false};
long g_page_size = 4096;

void on_sigbus(int, siginfo_t* info, void*) {
  // A mapped file shrank under us. Map a zero page over the faulting page so the read can be
  // retried, and remember it; callers check sigbus_seen() before trusting results.
  auto addr = reinterpret_cast<std::uintptr_t>(info->si_addr) & ~static_cast<std::uintptr_t>(g_page_size - 1);
  void* p = mmap(reinterpret_cast<void*>(addr), static_cast<std::size_t>(g_page_size), PROT_READ,
                 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
  if (p == MAP_FAILED) _exit(2);
  g_sigbus_seen.store(true);
}

}  // namespace

void install_sigbus_guard() {
  g_page_size = sysconf(_SC_PAGESIZE);
  struct sigaction sa {};
  sa.sa_sigaction = on_sigbus;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGBUS, &sa, nullptr);
}

bool sigbus_seen() noexcept { return g_sigbus_seen.load(); }

input_buffer::input_buffer() : impl_(std::make_unique<impl>()) {}
input_buffer::~input_buffer() = default;
input_buffer::input_buffer(input_buffer&&) noexcept = default;
input_buffer& input_buffer::operator=(input_buffer&&) noexcept = default;

std::string_view input_buffer::bytes() const noexcept { return impl_->bytes(); }
const std::string& input_buffer::name() const noexcept { return impl_->name; }
bool input_buffer::is_mapped() const noexcept { return impl_->map != nullptr; }
bool input_buffer::was_gzip() const noexcept { return impl_->gzip; }

input_buffer input_buffer::from_string(std::string bytes, std::string name) {
  input_buffer b;
  b.impl_->name = std::move(name);
  if (is_gzip(bytes)) {
    b.impl_->owned = gunzip(bytes, b.impl_->name);
    b.impl_->gzip = true;
  } else {
    b.impl_->owned = std::move(bytes);
  }
  return b;
}

input_buffer input_buffer::open(const std::string& path) {
  input_buffer b;
  b.impl_->name = path;
  int fd = 0;
  const bool is_stdin = path == "-";
  if (!is_stdin) {
    fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) fail_errno(path, "cannot open");
  }
  struct closer {
    int fd;
    bool own;
    ~closer() {
      if (own) ::close(fd);
    }
  } guard{fd, !is_stdin};
  struct stat st {};
  if (fstat(fd, &st) != 0) fail_errno(path, "cannot stat");
  if (S_ISDIR(st.st_mode)) throw error(errc::io_error, path + ": is a directory");
  if (S_ISREG(st.st_mode) && st.st_size > 0) {
    const auto len = static_cast<std::size_t>(st.st_size);
    void* p = mmap(nullptr, len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (p == MAP_FAILED) fail_errno(path, "cannot map");
    madvise(p, len, MADV_SEQUENTIAL);  // advice only; failures are harmless
    madvise(p, len, MADV_WILLNEED);
    b.impl_->map = static_cast<const char*>(p);
    b.impl_->map_len = len;
  } else {
    b.impl_->owned = read_all(fd, path);
  }
  if (is_gzip(b.impl_->bytes())) {
    std::string inflated = gunzip(b.impl_->bytes(), path);
    if (b.impl_->map != nullptr) {
      munmap(const_cast<char*>(b.impl_->map), b.impl_->map_len);
      b.impl_->map = nullptr;
      b.impl_->map_len = 0;
    }
    b.impl_->owned = std::move(inflated);
    b.impl_->gzip = true;
  }
  return b;
}

}  // namespace trawl::io
