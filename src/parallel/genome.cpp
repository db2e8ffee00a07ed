// genome.cpp — a genome read once and kept for many searches (trawl/genome.hpp).
//
// A genome whose bases .2bit holds exactly is kept as a .2bit image (a .2bit file's own bytes):
// searches on the CPU decode it as they go. Otherwise the records' sequences lie in one
// buffer, each followed by a run of NUL bytes, so that a search whose hits cannot cross such a
// run (detail::joins) scans the whole buffer at once, and a GPU keeps one copy of it; other
// searches, and off-target searches with bulges, take each record alone. A GPU keeps a copy
// of that layout for a genome kept as an image too: the host then holds no bytes of it, only
// an address range that names it (a reserved text, whose reader decodes the image), and the
// searches that run on the GPUs read from the host only the bytes around their hits.
#include "trawl/genome.hpp"

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_reduce.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstring>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string_view>
#include <utility>

#include "common/faulted.hpp"
#include "common/reserved_text.hpp"
#include "io/fasta_pieces.hpp"
#include "io/twobit_encode.hpp"
#include "offtarget/site_search.hpp"
#include "parallel/joined.hpp"
#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/gpu.hpp"
#include "trawl/io.hpp"
#include "trawl/stream.hpp"

namespace trawl {
namespace {

/// NUL bytes after each record: a search of patterns up to 255 - k long scans all of them at once.
constexpr std::size_t record_gap = 256;

/// The lines of `bytes` that start with '>': at most that many FASTA records.
std::size_t header_lines(std::string_view bytes) {
  constexpr std::size_t block = std::size_t{1} << 22;
  return tbb::parallel_reduce(
      tbb::blocked_range<std::size_t>(0, bytes.size(), block), std::size_t{0},
      [&](const tbb::blocked_range<std::size_t>& r, std::size_t n) {
        for (std::size_t i = r.begin(); i < r.end(); ++i) {
          const void* gt = std::memchr(bytes.data() + i, '>', r.end() - i);
          if (gt == nullptr) break;
          i = static_cast<std::size_t>(static_cast<const char*>(gt) - bytes.data());
          n += i == 0 || bytes[i - 1] == '\n';
        }
        return n;
      },
      std::plus<>());
}

/// Off-target sites handed on with the genome's format and, when set, a record number (a
/// record searched alone is record 0 of its search).
class renumbered final : public offtarget::site_sink {
 public:
  renumbered(offtarget::site_sink& inner, io::format fmt) : inner_(inner), fmt_(fmt) {}
  std::optional<std::uint32_t> record;  ///< none: the record's own number
  void begin_record(const record_info& info) override {
    record_info here = info;
    if (record) here.index = *record;
    here.format = fmt_;
    inner_.begin_record(here);
  }
  void site(const offtarget::site& s) override { inner_.site(s); }
  void sites(std::span<const offtarget::site> batch) override { inner_.sites(batch); }
  void end_record() override { inner_.end_record(); }

 private:
  offtarget::site_sink& inner_;
  io::format fmt_;
};

}  // namespace

struct genome::impl {
  std::string name;
  io::format fmt = io::format::plain;
  std::string_view text;  // the sequences, each followed by record_gap NULs: in one of these
  std::string read_text;                // read_records
  std::unique_ptr<char[]> owned;        // read_twobit, read_fasta: written once, never zero-filled first
  // or, kept two bits a base: a .2bit image (made from the records, or a .2bit file's bytes)
  // and its index
  std::string twobit;
  std::unique_ptr<io::twobit_file> packed;
  std::vector<index::record_span> records;  // starts as in `text`, also when packed
  std::vector<std::uint64_t> begin, length;  // per record, for detail::search_joined
  std::uint64_t bases = 0;
  std::vector<int> gpus;
  // kept packed and on GPUs: `text` is this range, read through read_joined (declared before
  // `resident`: the copies named by its address go first)
  std::unique_ptr<detail::reserved_text> reserved;
  std::shared_ptr<const void> resident;  // the GPUs' copies of `text`

  /// Record r's bytes, kept as bytes.
  [[nodiscard]] std::string_view bytes_of(std::size_t r) const { return text.substr(records[r].start, records[r].length); }

