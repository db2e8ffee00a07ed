#!/usr/bin/env bash
# records_test.sh TRAWL — `search --records` and `-v` on FASTA/FASTQ against an oracle that
# parses the records on its own and selects them with tests/oracle/oracle.py's naive search:
# random records (wrapped lines of several widths, CRLF, empty and long sequences, headers
# with descriptions, FASTQ reads whose qualities start with '@' or '+'), exact and -k 1,
# -v, -m, --line-width, -i; mapped files (the parallel FASTA parser) and stdin, gzip, small
# chunks (records across chunks), one and several threads.
set -u
T=${1:?usage: records_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"
ORACLE=$(cd "$(dirname "$0")/../oracle" && pwd)

python3 - "$D" "$ORACLE" <<'PY'
import gzip, random, sys
d, oracle_dir = sys.argv[1], sys.argv[2]
sys.path.insert(0, oracle_dir)
import oracle
r = random.Random(11)

def seq(n):
    return ''.join(r.choice('ACGT') for _ in range(n))

def wrap(s, w):
    return '\n'.join(s[i:i + w] for i in range(0, len(s), w)) if s else ''

fasta, fastq = [], []  # (header, sequence[, qualities])
for i in range(60):
    n = r.choice([0, 1, 5, 30, 61, 200, 1000, 5000])
    fasta.append((f"s{i}" + (f" sample {i} desc" if i % 3 == 0 else ""), seq(n)))
for i in range(80):
    n = r.choice([0, 1, 12, 50, 150])
    q = ''.join(r.choice('@+!#IJ') for _ in range(n))
    fastq.append((f"read{i}" + (" 1:N:0:ACGT" if i % 2 else ""), seq(n), q))
pats = ["ACGTAC", "GGGTTT", "TTAGCA"]
with open(f"{d}/p.txt", "w") as f:
    f.write('\n'.join(pats) + '\n')

# the FASTA file: each record wrapped at its own width, a few with CRLF line ends
with open(f"{d}/r.fa", "w", newline='') as f:
    for i, (h, s) in enumerate(fasta):
        nl = '\r\n' if i % 7 == 3 else '\n'
        body = wrap(s, r.choice([7, 60, 70, 80])).replace('\n', nl)
        f.write(f">{h}{nl}" + (body + nl if body else ''))
with open(f"{d}/r.fq", "w") as f:
    for h, s, q in fastq:
        f.write(f"@{h}\n{s}\n+\n{q}\n")
with open(f"{d}/r.fq", "rb") as a, gzip.open(f"{d}/r.fq.gz", "wb") as b:
    b.write(a.read())

def selected(s, k, ignore_case):
    t = s.encode()
    ps = [p.encode() for p in pats]
    if k == 0:
        return bool(oracle.exact(ps, t, ignore_case=ignore_case))
    return bool(oracle.approx(ps, t, k))

def want(name, records, fq, k=0, invert=False, most=0, width=60, ignore_case=False):
    out, n = [], 0
    for rec in records:
        if selected(rec[1], k, ignore_case) == invert:
            continue
        if fq:
            out.append(f"@{rec[0]}\n{rec[1]}\n+\n{rec[2]}\n")
        else:
            body = wrap(rec[1], width) if width else rec[1]
            out.append(f">{rec[0]}\n" + (body + '\n' if body else ''))
        n += 1
        if most and n == most:
            break
    with open(f"{d}/{name}.want", "w") as f:
        f.write(''.join(out))

want("fa", fasta, False)
want("fa_v", fasta, False, invert=True)
want("fa_k1", fasta, False, k=1)
want("fa_m3", fasta, False, most=3)
want("fa_w0", fasta, False, width=0)
want("fa_w7", fasta, False, width=7)
want("fq", fastq, True)
want("fq_v", fastq, True, invert=True)
want("fq_k1_v", fastq, True, k=1, invert=True)
PY

for j in 1 2; do
  "$T" search -j $j --records -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa.want" "$D/got" "--records FASTA -j $j"
  "$T" search -j $j -v -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa_v.want" "$D/got" "-v FASTA -j $j"
  "$T" search -j $j --records -v -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa_v.want" "$D/got" "--records -v FASTA -j $j"
  "$T" search -j $j --records -k 1 -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa_k1.want" "$D/got" "--records -k 1 FASTA -j $j"
  "$T" search -j $j --records -f "$D/p.txt" "$D/r.fq" >"$D/got"; same "$D/fq.want" "$D/got" "--records FASTQ -j $j"
  "$T" search -j $j -v -f "$D/p.txt" "$D/r.fq.gz" >"$D/got"; same "$D/fq_v.want" "$D/got" "-v FASTQ.gz -j $j"
  "$T" search -j $j -v -k 1 -f "$D/p.txt" - <"$D/r.fq" >"$D/got"; same "$D/fq_k1_v.want" "$D/got" "-v -k 1 FASTQ stdin -j $j"
done
"$T" search --records -m 3 -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa_m3.want" "$D/got" "--records -m 3"
"$T" search --records --line-width 0 -f "$D/p.txt" "$D/r.fa" >"$D/got"; same "$D/fa_w0.want" "$D/got" "--line-width 0"
"$T" search --records --line-width 7 -f "$D/p.txt" - <"$D/r.fa" >"$D/got"; same "$D/fa_w7.want" "$D/got" "--line-width 7, stdin"
# records cut across chunks and slices
"$T" search --records --chunk-size 4096 --slice-size 512 -f "$D/p.txt" - <"$D/r.fa" >"$D/got"
same "$D/fa.want" "$D/got" "--records, small chunks"
"$T" search -v --chunk-size 4096 -f "$D/p.txt" "$D/r.fq" >"$D/got"; same "$D/fq_v.want" "$D/got" "-v FASTQ, small chunks"
# -i: lower-case records are found and printed as they are
tr 'ACGT' 'acgt' <"$D/r.fq" >"$D/lower.fq"
"$T" search -i --records -f "$D/p.txt" "$D/lower.fq" | tr 'acgt' 'ACGT' >"$D/got"
python3 - "$D/got" "$D/fq.want" <<'PY' && pass || fail "-i --records on lower-case FASTQ"
import sys
got = open(sys.argv[1]).read().split('\n')
want = open(sys.argv[2]).read().split('\n')
# only the sequence lines were lower-cased: compare headers and sequences
assert [l for i, l in enumerate(got) if i % 4 in (0, 1)] == [l for i, l in enumerate(want) if i % 4 in (0, 1)]
PY
# seqkit grep -s -P (forward strand; -m: substitutions, as --hamming -k; without -P both
# strands) prints the same records. seqkit skips records with an empty sequence, which -v
# prints: the comparison reads records that have bases.
if command -v seqkit >/dev/null; then
  python3 - "$D/r.fa" "$D/r.fq" "$D/nz.fa" "$D/nz.fq" <<'PY'
import sys
for src, dst, size in ((sys.argv[1], sys.argv[3], 2), (sys.argv[2], sys.argv[4], 4)):
    text = open(src).read().replace('\r', '')
    if size == 4:
        lines = text.split('\n')
        recs = ['\n'.join(lines[i:i + 4]) + '\n' for i in range(0, len(lines) - 3, 4) if lines[i + 1]]
    else:
        recs = ['>' + r for r in text.split('>')[1:] if r.count('\n') > 1]
    open(dst, 'w').write(''.join(recs))
PY
  for f in nz.fa nz.fq; do
    seqkit grep -s -P -f "$D/p.txt" "$D/$f" 2>/dev/null >"$D/want"
    "$T" search --records -f "$D/p.txt" "$D/$f" >"$D/got"; same "$D/want" "$D/got" "--records against seqkit grep -s -P ($f)"
    seqkit grep -s -P -v -f "$D/p.txt" "$D/$f" 2>/dev/null >"$D/want"
    "$T" search -v -f "$D/p.txt" "$D/$f" >"$D/got"; same "$D/want" "$D/got" "-v against seqkit grep -s -P -v ($f)"
    seqkit grep -s -P -m 1 -f "$D/p.txt" "$D/$f" 2>/dev/null >"$D/want"
    "$T" search --records --hamming -k 1 -f "$D/p.txt" "$D/$f" >"$D/got"; same "$D/want" "$D/got" "--hamming -k 1 against seqkit -m 1 ($f)"
    seqkit grep -s -f "$D/p.txt" "$D/$f" 2>/dev/null >"$D/want"
    "$T" search --records --both-strands -f "$D/p.txt" "$D/$f" >"$D/got"; same "$D/want" "$D/got" "--both-strands against seqkit grep -s ($f)"
  done
  tr 'ACGT' 'acgt' <"$D/nz.fq" >"$D/lower.fq"
  seqkit grep -s -P -i -f "$D/p.txt" "$D/lower.fq" 2>/dev/null >"$D/want"
  "$T" search --records -i -f "$D/p.txt" "$D/lower.fq" >"$D/got"; same "$D/want" "$D/got" "-i against seqkit grep -s -i"
else
  echo "SKIP: seqkit not installed: the comparisons with seqkit grep did not run" >&2
fi
# exit status: 1 when no record is printed
expect_rc 1 "$T" search --records ZZZZZZ "$D/r.fa"
expect_rc 0 "$T" search --records -f "$D/p.txt" "$D/r.fa"
# plain text and options that print something else are refused in one line
printf 'plain ACGTAC text\n' >"$D/plain.txt"
expect_err_line "$T" search --records ACGTAC "$D/plain.txt"
expect_err_line "$T" search --records -c ACGTAC "$D/r.fa"
expect_err_line "$T" search --records -n ACGTAC "$D/r.fa"
expect_err_line "$T" search --records --format json ACGTAC "$D/r.fa"
expect_err_line "$T" search --records --no-fasta ACGTAC "$D/r.fa"
expect_err_line "$T" search --records -H ACGTAC "$D/r.fa"
# -v on plain text stays grep's
printf 'a ACGTAC\nb none\n' >"$D/v.txt"
expect_out "b none" "$T" search -v ACGTAC "$D/v.txt"

echo "records_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
