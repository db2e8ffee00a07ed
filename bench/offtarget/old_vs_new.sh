#!/usr/bin/env bash
# bench/offtarget/old_vs_new.sh BIN_DIR [MBP...] — `trawl offtarget` of two builds in one run:
# BIN_DIR holds trawl (new), trawl-old (the baseline) and trawl-mkgenome. For each genome size
# (default 300 3100 Mbp; `trawl-mkgenome --records 24 --seed 7`, 312 guides of 20 nt sampled
# from it, + NGG, both strands, output written): mismatches <= 4 on the GPU (old and new,
# twice), and with 1 DNA + 1 RNA bulge on the GPU (old and new; old skipped past 1 Gbp) and on
# the CPU. One line per run: binary, device, limits, seconds, sites, md5 of the output.
set -u
B=$(realpath "${1:?bin dir}"); shift
sizes=("$@"); [ ${#sizes[@]} -gt 0 ] || sizes=(300 3100)
echo "# $(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1); $(lscpu | sed -n 's/^Model name: *//p'); $(nproc) CPUs"
run() {  # run BIN DEV GENOME ARGS...
  local bin=$1 dev=$2 g=$3; shift 3
  local s e rc
  s=$(date +%s.%N)
  timeout 300 "$B/$bin" offtarget --device "$dev" "$@" /tmp/ot-guides.txt "$g" >/tmp/ot-out.tsv
  rc=$?
  e=$(date +%s.%N)
  echo "$bin --device $dev $(basename "$g") $*: $(python3 -c "print(round($e - $s, 2))") s rc=$rc" \
       "sites=$(($(wc -l </tmp/ot-out.tsv) - 1)) md5=$(md5sum </tmp/ot-out.tsv | cut -c1-8)"
}
BU="--mismatches 4 --dna-bulges 1 --rna-bulges 1"
for mbp in "${sizes[@]}"; do
  G=/tmp/ot-g$mbp.fa
  [ -s "$G" ] || "$B/trawl-mkgenome" --length $((mbp * 1000000)) --records 24 --seed 7 >"$G"
  python3 "$(dirname "$0")/guides.py" "$G" >/tmp/ot-guides.txt
  for round in 1 2; do run trawl-old gpu "$G" --mismatches 4; run trawl gpu "$G" --mismatches 4; done
  [ "$mbp" -le 1000 ] && run trawl-old gpu "$G" $BU
  run trawl gpu "$G" $BU
  [ "$mbp" -le 1000 ] && { run trawl-old cpu "$G" $BU; run trawl cpu "$G" $BU; run trawl auto "$G" $BU; }
  rm -f "$G"
done
