// dna_pack.cpp — the portable DNA packer (dna_pack.hpp): eight bytes a step in a 64-bit word.
#include "common/dna_pack.hpp"

#include "common/dna_pack_runs.hpp"

namespace trawl::dna_pack {

std::size_t pack_serial(const char* text, std::size_t n, std::uint8_t* packed, run* runs, std::size_t cap,
                        std::uint32_t pos0) {
  detail::run_list list(runs, cap, pos0);
  return detail::pack_words(reinterpret_cast<const unsigned char*>(text), 0, n, packed, list) ? list.count() : failed;
}

}  // namespace trawl::dna_pack
