// hybrid_index.cpp — building the Hybrid Index and its queries other than the secondary
// recursion: primary occurrences from the FM-index over S'', extract, count, record mapping.
//
// Ferrada, Gagie, Hirvola, Puglisi, "Hybrid indexes for repetitive datasets" (2014).
// Build: O(n) after suffix sorting + the FM-index construction over S''.
// Primaries: O(m log σ) backward search + O(s_SA + log) per S'' hit.
#include <algorithm>
#include <bit>
#include <cstdlib>
#include <functional>
#include <memory>
#include <numeric>
#include <tuple>

#include <sys/mman.h>

#include <tbb/blocked_range.h>
#include <tbb/enumerable_thread_specific.h>
#include <tbb/parallel_for.h>
#include <tbb/parallel_sort.h>
#include <tbb/task_arena.h>

#include "distributed/deal.hpp"
#include "index/file_io.hpp"
#include "index/index_impl.hpp"
#include "index/located_spill.hpp"
#include "trawl/error.hpp"
#include "trawl/io.hpp"
#include "trawl/detail/testing.hpp"

namespace trawl::index {
namespace {

/// Calls f(csa) on the FM-index that S'' uses.
template <class F>
decltype(auto) with_fm(const detail::index_impl& ix, F&& f) {
  const fm_variant& fm = ix.fm_index();
  if (const auto* d = std::get_if<fm_dna>(&fm)) return f(*d);
  if (const auto* w = std::get_if<fm_wt>(&fm)) return f(*w);
  return f(std::get<fm_int>(fm));
}

/// S''[b, b + len) read from the FM-index (an LF walk from an ISA sample) into out; `buf` is
/// scratch.
void fm_extract(const detail::index_impl& ix, std::uint64_t b, std::uint64_t len, char* out,
                std::vector<std::uint64_t>& buf) {
  buf.resize(len);
  if (len == 0) return;
  with_fm(ix, [&](const auto& csa) { fm_extract_symbols(csa, b, len, buf.data()); });
  const bool is_int = std::holds_alternative<fm_int>(ix.fm_index());
  for (std::uint64_t i = 0; i < len; ++i)
    out[i] = static_cast<char>(is_int ? buf[i] - 1 : ix.char_unmap[buf[i] & 0xff]);
}


/// Every occurrence of every pattern into `spill` (unsorted), by options.engine: with the
/// balanced engine on several threads, the patterns run as tasks of one arena, as locate_many.
void locate_each(const detail::index_impl& ix, const std::vector<std::string>& patterns, const locate_options& options,
                 located_spill& spill) {
  auto sink_of = [&](std::size_t i) {
    return occurrence_sink([&spill, i](std::span<const std::uint64_t> found) { spill.add(found, static_cast<std::uint32_t>(i)); });
  };
  const unsigned nt = resolve_threads(options.threads);
  if (options.engine == locate_engine::balanced && nt > 1 && patterns.size() > 1) {
    tbb::task_arena arena(static_cast<int>(nt));
    arena.execute([&] {
      tbb::parallel_for(tbb::blocked_range<std::size_t>(0, patterns.size(), 1), [&](const auto& r) {
        for (std::size_t i = r.begin(); i != r.end(); ++i) {
          const occurrence_sink sink = sink_of(i);
          locate_balanced_here(ix, patterns[i], &sink);
        }
      });
    });
    return;
  }
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const occurrence_sink sink = sink_of(i);
    switch (options.engine) {
      case locate_engine::serial:
        locate_serial(ix, ix.primaries(patterns[i], false), patterns[i].size(), &sink);
        break;
      case locate_engine::static_chunks:
        locate_static_chunks(ix, patterns[i], options.threads, &sink);
        break;
      case locate_engine::balanced:
        locate_balanced(ix, patterns[i], options.threads, &sink);
        break;
    }
  }
}

}  // namespace

// ---- small helpers of impl ------------------------------------------------------------

byte_buffer::byte_buffer(std::size_t n) : n_(n) {
  constexpr std::size_t huge = std::size_t{1} << 21;
  if (n >= huge) {
    const std::size_t bytes = (n + huge - 1) / huge * huge;
    p_.reset(static_cast<char*>(std::aligned_alloc(huge, bytes)));
    if (p_) madvise(p_.get(), bytes, MADV_HUGEPAGE);  // advice only; failures are harmless
  } else {
    p_.reset(static_cast<char*>(std::malloc(std::max<std::size_t>(n, 1))));
  }
  if (!p_) throw std::bad_alloc();
}

bool detail::index_impl::is_primary(std::uint64_t x, std::uint64_t m) const {
  const std::uint64_t k = kept_starts.count_below(x + 1);
  return k == 0 || x + m > kept_end(k - 1);
}

