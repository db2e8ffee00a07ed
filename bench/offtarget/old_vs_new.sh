#!/usr/bin/env bash
# bench/offtarget/old_vs_new.sh BIN_DIR OUT.csv [MBP...] — `trawl offtarget` of two builds in one
# run: BIN_DIR holds trawl (new), trawl-old (the baseline) and trawl-mkgenome. For each genome
# size (default 300 3100 Mbp; `trawl-mkgenome --records 24 --seed 7`, 312 guides of 20 nt
# sampled from it, + NGG, both strands, output written): mismatches <= 4 on the GPU, and with
# 1 DNA + 1 RNA bulge on the GPU, the builds interleaved, twice each; up to 1 Gbp also the
# bulge job on the CPU. TWOBIT=1 (environment): the GPU bulge job also from the genome packed
# into .2bit by the new build (`trawl pack`). One CSV row per run: build, device, genome
# (file name), limits, seconds, exit status, sites, md5 of the output, host.
set -u
. "$(dirname "$0")/../lib.sh"
bench_args 2 "old_vs_new.sh BIN_DIR OUT.csv [MBP...]" "$@"
B=$(realpath "$1") out=$2
shift 2
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(300 3100)
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)
host="$(lscpu | sed -n 's/^Model name: *//p' | head -1) x$(nproc), ${gpu:-none}"
echo "build,device,genome,limits,seconds,rc,sites,md5,host" >"$out"
run() {  # run BIN DEV GENOME ARGS...
  local bin=$1 dev=$2 g=$3; shift 3
  local s e rc sec
  s=$(date +%s.%N)
  timeout 300 "$B/$bin" offtarget --device "$dev" "$@" "$work/guides.txt" "$g" >"$work/out.tsv"
  rc=$?
  e=$(date +%s.%N)
  sec=$(python3 -c "print(round($e - $s, 2))")
  echo "$bin,$dev,$(basename "$g"),$*,$sec,$rc,$(($(wc -l <"$work/out.tsv") - 1)),$(md5sum <"$work/out.tsv" | cut -c1-8),\"$host\"" |
    tee -a "$out"
}
BU="--mismatches 4 --dna-bulges 1 --rna-bulges 1"
for mbp in "${sizes[@]}"; do
  G=$work/g$mbp.fa
  "$B/trawl-mkgenome" --length $((mbp * 1000000)) --records 24 --seed 7 >"$G"
  python3 "$(dirname "$0")/guides.py" "$G" >"$work/guides.txt"
  for _ in 1 2; do run trawl-old gpu "$G" --mismatches 4; run trawl gpu "$G" --mismatches 4; done
  # shellcheck disable=SC2086 # BU is a list of options
  for _ in 1 2; do run trawl-old gpu "$G" $BU; run trawl gpu "$G" $BU; done
  if [ "${TWOBIT:-}" = 1 ]; then
    "$B/trawl" pack "$G" -o "$work/g$mbp.2bit"
    # shellcheck disable=SC2086
    for _ in 1 2; do run trawl-old gpu "$work/g$mbp.2bit" $BU; run trawl gpu "$work/g$mbp.2bit" $BU; done
    rm -f "$work/g$mbp.2bit"
  fi
  # shellcheck disable=SC2086
  [ "$mbp" -le 1000 ] && { run trawl-old cpu "$G" $BU; run trawl cpu "$G" $BU; }
  rm -f "$G"
done
