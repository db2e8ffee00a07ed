// trawl/offtarget.hpp — CRISPR off-target sites: guides (protospacers) with a PAM, mismatches,
// DNA bulges and RNA bulges, on both strands of a genome.
//
// A site is (guide, strand, PAM position). The PAM is aligned without gaps (at most
// pam_mismatches mismatches; N in the genome matches nothing, not even the PAM's N). The
// protospacer is aligned from the PAM outward, its far end free, with at most the guide's
// mismatches, dna_bulges extra genome bases and rna_bulges extra guide bases; a bulge is never
// the first or last column. Of the alignments within the limits a site shows one with the
// fewest edits, then the fewest bulges, then the fewest mismatches, then the fewest DNA bulges
// (with several PAMs: then the fewest PAM mismatches, then the first PAM).
//
// How: with bulges, candidates come from the library's search (pattern = protospacer + PAM with
// IUPAC codes, every end, k = mismatches + bulges + PAM mismatches, both strands), and each
// candidate's PAM positions are classified exactly by a small DP; candidates without a site are
// dropped on the workers. Without bulges the CPU and the GPU find the candidates from the PAM
// positions: at each, only the guides one of whose M + 1 protospacer blocks matches exactly
// are tested (M: the largest mismatch limit), and only ends with a site come out. Either way
// the sites are then classified by the DP; on the CPU the insides of long runs of N are not
// scanned.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "trawl/hit.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace trawl::offtarget {

/// Where the PAM lies: 3' of the protospacer (Cas9, NGG) or 5' (Cas12a, TTTV).
enum class pam_side : std::uint8_t { three_prime, five_prime };

struct guide {
  std::string name;
  std::string protospacer;  ///< IUPAC codes, without the PAM
  int mismatches = -1;      ///< this guide's mismatch limit; -1: options::mismatches
};

/// What a guide file holds. A Cas-OFFinder input file also sets the PAM and its side, and its
/// pattern line may set the bulge limits.
struct guide_file {
  std::vector<guide> guides;
  std::vector<std::string> pams;  ///< empty unless the file sets it
  std::optional<pam_side> side;
  std::optional<int> dna_bulges, rna_bulges;  ///< Cas-OFFinder 3: `PATTERN DNA_BULGES RNA_BULGES`
};

/// Parses guides from FASTA (record ids name them), `NAME SEQ` lines, one sequence a line
/// (named guide1, guide2, ...), or a Cas-OFFinder input file (its pattern line, N over the
/// protospacer, gives the PAM, and in Cas-OFFinder 3 the DNA and RNA bulge sizes after it;
/// `SEQ MISMATCHES [NAME]` lines with the PAM's place padded with N). `name` names the file in
/// errors. Throws trawl::error(invalid_argument) on anything else, on no guide, or on a guide
/// that is not IUPAC.
guide_file parse_guides(std::string_view bytes, const std::string& name);

struct options {
  std::vector<std::string> pams = {"NGG"};  ///< IUPAC; several: a site takes the best
  pam_side side = pam_side::three_prime;
  int mismatches = 3;      ///< in the protospacer, for guides that set none
  int pam_mismatches = 0;
  int dna_bulges = 0;      ///< extra genome bases (a bulge of s bases counts s)
  int rna_bulges = 0;      ///< extra guide bases
  int max_edits = -1;      ///< protospacer mismatches + bulges in all; -1: no such limit
  unsigned threads = 0;    ///< 0: all cores
  device_spec device;      ///< automatic: as search_options::device; the GPUs listed run the search
  /// The processes that share the search (search_options::processes); null: this one alone
  const distributed::group* processes = nullptr;
};

struct site {
  std::uint32_t guide = 0;  ///< index into the guides
  std::uint32_t pam = 0;    ///< index into options::pams
  std::uint64_t start = 0, end = 0;  ///< protospacer + PAM: 0-based, half-open, forward strand
  strand dir = strand::forward;
  int mismatches = 0, dna_bulges = 0, rna_bulges = 0, pam_mismatches = 0;
  /// Guide and target aligned, 5'->3' on the site's strand, PAM included: '-' at DNA bulges in
  /// the guide and at RNA bulges in the target, the target lower case at mismatches.
  std::string aligned_guide, aligned_target;
  std::string cigar;      ///< of aligned_guide against aligned_target: =, X, I (RNA bulge), D (DNA bulge)
  std::string pam_bases;  ///< the target's PAM, as in aligned_target
};

/// Receives the sites of a search, record by record, in order: PAM position (the PAM's first
/// base on the forward strand), then guide, then strand. Called on one thread at a time, not
/// always the one that called search (large batches are handed over on a thread of their
/// own while the next are found); every call has returned when search returns. What a call
/// is given (a record_info's views, a batch) is valid during the call only.
class site_sink {
 public:
  virtual ~site_sink() = default;
  virtual void begin_record(const record_info& record) = 0;
  virtual void site(const offtarget::site& s) = 0;
  /// The next sites, in order (the searcher hands them over in batches): site() for each,
  /// unless a sink does better with the batch.
  virtual void sites(std::span<const offtarget::site> batch) {
    for (const offtarget::site& s : batch) site(s);
  }
  virtual void end_record() = 0;
};

class site_search;  // the candidate search and the site classification (not installed)
struct searcher_access;  // the library's way to a searcher's site_search (src/offtarget/site_search.hpp)

/// Guides compiled for searching: the candidate search and the classification of its hits.
/// Safe to use from several threads at once once built. With opts().processes, each search is
/// shared by a job's processes (distributed.hpp); its sites reach rank 0's sink.
class searcher {
 public:
  /// Throws trawl::error(invalid_argument) on no guide, a guide or PAM that is not IUPAC, or
  /// a limit out of range.
  searcher(std::vector<guide> guides, options opt);
  ~searcher();
  searcher(const searcher&) = delete;
  searcher& operator=(const searcher&) = delete;

  [[nodiscard]] const std::vector<guide>& guides() const;
  [[nodiscard]] const options& opts() const;

  /// Every site in `input` (FASTA/FASTQ records or plain text, as search_input reads it), on the
  /// device opts().device picks for it (run_search); the result names the device that ran.
  /// `planned`: told the plan before the search starts (a front end's --verbose line);
  /// `progress`: told the input bytes taken in so far (stream_options::progress).
  stream_result search(io::source& input, site_sink& out, const std::function<void(const search_plan&)>& planned = {},
                       const std::function<void(std::uint64_t)>& progress = {}) const;
  /// Every site of the records of an index (its candidates from hybrid_index::search_records).
  void search(const index::hybrid_index& idx, site_sink& out) const;

 private:
  friend struct searcher_access;
  std::unique_ptr<site_search> impl_;
};

}  // namespace trawl::offtarget
