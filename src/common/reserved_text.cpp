// reserved_text.cpp — see reserved_text.hpp.
#include "common/reserved_text.hpp"

#include <sys/mman.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "trawl/error.hpp"

namespace trawl::detail {
namespace {

struct registry {
  std::mutex m;
  std::vector<const reserved_text*> texts;
  static registry& instance() {
    static registry* r = new registry;  // leaked on purpose: texts may outlive static destruction
    return *r;
  }
};

}  // namespace

reserved_text::reserved_text(std::size_t n, text_reader read) : size_(n), read_(std::move(read)) {
  // one byte at least, so that an empty text has an address of its own
  void* p = mmap(nullptr, std::max<std::size_t>(n, 1), PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (p == MAP_FAILED)
    throw error(errc::io_error, "cannot reserve " + std::to_string(n) + " bytes of address space: " + std::strerror(errno));
  base_ = static_cast<char*>(p);
  try {
    registry& r = registry::instance();
    const std::lock_guard<std::mutex> lock(r.m);
    r.texts.push_back(this);
  } catch (...) {
    munmap(base_, std::max<std::size_t>(size_, 1));
    throw;
  }
}

reserved_text::~reserved_text() {
  {
    registry& r = registry::instance();
    const std::lock_guard<std::mutex> lock(r.m);
    r.texts.erase(std::remove(r.texts.begin(), r.texts.end(), this), r.texts.end());
  }
  munmap(base_, std::max<std::size_t>(size_, 1));
}

reserved_view reserved_of(std::string_view seq) {
  registry& r = registry::instance();
  const std::lock_guard<std::mutex> lock(r.m);
  for (const reserved_text* t : r.texts) {
    const std::string_view v = t->view();
    if (seq.data() >= v.data() && seq.data() + seq.size() <= v.data() + v.size())
      return {&t->reader(), static_cast<std::uint64_t>(seq.data() - v.data())};
  }
  return {};
}

std::string_view read_bytes(std::string_view seq, const reserved_view& where, std::uint64_t a, std::uint64_t b,
                            std::string& buf) {
  a = std::min<std::uint64_t>(a, seq.size());
  b = std::min<std::uint64_t>(std::max(a, b), seq.size());
  if (!where) return seq.substr(a, b - a);
  buf.resize(b - a);
  (*where.read)(where.origin + a, b - a, buf.data());
  return buf;
}

}  // namespace trawl::detail
