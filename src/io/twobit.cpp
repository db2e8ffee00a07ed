// twobit.cpp — UCSC .2bit genomes (io.hpp) read: as the FASTA text of the same genome, or
// decoded a range at a time (twobit_file). The writer is twobit_write.cpp.
//
// The format (UCSC's twoBit spec): a header (signature 0x1A412743 in the writer's byte order,
// version 0 or 1, sequence count, reserved), an index of (name length, name, offset: 32 bits in
// version 0, 64 in version 1), and per sequence: its size in bases, its N blocks (count, starts,
// sizes), its soft-mask blocks (count, starts, sizes), a reserved word, then the bases packed
// four a byte, first base in the high bits, T = 0, C = 1, A = 2, G = 3. N blocks read as N,
// mask blocks in lower case. Every count, offset and block is checked against the file before
// anything is decoded: the file is untrusted input.
#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "io/twobit_format.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {
namespace {

using twobit_format::block;
using twobit_format::signature;
constexpr std::size_t line_bytes = 60;  // FASTA lines of the decoded text

struct sequence {
  std::string name;
  std::uint64_t size = 0;              // bases
  std::uint64_t packed = 0;            // file offset of the packed bases
  std::uint64_t n_at = 0, n_count = 0;  // its N blocks' arrays and their length
  std::uint64_t mask_at = 0, mask_count = 0;
};

/// Reads the little- or big-endian words of a .2bit file, each checked against its size.
class words {
 public:
  words(std::string_view b, std::string name, bool swap) : b_(b), name_(std::move(name)), swap_(swap) {}
  [[noreturn]] void bad(const std::string& what) const {
    throw error(errc::bad_format, name_ + ": not a valid .2bit file: " + what);
  }
  std::uint32_t u32(std::uint64_t at) const {
    if (at > b_.size() || b_.size() - at < 4) bad("it ends inside a header or an index entry");
    std::uint32_t v;
    std::memcpy(&v, b_.data() + at, 4);
    return swap_ ? __builtin_bswap32(v) : v;
  }
  std::uint64_t u64(std::uint64_t at) const {
    const std::uint64_t lo = u32(at), hi = u32(at + 4);
    return swap_ ? (lo << 32 | hi) : (hi << 32 | lo);
  }
  std::size_t size() const { return b_.size(); }

 private:
  std::string_view b_;
  std::string name_;
  bool swap_;
};

/// The non-empty blocks whose starts and sizes are the two arrays at `at`, by start.
std::vector<block> sorted_blocks(const words& w, std::uint64_t at, std::uint64_t count) {
  std::vector<block> out;
  out.reserve(count);
  bool sorted = true;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t s = w.u32(at + 4 * i), n = w.u32(at + 4 * (count + i));
    if (n == 0) continue;
    sorted = sorted && (out.empty() || s >= out.back().start);
    out.push_back({s, s + n});
  }
  if (!sorted) std::sort(out.begin(), out.end(), [](const block& a, const block& b) { return a.start < b.start; });
  return out;
}

/// Refuses `count` blocks whose starts and sizes are the two arrays at `at` unless each lies
/// within `size` bases and no two overlap (blocks that touch are one run; any order); the
/// arrays lie within the file.
void check_blocks(const words& w, std::uint64_t at, std::uint64_t count, std::uint64_t size, const char* kind,
                  const std::string& seq) {
  const auto overlap = [&] { w.bad("overlapping " + std::string(kind) + " blocks in sequence " + seq); };
  bool sorted = true;
  std::uint64_t last_start = 0, last_end = 0;
  for (std::uint64_t i = 0; i < count; ++i) {
    const std::uint64_t s = w.u32(at + 4 * i), n = w.u32(at + 4 * (count + i));
    if (s > size || n > size - s) w.bad(std::string(kind) + " block past the end of sequence " + seq);
    if (n == 0) continue;
    if (s < last_start) sorted = false;
    else if (s < last_end) overlap();
    last_start = s, last_end = s + n;
  }
  if (sorted) return;
  const std::vector<block> bl = sorted_blocks(w, at, count);
  for (std::size_t i = 1; i < bl.size(); ++i)
    if (bl[i].start < bl[i - 1].end) overlap();
}

