// cuda/dispatch/plans.cu — uploading plans and choosing kernels per pattern length.
#include <algorithm>
#include <numeric>

#include "common/iupac.hpp"
#include "dispatch/plans.cuh"
#include "offtarget/site_rows.hpp"

namespace trawl::cuda {

exact_device_plan::exact_device_plan(const exact_plan& plan) : algo(plan.algo), slice_length(plan.slice_length) {
  const std::size_t n = plan.patterns.size();
  global_id.resize(n);
  std::iota(global_id.begin(), global_id.end(), 0u);
  std::stable_sort(global_id.begin(), global_id.end(),
                   [&](std::uint32_t a, std::uint32_t b) { return plan.patterns[a].size() < plan.patterns[b].size(); });
  std::vector<std::uint8_t> bytes;
  std::vector<std::uint64_t> offsets;
  for (std::uint32_t g : global_id) {
    const std::string& p = plan.patterns[g];
    offsets.push_back(bytes.size());
    bytes.insert(bytes.end(), p.begin(), p.end());
    host_lengths.push_back(static_cast<std::uint32_t>(p.size()));
    max_length = std::max<std::uint32_t>(max_length, static_cast<std::uint32_t>(p.size()));
  }
  bytes.resize(bytes.size() + 16);
  this->bytes = upload(bytes);
  this->offsets = upload(offsets);
  lengths = upload(host_lengths);
  view.bytes = this->bytes.get();
  view.offsets = this->offsets.get();
  view.lengths = lengths.get();
  view.ntasks = static_cast<std::uint32_t>(n);
  view.max_length = max_length;
  view.fold = plan.fold;
  view.host_lengths = host_lengths.data();
  if (algo == exact_plan::engine::hashed) build_hash(plan);
}

void exact_device_plan::build_hash(const exact_plan& plan) {
  // local tasks by (key length, key): each key's tasks are a run of ids
  struct keyed {
    std::uint32_t q;
    std::uint64_t key;
    std::uint32_t id;
  };
  std::vector<keyed> all;
  for (std::uint32_t t = 0; t < global_id.size(); ++t) {
    const std::string& p = plan.patterns[global_id[t]];
    const auto q = static_cast<std::uint32_t>(std::min<std::size_t>(p.size(), 8));
    std::uint64_t key = 0;
    for (std::uint32_t i = 0; i < q; ++i) key |= static_cast<std::uint64_t>(static_cast<unsigned char>(p[i])) << (8 * i);
    all.push_back({q, key, t});
  }
  std::sort(all.begin(), all.end(), [](const keyed& a, const keyed& b) {
    return a.q != b.q ? a.q < b.q : a.key != b.key ? a.key < b.key : a.id < b.id;
  });
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < all.size();) {
    std::size_t e = i;
    std::size_t keys = 0;
    for (; e < all.size() && all[e].q == all[i].q; ++e) keys += e == i || all[e].key != all[e - 1].key ? 1 : 0;
    std::uint64_t size = 16;
    while (size < 2 * keys) size *= 2;
    std::vector<exact_hash_entry> table(size);
    for (std::size_t k = i; k < e;) {
      std::size_t r = k;
      while (r < e && all[r].key == all[k].key) ids.push_back(all[r++].id);
      std::uint64_t at = exact_hash_slot(all[k].key, size - 1);
      while (table[at].count != 0) at = (at + 1) & (size - 1);
      table[at] = {all[k].key, static_cast<std::uint32_t>(ids.size() - (r - k)), static_cast<std::uint32_t>(r - k)};
      k = r;
    }
    const std::uint32_t g = hash.groups++;
    tables[g] = upload(table);
    hash.table[g] = tables[g].get();
    hash.mask[g] = size - 1;
    hash.q[g] = all[i].q;
    i = e;
  }
  hash_ids = upload(ids);
  hash.ids = hash_ids.get();
}

void exact_device_plan::launch(const text_window& w, const candidate_sink& sink, cudaStream_t stream) const {
  if (algo == exact_plan::engine::sunday)
    launch_exact_sunday(view, w, sink, slice_length, stream);
  else if (algo == exact_plan::engine::hashed)
    launch_exact_hashed(view, hash, w, sink, stream);
  else
    launch_exact_filter(view, w, sink, stream);
}

