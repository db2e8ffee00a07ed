#!/usr/bin/env bash
# gpus.sh TRAWL MKGENOME [LENGTH] — several GPUs of one host. 312 guides x 23 nt, k = 3, both
# strands, over a genome made by trawl-mkgenome (24 records, LENGTH bytes, default 3.1 G):
# end-to-end wall seconds (best of 2, genome in the page cache, output to a file) for gpu:0,
# gpu:0,0 (two workers on one card), and 2, 4, 8 cards as the host has; every run's output
# must be byte-identical to gpu:0's. Prints a markdown table.
#   bench/scale/gpus.sh build/trawl build/bench/trawl-mkgenome
. "$(dirname "$0")/../lib.sh"
bench_usage 2 "gpus.sh TRAWL MKGENOME [LENGTH]" "$@"
set -euo pipefail
trawl=$1 mk=$2 len=${3:-3100000000}
dir=${TMPDIR:-/tmp}/trawl-scale
. "$(dirname "$0")/inputs.sh"
scale_inputs "$dir" "$mk" "$len"
ngpu=$(nvidia-smi -L | wc -l)
lists="0 0,0"
[ "$ngpu" -ge 2 ] && lists="$lists 0,1"
[ "$ngpu" -ge 4 ] && lists="$lists 0,1,2,3"
[ "$ngpu" -ge 8 ] && lists="$lists 0,1,2,3,4,5,6,7"
echo "$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1) x $ngpu, $(nproc) CPU threads; genome $len bytes, 312 guides x 23 nt, -k 3 --both-strands"
echo
echo "| --device | s | speedup over gpu:0 | efficiency | output = gpu:0 |"
echo "|---|---|---|---|---|"
t1=""
for l in $lists; do
  best=""
  for _ in 1 2; do
    s=$(date +%s.%N)
    "$trawl" search -k 3 --both-strands -f "$guides" "$genome" --device "gpu:$l" >"$dir/out-$l.tsv"
    e=$(date +%s.%N)
    best=$(python3 -c "print(min(float('${best:-1e9}'), $e - $s))")
  done
  t1=${t1:-$best}
  n=$(python3 -c "print(len('$l'.split(',')))")
  same=$(cmp -s "$dir/out-0.tsv" "$dir/out-$l.tsv" && echo yes || echo NO)
  python3 -c "
t1, t, n = $t1, $best, $n
print('| gpu:$l | %.2f | %.2f | %s | $same |' % (t, t1 / t, '%.0f %%' % (100 * t1 / t / n) if '$l' != '0,0' else '-'))"
done
echo
echo "hits: $(wc -l <"$dir/out-0.tsv")"
