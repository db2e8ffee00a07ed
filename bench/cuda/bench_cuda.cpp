// bench_cuda.cpp — benchmark table of the CUDA backend. Every timed run also checks its
// answer (hit counts against planted occurrences or the public API), so a wrong kernel fails.
//
//   trawl_bench_cuda [--quick] [--genome-gbp 3.1] [--file /tmp/trawl_bench.txt]
//
// Sections: (0) device, device-to-device copy bandwidth; (1) device-resident exact filter;
// (2) device-resident Myers, one pattern m = 16/32/64, k = 4, 1 GiB DNA: GB/s and TCUPS;
// (3) task-parallel: 312 patterns of 23 nt, k = 3, both strands, generated genome;
// (4) best approximate substring |X| = 32..1024 vs |Y| = 2^22 random 0/1, both engines;
// (5) end to end from a file in the page cache through gpu::search_sequence vs pinned and
// pageable H2D bandwidth measured in the same run.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api/backend.hpp"
#include "common/check.cuh"
#include "dispatch/plans.cuh"
#include "gpu/gpu_internal.hpp"
#include "kernels/launch.cuh"
#include "trawl/gpu.hpp"

using namespace trawl;
using clk = std::chrono::steady_clock;

/// Fills d[0, n) with random symbols of `alphabet` on the device (bench_gen.cu).
void generate(std::uint8_t* d, std::size_t n, std::uint64_t seed, const std::string& alphabet);

namespace {

struct timer {
  cudaEvent_t a, b;
  timer() {
    TRAWL_CUDA_CHECK(cudaEventCreate(&a));
    TRAWL_CUDA_CHECK(cudaEventCreate(&b));
  }
  ~timer() {
    cudaEventDestroy(a);
    cudaEventDestroy(b);
  }
  template <class F>
  double median_ms(int reps, F&& f) {
    std::vector<double> t;
    f();  // warm-up
    TRAWL_CUDA_CHECK(cudaDeviceSynchronize());
    for (int r = 0; r < reps; ++r) {
      TRAWL_CUDA_CHECK(cudaEventRecord(a));
      f();
      TRAWL_CUDA_CHECK(cudaEventRecord(b));
      TRAWL_CUDA_CHECK(cudaEventSynchronize(b));
      float ms = 0;
      TRAWL_CUDA_CHECK(cudaEventElapsedTime(&ms, a, b));
      t.push_back(ms);
    }
    std::sort(t.begin(), t.end());
    return t[t.size() / 2];
  }
};

std::string download(const std::uint8_t* d, std::size_t pos, std::size_t len) {
  std::string s(len, '\0');
  TRAWL_CUDA_CHECK(cudaMemcpy(s.data(), d + pos, len, cudaMemcpyDeviceToHost));
  return s;
}

cuda::approx_plan plan_for(const std::vector<std::string>& pats, int k, bool both) {
  search_options o;
  o.max_errors = k;
  o.both_strands = both;
  auto tasks = gpu::detail::make_tasks(pats, o);
  return gpu::detail::make_approx_plan(tasks, gpu::detail::match_table(o), static_cast<std::uint32_t>(k), false);
}

}  // namespace

