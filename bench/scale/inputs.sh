# inputs.sh — sourced by the scale benchmarks: `scale_inputs DIR MKGENOME LENGTH` makes (once)
# DIR/genome-LENGTH.fa (trawl-mkgenome, 24 records, seed 1) and DIR/guides.fa (312 random
# guides x 23 nt, seed 1), reads the genome into the page cache, and sets $genome and $guides.
scale_inputs() {
  local dir=$1 mk=$2 len=$3
  mkdir -p "$dir"
  genome=$dir/genome-$len.fa
  guides=$dir/guides.fa
  [ -s "$genome" ] || "$mk" --length "$len" --records 24 --seed 1 >"$genome"
  python3 -c "
import random
random.seed(1)
print(''.join('>g%d\n%s\n' % (i, ''.join(random.choice('ACGT') for _ in range(23))) for i in range(312)), end='')" >"$guides"
  cat "$genome" >/dev/null
}