std::unique_ptr<approx_device_plan::multi_group> make_multi_group(const approx_plan& plan,
                                                                  const std::vector<std::uint32_t>& tasks) {
  auto g = std::make_unique<approx_device_plan::multi_group>();
  std::vector<std::uint64_t> peq, offsets;
  std::vector<std::uint32_t> lengths, ids;
  std::uint32_t max_len = 0, max_words = 0;
  for (std::uint32_t t : tasks) {
    offsets.push_back(peq.size());
    peq.insert(peq.end(), plan.peq[t].begin(), plan.peq[t].end());
    lengths.push_back(plan.lengths[t]);
    ids.push_back(t);
    max_len = std::max(max_len, plan.lengths[t]);
    max_words = std::max(max_words, (plan.lengths[t] + 63) / 64);
  }
  g->peq = upload(peq);
  g->offsets = upload(offsets);
  g->lengths = upload(lengths);
  g->ids = upload(ids);
  g->view = multi_device_tasks{g->peq.get(), g->offsets.get(), g->lengths.get(), g->ids.get(),
                               static_cast<std::uint32_t>(tasks.size()), max_len, max_words};
  return g;
}

namespace {

/// Left-aligned single-word Peq of `plan` task t: symbol i at bit (B - m + i), the B - m
/// free rows below it match everything.
template <class Word>
void append_tiled_peq(const approx_plan& plan, std::uint32_t t, std::vector<unsigned char>& out) {
  constexpr int B = static_cast<int>(sizeof(Word) * 8);
  const int m = static_cast<int>(plan.lengths[t]);
  const int shift = B - m;
  const Word low = shift == 0 ? Word(0) : static_cast<Word>((Word(1) << shift) - 1);
  for (std::uint32_t c = 0; c < plan.sigma; ++c) {
    const Word w = static_cast<Word>(static_cast<Word>(plan.peq[t][c]) << shift) | low;
    const auto* p = reinterpret_cast<const unsigned char*>(&w);
    out.insert(out.end(), p, p + sizeof(Word));
  }
}

/// Left-aligned W-word Peq: the m-bit vector shifted up by 64W - m, the free rows below set.
void append_multi_peq(const approx_plan& plan, std::uint32_t t, std::uint32_t W, std::vector<unsigned char>& out) {
  const std::uint32_t m = plan.lengths[t], W0 = (m + 63) / 64, F = 64 * W - m;
  for (std::uint32_t c = 0; c < plan.sigma; ++c) {
    std::vector<std::uint64_t> v(W, 0);
    for (std::uint32_t r = 0; r < 64 * W; ++r) {
      bool bit;
      if (r < F) bit = true;
      else {
        const std::uint32_t i = r - F;
        bit = (plan.peq[t][static_cast<std::size_t>(c) * W0 + i / 64] >> (i % 64)) & 1u;
      }
      if (bit) v[r / 64] |= std::uint64_t{1} << (r % 64);
    }
    const auto* p = reinterpret_cast<const unsigned char*>(v.data());
    out.insert(out.end(), p, p + 8 * W);
  }
}

template <class Word>
std::unique_ptr<approx_device_plan::tiled_group> make_tiled_group(const approx_plan& plan,
                                                                   const std::vector<std::uint32_t>& tasks,
                                                                   std::uint32_t words = 1) {
  auto g = std::make_unique<approx_device_plan::tiled_group>();
  std::vector<unsigned char> peq;
  std::vector<std::uint32_t> lengths, ids;
  std::uint32_t max_len = 0;
  for (std::uint32_t t : tasks) {
    if (words > 1) append_multi_peq(plan, t, words, peq);
    else append_tiled_peq<Word>(plan, t, peq);
    lengths.push_back(plan.lengths[t]);
    ids.push_back(t);
    max_len = std::max(max_len, plan.lengths[t]);
  }
  g->peq = upload(peq);
  g->lengths = upload(lengths);
  g->ids = upload(ids);
  g->view = tiled_device_tasks{g->peq.get(), g->lengths.get(), g->ids.get(), static_cast<std::uint32_t>(tasks.size()),
                               max_len, sizeof(Word) == 8, words};
  return g;
}

}  // namespace

