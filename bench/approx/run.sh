#!/usr/bin/env bash
# run.sh — approximate-search benchmark: trawl's engines (single thread and all threads) vs
# edlib (EDLIB_MODE_HW, one pattern over the whole text prefix), ugrep -Z and tre-agrep, on
# the corpora made by ../shared/data/make-corpora.sh. Prints markdown tables (bench/approx/report.py
# arranges them); their figures go into bench/records/approx-*-<commit>-<machine>.csv.
#
#   bench/approx/run.sh [BUILD_DIR] [CORPORA_DIR]
#
# Environment: ENGINES (default auto,myers-simd,myers-word,myers-blocked), REPS (each trawl
# cell is the fastest of REPS runs, default 3: shared machines are noisy).
#
# Last: `trawl best` (both engines, one and all threads) against edlib on rand01-4m.txt.
# Sizes are chosen for a small shared machine: trawl scans the full 256 MiB corpora, edlib
# a 32 MiB prefix, ugrep / tre-agrep an 8 MiB prefix (each run capped at 60 s), the
# many-pattern run an 8 MiB prefix (edlib timed on 20 of the 1000 patterns, extrapolated).
. "$(dirname "$0")/../lib.sh"
bench_usage 0 "run.sh [BUILD_DIR] [CORPORA_DIR]" "$@"
set -euo pipefail
build=${1:-build-approx}
corpora=${2:-/work/corpora}
bench=$build/bench/approx/bench_approx
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "# machine: $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) cores; $(date -u +%Y-%m-%d)"
for corpus in dna-256m kjv-256m; do
  text=$corpora/$corpus.txt
  [ -f "$text" ] || { echo "missing $text"; continue; }
  echo
  echo "## $corpus: trawl (full file) and edlib (32 MiB prefix)"
  many=1000
  [ "$corpus" = kjv-256m ] && many=0
  "$bench" --text "$text" --patterns "$corpora/patterns/$corpus" --m 8,16,32,64,128,1024 --k 0,1,2,3,4 \
    --engines "${ENGINES:-auto,myers-simd,myers-word,myers-blocked}" --reps "${REPS:-3}" \
    --peer-prefix $((32 << 20)) --many $many
  echo
  echo "## $corpus: ugrep -Z and tre-agrep (8 MiB prefix, 60 s cap; seconds, matching lines)"
  head -c $((8 << 20)) "$text" > "$tmp/prefix.txt"
  echo "| tool | m | k | s | MB/s | count |"
  echo "|---|---|---|---|---|---|"
  for m in 8 16 32 64; do
    pat=$(awk -v m=$m 'length($0) == m { print; exit }' "$corpora/patterns/$corpus.$m.txt")
    [ -n "$pat" ] || continue
    for k in 0 1 2 3 4; do
      for tool in ugrep tre-agrep; do
        if ! command -v $tool >/dev/null; then echo "| $tool | $m | $k | not installed (bench/peers.sh) | | |"; continue; fi
        if [ $tool = ugrep ]; then cmd=(ugrep -c -F "-Z$k" -- "$pat" "$tmp/prefix.txt"); else cmd=(tre-agrep -c "-$k" -- "$pat" "$tmp/prefix.txt"); fi
        start=$(date +%s.%N)
        rc=0
        count=$(timeout 60 "${cmd[@]}" 2>/dev/null) || rc=$?
        [ $rc = 124 ] && count="timeout (60 s)"
        [ -n "$count" ] || count=0
        end=$(date +%s.%N)
        awk -v t=$tool -v m=$m -v k=$k -v a=$start -v b=$end -v c="$count" -v n=$((8 << 20)) \
          'BEGIN { s = b - a; printf "| %s | %d | %d | %.2f | %.1f | %s |\n", t, m, k, s, n / s / 1e6, c }'
      done
    done
  done
done

text=$corpora/rand01-4m.txt
if [ -f "$text" ]; then
  echo
  echo "## trawl best on rand01-4m.txt (the seed's Table I: X random 0/1 of 32-1024, Y = 2^22)"
  "$bench" --text "$text" --best 32,64,128,256,512,1024
fi