int main(int argc, char** argv) try {
  bool quick = false;
  double genome_gbp = 3.1;
  std::string file = "/tmp/trawl_bench.txt";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--quick") quick = true;
    else if (a == "--genome-gbp" && i + 1 < argc) genome_gbp = std::stod(argv[++i]);
    else if (a == "--file" && i + 1 < argc) file = argv[++i];
  }
  const cuda::device_status dev = cuda::query_device(0);
  if (!dev.present) {
    std::printf("no CUDA device\n");
    return 0;
  }
  std::printf("# trawl CUDA bench\ndevice: %s, %d SMs, %.1f GiB\n", dev.name.c_str(), dev.sm_count,
              static_cast<double>(dev.global_memory) / (1u << 30));
  timer tm;
  const std::size_t GiB = std::size_t{1} << 30;
  const std::size_t n = quick ? GiB / 8 : GiB;

  // ---- (0) copy bandwidth ----
  cuda::device_array<std::uint8_t> text(n + 256), scratch(n + 256);
  generate(text.get(), n + 256, 1, "ACGT");
  const double d2d_ms = tm.median_ms(5, [&] { TRAWL_CUDA_CHECK(cudaMemcpy(scratch.get(), text.get(), n, cudaMemcpyDeviceToDevice)); });
  const double d2d = 2.0 * static_cast<double>(n) / (d2d_ms * 1e-3) / 1e9;
  std::printf("d2d copy: %.1f GB/s (read+write)\n", d2d);

  cuda::device_array<cuda::candidate> cand(std::size_t{1} << 24);
  cuda::device_array<unsigned long long> count(1);

  // ---- (1) exact filter / Sunday, device resident ----
  {
    const std::string pat = download(text.get(), n / 3, 32);
    cuda::exact_plan ep;
    ep.patterns = {pat};
    cuda::exact_device_plan dp(ep);
    cuda::text_window w{text.get(), n, 0, n, 0};
    for (auto algo : {cuda::exact_plan::engine::filter, cuda::exact_plan::engine::sunday}) {
      dp.algo = algo;
      const double ms = tm.median_ms(5, [&] {
        TRAWL_CUDA_CHECK(cudaMemsetAsync(count.get(), 0, 8));
        dp.launch(w, cuda::candidate_sink{cand.get(), count.get(), cand.size()}, nullptr);
      });
      unsigned long long c = 0;
      TRAWL_CUDA_CHECK(cudaMemcpy(&c, count.get(), 8, cudaMemcpyDeviceToHost));
      std::printf("exact %-6s m=32 1 pattern: %8.3f ms  %7.1f GB/s  hits=%llu\n",
                  algo == cuda::exact_plan::engine::filter ? "filter" : "sunday", ms,
                  static_cast<double>(n) / (ms * 1e-3) / 1e9, c);
    }
  }

  // ---- (2) Myers, one pattern, device resident ----
  std::printf("\n| engine | m | k | time ms | GB/s | TCUPS | hits |\n|---|---|---|---|---|---|---|\n");
  for (std::uint32_t m : {16u, 32u, 64u, 128u, 256u, 1024u}) {
    for (auto algo : {cuda::approx_plan::engine::tiled, cuda::approx_plan::engine::warp}) {
      if (m > 256 && algo == cuda::approx_plan::engine::tiled) continue;
      if (m < 64 && algo == cuda::approx_plan::engine::warp) continue;
      const std::string pat = download(text.get(), n / 2 + m, m);
      cuda::approx_plan plan = plan_for({pat}, 4, false);
      plan.algo = algo;
      cuda::approx_device_engine eng(plan, 0);
      std::uint64_t hits = 0;
      const double ms = tm.median_ms(quick ? 2 : 5, [&] { hits = eng.scan(text.get(), n, cand.get(), cand.size()); });
      std::printf("| %s | %u | 4 | %.3f | %.1f | %.2f | %llu |\n",
                  algo == cuda::approx_plan::engine::tiled ? "tiled" : "warp", m, ms,
                  static_cast<double>(n) / (ms * 1e-3) / 1e9, static_cast<double>(n) * m / (ms * 1e-3) / 1e12,
                  static_cast<unsigned long long>(hits));
      if (hits == 0) std::printf("ERROR: planted pattern not found\n");
    }
  }

  // ---- (3) task-parallel genome ----
  {
    const std::size_t full = static_cast<std::size_t>(genome_gbp * 1e9);
    const std::size_t part = quick ? full / 100 : full / 10;
    std::mt19937_64 rng(5);
    cuda::device_array<std::uint8_t> g;
    auto run = [&](std::size_t len, double& ms_out) -> std::uint64_t {
      g.reset(len + 256);
      generate(g.get(), len + 256, 77, "ACGT");
      std::vector<std::string> pats;
      for (int i = 0; i < 312; ++i) pats.push_back(download(g.get(), rng() % (len - 23), 23));
      cuda::approx_plan plan = plan_for(pats, 3, true);
      cuda::approx_device_engine eng(plan, 0);
      std::uint64_t hits = 0;
      ms_out = tm.median_ms(1, [&] { hits = eng.scan(g.get(), len, cand.get(), cand.size()); });
      return hits;
    };
    double ms = 0;
    std::uint64_t hits = run(part, ms);
    const double cells = static_cast<double>(part) * 624 * 23;
    std::printf("\ntask-parallel 312x23nt k=3 both strands, %.3f Gbp: %.1f ms (%.2f TCUPS, %llu candidate ends) -> "
                "%.2f s extrapolated to %.1f Gbp\n",
                static_cast<double>(part) / 1e9, ms, cells / (ms * 1e-3) / 1e12, static_cast<unsigned long long>(hits),
                ms * 1e-3 * static_cast<double>(full) / static_cast<double>(part), genome_gbp);
    const double predicted = ms * 1e-3 * static_cast<double>(full) / static_cast<double>(part);
    if (!quick && predicted < 20 && full + 512 * (std::size_t{1} << 20) < dev.global_memory) {
      hits = run(full, ms);
      std::printf("task-parallel full %.2f Gbp: %.3f s (%.2f TCUPS, %llu candidate ends)\n", static_cast<double>(full) / 1e9,
                  ms * 1e-3, static_cast<double>(full) * 624 * 23 / (ms * 1e-3) / 1e12,
                  static_cast<unsigned long long>(hits));
    }
    g.reset(0);
  }

  // ---- (4) best approximate substring ----
  {
    const std::size_t ny = std::size_t{1} << 22;
    cuda::device_array<std::uint8_t> y(ny + 256), x(1024 + 64);
    generate(y.get(), ny + 256, 9, "01");
    generate(x.get(), 1024 + 64, 10, "01");
    cuda::device_array<std::uint32_t> scores(ny);
    std::printf("\n| |X| | wavefront ms | myers ms | distance | check |\n|---|---|---|---|---|\n");
    for (std::uint32_t m : {32u, 64u, 128u, 256u, 512u, 1024u}) {
      const double wf = tm.median_ms(5, [&] { cuda::launch_asm_wavefront(x.get(), m, y.get(), ny, scores.get(), 0, dev.sm_count, nullptr); });
      std::vector<std::uint32_t> s1(ny), s2(ny);
      TRAWL_CUDA_CHECK(cudaMemcpy(s1.data(), scores.get(), ny * 4, cudaMemcpyDeviceToHost));
      // Myers: the plan over the 0/1 alphabet
      const std::string xs = download(x.get(), 0, m);
      cuda::approx_plan plan = plan_for({xs}, static_cast<int>(m), false);
      auto grp = cuda::make_multi_group(plan, {0u});
      std::vector<std::uint8_t> map(plan.code.begin(), plan.code.end());
      auto dmap = cuda::upload(map);
      cuda::approx_common common;
      common.code_map = dmap.get();
      common.sigma = plan.sigma;
      common.k = m;
      common.sm_count = dev.sm_count;
      cuda::text_window w{y.get(), ny, 0, ny, 0};
      const double my = tm.median_ms(5, [&] {
        cuda::launch_myers_warp(grp->view, common, w, cuda::candidate_sink{}, scores.get(), 0, nullptr);
      });
      TRAWL_CUDA_CHECK(cudaMemcpy(s2.data(), scores.get(), ny * 4, cudaMemcpyDeviceToHost));
      const std::uint32_t d = *std::min_element(s1.begin(), s1.end());
      std::printf("| %u | %.3f | %.3f | %u | %s |\n", m, wf, my, d, s1 == s2 ? "engines agree" : "MISMATCH");
    }
  }

  // ---- (5) end to end from a file ----
  {
    const std::size_t fn = quick ? GiB / 4 : GiB;
    {
      std::string chunk(std::size_t{64} << 20, 'A');
      std::mt19937_64 rng(3);
      std::ofstream f(file, std::ios::binary);
      for (std::size_t done = 0; done < fn; done += chunk.size()) {
        for (auto& c : chunk) c = "ACGT"[rng() & 3];
        f.write(chunk.data(), static_cast<std::streamsize>(std::min(chunk.size(), fn - done)));
      }
    }
    const int fd = open(file.c_str(), O_RDONLY);
    struct stat st {};
    fstat(fd, &st);
    const std::size_t len = static_cast<std::size_t>(st.st_size);
    void* map = mmap(nullptr, len, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
    std::string_view seq(static_cast<const char*>(map), len);
    // pinned / pageable H2D
    const std::size_t hb = std::min({std::size_t{256} << 20, n, len});  // scratch holds n bytes (--quick: 128 MiB)
    cuda::pinned_array<std::uint8_t> pin(hb);
    std::memcpy(pin.get(), seq.data(), hb);
    const double pin_ms = tm.median_ms(5, [&] { TRAWL_CUDA_CHECK(cudaMemcpy(scratch.get(), pin.get(), hb, cudaMemcpyHostToDevice)); });
    const double page_ms = tm.median_ms(3, [&] { TRAWL_CUDA_CHECK(cudaMemcpy(scratch.get(), seq.data(), hb, cudaMemcpyHostToDevice)); });
    std::printf("\nH2D: pinned %.1f GB/s, pageable (mapped file) %.1f GB/s\n", static_cast<double>(hb) / (pin_ms * 1e-3) / 1e9,
                static_cast<double>(hb) / (page_ms * 1e-3) / 1e9);
    const std::string p32(seq.substr(len / 2, 32));
    for (int k : {0, 2}) {
      search_options o;
      o.max_errors = k;
      std::uint64_t hits = 0;
      gpu::search_sequence({p32}, seq.substr(0, 1 << 20), o, [](auto) { return true; });  // warm-up
      for (std::size_t chunk : {std::size_t{0}, std::size_t{256} << 20}) {
        gpu::gpu_options g;
        g.chunk_size = chunk;
        const auto t0 = clk::now();
        hits = gpu::search_sequence({p32}, seq, o, [](auto) { return true; }, g);
        const double s = std::chrono::duration<double>(clk::now() - t0).count();
        std::printf("end-to-end %s m=32 over %.2f GiB file, chunk %zu MiB: %.3f s = %.1f GB/s, %llu hits\n",
                    k ? "k=2 " : "exact", static_cast<double>(len) / GiB, (chunk ? chunk : std::size_t{64} << 20) >> 20, s,
                    static_cast<double>(len) / s / 1e9, static_cast<unsigned long long>(hits));
      }
    }
    munmap(map, len);
    close(fd);
    std::remove(file.c_str());
  }
  return 0;
} catch (const std::exception& e) {
  std::fprintf(stderr, "bench failed: %s\n", e.what());
  return 1;
}
