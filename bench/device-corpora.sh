#!/usr/bin/env bash
# device-corpora.sh SRC DST — rebuilds the big benchmark corpora on a machine that cannot run
# ../shared/data/make-corpora.sh (no Debian packages there), from compressed base texts carried
# along: kjv.txt.gz, dna-plain.txt.gz, rand01-4m.txt.gz, kjv-rep50.txt.xz,
# repetitive-100m.txt.xz (byte-identical copies of make-corpora.sh's outputs) and the pattern files. Same construction as
# make-corpora.sh: the base text repeated and cut to exactly 256 MiB.
. "$(dirname "$0")/lib.sh"
bench_usage 2 "device-corpora.sh SRC DST" "$@"
set -euo pipefail
src=${1:?src} dst=${2:?dst}
mkdir -p "$dst/patterns"
for f in "$src"/*.txt.gz "$src"/*.txt.xz; do
  [ -e "$f" ] || continue
  b=$(basename "${f%.*}")
  [ -f "$dst/$b" ] && continue
  case $f in *.gz) gzip -dc "$f" >"$dst/$b" ;; *.xz) xz -dc "$f" >"$dst/$b" ;; esac
done
python3 - "$dst" <<'PY'
import sys, os
d = sys.argv[1]
for base, out in (("kjv.txt", "kjv-256m.txt"), ("dna-plain.txt", "dna-256m.txt")):
    p = os.path.join(d, out)
    if (os.path.exists(p) and os.path.getsize(p) == 1 << 28) or not os.path.exists(os.path.join(d, base)):
        continue
    b = open(os.path.join(d, base), "rb").read()
    n = 1 << 28
    open(p, "wb").write((b * (n // len(b) + 1))[:n])
PY
cp "$src"/*.[0-9]*.txt "$dst/patterns/" 2>/dev/null || true