void detail::index_impl::index_sources(std::span<const std::uint64_t> starts) {
  const auto w = static_cast<std::uint8_t>(std::max(1, static_cast<int>(std::bit_width(n))));
  src_start = sdsl::int_vector<>(kept, 0, w);
  src_reach = sdsl::int_vector<>(2 * kept, 0, w);
  // 64 sources a task: their packed values fill whole words, so no two workers write one word
  constexpr std::uint64_t run = 64;
  tbb::parallel_for(tbb::blocked_range<std::uint64_t>(0, (kept + run - 1) / run, 256), [&](const auto& runs) {
    for (std::uint64_t j = runs.begin() * run; j < std::min(kept, runs.end() * run); ++j) {
      const std::uint64_t start = stored_source_start(j);
      src_start[j] = start;
      src_reach[2 * j] = start + packed_at(src_len, j) - 1;
      src_reach[2 * j + 1] = starts[packed_at(by_src, j)] - start;
    }
  });
  src_start_rank = bucket_rank(kept, n + 1, [this](std::uint64_t j) { return packed_at(src_start, j); });
  src_end.build(kept, [&](std::uint64_t j) { return source_end(j); });
  src_prefix_best = sdsl::int_vector<>(kept, 0, static_cast<std::uint8_t>(std::max(1, static_cast<int>(std::bit_width(kept)))));
  for (std::uint64_t j = 0, best = 0; j < kept; ++j) {
    if (source_end(j) > source_end(best)) best = j;
    src_prefix_best[j] = best;
  }
}

const detail::index_impl::segment_table& detail::index_impl::segments_plain() const {
  std::call_once(segment_table_once, [this] {
    const std::uint64_t segs = seg_s2.count_below(s2_len + 1) - 1;
    std::vector<std::uint64_t> s2(segs + 1), text(segs + 1);
    tbb::this_task_arena::isolate([&] {  // as in fm_index
      decode_all(seg_s2, segs, s2.data());
      // segment k > 0 starts M - 1 bytes before the end of kept phrase k - 1
      decode_all(kept_starts, std::min(segs, kept), text.data() + 1);
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(1, segs, 4096), [&](const auto& rg) {
        for (std::uint64_t k = rg.begin(); k < rg.end(); ++k)
          text[k] += packed_at(src_len, packed_at(src_rank, k - 1)) - (max_len - 1);
      });
    });
    if (segs > 0) text[0] = 0;
    s2[segs] = s2_len;
    text[segs] = n;  // also where an empty last segment would start (M = 1)
    set_segments(std::move(s2), std::move(text));
  });
  return seg_table;
}

void detail::index_impl::set_segments(std::vector<std::uint64_t> s2, std::vector<std::uint64_t> text) const {
  seg_table.s2 = std::move(s2);
  seg_table.text = std::move(text);
  seg_table.s2_rank = bucket_rank(seg_table.s2, s2_len + 1);
}

std::vector<std::uint64_t> detail::index_impl::primaries(std::string_view pattern, bool parallel) const {
  std::vector<std::uint64_t> out;
  const std::uint64_t m = pattern.size();
  if (m == 0 || m > n || s2_len == 0) return out;
  const std::uint64_t w = std::min<std::uint64_t>(m, max_len);
  for (char c : pattern)
    if (char_map[static_cast<unsigned char>(c)] == 0) return out;  // a byte the text lacks
  for (std::uint64_t a = 0;; a += w) {
    a = std::min(a, m - w);
    const std::string_view win = pattern.substr(a, w);
    with_fm(*this, [&](const auto& csa) {
      using csa_t = std::decay_t<decltype(csa)>;
      const segment_table& segs = segments_plain();
      std::vector<std::uint64_t> sym(w);
      for (std::uint64_t i = 0; i < w; ++i) {
        const auto c = char_map[static_cast<unsigned char>(win[i])];
        sym[i] = std::is_same_v<csa_t, fm_int> ? static_cast<std::uint64_t>(static_cast<unsigned char>(win[i])) + 1 : c;
      }
      std::uint64_t lb = 0, rb = 0;
      if (fm_backward_search(csa, sym, lb, rb) == 0) return;
      // One suffix-array row's S'' position, mapped back to the text, kept if primary.
      auto row = [&](std::uint64_t q, std::uint64_t k, std::vector<std::uint64_t>& o, std::string& piece) {
        const std::uint64_t s_k = segs.s2[k], e_k = segs.s2[k + 1], t_k = segs.text[k];
        if (q + w > e_k) return;  // crosses the junction of two segments: not in the text
        const std::uint64_t y = t_k + (q - s_k);
        if (y < a) return;
        const std::uint64_t x = y - a;
        if (x + m > n) return;
        // inside one kept phrase: the recursion finds it (x lies in segment k when a = 0)
        if (!(a == 0 ? is_primary_in(segs, k, x, m) : is_primary(x, m))) return;
        if (w < m) {  // verify the rest of a long pattern against the text
          piece.clear();
          extract_into(x, m, piece);
          if (piece != pattern) return;
        }
        o.push_back(x);
      };
      // The rows [b, e): located by batches, whose segment lookups then run in stages that
      // prefetch what the next stage reads (the segment table is far larger than the caches).
      auto rows = [&](std::uint64_t b, std::uint64_t e, std::vector<std::uint64_t>& o) {
        constexpr std::size_t batch = 64;
        std::array<std::uint64_t, batch> q, k;
        std::string piece;
        for (; b < e; b += batch) {
          std::size_t got = 0;
          fm_locate(csa, b, std::min(e, b + batch), [&](std::uint64_t v) {
            if (v + w <= s2_len) q[got++] = v;  // else it runs past the end of S''
          });
          for (std::size_t i = 0; i < got; ++i) segs.s2_rank.prefetch_bucket(q[i] + 1);
          for (std::size_t i = 0; i < got; ++i) segs.s2_rank.prefetch_elements(segs.s2, q[i] + 1);
          for (std::size_t i = 0; i < got; ++i) {
            k[i] = segs.s2_rank.below(segs.s2, q[i] + 1) - 1;
            __builtin_prefetch(&segs.text[k[i]]);
          }
          for (std::size_t i = 0; i < got; ++i) row(q[i], k[i], o, piece);
        }
      };
      if (!parallel || rb - lb < 256) {
        rows(lb, rb + 1, out);
        return;
      }
      // the suffix-array samples are independent: locate the rows on all workers
      tbb::enumerable_thread_specific<std::vector<std::uint64_t>> local;
      tbb::parallel_for(tbb::blocked_range<std::uint64_t>(lb, rb + 1, 128),
                        [&](const auto& rg) { rows(rg.begin(), rg.end(), local.local()); });
      for (const auto& v : local) out.insert(out.end(), v.begin(), v.end());
    });
    if (a + w >= m) break;
  }
  if (w < m) {
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
  }
  return out;
}

