#!/usr/bin/env bash
# offtarget_test.sh TRAWL — `trawl offtarget` against a brute-force oracle written here in
# Python (every PAM position of every record, both strands, every guide and PAM): random genomes
# with planted sites, N runs, record edges, 3' and 5' PAMs, several PAMs, PAM mismatches,
# per-guide limits from a Cas-OFFinder input file.
set -u
T=${1:?usage: offtarget_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"

cat >"$D/oracle.py" <<'PY'
import sys
# oracle.py GENOME.fa GUIDES(name:seq:mm,...) PAMS(,) SIDE PAM_MM
bases = {'A': 1, 'C': 2, 'G': 4, 'T': 8}
codes = {'A': 1, 'C': 2, 'G': 4, 'T': 8, 'R': 5, 'Y': 10, 'S': 6, 'W': 9, 'K': 12, 'M': 3, 'B': 14, 'D': 13,
         'H': 11, 'V': 7, 'N': 15}
comp = str.maketrans('ACGTacgtRYSWKMBDHVN', 'TGCAtgcaYRSWMKVHDBN')
def records(path):
    name, seq = None, []
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('>'):
            if name is not None: yield name, ''.join(seq)
            name, seq = line[1:].split()[0], []
        else: seq.append(line)
    if name is not None: yield name, ''.join(seq)
genome, guides, pams, side, pam_mm = sys.argv[1], sys.argv[2], sys.argv[3].split(','), int(sys.argv[4]), int(sys.argv[5])
guides = [(g.split(':')[0], g.split(':')[1], int(g.split(':')[2])) for g in guides.split(',')]
def ok(code, base): return codes[code] & bases.get(base.upper(), 0) != 0
for chrom, text in records(genome):
    rows = []
    for gi, (gname, g, limit) in enumerate(guides):
        for pi, pam in enumerate(pams):
            L = len(g) + len(pam)
            for i in range(len(text) - L + 1):
                for strand in '+-':
                    s = text[i:i + L] if strand == '+' else text[i:i + L].translate(comp)[::-1]
                    ps, pa = (len(pam), 0) if side == 5 else (0, len(g))
                    pmm = sum(not ok(pam[j], s[pa + j]) for j in range(len(pam)))
                    mm = sum(not ok(g[j], s[ps + j]) for j in range(len(g)))
                    if mm <= limit and pmm <= pam_mm:
                        rows.append(((i, gi, strand == '-'), (mm, pmm, pi), gname, g, pam, s, strand))
    best = {}
    for key, rank, *rest in rows:
        if key not in best or rank < best[key][0]: best[key] = (rank, rest)
    for key in sorted(best):
        (mm, pmm, pi), (gname, g, pam, s, strand) = best[key]
        ps, pa = (len(pam), 0) if side == 5 else (0, len(g))
        t = list(s)
        for j in range(len(pam)): t[pa + j] = t[pa + j].upper() if ok(pam[j], s[pa + j]) else t[pa + j].lower()
        for j in range(len(g)): t[ps + j] = t[ps + j].upper() if ok(g[j], s[ps + j]) else t[ps + j].lower()
        t = ''.join(t)
        cigar, j = '', 0
        while j < len(t):
            k = j
            while k < len(t) and t[k].isupper() == t[j].isupper(): k += 1
            cigar += f"{k - j}{'=' if t[j].isupper() else 'X'}"; j = k
        pam_bases = t[:len(pam)] if side == 5 else t[len(g):]
        aligned = pam + g if side == 5 else g + pam
        print('\t'.join(map(str, [gname, g, chrom, key[0], key[0] + len(t), strand, mm, 0, 0, aligned, t, cigar, pam_bases])))
PY

python3 - "$D" <<'PY'
import random, sys
d = sys.argv[1]
r = random.Random(5)
comp = str.maketrans('ACGT', 'TGCA')
g1, g2, g3 = 'GACGCATAAAGATGAGACGC', 'TTGACCAGTCAAGGTACCAT', 'ACGTTTGCAGG'
recs = []
for n in range(3):
    s = [r.choice('ACGTacgt') for _ in range(1500 + 700 * n)]
    for _ in range(12):  # planted sites, mutated, on either strand, some at record edges
        g = r.choice([g1, g2, g3]); site = list(g + r.choice(['AGG', 'TGG', 'CAG', 'GGG', 'ANG']))
        for _ in range(r.randint(0, 4)): site[r.randrange(len(site))] = r.choice('ACGTN')
        site = ''.join(site)
        if r.random() < 0.5: site = site.translate(comp)[::-1]
        at = r.choice([0, len(s) - len(site), r.randrange(len(s) - len(site))])
        s[at:at + len(site)] = list(site)
    at = r.randrange(len(s) - 40); s[at:at + 30] = ['N'] * 30
    recs.append(''.join(s))
with open(d + '/genome.fa', 'w') as f:
    for i, s in enumerate(recs):
        f.write(f'>chr{i + 1} test\n')
        for j in range(0, len(s), 60): f.write(s[j:j + 60] + '\n')
with open(d + '/guides.fa', 'w') as f:
    f.write(f'>g1\n{g1}\n>g2 second\n{g2}\n>short\n{g3}\n')
PY

run_case() {  # run_case WHAT "ORACLE GUIDES" "PAMS" SIDE PAM_MM TRAWL-ARGS...
  local what=$1 og=$2 pams=$3 side=$4 pmm=$5; shift 5
  python3 "$D/oracle.py" "$D/genome.fa" "$og" "$pams" "$side" "$pmm" >"$D/want"
  "$T" offtarget "$@" 2>"$D/err" | grep -v '^#' >"$D/got"
  same "$D/want" "$D/got" "offtarget $what"
}
G="g1:GACGCATAAAGATGAGACGC"; G2="g2:TTGACCAGTCAAGGTACCAT"; G3="short:ACGTTTGCAGG"
for m in 0 2 4; do
  run_case "NGG m=$m" "$G:$m,$G2:$m,$G3:$m" NGG 3 0 --mismatches $m -j 2 "$D/guides.fa" "$D/genome.fa"
done
run_case "NGG+NAG m=3" "$G:3,$G2:3,$G3:3" NGG,NAG 3 0 --mismatches 3 --pam NGG --pam NAG "$D/guides.fa" "$D/genome.fa"
run_case "NRG, 1 PAM mismatch" "$G:2,$G2:2,$G3:2" NRG 3 1 --mismatches 2 --pam nrg --pam-mismatches 1 "$D/guides.fa" "$D/genome.fa"
run_case "5' TTTV" "$G:3,$G2:3,$G3:3" TTTV 5 0 --mismatches 3 --pam TTTV --pam-side 5 "$D/guides.fa" "$D/genome.fa"
# gzip and a stream give the same sites
gzip -c "$D/genome.fa" >"$D/genome.fa.gz"
python3 "$D/oracle.py" "$D/genome.fa" "$G:3,$G2:3,$G3:3" NGG 3 0 >"$D/want"
"$T" offtarget --mismatches 3 "$D/guides.fa" - <"$D/genome.fa.gz" | grep -v '^#' >"$D/got"
same "$D/want" "$D/got" "offtarget from a gzip stream"
# a NAME SEQ table, and a Cas-OFFinder input file with per-guide limits
printf 'g1 GACGCATAAAGATGAGACGC\ng2 TTGACCAGTCAAGGTACCAT\nshort ACGTTTGCAGG\n' >"$D/guides.tsv"
run_case "table" "$G:3,$G2:3,$G3:3" NGG 3 0 --mismatches 3 "$D/guides.tsv" "$D/genome.fa"
printf '/path/to/genome\nNNNNNNNNNNNNNNNNNNNNNGG\nGACGCATAAAGATGAGACGCNNN 4 g1\nTTGACCAGTCAAGGTACCATNNN 1 g2\n' >"$D/cas.txt"
run_case "Cas-OFFinder input" "$G:4,$G2:1" NGG 3 0 "$D/cas.txt" "$D/genome.fa"
# a cap per guide: its first N sites, a warning, the other guides in full
python3 "$D/oracle.py" "$D/genome.fa" "$G:4,$G2:4,$G3:4" NGG 3 0 >"$D/want"
"$T" offtarget --mismatches 4 --max-sites-per-guide 2 "$D/guides.fa" "$D/genome.fa" 2>"$D/err" | grep -v '^#' >"$D/got"
python3 - "$D/want" "$D/got" <<'PY' && pass || fail "--max-sites-per-guide: $(head -c 300 "$D/err")"
import sys, collections
want = [l for l in open(sys.argv[1])]; got = [l for l in open(sys.argv[2])]
seen = collections.Counter(); keep = []
for l in want:
    g = l.split('\t')[0]; seen[g] += 1
    if seen[g] <= 2: keep.append(l)
sys.exit(0 if keep == got else 1)
PY
grep -q "guide g1: more than 2 sites" "$D/err" && pass || fail "--max-sites-per-guide warning: $(cat "$D/err")"
# refusals: one line, exit 2
expect_err_line "$T" offtarget --dna-bulges 1 "$D/guides.fa" "$D/genome.fa"
expect_err_line "$T" offtarget --pam XYZ "$D/guides.fa" "$D/genome.fa"
printf 'not a guide file\n' >"$D/bad.txt"
expect_err_line "$T" offtarget "$D/bad.txt" "$D/genome.fa"
expect_rc 1 "$T" offtarget --mismatches 0 "$D/guides.fa" <(printf '>x\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')

echo "offtarget_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