/// The blocks of arrays check_blocks has taken, by start, those that touch merged.
std::vector<block> read_blocks(const words& w, std::uint64_t at, std::uint64_t count) {
  std::vector<block> merged;
  for (const block& b : sorted_blocks(w, at, count)) {
    if (!merged.empty() && b.start == merged.back().end) merged.back().end = b.end;
    else merged.push_back(b);
  }
  return merged;
}

/// A .2bit file's index, checked, and its bases decoded: the part the stream of its FASTA text
/// (twobit_reader) and twobit_file share.
class twobit_index {
 public:
  using blocks = std::pair<std::vector<block>, std::vector<block>>;  ///< N blocks, mask blocks

  twobit_index(std::string_view bytes, const std::string& name) : b_(bytes), w_(bytes, name, false) {
    if (bytes.size() < 16) throw error(errc::bad_format, name + ": not a valid .2bit file: shorter than its header");
    std::uint32_t sig;
    std::memcpy(&sig, bytes.data(), 4);
    const bool swap = sig != signature;
    if (swap && __builtin_bswap32(sig) != signature) throw error(errc::bad_format, name + ": not a .2bit file");
    w_ = words(bytes, name, swap);
    const words& w = w_;
    // what the sequences claim, in all: a file whose entries share their data (an index that
    // names one sequence many times) would decode to far more than it holds
    std::uint64_t all_packed = 0, all_blocks = 0;
    const std::uint32_t version = w.u32(4);
    if (version > 1) w.bad("version " + std::to_string(version) + " (0 and 1 are read)");
    const std::uint64_t count = w.u32(8);
    if (count > bytes.size() / 6) w.bad("more sequences than the file can hold");
    std::uint64_t at = 16;
    for (std::uint64_t i = 0; i < count; ++i) {
      if (at >= bytes.size()) w.bad("the index ends early");
      const std::size_t len = static_cast<unsigned char>(bytes[at]);
      if (len == 0) w.bad("a sequence without a name");
      if (bytes.size() - at - 1 < len) w.bad("the index ends early");
      sequence s;
      s.name.assign(bytes.substr(at + 1, len));
      for (const char c : s.name)  // a line break would cut the FASTA text's header
        if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) w.bad("a sequence name with a control character");
      at += 1 + len;
      std::uint64_t off = version == 0 ? w.u32(at) : w.u64(at);
      at += version == 0 ? 4 : 8;
      // its head: the size, the two block counts and the reserved word at least
      if (off > bytes.size() || bytes.size() - off < 16) w.bad("sequence " + s.name + " starts past the file's end");
      s.size = w.u32(off);
      s.n_count = w.u32(off + 4);
      s.n_at = off + 8;
      if (s.n_count > (bytes.size() - std::min<std::uint64_t>(s.n_at, bytes.size())) / 8) w.bad("N blocks past the file's end");
      off = s.n_at + 8 * s.n_count;
      s.mask_count = w.u32(off);
      s.mask_at = off + 4;
      if (s.mask_count > (bytes.size() - std::min<std::uint64_t>(s.mask_at, bytes.size())) / 8)
        w.bad("mask blocks past the file's end");
      off = s.mask_at + 8 * s.mask_count + 4;  // the reserved word
      s.packed = off;
      if (off > bytes.size() || (s.size + 3) / 4 > bytes.size() - off) w.bad("sequence " + s.name + " ends past the file's end");
      all_packed += (s.size + 3) / 4;
      all_blocks += s.n_count + s.mask_count;
      if (all_packed > bytes.size() || all_blocks > bytes.size() / 8) w.bad("its sequences claim more than it holds");
      seqs_.push_back(std::move(s));
    }
    // every sequence's blocks, before any is decoded: a damaged file gives no output
    for (const sequence& q : seqs_) {
      check_blocks(w, q.n_at, q.n_count, q.size, "N", q.name);
      check_blocks(w, q.mask_at, q.mask_count, q.size, "mask", q.name);
    }
    for (int v = 0; v < 256; ++v)
      for (int k = 0; k < 4; ++k) decode_[v][k] = "TCAG"[(v >> (6 - 2 * k)) & 3];
  }

  [[nodiscard]] const std::vector<sequence>& sequences() const { return seqs_; }
  /// Sequence i's blocks, sorted and merged (checked when the file is opened).
  [[nodiscard]] blocks blocks_of(std::size_t i) const {
    const sequence& s = seqs_[i];
    return {read_blocks(w_, s.n_at, s.n_count), read_blocks(w_, s.mask_at, s.mask_count)};
  }

  /// Bases [from, from + n) of sequence i into out: with `width`, in lines of that many bases
  /// (from a multiple of it, width a multiple of 4), each ended by '\n'; with 0, as they are.
  /// Packed bases, then N blocks as N and mask blocks in lower case.
  void decode(std::size_t i, const blocks& bl, std::uint64_t from, std::uint64_t n, char* out, std::size_t width) const {
    const sequence& s = seqs_[i];
    const auto* packed = reinterpret_cast<const unsigned char*>(b_.data() + s.packed);
    const std::uint64_t line = width != 0 ? width : n;
    for (std::uint64_t o = 0; o < n; o += line) {  // a line starts on a packed byte but for the first without width
      const std::uint64_t len = std::min<std::uint64_t>(line, n - o);
      char* at = out + o + (width != 0 ? o / width : 0);
      std::uint64_t p = from + o, b = 0;
      for (; b < len && (p & 3) != 0; ++b, ++p) at[b] = decode_[packed[p / 4]][p & 3];
      for (; len - b >= 4; b += 4, p += 4) std::memcpy(at + b, decode_[packed[p / 4]].data(), 4);
      for (; b < len; ++b, ++p) at[b] = decode_[packed[p / 4]][p & 3];
      if (width != 0) at[len] = '\n';
    }
    // the bases [a, e) in the output, as runs of one line each
    const auto each_run = [&](std::uint64_t a, std::uint64_t e, auto&& f) {
      while (a < e) {
        const std::uint64_t r = a - from, stop = width != 0 ? std::min(e, from + (r / width + 1) * width) : e;
        f(out + r + (width != 0 ? r / width : 0), static_cast<std::size_t>(stop - a));
        a = stop;
      }
    };
    const std::uint64_t to = from + n;
    const auto first_after = [from](const std::vector<block>& v) {  // the first block that ends past `from`
      return std::upper_bound(v.begin(), v.end(), from, [](std::uint64_t x, const block& k) { return x < k.end; });
    };
    for (auto it = first_after(bl.first); it != bl.first.end() && it->start < to; ++it)
      each_run(std::max(from, it->start), std::min(to, it->end), [](char* at, std::size_t len) { std::memset(at, 'N', len); });
    for (auto it = first_after(bl.second); it != bl.second.end() && it->start < to; ++it)
      each_run(std::max(from, it->start), std::min(to, it->end), [](char* at, std::size_t len) {
        for (std::size_t x = 0; x < len; ++x) at[x] = static_cast<char>(at[x] | 0x20);
      });
  }

 private:
  std::string_view b_;
  words w_;
  std::vector<sequence> seqs_;
  std::array<std::array<char, 4>, 256> decode_{};
};

