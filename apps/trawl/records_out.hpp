// records_out.hpp — `search --records` (and -v on FASTA/FASTQ): the records with a hit (-v:
// without one) printed whole, as seqkit grep prints them: FASTA as '>' and the header line,
// then the sequence in lines of --line-width letters; FASTQ as its four lines.
//
// A record's bytes are held until its first hit (-v: until its end), then printed, and the
// rest of a selected record is written as it comes.
#pragma once

#include <cstdint>
#include <string>

#include "output.hpp"
#include "trawl/stream.hpp"

namespace trawl::cli {

struct record_print_options {
  bool invert = false;             ///< -v: the records without a hit
  std::uint64_t max_records = 0;   ///< -m: stop after this many records (0: no limit)
  std::size_t line_width = 60;     ///< FASTA sequence lines; 0: the sequence on one line
};

class record_printer final : public search_sink {
 public:
  record_printer(writer& w, const record_print_options& o) : w_(w), o_(o) {}

  void begin_record(const record_info& r) override;
  [[nodiscard]] bool wants_text() const override { return true; }
  [[nodiscard]] bool wants_heads() const override { return true; }
  void text(std::uint64_t pos, std::string_view bytes, bool stable) override;
  bool hits(std::span<const hit> hits) override;
  void end_record(std::uint64_t length) override;
  void idle() override { w_.flush(); }

  /// The records printed so far.
  [[nodiscard]] std::uint64_t selected() const { return selected_; }

 private:
  void start();                          ///< the header line
  void sequence(std::string_view bytes);  ///< sequence bytes, wrapped for FASTA

  writer& w_;
  record_print_options o_;
  bool fastq_ = false;
  std::string header_, quality_;
  std::string held_;        ///< the record's bytes until it is decided
  bool hit_ = false;        ///< the record has a hit
  bool printing_ = false;   ///< its header is out: its bytes go straight to the output
  std::size_t column_ = 0;  ///< letters on the current line (FASTQ, unwrapped: in this block)
  bool line_open_ = false;  ///< letters written since the last line break
  std::uint64_t selected_ = 0;
  bool done_ = false;       ///< -m reached
};

}  // namespace trawl::cli
