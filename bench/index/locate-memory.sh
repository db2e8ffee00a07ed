#!/usr/bin/env bash
# bench/index/locate-memory.sh OUT.csv [LABEL=]TRAWL [[LABEL=]TRAWL...] — peak memory and time of `index locate`
# and `search --index` when the answer is large: 50 M occurrences (a run of 50,000,000 A's,
# pattern A×10) and a genome from trawl-mkgenome (100 Mbp, pattern AC, about 6 M hits). Each
# trawl builds its own index of each text; best of 2 runs each, output to /dev/null. One CSV row
# per job and trawl (LABEL, e.g. the commit; else its --version): seconds, peak resident MiB,
# hits. MKGENOME (environment) names
# trawl-mkgenome; default: bench/trawl-mkgenome beside the first TRAWL.
set -euo pipefail
. "$(dirname "$0")/../lib.sh"
bench_args 2 "locate-memory.sh OUT.csv [LABEL=]TRAWL [[LABEL=]TRAWL...]" "$@"
out=$1
shift
mk=${MKGENOME:-$(dirname "$(realpath "${1#*=}")")/bench/trawl-mkgenome}
python3 -c "import sys; open(sys.argv[1], 'w').write('A' * 50000000)" "$work/a50m.txt"
"$mk" --length 100000000 --records 4 --seed 11 >"$work/genome.fa"
cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
measure() {  # measure CMD...: "seconds peak_MiB lines", best of 2 by time
  python3 - "$@" <<'PY'
import resource, subprocess, sys, time
best = None
for _ in range(2):
    t = time.perf_counter()
    p = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    lines = sum(chunk.count(b"\n") for chunk in iter(lambda: p.stdout.read(1 << 20), b""))
    rc = p.wait()
    dt = time.perf_counter() - t
    if rc not in (0, 1):
        sys.exit(f"exit {rc}: {sys.argv[1:]}")
    best = dt if best is None else min(best, dt)
print(f"{best:.3f} {resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024:.1f} {lines}")
PY
}
echo "job,trawl,seconds,peak_mib,hits,cpu,cores" >"$out"
n=0
for arg in "$@"; do
  n=$((n + 1))
  t=${arg#*=}
  if [ "$t" != "$arg" ]; then name=${arg%%=*}; else name=$("$t" --version | head -1); fi
  "$t" index build -q "$work/a50m.txt" -o "$work/a$n.thi"
  "$t" index build -q "$work/genome.fa" -o "$work/g$n.thi"
  for job in "locate-a50m" "search-a50m" "locate-genome"; do
    case $job in
      locate-a50m) set -- "$t" index locate "$work/a$n.thi" AAAAAAAAAA ;;
      search-a50m) set -- "$t" search --index "$work/a$n.thi" AAAAAAAAAA ;;
      locate-genome) set -- "$t" index locate "$work/g$n.thi" AC ;;
    esac
    read -r s mib hits < <(measure "$@")
    echo "$job,\"$name\",$s,$mib,$hits,\"$cpu\",$(nproc)" >>"$out"
    echo "locate-memory: $job $name: ${s}s ${mib} MiB $hits hits" >&2
  done
done
