// run_bwt.cpp — building, reading and querying the run-length BWT (run_bwt.hpp).
#include "index/run_bwt.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

#include "index/file_io.hpp"
#include "index/index_impl.hpp"
#include "index/sdsl_ram.hpp"
#include "index/varint.hpp"

namespace trawl::index {

std::array<std::uint16_t, 256> run_symbols(const std::array<std::uint8_t, 256>& char_map, std::uint32_t sigma) {
  std::array<std::uint16_t, 256> s{};
  for (unsigned b = 0; b < 256; ++b) s[b] = sigma < 256 ? char_map[b] : static_cast<std::uint16_t>(b + 1);
  return s;
}

template <class Int>
run_bwt run_bwt::from_suffix_array(std::string_view text, const Int* sa, const std::array<std::uint16_t, 256>& symbol_of) {
  run_bwt b;
  const std::uint64_t n = text.size();
  b.rows_ = n + 1;
  b.symbol_of_ = symbol_of;
  // row 0 is the sentinel's suffix, row i + 1 the suffix at sa[i]; a row's symbol is the byte
  // before its suffix (the sentinel before position 0)
  auto sym = [&](std::uint64_t p) -> std::uint32_t {
    return p == 0 ? 0 : symbol_of[static_cast<unsigned char>(text[p - 1])];
  };
  std::vector<std::uint64_t> starts;
  std::vector<std::uint32_t> heads;
  std::uint32_t last = sym(n);
  starts.push_back(0);
  heads.push_back(last);
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint32_t c = sym(static_cast<std::uint64_t>(sa[i]));
    if (c != last) {
      starts.push_back(i + 1);
      heads.push_back(c);
      last = c;
    }
  }
  b.runs_ = starts.size();
  b.starts_.assign(b.rows_, starts);
  b.head_syms_ = sdsl::int_vector<>(heads.size(), 0, 16);
  for (std::size_t k = 0; k < heads.size(); ++k) b.head_syms_[k] = heads[k];
  sdsl::util::bit_compress(b.head_syms_);
  b.derive();
  return b;
}
template run_bwt run_bwt::from_suffix_array<std::int32_t>(std::string_view, const std::int32_t*,
                                                          const std::array<std::uint16_t, 256>&);
template run_bwt run_bwt::from_suffix_array<std::int64_t>(std::string_view, const std::int64_t*,
                                                          const std::array<std::uint16_t, 256>&);

run_bwt run_bwt::of_text(std::string_view text, const std::array<std::uint16_t, 256>& symbol_of, bool force_64bit,
                         const progress_callback& progress) {
  if (text.empty()) return from_suffix_array<std::int32_t>(text, nullptr, symbol_of);
  if (!force_64bit && text.size() < (std::uint64_t{1} << 31)) {
    std::vector<std::int32_t> sa(text.size());
    suffix_sort<std::int32_t>(text, sa.data(), progress, "count index");
    return from_suffix_array(text, sa.data(), symbol_of);
  }
  std::vector<std::int64_t> sa(text.size());
  suffix_sort<std::int64_t>(text, sa.data(), progress, "count index");
  return from_suffix_array(text, sa.data(), symbol_of);
}

void run_bwt::derive() {
  // the runs in order, from the run starts (decoded a piece at a time)
  constexpr std::uint64_t piece = 4096;
  std::vector<std::uint64_t> at(piece + 1);
  auto each_run = [&](auto&& f) {  // f(k, symbol, length) for every run in order
    for (std::uint64_t b = 0; b < runs_; b += piece) {
      const std::uint64_t e = std::min(runs_, b + piece);
      starts_.decode(b, e, at.data());
      at[e - b] = e < runs_ ? starts_.at(e) : rows_;
      for (std::uint64_t k = b; k < e; ++k) f(k, static_cast<unsigned>(head_syms_[k]), at[k - b + 1] - at[k - b]);
    }
  };
  // runs, rows and the bytes of the runs' lengths as varints, per symbol
  std::array<std::uint64_t, 257> rows_of{}, runs_of{}, bytes_of{};
  each_run([&](std::uint64_t, unsigned c, std::uint64_t len) {
    rows_of[c] += len, ++runs_of[c];
    bytes_of[c] += varint_bytes(len);
  });
  c_[0] = r_[0] = 0;
  std::array<std::uint64_t, 258> byte_at{};  // where each symbol's lengths start
  for (unsigned c = 0; c < 257; ++c) {
    c_[c + 1] = c_[c] + rows_of[c];
    r_[c + 1] = r_[c] + runs_of[c];
    byte_at[c + 1] = byte_at[c] + bytes_of[c];
  }
  // the F column's run starts, in (symbol, row) order: each symbol's run lengths in row order
  // (a second pass puts each run's in its symbol's next bytes), then summed from the symbol's
  // first row
  std::vector<std::uint8_t> lengths(byte_at[257]);
  {
    std::array<std::uint64_t, 257> put{};
    std::copy_n(byte_at.begin(), 257, put.begin());
    each_run([&](std::uint64_t, unsigned c, std::uint64_t len) {
      put_varint(len, [&](std::uint8_t b) { lengths[put[c]++] = b; });
    });
  }
  unsigned c = 0;
  std::uint64_t pos = 0, row = c_[0];
  f_starts_.assign_each(rows_, runs_, [&] {
    while (pos == byte_at[c + 1]) row = c_[++c];
    const std::uint64_t start = row;
    row += *get_varint([&] { return lengths[pos++]; });  // written by put_varint above
    return start;
  });
  std::vector<std::uint8_t>().swap(lengths);
  // the heads' wavelet tree, which sdsl builds from a file: head_syms_ moved into one in RAM
  ram_cache cache;
  constexpr const char* key = "heads";
  store_in_ram(head_syms_, key, cache.cfg);
  head_syms_ = sdsl::int_vector<>();  // heads_ holds them: a loaded index keeps one copy
  sdsl::int_vector_buffer<> in(sdsl::cache_file_name(key, cache.cfg));
  heads_ = sdsl::wt_huff_int<>(in, in.size());
}

