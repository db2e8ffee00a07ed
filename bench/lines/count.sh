#!/usr/bin/env bash
# bench/lines/count.sh TRAWL MKGENOME KJV.txt OUT.csv [MB] — grep's -c (lines with a hit) against
# --count-matches (hits) on the same file, which needs no line at all: one-line DNA (a genome
# from trawl-mkgenome without headers and line breaks) and the KJV's lines (the text repeated),
# MB megabytes each (default 1024), at 1, 4 and all threads, exact and -k 1; best of RUNS
# (default 7) each, the two modes alternating, the file in the page cache. One CSV row per
# cell: the ratio -c / --count-matches.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 4 "count.sh TRAWL MKGENOME KJV.txt OUT.csv [MB]" "$@"
t=$(realpath "$1") mk=$(realpath "$2") kjv=$(realpath "$3") out=$4 mb=${5:-1024}
"$mk" --length $((mb * 1000000)) --records 1 --seed 7 | grep -v '>' | tr -d '\n' >"$work/dna.txt"
while [ "$(stat -c %s "$work/kjv.txt" 2>/dev/null || echo 0)" -lt $((mb * 1000000)) ]; do cat "$kjv" >>"$work/kjv.txt"; done
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
build=${TRAWL_BUILD:-$("$t" --version | head -1)}  # TRAWL_BUILD: the commit, for the record
runs=${RUNS:-7}  # RUNS: timed runs of each mode per cell, the two modes alternating
seconds() {  # wall seconds of one trawl ARGS...
  local s e
  s=$(date +%s.%N); "$t" "$@" >/dev/null || [ $? = 1 ]; e=$(date +%s.%N)
  python3 -c "print($e - $s)"
}
echo "input,threads,k,count_s,count_matches_s,ratio,pattern,build,cpu,cores,mb" >"$out"
for input in dna kjv; do
  pat=ACGTACGTAC; [ $input = kjv ] && pat=Jerusalem
  cat "$work/$input.txt" >/dev/null
  for j in 1 4 "$(nproc)"; do
    for k in 0 1; do
      c=999 m=999
      for _ in $(seq "$runs"); do  # interleaved, so that a slow spell of the host hits both
        c=$(python3 -c "print(min($c, $(seconds search -j "$j" -k $k -c "$pat" "$work/$input.txt")))")
        m=$(python3 -c "print(min($m, $(seconds search -j "$j" -k $k --count-matches "$pat" "$work/$input.txt")))")
      done
      c=$(python3 -c "print(f'{$c:.4f}')") m=$(python3 -c "print(f'{$m:.4f}')")
      r=$(python3 -c "print(f'{$c / $m:.3f}')")
      echo "$input,$j,$k,$c,$m,$r,$pat,\"$build\",\"$cpu\",$(nproc),$mb" >>"$out"
      echo "count: $input -j $j -k $k: -c ${c}s --count-matches ${m}s ratio $r" >&2
    done
  done
done
