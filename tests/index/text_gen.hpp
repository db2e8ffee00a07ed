// text_gen.hpp — the texts the index tests run on: repetitive collections and Fibonacci words.
#pragma once

#include <random>
#include <string>
#include <string_view>

#include "oracle.hpp"

namespace textgen {

/// The Fibonacci word cut to n bytes: F1 = "b", F2 = "a", F(k) = F(k-1) F(k-2).
inline std::string fibonacci(std::size_t n) {
  std::string a = "a", b = "b";
  while (a.size() < n) {
    std::string c = a + b;
    b = std::move(a);
    a = std::move(c);
  }
  return a.substr(0, n);
}

/// `copies` copies of one random base of length `base_len`, each byte mutated (substituted)
/// with probability `rate`.
inline std::string mutated_copies(std::mt19937_64& rng, std::size_t base_len, std::size_t copies, double rate,
                                  std::string_view alphabet) {
  const std::string base = oracle::random_text(rng, base_len, alphabet);
  std::bernoulli_distribution mut(rate);
  std::uniform_int_distribution<std::size_t> pick(0, alphabet.size() - 1);
  std::string t;
  for (std::size_t c = 0; c < copies; ++c) {
    std::string copy = base;
    for (auto& ch : copy)
      if (mut(rng)) ch = alphabet[pick(rng)];
    t += copy;
  }
  return t;
}

}  // namespace textgen
