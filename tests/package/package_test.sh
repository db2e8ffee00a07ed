#!/usr/bin/env bash
# package_test.sh BUILD_DIR CONSUMER_DIR — install, then configure/build/run the consumer.
set -euo pipefail
build=$1 consumer=$2
tmp=$(mktemp -d /tmp/trawl-pkg-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cmake --install "$build" --prefix "$tmp/prefix" >/dev/null
cmake -S "$consumer" -B "$tmp/build" -DCMAKE_PREFIX_PATH="$tmp/prefix" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$tmp/build" >/dev/null
"$tmp/build/consumer"
