#!/usr/bin/env bash
# mpi_test.sh TRAWL — `mpirun -np 1..4 trawl ...` (2 and 3 for most cases) against one process, byte for byte: exact,
# approximate, many patterns, FASTA records, line options, streams (stdin, gzip), offtarget,
# --index and index count/locate (the patterns dealt over the ranks); exit statuses; one error line for an error every rank meets; a rank killed mid-run
# fails the job; `trawl` hands over to trawl-mpi. Skips (visibly) when mpirun is missing or trawl was built without MPI.
set -u
T=$1
. "$(dirname "$0")/lib.sh"
if ! command -v mpirun >/dev/null; then echo "SKIP: mpirun not found"; exit 0; fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
MPIRUN=(timeout 120 mpirun --oversubscribe)
printf 'hello\n' >"$D/one.txt"
if [ "$("${MPIRUN[@]}" -np 2 "$T" search -c hello "$D/one.txt" 2>/dev/null | wc -l)" != 1 ]; then
  echo "SKIP: trawl was built without MPI (every rank printed)"; exit 0
fi

python3 - "$D" <<'EOF'
import random, sys
d = sys.argv[1]
random.seed(7)
recs = []
for r in range(9):
    lines = ["".join(random.choice("ACGT") for _ in range(60)) for _ in range(random.randint(1, 1500))]
    recs.append(">chr%d some description\n" % r + "\n".join(lines))
genome = "\n".join(recs) + "\n"
guide = "GACGCATAAAGATGAGACGC"
# planted guides with 0-3 substitutions and an NGG after them, on both strands
comp = {"A": "T", "C": "G", "G": "C", "T": "A"}
g = list(genome)
for i in range(40):
    at = random.randrange(100, len(g) - 100)
    if "\n" in genome[at:at + 30] or ">" in genome[at - 80:at + 30]:
        continue
    site = list(guide + "AGG")
    for _ in range(i % 4):
        site[random.randrange(20)] = random.choice("ACGT")
    s = "".join(site)
    if i % 2:
        s = "".join(comp[c] for c in reversed(s))
    g[at:at + 23] = list(s)
open(d + "/g.fa", "w").write("".join(g))
words = ["the", "lord", "said", "unto", "moses", "and", "aaron", "land", "of", "egypt", "people"]
text = []
for i in range(20000):
    text.append(" ".join(random.choice(words) for _ in range(random.randint(3, 12))))
open(d + "/t.txt", "w").write("\n".join(text) + "\n")
open(d + "/pats.txt", "w").write("\n".join(["lord said", "moses and", "land of egypt", "the people", "unto"]) + "\n")
open(d + "/guides.fa", "w").write(">g1\n%s\n>g2\nTTGCAACGTACGGATTACAG\n>g3\nACGTTGCAAGGCTTACCGAT\n" % guide)
EOF
gzip -c "$D/g.fa" >"$D/g.fa.gz"
"$T" index build -q "$D/t.txt" -o "$D/t.thi"

# compare NAME ARGS... : one process against mpirun -np 2 and 3 (NPS="1 2 3 4" compare ...: those),
# stdout and exit status
compare() {
  local name=$1; shift
  "$T" "$@" >"$D/want" 2>"$D/want.err"; local want_rc=$?
  for np in ${NPS:-2 3}; do
    "${MPIRUN[@]}" -np $np "$T" "$@" >"$D/got" 2>"$D/got.err"; local rc=$?
    same "$D/want" "$D/got" "$name, -np $np"
    [ "$rc" = "$want_rc" ] && pass || fail "$name, -np $np: exit $rc, want $want_rc ($(head -c 300 "$D/got.err"))"
  done
}
# compare_stdin NAME FILE ARGS... : the same with FILE on stdin
compare_stdin() {
  local name=$1 file=$2; shift 2
  "$T" "$@" <"$file" >"$D/want" 2>/dev/null
  for np in 2 4; do
    "${MPIRUN[@]}" -np $np "$T" "$@" <"$file" >"$D/got" 2>"$D/got.err"
    same "$D/want" "$D/got" "$name, -np $np"
  done
}

