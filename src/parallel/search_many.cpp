// search_many.cpp — many texts searched as each alone (search.hpp): joined into one sequence
// where the gaps between them provably change no hit, else whole texts on the workers.
#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "parallel/joined.hpp"
#include "trawl/detail/engine.hpp"
#include "trawl/gpu.hpp"
#include "trawl/search.hpp"

namespace trawl {

namespace detail {

bool joins(const std::vector<std::string>& patterns, const search_options& options, std::size_t gap) {
  std::size_t shortest = SIZE_MAX, longest = 0;
  for (const auto& p : patterns) shortest = std::min(shortest, p.size()), longest = std::max(longest, p.size());
  const auto k = static_cast<std::size_t>(options.max_errors);
  // The texts are searched as one sequence, each followed by a run of NUL bytes longer than
  // m + k. No pattern holds a NUL, so an alignment pays at least one error per NUL it takes:
  // ends in a run never beat the text's last end (a cluster keeps its best end in the text;
  // other ends in a run are dropped), and a start in the run before a text is that text's
  // first byte at the same distance. So the hits are those of each text searched alone.
  // (Hamming windows, whole lines, regular expressions and k >= m have no such guarantee:
  // they take the other way.)
  return !options.hamming && !options.whole_lines && !options.regex && !patterns.empty() && shortest > k &&
         gap > longest + k;
}

void search_joined(const std::vector<std::string>& patterns, const matcher& m, std::string_view joined,
                   std::span<const std::uint64_t> begin, std::span<const std::uint64_t> length,
                   const search_options& options, const text_hits_callback& on_hits) {
  const bool approximate = options.max_errors > 0 || options.all_ends;
  std::size_t t = 0;
  std::vector<hit> run;  // hits of text t, in its coordinates
  bool going = true;
  const auto flush = [&] {
    if (!run.empty() && going) going = on_hits(static_cast<std::uint32_t>(t), run);
    run.clear();
    return going;
  };
  const auto add = [&](std::span<const hit> hs) {
    for (hit h : hs) {
      const std::uint64_t key = approximate ? h.end - 1 : h.start;
      while (t + 1 < begin.size() && begin[t + 1] <= key) {
        if (!flush()) return false;
        ++t;
      }
      if (h.end > begin[t] + length[t]) continue;
      h.start = std::max(h.start, begin[t]) - begin[t];
      h.end -= begin[t];
      run.push_back(h);
    }
    return going;
  };
  if (choose_device(options, patterns.size(), joined.size()) == device_kind::gpu)
    gpu::search_sequence(patterns, joined, options, add);
  else
    search_sequence(m, joined, options, add);
  flush();
}

}  // namespace detail

void search_many(const std::vector<std::string>& patterns, std::span<const std::string_view> texts,
                 const search_options& options, const text_hits_callback& on_hits) {
  const auto m = make_matcher(patterns, options);
  std::size_t longest = 0;
  for (const auto& p : patterns) longest = std::max(longest, p.size());
  const std::size_t gap = longest + static_cast<std::size_t>(options.max_errors) + 1;
  if (detail::joins(patterns, options, gap)) {
    std::vector<std::uint64_t> begin(texts.size()), length(texts.size());
    std::string joined;
    std::size_t total = 0;
    for (const auto t : texts) total += t.size() + gap;
    joined.reserve(total);
    for (std::size_t t = 0; t < texts.size(); ++t) {
      begin[t] = joined.size();
      length[t] = texts[t].size();
      joined.append(texts[t]);
      joined.append(gap, '\0');
    }
    detail::search_joined(patterns, *m, joined, begin, length, options, on_hits);
    return;
  }
  // Blocks of texts scanned whole on the workers; their hits handed over in text order.
  constexpr std::size_t block = 256;
  const std::size_t blocks = (texts.size() + block - 1) / block;
  std::vector<std::vector<std::pair<std::uint32_t, hit>>> found(blocks);
  tbb::task_arena arena(options.threads != 0 ? static_cast<int>(options.threads) : tbb::task_arena::automatic);
  arena.execute([&] {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, blocks), [&](const tbb::blocked_range<std::size_t>& r) {
      std::vector<hit> scratch;
      std::vector<detail::open_mark> cut;  // a whole text: its clusters are complete
      for (std::size_t b = r.begin(); b != r.end(); ++b) {
        for (std::size_t i = b * block; i < std::min(texts.size(), (b + 1) * block); ++i) {
          scratch.clear();
          trawl::detail::engine_of(*m).scan(texts[i], 0, texts[i].size(), scratch, cut);
          for (const hit& h : scratch) found[b].emplace_back(static_cast<std::uint32_t>(i), h);
        }
      }
    });
  });
  std::vector<hit> run;
  for (const auto& f : found)
    for (std::size_t i = 0; i < f.size();) {
      const std::uint32_t text = f[i].first;
      run.clear();
      for (; i < f.size() && f[i].first == text; ++i) run.push_back(f[i].second);
      if (!on_hits(text, run)) return;
    }
}

}  // namespace trawl
