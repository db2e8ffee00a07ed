// records.cpp — FASTA/FASTQ records as searchable sequences (line breaks removed), or a
// plain input as one record. O(n) per input; a record without line breaks is not copied.
#include <algorithm>
#include <cstring>
#include <memory>
#include <vector>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "io/fasta_pieces.hpp"
#include "io/file_names.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {
namespace {

std::string_view line_at(std::string_view b, std::size_t pos, std::size_t& next) {
  const std::size_t nl = b.find('\n', pos);
  const std::size_t end = nl == std::string_view::npos ? b.size() : nl;
  next = nl == std::string_view::npos ? b.size() : nl + 1;
  std::string_view line = b.substr(pos, end - pos);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view record_id(std::string_view header) {
  const std::size_t blank = header.find_first_of(" \t");
  return blank == std::string_view::npos ? header : header.substr(0, blank);
}

}  // namespace

namespace {

/// Where the content begins: past a UTF-8 byte order mark and blank lines.
std::size_t content_start(std::string_view bytes) {
  std::size_t p = bytes.substr(0, 3) == "\xEF\xBB\xBF" ? 3 : 0;
  while (p < bytes.size() && (bytes[p] == '\n' || bytes[p] == '\r')) ++p;
  return p;
}

/// A line of sequence letters: IUPAC nucleotide and amino-acid codes (any letter), gaps and
/// stops, nothing else (no blank, digit or punctuation).
bool sequence_line(std::string_view line) {
  if (line.empty()) return false;
  for (const char c : line)
    if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '-' || c == '*')) return false;
  return true;
}

/// The FASTQ record at `p` (its '@'), single- or multi-line (Sanger): the header, sequence
/// lines up to a line that starts with '+', then quality lines until they hold as many bytes
/// as the sequence lines. `complete`: every line of the record is in `bytes`, newline-ended
/// (or ended by the end of `bytes` when `at_end`).
struct fastq_shape {
  bool valid = false;      ///< a record, its qualities as long as its sequence
  bool complete = false;   ///< decided: valid or not, on lines that are all there
  bool letters = true;     ///< every sequence line is sequence letters (sequence_line)
  std::size_t lines = 0;   ///< sequence lines
  std::size_t seq = 0;     ///< sequence bytes (without line breaks)
  std::size_t end = 0;     ///< past the record's last line
};
fastq_shape read_fastq_shape(std::string_view b, std::size_t p, bool at_end) {
  fastq_shape s;
  const auto whole = [&](std::size_t next) { return next <= b.size() && (b[next - 1] == '\n' || at_end); };
  std::size_t next = p;
  line_at(b, p, next);  // header
  if (!whole(next)) return s;
  for (;;) {  // sequence lines
    if (next >= b.size()) {
      s.complete = at_end;  // no '+' line: not a record
      return s;
    }
    const std::size_t at = next;
    const std::string_view line = line_at(b, at, next);
    if (!whole(next)) return s;
    if (!line.empty() && line[0] == '+') break;
    s.letters = s.letters && (line.empty() || sequence_line(line));
    s.seq += line.size();
    ++s.lines;
  }
  std::size_t qual = 0;
  while (qual < s.seq) {  // quality lines (they may start with '@' or '+')
    if (next >= b.size()) {
      s.complete = at_end;
      return s;
    }
    qual += line_at(b, next, next).size();
    if (!whole(next)) return s;
  }
  // an empty read: its quality line, when there is one, is empty
  if (s.seq == 0 && next < b.size()) {
    std::size_t after = next;
    if (line_at(b, next, after).empty()) next = after;
  }
  s.complete = true;
  s.valid = qual == s.seq;
  s.end = next;
  return s;
}

/// True when `bytes`, from content_start, hold enough lines for detect_format to decide as it
/// would on the whole input: the lines its rule reads, complete (ended by a newline).
bool decidable(std::string_view bytes, std::size_t p) {
  if (p >= bytes.size()) return false;
  if (bytes[p] == '@') return read_fastq_shape(bytes, p, false).complete;
  const std::size_t lines = bytes[p] == '>' ? 2 : 0;
  std::size_t seen = 0;
  for (std::size_t i = p; i < bytes.size() && seen < lines; ++i) seen += bytes[i] == '\n' ? 1 : 0;
  return seen >= lines;
}

}  // namespace

