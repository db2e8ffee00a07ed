// input_buffer.cpp — one input's bytes whole: a read-only memory map for regular files, read
// (and decompressed) into memory otherwise (streams.cpp); and the SIGBUS guard for mappings.
// O(n) for reads, O(1) to map.
#include <signal.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/detail/sigbus.hpp"

namespace trawl::io {

struct input_buffer::impl {
  std::string name;
  source mapped;       // a mapped regular file, or empty
  std::string owned;   // bytes read or decompressed
  bool compressed = false;
  format named = format::automatic;

  [[nodiscard]] std::string_view bytes() const { return mapped.is_mapped() ? mapped.mapped() : owned; }
};

namespace {

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
bool input_buffer::is_mapped() const noexcept { return impl_->mapped.is_mapped(); }
bool input_buffer::was_compressed() const noexcept { return impl_->compressed; }
format input_buffer::named_format() const noexcept { return impl_->named; }

input_buffer input_buffer::from_string(std::string bytes, std::string name) {
  input_buffer b;
  b.impl_->name = name;
  auto src = source::from_stream(memory_stream(bytes), std::move(name));
  b.impl_->compressed = src.compressed() != compression::none;
  b.impl_->named = src.named_format();
  b.impl_->owned = b.impl_->compressed ? read_all(src.stream()) : std::move(bytes);
  return b;
}

input_buffer input_buffer::open(const std::string& path, bool one_text) {
  input_buffer b;
  b.impl_->name = path;
  auto src = source::open(path);
  if (one_text && !src.twobit().empty())
    throw error(errc::invalid_argument, (path == "-" ? std::string("(standard input)") : src.name()) +
                                            ": a .2bit genome is read as its records, not as one text");
  b.impl_->compressed = src.compressed() != compression::none;
  b.impl_->named = src.named_format();
  if (src.is_mapped()) b.impl_->mapped = std::move(src);
  else b.impl_->owned = read_all(src.stream());
  return b;
}

}  // namespace trawl::io