void detail::index_impl::extract_into(std::uint64_t x, std::uint64_t len, std::string& out) const {
  // Work list of (text start, length, offset in the result); a piece inside a copied phrase
  // maps to its source (strictly to the left), a piece inside S'' is read from the FM-index.
  const std::size_t base = out.size();
  out.resize(base + len);
  struct piece_t { std::uint64_t x, len, at; };
  std::vector<piece_t> work{{x, len, base}};
  std::vector<std::uint64_t> buf;
  while (!work.empty()) {
    piece_t p = work.back();
    work.pop_back();
    while (p.len > 0) {
      {
        const std::uint64_t k = segments_upto(p.x) - 1, t_k = segment_text_start(k), s_k = seg_s2.at(k),
                            l_k = seg_s2.at(k + 1) - s_k;
        if (p.x < t_k + l_k) {
          const std::uint64_t c = std::min(p.len, t_k + l_k - p.x);
          const std::uint64_t b = s_k + (p.x - t_k);
          if (s2_decoded.load(std::memory_order_acquire)) std::memcpy(out.data() + p.at, s2_bytes.data() + b, c);  // no FM walk
          else fm_extract(*this, b, c, out.data() + p.at, buf);
          p.x += c; p.len -= c; p.at += c;
          continue;
        }
      }
      // inside a kept phrase, outside S'': S[x] = S[src + ((x - pos) mod (pos - src))]
      const std::uint64_t j = kept_of(p.x);
      if (j == kept) throw error(errc::bad_format, "index: text position in neither S'' nor a phrase");
      const std::uint64_t pos = kept_starts.at(j), end = kept_end(j);
      const std::uint64_t src = source_of_phrase(j), d = pos - src;
      const std::uint64_t c = std::min(p.len, end - p.x);
      if (c < p.len) work.push_back({p.x + c, p.len - c, p.at + c});
      p = {src + (p.x - pos) % d, c, p.at};
    }
  }
}

void detail::index_impl::with_fm_section(const std::function<void(const fm_section&)>& f) const {
  if (fm_file) {
    f(*fm_file);
  } else if (const std::optional<fm_section> read = decode_fm_section()) {
    f(*read);
  }
}

const fm_variant& detail::index_impl::fm_index() const {
  // The first uses (here, s2_text) run parallel work under a once flag, isolated: a worker
  // waiting inside must not take up another query's task that would wait on that flag.
  std::call_once(fm_once, [this] {
    tbb::this_task_arena::isolate([this] {
      if (fm_file) build_fm(*fm_file, sigma, fm);
      else if (std::optional<fm_section> read = decode_fm_section()) build_fm(std::move(*read), sigma, fm);
    });
  });
  return fm;
}