format detect_format(std::string_view bytes) {
  const std::size_t p = content_start(bytes);
  if (p >= bytes.size()) return format::plain;
  std::size_t next = p;
  if (bytes[p] == '>') {
    line_at(bytes, p, next);  // header
    return sequence_line(line_at(bytes, next, next)) ? format::fasta : format::plain;
  }
  if (bytes[p] == '@') {
    // a whole record of sequence letters (a read may be empty: the '+' line and qualities as
    // long as it still show the shape)
    const fastq_shape s = read_fastq_shape(bytes, p, true);
    if (s.valid && s.letters) return format::fastq;
  }
  return format::plain;
}

namespace {

/// Whether `name` ends in `ext` with a name before it; if so, `ext` is cut off.
bool strip_extension(std::string& name, std::string_view ext) {
  if (name.size() <= ext.size() || name.compare(name.size() - ext.size(), ext.size(), ext) != 0) return false;
  name.resize(name.size() - ext.size());
  return true;
}

}  // namespace

std::string detail::bare_name(std::string_view path) {
  std::string name(path.substr(path.find_last_of('/') == std::string_view::npos ? 0 : path.find_last_of('/') + 1));
  for (char& c : name) c = static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  (void)(strip_extension(name, ".gz") || strip_extension(name, ".bgz") || strip_extension(name, ".zst"));
  return name;
}

format format_of_name(std::string_view path) {
  std::string name = detail::bare_name(path);
  const auto strip = [&](std::string_view ext) { return strip_extension(name, ext); };
  for (const std::string_view ext : {".fa", ".fasta", ".fna", ".ffn", ".faa", ".frn", ".2bit"})
    if (strip(ext)) return format::fasta;
  for (const std::string_view ext : {".fq", ".fastq"})
    if (strip(ext)) return format::fastq;
  return format::automatic;
}

record_reader::record_reader(std::string_view bytes, format fmt, std::string input_name)
    : bytes_(bytes), fmt_(fmt == format::automatic ? detect_format(bytes) : fmt), input_name_(std::move(input_name)) {
  if (bytes_.substr(0, 3) == "\xEF\xBB\xBF" && fmt_ != format::plain) pos_ = 3;
}

namespace {

/// A sequence's lines, cut into parts at line ends for the workers: where each part begins,
/// the line breaks before it, and whether any '\r' is among them.
struct line_parts {
  std::vector<std::size_t> begin;   // parts' first bytes, and raw.size() last
  std::vector<std::size_t> before;  // '\n' bytes before each part
  std::size_t breaks = 0;
  bool returns = false;
};

/// Sequences from this size on are counted and joined on all cores.
constexpr std::size_t parallel_join = std::size_t{32} << 20;

line_parts line_parts_of(std::string_view raw) {
  line_parts p;
  const std::size_t n = raw.size();
  const std::size_t count = n < parallel_join ? 1 : std::min<std::size_t>(n / (parallel_join / 4), 256);
  p.begin.push_back(0);
  for (std::size_t i = 1; i < count; ++i) {  // each part starts after a line end
    const std::size_t at = std::max(p.begin.back(), n * i / count);
    const void* nl = std::memchr(raw.data() + at, '\n', n - at);
    const std::size_t b = nl == nullptr ? n : static_cast<std::size_t>(static_cast<const char*>(nl) - raw.data()) + 1;
    if (b > p.begin.back() && b < n) p.begin.push_back(b);
  }
  p.begin.push_back(n);
  const std::size_t parts = p.begin.size() - 1;
  std::vector<std::size_t> breaks(parts, 0);
  std::vector<char> returns(parts, 0);
  tbb::parallel_for(std::size_t{0}, parts, [&](std::size_t i) {
    const std::string_view part = raw.substr(p.begin[i], p.begin[i + 1] - p.begin[i]);
    breaks[i] = static_cast<std::size_t>(std::count(part.begin(), part.end(), '\n'));
    returns[i] = part.find('\r') != std::string_view::npos ? 1 : 0;
  });
  p.before.resize(parts);
  for (std::size_t i = 0; i < parts; ++i) {
    p.before[i] = p.breaks;
    p.breaks += breaks[i];
    p.returns = p.returns || returns[i] != 0;
  }
  return p;
}

/// raw without its '\n' bytes into out, a part on each worker.
void join_lines(std::string_view raw, const line_parts& p, char* out) {
  tbb::parallel_for(std::size_t{0}, p.begin.size() - 1, [&](std::size_t k) {
    char* o = out + p.begin[k] - p.before[k];
    for (std::size_t i = p.begin[k]; i < p.begin[k + 1];) {
      const void* nl = std::memchr(raw.data() + i, '\n', p.begin[k + 1] - i);
      const std::size_t e = nl != nullptr ? static_cast<std::size_t>(static_cast<const char*>(nl) - raw.data()) : p.begin[k + 1];
      std::memcpy(o, raw.data() + i, e - i);
      o += e - i;
      i = e + 1;
    }
  });
}

}  // namespace

