// patterns.hpp — reading pattern files for the CLI (`-f FILE`).
#pragma once

#include <string>
#include <vector>

namespace trawl::cli {

/// Patterns of FILE: one per line (empty lines skipped, CR stripped), or one per record when
/// the file is FASTA/FASTQ (primers, guides), appended to `patterns`, and their names to
/// `names`: the record's id, or the pattern itself for a line. Throws trawl::error on an
/// unreadable file, an empty record or a file without patterns.
void read_pattern_file(const std::string& path, std::vector<std::string>& patterns, std::vector<std::string>& names);

}  // namespace trawl::cli