  void read(io::source& src, const device_spec& device, bool may_pack) {
    const bool on_gpu = device.kind == device_kind::gpu || (device.kind == device_kind::automatic && gpu::available());
    if (!src.twobit().empty()) {
      if (may_pack) keep_twobit(src.twobit());
      else read_twobit(src.twobit());
    } else {
      if (!read_records(src, may_pack) && may_pack) pack();
    }
    if (on_gpu && !records.empty()) {
      gpus = device.workers();
      std::sort(gpus.begin(), gpus.end());
      gpus.erase(std::unique(gpus.begin(), gpus.end()), gpus.end());
      if (packed) {
        packed->keep_blocks();  // the searches read many small ranges of many records at once
        reserved = std::make_unique<detail::reserved_text>(
            begin.back() + length.back() + record_gap,
            [this](std::uint64_t pos, std::size_t n, char* out) { read_joined(pos, n, out); });
        text = reserved->view();
      }
      if (!text.empty()) resident = gpu::keep_resident(text, device_spec(device_kind::gpu, gpus));
    }
  }

  /// Bytes [pos, pos + n) of the layout `text` has, decoded from the image: each record's
  /// bases at its begin, NULs between.
  void read_joined(std::uint64_t pos, std::size_t n, char* out) const {
    // record r - 1 is the last that begins at or before pos
    auto r = static_cast<std::size_t>(std::upper_bound(begin.begin(), begin.end(), pos) - begin.begin());
    while (n > 0) {
      std::uint64_t take;
      if (r > 0 && pos < begin[r - 1] + length[r - 1]) {
        take = std::min<std::uint64_t>(n, begin[r - 1] + length[r - 1] - pos);
        packed->decode(r - 1, pos - begin[r - 1], take, out);
      } else {  // the gap before record r, or after the last
        const std::uint64_t stop = r < begin.size() ? begin[r] : ~std::uint64_t{0};
        take = std::min<std::uint64_t>(n, stop - pos);
        std::memset(out, 0, take);
        if (pos + take == stop) ++r;
      }
      pos += take;
      out += take;
      n -= take;
    }
  }

  /// Whether a search of `patterns` patterns under `options` runs on GPUs that all hold the
  /// genome, so that it may read the reserved text (only their copies and the reader; whole
  /// words and lines are checked on the host, beside each hit, where it has no bytes).
  [[nodiscard]] bool on_own_gpus(const search_options& options, std::size_t patterns) const {
    if (!reserved || options.whole_words || options.whole_lines ||
        choose_device(options, patterns, text.size()) != device_kind::gpu)
      return false;
    const std::vector<int> workers = options.device.workers();
    return !workers.empty() && std::all_of(workers.begin(), workers.end(), [&](int d) {
      return std::binary_search(gpus.begin(), gpus.end(), d);
    });
  }

  /// A .2bit file kept as it is (its bytes copied: a mapping would fault once the file
  /// shrank), every block checked here, its sequences decoded by each search.
  void keep_twobit(std::string_view bytes) {
    resize_faulted(twobit, bytes.size());
    constexpr std::size_t part = std::size_t{1} << 22;
    tbb::parallel_for(std::size_t{0}, (bytes.size() + part - 1) / part, [&](std::size_t k) {
      std::memcpy(twobit.data() + k * part, bytes.data() + k * part, std::min(part, bytes.size() - k * part));
    });
    adopt_twobit();
  }

  /// The .2bit image in `twobit` kept as the genome: its sequences are the records (every
  /// block checked as it is read: a damaged file is refused now, not in a search).
  void adopt_twobit() {
    packed = std::make_unique<io::twobit_file>(twobit, name);
    fmt = io::format::fasta;
    for (std::size_t i = 0; i < packed->size(); ++i) {
      const std::uint64_t at = bases + record_gap * i;
      records.push_back({std::string(packed->name(i)), at, packed->length(i)});
      begin.push_back(at);
      length.push_back(packed->length(i));
      bases += packed->length(i);
    }
  }

  /// The records read as bytes, kept as a .2bit image instead when it gives back every byte:
  /// only A, C, G, T and N in either case, names of 1 to 255 bytes without a control
  /// character, records under 4 Gbases. Plain text stays bytes.
  void pack() {
    if (fmt == io::format::plain || records.empty()) return;
    io::twobit_image image;
    try {
      std::vector<std::string_view> names(records.size()), seqs(records.size());
      for (std::size_t r = 0; r < records.size(); ++r) names[r] = records[r].name, seqs[r] = bytes_of(r);
      image = io::detail::encode_twobit(names, seqs, name);
    } catch (const error&) {  // a byte or a name .2bit cannot hold, or a record too long
      return;
    }
    if (image.changed != 0) return;  // U or IUPAC codes .2bit would read back as T or N
    twobit = std::move(image.bytes);
    packed = std::make_unique<io::twobit_file>(twobit, name);
    text = {};
    owned.reset();
    read_text = std::string();
  }