approx_device_plan::approx_device_plan(const approx_plan& plan, const device_status& dev)
    : slice_length(plan.slice_length), single_pattern(plan.algo != approx_plan::engine::tiled_grouped) {
  std::vector<std::uint8_t> code(plan.code.begin(), plan.code.end());
  map = upload(code);
  common.code_map = map.get();
  common.sigma = plan.sigma;
  common.k = plan.k;
  common.sm_count = dev.sm_count > 0 ? dev.sm_count : 1;
  common.smem_optin = dev.shared_per_block_optin ? dev.shared_per_block_optin : 48 * 1024;
  std::vector<std::uint32_t> t32, t64, t128, t256, t512, t1024, multi, all;
  for (std::uint32_t t = 0; t < plan.lengths.size(); ++t) {
    const std::uint32_t m = plan.lengths[t];
    max_length = std::max(max_length, m);
    all.push_back(t);
    if (plan.hamming) continue;
    if (plan.algo == approx_plan::engine::warp || m > 1024)
      multi.push_back(t);
    else if (m <= 32)
      t32.push_back(t);
    else if (m <= 64)
      t64.push_back(t);
    else if (m <= 128)
      t128.push_back(t);
    else if (m <= 256)
      t256.push_back(t);
    else if (m <= 512)
      t512.push_back(t);
    else
      t1024.push_back(t);
  }
  if (plan.sites) upload_sites(*plan.sites);
  if (plan.hamming) {
    hamming = make_multi_group(plan, all);
    return;
  }
  if (!t32.empty()) tiled.push_back(make_tiled_group<std::uint32_t>(plan, t32));
  if (!t64.empty()) tiled.push_back(make_tiled_group<std::uint64_t>(plan, t64));
  if (!t128.empty()) tiled.push_back(make_tiled_group<std::uint64_t>(plan, t128, 2));
  if (!t256.empty()) tiled.push_back(make_tiled_group<std::uint64_t>(plan, t256, 4));
  if (!t512.empty()) tiled.push_back(make_tiled_group<std::uint64_t>(plan, t512, 8));
  if (!t1024.empty()) tiled.push_back(make_tiled_group<std::uint64_t>(plan, t1024, 16));
  if (!multi.empty()) warp = make_multi_group(plan, multi);
  if (plan.seeds && !plan.hamming && !plan.sites) {
    const seed_plan& sp = *plan.seeds;
    auto g = std::make_unique<seed_group>();
    g->code = upload(std::vector<std::uint8_t>(sp.code.begin(), sp.code.end()));
    g->bitmap = upload(sp.bitmap);
    g->slot_tail = upload(sp.slot_tail);
    g->slot_first = upload(sp.slot_first);
    g->slot_count = upload(sp.slot_count);
    g->entry_key = upload(sp.entry_key);
    g->entry_member = upload(sp.entry_member);
    g->entry_rest = upload(sp.entry_rest);
    g->entry_len = upload(sp.entry_len);
    g->member_task = upload(sp.member_task);
    g->member_m = upload(sp.member_m);
    g->member_k = upload(sp.member_k);
    // [member][sigma]: m <= 64, one word a class, left-aligned as myers_step.cuh takes it (the
    // pattern's last symbol the top bit, the free rows below it matching everything)
    std::vector<std::uint64_t> peq;
    for (const std::uint32_t t : sp.member_task) {
      const std::uint32_t free_rows = 64 - plan.lengths[t];
      const std::uint64_t below = free_rows == 0 ? 0 : (std::uint64_t{1} << free_rows) - 1;
      for (std::uint32_t c = 0; c < plan.sigma; ++c) peq.push_back(plan.peq[t][c] << free_rows | below);
    }
    g->peq = upload(peq);
    seed_device_tasks& v = g->view;
    v.code = g->code.get();
    v.tail_len = sp.tail_len;
    v.slot_shift = sp.slot_shift;
    v.slot_mask = sp.slot_tail.size() - 1;
    v.bitmap = g->bitmap.get();
    v.slot_tail = g->slot_tail.get();
    v.slot_first = g->slot_first.get();
    v.slot_count = g->slot_count.get();
    v.entry_key = g->entry_key.get();
    v.entry_member = g->entry_member.get();
    v.entry_rest = g->entry_rest.get();
    v.entry_len = g->entry_len.get();
    v.member_task = g->member_task.get();
    v.member_m = g->member_m.get();
    v.member_k = g->member_k.get();
    v.peq = g->peq.get();
    v.members = static_cast<std::uint32_t>(sp.member_task.size());
    seeds = std::move(g);
  }
}

