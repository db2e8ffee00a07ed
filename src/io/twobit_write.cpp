// twobit_write.cpp — UCSC .2bit files written (io.hpp's to_twobit, twobit_encode.hpp): sequences
// encoded four bases a byte on all cores, with their N and soft-mask blocks, in the layout
// twobit.cpp describes and reads.
#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>
#include <exception>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>

#include "common/faulted.hpp"
#include "io/fasta_pieces.hpp"
#include "io/twobit_encode.hpp"
#include "io/twobit_format.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"

namespace trawl::io {

using twobit_format::block;
using twobit_format::signature;

namespace {

/// A sequence byte as .2bit keeps it: its two-bit code (T 0, C 1, A 2, G 3; U as T, as UCSC
/// reads it; N as T), in an N block, in a mask block (lower case), an IUPAC code other than N
/// written as N, read back as another letter (U, and those IUPAC codes), or a byte .2bit
/// cannot hold.
struct base_kind {
  std::uint8_t code = 0;
  bool n = false, lower = false, iupac = false, changed = false, bad = true;
};
constexpr std::array<base_kind, 256> base_kinds = [] {
  std::array<base_kind, 256> k;
  k.fill(base_kind{});  // not `k{}`: GCC 12 constant-evaluates that with some elements' members zeroed
  const auto set = [&](char upper, base_kind v) {
    k[static_cast<unsigned char>(upper)] = v;
    v.lower = true;
    k[static_cast<unsigned char>(upper | 0x20)] = v;
  };
  set('T', {0, false, false, false, false, false});
  set('U', {0, false, false, false, true, false});
  set('C', {1, false, false, false, false, false});
  set('A', {2, false, false, false, false, false});
  set('G', {3, false, false, false, false, false});
  set('N', {0, true, false, false, false, false});
  for (const char c : std::string_view("RYSWKMBDHV")) set(c, {0, true, false, true, true, false});
  return k;
}();
static_assert(base_kinds['X'].bad && base_kinds[0].bad && base_kinds['*'].bad && !base_kinds['a'].bad &&
              base_kinds['a'].lower && !base_kinds['A'].lower && base_kinds['r'].iupac && base_kinds['r'].n &&
              !base_kinds['n'].iupac && base_kinds['u'].code == 0 && !base_kinds['u'].n && base_kinds['u'].changed &&
              base_kinds['r'].changed && !base_kinds['n'].changed && !base_kinds['g'].changed);

/// A part of a sequence encoded: its N and mask blocks, the IUPAC codes written as N, the bases
/// read back as another letter, and its first byte .2bit cannot hold (npos: none).
struct encoded_part {
  std::vector<block> ns, masks;
  std::uint64_t replaced = 0, changed = 0;
  std::size_t bad = std::string_view::npos;
};

/// Bases [a, e) added to a list of blocks: the last block grows when they continue it.
void extend(std::vector<block>& list, std::uint64_t a, std::uint64_t e) {
  if (!list.empty() && list.back().end == a) list.back().end = e;
  else list.push_back({a, e});
}

/// seq[from, to) (from a multiple of 4) into its packed bytes, four bases a byte, the first in
/// the high bits, one byte at a time.
void encode_bytes(std::string_view seq, std::size_t from, std::size_t to, char* packed, encoded_part& out) {
  for (std::size_t i = from; i < to; i += 4) {
    const std::size_t e = std::min(to, i + 4);
    unsigned byte = 0;
    for (std::size_t j = i; j < e; ++j) {
      const base_kind& k = base_kinds[static_cast<unsigned char>(seq[j])];
      if (k.bad) {
        out.bad = std::min(out.bad, j);
        continue;
      }
      byte |= static_cast<unsigned>(k.code) << (6 - 2 * (j - i));
      if (k.n) extend(out.ns, j, j + 1);
      if (k.lower) extend(out.masks, j, j + 1);
      out.replaced += k.iupac ? 1 : 0;
      out.changed += k.changed ? 1 : 0;
    }
    packed[i / 4] = static_cast<char>(byte);
  }
}

/// 0x80 in each byte of v that is zero, 0 in the others.
constexpr std::uint64_t zero_bytes(std::uint64_t v) noexcept {
  constexpr std::uint64_t m = 0x7F7F7F7F7F7F7F7FULL;
  return ~(((v & m) + m) | v | m);
}

/// seq[i, i + 8) (i a multiple of 4) into its two packed bytes: at once where the bases are all
/// A/C/G/T or all N, all of one case, else byte by byte.
void encode_8(std::string_view seq, std::size_t i, char* packed, encoded_part& out) {
  static_assert(std::endian::native == std::endian::little, "the bases are read as little-endian words");
  constexpr std::uint64_t ones = 0x0101010101010101ULL;
  std::uint64_t x;
  std::memcpy(&x, seq.data() + i, 8);
  const std::uint64_t lower = x & (0x20 * ones);  // letters only: other bytes fail the tests below
  const std::uint64_t up = x & ~(0x20 * ones);
  if (lower != 0 && lower != 0x20 * ones) return encode_bytes(seq, i, i + 8, packed, out);
  std::uint64_t codes;
  if ((zero_bytes(up ^ ('A' * ones)) | zero_bytes(up ^ ('C' * ones)) | zero_bytes(up ^ ('G' * ones)) |
       zero_bytes(up ^ ('T' * ones))) == 0x80 * ones) {
    codes = (6 * ones - ((x >> 1) & (3 * ones))) & (3 * ones);  // (b >> 1) & 3 is A 0, C 1, T 2, G 3
  } else if (up == 'N' * ones) {
    codes = 0;
    extend(out.ns, i, i + 8);
  } else {
    return encode_bytes(seq, i, i + 8, packed, out);
  }
  if (lower != 0) extend(out.masks, i, i + 8);
  // the four codes of each half into one byte, the first in the high bits
  constexpr std::uint64_t gather = (std::uint64_t{1} << 30) | (std::uint64_t{1} << 20) | (std::uint64_t{1} << 10) | 1;
  packed[i / 4] = static_cast<char>(((codes & 0xFFFFFFFFu) * gather) >> 24);
  packed[i / 4 + 1] = static_cast<char>(((codes >> 32) * gather) >> 24);
}

/// seq[from, to) (from a multiple of 4) into its packed bytes: sixteen bases at a time (SSE2,
/// where the target has it) or eight where they are all A/C/G/T or all N, all of one case, else
/// byte by byte.
void encode_part(std::string_view seq, std::size_t from, std::size_t to, char* packed, encoded_part& out) {
  std::size_t i = from;
#if defined(__SSE2__)
  const __m128i case_bit = _mm_set1_epi8(0x20), three = _mm_set1_epi8(3), six = _mm_set1_epi8(6);
  const __m128i low_bytes = _mm_set1_epi16(0x00FF), low_words = _mm_set1_epi32(0xFFFF);
  for (; i + 16 <= to; i += 16) {
    const __m128i x = _mm_loadu_si128(reinterpret_cast<const __m128i*>(seq.data() + i));
    const int upper = _mm_movemask_epi8(_mm_cmpeq_epi8(_mm_and_si128(x, case_bit), _mm_setzero_si128()));
    const __m128i up = _mm_andnot_si128(case_bit, x);
    const auto is = [&](char c) { return _mm_cmpeq_epi8(up, _mm_set1_epi8(c)); };
    const int bases = _mm_movemask_epi8(_mm_or_si128(_mm_or_si128(is('A'), is('C')), _mm_or_si128(is('G'), is('T'))));
    const bool one_case = upper == 0xFFFF || upper == 0;
    if (one_case && bases == 0xFFFF) {
      // (b >> 1) & 3 is A 0, C 1, T 2, G 3; 6 minus it, mod 4, the .2bit code
      const __m128i codes = _mm_and_si128(_mm_sub_epi8(six, _mm_and_si128(_mm_srli_epi16(x, 1), three)), three);
      // pairs of codes into 4 bits, pairs of those into a byte, the first in the high bits
      const __m128i pairs = _mm_or_si128(_mm_slli_epi16(_mm_and_si128(codes, low_bytes), 2), _mm_srli_epi16(codes, 8));
      const __m128i quads = _mm_or_si128(_mm_slli_epi32(_mm_and_si128(pairs, low_words), 4), _mm_srli_epi32(pairs, 16));
      const __m128i bytes = _mm_packus_epi16(_mm_packs_epi32(quads, quads), _mm_setzero_si128());
      const auto word = static_cast<std::uint32_t>(_mm_cvtsi128_si32(bytes));
      std::memcpy(packed + i / 4, &word, 4);
    } else if (one_case && _mm_movemask_epi8(is('N')) == 0xFFFF) {
      std::memset(packed + i / 4, 0, 4);
      extend(out.ns, i, i + 16);
    } else {
      encode_8(seq, i, packed, out);
      encode_8(seq, i + 8, packed, out);
      continue;
    }
    if (upper == 0) extend(out.masks, i, i + 16);
  }
#endif
  for (; i + 8 <= to; i += 8) encode_8(seq, i, packed, out);
  encode_bytes(seq, i, to, packed, out);
}

/// A byte in an error line: 'c' when printable, else '\xNN'.
std::string shown_byte(char c) {
  const auto b = static_cast<unsigned char>(c);
  if (b > 0x20 && b < 0x7f) return std::string{'\'', c, '\''};
  constexpr char hex[] = "0123456789abcdef";
  return std::string{'\'', '\\', 'x', hex[b >> 4], hex[b & 15], '\''};
}

/// A part's blocks after the ones before it: a block that continues the last is joined to it.
void append_blocks(std::vector<block>& to, const std::vector<block>& part) {
  auto from = part.begin();
  if (!to.empty() && from != part.end() && to.back().end == from->start) to.back().end = (from++)->end;
  to.insert(to.end(), from, part.end());
}

/// Throws as to_twobit when two sequences of the .2bit `image` have one name: a reader finds
/// a sequence by its name, and would find only one of them.
void refuse_duplicate_names(const twobit_image& image, const std::string& name) {
  const twobit_file f(image.bytes, name);
  std::vector<std::string_view> names(f.size());
  for (std::size_t i = 0; i < f.size(); ++i) names[i] = f.header(i);
  std::sort(names.begin(), names.end());
  const auto dup = std::adjacent_find(names.begin(), names.end());
  if (dup != names.end())
    throw error(errc::invalid_argument, name + ": two records are named " + std::string(*dup) + " (a .2bit's names are unique)");
}

}  // namespace

twobit_image to_twobit(std::string_view bytes, format fmt, const std::string& name) {
  record_reader rr(bytes, fmt, name);
  if (rr.detected() == format::plain)
    throw error(errc::invalid_argument, name + ": not FASTA or FASTQ (.2bit holds named DNA sequences)");
  const std::size_t p = rr.detected() == format::fasta ? fasta_records_start(bytes) : std::string_view::npos;
  if (p != std::string_view::npos) {  // parsed in pieces on all cores where it starts with a header
    twobit_image image = *detail::encode_fasta(bytes.substr(p), name, false);
    refuse_duplicate_names(image, name);
    return image;
  }
  record r;
  twobit_image image = detail::encode_twobit(
      [&](std::string_view& seq_name, std::string_view& bases) {
        if (!rr.next(r)) return false;
        seq_name = r.name;
        bases = r.sequence;
        return true;
      },
      name);
  refuse_duplicate_names(image, name);
  return image;
}

namespace {

/// One sequence of a .2bit being written: its name, its head (size, blocks, reserved) and its
/// packed bases (its own, or in a twobit_builder's arena), and the counts of its bases written
/// as N and read back as another letter.
struct packed_seq {
  std::string name;
  std::string head;
  std::unique_ptr<char[]> owned;  // written by the encoding's workers first
  const char* packed = nullptr;
  std::size_t packed_bytes = 0;
  std::uint64_t replaced = 0, changed = 0;
  [[nodiscard]] std::size_t size() const { return head.size() + packed_bytes; }
};

/// Throws as to_twobit for a name .2bit cannot hold: sequence number `index` (from 1) of `file`.
void check_name(std::string_view seq_name, std::uint64_t index, const std::string& file) {
  if (seq_name.empty() || seq_name.size() > 255)
    throw error(errc::invalid_argument, file + ": record " + std::to_string(index) + ": a .2bit name has 1 to 255 bytes");
  for (const char c : seq_name)  // as the reader refuses them
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f)
      throw error(errc::invalid_argument, file + ": record " + std::to_string(index) +
                                              ": a .2bit name holds no control character");
}

/// Throws as to_twobit for a sequence longer than .2bit holds.
void check_length(std::string_view seq_name, std::uint64_t length, const std::string& file) {
  if (length > 0xffffffffu)
    throw error(errc::invalid_argument, file + ": record " + std::string(seq_name) + " is longer than .2bit's 4 Gbases");
}

/// Throws as to_twobit for the byte `byte` at `pos` of a sequence.
[[noreturn]] void refuse_byte(std::string_view seq_name, char byte, std::uint64_t pos, const std::string& file) {
  throw error(errc::invalid_argument, file + ": record " + std::string(seq_name) + " holds " + shown_byte(byte) + " at " +
                                          std::to_string(pos) +
                                          ": .2bit holds A, C, G, T, N and IUPAC codes (written as N) only");
}

/// A sequence's head: its size, N blocks, mask blocks, reserved word.
std::string sequence_head(std::uint64_t length, const std::vector<block>& ns, const std::vector<block>& masks) {
  std::string head;
  const auto put32 = [&](std::uint64_t v) {
    const auto x = static_cast<std::uint32_t>(v);
    head.append(reinterpret_cast<const char*>(&x), 4);
  };
  put32(length);
  for (const auto* list : {&ns, &masks}) {
    put32(list->size());
    for (const block& b : *list) put32(b.start);
    for (const block& b : *list) put32(b.end - b.start);
  }
  put32(0);  // reserved
  return head;
}

/// Sequence number `index` (from 1) encoded, a long one in parts on all cores; throws as
/// to_twobit, naming `file`.
packed_seq encode_sequence(std::string_view seq_name, std::string_view seq, std::uint64_t index, const std::string& file) {
  check_name(seq_name, index, file);
  check_length(seq_name, seq.size(), file);
  constexpr std::size_t part = std::size_t{1} << 22;  // bases a worker encodes at once
  packed_seq p;
  p.packed_bytes = (seq.size() + 3) / 4;
  p.owned.reset(new char[p.packed_bytes]);  // each byte written once, by one part
  p.packed = p.owned.get();
  std::vector<encoded_part> parts(std::max<std::size_t>(1, (seq.size() + part - 1) / part));
  const auto encode = [&](std::size_t k) {
    encode_part(seq, k * part, std::min(seq.size(), (k + 1) * part), p.owned.get(), parts[k]);
  };
  if (parts.size() == 1) encode(0);  // a short sequence (reads, contigs): no task
  else tbb::parallel_for(std::size_t{0}, parts.size(), encode);
  std::vector<block> ns, masks;
  for (const encoded_part& e : parts) {
    if (e.bad != std::string_view::npos) refuse_byte(seq_name, seq[e.bad], e.bad, file);
    append_blocks(ns, e.ns);
    append_blocks(masks, e.masks);
    p.replaced += e.replaced;
    p.changed += e.changed;
  }
  p.name = seq_name;
  p.head = sequence_head(seq.size(), ns, masks);
  return p;
}

/// The .2bit file of the encoded sequences, in order.
twobit_image write_twobit(const std::vector<packed_seq>& seqs);

}  // namespace

