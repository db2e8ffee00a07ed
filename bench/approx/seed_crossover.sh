#!/usr/bin/env bash
# bench/approx/seed_crossover.sh TRAWL GENOME.fa GUIDES.fa OUT.csv — where the seed filter
# starts to beat the suffix filter: the first N of the guides (23 nt, k = 3, forward strand),
# N = 1 .. 64, searched one thread (`-j 1 --count-matches`) with each engine forced; best of
# RUNS (default 5), the two engines alternating. plan.hpp's tuning::seed_min_patterns comes
# from this record.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 4 "seed_crossover.sh TRAWL GENOME.fa GUIDES.fa OUT.csv" "$@"
trawl=$1 genome=$2 guides=$3 out=$4 runs=${RUNS:-5}
host="$(lscpu | sed -n 's/^Model name: *//p' | head -1) x$(nproc)"
commit=${TRAWL_COMMIT:-$(git -C "$(dirname "$0")" rev-parse --short HEAD 2>/dev/null || echo unknown)}
echo "patterns,engine,seconds,hits_md5,commit,host" >"$out"
cat "$genome" >/dev/null
for n in 1 2 4 8 12 16 24 32 64; do
  head -$((2 * n)) "$guides" >"$work/g.fa"
  declare -A best=()
  for _ in $(seq "$runs"); do
    for e in myers-seeds myers-suffix; do
      s=$(date +%s%N)
      "$trawl" search -k 3 -j 1 --device cpu --algorithm "$e" --count-matches -f "$work/g.fa" "$genome" >"$work/$e.out" || [ $? = 1 ]
      ms=$(( ($(date +%s%N) - s) / 1000000 ))
      [ -z "${best[$e]:-}" ] || [ "$ms" -lt "${best[$e]}" ] && best[$e]=$ms
    done
  done
  for e in myers-seeds myers-suffix; do
    echo "$n,$e,$(python3 -c "print(${best[$e]} / 1000)"),$(md5sum <"$work/$e.out" | cut -c1-12),$commit,\"$host\"" >>"$out"
  done
  unset best
done
