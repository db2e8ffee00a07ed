// module.cpp — trawl._trawl: the library's searches for Python (nanobind). The public,
// documented API is python/trawl/__init__.py; this module is its engine room.
//
// Texts are read in place: a str through its UTF-8 form (the string's own bytes when it is
// ASCII), anything else through the buffer protocol (bytes, bytearray, memoryview, numpy
// arrays), held for the duration of the call. Searches run with the GIL released. Results are
// columns: numpy arrays that take over the library's vectors without a copy.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/function.h>
#include <nanobind/stl/optional.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/string_view.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <span>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "trawl/approx.hpp"
#include "trawl/error.hpp"
#include "trawl/genome.hpp"
#include "trawl/gpu.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"
#include "trawl/offtarget.hpp"
#include "trawl/search.hpp"
#include "trawl/stream.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

// ---- inputs ----------------------------------------------------------------------------

/// A read-only view of a Python text, valid while this object lives (destroyed with the GIL
/// held).
class text_view {
 public:
  /// `what`: with a name, a .2bit file is refused (its records are not one text), before it is read.
  explicit text_view(nb::handle obj, const char* what = nullptr) {
    if (!PyUnicode_Check(obj.ptr()) && !PyObject_CheckBuffer(obj.ptr()) && PyObject_HasAttrString(obj.ptr(), "__fspath__")) {
      // a file (os.PathLike): its bytes, mapped (decompressed when gzip or zstd)
      const nb::object fs = nb::steal(PyOS_FSPath(obj.ptr()));
      if (!fs.is_valid()) throw nb::python_error();
      Py_ssize_t n = 0;
      const nb::object str = PyUnicode_Check(fs.ptr()) ? fs : nb::steal(PyUnicode_DecodeFSDefault(PyBytes_AsString(fs.ptr())));
      if (!str.is_valid()) throw nb::python_error();
      const char* p = PyUnicode_AsUTF8AndSize(str.ptr(), &n);
      if (p == nullptr) throw nb::python_error();
      const std::string path(p, static_cast<std::size_t>(n));
      try {
        file_.emplace(trawl::io::input_buffer::open(path, what != nullptr));
      } catch (const trawl::error& e) {
        // a .2bit refused as one text (the one invalid_argument open throws): where its records are searched
        if (what == nullptr || e.code() != trawl::errc::invalid_argument) throw;
        throw nb::value_error((std::string(e.what()) + ": trawl.Genome(" + what + ").best(x) searches them").c_str());
      }
      view_ = file_->bytes();
      return;
    }
    if (PyUnicode_Check(obj.ptr())) {
      Py_ssize_t n = 0;
      const char* p = PyUnicode_AsUTF8AndSize(obj.ptr(), &n);
      if (p == nullptr) throw nb::python_error();
      view_ = std::string_view(p, static_cast<std::size_t>(n));
      keep_ = nb::borrow(obj);
    } else if (PyObject_CheckBuffer(obj.ptr())) {
      if (PyObject_GetBuffer(obj.ptr(), &buf_, PyBUF_SIMPLE) != 0) throw nb::python_error();
      held_ = true;
      view_ = std::string_view(static_cast<const char*>(buf_.buf), static_cast<std::size_t>(buf_.len));
    } else {
      throw nb::type_error(("a text must be str, bytes, bytearray, memoryview or a contiguous numpy array, not " +
                            std::string(nb::type_name(obj.type()).c_str()))
                               .c_str());
    }
  }
  ~text_view() {
    if (held_) PyBuffer_Release(&buf_);
  }
  text_view(const text_view&) = delete;
  text_view& operator=(const text_view&) = delete;
  [[nodiscard]] std::string_view get() const { return view_; }

 private:
  std::string_view view_;
  nb::object keep_;
  Py_buffer buf_{};
  bool held_ = false;
  std::optional<trawl::io::input_buffer> file_;  ///< a file's bytes, for an os.PathLike
};

/// Patterns as the library takes them: a str or bytes is one pattern, any other iterable a list.
std::vector<std::string> to_patterns(nb::handle obj) {
  std::vector<std::string> out;
  auto one = [&](nb::handle h) {
    if (PyUnicode_Check(h.ptr()) || PyBytes_Check(h.ptr()) || PyByteArray_Check(h.ptr()) ||
        PyMemoryView_Check(h.ptr())) {
      const text_view v(h);
      out.emplace_back(v.get());
    } else {
      throw nb::type_error("a pattern must be str or bytes");
    }
  };
  if (PyUnicode_Check(obj.ptr()) || PyBytes_Check(obj.ptr())) {
    one(obj);
  } else {
    for (nb::handle h : nb::iter(obj)) one(h);
  }
  if (out.empty()) throw trawl::error(trawl::errc::invalid_argument, "no patterns");
  return out;
}