bool record_reader::next(record& r) {
  if (done_) return false;
  if (fmt_ == format::plain) {
    done_ = true;
    r = record{input_name_, bytes_, 0};
    return true;
  }
  const std::string_view b = bytes_;
  // Skip blank lines before a record.
  while (pos_ < b.size() && (b[pos_] == '\n' || b[pos_] == '\r')) ++pos_;
  if (pos_ >= b.size()) {
    done_ = true;
    return false;
  }
  std::size_t next = pos_;
  if (fmt_ == format::fasta) {
    if (b[pos_] != '>')
      throw error(errc::bad_format, input_name_ + ": FASTA record " + std::to_string(count_ + 1) +
                                        " does not start with '>'");
    const std::string_view header = line_at(b, pos_ + 1, next);
    // The sequence runs to the next line starting with '>'.
    std::size_t seq_begin = next, seq_end = next;
    if (seq_end < b.size() && !(b[seq_end] == '>' && (seq_end == 0 || b[seq_end - 1] == '\n'))) {
      const std::size_t nl = b.find("\n>", seq_end);
      seq_end = nl == std::string_view::npos ? b.size() : nl + 1;
    }
    pos_ = seq_end;
    std::string_view raw = b.substr(seq_begin, seq_end - seq_begin);
    // Zero-copy when the sequence is one line; otherwise drop the line breaks.
    std::string_view seq;
    const line_parts parts = line_parts_of(raw);
    if ((parts.breaks == 0 || (parts.breaks == 1 && raw.back() == '\n')) && !parts.returns) {
      seq = raw;
      if (!seq.empty() && seq.back() == '\n') seq.remove_suffix(1);
    } else if (!parts.returns) {  // the lines copied whole, a part of them on each worker
      seq_buf_.resize(raw.size() - parts.breaks);
      join_lines(raw, parts, seq_buf_.data());
      seq = seq_buf_;
    } else {
      seq_buf_.clear();
      seq_buf_.reserve(raw.size());
      for (char c : raw)
        if (c != '\n' && c != '\r') seq_buf_.push_back(c);
      seq = seq_buf_;
    }
    r = record{record_id(header), seq, count_++};
    return true;
  }
  // FASTQ: @header / sequence lines / +[header] / quality lines (one each, or several:
  // read_fastq_shape)
  if (b[pos_] != '@')
    throw error(errc::bad_format, input_name_ + ": FASTQ record " + std::to_string(count_ + 1) + " does not start with '@'");
  const fastq_shape s = read_fastq_shape(b, pos_, true);
  if (!s.valid) throw error(errc::bad_format, input_name_ + ": malformed FASTQ record " + std::to_string(count_ + 1));
  const std::string_view header = line_at(b, pos_ + 1, next);
  std::string_view seq = s.lines == 0 ? std::string_view() : line_at(b, next, next);  // one line: no copy
  if (s.lines > 1) {
    seq_buf_.assign(seq);
    for (std::size_t i = 1; i < s.lines; ++i) seq_buf_.append(line_at(b, next, next));
    seq = seq_buf_;
  }
  pos_ = s.end;
  r = record{record_id(header), seq, count_++};
  return true;
}

}  // namespace trawl::io