namespace {

/// S'' from a checked FM-index section, without its wavelet tree: LF of every row (counted
/// and filled by blocks of rows in parallel), then from every sampled row (text position v)
/// s steps back, S''[v-s, v); the tail after the last sample from the sentinel's suffix
/// (row 0). A step reads only lf[row]: the symbol it emits is the first column's at the new
/// row (T[SA[r] - 1] = F[LF(r)]). Each task walks a group of samples in lock step, prefetching
/// every next row, so a thread has a group's misses in flight instead of one.
byte_buffer decode_section(const detail::index_impl::fm_section& sec, std::uint64_t s,
                           const std::array<std::uint8_t, 256>& unmap) {
  const std::uint64_t rows = sec.rows;
  const auto symbol = [&](std::uint64_t row) -> unsigned {  // 0 = the sentinel, else byte + 1
    if (row == sec.sentinel) return 0;
    return static_cast<unsigned>(static_cast<unsigned char>(sec.bwt[row - (row > sec.sentinel ? 1 : 0)])) + 1;
  };
  constexpr std::uint64_t block = std::uint64_t{1} << 20;
  const std::uint64_t blocks = (rows + block - 1) / block;
  // per block: its rows of each symbol, then the LF of its first row of each symbol
  std::vector<std::array<std::uint64_t, 257>> at(blocks);
  tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
    at[b].fill(0);
    for (std::uint64_t row = b * block, e = std::min(rows, row + block); row < e; ++row) ++at[b][symbol(row)];
  });
  std::array<std::uint64_t, 258> c{};  // C: rows with a smaller symbol
  for (const auto& counts : at)
    for (std::size_t x = 0; x < 257; ++x) c[x + 1] += counts[x];
  for (std::size_t i = 1; i < c.size(); ++i) c[i] += c[i - 1];
  {
    std::array<std::uint64_t, 257> next;
    std::copy_n(c.begin(), 257, next.begin());
    for (auto& counts : at)
      for (std::size_t x = 0; x < 257; ++x) std::swap(counts[x], next[x]), next[x] += counts[x];
  }
  byte_buffer lf_store(rows * sizeof(std::uint32_t));  // the walks read it at random
  auto* const lf = reinterpret_cast<std::uint32_t*>(lf_store.data());
  tbb::parallel_for(std::uint64_t{0}, blocks, [&](std::uint64_t b) {
    auto next = at[b];
    for (std::uint64_t row = b * block, e = std::min(rows, row + block); row < e; ++row)
      lf[row] = static_cast<std::uint32_t>(next[symbol(row)]++);
  });
  // the first column: the symbols that occur, by their first row, after row 0, the sentinel's
  // (a walk over a consistent BWT never emits it; over an inconsistent one it may, and
  // verify() says the BWT is wrong)
  std::vector<std::uint64_t> first_row{0};
  std::vector<char> first_byte{'\0'};
  const bool is_int = sec.kind == 1;
  for (unsigned x = 1; x < 257; ++x)
    if (c[x + 1] > c[x]) {
      const auto byte = static_cast<unsigned char>(x - 1);
      first_row.push_back(c[x]);
      first_byte.push_back(static_cast<char>(is_int ? byte : unmap[byte]));
    }
  const auto byte_at = [&](std::uint64_t row) {  // F[row]
    return first_byte[static_cast<std::size_t>(std::upper_bound(first_row.begin(), first_row.end(), row) -
                                               first_row.begin()) - 1];
  };
  byte_buffer out(rows - 1);  // every byte written below
  char* const o = out.data();
  constexpr std::size_t group = 16;
  tbb::parallel_for(tbb::blocked_range<std::size_t>(0, sec.marked.size(), 64), [&](const auto& range) {
    for (std::size_t j0 = range.begin(); j0 < range.end(); j0 += group) {
      const std::size_t g = std::min(group, range.end() - j0);
      std::uint64_t row[group], v[group];
      for (std::size_t i = 0; i < g; ++i) {
        row[i] = sec.marked[j0 + i];
        v[i] = sec.samples[j0 + i] * s;
      }
      for (std::uint64_t t = 0; t < s; ++t)
        for (std::size_t i = 0; i < g; ++i) {
          if (v[i] == 0) continue;
          const std::uint64_t r = lf[row[i]];
          __builtin_prefetch(&lf[r]);
          if (--v[i] < rows - 1) o[v[i]] = byte_at(r);
          row[i] = r;
        }
    }
  });
  // the tail, from the sentinel's suffix
  const std::uint64_t last = (sec.samples.size() - 1) * s;  // the samples are 0, s, 2s, ... (checked on load)
  for (std::uint64_t row = 0, v = rows - 1, t = 0; t < rows - 1 - last && v > 0; ++t) {
    const std::uint64_t r = lf[row];
    if (--v < rows - 1) o[v] = byte_at(r);
    row = r;
  }
  return out;
}

}  // namespace

std::string_view detail::index_impl::s2_text() const {
  if (s2_decoded.load(std::memory_order_acquire)) return s2_bytes.view();  // built, or read from the file
  std::call_once(s2_once, [this] {
    tbb::this_task_arena::isolate([this] {  // as in fm_index
      if (s2_len < std::uint64_t{0xffffffff}) {  // rows = s2_len + 1 fit the decoder's 32 bits
        with_fm_section([&](const fm_section& f) { s2_bytes = decode_section(f, fm_sample_step(f.kind), char_unmap); });
      } else {
        byte_buffer s(s2_len);
        constexpr std::uint64_t piece = std::uint64_t{1} << 20;
        tbb::parallel_for(std::uint64_t{0}, (s2_len + piece - 1) / piece, [&](std::uint64_t i) {
          const std::uint64_t b = i * piece;
          std::vector<std::uint64_t> buf;
          fm_extract(*this, b, std::min(s2_len, b + piece) - b, s.data() + b, buf);
        });
        s2_bytes = std::move(s);
      }
    });
    s2_decoded.store(true, std::memory_order_release);
  });
  return s2_bytes.view();
}

// ---- build -----------------------------------------------------------------------------

namespace {

/// How much of an n-byte input is parsed exactly (build_options::lz_reference): the parse's
/// own memory stays within 1 GiB, beside the input (held twice when it was FASTA: the file and
/// its records' sequences).
std::uint64_t lz_reference(std::uint64_t n, std::uint64_t asked) {
  if (asked != 0) return std::min(asked, n);
  constexpr std::uint64_t allowed = std::uint64_t{1} << 30;
  return 12 * n <= allowed ? n : allowed / 16;
}

}  // namespace

locate_engine locate_engine_named(std::string_view name) {
  if (name == "serial") return locate_engine::serial;
  if (name == "static") return locate_engine::static_chunks;
  if (name == "balanced") return locate_engine::balanced;
  throw error(errc::invalid_argument, "index: the locate engine is serial, static or balanced, not '" + std::string(name) + "'");
}

