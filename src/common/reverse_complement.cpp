// reverse_complement.cpp — the reverse complement of DNA (search.hpp), for the searches of
// both strands on every device.
#include <string>
#include <string_view>

#include "trawl/search.hpp"

namespace trawl {

std::string reverse_complement(std::string_view dna) {
  std::string out(dna.size(), '\0');
  auto comp = [](char c) -> char {
    switch (c) {
      case 'A': return 'T'; case 'C': return 'G'; case 'G': return 'C'; case 'T': return 'A'; case 'U': return 'A';
      case 'a': return 't'; case 'c': return 'g'; case 'g': return 'c'; case 't': return 'a'; case 'u': return 'a';
      case 'R': return 'Y'; case 'Y': return 'R'; case 'K': return 'M'; case 'M': return 'K';
      case 'B': return 'V'; case 'V': return 'B'; case 'D': return 'H'; case 'H': return 'D';
      case 'r': return 'y'; case 'y': return 'r'; case 'k': return 'm'; case 'm': return 'k';
      case 'b': return 'v'; case 'v': return 'b'; case 'd': return 'h'; case 'h': return 'd';
      default: return c;  // N, S, W and anything else are their own complement
    }
  };
  for (std::size_t i = 0; i < dna.size(); ++i) out[dna.size() - 1 - i] = comp(dna[i]);
  return out;
}

}  // namespace trawl