twobit_image detail::encode_twobit(const next_sequence& next, const std::string& name) {
  std::vector<packed_seq> seqs;
  std::string_view seq_name, seq;
  for (std::uint64_t index = 1; next(seq_name, seq); ++index) seqs.push_back(encode_sequence(seq_name, seq, index, name));
  return write_twobit(seqs);
}

twobit_image detail::encode_twobit(std::span<const std::string_view> names, std::span<const std::string_view> sequences,
                                   const std::string& name) {
  std::vector<packed_seq> seqs(names.size());
  std::vector<std::exception_ptr> errors(names.size());
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, names.size()), [&](const tbb::blocked_range<std::size_t>& r) {
    for (std::size_t i = r.begin(); i != r.end(); ++i) {
      try {
        seqs[i] = encode_sequence(names[i], sequences[i], i + 1, name);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  });
  for (const auto& e : errors)  // the first sequence's error, as the serial encoder gives it
    if (e) std::rethrow_exception(e);
  return write_twobit(seqs);
}

struct detail::twobit_builder::impl {
  struct sequence {
    std::string name;
    std::uint64_t length = 0;
    std::size_t at = 0;  ///< its packed bytes' first in the arena
    std::vector<block> ns, masks;
    std::uint64_t replaced = 0, changed = 0;
  };
  std::string file;
  std::unique_ptr<char[]> arena;  ///< the sequences' packed bytes, one after another
  std::size_t room = 0;           ///< the arena's bytes
  std::size_t used = 0;           ///< up to the end of the last placed sequence's bytes
  std::size_t placed = 0;         ///< sequences whose place in the arena is set
  std::size_t checked = 0;        ///< sequences whose names are checked, in order
  std::uint64_t changed = 0;      ///< bases that read back as another letter, so far
  std::vector<sequence> seqs;