// ---- record_parser: the same records from an input handed over in pieces ----------------

namespace trawl::io {
namespace {

// Parser states (record_parser::state_).
enum : int {
  before_record,  // skipping blank lines before a record's '>' / '@'
  header,         // in a header line (collected in line_)
  fasta_seq,      // in a FASTA sequence line
  fasta_line,     // at the start of a line inside a FASTA record
  fastq_seq,      // in a FASTQ sequence line (collected in fastq_seq_)
  fastq_plus,     // at a line after a FASTQ header or sequence line: '+', or more sequence
  fastq_plus_rest,
  fastq_qual,     // in a FASTQ quality line (counted, not kept)
  fastq_empty_qual,  // after an empty read's '+' line: its quality line, empty, if it has one
};

std::string_view strip_cr(std::string_view s) {
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

}  // namespace

record_parser::record_parser(format fmt, std::string input_name, record_handler& out)
    : fmt_(fmt), input_name_(std::move(input_name)), out_(out) {}

void record_parser::fail(const std::string& what) const {
  const char* kind = fmt_ == format::fastq ? "FASTQ" : "FASTA";
  throw error(errc::bad_format, input_name_ + ": " + (what.empty() ? std::string("malformed ") + kind + " record " + std::to_string(count_ + 1) : what));
}

void record_parser::begin_fasta() {
  const std::string_view header = strip_cr(line_);
  out_.heads(header, {});
  out_.begin_record(record_id(header));
}

void record_parser::begin_fastq() {
  const std::string_view header = strip_cr(header_);
  out_.heads(header, fastq_qual_);
  out_.begin_record(record_id(header));
}

void record_parser::feed(std::string_view bytes) {
  if (fmt_ == format::automatic) {
    // Hold the first bytes until detect_format can decide as on the whole input: '>' after
    // two lines, '@' after four, anything else at its first byte.
    probe_.append(bytes);
    const std::size_t p = content_start(probe_);
    constexpr std::size_t probe_limit = std::size_t{1} << 20;  // then decide on what is there
    if (probe_.size() < probe_limit && (p >= probe_.size() || (probe_.size() < 3 && probe_[0] == '\xEF'))) return;
    if (probe_.size() < probe_limit && (probe_[p] == '>' || probe_[p] == '@') && !decidable(probe_, p)) return;
    fmt_ = detect_format(probe_);
    std::string held = std::move(probe_);
    probe_.clear();
    parse(held);
    return;
  }
  parse(bytes);
}

void record_parser::finish() {
  if (fmt_ == format::automatic) {
    fmt_ = detect_format(probe_);
    std::string held = std::move(probe_);
    probe_.clear();
    parse(held);
  }
  if (fmt_ == format::plain) {
    if (!in_record_) out_.begin_record(input_name_);
    out_.end_record();
    in_record_ = false;
    return;
  }
  switch (state_) {
    case before_record: break;
    case header:
      if (fmt_ == format::fastq) fail("");
      begin_fasta();
      out_.end_record();
      break;
    case fasta_seq:
    case fasta_line: out_.end_record(); break;
    case fastq_plus_rest:  // no quality line at all: right for an empty read only
      if (!fastq_seq_.empty()) fail("");
      [[fallthrough]];
    case fastq_empty_qual:
      begin_fastq();
      out_.end_record();
      ++count_;
      break;
    case fastq_qual:  // the last line may lack its newline; qualities cut short are an error
      parse("\n");
      if (state_ == fastq_qual) fail("");
      break;
    default: fail("");
  }
  state_ = before_record;
}

namespace {

/// The sequence bytes of the whole lines of b from i (a line start) up to the first line
/// that starts with '>', holds a '\r' or is not finished in b, without their '\n's, written
/// to out (room for b.size() - i + 16 bytes); returns where those lines end in b (i when
/// there is none) and sets `len` to the bytes written. One pass: each 16 bytes are copied and
/// searched for '\n' and '\r' at once (SSE2, every x86-64 CPU), no call per line.
std::size_t gather(std::string_view b, std::size_t i, char* out, std::size_t& len) {
  const char* p = b.data();
  const std::size_t n = b.size();
  std::size_t o = 0, done = i, done_o = 0;  // the last complete line's end, in b and in out
  while (i < n && p[i] != '>') {
    std::size_t j = i;
    bool complete = false;
#if defined(__SSE2__)
    const __m128i nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r');
    while (j + 16 <= n) {
      const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p + j));
      _mm_storeu_si128(reinterpret_cast<__m128i*>(out + o), v);
      const auto m = static_cast<unsigned>(_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr))));
      if (m == 0) {
        j += 16, o += 16;
        continue;
      }
      const auto k = static_cast<std::size_t>(__builtin_ctz(m));
      j += k, o += k;
      complete = true;
      break;
    }
