// sdsl_ram.hpp — sdsl's in-memory cache files, for the sdsl structures that are built only
// from a file (wavelet trees from an int_vector_buffer): a cache of this process's own, and
// int_vectors serialized straight into it.
#pragma once

#include <unistd.h>

#include <atomic>
#include <ostream>
#include <streambuf>
#include <string>
#include <vector>

#include <sdsl/config.hpp>
#include <sdsl/ram_fs.hpp>
#include <sdsl/util.hpp>

namespace trawl::index {

/// A stream buffer that appends to a vector (reserved by its owner).
class vector_sink : public std::streambuf {
 public:
  explicit vector_sink(std::vector<char>& v) : v_(v) {}

 protected:
  std::streamsize xsputn(const char* s, std::streamsize n) override {
    v_.insert(v_.end(), s, s + n);
    return n;
  }
  int_type overflow(int_type c) override {
    if (!traits_type::eq_int_type(c, traits_type::eof())) v_.push_back(traits_type::to_char_type(c));
    return traits_type::not_eof(c);
  }

 private:
  std::vector<char>& v_;
};

/// An sdsl cache in RAM ("@" files) under a name no other cache of the process has; its files
/// are removed with it.
struct ram_cache {
  sdsl::cache_config cfg{false, "@", next_id()};
  ram_cache() = default;
  ram_cache(const ram_cache&) = delete;
  ram_cache& operator=(const ram_cache&) = delete;
  ~ram_cache() { sdsl::util::delete_all_files(cfg.file_map); }

 private:
  static std::string next_id() {
    static std::atomic<std::uint64_t> next{0};
    return "trawl_" + std::to_string(::getpid()) + "_" + std::to_string(next++);
  }
};

/// Puts an int_vector into sdsl's RAM file system as the cache file `key`, serialized straight
/// into the file's bytes.
template <class IntVector>
void store_in_ram(const IntVector& v, const char* key, sdsl::cache_config& cfg) {
  sdsl::ram_fs::content_type bytes;
  bytes.reserve(v.capacity() / 8 + 64);  // the words and a header
  vector_sink sink(bytes);
  std::ostream os(&sink);
  v.serialize(os);
  const std::string file = sdsl::cache_file_name(key, cfg);
  sdsl::ram_fs::store(file, std::move(bytes));
  cfg.file_map[key] = file;
}

}  // namespace trawl::index
