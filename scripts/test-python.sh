#!/usr/bin/env bash
# test-python.sh BUILD_DIR — the Python package's tests. pip installs the package from this
# clone as a user would (`pip install .`, reusing BUILD_DIR's configured build instead of
# compiling the library again), moves the installed package to another prefix, and runs the
# pytest suite (tests/python) against the moved copy, with the CLI of the same build.
set -euo pipefail
cd "$(dirname "$0")/.."
build=$(realpath "$1")
repo=$PWD
. scripts/deps.sh
py=$(trawl_python_env)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# the same options BUILD_DIR was configured with, so nothing but the package is built
CMAKE_GENERATOR="Unix Makefiles" "$py" -m pip install -q --no-build-isolation --no-deps -C build-dir="$build" \
  -C cmake.define.TRAWL_BUILD_TESTS=ON -C cmake.define.TRAWL_BUILD_BENCH=ON -C cmake.define.TRAWL_MPI=ON \
  --target "$tmp/site" .
mv "$tmp/site" "$tmp/moved"
cd "$tmp"
PYTHONPATH="$tmp/moved" TRAWL_CLI="$build/trawl" "$py" -m pytest -q -p no:cacheprovider "$repo/tests/python"