#endif
    if (!complete) {
      while (j < n && p[j] != '\n' && p[j] != '\r') out[o++] = p[j++];
      if (j == n) break;  // unfinished line
    }
    if (p[j] == '\r') break;  // the careful path takes this line
    i = j + 1;
    done = i, done_o = o;
  }
  len = done_o;
  return done;
}

}  // namespace

void parse_fasta_piece(std::string_view piece, std::size_t headroom, std::string& out, std::vector<fasta_head>& heads) {
  // Lines are gathered into a small buffer (it stays in cache) and appended: the output is
  // written once and never zero-filled first.
  constexpr std::size_t window = std::size_t{1} << 17;
  thread_local std::unique_ptr<char[]> buf;
  if (!buf) buf = std::make_unique<char[]>(window + 16);
  heads.clear();
  out.clear();
  out.append(headroom, '\0');
  std::size_t i = 0;
  const std::size_t n = piece.size();
  while (i < n) {
    if (piece[i] == '>') {
      const std::size_t nl = piece.find('\n', i);
      const std::size_t end = nl == std::string_view::npos ? n : nl;
      heads.push_back({out.size(), record_id(strip_cr(piece.substr(i + 1, end - i - 1))), i});
      i = end == n ? n : end + 1;
      continue;
    }
    std::size_t len = 0;
    const std::size_t run = gather(piece.substr(0, std::min(n, i + window)), i, buf.get(), len);
    out.append(buf.get(), len);
    if (run > i) {
      i = run;
      continue;
    }
    // a line holding '\r', longer than the window, or the input's last line without its '\n':
    // its bytes but '\r'
    const std::size_t nl = piece.find('\n', i);
    const std::size_t end = nl == std::string_view::npos ? n : nl;
    while (i < end) {
      const std::size_t cr = piece.substr(i, end - i).find('\r');
      const std::size_t stop = cr == std::string_view::npos ? end : i + cr;
      out.append(piece.substr(i, stop - i));
      i = stop == end ? end : stop + 1;
    }
    i = end == n ? n : end + 1;
  }
}

std::size_t fasta_records_start(std::string_view bytes) {
  std::size_t p = 0;
  while (p < bytes.size() && (bytes[p] == '\n' || bytes[p] == '\r')) ++p;
  return p < bytes.size() && bytes[p] == '>' ? p : std::string_view::npos;
}

void parse_fasta_windows(std::string_view bytes, const fasta_window& each) {
  const auto workers = static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  const std::size_t piece = std::clamp<std::size_t>(bytes.size() / (8 * workers), std::size_t{1} << 16, std::size_t{1} << 22);
  const std::size_t window = 2 * workers;
  std::vector<std::string> out(window);
  std::vector<std::vector<fasta_head>> heads(window);
  std::vector<std::string_view> pieces;
  for (std::size_t p = 0; p < bytes.size();) {
    pieces.clear();
    while (pieces.size() < window && p < bytes.size()) {
      const std::size_t e = fasta_piece_end(bytes, p, piece);
      pieces.push_back(bytes.substr(p, e - p));
      p = e;
    }
    tbb::parallel_for(std::size_t{0}, pieces.size(), [&](std::size_t k) { parse_fasta_piece(pieces[k], 0, out[k], heads[k]); });
    if (!each(pieces, out, heads)) return;
  }
}

