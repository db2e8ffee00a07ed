#!/usr/bin/env bash
# offtarget_test.sh TRAWL — `trawl offtarget` against the brute-force oracles of tests/oracle
# (offtarget_sites.py, offtarget_bulges.py: every PAM position of every record, both strands,
# every guide and PAM): random genomes with planted sites, N runs, record edges, 3' and 5'
# PAMs, several PAMs, PAM mismatches, per-guide limits from a Cas-OFFinder input file.
set -u
T=${1:?usage: offtarget_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"
ORACLE=$(cd "$(dirname "$0")/../oracle" && pwd)

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
    # a long run of N (its inside is not scanned) with mutated sites against both of its ends
    run = ['N' if r.random() < 0.5 else 'n'] * (200 + 50 * n)
    sites = []
    for _ in range(2):
        site = list(r.choice([g1, g2]) + 'AGG')
        for _ in range(r.randint(0, 2)): site[r.randrange(len(site))] = r.choice('ACGT')
        site = ''.join(site)
        sites.append(site if r.random() < 0.5 else site.translate(comp)[::-1])
    at = r.randrange(len(s) - 40)
    s[at:at] = list(sites[0]) + run + list(sites[1])
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
  python3 "$ORACLE/offtarget_sites.py" "$D/genome.fa" "$og" "$pams" "$side" "$pmm" >"$D/want"
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
# IUPAC codes in the guides (a block of several keys), limits past the blocks' reach (every
# guide tested at every PAM), --max-edits without bulges, and a 5' PAM with a PAM mismatch
printf '>r1\nGACGCATRAAGATGNGACGC\n>y2\nTTGACCAGTCAAGGTACCAY\n>short\nACGTTTGCAGG\n' >"$D/iupac.fa"
run_case "IUPAC guides m=3" "r1:GACGCATRAAGATGNGACGC:3,y2:TTGACCAGTCAAGGTACCAY:3,$G3:3" NGG 3 0 --mismatches 3 "$D/iupac.fa" "$D/genome.fa"
# bytes that are no base in the sites, U and lower-case IUPAC codes, on both strands: each a
# mismatch, shown as its complement on the reverse strand (U's is A), as the alignment counts it
python3 - "$D" <<'PY'
import random, sys
r = random.Random(9)
comp = str.maketrans('ACGT', 'TGCA')
s = [r.choice('ACGTacgt') for _ in range(3000)]
for n in range(24):
    site = list(r.choice(['GACGCATAAAGATGAGACGC', 'TTGACCAGTCAAGGTACCAT']) + 'AGG')
    for _ in range(r.randint(1, 3)): site[r.randrange(len(site))] = r.choice('UuryRYkm')
    site = ''.join(site)
    if n % 2: site = site.translate(comp)[::-1]
    at = 100 * n + r.randrange(60)
    s[at:at + len(site)] = list(site)
with open(sys.argv[1] + '/odd.fa', 'w') as f: f.write('>odd\n' + ''.join(s) + '\n')
PY
python3 "$ORACLE/offtarget_sites.py" "$D/odd.fa" "$G:4,$G2:4" NGG 3 1 >"$D/want"
"$T" offtarget --mismatches 4 --pam-mismatches 1 "$D/guides.fa" "$D/odd.fa" 2>"$D/err" | grep -v '^#' | grep -v '^short' >"$D/got"
[ "$(wc -l <"$D/want")" -gt 10 ] && [ "$(cut -f6 "$D/want" | sort -u | tr -d '\n')" = "+-" ] && pass ||
  fail "offtarget with U and lower-case IUPAC bytes: the oracle found too few sites, or on one strand only"
same "$D/want" "$D/got" "offtarget with U and lower-case IUPAC bytes in the sites"
run_case "NGG m=7" "$G:7,$G2:7,$G3:7" NGG 3 0 --mismatches 7 "$D/guides.fa" "$D/genome.fa"
run_case "--max-edits 2, no bulges" "$G:2,$G2:2,$G3:2" NGG 3 0 --mismatches 4 --max-edits 2 "$D/guides.fa" "$D/genome.fa"
run_case "5' TTTV, 1 PAM mismatch" "$G:2,$G2:2,$G3:2" TTTV 5 1 --mismatches 2 --pam TTTV --pam-side 5 --pam-mismatches 1 "$D/guides.fa" "$D/genome.fa"
# gzip and a stream give the same sites
gzip -c "$D/genome.fa" >"$D/genome.fa.gz"
python3 "$ORACLE/offtarget_sites.py" "$D/genome.fa" "$G:3,$G2:3,$G3:3" NGG 3 0 >"$D/want"
"$T" offtarget --mismatches 3 "$D/guides.fa" - <"$D/genome.fa.gz" | grep -v '^#' >"$D/got"
same "$D/want" "$D/got" "offtarget from a gzip stream"
# a NAME SEQ table, and a Cas-OFFinder input file with per-guide limits
printf 'g1 GACGCATAAAGATGAGACGC\ng2 TTGACCAGTCAAGGTACCAT\nshort ACGTTTGCAGG\n' >"$D/guides.tsv"
run_case "table" "$G:3,$G2:3,$G3:3" NGG 3 0 --mismatches 3 "$D/guides.tsv" "$D/genome.fa"
printf '/path/to/genome\nNNNNNNNNNNNNNNNNNNNNNGG\nGACGCATAAAGATGAGACGCNNN 4 g1\nTTGACCAGTCAAGGTACCATNNN 1 g2\n' >"$D/cas.txt"
run_case "Cas-OFFinder input" "$G:4,$G2:1" NGG 3 0 "$D/cas.txt" "$D/genome.fa"
# a cap per guide: its first N sites, a warning, the other guides in full
python3 "$ORACLE/offtarget_sites.py" "$D/genome.fa" "$G:4,$G2:4,$G3:4" NGG 3 0 >"$D/want"
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
# bulges: the sites and their counts against the enumeration; every printed alignment checked
head -c 2500 "$D/genome.fa" >"$D/small.fa"
printf '>g1\nGACGCATAAAGATGAGACGC\n>short\nACGTTTGCAGG\n' >"$D/g2.fa"
for lim in "2 1 0" "2 0 1" "1 1 1" "3 2 1"; do
  set -- $lim
  for side in 3 5; do
    pam=NGG; [ $side = 5 ] && pam=TTTV
    python3 "$ORACLE/offtarget_bulges.py" "$D/small.fa" "g1:GACGCATAAAGATGAGACGC,short:ACGTTTGCAGG" $pam $side $1 $2 $3 >"$D/want"
    "$T" offtarget --pam $pam --pam-side $side --mismatches $1 --dna-bulges $2 --rna-bulges $3 "$D/g2.fa" "$D/small.fa" \
      | grep -v '^#' >"$D/got.full"
    cut -f1-9,13 "$D/got.full" | awk -F'\t' -v OFS='\t' '{ $10 = toupper($10) } 1' >"$D/got"
    same "$D/want" "$D/got" "offtarget bulges m=$1 dna=$2 rna=$3 pam-side $side"
    python3 - "$D/got.full" "$D/small.fa" $side <<'PY' && pass || fail "offtarget bulges m=$1 dna=$2 rna=$3 side $side: a printed alignment does not hold"
import sys
comp = str.maketrans('ACGTacgtN', 'TGCAtgcaN')
seqs, name = {}, None
for line in open(sys.argv[2]):
    line = line.rstrip('\n')
    if line.startswith('>'): name = line[1:].split()[0]; seqs[name] = ''
    else: seqs[name] += line
side = int(sys.argv[3])
for line in open(sys.argv[1]):
    g, gseq, chrom, start, end, strand, mm, d, r, ag, at, cigar, pam = line.rstrip('\n').split('\t')
    site = seqs[chrom][int(start):int(end)]
    if strand == '-': site = site.translate(comp)[::-1]
    guide_part = ag.replace('-', '')
    assert guide_part.startswith(gseq) if side == 3 else guide_part.endswith(gseq), line
    assert at.replace('-', '').upper() == site.upper(), (line, site)
    assert len(ag) == len(at)
    assert ag.count('-') == int(d) and at.count('-') == int(r)
    spacer = range(len(ag) - len(pam)) if side == 3 else range(len(pam), len(ag))
    cols = [c for c in spacer]
    assert ag[cols[0]] != '-' and at[cols[0]] != '-' and ag[cols[-1]] != '-' and at[cols[-1]] != '-'
    assert sum(1 for c in cols if at[c] != '-' and ag[c] != '-' and at[c].islower()) == int(mm)
    # no DNA bulge (a gap in the guide) next to an RNA bulge (a gap in the target)
    assert all(not ((ag[c] == '-' and at[c + 1] == '-') or (at[c] == '-' and ag[c + 1] == '-'))
               for c in range(len(ag) - 1)), line
PY
  done
done
set -- "$T"
# A DNA bulge next to an RNA bulge is a mismatch written as two bulges: a site that needs the
# pair is no site (guide GACGCATAAAGATGAGACGC with base 10 changed, no mismatch allowed), and a
# site with another admissible alignment shows that one (GcCGCAaAAAGAaGAGACtC: 4 mismatches,
# or 3 with a DNA and an RNA bulge around an equal letter)
python3 - "$D" <<'PY'
import random, sys
r = random.Random(3)
g = 'GACGCATAAAGATGAGACGC'
flank = lambda: ''.join(r.choice('ACGT') for _ in range(100))
open(sys.argv[1] + '/adj0.fa', 'w').write('>chr1\n' + flank() + g[:10] + 'C' + g[11:] + 'TGG' + flank() + '\n')
open(sys.argv[1] + '/adj1.fa', 'w').write('>chr1\n' + flank() + 'GCCGCAAAAAGAAGAGACTC' + 'TGG' + flank() + '\n')
PY
printf 'g1\tGACGCATAAAGATGAGACGC\n' >"$D/adj.txt"
expect_rc 1 "$T" offtarget --mismatches 0 --dna-bulges 1 --rna-bulges 1 "$D/adj.txt" "$D/adj0.fa"
python3 "$ORACLE/offtarget_bulges.py" "$D/adj0.fa" g1:GACGCATAAAGATGAGACGC NGG 3 0 1 1 >"$D/want"
[ ! -s "$D/want" ] && pass || fail "the oracle reports a site that needs a DNA bulge next to an RNA bulge"
"$T" offtarget --mismatches 3 --dna-bulges 1 --rna-bulges 1 "$D/adj.txt" "$D/adj1.fa" | grep -v '^#' >"$D/got"
cut -f7-9 "$D/got" | grep -qx "3${TAB}1${TAB}1" && pass || fail "the site with bulges around an equal letter: $(cat "$D/got")"
cut -f12 "$D/got" | grep -Eq '[0-9]I[0-9]+D|[0-9]D[0-9]+I' && fail "a shown CIGAR pairs the bulges: $(cat "$D/got")" || pass

# --summary: per guide (input order), sites by (mismatches, DNA bulges, RNA bulges), from the sites printed
printf '>g1\nGACGCATAAAGATGAGACGC\n>short\nACGTTTGCAGG\n>none\nGGGGGGGGGGGGGGGGGGGC\n' >"$D/g3.fa"
"$T" offtarget --mismatches 3 --dna-bulges 1 --rna-bulges 1 --summary "$D/summary" "$D/g3.fa" "$D/small.fa" >"$D/sites"
python3 - "$D/sites" "$D/summary" <<'PY' && pass || fail "--summary: $(head -5 "$D/summary" | tr '\n' ' ')"
import sys, collections
counts = collections.defaultdict(collections.Counter)
for line in open(sys.argv[1]):
    if line.startswith('#'): continue
    f = line.split('\t')
    counts[f[0]][(int(f[6]), int(f[7]), int(f[8]))] += 1
want = ['#guide\tmismatches\tdna_bulges\trna_bulges\tsites']
for g in ('g1', 'short', 'none'):
    if not counts[g]: want.append(f'{g}\t-\t-\t-\t0')
    for c in sorted(counts[g]): want.append('\t'.join(map(str, (g, *c, counts[g][c]))))
got = open(sys.argv[2]).read().splitlines()
sys.exit(0 if got == want and len(counts['g1']) > 1 else 1)
PY
expect_err_line "$T" offtarget --summary /dev/full "$D/g3.fa" "$D/small.fa"

# --max-edits E: exactly the sites whose mismatches + bulges <= E (the shown alignment has the
# fewest edits of any), rows unchanged
for e in 0 1 2 3; do
  "$T" offtarget --mismatches 3 --dna-bulges 1 --rna-bulges 1 --max-edits $e "$D/g3.fa" "$D/small.fa" >"$D/capped"
  awk -F'\t' -v e=$e '/^#/ || $7 + $8 + $9 <= e' "$D/sites" >"$D/want"
  same "$D/want" "$D/capped" "--max-edits $e"
done
# --format casoffinder / bed / json: the same sites, column for column, as the TSV
for f in casoffinder bed json; do
  "$T" offtarget --mismatches 3 --dna-bulges 1 --rna-bulges 1 --format $f "$D/g3.fa" "$D/small.fa" >"$D/fmt.$f"
done
python3 - "$D/sites" "$D" <<'PY' && pass || fail "--format casoffinder/bed/json differ from tsv"
import sys, json
rows = [l.rstrip('\n').split('\t') for l in open(sys.argv[1]) if not l.startswith('#')]
d = sys.argv[2]
cas = [l.rstrip('\n').split('\t') for l in open(d + '/fmt.casoffinder')]
bed = [l.rstrip('\n').split('\t') for l in open(d + '/fmt.bed')]
js = [json.loads(l) for l in open(d + '/fmt.json')]
assert cas[0] == ['#Id', 'Bulge Type', 'crRNA', 'DNA', 'Chromosome', 'Location', 'Direction', 'Mismatches', 'Bulge Size']
cas = cas[1:]
assert len(rows) == len(cas) == len(bed) == len(js) and len(rows) > 3
keys = ['guide', 'guide_seq', 'chrom', 'start', 'end', 'strand', 'mismatches', 'dna_bulges', 'rna_bulges',
        'aligned_guide', 'aligned_target', 'cigar', 'pam']
for r, c, b, j in zip(rows, cas, bed, js):
    assert [str(j[k]) for k in keys] == r, (r, j)
    mm, dna, rna = int(r[6]), int(r[7]), int(r[8])
    assert b == [r[2], r[3], r[4], r[0], str(mm + dna + rna), r[5]], (r, b)
    kind = 'DNA+RNA' if dna and rna else 'DNA' if dna else 'RNA' if rna else 'X'
    assert c == [r[0], kind, r[9][:-3] + 'NNN', r[10], r[2], r[3], r[5], r[6], str(dna + rna)], (r, c)
PY

# --verbose says where the candidate search runs and why
"$T" offtarget --verbose --mismatches 2 --dna-bulges 1 "$D/g3.fa" "$D/small.fa" 2>"$D/err" >/dev/null
grep -Eq '(CPU|GPU) \(.*--device auto: the cost model.s choice\)' "$D/err" && pass ||
  fail "--verbose with bulges: $(head -c 200 "$D/err")"
"$T" offtarget --verbose --device cpu --mismatches 2 "$D/g3.fa" "$D/small.fa" 2>"$D/err" >/dev/null
grep -q 'CPU (.*--device as asked)' "$D/err" && pass || fail "--verbose --device cpu: $(head -c 200 "$D/err")"

# --index: the same sites, summary and exit status as the genome file, from the index's kernel
"$T" index build -q "$D/genome.fa" -o "$D/genome.thi"
for args in "--mismatches 3" "--mismatches 2 --dna-bulges 1 --rna-bulges 1" "--pam TTTV --pam-side 5 --mismatches 3" \
            "--pam NGG --pam NAG --mismatches 4 --format casoffinder" "--mismatches 4 --max-sites-per-guide 2"; do
  expect_out "$("$T" offtarget $args "$D/guides.fa" "$D/genome.fa" 2>&1)" \
    bash -c "$T offtarget $args --index $D/genome.thi $D/guides.fa 2>&1"
done
"$T" offtarget --mismatches 3 --summary "$D/sum1" "$D/guides.fa" "$D/genome.fa" >/dev/null
"$T" offtarget --mismatches 3 --summary "$D/sum2" --index "$D/genome.thi" "$D/guides.fa" >/dev/null
expect_out "$(cat "$D/sum1")" cat "$D/sum2"
expect_err_line "$T" offtarget --index "$D/genome.thi" "$D/guides.fa" "$D/genome.fa"
expect_err_line "$T" offtarget "$D/guides.fa"

# refusals: one line, exit 2
expect_err_line "$T" offtarget --pam XYZ "$D/guides.fa" "$D/genome.fa"
printf 'not a guide file\n' >"$D/bad.txt"
expect_err_line "$T" offtarget "$D/bad.txt" "$D/genome.fa"
printf '/dev/null\nNNNNNNNNNNNNNNNNNNNNNGG\nGACGCATAAAGATGAGACGCNNN 65\n' >"$D/many.txt"  # a guide's own limit
expect_err_line "$T" offtarget "$D/many.txt" "$D/genome.fa"
expect_rc 1 "$T" offtarget --mismatches 0 "$D/guides.fa" <(printf '>x\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')

# nothing printed before the inputs open; --summary never goes where the sites go, nor onto an input
"$T" offtarget "$D/guides.fa" "$D/no-such-genome.fa" >"$D/out" 2>"$D/err"
[ $? = 2 ] && [ ! -s "$D/out" ] && [ "$(wc -l <"$D/err")" = 1 ] && pass || fail "a missing genome: rc, header or message: $(head -c 200 "$D/out" "$D/err")"
expect_err_line "$T" offtarget --summary - "$D/guides.fa" "$D/small.fa"
cp "$D/small.fa" "$D/small-copy.fa"
expect_err_line "$T" offtarget --summary "$D/small-copy.fa" "$D/guides.fa" "$D/small-copy.fa"
cmp -s "$D/small.fa" "$D/small-copy.fa" && pass || fail "--summary overwrote a genome"

# guide inputs as users have them: Cas-OFFinder 3's pattern line with the bulge sizes (the same
# limits as the options), one sequence a line; a guide pasted with its PAM or past 100 bases is
# refused with one line saying why
printf '/path/to/genome\nNNNNNNNNNNNNNNNNNNNNNGG 1 1\nGACGCATAAAGATGAGACGCNNN 3 g1\n' >"$D/cas3.txt"
printf 'g1 GACGCATAAAGATGAGACGC\n' >"$D/g1.txt"
"$T" offtarget --mismatches 3 --dna-bulges 1 --rna-bulges 1 "$D/g1.txt" "$D/small.fa" | cut -f3- >"$D/want"
"$T" offtarget "$D/cas3.txt" "$D/small.fa" | cut -f3- >"$D/got"
cmp -s "$D/want" "$D/got" && [ "$(wc -l <"$D/got")" -gt 1 ] && pass || fail "Cas-OFFinder 3 bulge sizes: $(diff "$D/want" "$D/got" | head -3)"
printf 'GACGCATAAAGATGAGACGC\nTTGACCAGTCAAGGTACCAT\n' >"$D/list.txt"
printf 'guide1 GACGCATAAAGATGAGACGC\nguide2 TTGACCAGTCAAGGTACCAT\n' >"$D/named.txt"
expect_out "$("$T" offtarget "$D/named.txt" "$D/small.fa")" "$T" offtarget "$D/list.txt" "$D/small.fa"
printf 'g1 GACGCATAAAGATGAGACGCTGG\n' >"$D/withpam.txt"
expect_err_line "$T" offtarget "$D/withpam.txt" "$D/small.fa"
grep -q "PAM" "$D/err" && pass || fail "a guide with its PAM: $(cat "$D/err")"
printf 'g1 %s\n' "$(printf 'ACGT%.0s' $(seq 30))" >"$D/long.txt"
expect_err_line "$T" offtarget "$D/long.txt" "$D/small.fa"

echo "offtarget_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
