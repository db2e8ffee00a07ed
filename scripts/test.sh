#!/usr/bin/env bash
# test.sh — the second command: installs what is missing, builds everything (CUDA parts too
# when nvcc is found, the Python package) and runs the whole test suite, the Python package's
# pytest suite included. GPU tests skip visibly without a GPU.
# Then the same suite in an ASan + UBSan build made by clang with the libFuzzer hooks (less the
# GPU and the 1 GiB checks, and a fixed eighth of the heaviest randomized grids:
# tests/common/test_share.hpp), and every fuzz target for 30 s (scripts/fuzz.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
trawl_install_deps
py=$(trawl_python_env)
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DTRAWL_PYTHON=ON -DPython_EXECUTABLE="$py" >/dev/null
cmake --build build-test -j"$(nproc)"
ctest --test-dir build-test --output-on-failure -j"$(nproc)"
scripts/test-python.sh build-test  # pip install . (this build reused), then pytest

# (-O1 with line tables: reports name lines, and the build fits the CI's time on two cores)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAWL_FUZZ=ON -DTRAWL_CUDA=OFF \
  -DTRAWL_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
cmake --build build-fuzz -j"$(nproc)"
ctest --test-dir build-fuzz --output-on-failure -j"$(nproc)"
scripts/fuzz.sh build-fuzz "${TRAWL_FUZZ_SECONDS:-30}"
