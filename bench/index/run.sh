#!/usr/bin/env bash
# run.sh — the Hybrid Index benchmark on the corpora; writes BUILD_DIR/index-<machine>.md
# (Markdown), whose figures go into a bench/records/ CSV (index-locate-*.csv).
#   bench/index/run.sh [BUILD_DIR] [CORPORA_DIR] [THREADS]
# BUILD_DIR holds bench/index/trawl_index_bench (default build-index); CORPORA_DIR is the output
# of shared/data/make-corpora.sh (default /work/corpora); THREADS e.g. 1,2,4,8,16.
# Environment: BUDGET (seconds of serial locate per pattern set, default 20), TEXTS, MAXLEN (fast
# profile, default 32), MAXLEN_SMALL (small profile, default 16), PROFILES (default "fast small").
. "$(dirname "$0")/../lib.sh"
bench_usage 0 "run.sh [BUILD_DIR] [CORPORA_DIR] [THREADS]" "$@"
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
build=${1:-$repo/build-index}
corpora=${2:-/work/corpora}
threads=${3:-1,2,4,8,16}
budget=${BUDGET:-20}
texts=${TEXTS:-kjv.txt kjv-rep50.txt repetitive-100m.txt}
maxlen=${MAXLEN:-32}
maxlen_small=${MAXLEN_SMALL:-16}
profiles=${PROFILES:-fast small}
bin=$build/bench/index/trawl_index_bench
[ -x "$bin" ] || bin=$build/trawl_index_bench
machine=$(hostname -s 2>/dev/null || echo host)
out=${OUT:-$build/index-$machine.md}
log=${LOG:-$build/index-bench.log}   # the bench's stderr (time -v lines, mismatches)
mkdir -p "$(dirname "$out")"
{
  echo "# Hybrid Index benchmark — $(date -u +%Y-%m-%dT%H:%MZ) on $machine"
  echo
  echo '```'
  lscpu | grep -E 'Model name|^CPU\(s\)|Thread|Core|Socket|L2|L3' || true
  free -g | head -2 || true
  echo '```'
  echo
  echo "git $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?'), M = $maxlen (fast) / $maxlen_small (small), serial budget ${budget}s per pattern set, threads $threads"
  echo
} > "$out"
for t in $texts; do
  base=${t%.txt}
  args=()
  for L in 4 8 16 32; do
    f=$corpora/patterns/$base.$L.txt
    [ -f "$f" ] && args+=(--patterns "$f")
  done
  for L in 2 3 4 5 6 7 8 9 10; do args+=(--gen "$L"); done
  for profile in $profiles; do
    extra=(--max-len "$maxlen")
    [ "$profile" = small ] && extra=(--max-len "$maxlen_small" --small --no-sdsl)
    echo "== $t ($profile)" >&2
    /usr/bin/time -f "process peak RSS %M KiB, wall %e s" "$bin" "$corpora/$t" \
      --threads "$threads" --budget "$budget" "${extra[@]}" "${args[@]}" >> "$out" 2>> "$log" || {
        echo "trawl_index_bench failed on $t ($profile), see $log" >&2; exit 1; }
    tail -1 "$log" | sed 's/^/    /' >> "$out"
    echo >> "$out"
  done
done
echo "wrote $out" >&2