const unsigned* approx_device_plan::launch_seeds(const text_window& w, const candidate_sink& sink,
                                                cudaStream_t stream, seed_scratch* scratch) const {
  // Past one window per 8 ends the windows are dense: the kernels scan the chunk. Run edges
  // are rarer (N runs, other letters).
  if (w.len >= (std::size_t{1} << 32)) return nullptr;
  const std::size_t cap = (w.len + 7) / 8 + 1024, edge_cap = (w.len + 63) / 64 + 1024;
  seed_scratch* sc = scratch;
  if (sc == nullptr) {
    std::lock_guard<std::mutex> lock(seed_mutex);
    auto& kept = seed_scratch_of[stream];
    if (!kept) kept = std::make_unique<seed_scratch>();
    sc = kept.get();
  }
  if (sc->windows.size() < cap) sc->windows.reset(cap);
  if (sc->edges.size() < edge_cap) sc->edges.reset(edge_cap);
  seed_buffers buf{sc->windows.get(), sc->edges.get(), sc->counts.get(), cap, edge_cap, sc->dense.get()};
  TRAWL_CUDA_CHECK(cudaMemsetAsync(sc->counts.get(), 0, 2 * sizeof(unsigned long long), stream));
  launch_seed_find(seeds->view, w, buf, stream);
  launch_seed_verify(seeds->view, common, w, buf, sink, stream);
  return sc->dense.get();
}

void approx_device_plan::upload_sites(const site_end_test& test) {
  const std::uint32_t states = (test.dna_bulges + 1) * (test.rna_bulges + 1) * 3;
  if (states > offtarget::site_rows::max_states) return;  // the host tests every end
  const auto concat = [](const std::vector<std::vector<std::uint8_t>>& lists, std::vector<std::uint32_t>& offset) {
    std::vector<std::uint8_t> all;
    offset.assign(1, 0);
    for (const auto& l : lists) {
      all.insert(all.end(), l.begin(), l.end());
      offset.push_back(static_cast<std::uint32_t>(all.size()));
    }
    return all;
  };
  auto g = std::make_unique<site_group>();
  std::vector<std::uint32_t> guide_offset, pam_offset;
  g->guide_bits = upload(concat(test.guides, guide_offset));
  g->pam_bits = upload(concat(test.pams, pam_offset));
  g->guide_offset = upload(guide_offset);
  g->pam_offset = upload(pam_offset);
  g->limits = upload(test.limits);
  g->guide_of = upload(test.guide_of);
  g->pam_of = upload(test.pam_of);
  g->reverse = upload(test.reverse);
  site_test_tasks& v = g->view;
  v.guide_bits = g->guide_bits.get();
  v.guide_offset = g->guide_offset.get();
  v.limits = g->limits.get();
  v.pam_bits = g->pam_bits.get();
  v.pam_offset = g->pam_offset.get();
  v.guide_of = g->guide_of.get();
  v.pam_of = g->pam_of.get();
  v.reverse = g->reverse.get();
  v.three_prime = test.three_prime;
  v.pam_limit = test.pam_limit;
  v.dna_bulges = test.dna_bulges;
  v.rna_bulges = test.rna_bulges;
  v.max_edits = test.max_edits;
  sites = std::move(g);
}

void approx_device_plan::launch(const text_window& w, const candidate_sink& sink, cudaStream_t stream,
                                seed_scratch* scratch, bool pam_gate) const {
  // the seed filter's pass, and the kernels gated to run only where its chunk is dense
  approx_common c = common;
  if (pam_gate && sites) {
    c.sites = sites->view;
    c.pam_gate = true;
  }
  if (seeds) c.gate = launch_seeds(w, sink, stream, scratch);
  if (hamming) {
    launch_hamming(hamming->view, c, w, sink, stream);
    return;
  }
  for (const auto& g : tiled) {
    if (single_pattern && g->view.ntasks == 1 && g->view.words == 1)
      launch_myers_single(g->view, c, w, sink, slice_length, stream);
    else
      launch_myers_tiled(g->view, c, w, sink, slice_length, stream);
  }
  if (warp) launch_myers_warp(warp->view, c, w, sink, nullptr, slice_length, stream);
}

