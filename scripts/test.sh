#!/usr/bin/env bash
# test.sh — the second command: installs what is missing, builds everything (CUDA parts too
# when nvcc is found) and runs the whole test suite. GPU tests skip visibly without a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
trawl_install_deps
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-test -j"$(nproc)"
ctest --test-dir build-test --output-on-failure -j"$(nproc)"