// ---- results ---------------------------------------------------------------------------

/// A numpy array that owns `v`.
template <class T>
nb::object to_numpy(std::vector<T>&& v) {
  auto* owned = new std::vector<T>(std::move(v));
  nb::capsule free(owned, [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  return nb::cast(nb::ndarray<nb::numpy, T, nb::ndim<1>>(owned->data(), {owned->size()}, free));
}

/// Hits as columns, in the library's order.
struct columns {
  std::vector<std::uint32_t> pattern, record, errors;
  std::vector<std::int64_t> start, end;  ///< signed: arithmetic near a record's start stays sane
  std::vector<std::uint8_t> reverse;
  std::vector<std::string> cigar;

  void add(const trawl::hit& h, std::uint32_t rec) {
    pattern.push_back(h.pattern);
    record.push_back(rec);
    errors.push_back(h.errors);
    start.push_back(static_cast<std::int64_t>(h.start));
    end.push_back(static_cast<std::int64_t>(h.end));
    reverse.push_back(h.dir == trawl::strand::reverse ? 1 : 0);
  }

  nb::dict to_dict(bool with_cigar, const char* record_key = "record") && {
    nb::dict d;
    d["pattern"] = to_numpy(std::move(pattern));
    d[record_key] = to_numpy(std::move(record));
    d["start"] = to_numpy(std::move(start));
    d["end"] = to_numpy(std::move(end));
    d["errors"] = to_numpy(std::move(errors));
    d["reverse"] = to_numpy(std::move(reverse));
    if (with_cigar) d["cigar"] = nb::cast(std::move(cigar));
    return d;
  }
};

/// Each pattern as it reads on each strand, for alignments.
std::vector<std::string> oriented(const std::vector<std::string>& patterns) {
  std::vector<std::string> out;
  for (const auto& p : patterns) {
    out.push_back(p);
    out.push_back(trawl::reverse_complement(p));
  }
  return out;
}

/// Collects a stream search's hits, and their CIGARs from a window of the record's bytes that
/// starts at the sink's floor.
class collect_sink final : public trawl::search_sink {
 public:
  collect_sink(columns& out, std::vector<std::string>& records, const std::vector<std::string>* aligned,
               const trawl::match_rules& matching)
      : out_(out), records_(records), aligned_(aligned), matching_(matching) {}

  void begin_record(const trawl::record_info& r) override {
    records_.emplace_back(r.name);
    window_.clear();
    base_ = 0;
  }
  [[nodiscard]] bool wants_text() const override { return aligned_ != nullptr; }
  void text(std::uint64_t pos, std::string_view bytes, bool) override {
    if (window_.empty()) base_ = pos;
    window_.append(bytes);
  }
  bool hits(std::span<const trawl::hit> hs) override {
    const auto rec = static_cast<std::uint32_t>(records_.size() - 1);
    for (const trawl::hit& h : hs) {
      out_.add(h, rec);
      if (aligned_ != nullptr) {
        const std::string& p = (*aligned_)[2 * h.pattern + (h.dir == trawl::strand::reverse ? 1 : 0)];
        out_.cigar.push_back(trawl::align_cigar(p, std::string_view(window_).substr(h.start - base_, h.end - h.start),
                                                matching_));
      }
    }
    return true;
  }
  void floor(std::uint64_t pos) override {
    if (aligned_ == nullptr || pos <= base_) return;
    const std::uint64_t drop = std::min<std::uint64_t>(pos - base_, window_.size());
    if (drop >= window_.size() / 2) {  // amortized: each byte is moved at most once more
      window_.erase(0, drop);
      base_ += drop;
    }
  }
  void end_record(std::uint64_t) override {}

 private:
  columns& out_;
  std::vector<std::string>& records_;
  const std::vector<std::string>* aligned_;
  trawl::match_rules matching_;
  std::string window_;
  std::uint64_t base_ = 0;
};

trawl::search_options make_options(int k, bool hamming, bool ignore_case, bool iupac, bool both_strands, bool all_ends,
                                   bool whole_words, bool whole_lines, bool regex, unsigned threads,
                                   std::uint64_t max_hits, const std::string& algorithm) {
  trawl::search_options o;
  o.max_errors = k;
  o.hamming = hamming;
  o.ignore_case = ignore_case;
  o.iupac = iupac;
  o.both_strands = both_strands;
  o.all_ends = all_ends;
  o.whole_words = whole_words;
  o.whole_lines = whole_lines;
  o.regex = regex;
  o.threads = threads;
  o.max_hits = max_hits;
  trawl::set_algorithm(o, algorithm);
  return o;
}

trawl::io::format parse_format(const std::string& f) {
  if (f == "auto") return trawl::io::format::automatic;
  if (f == "plain") return trawl::io::format::plain;
  if (f == "fasta") return trawl::io::format::fasta;
  if (f == "fastq") return trawl::io::format::fastq;
  throw trawl::error(trawl::errc::invalid_argument, "format " + f + " is not auto, plain, fasta or fastq");
}

// ---- functions ---------------------------------------------------------------------------

nb::dict search(nb::handle patterns_obj, nb::handle text_obj, std::optional<std::string> path, int k, bool hamming,
                bool ignore_case, bool iupac, bool both_strands, bool all_ends, bool align, bool whole_words,
                bool whole_lines, bool regex, unsigned threads, const std::string& device, std::uint64_t max_hits,
                const std::string& format, const std::string& algorithm) {
  const std::vector<std::string> patterns = to_patterns(patterns_obj);
  const trawl::search_options options = make_options(k, hamming, ignore_case, iupac, both_strands, all_ends,
                                                     whole_words, whole_lines, regex, threads, max_hits, algorithm);
  trawl::search_options chosen = options;
  chosen.device = trawl::parse_device(device);
  trawl::stream_options stream;
  stream.format = parse_format(format);
  std::optional<text_view> text;
  if (!path) text.emplace(text_obj);
  columns cols;
  std::vector<std::string> records;
  const std::vector<std::string> aligned = align ? oriented(patterns) : std::vector<std::string>();
  {
    nb::gil_scoped_release release;
    trawl::io::source input = path ? trawl::io::source::open(*path)
                                   : trawl::io::source::from_memory(text->get(), "<text>");
    collect_sink sink(cols, records, align ? &aligned : nullptr, options.rules());
    trawl::run_search(patterns, input, chosen, stream, sink);
  }
  nb::dict d = std::move(cols).to_dict(align);
  d["records"] = nb::cast(std::move(records));
  return d;
}

nb::dict search_many(nb::handle patterns_obj, nb::handle texts_obj, int k, bool hamming, bool ignore_case, bool iupac,
                     bool both_strands, bool all_ends, bool whole_words, bool whole_lines, bool regex,
                     unsigned threads, const std::string& device, const std::string& algorithm) {
  const std::vector<std::string> patterns = to_patterns(patterns_obj);
  const trawl::search_options options = make_options(k, hamming, ignore_case, iupac, both_strands, all_ends,
                                                     whole_words, whole_lines, regex, threads, 0, algorithm);
  std::vector<std::unique_ptr<text_view>> held;
  std::vector<std::string_view> texts;
  for (nb::handle h : nb::iter(texts_obj)) {
    held.push_back(std::make_unique<text_view>(h));
    texts.push_back(held.back()->get());
  }
  trawl::search_options chosen = options;
  chosen.device = trawl::parse_device(device);
  columns cols;
  {
    nb::gil_scoped_release release;
    trawl::search_many(patterns, texts, chosen, [&](std::uint32_t text, std::span<const trawl::hit> hits) {
      for (const trawl::hit& h : hits) cols.add(h, text);
      return true;
    });
  }
  return std::move(cols).to_dict(false, "text");
}

nb::tuple best(nb::handle x_obj, nb::handle y_obj, bool every_start, unsigned threads, const std::string& device) {
  const text_view x(x_obj, "x"), y(y_obj, "y");
  std::vector<std::int64_t> starts, ends;
  std::uint32_t distance = 0;
  {
    nb::gil_scoped_release release;
    trawl::best_options bo;
    bo.threads = threads;
    bo.device = trawl::parse_device(device);
    const trawl::best_result r = trawl::best_substring(x.get(), y.get(), bo);
    distance = r.distance;
    auto add = [&](const trawl::hit& h) {
      starts.push_back(static_cast<std::int64_t>(h.start));
      ends.push_back(static_cast<std::int64_t>(h.end));
      return true;
    };
    if (every_start) {
      trawl::for_each_optimal_substring(x.get(), y.get(), r, add);
    } else {
      for (const trawl::hit& h : r.occurrences) add(h);
    }
  }
  return nb::make_tuple(distance, to_numpy(std::move(starts)), to_numpy(std::move(ends)));
}

// ---- the index -------------------------------------------------------------------------

using trawl::index::hybrid_index;

hybrid_index index_build(nb::handle text_obj, std::optional<std::string> path, std::uint32_t max_len, bool small,
                         bool fasta, bool kernel_text, const std::string& count_index,
                         std::optional<nb::callable> progress) {
  trawl::index::build_options bo;
  bo.max_len = max_len;
  bo.kernel_text = kernel_text;
  bo.count_index = trawl::index::count_structure_named(count_index);
  bo.profile = small ? trawl::index::fm_profile::small : trawl::index::fm_profile::fast;
  bo.detect_fasta = fasta;
  if (progress) {
    // The callback runs on the building thread, which holds no GIL while it builds.
    bo.progress = [cb = *progress](std::string_view stage, std::uint64_t done, std::uint64_t total) {
      nb::gil_scoped_acquire acquire;
      cb(std::string(stage), done, total);
    };
  }
  std::optional<text_view> text;
  if (!path) text.emplace(text_obj);
  nb::gil_scoped_release release;
  if (path) {
    const auto input = trawl::io::input_buffer::open(*path);
    return hybrid_index::build(input.bytes(), *path, bo);
  }
  return hybrid_index::build(text->get(), "<text>", bo);
}

/// Collects sites while the search runs without the GIL; turned into Python objects after.
class collect_sites final : public trawl::offtarget::site_sink {
 public:
  struct row {
    trawl::offtarget::site s;
    std::size_t record;
  };
  std::vector<std::string> records;
  std::vector<row> rows;
  void begin_record(const trawl::record_info& r) override { records.emplace_back(r.name); }
  void site(const trawl::offtarget::site& s) override { rows.push_back({s, records.size() - 1}); }
  void end_record() override {}
};

/// offtarget: guides as a guide file's bytes (guide_bytes) or as (name, protospacer) pairs; the
/// genome as a text, a path or an index.
nb::list offtarget(std::optional<nb::bytes> guide_bytes, std::vector<std::pair<std::string, std::string>> pairs,
                   nb::handle text_obj, std::optional<std::string> path, const hybrid_index* idx, const trawl::genome* gen,
                   std::vector<std::string> pams, int side, int mismatches, int pam_mismatches, int dna_bulges,
                   int rna_bulges, int max_edits, unsigned threads, const std::string& device) {
  namespace ot = trawl::offtarget;
  ot::options o;
  std::vector<ot::guide> guides;
  if (guide_bytes) {
    ot::guide_file f = ot::parse_guides(std::string_view(guide_bytes->c_str(), guide_bytes->size()), "guides");
    guides = std::move(f.guides);
    if (!f.pams.empty()) pams = f.pams;
    if (f.side) side = *f.side == ot::pam_side::five_prime ? 5 : 3;
  } else {
    for (auto& [name, seq] : pairs) guides.push_back({name, seq, -1});
  }
  if (side != 3 && side != 5) throw trawl::error(trawl::errc::invalid_argument, "pam_side must be 3 or 5");
  if (!pams.empty()) o.pams = pams;
  o.side = side == 5 ? ot::pam_side::five_prime : ot::pam_side::three_prime;
  o.mismatches = mismatches;
  o.pam_mismatches = pam_mismatches;
  o.dna_bulges = dna_bulges;
  o.rna_bulges = rna_bulges;
  o.max_edits = max_edits;
  o.threads = threads;
  o.device = trawl::parse_device(device);
  std::optional<text_view> text;
  if (!path && idx == nullptr && gen == nullptr) text.emplace(text_obj);
  collect_sites sites;
  std::unique_ptr<ot::searcher> searcher;
  {
    nb::gil_scoped_release release;
    searcher = std::make_unique<ot::searcher>(std::move(guides), o);
    if (idx != nullptr) {
      searcher->search(*idx, sites);
    } else if (gen != nullptr) {
      gen->offtarget(*searcher, sites);
    } else {
      trawl::io::source input = path ? trawl::io::source::open(*path)
                                     : trawl::io::source::from_memory(text->get(), "<text>");
      searcher->search(input, sites);
    }
  }
  nb::module_ trawl_mod = nb::module_::import_("trawl");
  nb::object site_type = trawl_mod.attr("Site");
  nb::list out;
  const auto& gs = searcher->guides();
  const auto& ps = searcher->opts().pams;
  for (const auto& r : sites.rows) {
    const ot::site& s = r.s;
    out.append(site_type(gs[s.guide].name, s.guide, sites.records[r.record], s.start, s.end,
                         s.dir == trawl::strand::forward ? "+" : "-", s.mismatches, s.dna_bulges, s.rna_bulges,
                         s.aligned_guide, s.aligned_target, s.cigar, s.pam_bases, ps[s.pam]));
  }
  return out;
}

/// Index.search and Genome.search: the hits of `patterns` with the search options given, as
/// `find(patterns, options, add)` calls add(hit, record) for each (without the GIL), in columns
/// with the records' names.
template <class Find>
nb::dict records_search(std::span<const trawl::index::record_span> records, nb::handle patterns_obj, int k,
                        bool hamming, bool ignore_case, bool iupac, bool both_strands, bool all_ends, unsigned threads,
                        const std::string& device, const std::string& algorithm, Find&& find) {
  const std::vector<std::string> patterns = to_patterns(patterns_obj);
  trawl::search_options options =
      make_options(k, hamming, ignore_case, iupac, both_strands, all_ends, false, false, false, threads, 0, algorithm);
  options.device = trawl::parse_device(device);
  columns cols;
  {
    nb::gil_scoped_release release;
    find(patterns, options, [&](const trawl::hit& h, std::uint32_t r) { cols.add(h, r); });
  }
  nb::dict d = std::move(cols).to_dict(false);
  std::vector<std::string> names;
  for (const auto& r : records) names.push_back(r.name);
  d["records"] = nb::cast(std::move(names));
  return d;
}

nb::dict index_search(const hybrid_index& ix, nb::handle patterns_obj, int k, bool hamming, bool ignore_case, bool iupac,
                      bool both_strands, bool all_ends, unsigned threads, const std::string& device,
                      const std::string& algorithm) {
  return records_search(ix.records(), patterns_obj, k, hamming, ignore_case, iupac, both_strands, all_ends, threads, device,
                        algorithm, [&](const auto& patterns, const auto& options, const auto& add) {
                          for (const auto& rh : ix.search_records(patterns, options)) add(rh.h, rh.record);
                        });
}

nb::dict genome_search(const trawl::genome& g, nb::handle patterns_obj, int k, bool hamming, bool ignore_case, bool iupac,
                       bool both_strands, bool all_ends, unsigned threads, const std::string& device,
                       const std::string& algorithm) {
  return records_search(g.records(), patterns_obj, k, hamming, ignore_case, iupac, both_strands, all_ends, threads, device,
                        algorithm, [&](const auto& patterns, const auto& options, const auto& add) {
                          g.search(patterns, options, [&](std::uint32_t r, std::span<const trawl::hit> hs) {
                            for (const auto& h : hs) add(h, r);
                            return true;
                          });
                        });
}

/// Genome.best: the distance and the optimal substrings, as columns with the records' names.
nb::dict genome_best(const trawl::genome& g, nb::handle x_obj, bool every_start, bool both_strands, unsigned threads,
                     const std::string& device) {
  const text_view x(x_obj);
  columns cols;
  std::uint32_t distance = 0;
  {
    nb::gil_scoped_release release;
    trawl::best_options bo;
    bo.threads = threads;
    bo.device = trawl::parse_device(device);
    bo.every_start = every_start;
    const trawl::genome::best_answer b = g.best(x.get(), bo, both_strands);
    distance = b.distance;
    for (const auto& rh : b.occurrences) cols.add(rh.h, rh.record);
  }
  nb::dict d = std::move(cols).to_dict(false);
  std::vector<std::string> names;
  for (const auto& r : g.records()) names.push_back(r.name);
  d["records"] = nb::cast(std::move(names));
  d["distance"] = distance;
  return d;
}

void translate(const trawl::error& e) {
  switch (e.code()) {
    case trawl::errc::invalid_argument:
    case trawl::errc::bad_format: PyErr_SetString(PyExc_ValueError, e.what()); return;
    case trawl::errc::io_error: PyErr_SetString(PyExc_OSError, e.what()); return;
    default: PyErr_SetString(PyExc_RuntimeError, e.what()); return;
  }
}

}  // namespace

NB_MODULE(_trawl, m) {
  m.attr("__version__") = TRAWL_VERSION;
  nb::register_exception_translator([](const std::exception_ptr& p, void*) {
    try {
      std::rethrow_exception(p);
    } catch (const trawl::error& e) {
      translate(e);
    }
  });

  m.def("search", &search, "patterns"_a, "text"_a.none(), "path"_a.none(), "k"_a, "hamming"_a, "ignore_case"_a,
        "iupac"_a, "both_strands"_a, "all_ends"_a, "align"_a, "whole_words"_a, "whole_lines"_a, "regex"_a,
        "threads"_a, "device"_a, "max_hits"_a, "format"_a, "algorithm"_a);
  m.def("search_many", &search_many, "patterns"_a, "texts"_a, "k"_a, "hamming"_a, "ignore_case"_a, "iupac"_a,
        "both_strands"_a, "all_ends"_a, "whole_words"_a, "whole_lines"_a, "regex"_a, "threads"_a,
        "device"_a, "algorithm"_a);
  m.def("best", &best, "x"_a, "y"_a, "every_start"_a, "threads"_a, "device"_a);
  m.def("reverse_complement", [](nb::handle s) {
    const text_view v(s);
    return trawl::reverse_complement(v.get());
  });
  m.def("align", [](nb::handle pattern, nb::handle text, bool ignore_case, bool iupac, bool hamming) {
    const text_view p(pattern), t(text);
    return trawl::align_cigar(p.get(), t.get(), trawl::match_rules{ignore_case, iupac, hamming, false});
  });
  m.def("gpu_count", [] { return trawl::gpu::device_count(); });
  m.def("offtarget", &offtarget, "guide_bytes"_a.none(), "pairs"_a, "text"_a.none(), "path"_a.none(), "index"_a.none(),
        "genome"_a.none(),
        "pams"_a, "side"_a, "mismatches"_a, "pam_mismatches"_a, "dna_bulges"_a, "rna_bulges"_a, "max_edits"_a,
        "threads"_a, "device"_a);
  m.def("gpu_name", [](int d) { return trawl::gpu::device_name(d); });

  nb::class_<trawl::genome>(m, "Genome")
      .def_static(
          "open",
          [](const std::string& path, const std::string& device, bool pack) {
            const trawl::device_spec d = trawl::parse_device(device);
            nb::gil_scoped_release release;
            return trawl::genome::open(path, d, pack);
          },
          "path"_a, "device"_a, "pack"_a)
      .def_static(
          "from_bytes",
          [](nb::handle text, const std::string& name, const std::string& device, bool pack) {
            const text_view t(text);
            const trawl::device_spec d = trawl::parse_device(device);
            nb::gil_scoped_release release;
            return trawl::genome::from_bytes(t.get(), name, d, pack);
          },
          "text"_a, "name"_a, "device"_a, "pack"_a)
      .def_prop_ro("name", &trawl::genome::name)
      .def_prop_ro("bases", &trawl::genome::bases)
      .def_prop_ro("resident_gpus", &trawl::genome::resident_gpus)
      .def_prop_ro("resident_bytes", &trawl::genome::resident_bytes)
      .def_prop_ro("records",
                   [](const trawl::genome& g) {
                     nb::list out;
                     for (const auto& r : g.records()) out.append(nb::make_tuple(r.name, r.length));
                     return out;
                   })
      .def_prop_ro("packed", &trawl::genome::packed)
      .def_prop_ro("host_bytes", &trawl::genome::host_bytes)
      .def(
          "sequence",
          [](const trawl::genome& g, std::uint32_t r, std::uint64_t start, std::optional<std::uint64_t> end) {
            std::string s;
            {
              nb::gil_scoped_release release;
              if (r >= g.records().size())
                throw trawl::error(trawl::errc::invalid_argument, "genome: there is no record " + std::to_string(r));
              if (end && *end < start)
                throw trawl::error(trawl::errc::invalid_argument, "genome: a range that ends before it starts");
              const std::uint64_t stop = end ? *end : std::max(start, g.records()[r].length);  // past the end: refused
              s = g.sequence(r, start, stop - start);
            }
            return nb::bytes(s.data(), s.size());
          },
          "record"_a, "start"_a, "end"_a.none())
      .def("search", &genome_search, "patterns"_a, "k"_a, "hamming"_a, "ignore_case"_a, "iupac"_a, "both_strands"_a,
           "all_ends"_a, "threads"_a, "device"_a, "algorithm"_a)
      .def("best", &genome_best, "x"_a, "every_start"_a, "both_strands"_a, "threads"_a, "device"_a);

  nb::class_<hybrid_index>(m, "Index")
      .def_static("build", &index_build, "text"_a.none(), "path"_a.none(), "max_len"_a, "small"_a, "fasta"_a,
                  "kernel_text"_a, "count_index"_a, "progress"_a.none())
      .def_static(
          "load",
          [](const std::string& path) {
            nb::gil_scoped_release release;
            return hybrid_index::load(path);
          },
          "path"_a)
      .def(
          "save",
          [](const hybrid_index& ix, const std::string& path) {
            nb::gil_scoped_release release;
            ix.save(path);
          },
          "path"_a)
      .def("__len__", [](const hybrid_index& ix) { return ix.size(); })
      .def_prop_ro("max_len", &hybrid_index::max_len)
      .def_prop_ro("records",
                   [](const hybrid_index& ix) {
                     nb::list out;
                     for (const auto& r : ix.records()) out.append(nb::make_tuple(r.name, r.start, r.length));
                     return out;
                   })
      .def(
          "count",
          [](const hybrid_index& ix, nb::handle pattern, unsigned threads) {
            const text_view p(pattern);
            nb::gil_scoped_release release;
            trawl::index::locate_options lo;
            lo.threads = threads;
            return ix.count(p.get(), lo);
          },
          "pattern"_a, "threads"_a)
      .def(
          "locate",
          [](const hybrid_index& ix, nb::handle pattern, unsigned threads) {
            const text_view p(pattern);
            std::vector<std::uint64_t> at;
            {
              nb::gil_scoped_release release;
              trawl::index::locate_options lo;
              lo.threads = threads;
              at = ix.locate(p.get(), lo);
            }
            return to_numpy(std::move(at));
          },
          "pattern"_a, "threads"_a)
      .def(
          "extract",
          [](const hybrid_index& ix, std::uint64_t start, std::uint64_t length) {
            std::string s;
            {
              nb::gil_scoped_release release;
              s = ix.extract(start, length);
            }
            return nb::bytes(s.data(), s.size());
          },
          "start"_a, "length"_a)
      .def(
          "extract_record",
          [](const hybrid_index& ix, const std::string& name, std::uint64_t start, std::optional<std::uint64_t> end) {
            std::string s;
            {
              nb::gil_scoped_release release;
              const std::uint32_t r = ix.record_named(name);
              s = ix.extract_record(r, start, end ? *end : ix.records()[r].length);
            }
            return nb::bytes(s.data(), s.size());
          },
          "name"_a, "start"_a, "end"_a.none())
      .def("search", &index_search, "patterns"_a, "k"_a, "hamming"_a, "ignore_case"_a, "iupac"_a, "both_strands"_a,
           "all_ends"_a, "threads"_a, "device"_a, "algorithm"_a)
      .def("info",
           [](const hybrid_index& ix) {
             const trawl::index::index_info i = ix.info();
             nb::dict d;
             d["n"] = i.n;
             d["phrases"] = i.z;
             d["kept_phrases"] = i.kept;
             d["literal_bytes"] = i.literal_bytes;
             d["max_len"] = i.max_len;
             d["kernel_length"] = i.s2_length;
             d["segments"] = i.segments;
             d["sigma"] = i.sigma;
             d["bwt_runs"] = i.bwt_runs;
             d["bytes"] = i.total_bytes;
             d["bits_per_char"] = i.bits_per_char();
             nb::dict parts;
             for (const auto& [name, bytes] : i.part_bytes) parts[name.c_str()] = bytes;
             d["parts"] = parts;
             return d;
           })
      .def(
          "verify",
          [](const hybrid_index& ix, nb::handle source) {
            std::optional<text_view> src;
            if (!source.is_none()) src.emplace(source);
            nb::gil_scoped_release release;
            return src ? ix.verify(src->get()) : ix.verify();
          },
          "source"_a.none());
}
