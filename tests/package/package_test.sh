#!/usr/bin/env bash
# package_test.sh BUILD_DIR CONSUMER_DIR [CXX_FLAGS] — install, then configure/build/run the
# consumer. CXX_FLAGS: trawl's own (a sanitizer build's static library needs its runtime).
set -euo pipefail
build=$1 consumer=$2 flags=${3:-}
tmp=$(mktemp -d /tmp/trawl-pkg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="$flags" >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
