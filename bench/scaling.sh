#!/usr/bin/env bash
# scaling.sh TRAWL TEXT PATTERNS_DIR [THREADS] — thread scaling of `trawl search` (exact and
# approximate) on one corpus, and the GPU path against the CPU where a GPU is present.
# Prints a markdown table: wall seconds (best of 3), GB/s of text, speedup over 1 thread,
# and checks that every run reports the same count.
#   bench/scaling.sh build/trawl /work/corpora/dna-256m.txt /work/corpora/patterns 1,2,4,8,16
. "$(dirname "$0")/lib.sh"
bench_usage 3 "scaling.sh TRAWL TEXT PATTERNS_DIR [THREADS]" "$@"
set -euo pipefail
trawl=$1 text=$2 pats=$3 threads=${4:-1,2,4,8,16}
stem=$(basename "$text" .txt)
size=$(stat -L -c %s "$text")
cat "$text" >/dev/null
best() {  # prints "SECONDS COUNT": best wall time of 3 runs, and the count printed
  local b="" out=""
  for _ in 1 2 3; do
    local s e
    s=$(date +%s.%N); out=$("$@"); e=$(date +%s.%N)
    b=$(python3 -c "print(min(float('${b:-1e9}'), $e - $s))")
  done
  echo "$b $out"
}
echo "| search | threads | s | GB/s | speedup | count |"
echo "|---|---|---|---|---|---|"
for spec in "32 0" "8 1" "16 2" "32 2" "32 4" "64 3"; do
  set -- $spec; m=$1 k=$2
  p=$(sed -n 2p "$pats/$stem.$m.txt")
  t1=""; c1=""
  for j in ${threads//,/ }; do
    read -r t c < <(best "$trawl" search --count-matches -j "$j" -k "$k" --device cpu -- "$p" "$text")
    t1=${t1:-$t}; c1=${c1:-$c}
    [ "$c" = "$c1" ] || { echo "count mismatch: $c vs $c1 (m=$m k=$k j=$j)" >&2; exit 1; }
    python3 -c "print(f'| m={$m} k={$k} | {$j} | {$t:.3f} | {$size/$t/1e9:.2f} | {$t1/$t:.1f}× | $c |')"
  done
  if "$trawl" search -q --device gpu ACGT "$text" 2>/dev/null; then
    read -r t c < <(best "$trawl" search --count-matches -k "$k" --device gpu -- "$p" "$text")
    [ "$c" = "$c1" ] || { echo "GPU count mismatch: $c vs $c1 (m=$m k=$k)" >&2; exit 1; }
    python3 -c "print(f'| m={$m} k={$k} | GPU (end to end) | {$t:.3f} | {$size/$t/1e9:.2f} | {$t1/$t:.1f}× | $c |')"
  fi
done
