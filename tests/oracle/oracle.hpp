// oracle.hpp — naive reference implementations for the tests. They share no code with the
// library's engines and are written to be obviously right, not fast.
#pragma once

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <numeric>
#include <random>
#include <string>
#include <string_view>
#include <vector>

namespace oracle {

/// Every start of `p` in `t`, overlapping included, by comparing at every position.
inline std::vector<std::uint64_t> naive_find(std::string_view t, std::string_view p, bool fold = false) {
  std::vector<std::uint64_t> out;
  auto low = [&](unsigned char c) -> unsigned char {
    return (fold && c >= 'A' && c <= 'Z') ? static_cast<unsigned char>(c + 32) : c;
  };
  if (p.empty() || p.size() > t.size()) return out;
  for (std::size_t i = 0; i + p.size() <= t.size(); ++i) {
    bool ok = true;
    for (std::size_t j = 0; j < p.size() && ok; ++j)
      ok = low(static_cast<unsigned char>(t[i + j])) == low(static_cast<unsigned char>(p[j]));
    if (ok) out.push_back(i);
  }
  return out;
}

/// grep -w: the bytes around text[s, e) are not letters, digits, '_' or bytes >= 0x80 (or
/// are past the text's ends).
inline bool whole_word(std::string_view t, std::size_t s, std::size_t e) {
  auto word = [](unsigned char c) { return std::isalnum(c) || c == '_' || c >= 0x80; };
  return (s == 0 || !word(static_cast<unsigned char>(t[s - 1]))) &&
         (e == t.size() || !word(static_cast<unsigned char>(t[e])));
}

/// grep -x: text[s, e) is a whole line.
inline bool whole_line(std::string_view t, std::size_t s, std::size_t e) {
  return (s == 0 || t[s - 1] == '\n') && (e == t.size() || t[e] == '\n');
}

/// Reverse complement of a DNA string over A, C, G, T in either case (case kept); any other
/// byte is kept as it is.
inline std::string reverse_complement(std::string_view s) {
  std::string r;
  for (auto it = s.rbegin(); it != s.rend(); ++it) {
    const char c = *it;
    switch (c) {
      case 'A': r.push_back('T'); break;
      case 'T': r.push_back('A'); break;
      case 'C': r.push_back('G'); break;
      case 'G': r.push_back('C'); break;
      case 'a': r.push_back('t'); break;
      case 't': r.push_back('a'); break;
      case 'c': r.push_back('g'); break;
      case 'g': r.push_back('c'); break;
      default: r.push_back(c);
    }
  }
  return r;
}

/// Full edit distance (Levenshtein, unit costs) between a and b, O(|a|·|b|).
inline std::uint32_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::uint32_t> prev(b.size() + 1), cur(b.size() + 1);
  std::iota(prev.begin(), prev.end(), 0u);
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = static_cast<std::uint32_t>(i);
    for (std::size_t j = 1; j <= b.size(); ++j) {
      std::uint32_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0u : 1u);
      cur[j] = std::min({sub, prev[j] + 1, cur[j - 1] + 1});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

/// Sellers' DP: score[j] = min over z of ED(p, t[z..j]) for every end j (inclusive).
inline std::vector<std::uint32_t> end_scores(std::string_view p, std::string_view t) {
  std::vector<std::uint32_t> col(p.size() + 1), score(t.size());
  std::iota(col.begin(), col.end(), 0u);
  for (std::size_t j = 0; j < t.size(); ++j) {
    std::uint32_t diag = col[0];  // row 0 stays 0: a match may start anywhere
    for (std::size_t i = 1; i <= p.size(); ++i) {
      std::uint32_t up = col[i];
      std::uint32_t v = std::min({diag + (p[i - 1] == t[j] ? 0u : 1u), up + 1, col[i - 1] + 1});
      diag = up;
      col[i] = v;
    }
    score[j] = col[p.size()];
  }
  return score;
}

/// Plain suffix array by sorting suffixes (O(n² log n) worst case; for small texts).
inline std::vector<std::uint64_t> suffix_array(std::string_view t) {
  std::vector<std::uint64_t> sa(t.size());
  std::iota(sa.begin(), sa.end(), 0u);
  std::sort(sa.begin(), sa.end(), [&](std::uint64_t a, std::uint64_t b) { return t.substr(a) < t.substr(b); });
  return sa;
}

/// Random string over the first `sigma` symbols of `alphabet` (or all 256 byte values when empty).
inline std::string random_text(std::mt19937_64& rng, std::size_t n, std::string_view alphabet) {
  std::string s(n, '\0');
  if (alphabet.empty()) {
    std::uniform_int_distribution<int> d(0, 255);
    for (auto& c : s) c = static_cast<char>(d(rng));
  } else {
    std::uniform_int_distribution<std::size_t> d(0, alphabet.size() - 1);
    for (auto& c : s) c = alphabet[d(rng)];
  }
  return s;
}

/// One FASTA/FASTQ record: its id (the header up to the first blank) and its sequence.
struct record {
  std::string name, seq;
  bool operator==(const record&) const = default;
};

/// The records of a whole FASTA (fasta = true) or FASTQ input, line by line: '\r' before a
/// '\n' is dropped; FASTA sequences are their lines joined (blank lines skipped), up to the
/// next line starting with '>'; FASTQ records are four lines. No error checks.
inline std::vector<record> parse_records(std::string_view in, bool fasta) {
  std::vector<std::string> lines;
  std::string cur;
  for (char c : in) {
    if (c == '\n') {
      if (!cur.empty() && cur.back() == '\r') cur.pop_back();
      lines.push_back(cur);
      cur.clear();
    } else {
      cur.push_back(c);
    }
  }
  if (!cur.empty()) lines.push_back(cur);
  auto id = [](const std::string& header) { return header.substr(1, header.find_first_of(" \t") == std::string::npos ? std::string::npos : header.find_first_of(" \t") - 1); };
  std::vector<record> out;
  std::size_t i = 0;
  while (i < lines.size() && lines[i].empty()) ++i;
  while (i < lines.size()) {
    if (fasta) {
      record r{id(lines[i]), ""};
      for (++i; i < lines.size() && (lines[i].empty() || lines[i][0] != '>'); ++i) {
        for (char c : lines[i])
          if (c != '\r') r.seq.push_back(c);
      }
      out.push_back(r);
    } else {
      out.push_back(record{id(lines[i]), lines[i + 1]});
      i += 4;
      while (i < lines.size() && lines[i].empty()) ++i;
    }
  }
  return out;
}

/// The text a two-bit packed DNA buffer stands for (src/common/dna_pack.hpp's format): byte j
/// is "ACTG"[bits 2(j % 4) .. of packed byte j / 4], then each run (pos, len, byte, lower)
/// makes its bytes lower case or `byte`. Runs are given as tuples so that the oracle needs
/// none of the library's types.
struct packed_run {
  std::uint64_t pos, len;
  unsigned char byte;
  bool lower;
};
inline std::string unpack_dna(const std::uint8_t* packed, std::size_t n, const std::vector<packed_run>& runs,
                              std::uint64_t pos0 = 0) {
  std::string out(n, '?');
  for (std::size_t j = 0; j < n; ++j) out[j] = "ACTG"[(packed[j / 4] >> (2 * (j % 4))) & 3];
  for (const packed_run& r : runs)
    for (std::uint64_t j = r.pos - pos0; j < r.pos - pos0 + r.len; ++j)
      out.at(j) = r.lower ? static_cast<char>(std::tolower(static_cast<unsigned char>(out.at(j)))) : static_cast<char>(r.byte);
  return out;
}

}  // namespace oracle
