// verify.cpp — hybrid_index::verify: the whole index checked against itself (and a text).
#include <optional>
#include <string>
#include <utility>

#include "index/index_impl.hpp"
#include "trawl/io.hpp"

namespace trawl::index {
namespace {

/// Row r's sampling (its text position, or none) and its BWT symbol (0 the sentinel) with LF(r).
template <class Csa>
std::optional<std::uint64_t> sample_of(const Csa& csa, std::uint64_t r) {
  if (!csa.sa_sample.is_sampled(r)) return std::nullopt;
  return csa.sa_sample[r];
}
template <own_fm Fm>
std::optional<std::uint64_t> sample_of(const Fm& fm, std::uint64_t r) {
  std::uint64_t p = 0;
  if (!fm.sampled(r, p)) return std::nullopt;
  return p;
}
template <class Csa>
std::pair<std::uint64_t, std::uint64_t> symbol_lf(const Csa& csa, std::uint64_t r) {
  const auto [rank, c] = csa.wavelet_tree.inverse_select(r);
  return {c, c == 0 ? 0 : csa.C[csa.char2comp[c]] + rank};
}
template <own_fm Fm>
std::pair<std::uint64_t, std::uint64_t> symbol_lf(const Fm& fm, std::uint64_t r) {
  return {fm.symbol(r), fm.lf(r)};
}
template <class Csa>
std::uint64_t sample_step_of(const Csa&) {
  return Csa::sa_sample_dens;
}
template <own_fm Fm>
std::uint64_t sample_step_of(const Fm& fm) {
  return fm.sample_step();
}

/// S'' decoded from the FM-index by one LF walk from the row of the sentinel suffix, checking
/// the walk is one cycle through every row and every row's sampling. "" or what is wrong.
template <class Csa>
std::string decode_s2(const Csa& csa, const detail::index_impl& ix, std::string& s2) {
  constexpr bool is_int = std::is_same_v<Csa, fm_int>;
  const std::uint64_t s = sample_step_of(csa);
  const std::uint64_t rows = csa.size();
  s2.assign(rows - 1, '\0');
  std::uint64_t r = 0;  // the row of the suffix at text position p
  for (std::uint64_t p = rows - 1;; --p) {
    const auto sample = sample_of(csa, r);
    if (sample.has_value() != (p % s == 0) || (sample && *sample != p))
      return "FM-index: the suffix-array sample of S'' position " + std::to_string(p) + " is wrong";
    const auto [c, next] = symbol_lf(csa, r);
    if (p == 0) {
      if (c != 0) return "FM-index: the BWT does not close S'' with its sentinel";
      return "";
    }
    if (c == 0) return "FM-index: the sentinel stands at S'' position " + std::to_string(p - 1);
    s2[p - 1] = static_cast<char>(is_int ? c - 1 : ix.char_unmap[c]);
    r = next;
    if (r == 0)
      return "FM-index: the BWT is not one cycle (it closes after " + std::to_string(rows - p) + " of " +
             std::to_string(rows) + " rows)";
  }
}

}  // namespace

std::string hybrid_index::verify(std::optional<std::string_view> source) const {
  const impl& ix = *impl_;
  try {
    ix.need(impl::part::phrases);
    ix.need(impl::part::counts);
    std::string s2;
    if (ix.s2_len > 0) {
      const std::string why = std::visit(
          [&](const auto& f) -> std::string {
            if constexpr (std::is_same_v<std::decay_t<decltype(f)>, std::monostate>) return "FM-index missing";
            else return decode_s2(f, ix, s2);
          },
          ix.fm_index());
      if (!why.empty()) return why;
      if (ix.s2_stored && ix.s2_text() != s2) {
        const std::string_view kept = ix.s2_text();
        std::uint64_t at = 0;
        while (at < s2.size() && at < kept.size() && kept[at] == s2[at]) ++at;
        return "the stored S'' text differs from the FM-index's at byte " + std::to_string(at);
      }
    }
    // the text: S'' segments at their text starts, kept-phrase interiors copied from their sources
    std::string t(ix.n, '\0');
    const std::uint64_t segs = ix.seg_s2.count_below(ix.s2_len + 1) - 1;
    for (std::uint64_t k = 0; k < segs; ++k) {
      const std::uint64_t a = ix.seg_s2.at(k), b = ix.seg_s2.at(k + 1);
      s2.copy(t.data() + ix.segment_text_start(k), b - a, a);
    }
    const std::uint64_t M = ix.max_len;
    for (std::uint64_t k = 0; k < ix.kept; ++k) {  // in text order: every source is already final
      const std::uint64_t pos = ix.kept_starts.at(k), end = ix.kept_end(k), src = ix.source_of_phrase(k);
      for (std::uint64_t x = pos; x < end; ++x) {
        const char want = t[src + (x - pos)];
        if (x >= pos + M && x + M - 1 < end) t[x] = want;
        else if (t[x] != want)
          return "kept phrase " + std::to_string(k) + " at text position " + std::to_string(pos) +
                 " is not a copy of its source at " + std::to_string(src) + " (byte " + std::to_string(x) + ")";
      }
    }
    // extract, a piece at a time (the text is held once)
    constexpr std::uint64_t piece = std::uint64_t{1} << 20;
    for (std::uint64_t at = 0; at < ix.n; at += piece)
      if (extract(at, piece) != std::string_view(t).substr(at, piece))
        return "extract does not give the text the parse and S'' spell (in bytes " + std::to_string(at) + " to " +
               std::to_string(std::min(ix.n, at + piece)) + ")";
    // the count index: the runs of this text's BWT, made again
    if (ix.has_counts && !ix.counts.same_as(run_bwt::of_text(t, run_symbols(ix.char_map, ix.sigma), false)))
      return "the count index is not the run-length BWT of the text";
    if (source) {
      std::string text;
      std::vector<record_span> recs;
      // the source's records as the build read them: by its name where it starts as FASTA
      // does (a .2bit's FASTA text may start with an empty record), else as its content shows
      const io::format named =
          !source->empty() && source->front() == '>' ? io::format_of_name(ix.source_name) : io::format::automatic;
      const std::string_view want =
          *source == std::string_view(t) || !hybrid_index::read_records(*source, ix.source_name, text, recs, named)
              ? *source
              : text;
      if (want != t) {
        std::uint64_t at = 0;
        while (at < want.size() && at < t.size() && want[at] == t[at]) ++at;
        return "the indexed text differs from the source at byte " + std::to_string(at) + " (index " +
               std::to_string(t.size()) + " bytes, source " + std::to_string(want.size()) + ")";
      }
    }
  } catch (const error& e) {
    // a part read now names its file, which the caller knows
    std::string what = e.what();
    if (const std::string prefix = ix.file_name() + ": "; !ix.file_name().empty() && what.starts_with(prefix))
      what.erase(0, prefix.size());
    return what;
  }
  return "";
}

}  // namespace trawl::index