count_structure count_structure_named(std::string_view name) {
  if (name == "auto") return count_structure::automatic;
  if (name == "on") return count_structure::on;
  if (name == "off") return count_structure::off;
  throw error(errc::invalid_argument, "index: the count index is auto, on or off, not '" + std::string(name) + "'");
}

namespace {

/// Whether the build makes the run-length BWT for count (build_options::count_index).
bool wants_count_index(std::uint64_t n, const build_options& opt) {
  switch (opt.count_index) {
    case count_structure::on: return true;
    case count_structure::off: return false;
    case count_structure::automatic: break;
  }
  return opt.profile == fm_profile::fast && 4 * n <= (std::uint64_t{1} << 30);
}

/// `text_done`, if given, is called once the text is no longer read (before the FM-index is
/// built): a caller that owns it can free it there.
std::unique_ptr<detail::index_impl> build_impl(std::string_view text, const build_options& opt,
                                               const std::function<void()>& text_done = {}) {
  if (opt.max_len < 1 || opt.max_len > 4096)
    throw error(errc::invalid_argument, "index: build_options::max_len must be between 1 and 4096");
  auto ix = std::make_unique<detail::index_impl>();
  const std::uint64_t n = text.size();
  ix->n = n;
  ix->max_len = opt.max_len;

  std::array<bool, 256> present{};
  for (char c : text) present[static_cast<unsigned char>(c)] = true;
  const std::uint32_t sigma = make_byte_maps(present, ix->char_map, ix->char_unmap);
  ix->sigma = sigma;
  // the count index from the text's suffix array: the exact parse's, or one of its own
  const bool counts = wants_count_index(n, opt);
  const auto symbols = run_symbols(ix->char_map, sigma);
  bool counted = false;
  auto set_counts = [&](auto&& make) {
    if (opt.progress) opt.progress("count index", 0, n);
    ix->counts = make();
    ix->has_counts = !ix->counts.empty();
    if (opt.progress) opt.progress("count index", n, n);
    counted = true;
  };
  const whole_suffix_array count_from_sa = [&](const std::int32_t* sa32, const std::int64_t* sa64) {
    set_counts([&] {
      return sa32 != nullptr ? run_bwt::from_suffix_array(text, sa32, symbols) : run_bwt::from_suffix_array(text, sa64, symbols);
    });
  };
  std::vector<lz77_phrase> phrases = lz77_parse_for_index(text, lz_reference(n, opt.lz_reference), opt.force_64bit,
                                                          opt.progress, counts ? count_from_sa : whole_suffix_array{});
  if (counts && !counted) set_counts([&] { return run_bwt::of_text(text, symbols, opt.force_64bit, opt.progress); });
  const std::uint64_t z = phrases.size();
  ix->z = z;
  if (opt.progress) opt.progress("sources", 0, z);

  // kept phrases and their sources
  std::vector<std::uint64_t> kept_ids;
  for (std::uint64_t i = 0; i < z; ++i)
    if (kept_phrase(phrases[i], opt.max_len)) kept_ids.push_back(i);
    else ix->literal_bytes += phrases[i].len;
  const std::uint64_t kz = kept_ids.size();
  ix->kept = kz;
  {
    std::vector<std::uint64_t> starts(kz);
    for (std::uint64_t i = 0; i < kz; ++i) starts[i] = phrases[kept_ids[i]].pos;
    ix->kept_starts.assign(n + 1, starts);
  }
  std::vector<std::uint64_t> copies(kz);
  std::iota(copies.begin(), copies.end(), std::uint64_t{0});
  auto src_of = [&](std::uint64_t id) { return phrases[kept_ids[id]].src; };
  std::stable_sort(copies.begin(), copies.end(), [&](std::uint64_t a, std::uint64_t b) { return src_of(a) < src_of(b); });
  ix->by_src = sdsl::int_vector<>(kz, 0, 64);
  ix->src_rank = sdsl::int_vector<>(kz, 0, 64);
  ix->src_sample = sdsl::int_vector<>((kz + by_src_block - 1) / by_src_block, 0, 64);
  ix->src_delta = sdsl::int_vector<>(kz, 0, 64);
  ix->src_len = sdsl::int_vector<>(kz, 0, 64);
  for (std::size_t j = 0; j < kz; ++j) {
    const std::uint64_t id = copies[j];
    ix->by_src[j] = id;
    ix->src_rank[id] = j;
    if (j % by_src_block == 0) ix->src_sample[j / by_src_block] = src_of(id);
    ix->src_delta[j] = src_of(id) - ix->src_sample[j / by_src_block];
    ix->src_len[j] = phrases[kept_ids[id]].len;
  }
  for (auto* v : {&ix->by_src, &ix->src_rank, &ix->src_sample, &ix->src_delta, &ix->src_len}) sdsl::util::bit_compress(*v);
  {
    std::vector<std::uint64_t> starts(kz);
    for (std::uint64_t i = 0; i < kz; ++i) starts[i] = phrases[kept_ids[i]].pos;
    ix->index_sources(starts);
  }
  if (opt.progress) opt.progress("sources", z, z);

  // S'' and its segment maps
  const auto segs = s2_segments(phrases, n, opt.max_len);
  std::vector<lz77_phrase>().swap(phrases);
  {
    std::vector<std::uint64_t> s2_starts;
    std::uint64_t total = 0;
    for (const auto& [b, l] : segs) {
      // an empty last segment (M = 1, a kept phrase ends the text) would share its start with
      // the end of S'': it is left out (segments_upto never reaches it)
      if (l > 0) s2_starts.push_back(total);
      total += l;
    }
    s2_starts.push_back(total);
    ix->s2_len = total;
    ix->seg_s2.assign(total + 1, s2_starts);
  }
  if (opt.progress) opt.progress("fm-index", 0, ix->s2_len);
  if (ix->s2_len > 0) {
    std::string s2;
    s2.reserve(ix->s2_len);
    if (sigma < 256) {
      for (const auto& [b, l] : segs)
        for (std::uint64_t i = 0; i < l; ++i) s2.push_back(static_cast<char>(ix->char_map[static_cast<unsigned char>(text[b + i])]));
      if (text_done) text_done();
      ix->fm_file = make_fm_section(s2, opt.profile == fm_profile::small ? 2 : 0, opt.progress);
      ix->fm_kind = ix->fm_file->kind;
      if (opt.kernel_text)
        for (char& c : s2) c = static_cast<char>(ix->char_unmap[static_cast<unsigned char>(c)]);
    } else {  // every byte value: the integer alphabet, whose section holds the bytes themselves
      for (const auto& [b, l] : segs) s2.append(text.substr(b, l));
      if (text_done) text_done();
      ix->fm_file = make_fm_section(s2, 1, opt.progress);
      ix->fm_kind = 1;
    }
    if (opt.kernel_text) {
      ix->s2_bytes = byte_buffer(s2.size());
      std::memcpy(ix->s2_bytes.data(), s2.data(), s2.size());
      ix->s2_decoded.store(true, std::memory_order_release);
      ix->s2_stored = true;
    }
  }
  if (opt.progress) opt.progress("fm-index", ix->s2_len, ix->s2_len);
  return ix;
}

}  // namespace

