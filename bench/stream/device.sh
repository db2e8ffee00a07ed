#!/usr/bin/env bash
# device.sh PACK CORPORA_SRC OUT — the streaming pipeline on the lent GPU host, in one call:
# GPU tests, GPU = CPU through the CLI (files, pipes, FASTA), the --device auto cost, and
# bench/stream/run.py on all cores. PACK is scripts/pack-for-device.sh's folder with trawl,
# trawl_old (a baseline build), the test programs and the peers (rg, igzip, pigz, zstd);
# CORPORA_SRC holds kjv.txt.gz and dna-plain.txt.gz (bench/device-corpora.sh rebuilds the
# 256 MiB corpora from them). Logs go to OUT.
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
for args in "-k 2 GATTACAGATTACAGG" "-k 3 --both-strands -f /tmp/guides.txt" "-k 1 --all-ends ACGTACGTAC" "ACGTACGTAC" "--iupac ACGTNNACGT"; do
  $T search --device cpu $args /tmp/g.fa >/tmp/cpu.out
  $T search --device gpu $args /tmp/g.fa >/tmp/gpu.out
  cat /tmp/g.fa | $T search --device gpu $args - | sed 's/(standard input)/\/tmp\/g.fa/' >/tmp/gpu-pipe.out
  if cmp -s /tmp/cpu.out /tmp/gpu.out && cmp -s /tmp/cpu.out /tmp/gpu-pipe.out; then r=same; else r=DIFFERENT; fi
  echo "$r: $(wc -l </tmp/cpu.out) hits: $args" | tee -a "$out/cli.txt"
done

echo "== --device auto on one 23-nt pattern, -k 3, 256 MiB DNA (s, best of 3)" | tee "$out/auto.txt"
p=$(head -c 1000023 "$C/dna-plain.txt" | tail -c 23)
for dev in cpu auto gpu; do
  for j in 16 1; do
    best=9999
    for _ in 1 2 3; do
      s=$(date +%s.%N); $T search -c -j $j --device $dev -k 3 "$p" "$C/dna-256m.txt" >/dev/null; e=$(date +%s.%N)
      best=$(python3 -c "print(min($best, $e - $s))")
    done
    echo "device $dev -j $j: $best" | tee -a "$out/auto.txt"
  done
done

echo "== stream bench" | tee "$out/bench.txt"
python3 "$(dirname "$0")/run.py" --trawl "$T" --baseline "$pack/bin/trawl_old" --corpora "$C" --threads "$(nproc)" \
  --reps 3 --tmp /tmp --out "$out/stream.md" >>"$out/bench.txt" 2>&1
echo "== RSS of a 4 GiB pipe by threads" | tee -a "$out/bench.txt"
for j in 1 4 16; do
  /usr/bin/time -f "-j $j: %e s, %M KB" bash -c "for i in 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16; do cat $C/kjv-256m.txt; done | $T search -j $j -c -k 1 'mercy endureth' - >/dev/null" 2>&1 | tee -a "$out/bench.txt"
done
