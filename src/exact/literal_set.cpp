// literal_set.cpp — the exact matcher for a set of literals, on Vectorscan (Hyperscan's
// maintained fork): one pass over the text reports every match end of every literal (its
// FDR and Teddy literal matchers), overlapping ones included. Identical literals (duplicate
// patterns, a pattern equal to another's reverse complement, or equal up to case with -i)
// are compiled once and report every (pattern, strand) they stand for.
#include <hs/hs.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>

#include <tbb/enumerable_thread_specific.h>

#include "trawl/detail/engine.hpp"
#include "exact/engines.hpp"
#include "trawl/error.hpp"
#include "trawl/search.hpp"

namespace trawl {
namespace {

struct database_deleter {
  void operator()(hs_database_t* db) const { hs_free_database(db); }
};
struct scratch_deleter {
  void operator()(hs_scratch_t* s) const { hs_free_scratch(s); }
};
using database_ptr = std::unique_ptr<hs_database_t, database_deleter>;
using scratch_ptr = std::unique_ptr<hs_scratch_t, scratch_deleter>;

std::string fold(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

class literal_set_matcher final : public detail::engine {
 public:
  literal_set_matcher(const literal_table& table, const search_options& options) : max_len_(table.max_len) {
    const std::vector<std::string>& literals = table.literals;
    std::vector<const char*> exprs;
    std::vector<std::size_t> lengths;
    std::vector<unsigned> flags(literals.size(), options.ignore_case ? HS_FLAG_CASELESS : 0u), hs_ids;
    for (std::size_t i = 0; i < literals.size(); ++i) {
      exprs.push_back(literals[i].data());
      lengths.push_back(literals[i].size());
      hs_ids.push_back(static_cast<unsigned>(i));
      info_.push_back({static_cast<std::uint32_t>(targets_.size()), static_cast<std::uint32_t>(table.targets[i].size()),
                       literals[i].size()});
      targets_.insert(targets_.end(), table.targets[i].begin(), table.targets[i].end());
    }
    hs_database_t* db = nullptr;
    hs_compile_error_t* err = nullptr;
    if (hs_compile_lit_multi(exprs.data(), flags.data(), hs_ids.data(), lengths.data(),
                             static_cast<unsigned>(literals.size()), HS_MODE_BLOCK, nullptr, &db,
                             &err) != HS_SUCCESS) {
      const std::string what = err != nullptr && err->message != nullptr ? err->message : "unknown error";
      hs_free_compile_error(err);
      throw error(errc::invalid_argument, "cannot compile the pattern set: " + what);
    }
    db_.reset(db);
    hs_scratch_t* proto = nullptr;
    if (hs_alloc_scratch(db_.get(), &proto) != HS_SUCCESS) throw std::bad_alloc();
    proto_.reset(proto);
  }

  [[nodiscard]] std::size_t lookbehind() const override { return 0; }
  [[nodiscard]] std::size_t lookahead() const override { return max_len_ - 1; }
  [[nodiscard]] hit_key key() const override { return hit_key::start; }
  [[nodiscard]] bool one_pattern_strand() const override { return targets_.size() == 1; }

  void scan(std::string_view seq, std::size_t own_begin, std::size_t own_end, std::vector<hit>& out,
            std::vector<detail::open_mark>& /*open: exact hits, no clusters*/) const override {
    if (own_begin >= own_end || own_begin >= seq.size()) return;
    hs_scratch_t* scratch = scratch_.local().get(proto_.get());
    const std::size_t first = out.size();
    bool unsorted = false;
    // hs_scan takes 32-bit lengths: long slices are scanned in windows that overlap by the
    // longest literal, each owning the starts in its part of the slice.
    constexpr std::size_t window = std::size_t{1} << 30;
    for (std::size_t lo = own_begin; lo < own_end; lo += window) {
      const std::size_t hi = std::min(own_end, lo + window);
      const std::size_t stop = std::min(seq.size(), hi + max_len_ - 1);
      context ctx{this, &out, first, lo, hi, unsorted};
      const hs_error_t rc = hs_scan(db_.get(), seq.data() + lo, static_cast<unsigned>(stop - lo), 0, scratch,
                                    on_match, &ctx);
      if (rc != HS_SUCCESS) throw error(errc::invalid_argument, "pattern-set scan failed (Vectorscan error " +
                                                                    std::to_string(rc) + ")");
    }
    finish_start_order(out, first, unsorted);
  }

 private:
  /// A literal: its (pattern, strand) targets are targets_[first, first + count).
  struct literal_info {
    std::uint32_t first, count;
    std::size_t length;
  };

  struct context {
    const literal_set_matcher* self;
    std::vector<hit>* out;
    std::size_t first;   ///< the scan's first hit in out
    std::size_t lo, hi;  ///< the window's first byte and the end of the starts it owns
    bool& unsorted;
  };

  static int on_match(unsigned id, unsigned long long /*from*/, unsigned long long to, unsigned /*flags*/,
                      void* p) {
    auto& ctx = *static_cast<context*>(p);
    const literal_info& li = ctx.self->info_[id];
    const std::uint64_t end = ctx.lo + to;
    const std::uint64_t start = end - li.length;
    if (start >= ctx.hi) return 0;
    for (std::uint32_t i = 0; i < li.count; ++i) {
      const literal_table::target& t = ctx.self->targets_[li.first + i];
      append_in_start_order(*ctx.out, ctx.first, hit{start, end, t.pattern, 0, t.dir}, ctx.unsorted);
    }
    return 0;
  }

  /// A worker thread's scratch space, cloned from the prototype on first use.
  struct thread_scratch {
    scratch_ptr s;
    hs_scratch_t* get(const hs_scratch_t* proto) {
      if (!s) {
        hs_scratch_t* c = nullptr;
        if (hs_clone_scratch(proto, &c) != HS_SUCCESS) throw std::bad_alloc();
        s.reset(c);
      }
      return s.get();
    }
  };

  database_ptr db_;
  scratch_ptr proto_;
  mutable tbb::enumerable_thread_specific<thread_scratch> scratch_;
  std::vector<literal_info> info_;
  std::vector<literal_table::target> targets_;
  std::size_t max_len_ = 1;
};

}  // namespace

void finish_start_order(std::vector<hit>& out, std::size_t first, bool unsorted) {
  if (!unsorted) return;
  std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(), hit_order{hit_key::start});
}

literal_table make_literal_table(const std::vector<std::string>& patterns, const search_options& options) {
  literal_table t;
  std::unordered_map<std::string, std::uint32_t> ids;  // literal (folded with -i) -> index
  auto add = [&](std::string lit, std::uint32_t pattern, strand dir) {
    std::string key = options.ignore_case ? fold(lit) : lit;
    auto [it, fresh] = ids.try_emplace(std::move(key), static_cast<std::uint32_t>(t.literals.size()));
    if (fresh) {
      t.literals.push_back(std::move(lit));
      t.targets.emplace_back();
    }
    t.targets[it->second].push_back({pattern, dir});
  };
  t.min_len = patterns.empty() ? 0 : patterns[0].size();
  for (std::size_t i = 0; i < patterns.size(); ++i) {
    const auto p = static_cast<std::uint32_t>(i);
    add(patterns[i], p, strand::forward);
    if (options.both_strands) add(reverse_complement(patterns[i]), p, strand::reverse);
    t.max_len = std::max(t.max_len, patterns[i].size());
    t.min_len = std::min(t.min_len, patterns[i].size());
  }
  return t;
}

std::unique_ptr<detail::engine> make_literal_set_matcher(literal_table table, const search_options& options) {
  return std::make_unique<literal_set_matcher>(table, options);
}

}  // namespace trawl
