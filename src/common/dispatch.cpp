// dispatch.cpp — the four SIMD dispatch tables (dispatch.hpp): serial, AVX2, AVX-512 and
// AVX-512 with VBMI, each a function-local static built on first use, and the choice among
// them from cpu::at_level.
#include "common/dispatch.hpp"

namespace trawl::simd {
namespace {

using namespace approx_detail;
using namespace exact_detail;

kernels serial_table() {
  kernels t;
  t.level = simd_level::serial;
  t.features = {};
  t.find = find_simd_serial;
  t.teddy = teddy_candidates_serial;
  t.kmer = kmer_candidates_serial;
  t.lanes = {myers_lanes_serial, 8};
  t.pieces = find_pieces_serial;
  t.write_runs = write_run_hits_serial;
  t.pack = dna_pack::pack_serial;
  return t;  // no striped, blocked or batched start kernels
}

kernels avx2_table() {
  kernels t;
  t.level = simd_level::avx2;
  t.features = {true, false, false};
  t.find = find_simd_avx2;
  t.teddy = teddy_candidates_avx2;
  t.kmer = kmer_candidates_bmi2;
  t.lanes = {myers_lanes_avx2, 8};
  t.striped = {myers_striped_avx2, myers_striped_clusters_avx2, false};
  t.blocked = {scan_myers_blocked_avx2, best_ends_blocked_avx2, blocked_stripes_avx2_count};
  t.pieces = find_pieces_avx2;
  t.starts.reqs = leftmost_starts_avx2;
  t.starts.hits = leftmost_starts_avx2;
  t.starts.min_batch = 8;
  t.write_runs = write_run_hits_serial;
  t.pack = dna_pack::pack_avx2;
  return t;
}

template <bool Vbmi>
kernels avx512_table() {
  kernels t;
  t.level = simd_level::avx512;
  t.features = {true, true, Vbmi};
  t.find = find_simd_avx512;
  t.teddy = teddy_candidates_avx512;
  t.kmer = kmer_candidates_bmi2;
  t.lanes = {myers_lanes_avx512, 16};
  t.striped = {myers_striped_avx512<Vbmi>, myers_striped_clusters_avx512<Vbmi>, true};
  t.blocked = {scan_myers_blocked_avx512<Vbmi>, best_ends_blocked_avx512<Vbmi>, blocked_stripes_avx512_count};
  t.pieces = find_pieces_avx512;
  t.starts.reqs = leftmost_starts_avx512bw<Vbmi>;
  t.starts.hits = leftmost_starts_avx512bw<Vbmi>;
  t.starts.min_batch = 16;
  t.starts.eight = leftmost_starts8_avx512;
  t.write_runs = write_run_hits_avx512;
  t.pack = dna_pack::pack_avx2;
  return t;
}

}  // namespace

const kernels& kernels_at(simd_level level) {
  const cpu::features f = cpu::at_level(level);  // throws for a level this CPU lacks
  if (f.avx512) {
    if (f.avx512vbmi) {
      static const kernels t = avx512_table<true>();
      return t;
    }
    static const kernels t = avx512_table<false>();
    return t;
  }
  if (f.avx2) {
    static const kernels t = avx2_table();
    return t;
  }
  static const kernels t = serial_table();
  return t;
}

bool supported(simd_level level) noexcept {
  const cpu::features f = cpu::active();
  return level == simd_level::avx512 ? f.avx512 : level == simd_level::avx2 ? f.avx2 : true;
}

}  // namespace trawl::simd