site_device_plan::site_device_plan(const site_plan& plan) {
  std::vector<std::uint8_t> bits;
  std::vector<std::uint32_t> offset{0};
  for (const auto& p : plan.pams) {
    bits.insert(bits.end(), p.begin(), p.end());
    offset.push_back(static_cast<std::uint32_t>(bits.size()));
  }
  // no empty lists: the kernel never reads an empty one's entry, but its pointer is set
  const auto nonempty = [](std::vector<std::uint32_t> v) {
    if (v.empty()) v.push_back(0);
    return v;
  };
  pam_bits = upload(bits);
  pam_offset = upload(offset);
  lengths = upload(plan.lengths);
  limits = upload(plan.limits);
  words = upload(plan.words);
  first = upload(nonempty(plan.first));
  ids = upload(nonempty(plan.ids));
  always = upload(nonempty(plan.always));
  view.pam_bits = pam_bits.get();
  view.pam_offset = pam_offset.get();
  view.npams = static_cast<std::uint32_t>(plan.pams.size());
  view.pam_limit = plan.pam_limit;
  view.three_prime = plan.three_prime;
  view.lengths = lengths.get();
  view.limits = limits.get();
  view.words = words.get();
  view.stride = plan.stride;
  view.shortest = plan.shortest;
  view.longest = plan.longest;
  view.longest_pam = plan.longest_pam;
  view.blocks = plan.blocks;
  view.block_len = plan.block_len;
  view.first = first.get();
  view.ids = ids.get();
  view.always = always.get();
  view.nalways = static_cast<std::uint32_t>(plan.always.size());
  make_direct(plan);
}

void site_device_plan::make_direct(const site_plan& plan) {
  if (!direct_serves(plan)) return;
  const std::uint32_t pam_limit = std::min(plan.pam_limit, plan.longest_pam);
  std::vector<std::uint32_t> pam_offset{0}, group_first{0};
  std::vector<std::uint8_t> pam_text;
  for (const auto& pam : plan.pams) {
    const std::size_t P = pam.size();
    for (std::size_t i = 0; i < P; ++i) pam_text.push_back(pam[i]);
    for (std::size_t i = 0; i < P; ++i) pam_text.push_back(static_cast<std::uint8_t>(trawl::detail::complement_bits(pam[P - 1 - i])));
    pam_offset.push_back(static_cast<std::uint32_t>(pam_text.size() / 2));
  }
  std::vector<site_direct_guide> guides;
  for (std::size_t pi = 0; pi < plan.pams.size(); ++pi) {
    for (const bool reverse : {false, true}) {
      const bool left = plan.three_prime == !reverse;
      for (std::size_t g = 0; g < plan.lengths.size(); ++g) {
        const std::uint32_t m = plan.lengths[g];
        if (plan.limits[g] < 0) continue;  // no site
        site_direct_guide d;
        d.length = static_cast<std::int32_t>(m);
        d.limit = std::min(plan.limits[g], static_cast<std::int32_t>(m));
        d.task = static_cast<std::uint32_t>(2 * (g * plan.pams.size() + pi) + (reverse ? 1 : 0));
        for (std::uint32_t i = 0; i < m; ++i) {  // base i from the PAM outward
          unsigned code = plan.code(g, i);
          if (reverse) code = trawl::detail::complement_bits(code);
          const std::uint32_t bit = 1u << (left ? 31 - i : i);
          d.mask |= bit;
          if (code == 15u) continue;  // N: any base
          static constexpr int two_bits[9] = {-1, 0, 1, -1, 3, -1, -1, -1, 2};  // A C G T (IUPAC bits) -> code
          d.care |= bit;
          if (two_bits[code] & 1) d.bits0 |= bit;
          if (two_bits[code] & 2) d.bits1 |= bit;
        }
        guides.push_back(d);
      }
      group_first.push_back(static_cast<std::uint32_t>(guides.size()));
    }
  }
  auto d = std::make_unique<direct_tasks>();
  d->pam_offset = upload(pam_offset);
  d->group_first = upload(group_first);
  d->pam_text = upload(pam_text);
  d->guides = upload(guides);
  d->view.three_prime = plan.three_prime;
  d->view.npams = static_cast<std::uint32_t>(plan.pams.size());
  d->view.pam_limit = pam_limit;
  d->view.pam_offset = d->pam_offset.get();
  d->view.pam_text = d->pam_text.get();
  d->view.group_first = d->group_first.get();
  d->view.guides = d->guides.get();
  d->view.nguides = static_cast<std::uint32_t>(guides.size());
  d->view.longest = plan.longest;
  d->view.longest_pam = plan.longest_pam;
  direct = std::move(d);
}

}  // namespace trawl::cuda