hybrid_index::hybrid_index() : impl_(std::make_unique<impl>()) {}
hybrid_index::~hybrid_index() = default;
hybrid_index::hybrid_index(hybrid_index&&) noexcept = default;
hybrid_index& hybrid_index::operator=(hybrid_index&&) noexcept = default;
hybrid_index::hybrid_index(std::unique_ptr<impl> p) : impl_(std::move(p)) {}

bool hybrid_index::read_records(std::string_view bytes, const std::string& source_name, std::string& text,
                                std::vector<record_span>& records, io::format named) {
  const io::format fmt = named != io::format::automatic ? named : io::detect_format(bytes);
  if (fmt == io::format::plain) return false;
  io::record_reader rr(bytes, fmt, source_name);
  io::record r;
  // the sequences never outgrow the file: one allocation, and no copy of a doubled buffer
  // beside the file (its unwritten tail is never touched)
  text.reserve(text.size() + bytes.size());
  while (rr.next(r)) {
    records.push_back({std::string(r.name), text.size(), r.sequence.size()});
    text.append(r.sequence);
  }
  return true;
}

hybrid_index hybrid_index::build(std::string_view bytes, std::string source_name, const build_options& options) {
  std::string text;
  std::vector<record_span> recs;
  if (options.detect_fasta && read_records(bytes, source_name, text, recs, io::format_of_name(source_name)))
    return build_records(std::move(text), std::move(recs), std::move(source_name), options);
  auto ix = build_impl(bytes, options);
  ix->source_name = source_name;
  ix->records.push_back({source_name, 0, bytes.size()});
  return hybrid_index(std::move(ix));
}

hybrid_index hybrid_index::build_records(std::string text, std::vector<record_span> records, std::string source_name,
                                         const build_options& options) {
  std::uint64_t at = 0;
  for (const auto& r : records) {
    if (r.start != at) throw error(errc::invalid_argument, "index: records must tile the text in order");
    at += r.length;
  }
  if (at != text.size()) throw error(errc::invalid_argument, "index: records must tile the text in order");
  auto ix = build_impl(text, options, [&text] { std::string().swap(text); });
  ix->source_name = std::move(source_name);
  ix->records = std::move(records);
  return hybrid_index(std::move(ix));
}

// ---- queries ---------------------------------------------------------------------------

std::uint64_t hybrid_index::size() const noexcept { return impl_->n; }
std::uint32_t hybrid_index::max_len() const noexcept { return impl_->max_len; }
const std::string& hybrid_index::source_name() const noexcept { return impl_->source_name; }
std::span<const record_span> hybrid_index::records() const noexcept { return impl_->records; }

std::uint32_t hybrid_index::record_of(std::uint64_t pos) const {
  return static_cast<std::uint32_t>(impl_->record_of(pos));
}

std::vector<std::uint64_t> detail::index_access::locate_primary(const hybrid_index& ix, std::string_view pattern) {
  ix.impl_->need_for_locate();
  auto p = ix.impl_->primaries(pattern, false);
  std::sort(p.begin(), p.end());
  return p;
}

