#!/usr/bin/env bash
# pack-for-device.sh — copy built binaries and the shared libraries they need that the GPU
# machine lacks into one folder, to pass to the device tool's `carry`.
#
# The GPU machine (Ubuntu 24.04, CUDA 13.0, gtest, benchmark, CLI11, fmt, zlib) has no oneTBB,
# divsufsort, Highway, sdsl or ISA-L, and nothing can be installed there, so build here and carry:
#
#   cmake -S . -B build-cuda -DTRAWL_CUDA=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_STANDARD=17
#   cmake --build build-cuda -j2 --target trawl_cuda_tests trawl_bench_cuda trawl_cli
#   scripts/pack-for-device.sh build-cuda pack [more binaries...]
#
# then run with carry=["pack"] and a command such as
#   export LD_LIBRARY_PATH=$PWD/pack/lib; pack/bin/trawl_cuda_tests
#
# Arguments: BUILD_DIR (default build-cuda), OUT_DIR (default pack; must be git-ignored),
# then extra binaries. Without extras it takes every executable under BUILD_DIR named
# trawl, trawl-mpi, *_tests or trawl_bench_*. Libraries whose name matches LIBS below (override with
# PACK_LIBS='regex') are copied with their symlinks; the glibc/libstdc++ of the target are
# used as is. The folder must stay under the tool's 64 MiB carry limit: the script prints its
# size and fails above 60 MiB.
set -euo pipefail
build=${1:-build-cuda}
out=${2:-pack}
shift $(( $# > 2 ? 2 : $# )) || true
LIBS=${PACK_LIBS:-'libtbb|libdivsufsort|libhwy|libsdsl|libfmt|libisal|libzstd|libhs'}

[ -d "$build" ] || { echo "pack-for-device: no build dir $build" >&2; exit 2; }
rm -rf "$out"
mkdir -p "$out/bin" "$out/lib"

bins=("$@")
if [ ${#bins[@]} -eq 0 ]; then
  while IFS= read -r f; do bins+=("$f"); done < <(find "$build" -type f -perm -u+x \
      \( -name trawl -o -name trawl-mpi -o -name '*_tests' -o -name 'trawl_bench_*' \) -not -path '*/CMakeFiles/*' | sort)
fi
for b in "${bins[@]}"; do
  cp "$b" "$out/bin/"
  ldd "$b" | awk '/=> \//{print $3}' | { grep -E "$LIBS" || true; } | while read -r lib; do
    real=$(readlink -f "$lib")
    cp -n "$real" "$out/lib/" 2>/dev/null || true
    [ "$(basename "$lib")" = "$(basename "$real")" ] || ln -sf "$(basename "$real")" "$out/lib/$(basename "$lib")"
  done
done
strip --strip-unneeded "$out"/bin/* 2>/dev/null || true
size=$(du -sm "$out" | cut -f1)
echo "pack-for-device: $(ls "$out/bin" | wc -l) binaries, $(ls "$out/lib" | wc -l) libs, ${size} MiB in $out"
[ "$size" -le 60 ] || { echo "pack-for-device: $out is over 60 MiB" >&2; exit 1; }