  /// The names of the sequences up to `seq` checked, in order (as encode_sequence checks each).
  void check_names(std::size_t seq) {
    for (; checked <= seq; ++checked) check_name(seqs[checked].name, checked + 1, file);
  }

  /// Sequences up to `seq` placed, one after another: the next bases are seq's.
  void place(std::size_t seq) {
    if (seq + 1 < placed) throw std::logic_error("twobit_builder: bases of a sequence after the next one's");
    for (; placed <= seq; ++placed) seqs[placed].at = used;
  }
};

detail::twobit_builder::twobit_builder(std::string name, std::size_t room) : impl_(std::make_unique<impl>()) {
  impl_->file = std::move(name);
  impl_->arena.reset(new char[std::max<std::size_t>(room, 1)]);  // its pages touched only as they are written
  impl_->room = room;
}
detail::twobit_builder::~twobit_builder() = default;

void detail::twobit_builder::begin(std::string_view name) { impl_->seqs.emplace_back().name = name; }

std::size_t detail::twobit_builder::sequences() const noexcept { return impl_->seqs.size(); }

void detail::twobit_builder::add(std::span<const span> spans) {
  // Each span's bases up to its sequence's next multiple of 4 (its head, at most 3) share a
  // packed byte with the bases before them. That byte was written whole by the encode of the
  // body that holds its first base (the arena is not set beforehand); the head's bases are set
  // into it here, after the rest of every span (its body, whole bytes of its own) is encoded
  // in parallel.
  struct placed {
    std::uint64_t at = 0;   ///< the span's first base in its sequence
    std::size_t head = 0;
    encoded_part body;
  };
  std::vector<placed> at(spans.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    impl::sequence& q = impl_->seqs.at(spans[i].seq);
    impl_->place(spans[i].seq);
    at[i].at = q.length;
    at[i].head = std::min<std::size_t>(spans[i].bases.size(), (4 - q.length % 4) % 4);
    q.length += spans[i].bases.size();
    impl_->used = q.at + static_cast<std::size_t>((q.length + 3) / 4);
    if (impl_->used > impl_->room) throw std::logic_error("twobit_builder: more bases than its room");
  }
  tbb::parallel_for(std::size_t{0}, spans.size(), [&](std::size_t i) {
    const std::string_view body = spans[i].bases.substr(at[i].head);
    if (!body.empty())
      encode_part(body, 0, body.size(), impl_->arena.get() + impl_->seqs[spans[i].seq].at + (at[i].at + at[i].head) / 4,
                  at[i].body);
  });
  // in the order of the bases, the errors the serial encoder would give first: a sequence's
  // name, its length, then its bytes
  for (std::size_t i = 0; i < spans.size(); ++i) {
    impl::sequence& q = impl_->seqs[spans[i].seq];
    impl_->check_names(spans[i].seq);
    check_length(q.name, at[i].at + spans[i].bases.size(), impl_->file);
    for (std::size_t j = 0; j < at[i].head; ++j) {
      const std::uint64_t pos = at[i].at + j;
      const base_kind& k = base_kinds[static_cast<unsigned char>(spans[i].bases[j])];
      if (k.bad) refuse_byte(q.name, spans[i].bases[j], pos, impl_->file);
      char& byte = impl_->arena[q.at + pos / 4];
      byte = static_cast<char>(static_cast<unsigned char>(byte) | (static_cast<unsigned>(k.code) << (6 - 2 * (pos % 4))));
      if (k.n) extend(q.ns, pos, pos + 1);
      if (k.lower) extend(q.masks, pos, pos + 1);
      q.replaced += k.iupac ? 1 : 0;
      q.changed += k.changed ? 1 : 0;
      impl_->changed += k.changed ? 1 : 0;
    }
    encoded_part& e = at[i].body;
    const std::uint64_t from = at[i].at + at[i].head;
    if (e.bad != std::string_view::npos) refuse_byte(q.name, spans[i].bases[at[i].head + e.bad], from + e.bad, impl_->file);
    for (auto* list : {&e.ns, &e.masks})
      for (block& b : *list) b.start += from, b.end += from;
    append_blocks(q.ns, e.ns);
    append_blocks(q.masks, e.masks);
    q.replaced += e.replaced;
    q.changed += e.changed;
    impl_->changed += e.changed;
  }
}

