#!/usr/bin/env bash
# bench/offtarget/run.sh TRAWL MKGENOME OUT [MBP] — `trawl offtarget` on a generated genome:
# 312 guides of 20 nt (sampled from the genome, so that sites exist) + NGG, both strands,
# output written, on the GPU and on the CPU; outputs compared byte for byte (GPU = CPU), and
# the same with 1 DNA + 1 RNA bulge on a 20 Mbp part (the CPU takes long there). Prints one
# line per run: what, seconds, sites. MBP: genome size in Mbp (default 1000).
. "$(dirname "$0")/../lib.sh"
bench_usage 3 "run.sh TRAWL MKGENOME OUT [MBP]" "$@"
set -euo pipefail
T=${1:?trawl} MK=${2:?trawl-mkgenome} OUT=${3:?out dir} MBP=${4:-1000}
mkdir -p "$OUT"
G=/tmp/offtarget-genome.fa
[ -s "$G" ] || "$MK" --length $((MBP * 1000000)) --records 24 --seed 7 >"$G"
python3 "$(dirname "$0")/guides.py" "$G" >/tmp/offtarget-guides.txt
head -c 20000000 "$G" >/tmp/offtarget-small.fa
run() {  # run WHAT GENOME DEVICE ARGS...
  local what=$1 g=$2 dev=$3; shift 3
  local s e
  s=$(date +%s.%N)
  "$T" offtarget --device "$dev" "$@" /tmp/offtarget-guides.txt "$g" >"$OUT/sites-$what-$dev.tsv"
  e=$(date +%s.%N)
  echo "$what --device $dev: $(python3 -c "print(round($e - $s, 2))") s, $(($(wc -l <"$OUT/sites-$what-$dev.tsv") - 1)) sites"
}
echo "# offtarget on $(lscpu | sed -n 's/^Model name: *//p'), $(nproc) CPUs; $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
for dev in gpu cpu; do run "m4-${MBP}Mbp" "$G" $dev --mismatches 4; done
cmp -s "$OUT/sites-m4-${MBP}Mbp-gpu.tsv" "$OUT/sites-m4-${MBP}Mbp-cpu.tsv" && echo "m4: GPU = CPU" || echo "m4: GPU != CPU"
for dev in gpu cpu; do run "m4b1-20Mbp" /tmp/offtarget-small.fa $dev --mismatches 4 --dna-bulges 1 --rna-bulges 1; done
cmp -s "$OUT/sites-m4b1-20Mbp-gpu.tsv" "$OUT/sites-m4b1-20Mbp-cpu.tsv" && echo "m4b1: GPU = CPU" || echo "m4b1: GPU != CPU"
run "m4b1-${MBP}Mbp" "$G" gpu --mismatches 4 --dna-bulges 1 --rna-bulges 1
