#!/usr/bin/env bash
# bench/genome/run.sh OUT.csv GENOME_BENCH MKGENOME [LABEL=]TRAWL [[LABEL=]TRAWL...] — a genome kept
# loaded against the command line, on one host: a 3.1 Gbp genome from trawl-mkgenome (24
# records) and 312 guides of 20 nt (bench/offtarget/guides.py). trawl_genome_bench times the
# resident trawl::genome (load, then calls: offtarget of one guide and of all, at 4 mismatches,
# search of all at -k 3) on the GPU; each TRAWL then runs `offtarget --mismatches 4` and
# `search -k 3` of all guides on the GPU from the file, best of CLI_CALLS (2) runs, outputs
# compared by md5.
# One CSV row per job: job, build, seconds, first seconds, found, host. DEVICE (environment):
# another device than the GPU (cpu, gpu:1, ...); GENOME: the genome file to use or make;
# TWOBIT=1: the same genome packed into .2bit by the first TRAWL (`trawl pack`), loaded by
# trawl_genome_bench (job genome_load_2bit) and searched by each TRAWL (jobs cli_*_2bit).
# The genome is kept two bits a base in host memory (build `resident`) and, in a second run,
# as bytes (build `resident-bytes`); with DEVICE=cpu trawl_genome_bench makes 3 calls.
# BULGES=B: the resident genome also finds the sites of every guide with B DNA and B RNA
# bulges (job offtarget_all_bulges_resident).
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 4 "run.sh OUT.csv GENOME_BENCH MKGENOME [LABEL=]TRAWL [[LABEL=]TRAWL...]" "$@"
out=$1 gb=$2 mk=$3 dev=${DEVICE:-gpu}
shift 3
g=${GENOME:-/tmp/genome-3100m.fa}
[ -s "$g" ] || "$mk" --length 3100000000 --records 24 --seed 7 >"$g"
python3 "$(dirname "$0")/../offtarget/guides.py" "$g" >"$work/guides.txt"
awk '{print $2}' "$work/guides.txt" >"$work/patterns.txt"
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || echo none)
host="$(lscpu | sed -n 's/^Model name: *//p' | head -1) x$(nproc), $gpu"
echo "job,build,seconds,first_seconds,found,host" >"$out"
calls=5
[ "$dev" != cpu ] || calls=3
for build in resident resident-bytes; do
  bytes=(); [ "$build" = resident ] || bytes=(--bytes)
  [ -z "${BULGES:-}" ] || bytes+=(--bulges "$BULGES")
  "$gb" "$g" "$work/guides.txt" --device "$dev" --calls $calls --mismatches 4 -k 3 --no-file "${bytes[@]}" | tail -n +2 |
    while IFS=, read -r job _ best first found; do echo "genome_$job,$build,$best,$first,$found,\"$host\"" >>"$out"; done
done
inputs=("$g")
if [ "${TWOBIT:-}" = 1 ]; then
  packer=${1#*=}
  "$packer" pack "$g" -o "$work/genome.2bit"
  inputs+=("$work/genome.2bit")
  "$gb" "$work/genome.2bit" "$work/guides.txt" --device "$dev" --calls 1 --mismatches 4 -k 3 --no-file | grep '^load,' |
    while IFS=, read -r _ _ best first_s found; do echo "genome_load_2bit,resident,$best,$first_s,$found,\"$host\"" >>"$out"; done
fi
for arg in "$@"; do
  t=${arg#*=}
  if [ "$t" != "$arg" ]; then name=${arg%%=*}; else name=$("$t" --version | head -1); fi
  for in in "${inputs[@]}"; do
  suffix=""; [ "$in" = "$g" ] || suffix=_2bit
  for job in offtarget search; do
    best=999 first=""
    for _ in $(seq "${CLI_CALLS:-2}"); do
      s=$(date +%s.%N)
      case $job in
        offtarget) "$t" offtarget --device "$dev" --mismatches 4 "$work/guides.txt" "$in" >"$work/$job.out" ;;
        search) "$t" search --device "$dev" -k 3 -f "$work/patterns.txt" "$in" >"$work/$job.out" ;;
      esac
      e=$(date +%s.%N)
      sec=$(python3 -c "print(f'{$e - $s:.3f}')")
      first=${first:-$sec}
      best=$(python3 -c "print(min($best, $sec))")
    done
    found="$(wc -l <"$work/$job.out") lines md5 $(md5sum <"$work/$job.out" | cut -c1-12)"
    echo "cli_$job$suffix,$name,$best,$first,$found,\"$host\"" >>"$out"
    echo "genome run: $job$suffix $name ${best}s $found" >&2
  done
  done
done
