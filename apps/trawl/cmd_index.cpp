// cmd_index.cpp — `trawl index build|info|count|locate|verify|extract`: the compressed Hybrid Index
// (include/trawl/index.hpp). CLI only: parsing, progress on stderr, output contract on stdout.
#include <fmt/format.h>
#include <unistd.h>

#include <chrono>
#include <iterator>
#include <memory>

#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "commands.hpp"
#include "mpi.hpp"
#include "progress.hpp"
#include "patterns.hpp"
#include "output.hpp"
#include "trawl/error.hpp"
#include "trawl/index.hpp"
#include "trawl/io.hpp"

namespace trawl::cli {
namespace {

struct index_args {
  // build
  std::string input, output;
  std::uint32_t max_len = 0;  // 0 = the profile's default: 32, or 16 with --small
  bool progress = false, quiet = false, small = false;
  std::uint64_t lz_reference = 0;  // 0 = automatic
  bool kernel_text = false;
  std::string count_index = "auto";
  // queries
  std::string index_path;
  std::vector<std::string> patterns, pattern_files;
  unsigned threads = 0;
  std::string engine = "balanced";
  bool check = false;
  std::string format = "tsv";        // count, locate: tsv, json, bed (locate)
  std::vector<std::string> regions;  // extract
  bool records = false;              // info --records
};

index::locate_options locate_opts(const index_args& a) {
  index::locate_options o;
  o.threads = a.threads;
  o.processes = mpi::processes();  // under MPI, the patterns dealt out over the ranks
  o.engine = index::locate_engine_named(a.engine);
  return o;
}

std::vector<std::string> all_patterns(const index_args& a) {
  std::vector<std::string> ps = a.patterns, names;
  for (const auto& f : a.pattern_files) read_pattern_file(f, ps, names);
  if (ps.empty()) throw error(errc::invalid_argument, "index: no pattern given");
  for (const auto& p : ps)
    if (p.empty()) throw error(errc::invalid_argument, "index: empty pattern");
  return ps;
}

int run_build(const index_args& a) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::string out = a.output.empty() ? a.input + ".thi" : a.output;
  if (a.input != "-" && io::same_file(a.input, out))
    throw error(errc::invalid_argument, "index build: the output " + out + " is the input file");
  // on a terminal one line, redrawn; with --progress elsewhere a line a report
  const bool drawn = !a.quiet && isatty(2) != 0 && !mpi::launched();
  const bool show = !a.quiet && a.progress && !drawn;
  progress_line bar(drawn, "index build", 0);
  auto in = io::input_buffer::open(a.input);
  index::build_options bo;
  bo.max_len = a.max_len != 0 ? a.max_len : a.small ? 16 : 32;
  if (a.small) bo.profile = index::fm_profile::small;
  bo.lz_reference = a.lz_reference;
  bo.kernel_text = a.kernel_text;
  bo.count_index = index::count_structure_named(a.count_index);
  if (show) {
    bo.progress = [t0](std::string_view stage, std::uint64_t done, std::uint64_t total) {
      const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      const double pct = total ? 100.0 * static_cast<double>(done) / static_cast<double>(total) : 100.0;
      fmt::print(stderr, "trawl index build: {:<12} {:5.1f}%  {:7.1f} s\n", stage, pct, s);
    };
  } else if (drawn) {
    bo.progress = [&bar, current = std::string()](std::string_view stage, std::uint64_t done, std::uint64_t total) mutable {
      if (stage != current) {
        current = stage;
        bar.stage(current, total, stage != "sources");  // "sources" counts phrases
      }
      bar.update(done);
    };
  }
  // FASTA: the sequences are copied out and the file's bytes let go before the build, so the
  // input is held once while the parse and the FM-index take their memory
  std::string text;
  std::vector<index::record_span> records;
  const bool fasta = index::hybrid_index::read_records(in.bytes(), in.name(), text, records, in.named_format());
  const std::string name = in.name();
  if (fasta) in = io::input_buffer();
  const auto ix = fasta ? index::hybrid_index::build_records(std::move(text), std::move(records), name, bo)
                        : index::hybrid_index::build(in.bytes(), in.name(), bo);
  ix.save(out);
  bar.done();
  const auto inf = ix.info();
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  if (!a.quiet)
    fmt::print("{}: n={} z={} kept={} M={} records={} size={} bytes ({:.4f} bits/char) in {:.2f} s\n", out, inf.n, inf.z,
               inf.kept, inf.max_len, ix.records().size(), inf.total_bytes, inf.bits_per_char(), s);
  return 0;
}

int run_info(const index_args& a) {
  const auto ix = index::hybrid_index::load(a.index_path);
  const auto inf = ix.info();
  writer w;
  w.put(fmt::format("source\t{}\nrecords\t{}\nn\t{}\nz\t{}\nkept_phrases\t{}\nliteral_bytes\t{}\nM\t{}\nsigma\t{}\n"
                    "s2_length\t{}\nsegments\t{}\nbwt_runs\t{}\n",
                    ix.source_name(), ix.records().size(), inf.n, inf.z, inf.kept, inf.literal_bytes, inf.max_len,
                    inf.sigma, inf.s2_length, inf.segments, inf.bwt_runs));
  for (const auto& [name, bytes] : inf.part_bytes)
    w.put(fmt::format("bytes:{}\t{}\t{:.4f} bits/char\n", name, bytes,
                      inf.n ? 8.0 * static_cast<double>(bytes) / static_cast<double>(inf.n) : 0.0));
  w.put(fmt::format("bytes:total\t{}\nbits_per_char\t{:.4f}\n", inf.total_bytes, inf.bits_per_char()));
  // records as NAME, START (in the records concatenated), LENGTH; the first 20 unless --records
  const auto recs = ix.records();
  const std::size_t shown = a.records ? recs.size() : std::min<std::size_t>(recs.size(), 20);
  for (std::size_t i = 0; i < shown; ++i)
    w.put(fmt::format("record\t{}\t{}\t{}\n", recs[i].name, recs[i].start, recs[i].length));
  if (shown < recs.size()) w.put(fmt::format("record\t... {} more (--records lists every one)\n", recs.size() - shown));
  w.flush();
  return 0;
}

int run_count(const index_args& a) {
  // counts hits inside one record each, like locate (a hit across two FASTA records is no hit)
  const auto ix = index::hybrid_index::load(a.index_path);
  const auto ps = all_patterns(a);
  std::vector<std::uint64_t> counts = ix.count_records(ps, locate_opts(a));
  counts.resize(ps.size(), 0);
  writer w;
  bool any = false;
  for (std::size_t i = 0; i < ps.size(); ++i) {
    any = any || counts[i] > 0;
    if (a.format == "json") w.put(fmt::format(R"({{"pattern":"{}","count":{}}})" "\n", json_escape(ps[i]), counts[i]));
    else w.put(fmt::format("{}\t{}\n", ps[i], counts[i]));
  }
  w.flush();
  return any ? 0 : 1;
}

int run_locate(const index_args& a) {
  const auto ix = index::hybrid_index::load(a.index_path);
  const auto ps = all_patterns(a);
  const auto recs = ix.records();
  // --check: the hit's bytes, extracted, are its pattern
  const auto matches = [&](const index::record_hit& h) {
    return ix.extract(recs[h.record].start + h.h.start, h.h.end - h.h.start) == ps[h.h.pattern];
  };
  const auto mismatch = [&](const index::record_hit& h) {
    return error(errc::bad_format,
                 fmt::format("--check: hit {}:{} does not match pattern {}", recs[h.record].name, h.h.start, h.h.pattern));
  };
  // The hits come in batches (only the occurrence lists are held); each batch's lines are
  // formatted (and with --check, its hits checked) in blocks on every thread and written in
  // order.
  constexpr std::size_t block = 1 << 15;
  const std::size_t nt = a.threads ? a.threads : static_cast<std::size_t>(tbb::this_task_arena::max_concurrency());
  tbb::task_arena arena(static_cast<int>(nt));
  std::vector<fmt::memory_buffer> text;
  std::vector<std::size_t> bad;
  writer w;
  if (a.format != "tsv") {  // JSON, BED: the hit printer's formats, as search --index prints them
    print_options po;
    po.format = a.format == "json" ? out_format::json : out_format::bed;
    hit_printer printer(w, po, ps);
    std::uint32_t current = ~0u;
    const std::uint64_t n = ix.for_each_record_hit(ps, locate_opts(a), [&](std::span<const index::record_hit> hits) {
      for (const auto& [rec, h] : hits) {
        if (rec != current) {
          if (current != ~0u) printer.end();
          current = rec;
          printer.begin(recs[rec].name);
        }
        if (a.check && !matches({rec, h})) throw mismatch({rec, h});
        printer.print(h);
      }
      return true;
    });
    if (current != ~0u) printer.end();
    w.flush();
    return n == 0 ? 1 : 0;
  }
  const std::uint64_t found = ix.for_each_record_hit(ps, locate_opts(a), [&](std::span<const index::record_hit> hits) {
    const std::size_t blocks = (hits.size() + block - 1) / block;
    text.resize(std::max(text.size(), blocks));
    bad.assign(blocks, hits.size());
    arena.execute([&] {
      tbb::parallel_for(std::size_t{0}, blocks, [&](std::size_t i) {
        auto& out = text[i];
        out.clear();
        const std::size_t e = std::min(hits.size(), (i + 1) * block);
        for (std::size_t k = i * block; k < e; ++k) {
          const auto& h = hits[k];
          if (a.check && bad[i] == hits.size() && !matches(h)) bad[i] = k;
          // output contract (output.hpp): source start end errors strand pattern
          fmt::format_to(std::back_inserter(out), "{}\t{}\t{}\t0\t+\t{}\n", recs[h.record].name, h.h.start, h.h.end,
                         ps[h.h.pattern]);
        }
      });
    });
    for (std::size_t i = 0; i < blocks; ++i) {
      if (bad[i] != hits.size()) {
        throw mismatch(hits[bad[i]]);
      }
      w.put(std::string_view(text[i].data(), text[i].size()));
    }
    return true;
  });
  w.flush();
  return found == 0 ? 1 : 0;
}

int run_verify(const index_args& a) {
  const auto ix = index::hybrid_index::load(a.index_path);
  std::string problem;
  if (a.input.empty()) {
    problem = ix.verify();
  } else {
    auto in = io::input_buffer::open(a.input);
    problem = ix.verify(in.bytes());
  }
  writer w;
  if (!problem.empty()) throw error(errc::bad_format, fmt::format("index verify: {}: {}", a.index_path, problem));
  w.put(fmt::format("{}: consistent{}\n", a.index_path, a.input.empty() ? "" : fmt::format(", and the index of {}", a.input)));
  w.flush();
  return 0;
}

/// NAME:START-END (0-based, half-open: as locate prints) or NAME (the whole record). A name
/// that holds ':' is taken whole when a record has it.
struct region_span {
  std::uint32_t record;
  std::uint64_t start, end;
};
region_span parse_region(const index::hybrid_index& ix, const std::string& region) {
  const auto colon = region.rfind(':');
  if (colon != std::string::npos) {
    const std::string range = region.substr(colon + 1);
    const auto dash = range.find('-');
    const bool digits = dash != std::string::npos && dash > 0 && dash + 1 < range.size() &&
                        range.find_first_not_of("0123456789-") == std::string::npos && range.find('-', dash + 1) == std::string::npos;
    bool whole_name = false;
    for (const auto& r : ix.records()) whole_name = whole_name || r.name == region;
    if (digits && !whole_name) {
      if (dash > 19 || range.size() - dash - 1 > 19)
        throw error(errc::invalid_argument, "index extract: " + region + ": a coordinate is too large");
      const std::uint64_t start = std::stoull(range.substr(0, dash)), end = std::stoull(range.substr(dash + 1));
      const std::uint32_t rec = ix.record_named(region.substr(0, colon));
      // a range outside the record: extract_record's error, before any output
      if (start > end || end > ix.records()[rec].length) (void)ix.extract_record(rec, start, end);
      return {rec, start, end};
    }
  }
  const std::uint32_t rec = ix.record_named(region);
  return {rec, 0, ix.records()[rec].length};
}

/// Writes `get(at, len)` for [from, to) in pieces of 1 MiB: an answer of any size in bounded
/// memory.
template <class Get>
void put_pieces(writer& w, std::uint64_t from, std::uint64_t to, Get&& get) {
  constexpr std::uint64_t piece = 1 << 20;
  for (std::uint64_t at = from; at < to; at += std::min(piece, to - at)) w.put(get(at, std::min(piece, to - at)));
}

int run_extract(const index_args& a) {
  const auto ix = index::hybrid_index::load(a.index_path);
  writer w;
  // START LEN: offsets into the records concatenated, printed raw
  const auto number = [](const std::string& s) { return !s.empty() && s.size() <= 19 && s.find_first_not_of("0123456789") == std::string::npos; };
  if (a.regions.size() == 2 && number(a.regions[0]) && number(a.regions[1])) {
    const std::uint64_t start = std::stoull(a.regions[0]), len = std::stoull(a.regions[1]);
    if (start > ix.size()) (void)ix.extract(start, 0);  // the error, before any output
    const std::uint64_t end = start + std::min(len, ix.size() - start);
    put_pieces(w, start, end, [&](std::uint64_t at, std::uint64_t n) { return ix.extract(at, n); });
    w.put("\n");  // a line, as every other output
  } else {
    std::vector<region_span> spans;  // every region checked before any output
    for (const auto& region : a.regions) spans.push_back(parse_region(ix, region));
    for (const region_span& s : spans)  // a damaged index's error before any output: a byte of the first one
      if (s.end > s.start) {
        (void)ix.extract_record(s.record, s.start, s.start + 1);
        break;
      }
    for (std::size_t i = 0; i < spans.size(); ++i) {
      const region_span s = spans[i];
      w.put(fmt::format(">{}\n", a.regions[i]));
      put_pieces(w, s.start, s.end, [&](std::uint64_t at, std::uint64_t n) { return ix.extract_record(s.record, at, at + n); });
      w.put("\n");
    }
  }
  w.flush();
  return 0;
}

void add_query_options(CLI::App* c, index_args& a) {
  c->add_option("-f,--file", a.pattern_files, "read patterns from FILE, one per line");
  c->add_option("-j,-t,--threads", a.threads, "locate threads (default: all cores)")->check(integer_in(0, 1 << 16));
  c->add_option("--engine", a.engine, "locate engine: balanced (default), static (equal chunks of primaries, one per thread), serial");
}

}  // namespace

