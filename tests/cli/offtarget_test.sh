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
                        # sites in the order trawl documents: PAM start (forward strand), guide, strand
                        pam_at = i + pa if strand == '+' else i + L - pa - len(pam)
                        rows.append(((pam_at, gi, strand == '-', i), (mm, pmm, pi), gname, g, pam, s, strand))
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
        print('\t'.join(map(str, [gname, g, chrom, key[3], key[3] + len(t), strand, mm, 0, 0, aligned, t, cigar, pam_bases])))
PY

cat >"$D/bulges.py" <<'PY'
import sys
# bulges.py GENOME.fa GUIDES(name:seq,...) PAM SIDE MM DNA RNA: every site by enumerating every
# alignment within the limits from the PAM outward; prints the columns that do not depend on
# which of equally good alignments is shown (guide, seq, chrom, start, end, strand, mm, dna, rna, pam)
bases = {'A': 1, 'C': 2, 'G': 4, 'T': 8}
codes = {'A': 1, 'C': 2, 'G': 4, 'T': 8, 'R': 5, 'Y': 10, 'N': 15, 'V': 7}
comp = str.maketrans('ACGTacgtN', 'TGCAtgcaN')
def ok(code, base): return codes[code] & bases.get(base.upper(), 0) != 0
def records(path):
    name, seq = None, []
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('>'):
            if name is not None: yield name, ''.join(seq)
            name, seq = line[1:].split()[0], []
        else: seq.append(line)
    if name is not None: yield name, ''.join(seq)
genome, guides, pam, side = sys.argv[1], sys.argv[2].split(','), sys.argv[3], int(sys.argv[4])
M, DB, RB = map(int, sys.argv[5:8])
guides = [(g.split(':')[0], g.split(':')[1]) for g in guides]
def alignments(g, t):
    """(mm, dna, rna, text used) of every alignment of g against a prefix of t within the limits,
    no bulge as the first or last column"""
    out = set()
    def go(i, j, mm, d, r, last_bulge):
        if i == len(g):
            if not last_bulge: out.add((mm, d, r, j))
            return
        if j < len(t):
            nm = mm + (0 if ok(g[i], t[j]) else 1)
            if nm <= M: go(i + 1, j + 1, nm, d, r, False)
        if i > 0:
            if d < DB and j < len(t): go(i, j + 1, mm, d + 1, r, True)
            if r < RB: go(i + 1, j, mm, d, r + 1, True)
    go(0, 0, 0, 0, 0, False)
    return out
for chrom, text in records(genome):
    rows = []
    P = len(pam)
    for gi, (gname, g) in enumerate(guides):
        m = len(g)
        for ps in range(len(text) - P + 1):
            for strand in '+-':
                pb = text[ps:ps + P]
                if strand == '-': pb = pb.translate(comp)[::-1]
                if any(not ok(pam[k], pb[k]) for k in range(P)): continue
                right = (side == 3) == (strand == '+')  # the spacer lies left of the PAM (forward coords)
                if right: t = text[max(0, ps - m - DB):ps][::-1]
                else: t = text[ps + P:ps + P + m + DB]
                if strand == '-': t = t.translate(comp)
                gq = g[::-1] if side == 3 else g
                found = alignments(gq, t)
                if not found: continue
                mm, d, r, used = min(found, key=lambda x: (x[0] + x[1] + x[2], x[1] + x[2], x[0], x[1]))
                start, end = (ps - used, ps + P) if right else (ps, ps + P + used)
                rows.append(((ps, gi, strand == '-'), [gname, g, chrom, start, end, strand, mm, d, r, pb.upper()]))
    for key, row in sorted(rows):
        print('\t'.join(map(str, row)))
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
# bulges: the sites and their counts against the enumeration; every printed alignment checked
head -c 2500 "$D/genome.fa" >"$D/small.fa"
printf '>g1\nGACGCATAAAGATGAGACGC\n>short\nACGTTTGCAGG\n' >"$D/g2.fa"
for lim in "2 1 0" "2 0 1" "1 1 1" "3 2 1"; do
  set -- $lim
  for side in 3 5; do
    pam=NGG; [ $side = 5 ] && pam=TTTV
    python3 "$D/bulges.py" "$D/small.fa" "g1:GACGCATAAAGATGAGACGC,short:ACGTTTGCAGG" $pam $side $1 $2 $3 >"$D/want"
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
PY
  done
done
set -- "$T"

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
expect_rc 1 "$T" offtarget --mismatches 0 "$D/guides.fa" <(printf '>x\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA\n')

echo "offtarget_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