NPS="1 2 3 4" compare "exact" search GATTACA "$D/g.fa"
compare "exact, both strands, small slices" search --both-strands --slice-size 4096 ACGTACG "$D/g.fa"
compare "approximate" search -k 2 --both-strands GACGCATAAAGATGAGACGC "$D/g.fa"
compare "approximate, every end" search -k 3 --all-ends --slice-size 8192 GACGCATAAAGATGAGACGC "$D/g.fa"
compare "approximate, alignments" search -k 3 --align --both-strands GACGCATAAAGATGAGACGC "$D/g.fa"
compare "Hamming, many guides" search --hamming -k 3 --both-strands -f "$D/guides.fa" "$D/g.fa"
compare "many exact patterns" search -f "$D/pats.txt" "$D/t.txt"
compare "record counts" search -c -k 1 GACGCATAAAGATGAGACGC "$D/g.fa" "$D/t.txt"
compare "line options" search -n -C 1 -w "land of egypt" "$D/t.txt"
compare "lines, -v -c" search -v -c lord "$D/t.txt"
compare "-m" search -m 5 -k 2 GACGCATAAAGATGAGACGC "$D/g.fa"
compare "json" search --format json -k 1 --both-strands GACGCATAAAGATGAGACGC "$D/g.fa"
compare "gzip" search -k 2 GACGCATAAAGATGAGACGC "$D/g.fa.gz"
compare "no hit" search NOTHEREATALL "$D/t.txt"
compare "offtarget" offtarget --pam NGG --mismatches 3 "$D/guides.fa" "$D/g.fa"
compare "offtarget, bulges" offtarget --pam NGG --mismatches 2 --dna-bulges 1 --rna-bulges 1 "$D/guides.fa" "$D/g.fa"
compare "--index" search --index "$D/t.thi" --count-matches "land of egypt"
compare "index locate" index locate "$D/t.thi" moses
compare "--index, many patterns, both strands" search --index "$D/t.thi" --both-strands -f "$D/pats.txt"
compare "--index, approximate" search --index "$D/t.thi" -k 2 -f "$D/pats.txt"
"$T" index build -q "$D/g.fa" -o "$D/g.thi"
compare "offtarget --index" offtarget --pam NGG --mismatches 2 --dna-bulges 1 --index "$D/g.thi" "$D/guides.fa"
NPS="1 2 3 4" compare "index count" index count "$D/t.thi" -f "$D/pats.txt" lord the egypt
# A FASTA record's slices travel as coordinates where its lines are of one width (the other
# ranks read them from the file), as bytes elsewhere: with pieces of 16 KiB g.fa's records
# span pieces; gmix.fa's records have CRLF lines, lines of several widths, a blank line, and
# one width
python3 - "$D" <<'EOF2'
import random, sys
random.seed(5)
def seq(n): return "".join(random.choice("ACGT") for _ in range(n))
recs = [">crlf\r\n" + "".join(seq(70) + "\r\n" for _ in range(3000)),
        ">mixed\n" + "".join(seq(random.randint(50, 80)) + "\n" for _ in range(3000)),
        ">blank\n" + "".join(seq(80) + "\n" + ("\n" if i == 1500 else "") for i in range(3000)),
        ">even\n" + "".join(seq(61) + "\n" for _ in range(3000)) + seq(17) + "\n"]
open(sys.argv[1] + "/gmix.fa", "w").write("".join(recs))
EOF2
compare "FASTA read by the ranks" search -k 2 --both-strands --chunk-size 16384 GACGCATAAAGATGAGACGC "$D/g.fa"
compare "FASTA of mixed lines" search -k 1 --both-strands --chunk-size 16384 --slice-size 4096 GATTACAG "$D/gmix.fa"
"${MPIRUN[@]}" -np 2 "$T" search --verbose -k 1 --chunk-size 16384 GATTACAG "$D/gmix.fa" 2>&1 >/dev/null |
  grep -qE ' [1-9][0-9]* of them read there from the file' && pass || fail "FASTA of one line width: no slice read from the file"
compare_stdin "stdin" "$D/g.fa" search -k 2 --both-strands GACGCATAAAGATGAGACGC -
compare_stdin "stdin, lines" "$D/t.txt" search -n moses -

# an error every rank meets: one line from rank 0 (mpirun adds its own notice)
"${MPIRUN[@]}" -np 3 "$T" search x "$D/missing.txt" >"$D/out" 2>"$D/err"; rc=$?
[ "$rc" = 2 ] && pass || fail "missing file: exit $rc"
[ "$(grep -c '^trawl: ' "$D/err")" = 1 ] && pass || fail "missing file: want one trawl line ($(grep '^trawl' "$D/err" | head -3))"

# a rank killed mid-run: the job fails (non-zero exit, a message), never a clean exit
python3 -c "
import random; random.seed(3)
open('$D/big.txt','w').write(''.join(random.choices('ACGT', k=3000000)))"
# (Sellers' DP with a 600-byte pattern: about 3 s a rank, so the kill lands mid-run)
long=$(head -c 2000 "$D/big.txt" | tail -c 600)
"${MPIRUN[@]}" -np 3 "$T" search -k 5 -j 1 --algorithm dp "$long" "$D/big.txt" >"$D/out" 2>"$D/err" &
job=$!
victim=""
for _ in $(seq 100); do
  for p in $(pgrep -f "$D/big.txt" 2>/dev/null); do
    if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx 'OMPI_COMM_WORLD_RANK=1'; then victim=$p; fi
  done
  [ -n "$victim" ] && break
  sleep 0.05
done
if [ -n "$victim" ]; then
  sleep 0.3
  kill -9 "$victim" 2>/dev/null
  wait $job; rc=$?
  [ "$rc" != 0 ] && pass || fail "killed rank: exit 0"
  [ -s "$D/err" ] && pass || fail "killed rank: no message"
else
  wait $job
  fail "killed rank: rank 1 not found"
fi

