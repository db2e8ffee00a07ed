#!/usr/bin/env bash
# bench/genome/gpus.sh OUT.csv MKGENOME [LABEL=]GENOME_BENCH [[LABEL=]GENOME_BENCH...] — a genome
# kept on one GPU, two, four and eight (as many as the host has): a 3.1 Gbp genome from
# trawl-mkgenome (24 records) and 312 guides of 20 nt (bench/offtarget/guides.py); each
# trawl_genome_bench (builds in turn) loads it and runs offtarget at 4 mismatches with 1 DNA +
# 1 RNA bulge (--calls 3 --bulges 1), ROUNDS (2) times on each set of GPUs. One CSV row per job
# and run, the record kind genome-gpus of bench/tools/records_table.py: job, device, best_s,
# first_s, found, build, host, command. GENOME (environment): the genome file to use or make.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 3 "gpus.sh OUT.csv MKGENOME [LABEL=]GENOME_BENCH [[LABEL=]GENOME_BENCH...]" "$@"
out=$1 mk=$2
shift 2
g=${GENOME:-/tmp/genome-3100m.fa}
[ -s "$g" ] || "$mk" --length 3100000000 --records 24 --seed 7 >"$g"
python3 "$(dirname "$0")/../offtarget/guides.py" "$g" >"$work/guides.txt"
n=$(nvidia-smi --query-gpu=name --format=csv,noheader | wc -l)
[ "$n" -ge 1 ] || { echo "gpus.sh: no GPU" >&2; exit 2; }
host="$n x $(nvidia-smi --query-gpu=name --format=csv,noheader | head -1), $(nproc) cores"
sets=() ids=0 k=1
while [ "$k" -le "$n" ]; do
  sets+=("gpu:$ids")
  for ((i = $(echo "$ids" | tr ',' '\n' | wc -l); i < 2 * k && i < n; ++i)); do ids+=",$i"; done
  k=$((2 * k))
done
cmd="trawl_genome_bench $(basename "$g") guides.txt --device DEVICE --calls 3 --no-file --bulges 1"
echo "job,device,best_s,first_s,found,build,host,command" >"$out"
for _ in $(seq "${ROUNDS:-2}"); do
  for arg in "$@"; do
    gb=${arg#*=} build=${arg%%=*}
    [ "$gb" != "$arg" ] || build=$(basename "$gb")
    for d in "${sets[@]}"; do
      # rows job,device,best_s,first_s,found: the device as given, its commas unquoted
      "$gb" "$g" "$work/guides.txt" --device "$d" --calls 3 --mismatches 4 --no-file --bulges 1 | tail -n +2 |
        while IFS= read -r line; do
          job=${line%%,*}
          IFS=, read -r best first found <<<"${line#"$job,$d,"}"
          case $job in load | offtarget_all_resident | offtarget_all_bulges_resident)
            echo "$job,\"$d\",$best,$first,$found,$build,\"$host\",\"$cmd\"" >>"$out" ;;
          esac
        done
      last=$(grep -F "offtarget_all_bulges_resident,\"$d\"," "$out" | grep -F ",$build," | tail -1)
      echo "gpus.sh: $build $d bulge job best,first s: $(echo "${last#*\"$d\",}" | cut -d, -f1-2)" >&2
    done
  done
done