std::uint64_t detail::twobit_builder::changed() const noexcept { return impl_->changed; }

std::optional<twobit_image> detail::encode_fasta(std::string_view bytes, const std::string& name, bool exact) {
  // a record's header line takes 2 bytes at least, its packed bases a quarter byte each and up
  // to 3/4 of a byte more: at most bytes / 4 + bytes / 8 in all
  twobit_builder built(name, bytes.size() / 4 + bytes.size() / 8 + 16);
  std::vector<twobit_builder::span> spans;
  bool changed = false;  // with `exact`: a base that reads back as another letter
  parse_fasta_windows(bytes, [&](std::span<const std::string_view> pieces, const std::vector<std::string>& out,
                                 const std::vector<std::vector<fasta_head>>& heads) {
    spans.clear();
    for (std::size_t k = 0; k < pieces.size(); ++k) {
      std::size_t from = 0;
      const auto add_to = [&](std::size_t to) {  // the open record's bytes (none before the first)
        if (to > from) spans.push_back({built.sequences() - 1, std::string_view(out[k]).substr(from, to - from)});
        from = to;
      };
      for (const fasta_head& h : heads[k]) {
        add_to(h.at);
        built.begin(h.name);
      }
      add_to(out[k].size());
    }
    built.add(spans);
    changed = exact && built.changed() != 0;
    return !changed;
  });
  if (changed) return std::nullopt;
  return built.finish();
}