# Faults on one rank: each run ends in at most 5 s with exit 2 and one trawl line that names
# the cause (rank 1's own where it failed alone), never a hang and never exit 0. by_rank runs
# the command with @R@ in its arguments replaced by each rank's number, so that the ranks see
# different files (and RANK0_OUT, rank 0's stdout).
cat >"$D/by_rank" <<'EOR'
#!/usr/bin/env bash
args=(); for x in "$@"; do args+=("${x//@R@/${OMPI_COMM_WORLD_RANK:-0}}"); done
# RANK0_OUT: rank 0's own stdout (mpirun's forwarding hides a write error from the rank)
if [ -n "${RANK0_OUT:-}" ] && [ "${OMPI_COMM_WORLD_RANK:-0}" = 0 ]; then exec "${args[@]}" >"$RANK0_OUT"; fi
exec "${args[@]}"
EOR
chmod +x "$D/by_rank"
cp "$D/t.txt" "$D/f0.txt"; mkdir -p "$D/f1.txt"                     # rank 1: a folder where rank 0 has the file
cp "$D/t.txt" "$D/h0.txt"; head -c 300000 "$D/t.txt" >"$D/h1.txt"    # rank 1: a shorter copy (no shared file system)
cp "$D/t.txt" "$D/r1.txt"                                            # rank 0 alone misses r0.txt
cp "$D/t.thi" "$D/i0.thi"                                            # rank 1 misses i1.thi
cp "$D/t.txt" "$D/m0.txt"; cp "$D/g.fa" "$D/m0.fa"                   # rank 1 misses m1.txt, m1.fa
# fault NAME WANT_LINE NP ARGS...
fault() {
  local name=$1 want=$2 np=$3; shift 3
  local t0 t1 rc
  t0=$(date +%s%N)
  timeout 60 mpirun --oversubscribe -np "$np" "$D/by_rank" "$T" "$@" >"$D/out" 2>"$D/err"; rc=$?
  t1=$(date +%s%N)
  [ "$rc" = 2 ] && pass || fail "$name: exit $rc, want 2 ($(grep '^trawl' "$D/err" | head -3))"
  [ $(((t1 - t0) / 1000000)) -le 5000 ] && pass || fail "$name: took $(((t1 - t0) / 1000000)) ms"
  [ "$(grep -c '^trawl: ' "$D/err")" = 1 ] && pass || fail "$name: want one trawl line ($(grep '^trawl' "$D/err" | head -3))"
  grep -q "^trawl: .*$want" "$D/err" && pass || fail "$name: no line with '$want' ($(grep '^trawl' "$D/err" | head -3))"
}
fault "rank 1 cannot open a later input" "rank 1: .*m1.txt" 2 search moses "$D/t.txt" "$D/m@R@.txt"
fault "rank 1 cannot open a later input, -c" "rank 1: .*m1.txt" 3 search -c moses "$D/t.txt" "$D/m@R@.txt" "$D/t.txt"
fault "rank 1 finds a folder" "rank 1: .*f1.txt" 2 search -n lord "$D/t.txt" "$D/f@R@.txt"
fault "rank 1 reads other bytes" "rank 1: the input differs" 2 search --slice-size 65536 -c egypt "$D/h@R@.txt"
fault "rank 1 cannot load the index" "rank 1: .*i1.thi" 2 index count "$D/i@R@.thi" lord
fault "rank 1 cannot load the index, --index" "rank 1: .*i1.thi" 3 search --index "$D/i@R@.thi" -k 1 moses
fault "rank 1 cannot open the genome" "rank 1: .*m1.fa" 2 offtarget --pam NGG --mismatches 2 "$D/guides.fa" "$D/m@R@.fa"
RANK0_OUT=/dev/full fault "rank 0 cannot write" "write error" 2 search lord "$D/t.txt"
# rank 0 alone misses an input: its own line, and the job ends at the next step with one more
t0=$(date +%s%N)
timeout 60 mpirun --oversubscribe -np 2 "$D/by_rank" "$T" search -c moses "$D/r@R@.txt" "$D/t.txt" >"$D/out" 2>"$D/err"; rc=$?
t1=$(date +%s%N)
[ "$rc" = 2 ] && [ $(((t1 - t0) / 1000000)) -le 5000 ] && grep -q 'r0.txt' "$D/err" && grep -q 'rank 1 did not meet' "$D/err" && pass ||
  fail "rank 0 alone cannot open: exit $rc, $(((t1 - t0) / 1000000)) ms, $(grep '^trawl' "$D/err" | head -3)"

# `trawl` loads no MPI library: started by mpirun it runs trawl-mpi from its own directory, and
# where that is missing it says so in one line and fails
if ldd "$T" | grep -q 'libmpi'; then fail "trawl itself links MPI"; else pass; fi
cp "$T" "$D/lone-trawl"
"${MPIRUN[@]}" -np 1 "$D/lone-trawl" search -c hello "$D/one.txt" >"$D/lone.out" 2>"$D/lone.err"
rc=$?
[ "$rc" != 0 ] && [ ! -s "$D/lone.out" ] && grep -q "trawl's MPI build" "$D/lone.err" && pass ||
  fail "trawl without trawl-mpi under mpirun: rc $rc, $(head -c 200 "$D/lone.err")"

echo "mpi_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
