#!/usr/bin/env bash
# test.sh — the second command: installs what is missing, builds everything (CUDA parts too
# when nvcc is found, the Python package) and runs the whole test suite, the Python package's
# pytest suite included. GPU tests skip visibly without a GPU.
# Then the same suite in an ASan + UBSan build made by clang with the libFuzzer hooks (less the
# GPU and the 1 GiB checks, and a fixed eighth of the heaviest randomized grids:
# tests/common/test_share.hpp), and every fuzz target for 30 s (scripts/fuzz.sh).
# Compiles go through ccache where it is installed (deps.sh installs it), so a second run on the
# same machine, from any clone, rebuilds only what changed. Each stage's time is printed at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh

stages=()
stage_start=$SECONDS
# stage NAME: ends the stage that ran since the last call, under NAME
stage() {
  stages+=("$(printf '%-22s %5d s' "$1" $((SECONDS - stage_start)))")
  stage_start=$SECONDS
}
report() {
  local rc=$?
  echo "== test.sh stage times (exit $rc) =="
  printf '  %s\n' "${stages[@]}"
  printf '  %-22s %5d s\n' total "$SECONDS"
}
trap report EXIT

trawl_install_deps
py=$(trawl_python_env)
stage "dependencies"
# The test build compiles device code for the GPUs the project is tested on (Hopper) only;
# scripts/setup.sh and pip builds keep the default (Hopper SASS + portable PTX).
cmake -S . -B build-test -DCMAKE_BUILD_TYPE=Release -DTRAWL_PYTHON=ON -DPython_EXECUTABLE="$py" \
  -DCMAKE_CUDA_ARCHITECTURES="${TRAWL_TEST_CUDA_ARCHITECTURES:-90-real}" >/dev/null
cmake --build build-test -j"$(nproc)"
stage "build (Release)"
ctest --test-dir build-test --output-on-failure -j"$(nproc)"
stage "ctest (Release)"
scripts/test-python.sh build-test  # pip install . (this build reused), then pytest
stage "python"

# (-O1 with line tables: reports name lines, and the build fits the CI's time on two cores)
CC=clang CXX=clang++ cmake -S . -B build-fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DTRAWL_FUZZ=ON -DTRAWL_CUDA=OFF \
  -DTRAWL_BUILD_BENCH=OFF -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" >/dev/null
cmake --build build-fuzz -j"$(nproc)"
stage "build (sanitized)"
ctest --test-dir build-fuzz --output-on-failure -j"$(nproc)"
stage "ctest (sanitized)"
scripts/fuzz.sh build-fuzz "${TRAWL_FUZZ_SECONDS:-30}"
stage "fuzz"
