// guarded_text.hpp — a copy of a text between two inaccessible pages, touching one of them, so
// that a test crashes when an engine reads a byte before or after the text.
#pragma once

#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <stdexcept>
#include <string_view>

namespace oracle {

class guarded_text {
 public:
  /// at_start: the text begins right after the low guard page; else it ends at the high one.
  guarded_text(std::string_view t, bool at_start) {
    const std::size_t page = static_cast<std::size_t>(sysconf(_SC_PAGESIZE));
    const std::size_t body = (t.size() + page - 1) / page * page + (t.empty() ? page : 0);
    size_ = body + 2 * page;
    void* mem = mmap(nullptr, size_, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (mem == MAP_FAILED) throw std::runtime_error("mmap failed");
    base_ = static_cast<char*>(mem);
    char* text = at_start ? base_ + page : base_ + page + body - t.size();
    std::memcpy(text, t.data(), t.size());
    if (mprotect(base_, page, PROT_NONE) != 0 || mprotect(base_ + page + body, page, PROT_NONE) != 0)
      throw std::runtime_error("mprotect failed");
    view_ = std::string_view(text, t.size());
  }
  ~guarded_text() { munmap(base_, size_); }
  guarded_text(const guarded_text&) = delete;
  guarded_text& operator=(const guarded_text&) = delete;
  [[nodiscard]] std::string_view view() const { return view_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  std::string_view view_;
};

}  // namespace oracle
