#!/usr/bin/env bash
# pangenome-split.sh — the issue's pangenome (HAPS haplotypes of a LEN-bp base, default 64 x
# 50 Mbp: 3.2 Gbp) through the index with the time split: `index info` (the load), one guide
# (load + decode of S''), 312 guides (k = 3, both strands) on the CPU and the GPU, two rounds;
# plain search of the FASTA for the ratio; `index count`/`locate` of two short patterns; then
# trawl_index_bench on pattern sets cut from the base (serial µs/occ, count ÷ locate, 16
# threads). VERSIONS="old new" builds and times pack/bin/trawl-old (and trawl_index_bench-old) too (the baseline in the
# same call); version "text" is pack/bin/trawl with `index build --kernel-text` (S'' kept as
# text in the index; searches only). The plain searches run with version PLAIN_WITH ("new"),
# PLAIN_ROUNDS times (2). Run from a folder with pack/ (scripts/pack-for-device.sh) on the device:
#   VERSIONS="old new" CL_PATTERNS="" BENCH=0 bash bench/index/pangenome-split.sh   (old against new)
#   VERSIONS=new bash bench/index/pangenome-split.sh                       (new, with the bench)
# INDEX_FROM=new: the other versions query the index that version built (same format; list it
# first in VERSIONS). BUILD_ARGS adds to every `index build` (e.g. "-M 26"). SEARCH=0 leaves out the searches (the build and the bench only); SETS="6 16" picks the
# bench's pattern lengths (of 6 7 8 16 23), BUDGET its seconds per serial column.
# Prints one line per run: name, exit status, seconds, peak RSS, output lines and md5.
. "$(dirname "$0")/../lib.sh"
bench_usage 0 "pangenome-split.sh" "$@"
set -u
P=${PACK:-$PWD/pack}; export LD_LIBRARY_PATH=$P/lib
D=/tmp/pgx; mkdir -p $D
echo "$(nvidia-smi 2>/dev/null --query-gpu=name --format=csv,noheader | head -1); $(nproc) threads; $(lscpu | grep 'Model name' | cut -c22-)"
s=$(date +%s.%N); $P/bin/trawl-mkgenome --length ${LEN:-50000000} --haplotypes ${HAPS:-64} --seed 7 > $D/pg.fa; echo "mkgenome $(python3 -c "print(round($(date +%s.%N) - $s, 1))") s"
# 312 guides of 23 nt (half cut from the base, half random) and the bench's pattern sets, cut
# from the first record
python3 - $D/pg.fa $D <<'PY'
import random, sys
seq = []
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        if line.startswith(">"): break
        seq.append(line.strip())
s = "".join(seq); d = sys.argv[2]
r = random.Random(11)
with open(f"{d}/g.txt", "w") as o:
    for i in range(312):
        if i % 2 == 0:
            at = r.randrange(len(s) - 23); print(s[at:at + 23], file=o)
        else: print("".join(r.choice("ACGT") for _ in range(23)), file=o)
r = random.Random(5)
for L, k in ((6, 20), (7, 20), (8, 100), (16, 1000), (23, 1000)):
    with open(f"{d}/pg.{L}.txt", "w") as o:
        for _ in range(k):
            at = r.randrange(len(s) - L); print(s[at:at + L], file=o)
PY
head -1 $D/g.txt > $D/g1.txt

t() { local name=$1; shift; /usr/bin/time -f "%e %M" -o /tmp/tm "$@" > /tmp/o 2>/tmp/e; local rc=$?;
  echo "$name rc=$rc $(tail -1 /tmp/tm | awk '{printf "%s s %.2f GB", $1, $2/1048576}') $(wc -l < /tmp/o) lines $(md5sum < /tmp/o | cut -c1-8)"; [ $rc -le 1 ] || tail -2 /tmp/e; }
for v in ${VERSIONS:-new old}; do
  B=$P/bin/trawl; X=$P/bin/trawl_index_bench; [ $v = old ] && B=$P/bin/trawl-old && X=$P/bin/trawl_index_bench-old
  extra=${BUILD_ARGS:-}; [ $v = text ] && extra="$extra --kernel-text"
  if [ -n "${INDEX_FROM:-}" ] && [ $v != "$INDEX_FROM" ]; then cp $D/$INDEX_FROM.thi $D/$v.thi
  else t "$v build" $B index build -q $extra $D/pg.fa -o $D/$v.thi; fi
  $B index info $D/$v.thi | grep -E "^(n|z|kept_phrases|s2_length|bits_per_char|bytes:FM|bytes:S|bytes:total)\b" | tr '\n' ' '; echo
  [ "${SEARCH:-1}" = 1 ] && for r in 1 2; do
    t "$v info (load)" $B index info $D/$v.thi
    t "$v search cpu 1 guide (load+decode)" $B search --device cpu --index $D/$v.thi -k 3 --both-strands -f $D/g1.txt
    t "$v search cpu --index 312" $B search --device cpu --index $D/$v.thi -k 3 --both-strands -f $D/g.txt
    t "$v search gpu --index 312" $B search --device gpu --index $D/$v.thi -k 3 --both-strands -f $D/g.txt
  done
  cp /tmp/o $D/$v.idx.tsv
  [ "${SEARCH:-1}" = 0 ] || [ $v != "${PLAIN_WITH:-new}" ] || for r in $(seq ${PLAIN_ROUNDS:-2}); do
    t "plain cpu 312" $B search --device cpu -k 3 --both-strands -f $D/g.txt $D/pg.fa
    t "plain gpu 312" $B search --device gpu -k 3 --both-strands -f $D/g.txt $D/pg.fa
  done
  [ $v = text ] || for p in ${CL_PATTERNS-ACGTACGT GATTACA}; do
    t "$v count $p" $B index count $D/$v.thi $p; cat /tmp/o | tr '\n' ' '
    t "$v locate $p" $B index locate $D/$v.thi $p
  done
  [ "${BENCH:-1}" = 1 ] && [ $v != text ] && echo "$v:" &&
    $X $D/g1.txt --load $D/$v.thi --no-sdsl --threads 1,16 --budget ${BUDGET:-5} $(for L in ${SETS:-6 7 8 16 23}; do echo --patterns $D/pg.$L.txt; done)
  [ "$v" = "${INDEX_FROM:-}" ] || rm -f $D/$v.thi
done
