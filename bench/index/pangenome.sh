#!/usr/bin/env bash
# pangenome.sh [BASE_LEN] [HAPLOTYPES] [GUIDES] — approximate search through the Hybrid Index
# against plain search of the same FASTA, on a generated pangenome: HAPLOTYPES haplotypes of a
# random BASE_LEN-bp genome (0.1 % SNPs, 0.01 % indels of 1-3 bp, trawl-mkgenome). Builds the
# index (time, peak memory, bits/char, the kernel's length), then times GUIDES guides of 23 nt
# (half of them cut from the base, so that they have sites), k = 3, both strands: `search
# --index` against `search` of the FASTA, both on the CPU, and compares the outputs byte for
# byte; and one `index count` of the first guide (the load and the FM-index's rebuild, which
# approximate search does not need).
# Prints Markdown. TRAWL and MKGENOME name the binaries (default build/trawl, build/bench/trawl-mkgenome).
# GPU=1 adds the same two searches with --device gpu (the kernel's scan on the GPU).
. "$(dirname "$0")/../lib.sh"
bench_usage 0 "pangenome.sh [BASE_LEN] [HAPLOTYPES] [GUIDES]" "$@"
set -euo pipefail
T=${TRAWL:-build/trawl}
MK=${MKGENOME:-build/bench/trawl-mkgenome}
base=${1:-1000000} haps=${2:-64} guides=${3:-312}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$MK" --length "$base" --haplotypes "$haps" --seed 7 >"$dir/pg.fa"
python3 - "$dir/pg.fa" "$guides" >"$dir/guides.txt" <<'EOF'
import random, sys
seq = []
with open(sys.argv[1]) as f:
    next(f)
    for line in f:
        if line.startswith(">"):
            break
        seq.append(line.strip())
s = "".join(seq)
r = random.Random(11)
n = int(sys.argv[2])
for i in range(n):
    if i % 2 == 0:
        at = r.randrange(len(s) - 23)
        print(s[at:at + 23])
    else:
        print("".join(r.choice("ACGT") for _ in range(23)))
EOF
/usr/bin/time -f "%e %M" -o "$dir/build.time" "$T" index build -q "$dir/pg.fa" -o "$dir/pg.thi"
read -r build_s build_kb <"$dir/build.time"
info=$("$T" index info "$dir/pg.thi")
get() { awk -F'\t' -v k="$1" '$1 == k { print $2 }' <<<"$info"; }
n=$(get n) s2=$(get s2_length) bpc=$(get bits_per_char)
count_s=$( { /usr/bin/time -f "%e" "$T" index count "$dir/pg.thi" "$(head -1 "$dir/guides.txt")" >/dev/null; } 2>&1 )
plain_s=$( { /usr/bin/time -f "%e" "$T" search --device cpu -k 3 --both-strands -f "$dir/guides.txt" "$dir/pg.fa" >"$dir/plain.tsv"; } 2>&1 )
index_s=$( { /usr/bin/time -f "%e" "$T" search --device cpu --index "$dir/pg.thi" -k 3 --both-strands -f "$dir/guides.txt" >"$dir/index.tsv"; } 2>&1 )
same=$(cmp -s "$dir/plain.tsv" "$dir/index.tsv" && echo identical || echo DIFFERENT)
if [ "${GPU:-0}" = 1 ]; then
  gplain_s=$( { /usr/bin/time -f "%e" "$T" search --device gpu -k 3 --both-strands -f "$dir/guides.txt" "$dir/pg.fa" >"$dir/gplain.tsv"; } 2>&1 )
  gindex_s=$( { /usr/bin/time -f "%e" "$T" search --device gpu --index "$dir/pg.thi" -k 3 --both-strands -f "$dir/guides.txt" >"$dir/gindex.tsv"; } 2>&1 )
  gsame=$(cmp -s "$dir/plain.tsv" "$dir/gplain.tsv" && cmp -s "$dir/plain.tsv" "$dir/gindex.tsv" && echo identical || echo DIFFERENT)
fi
echo "| collection | n | kernel S'' | bits/char | build | build peak | index count | plain search | through the index | speed-up | outputs |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a / b }'; }
echo "| $haps x $base bp | $n | $s2 ($(ratio "$n" "$s2")x smaller) | $bpc | ${build_s} s | $((build_kb / 1024)) MiB | ${count_s} s | ${plain_s} s | ${index_s} s | $(ratio "$plain_s" "$index_s")x | $(wc -l <"$dir/plain.tsv") lines, $same |"
if [ "${GPU:-0}" = 1 ]; then
  echo
  echo "| on the GPU | plain search | through the index | speed-up | outputs (= CPU) |"
  echo "|---|---|---|---|---|"
  echo "| $haps x $base bp | ${gplain_s} s | ${gindex_s} s | $(ratio "$gplain_s" "$gindex_s")x | $gsame |"
fi