/// The FASTA text of a .2bit file, made as it is read.
class twobit_reader final : public byte_stream {
 public:
  twobit_reader(std::string_view bytes, const std::string& name) : x_(bytes, name) {}

  /// The FASTA text from where the last read ended: headers, and sequence lines of line_bytes
  /// bases. Lines are decoded straight into `buf`, on all cores when there are several parts;
  /// a header or line longer than n goes through carry_.
  std::ptrdiff_t read(char* buf, std::size_t n, int) override {
    if (carry_at_ == carry_.size()) plan(buf, n);
    if (carry_at_ < carry_.size()) {
      const std::size_t take = std::min(n, carry_.size() - carry_at_);
      std::memcpy(buf, carry_.data() + carry_at_, take);
      carry_at_ += take;
      return static_cast<std::ptrdiff_t>(take);
    }
    if (parts_.size() == 1) {
      decode_part(parts_[0], buf);
    } else {
      tbb::parallel_for(std::size_t{0}, parts_.size(), [&](std::size_t i) { decode_part(parts_[i], buf); });
    }
    return static_cast<std::ptrdiff_t>(planned_);
  }

 private:
  /// A run of whole lines of one sequence's bases, decoded into the caller's buffer at `out`.
  struct part {
    std::size_t seq;
    std::uint64_t from, count;  // bases; from is a multiple of line_bytes
    std::size_t out;
  };
  static constexpr std::uint64_t part_lines = 1024;  // lines one task decodes

