// fasta_pieces.hpp — a FASTA input parsed in independent pieces, for several threads at once.
//
// A piece starts at a line start and ends after a '\n' (or at the input's end), or, inside a
// sequence line too long to wait for its end, at a byte that is not '>'. Its lines are
// read exactly as record_parser reads them: a line starting with '>' is a header (the record
// id: up to the first blank, a trailing '\r' dropped), every other line contributes its bytes
// without '\n' and '\r'. The bytes before a piece's first header continue the record open
// before the piece.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace trawl::io {

/// A record beginning in a piece: its id, and where its sequence starts in the piece's output.
struct fasta_head {
  std::size_t at = 0;
  std::string_view name;  ///< points into the piece
  std::size_t line = 0;   ///< where its header line starts in the piece
};

/// Writes the sequence bytes of `piece` to `out` from offset `headroom` (out is replaced; its
/// first `headroom` bytes are left for the caller; reserve room for headroom + piece.size()
/// to avoid growing it) and lists the records that begin in it.
void parse_fasta_piece(std::string_view piece, std::size_t headroom, std::string& out, std::vector<fasta_head>& heads);

/// The width of the lines of a piece without headers whose parse gave `seq_len` sequence
/// bytes, when every line is `width` bytes followed by '\n', the last one 1 to `width` bytes
/// (its '\n' may be missing at the input's end); 0 otherwise (other line ends, blank lines,
/// lines of several widths). Sequence byte s of such a piece is its byte s + s / width.
std::uint32_t fasta_line_width(std::string_view piece, std::size_t seq_len);

/// Where the piece that begins at `from` ends when it should hold about `size` bytes: after the
/// first '\n' at or past from + size - 1 when one comes within `reach` bytes, or at the end of
/// `bytes`; in a longer sequence line (one that does not start with '>'), inside it, at the
/// first byte from from + size on that is not '>'. `from` is a line start when it is 0 or
/// follows a '\n'; else it lies inside a sequence line.
std::size_t fasta_piece_end(std::string_view bytes, std::size_t from, std::size_t size,
                            std::size_t reach = std::size_t{64} << 10);

/// Where a FASTA input's first header line starts when only blank lines come before it (the
/// bytes parse_fasta_windows takes from there); npos otherwise.
std::size_t fasta_records_start(std::string_view bytes);

/// A FASTA input that starts with a header line, parsed on all cores of the calling arena: cut
/// into pieces (fasta_piece_end), a window of them parsed at once (two a core), then handed in
/// order to each(pieces, outs, heads): each piece's sequence bytes and record heads, valid
/// until each returns; false from each stops the parse.
using fasta_window = std::function<bool(std::span<const std::string_view> pieces, const std::vector<std::string>& outs,
                                        const std::vector<std::vector<fasta_head>>& heads)>;
void parse_fasta_windows(std::string_view bytes, const fasta_window& each);

}  // namespace trawl::io
