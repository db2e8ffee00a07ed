// fuzz_index.cpp — the index loader and every query on hostile index files. The custom
// mutator edits one section (or the header and table, or the FM-index's BWT after
// decompressing it) and recomputes every checksum, so that most inputs get past the CRCs to
// the loader's structure checks and to the queries.
//
// Every input must load and answer, or fail with trawl::error(bad_format); a file that
// verify() passes must answer exactly as the naive oracle does on the text it extracts. Every
// other input is loaded from a file (a memfd), which load() reads a part at a time as the
// queries need them, and the rest from its bytes, which from_bytes() reads whole.
// TRAWL_WRITE_SEEDS=DIR makes the binary write its seed index files into DIR and exit;
// TRAWL_FUZZ_STATS=1 prints at exit how the inputs fared (refused, loaded, verified).
#include <sys/mman.h>
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "index_file.hpp"
#include "oracle.hpp"
#include "trawl/error.hpp"
#include "trawl/detail/testing.hpp"
#include "trawl/index.hpp"
#include "trawl/search.hpp"

extern "C" std::size_t LLVMFuzzerMutate(std::uint8_t* data, std::size_t size, std::size_t max_size);

namespace {

using trawl::index::hybrid_index;

struct outcome_counts {
  std::uint64_t runs = 0, refused_checksum = 0, refused = 0, loaded = 0, consistent = 0;
} counts;

void print_counts() {
  std::fprintf(stderr,
               "fuzz_index: %llu inputs: %llu refused by a checksum, %llu refused by the structure checks, "
               "%llu loaded (%llu of them consistent by verify, their answers checked)\n",
               static_cast<unsigned long long>(counts.runs), static_cast<unsigned long long>(counts.refused_checksum),
               static_cast<unsigned long long>(counts.refused), static_cast<unsigned long long>(counts.loaded),
               static_cast<unsigned long long>(counts.consistent));
}

std::vector<std::pair<std::string, std::string>> make_seeds() {
  std::mt19937_64 rng(1);
  const std::string base = oracle::random_text(rng, 300, "acgt");
  std::string rep;
  for (int c = 0; c < 5; ++c) {
    std::string copy = base;
    copy[rng() % copy.size()] = 'g';
    rep += copy;
  }
  const std::string words = "the lord said unto moses and the lord said unto aaron. ";
  std::string kjv;
  for (int i = 0; i < 12; ++i) kjv += words.substr(0, 20 + (i * 7) % 30);
  trawl::index::build_options fast, small, m1, text;
  fast.max_len = 8;
  text.max_len = 8;
  text.kernel_text = true;
  small.max_len = 6;
  small.profile = trawl::index::fm_profile::small;
  auto small_counts = small;
  small_counts.count_index = trawl::index::count_structure::on;
  m1.max_len = 1;
  return {
      {"rep-fast", hybrid_index::build(rep, "rep", fast).to_bytes()},
      {"rep-small", hybrid_index::build(rep, "rep", small).to_bytes()},
      {"rep-small-counts", hybrid_index::build(rep, "rep", small_counts).to_bytes()},
      {"kjv-fast", hybrid_index::build(kjv, "kjv", fast).to_bytes()},
      {"rep-text", hybrid_index::build(rep, "rep", text).to_bytes()},
      {"kjv-m1", hybrid_index::build(kjv, "kjv", m1).to_bytes()},
      {"bytes-256", hybrid_index::build(oracle::random_text(rng, 900, ""), "bin", fast).to_bytes()},
      {"fasta", hybrid_index::build(">a\nACGTACGTAC\n>b\n\n>c\nACGTACGTACGGT\n", "f.fa", m1).to_bytes()},
      {"one-byte", hybrid_index::build("a", "one").to_bytes()},
      {"empty", hybrid_index::build("", "empty").to_bytes()},
  };
}

/// Valid files: half of the mutations start from one of them rather than from the input, so
/// that many mutants are one edit away from a consistent index.
std::vector<std::pair<std::string, std::string>> seeds;

/// The queries, on a loaded index; after verify() passes, their answers are checked.
void exercise(const hybrid_index& ix) {
  (void)ix.info();
  const std::uint64_t n = ix.size();
  std::string sample;
  try {
    sample = ix.extract(n / 3, std::min<std::uint64_t>(n - n / 3, 40));
  } catch (const trawl::error&) {
  }
  std::vector<std::string> pats = {"a", "ac", "the lord"};
  for (std::size_t len : {1, 3, 7, 12, 33})
    if (sample.size() >= len) pats.push_back(sample.substr(0, len));
  trawl::index::locate_options serial, one;
  serial.engine = trawl::index::locate_engine::serial;
  one.threads = 1;
  const bool consistent = ix.verify().empty();
  counts.consistent += consistent;
  const std::string text = consistent ? ix.extract(0, n) : std::string();
  for (const auto& p : pats) {
    std::vector<std::uint64_t> a, b;
    std::uint64_t by_recursion = 0, by_leaves = 0, by_phrases = 0, by_runs = 0;
    try {
      a = ix.locate(p, serial);
      b = ix.locate(p, one);
      (void)ix.count(p, one);
      using trawl::index::detail::count_path;
      by_recursion = trawl::index::detail::index_access::count(ix, p, false, count_path::recursion);
      by_leaves = trawl::index::detail::index_access::count(ix, p, false, count_path::leaves);
      by_phrases = trawl::index::detail::index_access::count(ix, p, false, count_path::phrases);
      by_runs = trawl::index::detail::index_access::count(ix, p, false, count_path::runs);
    } catch (const trawl::error& e) {
      if (consistent || e.code() != trawl::errc::bad_format) std::abort();
      continue;
    }
    if (consistent && (a != oracle::naive_find(text, p) || b != a || by_recursion != a.size() || by_leaves != a.size() ||
                       by_phrases != a.size() || by_runs != a.size()))
      std::abort();
  }
  try {
    (void)ix.search_records(pats, one);
    (void)ix.count_records(pats, one);
  } catch (const trawl::error& e) {
    if (consistent || e.code() != trawl::errc::bad_format) std::abort();
  }
  // approximate search through the index: on a consistent index, the hits of a search over
  // each extracted record
  trawl::search_options approx;
  approx.max_errors = 1;
  approx.both_strands = true;
  approx.threads = 1;
  std::vector<std::string> approx_pats;
  for (const auto& p : pats)
    if (p.size() >= 3 && p.find('\0') == std::string::npos) approx_pats.push_back(p);
  if (approx_pats.empty()) return;
  std::vector<trawl::index::record_hit> got;
  try {
    got = ix.search_records(approx_pats, approx);
  } catch (const trawl::error& e) {
    if (consistent || e.code() != trawl::errc::bad_format) std::abort();
    return;
  }
  if (!consistent) return;
  std::size_t at = 0;
  const auto recs = ix.records();
  for (std::uint32_t r = 0; r < recs.size(); ++r)
    for (const trawl::hit& h : trawl::search(std::string_view(text).substr(recs[r].start, recs[r].length), approx_pats, approx)) {
      if (at >= got.size() || got[at].record != r || !(got[at].h == h)) std::abort();
      ++at;
    }
  if (at != got.size()) std::abort();
}

/// The input as a file: a memfd, written again for each input, by its /proc path.
std::string as_file(std::string_view bytes) {
  static const int fd = ::memfd_create("fuzz_index", MFD_CLOEXEC);
  if (fd < 0 || ::ftruncate(fd, 0) != 0) std::abort();
  for (std::size_t at = 0; at < bytes.size();) {
    const ssize_t w = ::pwrite(fd, bytes.data() + at, bytes.size() - at, static_cast<off_t>(at));
    if (w <= 0) std::abort();
    at += static_cast<std::size_t>(w);
  }
  return "/proc/self/fd/" + std::to_string(fd);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  seeds = make_seeds();
  if (const char* dir = std::getenv("TRAWL_WRITE_SEEDS")) {
    std::filesystem::create_directories(dir);
    for (const auto& [name, bytes] : seeds) std::ofstream(std::filesystem::path(dir) / name, std::ios::binary) << bytes;
    std::exit(0);
  }
  if (std::getenv("TRAWL_FUZZ_STATS") != nullptr) std::atexit(print_counts);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ++counts.runs;
  try {
    const hybrid_index ix = counts.runs % 2 ? hybrid_index::load(as_file(bytes)) : hybrid_index::from_bytes(bytes);
    ++counts.loaded;
    exercise(ix);
  } catch (const trawl::error& e) {
    if (e.code() != trawl::errc::bad_format) std::abort();
    if (std::string_view(e.what()).find("checksum") != std::string_view::npos) ++counts.refused_checksum;
    else ++counts.refused;
  }
  return 0;
}

extern "C" std::size_t LLVMFuzzerCustomMutator(std::uint8_t* data, std::size_t size, std::size_t max_size,
                                               unsigned int seed) {
  std::mt19937 rng(seed);
  const std::string file = rng() % 2 ? std::string(reinterpret_cast<const char*>(data), size)
                                     : seeds[rng() % seeds.size()].second;
  auto secs = index_file::sections(file);
  std::string out;
  const unsigned how = rng() % 8;
  if (!secs || how == 0) {  // the raw bytes (header and table included), checksums fixed after
    out = file;
    out.resize(std::max<std::size_t>(out.size(), 1) + 64);
    out.resize(LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(out.data()), file.size(), out.size()));
    if (secs && rng() % 2 == 0) {
      index_file::fix_header(out);
      if (auto again = index_file::sections(out)) out = index_file::assemble(out, *again);
    }
  } else {
    // a section: its BWT or its S'' text edited in place (mostly loads: answers wrong, verify
    // must see it), a few bits flipped in place, or libFuzzer's mutations (sizes change too)
    constexpr std::size_t fm_at = 8, text_at = 9;  // table order (src/index/format.cpp)
    const std::size_t i = rng() % secs->size();
    std::string& body = (*secs)[i];
    auto fm = i == fm_at && how <= 3 ? index_file::parse_fm(body) : std::nullopt;
    auto text = i == text_at && how <= 3 ? index_file::parse_text(body) : std::nullopt;
    std::string& target = fm ? fm->bwt : text ? *text : body;
    const bool recompose = fm || text;
    if (!target.empty() && (recompose || how <= 5)) {
      for (unsigned e = 1 + rng() % 3; e > 0; --e) {
        const std::size_t a = rng() % target.size(), b = rng() % target.size();
        if (!recompose) target[a] = static_cast<char>(target[a] ^ (1 << (rng() % 8)));
        else if (rng() % 2) std::swap(target[a], target[b]);
        else target[a] = target[b];
      }
    } else {
      const std::size_t len = target.size();
      target.resize(len + 64);
      target.resize(LLVMFuzzerMutate(reinterpret_cast<std::uint8_t*>(target.data()), len, target.size()));
    }
    if (fm) body = index_file::compose_fm(*fm);
    if (text) body = index_file::compose_text(*text, text->size());
    out = index_file::assemble(file, *secs);
  }
  if (out.size() > max_size) return size;  // libFuzzer keeps the input as it was
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
