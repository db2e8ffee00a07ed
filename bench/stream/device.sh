#!/usr/bin/env bash
# device.sh PACK CORPORA_SRC OUT — the streaming pipeline on the lent GPU host, in one call:
# GPU tests, GPU = CPU through the CLI (files, pipes, FASTA), the --device auto cost, and
# bench/stream/run.py on all cores. PACK is scripts/pack-for-device.sh's folder with trawl,
# trawl_old (a baseline build), the test programs and the peers (rg, igzip, pigz, zstd);
# CORPORA_SRC holds kjv.txt.gz and dna-plain.txt.gz (bench/device-corpora.sh rebuilds the
# 256 MiB corpora from them). Logs go to OUT.
. "$(dirname "$0")/../lib.sh"
bench_usage 3 "device.sh PACK CORPORA_SRC OUT" "$@"
set -uo pipefail
pack=$(cd "${1:?pack}" && pwd) src=${2:?corpora src} out=${3:?out}
export LD_LIBRARY_PATH=$pack/lib PATH=$pack/bin:$PATH
T=$pack/bin/trawl
C=/tmp/corpora
mkdir -p "$out" "$C"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader | tee "$out/gpu.txt"
lscpu | grep -E 'Model name|^CPU\(s\)' | tee -a "$out/gpu.txt"
bash "$(dirname "$0")/../device-corpora.sh" "$src" "$C" >/dev/null 2>&1

echo "== GPU tests" | tee "$out/tests.txt"
trawl_cuda_tests 2>&1 | grep -E '^\[  (PASSED|FAILED|SKIPPED) |tests? ran|FAILED' | tee -a "$out/tests.txt"

echo "== GPU = CPU through the CLI" | tee "$out/cli.txt"
python3 -c "
import random
r = random.Random(1)
for c in range(4):
    print('>chr%d' % c); s = ''.join(r.choice('ACGT') for _ in range(2000000))
    for i in range(0, len(s), 60): print(s[i:i+60])
" >/tmp/g.fa
head -c 20000 "$C/dna-plain.txt" | fold -w 20 | head -300 >/tmp/guides.txt
tr -d '\n' </tmp/g.fa | tr -d '>chr0123' | head -c 3000000 >/tmp/plain.txt
for args in "-k 2 GATTACAGATTACAGG" "-k 3 --both-strands -f /tmp/guides.txt" "-k 1 --all-ends ACGTACGTAC" "ACGTACGTAC" \
            "--iupac ACGTNNACGT" "-k 2 --hamming ACGTACGTAC" "-k 4 ACGTTGCA" "-k 2 --align -e GATTACA -e TTGCAAC"; do
  for f in /tmp/g.fa /tmp/plain.txt; do
    $T search --device cpu $args $f >/tmp/cpu.out
    $T search --device gpu $args $f >/tmp/gpu.out
    cat $f | $T search --device gpu $args - | sed "s|(standard input)|$f|" >/tmp/gpu-pipe.out
    cat $f | $T search --device gpu --chunk-size 65536 $args - | sed "s|(standard input)|$f|" >/tmp/gpu-small.out
    $T search --device gpu:0,0 $args $f >/tmp/gpu2.out
    cat $f | $T search --device gpu:0,0 --chunk-size 65536 $args - | sed "s|(standard input)|$f|" >/tmp/gpu2-small.out
    if cmp -s /tmp/cpu.out /tmp/gpu.out && cmp -s /tmp/cpu.out /tmp/gpu-pipe.out && cmp -s /tmp/cpu.out /tmp/gpu-small.out &&
       cmp -s /tmp/cpu.out /tmp/gpu2.out && cmp -s /tmp/cpu.out /tmp/gpu2-small.out; then
      r=same; else r=DIFFERENT; fi
    echo "$r: $(wc -l </tmp/cpu.out) hits: $args $f (gpu and gpu:0,0: file, pipe, 64 KiB chunks)" | tee -a "$out/cli.txt"
  done
done

echo "== --device auto on one 23-nt pattern, -k 3, 256 MiB DNA (s, best of 3)" | tee "$out/auto.txt"
p=$(head -c 1000023 "$C/dna-plain.txt" | tail -c 23)
for dev in cpu auto gpu; do
  for j in 16 1; do
    best=9999
    for _ in 1 2 3; do
      s=$(date +%s.%N); $T search --count-matches -j $j --device $dev -k 3 "$p" "$C/dna-256m.txt" >/dev/null; e=$(date +%s.%N)
      best=$(python3 -c "print(min($best, $e - $s))")
    done
    echo "device $dev -j $j: $best" | tee -a "$out/auto.txt"
  done
done

echo "== GPU end to end from a mapped 1 GiB file, through the stream scheduler" | tee "$out/e2e.txt"
trawl_bench_cuda --sections 5 --file /tmp/e2e.txt --keep-file 2>&1 | tail -14 | tee -a "$out/e2e.txt"
p32=$(head -c 4000032 /tmp/e2e.txt | tail -c 32)
for args in "--count-matches $p32" "--count-matches -k 2 $p32"; do
  for dev in gpu cpu; do
    best=9999
    for _ in 1 2 3; do
      s=$(date +%s.%N); n=$($T search --device $dev $args /tmp/e2e.txt); e=$(date +%s.%N)
      best=$(python3 -c "print(min($best, $e - $s))")
    done
    echo "trawl search --device $dev $args: $best s, $n hits, $(python3 -c "print(round($(stat -c %s /tmp/e2e.txt) / $best / 1e9, 1))") GB/s" | tee -a "$out/e2e.txt"
  done
done
echo "== 312 guides x 23 nt, k = 3, both strands, over a generated genome: one worker against gpu:0,0" | tee -a "$out/e2e.txt"
python3 -c "
import random
r = random.Random(3)
a = 'ACGT'
with open('/tmp/guides312.txt', 'w') as f:
    for _ in range(312): f.write(''.join(r.choice(a) for _ in range(23)) + '\n')
"
genome=/tmp/e2e.txt  # 1 GiB of random DNA (trawl_bench_cuda)
for dev in gpu gpu:0,0 gpu gpu:0,0; do
  s=$(date +%s.%N); n=$($T search --device $dev --count-matches -k 3 --both-strands -f /tmp/guides312.txt $genome); e=$(date +%s.%N)
  echo "--device $dev: $(python3 -c "print(round($e - $s, 3))") s, $n hits" | tee -a "$out/e2e.txt"
done
[ "${BENCH:-0}" = 1 ] || exit 0

echo "== stream bench" | tee "$out/bench.txt"
python3 "$(dirname "$0")/run.py" --trawl "$T" --baseline "$pack/bin/trawl_old" --corpora "$C" --threads "$(nproc)" \
  --reps 3 --tmp /tmp --out "$out/stream.md" >>"$out/bench.txt" 2>&1
echo "== RSS of a 4 GiB pipe by threads" | tee -a "$out/bench.txt"
for j in 1 4 16; do
  /usr/bin/time -f "-j $j: %e s, %M KB" bash -c "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat $C/kjv-256m.txt; done | $T search -j $j --count-matches -k 1 'mercy endureth' - >/dev/null" 2>&1 | tee -a "$out/bench.txt"
done