  /// What the next read of n bytes holds: headers copied into buf, parts_ to decode (planned_
  /// bytes in all), or, when not even one header or line fits, that one in carry_.
  void plan(char* buf, std::size_t n) {
    // the blocks of sequences ended are not needed again
    for (auto it = blocks_.begin(); it != blocks_.end();) it = it->first < seq_ ? blocks_.erase(it) : std::next(it);
    parts_.clear();
    carry_.clear();
    carry_at_ = 0;
    planned_ = 0;
    const std::vector<sequence>& seqs = x_.sequences();
    while (seq_ < seqs.size()) {
      const sequence& s = seqs[seq_];
      if (!headed_) {
        const std::string head = ">" + s.name + "\n";
        if (head.size() > n - planned_) {
          if (planned_ == 0) carry_ = head;
          else break;
        } else {
          std::memcpy(buf + planned_, head.data(), head.size());
          planned_ += head.size();
        }
        headed_ = true;
        pos_ = 0;
        blocks_[seq_] = x_.blocks_of(seq_);
        if (!carry_.empty()) return;
      }
      const std::uint64_t fit = (n - planned_) / (line_bytes + 1) * line_bytes;  // bases in the whole lines that fit
      const std::uint64_t count = std::min<std::uint64_t>(fit, s.size - pos_);
      if (count == 0 && pos_ < s.size) {
        if (planned_ != 0) return;
        // not one line fits: it goes through carry_
        const std::uint64_t line = std::min<std::uint64_t>(line_bytes, s.size - pos_);
        carry_.resize(line + 1);
        decode_part({seq_, pos_, line, 0}, carry_.data());
        pos_ += line;
      }
      for (std::uint64_t done = 0; done < count;) {
        const std::uint64_t c = std::min(part_lines * line_bytes, count - done);
        parts_.push_back({seq_, pos_ + done, c, planned_});
        planned_ += c + (c + line_bytes - 1) / line_bytes;
        done += c;
      }
      pos_ += count;
      if (pos_ < s.size) return;  // buf is full
      ++seq_;
      headed_ = false;
      if (!carry_.empty()) return;
    }
  }

  void decode_part(const part& p, char* buf) const { x_.decode(p.seq, blocks_.at(p.seq), p.from, p.count, buf + p.out, line_bytes); }

  twobit_index x_;
  /// the blocks of the sequences being read
  std::map<std::size_t, twobit_index::blocks> blocks_;
  std::vector<part> parts_;
  std::size_t planned_ = 0;
  std::string carry_;       ///< a header or line that did not fit a read, handed out from carry_at_
  std::size_t carry_at_ = 0;
  std::size_t seq_ = 0;     ///< the sequence being written
  bool headed_ = false;     ///< its header is written
  std::uint64_t pos_ = 0;   ///< its next base
};

}  // namespace

bool is_twobit(std::string_view head) noexcept {
  if (head.size() < 4) return false;
  std::uint32_t sig;
  std::memcpy(&sig, head.data(), 4);
  return sig == signature || __builtin_bswap32(sig) == signature;
}

std::unique_ptr<byte_stream> twobit_stream(std::string_view bytes, std::string name) {
  return std::make_unique<twobit_reader>(bytes, name);
}

/// Bases a task of twobit_file::decode takes (a multiple of 4); a sequence of at most this many is short.
constexpr std::uint64_t task_bases = std::uint64_t{1} << 18;

struct twobit_file::impl {
  twobit_index x;
  /// The block lists of the sequence decoded last: a sequence read in many ranges reads them once.
  std::mutex m;
  std::size_t cached = ~std::size_t{0};
  std::shared_ptr<const twobit_index::blocks> blocks;
  /// keep_blocks: the long sequences' blocks, by sequence number (ascending)
  std::vector<std::size_t> kept_seqs;
  std::vector<twobit_index::blocks> kept;
  bool keeping = false;  ///< keep_blocks was called
  impl(std::string_view bytes, const std::string& name) : x(bytes, name) {}
  /// Sequence i's kept blocks, or null.
  [[nodiscard]] const twobit_index::blocks* kept_of(std::size_t i) const {
    const auto at = std::lower_bound(kept_seqs.begin(), kept_seqs.end(), i);
    return at != kept_seqs.end() && *at == i ? &kept[static_cast<std::size_t>(at - kept_seqs.begin())] : nullptr;
  }