std::uint64_t detail::index_access::count(const hybrid_index& ix, std::string_view pattern, bool in_records,
                                          count_path path, unsigned threads) {
  if (threads <= 1) return count_occurrences(*ix.impl_, pattern, in_records, false, path);
  tbb::task_arena arena(static_cast<int>(threads));
  return arena.execute([&] { return count_occurrences(*ix.impl_, pattern, in_records, true, path); });
}

std::vector<std::uint64_t> hybrid_index::locate(std::string_view pattern, const locate_options& options) const {
  impl_->need_for_locate();
  std::vector<std::uint64_t> occ;
  switch (options.engine) {
    case locate_engine::serial:
      occ = locate_serial(*impl_, impl_->primaries(pattern, false), pattern.size());
      sort_keys(occ, impl_->n);
      break;
    case locate_engine::static_chunks:
      occ = locate_static_chunks(*impl_, pattern, options.threads);
      break;
    case locate_engine::balanced:
      occ = locate_balanced(*impl_, pattern, options.threads);
      break;
  }
  return occ;
}

std::uint64_t detail::index_access::leaf_phrases(const hybrid_index& ix) {
  ix.impl_->need(index_impl::part::phrases);
  return ix.impl_->counting_tree().leaf_first.size();
}

std::uint64_t hybrid_index::count(std::string_view pattern, const locate_options& options) const {
  const unsigned nt = options.engine == locate_engine::serial ? 1 : resolve_threads(options.threads);
  if (nt == 1) return count_occurrences(*impl_, pattern, false, false);
  tbb::task_arena arena(static_cast<int>(nt));
  return arena.execute([&] { return count_occurrences(*impl_, pattern, false, true); });
}

std::vector<std::uint64_t> hybrid_index::count_records(const std::vector<std::string>& patterns,
                                                       const locate_options& options) const {
  if (options.processes != nullptr && options.processes->size() > 1) {
    // every rank reads the parts its counts read before the patterns are dealt, so that a
    // damaged one fails on every rank alike, outside the collective
    if (impl_->has_counts) impl_->need(impl::part::counts);
    if (!impl_->has_counts || impl_->records.size() > 1) impl_->need_for_locate();
    locate_options here = options;
    here.processes = nullptr;
    return distributed::deal_counts(*options.processes, patterns,
                                    [&](const std::vector<std::string>& mine) { return count_records(mine, here); });
  }
  // Many patterns: spread over the workers, each counted on one. Few: each on all of them.
  std::vector<std::uint64_t> out(patterns.size(), 0);
  const unsigned nt = options.engine == locate_engine::serial ? 1 : resolve_threads(options.threads);
  if (nt == 1) {
    for (std::size_t i = 0; i < patterns.size(); ++i) out[i] = count_occurrences(*impl_, patterns[i], true, false);
    return out;
  }
  tbb::task_arena arena(static_cast<int>(nt));
  arena.execute([&] {
    if (patterns.size() >= 4ull * nt) {
      tbb::parallel_for(std::size_t{0}, patterns.size(),
                        [&](std::size_t i) { out[i] = count_occurrences(*impl_, patterns[i], true, false); });
    } else {
      for (std::size_t i = 0; i < patterns.size(); ++i) out[i] = count_occurrences(*impl_, patterns[i], true, true);
    }
  });
  return out;
}

std::string hybrid_index::extract(std::uint64_t start, std::uint64_t len) const {
  if (start > impl_->n) throw error(errc::invalid_argument, "index: extract start is past the end of the text");
  len = std::min(len, impl_->n - start);
  std::string out;
  if (len > 0) {
    impl_->need_for_extract();
    impl_->extract_into(start, len, out);
  }
  return out;
}

std::uint32_t hybrid_index::record_named(std::string_view name) const {
  const auto& r = impl_->records;
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r[i].name == name) return static_cast<std::uint32_t>(i);
  throw error(errc::invalid_argument, "index: no record is named " + std::string(name) + " (" +
                                          std::to_string(r.size()) + " record" + (r.size() == 1 ? "" : "s") + ")");
}

std::string hybrid_index::extract_record(std::uint32_t record, std::uint64_t start, std::uint64_t end) const {
  const auto& r = impl_->records;
  if (record >= r.size()) throw error(errc::invalid_argument, "index: there is no record " + std::to_string(record));
  const record_span& rec = r[record];
  if (start > end || end > rec.length)
    throw error(errc::invalid_argument, "index: " + rec.name + ":" + std::to_string(start) + "-" + std::to_string(end) +
                                            " is not within the record (length " + std::to_string(rec.length) + ")");
  std::string out;
  if (end > start) {
    impl_->need_for_extract();
    impl_->extract_into(rec.start + start, end - start, out);
  }
  return out;
}

std::vector<std::vector<std::uint64_t>> hybrid_index::locate_many(const std::vector<std::string>& patterns,
                                                                   const locate_options& options) const {
  // The balanced engine runs the patterns as tasks of one arena: the workers take patterns as
  // they free up, and a pattern with a large answer hands its recursion branches to them too.
  impl_->need_for_locate();
  std::vector<std::vector<std::uint64_t>> occ(patterns.size());
  const unsigned nt = resolve_threads(options.threads);
  if (options.engine != locate_engine::balanced || nt == 1 || patterns.size() == 1) {
    for (std::size_t i = 0; i < patterns.size(); ++i) occ[i] = locate(patterns[i], options);
    return occ;
  }
  tbb::task_arena arena(static_cast<int>(nt));
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, patterns.size(), 1), [&](const auto& r) {
      for (std::size_t i = r.begin(); i != r.end(); ++i) occ[i] = locate_balanced_here(*impl_, patterns[i]);
    });
  });
  return occ;
}