  /// A .2bit file's sequences decoded straight into the buffer, each on all cores.
  void read_twobit(std::string_view bytes) {
    const io::twobit_file f(bytes, name);
    fmt = io::format::fasta;
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < f.size(); ++i) total += f.length(i) + record_gap;
    // uninitialized: each page is first touched by the decode, on all cores
    owned.reset(new char[total]);
    for (std::size_t i = 0; i < f.size(); ++i) {
      const std::uint64_t at = bases + record_gap * i;
      records.push_back({std::string(f.name(i)), at, f.length(i)});
      begin.push_back(at);
      length.push_back(f.length(i));
      bases += f.length(i);
      f.decode(i, owned.get() + at);
      std::memset(owned.get() + at + f.length(i), 0, record_gap);
    }
    text = std::string_view(owned.get(), total);
  }

  /// A FASTA input parsed on all cores (io::parse_fasta_windows), each window's sequences copied
  /// into place, a copy on each worker. `bytes` starts with a header line.
  void read_fasta(std::string_view bytes) {
    fmt = io::format::fasta;
    const std::size_t cap = bytes.size() + record_gap * header_lines(bytes);
    owned.reset(new char[cap]);  // uninitialized: the pages past the sequences are never touched
    struct copy {
      const char* from;  ///< nullptr: record_gap NULs
      std::size_t n, to;
    };
    std::vector<copy> copies;
    std::size_t at = 0;  // bytes placed
    const auto end_record = [&] {
      if (records.empty()) return;
      records.back().length = length.back() = at - begin.back();
      bases += length.back();
      copies.push_back({nullptr, record_gap, at});
      at += record_gap;
    };
    io::parse_fasta_windows(bytes, [&](std::span<const std::string_view> pieces, const std::vector<std::string>& out,
                                       const std::vector<std::vector<io::fasta_head>>& heads) {
      copies.clear();
      for (std::size_t k = 0; k < pieces.size(); ++k) {
        std::size_t from = 0;
        const auto place = [&](std::size_t to) {
          if (to > from) copies.push_back({out[k].data() + from, to - from, at});
          at += to - from;
          from = to;
        };
        for (const io::fasta_head& h : heads[k]) {
          place(h.at);  // the open record's bytes (none before the first record: bytes starts with '>')
          end_record();
          records.push_back({std::string(h.name), at, 0});
          begin.push_back(at);
          length.push_back(0);
        }
        place(out[k].size());
      }
      if (pieces.back().data() + pieces.back().size() == bytes.data() + bytes.size()) end_record();
      if (at > cap) throw std::logic_error("genome: a FASTA parse outgrew its header count");
      tbb::parallel_for(std::size_t{0}, copies.size(), [&](std::size_t i) {
        const copy& c = copies[i];
        if (c.from != nullptr) std::memcpy(owned.get() + c.to, c.from, c.n);
        else std::memset(owned.get() + c.to, 0, c.n);
      });
      return true;
    });
    text = std::string_view(owned.get(), at);
  }

  /// A FASTA input encoded into a .2bit image as its windows are parsed (io::detail::encode_fasta),
  /// with no bytes kept; false, and nothing kept, where the image would not give every byte back
  /// (U, IUPAC codes but N, a byte or a name .2bit cannot hold, a record of 4 Gbases or more).
  /// `bytes` starts with a header line.
  bool read_fasta_packed(std::string_view bytes) {
    std::optional<io::twobit_image> image;
    try {
      image = io::detail::encode_fasta(bytes, name, true);
    } catch (const error&) {
      return false;
    }
    if (!image) return false;
    fmt = io::format::fasta;
    twobit = std::move(image->bytes);
    adopt_twobit();
    return true;
  }

