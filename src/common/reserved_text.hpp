// reserved_text.hpp — a text that has an address but no bytes in host memory: an address
// range reserved with no access, standing for bytes kept elsewhere (a genome kept two bits a
// base, its copy on the GPU). Searches take it as a string_view, and find its copy on the GPU
// by that address (gpu::keep_resident); the few host reads they make, around their hits, go
// through its reader. A read of its bytes by address is a bug, and faults. Cost: address space
// only; reserved_of takes a lock and looks through the live reserved texts.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

namespace trawl::detail {

/// Writes bytes [pos, pos + n) of a reserved text to `out`. Called from several threads at once.
using text_reader = std::function<void(std::uint64_t pos, std::size_t n, char* out)>;

class reserved_text {
 public:
  /// n bytes of address space, read by `read`. Throws trawl::error(io_error) when the
  /// address space cannot be reserved.
  reserved_text(std::size_t n, text_reader read);
  ~reserved_text();
  reserved_text(const reserved_text&) = delete;
  reserved_text& operator=(const reserved_text&) = delete;

  [[nodiscard]] std::string_view view() const noexcept { return {base_, size_}; }
  [[nodiscard]] const text_reader& reader() const noexcept { return read_; }

 private:
  char* base_ = nullptr;
  std::size_t size_ = 0;
  text_reader read_;
};

/// Where a sequence lies in a reserved text: its reader, and the text's byte at seq[0].
struct reserved_view {
  const text_reader* read = nullptr;  ///< null: the sequence is ordinary memory
  std::uint64_t origin = 0;
  explicit operator bool() const noexcept { return read != nullptr; }
};

/// Where `seq` lies in the reserved text that holds all of it, or nothing when seq is ordinary
/// memory. Valid while that text lives.
reserved_view reserved_of(std::string_view seq);

/// Bytes [a, b) of seq (clipped to it): a view of seq, or for a sequence in a reserved text
/// (`where`, from reserved_of(seq)) the bytes read into `buf`.
std::string_view read_bytes(std::string_view seq, const reserved_view& where, std::uint64_t a, std::uint64_t b,
                            std::string& buf);

}  // namespace trawl::detail