std::uint32_t fasta_line_width(std::string_view piece, std::size_t seq_len) {
  const std::size_t w = std::min(piece.find('\n'), piece.size());
  if (w == 0 || w > UINT32_MAX || seq_len == 0) return 0;
  // the parse dropped piece.size() - seq_len bytes, every '\n' and '\r': when that is one per
  // line and each line's '\n' is where the width puts it, there is no other
  const std::size_t lines = (seq_len + w - 1) / w;
  const std::size_t dropped = piece.size() - seq_len;
  const bool last_nl = piece.back() == '\n';
  if (dropped != (last_nl ? lines : lines - 1)) return 0;
  for (std::size_t k = 0; k + 1 < lines; ++k)
    if (piece[k * (w + 1) + w] != '\n') return 0;
  return static_cast<std::uint32_t>(w);
}

std::size_t fasta_piece_end(std::string_view bytes, std::size_t from, std::size_t size, std::size_t reach) {
  const std::size_t at = from + std::max<std::size_t>(size, 1) - 1;
  if (at >= bytes.size()) return bytes.size();
  reach = std::max<std::size_t>(reach, 1);
  const std::size_t nl = bytes.substr(0, std::min(bytes.size(), at + reach)).find('\n', at);
  if (nl != std::string_view::npos) return nl + 1;
  if (at + reach >= bytes.size()) return bytes.size();
  // a line longer than that: is it a header? (its start: after the last '\n' up to `at`, else
  // `from`, which is then a line start or inside a sequence line)
  const void* before = memrchr(bytes.data() + from, '\n', at + 1 - from);
  const bool line_start = before != nullptr || from == 0 || bytes[from - 1] == '\n';
  const std::size_t start = before != nullptr ? static_cast<std::size_t>(static_cast<const char*>(before) - bytes.data()) + 1 : from;
  if (line_start && bytes[start] == '>') {  // a header is never cut
    const std::size_t end = bytes.find('\n', at);
    return end == std::string_view::npos ? bytes.size() : end + 1;
  }
  std::size_t cut = at + 1;  // the next piece must not start with '>' (a header to its parser)
  while (cut < bytes.size() && bytes[cut] == '>') ++cut;
  return cut;
}

std::size_t record_parser::gather_lines(std::string_view b, std::size_t i) {
  thread_local std::unique_ptr<char[]> buf;
  thread_local std::size_t room = 0;
  if (room < b.size() - i + 16) {
    room = std::max<std::size_t>(b.size() - i + 16, std::size_t{1} << 20);
    buf = std::make_unique<char[]>(room);
  }
  std::size_t len = 0;
  const std::size_t end = gather(b, i, buf.get(), len);
  if (len > 0) out_.sequence(std::string_view(buf.get(), len));
  return end;
}