  /// The records of a FASTA, FASTQ or plain input; true when a FASTA was read with `packing`
  /// (kept as a .2bit image where it gives every byte back, else as bytes), false when the
  /// input is kept as bytes for pack() to decide.
  bool read_records(io::source& src, bool packing) {
    std::string whole;
    std::string_view bytes;
    if (src.is_mapped()) {
      bytes = src.mapped();
    } else {
      whole = io::read_all(src.stream());
      bytes = whole;
    }
    io::format named = src.named_format();
    if (named == io::format::automatic) named = io::format_of_name(name);
    const io::format f = named != io::format::automatic ? named : io::detect_format(bytes);
    const std::size_t p = f == io::format::fasta ? io::fasta_records_start(bytes) : std::string_view::npos;
    if (p != std::string_view::npos) {
      if (!packing || !read_fasta_packed(bytes.substr(p))) read_fasta(bytes.substr(p));
      return packing;
    }
    io::record_reader rr(bytes, f, name);  // FASTQ, plain text, and the error of a FASTA without a header first
    fmt = rr.detected();
    // the sequences never outgrow the input; a gap for each record header there may be
    std::size_t heads = 1;
    if (fmt != io::format::plain) {
      const std::string_view mark = fmt == io::format::fastq ? "\n@" : "\n>";
      for (std::size_t at = bytes.find(mark); at != std::string_view::npos; at = bytes.find(mark, at + 1)) ++heads;
    }
    std::string& t = read_text;
    t.reserve(bytes.size() + record_gap * heads);
    io::record r;
    while (rr.next(r)) {
      records.push_back({std::string(r.name), t.size(), r.sequence.size()});
      begin.push_back(t.size());
      length.push_back(r.sequence.size());
      bases += r.sequence.size();
      t.append(r.sequence);
      t.append(record_gap, '\0');
    }
    t.shrink_to_fit();
    text = t;
    return false;
  }
};