namespace {
/// The lengths' and the heads' bytes compress in frames of this size, at this zstd level.
constexpr std::size_t frame_bytes = std::size_t{1} << 22;
constexpr int zstd_level = 19;
/// Either part's expansion over its compressed bytes is not bounded by a ratio (run_bwt::max_runs
/// bounds what they decode to); this only keeps the product in get_zstd_bytes within 64 bits.
constexpr std::uint64_t max_expansion = std::uint64_t{1} << 24;
}  // namespace

void run_bwt::write(std::string& out) const {
  file::put<std::uint64_t>(out, rows_);
  file::put<std::uint64_t>(out, runs_);
  // the runs' lengths as LEB128 varints, zstd-compressed (a collection's lengths repeat)
  std::string lengths;
  for (std::uint64_t k = 0; k < runs_; ++k) {
    const std::uint64_t len = (k + 1 < runs_ ? starts_.at(k + 1) : rows_) - starts_.at(k);
    put_varint(len, [&](std::uint8_t b) { lengths.push_back(static_cast<char>(b)); });
  }
  file::put<std::uint64_t>(out, lengths.size());
  file::put_zstd(out, lengths, frame_bytes, zstd_level);
  // the sentinel's run, then every other run's symbol less one as a byte, zstd-compressed
  std::uint64_t sentinel = 0;
  std::string heads;
  heads.reserve(runs_);
  for (std::uint64_t k = 0; k < runs_; ++k) {
    const auto c = heads_[k];
    if (c == 0) sentinel = k;
    else heads.push_back(static_cast<char>(c - 1));
  }
  file::put<std::uint64_t>(out, sentinel);
  file::put_zstd(out, heads, frame_bytes, zstd_level);
}

