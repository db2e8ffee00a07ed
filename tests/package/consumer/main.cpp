// main.cpp — a project outside trawl that finds it with find_package(trawl) and links trawl::trawl.
#include <trawl/trawl.hpp>
#include <trawl/gpu.hpp>
#include <trawl/index.hpp>

#include <cstdio>

int main() {
  trawl::search_options o;
  o.max_errors = 1;
  auto hits = trawl::search("the quick brown fox", {"quack"}, o);
  std::printf("%zu hits, first at %llu\n", hits.size(), hits.empty() ? 0ull : (unsigned long long)hits[0].start);
  const auto ix = trawl::index::hybrid_index::build("abracadabra abracadabra");
  std::printf("index: %llu occurrences of abra; %d GPU(s)\n", (unsigned long long)ix.count("abra"),
              trawl::gpu::device_count());
  return hits.size() == 1 && ix.count("abra") == 4 ? 0 : 1;
}