twobit_image detail::twobit_builder::finish() {
  if (!impl_->seqs.empty()) {
    impl_->place(impl_->seqs.size() - 1);
    impl_->check_names(impl_->seqs.size() - 1);
  }
  std::vector<packed_seq> out(impl_->seqs.size());
  tbb::parallel_for(std::size_t{0}, out.size(), [&](std::size_t i) {
    impl::sequence& q = impl_->seqs[i];
    out[i].name = q.name;
    out[i].head = sequence_head(q.length, q.ns, q.masks);
    out[i].packed = impl_->arena.get() + q.at;
    out[i].packed_bytes = static_cast<std::size_t>((q.length + 3) / 4);
    out[i].replaced = q.replaced;
    out[i].changed = q.changed;
  });
  twobit_image image = write_twobit(out);
  impl_->seqs.clear();
  impl_->arena.reset();
  return image;
}

namespace {

twobit_image write_twobit(const std::vector<packed_seq>& seqs) {
  std::uint64_t replaced = 0, changed = 0;
  for (const auto& s : seqs) replaced += s.replaced, changed += s.changed;
  // the index's size, then each sequence's offset: version 1 when one passes 32 bits
  std::uint64_t index = 16, data = 0;
  for (const auto& s : seqs) index += 1 + s.name.size() + 4, data += s.size();
  const bool wide = index + data + 4 * seqs.size() > 0xffffffffu;
  if (wide) index += 4 * seqs.size();
  // the file: its header, index and heads written in place, the bases copied on all cores
  std::string out;
  resize_faulted(out, index + data);
  char* o = out.data();
  const auto put = [&o](const void* from, std::size_t n) {
    std::memcpy(o, from, n);
    o += n;
  };
  const auto put_word = [&put](std::uint64_t v) {
    const auto x = static_cast<std::uint32_t>(v);
    put(&x, 4);
  };
  put_word(signature);
  put_word(wide ? 1 : 0);
  put_word(seqs.size());
  put_word(0);
  std::uint64_t off = index;
  for (const auto& s : seqs) {
    const auto len = static_cast<char>(s.name.size());
    put(&len, 1);
    put(s.name.data(), s.name.size());
    put_word(off & 0xffffffffu);
    if (wide) put_word(off >> 32);
    off += s.size();
  }
  struct copy {
    const char* from;
    std::size_t n;
    char* to;
  };
  std::vector<copy> copies;
  constexpr std::size_t copy_part = std::size_t{1} << 22;
  for (const auto& s : seqs) {
    put(s.head.data(), s.head.size());
    for (std::size_t at = 0; at < s.packed_bytes; at += copy_part)
      copies.push_back({s.packed + at, std::min(copy_part, s.packed_bytes - at), o + at});
    o += s.packed_bytes;
  }
  tbb::parallel_for(std::size_t{0}, copies.size(), [&](std::size_t i) { std::memcpy(copies[i].to, copies[i].from, copies[i].n); });
  return {std::move(out), replaced, changed};
}

}  // namespace

}  // namespace trawl::io
