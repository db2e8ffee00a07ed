#!/usr/bin/env bash
# package_test.sh BUILD_DIR CONSUMER_DIR [CXX_FLAGS] — installs trawl, moves the install to
# another prefix, checks that its CMake files name no path outside it (nor CUDA), then
# configures, builds and runs the consumer against the moved prefix, with CUDA hidden from it.
# CXX_FLAGS: trawl's own (a sanitizer build's library needs its runtime).
set -euo pipefail
build=$1 consumer=$2 flags=${3:-}
tmp=$(mktemp -d /tmp/trawl-pkg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
mv "$tmp/prefix" "$tmp/moved"
if grep -rni -e "$tmp" -e '/usr/' -e '/opt/' -e cuda "$tmp/moved/lib/cmake/trawl"; then
  echo "package_test: the exported CMake files above name a path outside the prefix, or CUDA" >&2
  exit 1
fi
PATH=/usr/bin:/bin CUDA_PATH= CUDAToolkit_ROOT= \
  cmake -S "$consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/moved" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