std::vector<record_hit> hybrid_index::search_records(const std::vector<std::string>& patterns,
                                                     const locate_options& options) const {
  if (options.processes != nullptr && options.processes->size() > 1) {
    impl_->need_for_locate();  // on every rank before the deal, as in count_records
    locate_options here = options;
    here.processes = nullptr;
    return distributed::deal_records(
        *options.processes, patterns, [&](const std::vector<std::string>& mine) { return search_records(mine, here); },
        record_hit_order{hit_order{hit_key::start}});
  }
  const auto occ = locate_many(patterns, options);
  // each pattern's hits inside one record (in parallel), placed by a prefix sum, then one
  // parallel sort in the hit order by record (record, start, pattern: a key no two hits share)
  std::vector<std::vector<record_hit>> per(patterns.size());
  auto convert = [&](std::size_t pi) {
    const std::uint64_t m = patterns[pi].size();
    auto& v = per[pi];
    v.reserve(occ[pi].size());
    for (std::uint64_t x : occ[pi]) {
      const std::uint32_t r = record_of(x);
      const auto& rec = impl_->records[r];
      if (x + m > rec.start + rec.length) continue;  // crosses into the next record
      record_hit h;
      h.record = r;
      h.h.start = x - rec.start;
      h.h.end = x - rec.start + m;
      h.h.pattern = static_cast<std::uint32_t>(pi);
      v.push_back(h);
    }
  };
  constexpr record_hit_order before{hit_order{hit_key::start}};
  std::vector<std::size_t> at(patterns.size() + 1, 0);
  std::vector<record_hit> out;
  tbb::task_arena arena(static_cast<int>(options.engine == locate_engine::serial ? 1 : resolve_threads(options.threads)));
  arena.execute([&] {
    tbb::parallel_for(std::size_t{0}, patterns.size(), convert);
    for (std::size_t i = 0; i < patterns.size(); ++i) at[i + 1] = at[i] + per[i].size();
    out.resize(at.back());
    tbb::parallel_for(std::size_t{0}, patterns.size(), [&](std::size_t i) {
      std::copy(per[i].begin(), per[i].end(), out.begin() + static_cast<std::ptrdiff_t>(at[i]));
      std::vector<record_hit>().swap(per[i]);
    });
    tbb::parallel_sort(out.begin(), out.end(), before);
  });
  return out;
}

std::uint64_t hybrid_index::for_each_record_hit(const std::vector<std::string>& patterns,
                                                const locate_options& options,
                                                const std::function<bool(std::span<const record_hit>)>& on_hits) const {
  constexpr std::size_t batch = std::size_t{1} << 18;  // 6 MiB of hits: several blocks for the caller's threads
  std::uint64_t handed = 0;
  if (options.processes != nullptr && options.processes->size() > 1) {  // the ranks' answers, gathered
    const auto all = search_records(patterns, options);
    for (std::size_t i = 0; i < all.size(); i += batch) {
      const std::size_t n = std::min(batch, all.size() - i);
      handed += n;
      if (!on_hits(std::span<const record_hit>(all.data() + i, n))) break;
    }
    return handed;
  }
  // sorted by (start, pattern), which is (record, start, pattern) since records are
  // consecutive in the text
  impl_->need_for_locate();
  located_spill spill(impl_->n, patterns.size(), options.sort_memory);
  locate_each(*impl_, patterns, options, spill);
  std::vector<record_hit> out;
  out.reserve(batch);
  bool go = true;
  spill.drain([&](std::span<const std::uint64_t> keys) {
    for (std::uint64_t key : keys) {
      const std::uint64_t x = spill.position_of(key);
      const std::uint32_t p = spill.pattern_of(key);
      const std::uint64_t m = patterns[p].size();
      const std::uint32_t r = record_of(x);
      const auto& rec = impl_->records[r];
      if (x + m > rec.start + rec.length) continue;  // crosses into the next record
      out.push_back({r, hit{x - rec.start, x - rec.start + m, p, 0, strand::forward}});
      if (out.size() == batch) {
        handed += out.size();
        go = on_hits(out);
        out.clear();
        if (!go) return false;
      }
    }
    return true;
  });
  if (go && !out.empty()) {
    handed += out.size();
    on_hits(out);
  }
  return handed;
}

index_info hybrid_index::info() const {
  impl_->need(impl::part::phrases);
  impl_->need(impl::part::counts);
  index_info r;
  const auto& ix = *impl_;
  r.n = ix.n;
  r.z = ix.z;
  r.kept = ix.kept;
  r.literal_bytes = ix.literal_bytes;
  r.max_len = ix.max_len;
  r.s2_length = ix.s2_len;
  r.segments = ix.seg_s2.bits.size() ? ix.seg_s2.count_below(ix.s2_len + 1) - 1 : 0;
  r.sigma = ix.sigma;
  r.bwt_runs = ix.counts.runs();
  r.part_bytes = part_sizes(ix);
  for (const auto& p : r.part_bytes) r.total_bytes += p.second;
  return r;
}

}  // namespace trawl::index
