#!/usr/bin/env bash
# mpi.sh TRAWL MKGENOME [LENGTH] [RANKS] [ROUNDS] — MPI ranks on one host against one process
# using all its cores: 312 guides x 23 nt, k = 3, both strands, CPU only, over a genome made by
# trawl-mkgenome (24 records, LENGTH bytes, default 300 M), output to a file; wall seconds (best
# of ROUNDS, default 2) for one process (-j = cores) and for mpirun -np R with -j cores/R, R in RANKS (default
# 1,2,4,8,16); every output must equal the single process's. Prints a markdown table.
# trawl-mpi (the MPI build, which TRAWL executes under mpirun) must be beside TRAWL.
#   bench/scale/mpi.sh build/trawl build/bench/trawl-mkgenome 300000000 1,2,4,8,16
. "$(dirname "$0")/../lib.sh"
bench_usage 2 "mpi.sh TRAWL MKGENOME [LENGTH] [RANKS] [ROUNDS]" "$@"
set -euo pipefail
trawl=$1 mk=$2 len=${3:-300000000} ranks=${4:-1,2,4,8,16} rounds=${5:-2}
dir=${TMPDIR:-/tmp}/trawl-mpi
. "$(dirname "$0")/inputs.sh"
scale_inputs "$dir" "$mk" "$len"
cores=$(nproc)
run() {  # run NAME CMD...: best of 2 wall seconds, output to $dir/out-NAME
  local name=$1 best=""; shift
  for _ in $(seq "$rounds"); do
    local s e
    s=$(date +%s.%N); "$@" >"$dir/out-$name"; e=$(date +%s.%N)
    best=$(python3 -c "print(min(float('${best:-1e9}'), $e - $s))")
  done
  echo "$best"
}
args=(search -k 3 --both-strands --device cpu -f "$guides" "$genome")
t1=$(run one "$trawl" "${args[@]}" -j "$cores")
echo "$cores cores; genome $len bytes, 312 guides x 23 nt, -k 3 --both-strands, CPU, best of $rounds"
echo
echo "| run | s | against one process | output = one process |"
echo "|---|---|---|---|"
python3 -c "print('| one process, -j $cores | %.2f | 1.00 | - |' % $t1)"
for r in ${ranks//,/ }; do
  j=$(( cores / r > 0 ? cores / r : 1 ))
  t=$(run "np$r" mpirun --oversubscribe --bind-to none -np "$r" "$trawl" "${args[@]}" -j "$j")
  same=$(cmp -s "$dir/out-one" "$dir/out-np$r" && echo yes || echo NO)
  python3 -c "print('| mpirun -np $r, -j $j | %.2f | %.2f | $same |' % ($t, $t / $t1))"
done
t0=$(run tiny mpirun --oversubscribe -np 2 "$trawl" search x /dev/null || true)
echo
echo "mpirun -np 2 on an empty input (start-up and teardown): $t0 s"