void record_parser::parse(std::string_view b) {
  if (fmt_ == format::plain) {
    if (!in_record_) {
      out_.begin_record(input_name_);
      in_record_ = true;
    }
    if (!b.empty()) out_.sequence(b);
    return;
  }
  std::size_t i = 0;
  std::string first;  // the first bytes, with a byte order mark, if any, cut by piece edges
  if (!bom_checked_) {
    probe_.append(b);
    if (probe_.size() < 3 && std::string_view("\xEF\xBB\xBF").substr(0, probe_.size()) == probe_) return;
    bom_checked_ = true;
    first = std::move(probe_);
    probe_.clear();
    b = first;
    if (b.substr(0, 3) == "\xEF\xBB\xBF") i = 3;
  }
  const bool fasta = fmt_ == format::fasta;
  while (i < b.size()) {
    switch (state_) {
      case before_record: {
        const char c = b[i];
        if (c == '\n' || c == '\r') {
          ++i;
          break;
        }
        if (fasta && c != '>')
          fail("FASTA record " + std::to_string(count_ + 1) + " does not start with '>'");
        if (!fasta && c != '@')
          fail("FASTQ record " + std::to_string(count_ + 1) + " does not start with '@'");
        line_.clear();
        state_ = header;
        ++i;
        break;
      }
      case header: {
        const std::size_t nl = b.find('\n', i);
        if (nl == std::string_view::npos) {
          line_.append(b.substr(i));
          i = b.size();
          break;
        }
        line_.append(b.substr(i, nl - i));
        i = nl + 1;
        if (fasta) {
          begin_fasta();
          state_ = fasta_line;
        } else {
          header_ = std::move(line_);
          line_.clear();
          fastq_seq_.clear();
          fastq_qual_.clear();
          state_ = fastq_plus;  // sequence lines (none for an empty read), then the '+' line
        }
        break;
      }
      case fasta_line:
        if (b[i] == '>') {  // the next record
          out_.end_record();
          ++count_;
          line_.clear();
          state_ = header;
          ++i;
          break;
        }
        state_ = fasta_seq;
        [[fallthrough]];
      case fasta_seq: {
        // Whole lines up to the next header, without their '\n', in one handler call: lines of
        // the block that hold no '\r' (most FASTA) are gathered without reading them twice.
        if (const std::size_t run = gather_lines(b, i); run > i) {
          i = run;
          state_ = fasta_line;
          break;
        }
        // A line with '\r', or the block's last, unfinished line: its bytes without '\r'.
        const std::size_t nl = b.find('\n', i);
        const std::size_t end = nl == std::string_view::npos ? b.size() : nl;
        while (i < end) {
          const std::size_t cr = b.substr(i, end - i).find('\r');  // within the line only
          const std::size_t stop = cr == std::string_view::npos ? end : i + cr;
          if (stop > i) out_.sequence(b.substr(i, stop - i));
          i = stop == end ? end : stop + 1;
        }
        if (nl != std::string_view::npos) {
          i = nl + 1;
          state_ = fasta_line;
        }
        break;
      }
      case fastq_seq: {
        const std::size_t nl = b.find('\n', i);
        if (nl == std::string_view::npos) {
          fastq_seq_.append(b.substr(i));
          i = b.size();
          break;
        }
        fastq_seq_.append(b.substr(i, nl - i));
        i = nl + 1;
        if (fastq_seq_.size() > fastq_line_ && fastq_seq_.back() == '\r') fastq_seq_.pop_back();  // this line's own
        state_ = fastq_plus;
        break;
      }
      case fastq_plus:  // a '+' line, or one more sequence line (multi-line FASTQ)
        state_ = b[i] == '+' ? fastq_plus_rest : fastq_seq;
        fastq_line_ = fastq_seq_.size();
        break;
      case fastq_plus_rest: {
        const std::size_t nl = b.find('\n', i);
        if (nl == std::string_view::npos) {
          i = b.size();
          break;
        }
        i = nl + 1;
        qual_left_ = 0;
        line_.clear();  // holds the quality line's last byte, to drop a '\r' before its newline
        state_ = fastq_seq_.empty() ? fastq_empty_qual : fastq_qual;
        break;
      }
      case fastq_empty_qual:  // the empty read's empty quality line, or already the next record
        if (b[i] == '\n') ++i;
        begin_fastq();
        out_.end_record();
        ++count_;
        state_ = before_record;
        break;
      case fastq_qual: {
        const std::size_t nl = b.find('\n', i);
        const std::size_t end = nl == std::string_view::npos ? b.size() : nl;
        if (end > i) {
          qual_left_ += end - i;
          line_.assign(1, b[end - 1]);
          if (keep_qualities_) fastq_qual_.append(b.substr(i, end - i));
        }
        i = end;
        if (nl == std::string_view::npos) break;
        ++i;
        if (line_ == "\r") {
          --qual_left_;
          if (keep_qualities_) fastq_qual_.pop_back();
        }
        line_.clear();
        // the qualities so far: as long as the sequence ends the record; shorter, the next
        // line holds more of them (multi-line FASTQ)
        if (qual_left_ < fastq_seq_.size()) break;
        if (qual_left_ != fastq_seq_.size()) fail("");
        begin_fastq();
        if (!fastq_seq_.empty()) out_.sequence(fastq_seq_);
        out_.end_record();
        ++count_;
        state_ = before_record;
        break;
      }
      default: fail("");
    }
  }
}

}  // namespace trawl::io