run_bwt run_bwt::read(std::string_view bytes, std::uint64_t n, const std::array<std::uint16_t, 256>& symbol_of,
                      std::uint64_t file_bytes) {
  constexpr const char* what = "count index";
  const auto malformed = [&](const std::string& how) { file::bad(std::string("'") + what + "' " + how); };
  run_bwt b;
  file::reader r{bytes, 0};
  b.rows_ = r.get<std::uint64_t>();
  if (b.rows_ != n + 1) malformed("does not match the text length");
  b.runs_ = r.get<std::uint64_t>();
  // the lengths: at most 10 bytes a run, at least one; every run at least one row, together
  // all rows (so runs <= rows, which bounds every allocation below by the text length)
  const auto length_bytes = r.get<std::uint64_t>();
  if (b.runs_ == 0 || b.runs_ > b.rows_ || length_bytes < b.runs_ || length_bytes / 10 > b.runs_)
    malformed("does not cover the rows");
  if (b.runs_ > max_runs(file_bytes)) malformed("claims more runs than its file can describe");
  const std::string_view length_frames = file::get_zstd_bytes(r, length_bytes, max_expansion, what);
  std::string lengths(length_bytes, '\0');
  file::get_zstd(length_frames, lengths.data(), lengths.size(), what);
  const auto sentinel = r.get<std::uint64_t>();
  if (sentinel >= b.runs_) malformed("places its sentinel past the last run");
  const std::string_view frames = file::get_zstd_bytes(r, b.runs_ - 1, max_expansion, what);
  if (r.left() != 0) malformed("has trailing bytes");
  // the lengths, checked in one pass and set down as the run starts in a second
  std::uint64_t at = 0;
  auto next_length = [&] {
    const auto len = get_varint([&] {
      if (at == lengths.size()) malformed("has a malformed run length");
      return lengths[at++];
    });
    if (!len) malformed("has a malformed run length");
    return *len;
  };
  std::uint64_t row = 0;
  for (std::uint64_t k = 0; k < b.runs_; ++k) {
    const std::uint64_t len = next_length();
    if (len == 0 || len > b.rows_ - row) malformed("does not cover the rows");
    if (k == sentinel && len != 1) malformed("has a sentinel run longer than one row");
    row += len;
  }
  if (row != b.rows_ || at != lengths.size()) malformed("does not cover the rows");
  at = row = 0;
  b.starts_.assign_each(b.rows_, b.runs_, [&] {
    const std::uint64_t start = row;
    row += next_length();
    return start;
  });
  std::string().swap(lengths);
  // symbols: the sentinel once, as a run of one row; every other symbol one the text's bytes
  // have, each of them present; neighbouring runs differ
  std::array<bool, 257> allowed{}, seen{};
  allowed[0] = true;
  for (unsigned byte = 0; byte < 256; ++byte)
    if (symbol_of[byte] != 0) allowed[symbol_of[byte]] = true;
  unsigned top = 0;  // the largest symbol allowed: the heads' width
  for (unsigned c = 0; c < 257; ++c)
    if (allowed[c]) top = c;
  {
    std::string heads(b.runs_ - 1, '\0');
    file::get_zstd(frames, heads.data(), heads.size(), what);
    b.head_syms_ = sdsl::int_vector<>(b.runs_, 0, static_cast<std::uint8_t>(std::max(1, static_cast<int>(std::bit_width(top)))));
    for (std::uint64_t k = 0, i = 0; k < b.runs_; ++k) {
      const std::uint64_t c = k == sentinel ? 0 : static_cast<unsigned char>(heads[i++]) + 1;
      if (!allowed[c]) malformed("holds a symbol the text does not have");
      if (k > 0 && b.head_syms_[k - 1] == c) malformed("has two neighbouring runs of one symbol");
      b.head_syms_[k] = c;
      seen[c] = true;
    }
  }
  if (seen != allowed) malformed("does not hold the text's symbols");
  b.symbol_of_ = symbol_of;
  b.derive();
  return b;
}

bool run_bwt::same_as(const run_bwt& o) const {
  if (rows_ != o.rows_ || runs_ != o.runs_ || symbol_of_ != o.symbol_of_) return false;
  for (std::uint64_t k = 0; k < runs_; ++k)
    if (heads_[k] != o.heads_[k] || starts_.at(k) != o.starts_.at(k)) return false;
  return true;
}

std::uint64_t run_bwt::rank(std::uint32_t c, std::uint64_t i) const {
  if (i == 0) return 0;
  const std::uint64_t k = starts_.count_below(i) - 1;  // the run holding row i - 1
  const auto [in_run, h] = heads_.inverse_select(k);
  // rows of c's first t runs (runs in c's order), from f_starts
  auto rows_in_runs = [&](std::uint64_t t) {
    const std::uint64_t slot = r_[c] + t;
    return (slot < runs_ ? f_starts_.at(slot) : rows_) - c_[c];
  };
  if (h == c) return rows_in_runs(in_run) + (i - starts_.at(k));
  return rows_in_runs(heads_.rank(k, c));
}

std::uint64_t run_bwt::count(std::string_view pattern) const {
  std::uint64_t lo = 0, hi = rows_;  // rows [lo, hi) start with the suffix of pattern read so far
  for (std::size_t p = pattern.size(); p-- > 0 && lo < hi;) {
    const std::uint32_t c = symbol_of_[static_cast<unsigned char>(pattern[p])];
    if (c == 0) return 0;
    // rows lo..hi-1 inside one run (the usual case once the interval is narrow): one lookup
    const std::uint64_t k = starts_.count_below(hi) - 1;
    const std::uint64_t s = starts_.at(k);
    if (s <= lo) {
      const auto [in_run, h] = heads_.inverse_select(k);
      if (h != c) return 0;
      const std::uint64_t base = f_starts_.at(r_[c] + in_run);  // the run's first row in F
      lo = base + (lo - s);
      hi = base + (hi - s);
      continue;
    }
    lo = c_[c] + rank(c, lo);
    hi = c_[c] + rank(c, hi);
  }
  return hi - lo;
}

}  // namespace trawl::index