  std::shared_ptr<const twobit_index::blocks> blocks_of(std::size_t i) {
    const std::lock_guard<std::mutex> lock(m);
    if (cached != i) {
      blocks = std::make_shared<const twobit_index::blocks>(x.blocks_of(i));
      cached = i;
    }
    return blocks;
  }
};

twobit_file::twobit_file(std::string_view bytes, const std::string& name) : impl_(std::make_unique<impl>(bytes, name)) {}
twobit_file::~twobit_file() = default;
twobit_file::twobit_file(twobit_file&&) noexcept = default;
twobit_file& twobit_file::operator=(twobit_file&&) noexcept = default;
std::size_t twobit_file::size() const noexcept { return impl_->x.sequences().size(); }
std::string_view twobit_file::name(std::size_t i) const {
  const std::string_view whole = impl_->x.sequences().at(i).name;
  return whole.substr(0, whole.find_first_of(" \t"));  // as the FASTA text's header reads
}
std::uint64_t twobit_file::length(std::size_t i) const { return impl_->x.sequences().at(i).size; }

void twobit_file::keep_blocks() {
  if (impl_->keeping) return;
  // a sequence of a few blocks reads them with each decode at little cost
  constexpr std::uint64_t few_blocks = 8;
  std::vector<std::size_t> seqs;
  for (std::size_t i = 0; i < size(); ++i) {
    const auto& q = impl_->x.sequences()[i];
    if (q.size > task_bases || std::uint64_t{q.n_count} + q.mask_count > few_blocks) seqs.push_back(i);
  }
  std::vector<twobit_index::blocks> kept(seqs.size());
  tbb::parallel_for(std::size_t{0}, kept.size(), [&](std::size_t k) {
    kept[k] = impl_->x.blocks_of(seqs[k]);
    kept[k].first.shrink_to_fit();
    kept[k].second.shrink_to_fit();
  });
  impl_->kept_seqs = std::move(seqs);
  impl_->kept = std::move(kept);
  impl_->keeping = true;
}

std::uint64_t twobit_file::kept_bytes() const noexcept {
  std::uint64_t n = impl_->kept_seqs.size() * (sizeof(std::size_t) + sizeof(twobit_index::blocks));
  for (const auto& [ns, masks] : impl_->kept) n += (ns.capacity() + masks.capacity()) * sizeof(block);
  return n;
}

std::string_view twobit_file::header(std::size_t i) const { return impl_->x.sequences().at(i).name; }

void twobit_file::decode(std::size_t i, char* out) const { decode(i, 0, length(i), out); }

void twobit_file::decode(std::size_t i, std::uint64_t from, std::uint64_t n, char* out) const {
  const std::uint64_t size = length(i);
  if (from > size || n > size - from)
    throw error(errc::invalid_argument, "twobit_file::decode: bases past the end of sequence " + std::string(name(i)));
  if (n == 0) return;  // its blocks are checked when the file is opened
  const twobit_index& x = impl_->x;
  const twobit_index::blocks* kept = impl_->kept_of(i);
  if (size <= task_bases && kept == nullptr) {  // a short sequence (reads, contigs): its blocks read here, no task
    x.decode(i, x.blocks_of(i), from, n, out, 0);
    return;
  }
  std::shared_ptr<const twobit_index::blocks> cached;
  if (kept == nullptr) kept = (cached = impl_->blocks_of(i)).get();
  if (n <= task_bases) {
    x.decode(i, *kept, from, n, out, 0);
    return;
  }
  tbb::parallel_for(std::uint64_t{0}, (n + task_bases - 1) / task_bases, [&](std::uint64_t k) {
    const std::uint64_t at = k * task_bases;
    x.decode(i, *kept, from + at, std::min(task_bases, n - at), out + at, 0);
  });
}

}  // namespace trawl::io