genome::genome() = default;
genome::~genome() = default;
genome::genome(genome&&) noexcept = default;
genome& genome::operator=(genome&&) noexcept = default;
genome::genome(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

genome genome::open(const std::string& path, const device_spec& device, bool pack) {
  auto p = std::make_unique<impl>();
  io::source src = io::source::open(path);
  p->name = src.name();
  p->read(src, device, pack);
  return genome(std::move(p));
}

genome genome::from_bytes(std::string_view bytes, const std::string& name, const device_spec& device, bool pack) {
  auto p = std::make_unique<impl>();
  p->name = name;
  io::source src = io::source::from_memory(bytes, name);
  p->read(src, device, pack);
  return genome(std::move(p));
}

const std::string& genome::name() const noexcept { return impl_->name; }
io::format genome::format() const noexcept { return impl_->fmt; }
std::span<const index::record_span> genome::records() const noexcept { return impl_->records; }
std::uint64_t genome::bases() const noexcept { return impl_->bases; }
const std::vector<int>& genome::resident_gpus() const noexcept { return impl_->gpus; }
std::uint64_t genome::resident_bytes() const noexcept { return gpu::resident_bytes(impl_->resident); }
bool genome::packed() const noexcept { return impl_->packed != nullptr; }
std::uint64_t genome::host_bytes() const noexcept {
  return impl_->packed ? impl_->twobit.size() + impl_->packed->kept_bytes() : impl_->text.size();
}

std::string genome::sequence(std::uint32_t record) const {
  if (record >= impl_->records.size())
    throw error(errc::invalid_argument, "genome: there is no record " + std::to_string(record));
  return sequence(record, 0, impl_->records[record].length);
}

std::string genome::sequence(std::uint32_t record, std::uint64_t start, std::uint64_t length) const {
  if (record >= impl_->records.size())
    throw error(errc::invalid_argument, "genome: there is no record " + std::to_string(record));
  const auto& r = impl_->records[record];
  if (start > r.length || length > r.length - start)
    throw error(errc::invalid_argument, "genome: bases " + std::to_string(start) + " + " + std::to_string(length) +
                                            " are past the end of record " + r.name + " (" + std::to_string(r.length) +
                                            " bases)");
  if (!impl_->packed) return std::string(impl_->bytes_of(record).substr(start, length));
  std::string out(length, '\0');
  impl_->packed->decode(record, start, length, out.data());
  return out;
}

void genome::search(const std::vector<std::string>& patterns, const search_options& options,
                    const text_hits_callback& on_hits) const {
  const impl& g = *impl_;
  // Kept packed on the GPUs that run the search: from their copies, as a genome kept as bytes
  // is searched (below), each record the CPU would take decoded for it.
  const bool own_gpus = g.on_own_gpus(options, patterns.size());
  // Short records (reads, contigs) kept packed: whole records decoded a window at a time into
  // one buffer laid out as `text` would be, each window searched joined (a search of the .2bit
  // pays for each record, where a joined search pays for none). Long ones: the .2bit's search,
  // which decodes its chunks while it scans the ones before.
  constexpr std::uint64_t window = std::uint64_t{64} << 20, short_records = std::uint64_t{1} << 20;
  if (g.packed && !own_gpus && g.bases < short_records * g.records.size() && options.max_hits == 0 &&
      detail::joins(patterns, options, record_gap)) {
    const auto m = make_matcher(patterns, options);
    std::string buf;
    std::vector<std::uint64_t> begin, length;
    bool going = true;
    for (std::uint32_t first = 0, last; first < g.records.size() && going; first = last) {
      begin.clear();
      length.clear();
      std::uint64_t bytes = 0;
      for (last = first; last < g.records.size() && (last == first || bytes + g.length[last] + record_gap <= window);
           ++last) {
        begin.push_back(bytes);
        length.push_back(g.length[last]);
        bytes += g.length[last] + record_gap;
      }
      if (buf.size() < bytes) resize_faulted(buf, bytes);
      tbb::parallel_for(first, last, [&](std::uint32_t r) {
        char* at = buf.data() + begin[r - first];
        g.packed->decode(r, 0, g.length[r], at);
        std::memset(at + g.length[r], 0, record_gap);
      });
      detail::search_joined(patterns, *m, std::string_view(buf.data(), bytes), begin, length, options,
                            [&](std::uint32_t t, std::span<const hit> hs) { return going = on_hits(first + t, hs); });
    }
    return;
  }
  if (g.packed && !own_gpus) {  // a search of the .2bit image, each record's hits gathered and handed on
    class by_record final : public search_sink {
     public:
      explicit by_record(const text_hits_callback& on_hits) : on_hits_(on_hits) {}
      void begin_record(const record_info& info) override { record_ = static_cast<std::uint32_t>(info.index); }
      bool hits(std::span<const hit> hs) override {
        found_.insert(found_.end(), hs.begin(), hs.end());
        return going_;
      }
      void end_record(std::uint64_t) override { hand_on(); }
      [[nodiscard]] bool done() const override { return !going_; }
      /// The hits of a record a stop cut short (options.max_hits: the search ends without
      /// ending the record).
      void hand_on() {
        if (!found_.empty() && going_) going_ = on_hits_(record_, found_);
        found_.clear();
      }

     private:
      const text_hits_callback& on_hits_;
      std::vector<hit> found_;
      std::uint32_t record_ = 0;
      bool going_ = true;
    } sink(on_hits);
    io::source src = io::source::from_memory(g.twobit, g.name);
    (void)run_search(patterns, src, options, {}, sink);
    sink.hand_on();
    return;
  }
  const auto m = make_matcher(patterns, options);
  if (options.max_hits == 0 && detail::joins(patterns, options, record_gap)) {
    detail::search_joined(patterns, *m, g.text, g.begin, g.length, options, on_hits);
    return;
  }
  // record by record; options.max_hits counts the hits of all of them, as a file's search does
  std::vector<hit> found;
  std::string decoded;
  search_options each = options;
  for (std::uint32_t r = 0; r < g.records.size(); ++r) {
    found.clear();
    std::string_view seq = g.bytes_of(r);
    const auto take = [&](std::span<const hit> hs) {
      found.insert(found.end(), hs.begin(), hs.end());
      return true;
    };
    if (choose_device(options, patterns.size(), seq.size()) == device_kind::gpu) {
      gpu::search_sequence(patterns, seq, each, take);
    } else {
      if (g.reserved) seq = decoded = sequence(r);
      search_sequence(*m, seq, each, take);
    }
    if (found.empty()) continue;
    if (!on_hits(r, found)) return;
    if (options.max_hits != 0) {
      if (found.size() >= each.max_hits) return;
      each.max_hits -= found.size();
    }
  }
}

std::vector<index::record_hit> genome::search(const std::vector<std::string>& patterns,
                                              const search_options& options) const {
  std::vector<index::record_hit> out;
  search(patterns, options, [&](std::uint32_t r, std::span<const hit> hs) {
    for (const hit& h : hs) out.push_back({r, h});
    return true;
  });
  return out;
}

genome::best_answer genome::best(std::string_view x, const best_options& options, bool both_strands) const {
  if (x.empty()) throw error(errc::invalid_argument, "empty pattern");  // as best_substring, with no record too
  const impl& g = *impl_;
  std::vector<std::pair<std::string, strand>> strands{{std::string(x), strand::forward}};
  if (both_strands) strands.emplace_back(reverse_complement(x), strand::reverse);
  // a record's bytes: viewed where kept as bytes, else decoded into `room`
  std::string room;
  const auto bytes_of = [&](std::uint32_t r) -> std::string_view {
    if (!g.packed) return g.bytes_of(r);
    room.resize(g.records[r].length);
    g.packed->decode(r, 0, room.size(), room.data());
    return room;
  };
  // each record and strand searched once, the results that may reach the least distance kept
  // (at record * strands + strand): the leftmost start of each optimal end
  best_options ends = options;
  ends.every_start = false;
  best_answer out;
  out.distance = static_cast<std::uint32_t>(x.size());
  std::vector<std::optional<best_result>> kept;
  for (std::uint32_t r = 0; r < g.records.size(); ++r) {
    const std::string_view y = bytes_of(r);
    for (const auto& [p, dir] : strands) {
      best_result b = best_substring(p, y, ends);
      if (b.distance < out.distance) {
        out.distance = b.distance;
        for (auto& k : kept) k.reset();
      }
      if (b.distance == out.distance) kept.emplace_back(std::move(b));
      else kept.emplace_back();
    }
  }
  // the optimal substrings of the records that reach it, their bytes read again for every start
  for (std::uint32_t r = 0; r < g.records.size(); ++r) {
    const std::size_t first = static_cast<std::size_t>(r) * strands.size();
    if (std::none_of(kept.begin() + static_cast<std::ptrdiff_t>(first),
                     kept.begin() + static_cast<std::ptrdiff_t>(first + strands.size()), [](const auto& k) { return k.has_value(); }))
      continue;
    const std::string_view y = options.every_start ? bytes_of(r) : std::string_view();
    for (std::size_t s = 0; s < strands.size(); ++s) {
      const std::optional<best_result>& b = kept[first + s];
      if (!b) continue;
      const auto add = [&](const hit& h) {
        hit o = h;
        o.dir = strands[s].second;
        out.occurrences.push_back({r, o});
        return true;
      };
      if (options.every_start) for_each_optimal_substring(strands[s].first, y, *b, add);
      else
        for (const hit& h : b->occurrences) add(h);
    }
  }
  return out;
}

void genome::offtarget(const offtarget::searcher& guides, offtarget::site_sink& out) const {
  const impl& g = *impl_;
  const offtarget::site_search& s = offtarget::searcher_access::of(guides);
  if (guides.opts().processes == nullptr && g.on_own_gpus(s.candidate_options(), s.patterns().size())) {
    // Kept packed on the GPUs: the candidates of the whole layout from their copies, each
    // record's sites built from its bytes around them, decoded from the image. A candidate
    // inside a record is one of the whole layout's (the gaps' NULs match nothing, and no
    // candidate spans a gap), so each record gets its own candidates and perhaps some that
    // reach into a gap, whose sites are built from the record's bytes alone: the sites of
    // a search of the record. The GPU's candidates have sites (its scan tests them).
    search_options planned = s.candidate_options();
    const std::size_t workers = planned.device.workers().size();
    // One slice per GPU, as a file's search plans it; with bulges, whose sites take the host
    // longer than the scan takes the GPU, slices the GPUs scan while the sites of those before
    // are built (each slice costs a scan's set-up, little beside a bulge job's sites).
    const bool bulges = guides.opts().dna_bulges + guides.opts().rna_bulges > 0;
    planned.threads = static_cast<unsigned>(bulges ? 2 * workers : workers + 1);
    planned.slice_size = bulges ? std::max<std::size_t>(g.text.size() / (8 * workers) + 1, std::size_t{64} << 20)
                                : g.text.size() / workers + 1;
    const auto m = s.gpu_matcher(planned);
    const auto sites = s.windowed(out, [&g](std::uint32_t r, std::uint64_t lo, std::uint64_t hi, char* to) {
      g.packed->decode(r, lo, hi - lo, to);
    }, false);
    std::size_t r = 0;  // the record open
    const auto open = [&](std::size_t i) {
      record_info info;
      info.name = g.records[i].name;
      info.index = i;
      info.format = g.fmt;
      sites->begin_record(info, g.length[i]);
    };
    open(0);
    search_sequence(*m, g.text, planned, [&](std::span<const hit> hs) {
      // by end: record r's are those that end in (its begin, its end], a run of them
      const auto by_end = [](const hit& h, std::uint64_t v) { return h.end <= v; };
      for (auto h = hs.begin(); h != hs.end();) {
        while (r + 1 < g.begin.size() && g.begin[r + 1] < h->end) {
          sites->end_record();
          open(++r);
        }
        const std::uint64_t b = g.begin[r], e = b + g.length[r];
        const std::uint64_t next = r + 1 < g.begin.size() ? g.begin[r + 1] : ~std::uint64_t{0};
        const auto stop = std::partition_point(h, hs.end(), [&](const hit& x) { return by_end(x, next); });
        const auto first = std::partition_point(h, stop, [&](const hit& x) { return by_end(x, b); });
        const auto last = std::partition_point(first, stop, [&](const hit& x) { return by_end(x, e); });
        sites->candidates(std::span<const hit>(first, last), b);
        h = stop;
      }
      return true;
    });
    sites->end_record();
    while (++r < g.records.size()) {
      open(r);
      sites->end_record();
    }
    sites->finish();
    return;
  }
  if (g.packed) {  // a search of the .2bit image, as of the file
    renumbered sink(out, g.fmt);
    io::source src = io::source::from_memory(g.twobit, g.name);
    guides.search(src, sink);
    return;
  }
  const offtarget::options& o = guides.opts();
  std::size_t reach = 0, pam = 0;
  bool one_pam_length = true;
  for (const auto& p : o.pams) {
    one_pam_length = one_pam_length && p.size() == o.pams.front().size();
    pam = std::max(pam, p.size());
  }
  for (const auto& gd : guides.guides()) reach = std::max(reach, gd.protospacer.size() + pam);
  if (o.dna_bulges == 0 && o.rna_bulges == 0 && one_pam_length && reach < record_gap) {
    // Without bulges, and with PAMs of one length, a site's bytes are fixed by its PAM
    // position, guide and strand (the key that picks one site among the PAMs), so a site of
    // the whole buffer is that of its record alone when it lies inside it, and the runs of
    // NULs (no base matches a NUL) keep every site found within record_gap of a record's end
    // out of the next record: one search of the buffer, its sites handed out by record. PAMs
    // of several lengths give sites of one key different bytes: one reaching into a gap could
    // win over one inside the record, so those take each record alone.
    class by_record final : public offtarget::site_sink {
     public:
      by_record(const impl& g, offtarget::site_sink& inner) : g_(g), inner_(inner) {}
      void begin_record(const record_info&) override {}
      void site(const offtarget::site& s) override {
        while (r_ + 1 < g_.records.size() && g_.begin[r_ + 1] <= s.start) next();
        if (s.start < g_.begin[r_] || s.end > g_.begin[r_] + g_.length[r_]) return;  // reaches into a gap
        offtarget::site here = s;
        here.start -= g_.begin[r_];
        here.end -= g_.begin[r_];
        open();
        inner_.site(here);
      }
      void end_record() override {}
      /// Begins and ends every record up to the last, as a search of the file does.
      void finish() {
        while (r_ + 1 < g_.records.size()) next();
        open();
        inner_.end_record();
      }

     private:
      void open() {
        if (opened_) return;
        record_info info;
        info.name = g_.records[r_].name;
        info.index = r_;
        info.format = g_.fmt;
        inner_.begin_record(info);
        opened_ = true;
      }
      void next() {
        open();
        inner_.end_record();
        ++r_;
        opened_ = false;
      }
      const impl& g_;
      offtarget::site_sink& inner_;
      std::size_t r_ = 0;
      bool opened_ = false;
    } sink(g, out);
    if (g.records.empty()) return;
    io::source src = io::source::from_memory(g.text, g.name);
    guides.search(src, sink);
    sink.finish();
    return;
  }
  // with bulges, each record searched alone, as a search of the file takes it
  renumbered sink(out, g.fmt);
  for (std::uint32_t r = 0; r < g.records.size(); ++r) {
    sink.record = r;
    io::source src = io::source::from_memory(g.bytes_of(r), g.records[r].name);
    guides.search(src, sink);
  }
}

}  // namespace trawl
