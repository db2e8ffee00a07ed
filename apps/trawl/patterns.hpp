// patterns.hpp — reading pattern files for the CLI (`-f FILE`).
#pragma once

#include <string>
#include <vector>

namespace trawl::cli {

/// Patterns of FILE: one per line (empty lines skipped, CR stripped), or one per record when
/// the file is FASTA/FASTQ (primers, guides). Throws trawl::error on an unreadable file, an
/// empty record or a file without patterns.
std::vector<std::string> read_pattern_file(const std::string& path);

}  // namespace trawl::cli
