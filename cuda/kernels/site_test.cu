// cuda/kernels/site_test.cu — the site test of offtarget's candidate ends with bulges
// (site_end_test), one thread per end: the PAM positions the end implies, the PAM's
// mismatches (agents/site_gate.cuh), then the bulge-aware alignment of the guide from the PAM outward
// (src/offtarget/site_rows.hpp, as the host runs it). Ends without a site are dropped; the rest
// go back to the host.
#include "agents/bases.cuh"
#include "agents/emit.cuh"
#include "agents/site_gate.cuh"
#include "common/check.cuh"
#include "kernels/launch.cuh"
#include "offtarget/site_rows.hpp"

namespace trawl::cuda {
namespace {

enum class verdict { none, site, unknown };

constexpr unsigned kThreads = 256;
constexpr unsigned kBlocksPerSm = 8;

/// Whether guide g with PAM p has a site whose PAM starts at window byte ps, read on the
/// reverse strand when `reverse`: unknown when the bytes it reads are not all in the window.
__device__ verdict test_at(const site_test_tasks& t, const text_window& w, std::uint32_t g, std::uint32_t p,
                           bool reverse, long long ps) {
  const pam_fit fit = pam_at(t, w, p, reverse, ps);
  if (fit != pam_fit::fits) return fit == pam_fit::none ? verdict::none : verdict::unknown;
  const long long P = t.pam_offset[p + 1] - t.pam_offset[p];
  const long long n = static_cast<long long>(w.len);
  const std::uint8_t* guide = t.guide_bits + t.guide_offset[g];
  const int m = static_cast<int>(t.guide_offset[g + 1] - t.guide_offset[g]);
  const int far = m + static_cast<int>(t.dna_bulges);  // genome bases an alignment may read
  const bool leftward = t.three_prime == !reverse;      // the protospacer lies left of the PAM
  if (leftward ? ps - far < 0 : ps + P + far > n) return verdict::unknown;
  const auto base = [&](int j) {
    const unsigned b = base_bit(w.data[leftward ? ps - 1 - j : ps + P + j]);
    return reverse ? complement_bit(b) : b;
  };
  const auto c = offtarget::site_rows::best_alignment(
      m, far, [&](int i) { return static_cast<unsigned>(guide[i]); }, base, t.limits[g], static_cast<int>(t.dna_bulges),
      static_cast<int>(t.rna_bulges));
  if (!c.found) return verdict::none;
  return t.max_edits < 0 || c.mismatches + c.dna_bulges + c.rna_bulges <= t.max_edits ? verdict::site : verdict::none;
}

__global__ void site_test_kernel(site_test_tasks t, text_window w, const candidate* in,
                                 const unsigned long long* in_count, std::size_t in_capacity, candidate_sink sink) {
  const unsigned long long total = *in_count < in_capacity ? *in_count : in_capacity;
  for (unsigned long long i = blockIdx.x * static_cast<unsigned long long>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<unsigned long long>(gridDim.x) * blockDim.x) {
    candidate c = in[i];
    const std::uint32_t g = t.guide_of[c.task], p = t.pam_of[c.task];
    const bool reverse = t.reverse[c.task] != 0;
    const long long end = static_cast<long long>(c.pos - w.base) + 1;  // one past the end's byte
    bool site = false, unknown = false;
    pam_starts_of(t, c.task, end, [&](long long ps) {
      const verdict v = test_at(t, w, g, p, reverse, ps);
      site = v == verdict::site;
      unknown = unknown || v == verdict::unknown;
      return !site;
    });
    if (site) c.score |= site_end_test::confirmed;
    if (site || unknown) emit_candidate(sink.out, sink.count, sink.capacity, c.pos, c.task, c.score);
  }
}

}  // namespace

void launch_site_test(const site_test_tasks& tasks, const text_window& w, const candidate* in,
                      const unsigned long long* in_count, std::size_t in_capacity, const candidate_sink& sink,
                      int sm_count, cudaStream_t stream) {
  if (in_capacity == 0) return;
  const unsigned grid = static_cast<unsigned>(sm_count > 0 ? sm_count : 1) * kBlocksPerSm;
  site_test_kernel<<<grid, kThreads, 0, stream>>>(tasks, w, in, in_count, in_capacity, sink);
  TRAWL_CUDA_CHECK_LAUNCH("site_test_kernel");
}

}  // namespace trawl::cuda
