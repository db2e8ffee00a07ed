#!/usr/bin/env bash
# fuzz.sh [BUILD_DIR] [SECONDS] — runs every libFuzzer target of a TRAWL_FUZZ=ON build for
# SECONDS each (default 30, as the test command runs them; as many side by side as there are
# cores, or TRAWL_FUZZ_JOBS), growing a corpus per target under
# BUILD_DIR/fuzz/corpus from the seeds the build wrote. A crash, a hang over 10 s, one
# allocation over 1 GiB or more than 2 GiB of memory in all fails the run; libFuzzer leaves
# the input as BUILD_DIR/fuzz/crash-* (make it a regression test: copy it to
# fuzz/regressions/<target without fuzz_>-<what>). A longer run:
# scripts/fuzz.sh build-fuzz 3600.
#
#   CC=clang CXX=clang++ cmake -S . -B build-fuzz -DTRAWL_FUZZ=ON -DTRAWL_CUDA=OFF \
#       -DCMAKE_BUILD_TYPE=RelWithDebInfo && cmake --build build-fuzz -j
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build-fuzz}
secs=${2:-30}
dir=$(cd "$build/fuzz" && pwd)  # absolute: a target may change its working directory (fuzz_cli)
jobs=${TRAWL_FUZZ_JOBS:-$(nproc)}  # targets fuzzed side by side, one core each
[[ "$jobs" =~ ^[1-9][0-9]*$ ]] || jobs=1

# fuzz_one TARGET: its regressions, then SECONDS of fuzzing; its report on stdout/stderr
fuzz_one() {
  local target=$1
  local seeds=$dir/seeds/${target#fuzz_} corpus=$dir/corpus/${target#fuzz_} log=$dir/$target.log
  mkdir -p "$corpus"
  [ -d "$seeds" ] && cp -n "$seeds"/* "$corpus"/ 2>/dev/null || true
  # Inputs that once failed (fuzz/regressions/<target without fuzz_>-*) run first, as tests.
  local regress=("$PWD"/fuzz/regressions/"${target#fuzz_}"-*)
  if [ -e "${regress[0]}" ] && ! "$dir/$target" "${regress[@]}" >"$log" 2>&1; then
    echo "fuzz: $target FAILED on a regression input (see $log)" >&2
    return 1
  fi
  if UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} "$dir/$target" "$corpus" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -malloc_limit_mb=1024 -max_len=65536 \
       -artifact_prefix="$dir/crash-$target-" -print_final_stats=1 >"$log" 2>&1; then
    echo "fuzz: $target: $(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}') runs in ${secs} s, no finding"
    return 0
  fi
  echo "fuzz: $target FAILED (see $log):" >&2
  grep -E 'runtime error|ERROR|SUMMARY|deadly|Test unit written|^ +#[0-9]+ .*/(src|apps|fuzz|include)/' "$log" | head -16 >&2 || true
  # the input itself, small enough to travel in a CI log: base64 -d | gunzip > FILE
  local crash enc
  for crash in "$dir/crash-$target-"*; do
    [ -f "$crash" ] || continue
    enc=$(gzip -9c "$crash" | base64 -w 0)
    if [ ${#enc} -le 12000 ]; then echo "fuzz: $(basename "$crash") (gzip, base64): $enc" >&2; fi
  done
  return 1
}

targets=(fuzz_records fuzz_streams fuzz_search fuzz_patterns fuzz_index fuzz_cli)
trap 'kill $(jobs -p) 2>/dev/null || true' EXIT
for target in "${targets[@]}"; do
  rm -f "$dir/$target.status"
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  (if fuzz_one "$target" >"$dir/$target.report" 2>&1; then echo 0; else echo 1; fi >"$dir/$target.status") &
done
wait
status=0
for target in "${targets[@]}"; do  # the reports in a fixed order
  cat "$dir/$target.report"
  [ "$(cat "$dir/$target.status" 2>/dev/null)" = 0 ] || status=1
done
exit $status
