// input_pieces.hpp — the pieces the stream search's input stage cuts a mapped FASTA file and
// a .2bit file into (search.cpp), which its workers parse or decode ahead of it.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "io/fasta_pieces.hpp"
#include "parallel/chunker.hpp"
#include "trawl/io.hpp"

namespace trawl::slicing {

/// A piece of a mapped FASTA file: its bytes, and once parsed, its sequence and record heads.
struct fasta_piece {
  std::string_view bytes;
  std::string out;
  std::vector<io::fasta_head> heads;
  /// parsed, when the engine uses origins: where the lines of the lead (the bytes before the
  /// first header), then of each record's part, begin in the piece, and their width
  /// (fasta_line_width; 0: not of one width)
  struct lines {
    std::size_t from = 0;
    std::uint32_t width = 0;
  };
  std::vector<lines> parts;
  std::exception_ptr error;  ///< what parsing it threw (memory ran out), for the input stage
  std::atomic<int> state{0};  ///< 0 waiting, 1 being parsed, 2 parsed
};

/// A piece of a .2bit: a chunk's worth of one long sequence, or short sequences whole (as many
/// as fit in a chunk; empty ones too). Once decoded: its bases after the headroom, part after
/// part, or the error the blocks of part `failed` gave (the parts before it decoded).
struct twobit_piece {
  struct part {
    std::size_t seq = 0;
    std::uint64_t at = 0;
    std::size_t n = 0;
    std::size_t off = 0;  ///< in the piece's bases
  };
  std::vector<part> parts;
  std::size_t n = 0;      ///< the parts' bases
  bool whole = false;     ///< short sequences whole
  bool offered = false;   ///< to the search's workers
  std::string out;
  std::size_t failed = 0;
  std::exception_ptr error;
  std::atomic<int> state{0};  ///< 0 waiting, 1 being decoded, 2 decoded (the search's to set)

  /// Decodes the parts into `out` after `headroom` bytes, in the calling thread's arena; `out`
  /// is a buffer of `pool`, taken here, when the chunks before have given theirs back.
  void decode(const io::twobit_file& f, std::size_t headroom, buffer_pool& pool);
};

/// A .2bit's pieces, planned in file order: sequences of piece_size / 4 bases or more in
/// pieces of piece_size, shorter ones whole, as many together as fit in piece_size.
class twobit_planner {
 public:
  twobit_planner(const io::twobit_file& f, std::size_t piece_size) : f_(f), piece_size_(piece_size) {}
  [[nodiscard]] bool done() const { return seq_ == f_.size(); }
  /// The next piece; only while !done().
  std::shared_ptr<twobit_piece> next();

 private:
  const io::twobit_file& f_;
  std::size_t piece_size_;
  std::size_t seq_ = 0;     ///< the next piece starts in this sequence,
  std::uint64_t at_ = 0;    ///< at this base
};

}  // namespace trawl::slicing
