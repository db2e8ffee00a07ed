#!/usr/bin/env bash
# bench/ab/ab.sh NEW_BIN OLD_BIN MKGENOME OUT.csv [MBP] — the same CLI jobs with two trawl
# builds, interleaved, best of 3 wall times each: exact, approximate (CPU and GPU when one is
# present), offtarget (with and without bulges) and the index (build, count, locate), on a
# genome made by trawl-mkgenome (MBP million bases, default 200; 4 records, seed 7), 64 guides
# sampled from it, and a 64 Mbp pangenome for the index. Every output is compared between the builds (md5): a job whose
# outputs differ is marked. One CSV row per job: each build's name (AB_NEW, AB_OLD: commits), host CPU and GPU, job,
# command, best seconds new and old, the ratio, outputs equal.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 4 "ab.sh NEW_BIN OLD_BIN MKGENOME OUT.csv [MBP]" "$@"
new=$(realpath "$1") old=$(realpath "$2") mk=$(realpath "$3") out=$4 mbp=${5:-200}
cd "$work"
"$mk" --length $((mbp * 1000000)) --records 4 --seed 7 >g.fa
python3 - g.fa >guides.txt <<'PY'
import random, sys
seq = "".join(l.strip() for l in open(sys.argv[1]) if not l.startswith(">"))
rng = random.Random(7)
n = 0
while n < 64:
    at = rng.randrange(len(seq) - 23)
    g = seq[at:at + 20]
    if set(g) <= set("ACGT"):
        print(f"g{n} {g}")
        n += 1
PY
cut -d' ' -f2 guides.txt | head -16 | sed 's/$/AGG/' >pats16.txt
cut -d' ' -f2 guides.txt | sed 's/$/AGG/' >pats64.txt
gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1 || true)
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
# the builds' names in the records: AB_NEW and AB_OLD (their commits), else their --version
label_new=${AB_NEW:-$("$new" --version | head -1)} label_old=${AB_OLD:-$("$old" --version | head -1)}
echo "job,command,new_s,old_s,new_over_old,outputs_equal,new_build,old_build,cpu,cores,gpu,mbp" >"$out"
best() {  # best BIN ARGS... -> best of 3 wall seconds; output md5 in $work/md5
  local b=999999 s e t
  for _ in 1 2 3; do
    s=$(date +%s.%N)
    "$@" >o.txt 2>/dev/null || [ $? = 1 ]
    e=$(date +%s.%N)
    t=$(python3 -c "print(f'{$e - $s:.3f}')")
    b=$(python3 -c "print(min($b, $t))")
  done
  md5sum <o.txt | cut -c1-12 >md5
  echo "$b"
}
job() {  # job NAME ARGS... (trawl's arguments)
  local name=$1; shift
  local tn to mn mo
  to=$(best "$old" "$@"); mo=$(cat md5)
  tn=$(best "$new" "$@"); mn=$(cat md5)
  local ratio eq
  ratio=$(python3 -c "print(f'{$tn / max($to, 1e-9):.3f}')")
  eq=$([ "$mn" = "$mo" ] && echo yes || echo NO)
  echo "$name,\"trawl $*\",$tn,$to,$ratio,$eq,\"$label_new\",\"$label_old\",\"$cpu\",$(nproc),\"$gpu\",$mbp" >>"$out"
  echo "ab: $name new ${tn}s old ${to}s ratio $ratio equal $eq" >&2
}
job exact-count search --device cpu --count-matches -f pats16.txt g.fa
job exact-both search --device cpu --both-strands -f pats16.txt g.fa
job approx-cpu-k2 search --device cpu -k 2 --both-strands -f pats16.txt g.fa
job offtarget-cpu offtarget --device cpu --mismatches 4 guides.txt g.fa
job offtarget-cpu-bulges offtarget --device cpu --mismatches 3 --dna-bulges 1 --rna-bulges 1 guides.txt g.fa
if [ -n "$gpu" ]; then
  job approx-gpu-k3 search --device gpu -k 3 --both-strands -f pats64.txt g.fa
  job offtarget-gpu offtarget --device gpu --mismatches 4 guides.txt g.fa
  job offtarget-gpu-bulges offtarget --device gpu --mismatches 3 --dna-bulges 1 --rna-bulges 1 guides.txt g.fa
fi
# the index: a pangenome of 16 haplotypes of 4 Mbp (64 Mbp, repetitive as indexes are meant for)
"$mk" --length 4000000 --haplotypes 16 --seed 7 >pg.fa
"$old" index build pg.fa -o g.thi >/dev/null 2>&1
job index-count index count g.thi ACGT ACGTA GATTACA
job index-locate index locate g.thi ACGTAC GATTACA
job index-search-k2 search --index g.thi -k 2 -f pats16.txt