void add_index_command(CLI::App& root, run_state& state) {
  auto a = std::make_shared<index_args>();
  auto* cmd = root.add_subcommand("index", "build and query a compressed Hybrid Index (LZ77 + FM-index)");
  cmd->require_subcommand(1);

  auto* build = cmd->add_subcommand("build", "index FILE (plain text, FASTA/FASTQ, gzip) into FILE.thi or -o OUT");
  build->add_option("file", a->input, "input file ('-' = stdin)")->required();
  build->add_option("-o,--output", a->output, "index file to write (default FILE.thi)");
  build->add_option("-M,--max-len", a->max_len, "M: patterns up to M bytes are answered directly (default 32; 16 with --small)")
      ->check(CLI::Range(1, 4096));
  build->add_flag("--small", a->small,
                  "the small profile for repetitive text: suffix-array samples every 32 bytes of S'' (not 16), M = 16 "
                  "unless -M is given (kjv-rep50.txt: 0.28 bits/char)");
  build->add_option("--lz-reference", a->lz_reference,
                    "parse the first BYTES exactly (greedy LZ77: 12 bytes of memory per byte) and the rest relative to "
                    "them (16 bytes per reference byte; default: all of an input up to 89 MB, else 64 MiB)");
  build->add_flag("--kernel-text", a->kernel_text,
                  "keep S'' in the index as text too (zstd; about 2.2 bits per S'' byte on DNA): approximate "
                  "search through the index reads it instead of decoding it from the BWT");
  build->add_option("--count-index", a->count_index,
                    "auto, on or off: keep the text's run-length BWT, with which count takes time independent of the "
                    "number of occurrences (auto: on for the default profile when the input is at most 256 MiB)")
      ->check(CLI::IsMember({"auto", "on", "off"}));
  build->add_flag("--progress", a->progress,
                  "print a line a progress report on stderr (on a terminal one progress line is redrawn anyway; -q: none)");
  build->add_flag("-q,--quiet", a->quiet, "print nothing");
  build->callback([a, &state] { state.exit_code = run_build(*a); });

  auto* info = cmd->add_subcommand("info", "n, z, M, the size of every part of an index, and its records");
  info->add_option("index", a->index_path, "index file")->required();
  info->add_flag("--records", a->records, "list every record (default: the first 20)");
  info->callback([a, &state] { state.exit_code = run_info(*a); });

  auto* count = cmd->add_subcommand("count", "number of occurrences of each PATTERN (pattern<TAB>count)");
  count->add_option("index", a->index_path, "index file")->required();
  count->add_option("patterns", a->patterns, "patterns");
  add_query_options(count, *a);
  count->add_option("--format", a->format, "tsv (pattern<TAB>count, the default) or json (one object a line)")
      ->check(CLI::IsMember({"tsv", "json"}));
  count->callback([a, &state] { state.exit_code = run_count(*a); });

  auto* locate = cmd->add_subcommand("locate", "every occurrence, as source<TAB>start<TAB>end<TAB>errors<TAB>strand<TAB>pattern");
  locate->add_option("index", a->index_path, "index file")->required();
  locate->add_option("patterns", a->patterns, "patterns");
  add_query_options(locate, *a);
  locate->add_flag("--check", a->check, "re-verify every hit against the text (extract)");
  locate->add_option("--format", a->format, "tsv (the default), json or bed: as trawl search prints hits")
      ->check(CLI::IsMember({"tsv", "json", "bed"}));
  locate->callback([a, &state] { state.exit_code = run_locate(*a); });

  auto* verify = cmd->add_subcommand(
      "verify", "check an index file through and through (and that it indexes TEXT, if given); exit 2 if not");
  verify->add_option("index", a->index_path, "index file")->required();
  verify->add_option("text", a->input, "the text it should index (plain, FASTA/FASTQ, gzip)");
  verify->callback([a, &state] { state.exit_code = run_verify(*a); });

  auto* extract = cmd->add_subcommand("extract", "print regions of the indexed text: NAME:START-END... or START LEN");
  extract->add_option("index", a->index_path, "index file")->required();
  extract->add_option("region", a->regions,
                      "NAME:START-END (record coordinates, 0-based half-open, as locate prints; printed as FASTA) "
                      "or NAME; or START LEN: offsets into the records concatenated, printed raw")
      ->required();
  extract->callback([a, &state] { state.exit_code = run_extract(*a); });
}

}  // namespace trawl::cli
