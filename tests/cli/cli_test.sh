#!/usr/bin/env bash
# cli_test.sh TRAWL — runs the trawl binary like a user: output contract, exit codes, inputs,
# bad input. Every check compares against an expectation written here or computed by a tool
# that shares no code with trawl (grep, python3).
set -u
T=${1:?usage: cli_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"

printf 'hello world\nsay hello again\nnothing here\n' >"$D/h.txt"
# --- output contract -------------------------------------------------------------------
expect_out "h.txt${TAB}0${TAB}5${TAB}0${TAB}+${TAB}hello
h.txt${TAB}16${TAB}21${TAB}0${TAB}+${TAB}hello" bash -c "cd $D && $T search --hits hello h.txt"
expect_out '{"source":"h.txt","start":0,"end":5,"errors":0,"strand":"+","pattern":"hello"}' \
  bash -c "cd $D && $T search --format json -m 1 hello h.txt"
expect_out "h.txt${TAB}16${TAB}21${TAB}hello${TAB}0${TAB}+" bash -c "cd $D && $T search --format bed hello h.txt | tail -1"
expect_out "1:hello world
2:say hello again" "$T" search -n hello "$D/h.txt"
expect_out "2" "$T" search --count-matches hello "$D/h.txt"
# -n with many hits per line (a hit on a line's last byte and one on its newline, with k = 1),
# lines against grep; a long line with a hit every few bytes
printf 'xAAxAAx\nyyy\nAA\nzzAz\n%s\n' "$(python3 -c 'print("ACGTA" * 40000)')" >"$D/n.txt"
expect_out "$(grep -n AA "$D/n.txt")" "$T" search -n AA "$D/n.txt"
expect_out "$(grep -n -E 'A|AA' "$D/n.txt" | cut -c1-60)" bash -c "$T search -n -k 1 AA $D/n.txt | cut -c1-60"
# -n with approximate hits whose starts step back across lines (hits come by end): every line
# holding a hit's start, once, in order, as computed from the tsv starts; many hits (the held
# starts are flushed in batches) and small slices on 2 threads
python3 -c "
import random; random.seed(7)
print('\n'.join(''.join(random.choice('ACGT') for _ in range(random.randint(0, 9))) for _ in range(3000)))" >"$D/short_lines.txt"
for args in "-k 2 -e ACGTAC -e GGA" "-k 1 -e CCCCAGC -e AG -j 2 --slice-size 37"; do
  want=$("$T" search --format tsv $args "$D/short_lines.txt" | python3 -c "
import sys
text = open('$D/short_lines.txt').read()
starts = sorted({int(l.split()[1]) for l in sys.stdin})
nos = sorted({text.count(chr(10), 0, s) + 1 for s in starts})
lines = text.split(chr(10))
print(chr(10).join(f'{n}:{lines[n - 1]}' for n in nos))")
  expect_out "$want" "$T" search -n $args "$D/short_lines.txt"
done
expect_out "3" "$T" search --count-matches -i HELLO <(printf 'Hello HELLO hello')
expect_out "3" "$T" search --count-matches aa <(printf 'aaaa')   # overlapping occurrences
expect_out "1" "$T" search --count-matches -m 1 hello "$D/h.txt"
# grep manners: -m 0 prints nothing and exits 1; a repeated -k or -m takes the last value
expect_out "" "$T" search -m 0 hello "$D/h.txt"
expect_rc 1 "$T" search -m 0 hello "$D/h.txt"
expect_out "1" "$T" search --count-matches -m 2 -m 1 hello "$D/h.txt"
expect_out "2" "$T" search --count-matches -m -1 hello "$D/h.txt"   # negative: no limit
printf '>r1\nAC\n>r2\nACGTACGTAC\n' >"$D/short1.fa"     # -m 0 reads no record: not "pattern too long"
expect_rc 1 "$T" search -m 0 ACGTA "$D/short1.fa"
expect_out "3" "$T" search --count-matches -k 0 -k 1 -i HELLX <(printf 'Hello HELLO hello')
# -k 0 is exact search (every occurrence, as without -k), with --hamming or an approximate
# engine named too; a bad engine name is still an error
expect_out "3" "$T" search --count-matches aa <(printf 'aaaa')
for extra in "--hamming -k 0" "--algorithm dp -k 0" "--algorithm myers -k 0" "--hamming"; do
  expect_out "3" "$T" search --count-matches $extra aa <(printf 'aaaa')
done
expect_err_line "$T" search --algorithm myers-nope -k 0 aa "$D/h.txt"
# several files: grep style source:count, and an error in one file does not stop the others
cp "$D/h.txt" "$D/g.txt"
expect_out "$D/h.txt:2
$D/g.txt:2" "$T" search --count-matches hello "$D/h.txt" "$D/g.txt"
expect_rc 2 "$T" search --count-matches hello "$D/h.txt" "$D/missing" "$D/g.txt"
grep -q "$D/g.txt:2" "$D/out" && pass || fail "search continues after a missing file"
# several patterns with -e and -f; the pattern column names the pattern
printf 'world\nagain\n' >"$D/pats"
expect_out "world
again" bash -c "$T search --hits -f $D/pats $D/h.txt | cut -f6"
expect_out "hello
world" bash -c "$T search --hits -e hello -e world -m 2 $D/h.txt | cut -f6"

# --- exit codes and grep manners -------------------------------------------------------
expect_rc 0 "$T" search hello "$D/h.txt"
expect_rc 1 "$T" search absent "$D/h.txt"
expect_rc 0 "$T" search -q hello "$D/h.txt"
[ ! -s "$D/out" ] && pass || fail "-q printed something"
expect_out "hello" bash -c "printf 'xhellox' | $T search --hits hello - | cut -f6"
expect_out "(standard input)" bash -c "printf 'xhellox' | $T search --hits hello | cut -f1"
# closed pipe: quiet, no error message
yes 'hello there' | head -c 20000000 >"$D/big.txt"
out=$("$T" search hello "$D/big.txt" 2>"$D/err" | head -1); [ -n "$out" ] && [ ! -s "$D/err" ] && pass || fail "closed pipe: $(cat "$D/err")"
# thread count does not change the output
a=$("$T" search -j 1 there "$D/big.txt" | md5sum); b=$("$T" search -j 7 --slice-size 4097 there "$D/big.txt" | md5sum)
[ "$a" = "$b" ] && pass || fail "-j 1 and -j 7 outputs differ"
want=$(grep -o there "$D/big.txt" | wc -l)
expect_out "$want" "$T" search --count-matches there "$D/big.txt"

# --- sequences: FASTA, FASTQ, gzip, both strands ---------------------------------------
python3 -c "
import random
r = random.Random(5)
print('>s1'); print(''.join(r.choice('ACGT') for _ in range(30000)))
print('>s2'); print(''.join(r.choice('ACGTN') for _ in range(20000)))" >"$D/rand.fa"
printf '>chr1 desc\nACGTAC\nGTTTGA\n>empty\n>chr2\nTCAAACGT\n' >"$D/g.fa"
expect_out "chr1${TAB}4${TAB}8${TAB}0${TAB}+${TAB}ACGT
chr2${TAB}4${TAB}8${TAB}0${TAB}+${TAB}ACGT" bash -c "$T search ACGT $D/g.fa | grep -v '^chr1.0'"
expect_out "chr1${TAB}7${TAB}11${TAB}0${TAB}-${TAB}CAAA" bash -c "$T search --both-strands CAAA $D/g.fa | grep chr1"
expect_out "chr2${TAB}1${TAB}5${TAB}CAAA${TAB}0${TAB}+" bash -c "$T search --format bed --both-strands CAAA $D/g.fa | grep chr2"
expect_out "1" "$T" search --count-matches --no-fasta 'C
G' "$D/g.fa"   # plain bytes: the line break is searchable
gzip -c "$D/g.fa" >"$D/g.fa.gz"
expect_out "$("$T" search ACGT "$D/g.fa")" "$T" search ACGT "$D/g.fa.gz"
printf '@r1\nACGTT\n+\nIIIII\n@r2\nTTACG\n+\nIIIII\n' >"$D/r.fq"
expect_out "r2${TAB}2${TAB}5" bash -c "$T search ACG $D/r.fq | cut -f1-3 | tail -1"

# files over 4 GiB: 64-bit offsets (a sparse file: no disk used, the holes read as zeros)
big4=$D/over4g.bin
if truncate -s 4600M "$big4" 2>/dev/null; then
  off=$((4600 * 1024 * 1024 - 100))
  printf 'needle' | dd of="$big4" bs=1 seek=$off conv=notrunc status=none
  expect_out "$off" bash -c "$T search --hits -j 2 needle $big4 | cut -f2"
  rm -f "$big4"
fi

# search --index prints exactly what searching the file prints (plain text and FASTA)
"$T" index build "$D/big.txt" -o "$D/big.idx" -q 2>/dev/null || "$T" index build "$D/big.txt" -o "$D/big.idx" >/dev/null 2>&1
"$T" index build "$D/rand.fa" -o "$D/rand.idx" >/dev/null 2>&1
for p in there "hello th" "e\nhe"; do
  expect_out "$("$T" search --hits -e "$p" -m 50 "$D/big.txt" | sed "s|$D/||")" bash -c "$T search --index $D/big.idx -m 50 -e '$p' | sed 's|$D/||'"
done
for p in ACGT GATTACA C; do
  expect_out "$("$T" search --both-strands "$p" "$D/rand.fa")" "$T" search --both-strands --index "$D/rand.idx" "$p"
done
# several patterns on both strands, printed a batch at a time and stopped at -m: the search's
# order (record, start, pattern, strand) and its first hits
for m in 1 7 300; do
  expect_out "$("$T" search --both-strands -m $m -e AC -e ACG -e CGT -e T "$D/rand.fa")" \
    "$T" search --both-strands --index "$D/rand.idx" -m $m -e AC -e ACG -e CGT -e T
done
# -m 0: no hit, exit 1, as without the index
expect_out "" "$T" search --index "$D/rand.idx" -m 0 ACGT
expect_rc 1 "$T" search --index "$D/rand.idx" -m 0 ACGT
expect_rc 1 "$T" search --index "$D/rand.idx" -m 0 -k 1 GATTACA
# approximate search through the index (S'' scanned, ends copied by the recursion; m + k > M
# searched in the extracted records): the same bytes as searching the FASTA, in every mode
"$T" index build -M 16 "$D/rand.fa" -o "$D/rand16.idx" >/dev/null 2>&1
for args in "-k 1 GATTACA" "-k 2 --both-strands -e GATTACAGAT -e CCGTAG" "-k 1 --all-ends --align TTAGGCAT" \
            "-k 2 --hamming --both-strands GATTACAGATTA" "-k 0 --iupac -i GANTACA" "-k 3 --format json ACGTACGTACGTA" \
            "-k 4 --both-strands ACGTACGTACGTACGT" "-k 1 --count-matches ACGTA"; do
  expect_out "$("$T" search $args "$D/rand.fa")" "$T" search --index "$D/rand16.idx" $args
done
# --verbose says the kernel's length and the load's and the search's times, on stderr only
expect_out "$("$T" search -k 1 GATTACA "$D/rand.fa")" "$T" search --verbose --index "$D/rand16.idx" -k 1 GATTACA
grep -qE "^trawl: .*rand16.idx: [0-9]+ bytes in [0-9]+ records?, kernel S'' [0-9]+ bytes \([0-9.]+ %\); loaded in [0-9.]+ s, searched in [0-9.]+ s \([0-9]+ hits, CPU\)\$" "$D/err" && pass ||
  fail "search --index --verbose: $(head -c 300 "$D/err")"
# an index parsed relative to its first 5000 bytes answers the same, and one that keeps S'' as
# text too (--kernel-text: read, not decoded from the BWT)
"$T" index build -M 16 --lz-reference 5000 "$D/rand.fa" -o "$D/rand-rlz.idx" >/dev/null 2>&1
"$T" index build -M 16 --kernel-text "$D/rand.fa" -o "$D/rand16t.idx" >/dev/null 2>&1
for args in "--both-strands GATTACA" "-k 2 --both-strands -e GATTACAGAT -e CCGTAG" "--count-matches C"; do
  expect_out "$("$T" search $args "$D/rand.fa")" "$T" search --index "$D/rand-rlz.idx" $args
  expect_out "$("$T" search $args "$D/rand.fa")" "$T" search --index "$D/rand16t.idx" $args
done
"$T" index info "$D/rand16t.idx" | grep -qE "^bytes:S'' text	[1-9][0-9]*	" && pass || fail "index info: no S'' text section"
# the count index: on by default (a run count and a section in info), off on request, on with
# --small on request; each counts, per record, as searching the FASTA does
"$T" index build -q --count-index off "$D/rand.fa" -o "$D/rand-nocount.idx"
"$T" index build -q --small --count-index on "$D/rand.fa" -o "$D/rand-smallcount.idx"
"$T" index info "$D/rand.idx" | grep -qE "^bwt_runs	[1-9][0-9]*\$" && "$T" index info "$D/rand.idx" | grep -qE "^bytes:count index	[1-9]" &&
  "$T" index info "$D/rand-nocount.idx" | grep -qE "^bwt_runs	0\$" && "$T" index info "$D/rand-smallcount.idx" | grep -qE "^bwt_runs	[1-9]" &&
  pass || fail "index info: bwt_runs and the count section do not follow --count-index"
for ix in rand rand-nocount rand-smallcount; do
  for p in A ACG GATTACA; do
    expect_out "$p	$("$T" search --count-matches "$p" "$D/rand.fa")" "$T" index count "$D/$ix.idx" "$p"
  done
done
expect_err_line "$T" index build --count-index maybe "$D/rand.fa" -o "$D/never.idx"
# extract speaks records: NAME:START-END (0-based, half-open, as locate prints) against the FASTA
# read by python; a whole record; every locate hit's region holds its pattern; info lists records
fasta_seq() { python3 -c "
import sys
recs, name = {}, None
for l in open('$D/rand.fa'):
    l = l.rstrip('\n')
    if l.startswith('>'): name = l[1:].split()[0]; recs[name] = []
    else: recs[name].append(l)
s = ''.join(recs[sys.argv[1]]); a, b = int(sys.argv[2]), int(sys.argv[3])
print('>%s:%d-%d' % (sys.argv[1], a, b) if sys.argv[4] == 'range' else '>' + sys.argv[1]); print(s[a:b] if sys.argv[4] == 'range' else s)" "$@"; }
expect_out "$(fasta_seq s1 0 50 range; fasta_seq s2 19990 20000 range; fasta_seq s2 7 7 range)" \
  "$T" index extract "$D/rand.idx" s1:0-50 s2:19990-20000 s2:7-7
expect_out "$(fasta_seq s1 0 0 whole)" "$T" index extract "$D/rand.idx" s1
while IFS=$'\t' read -r rec a b _; do  # not a pipe: the checks count in this shell
  expect_out ">$rec:$a-$b
ACGTA" "$T" index extract "$D/rand.idx" "$rec:$a-$b"
done < <("$T" index locate "$D/rand.idx" ACGTA | head -5)
# index count is the number of locate lines of each pattern (hits inside one record each)
for p in A ACG ACGTA CGTTAGC; do
  expect_out "$p${TAB}$("$T" index locate "$D/rand.idx" "$p" | wc -l)" "$T" index count "$D/rand.idx" "$p"
done
# the lines are formatted on several threads: the same bytes for every thread count, with --check
want_locate="$("$T" index locate -t 1 "$D/rand.idx" A C GATTACA)"
for t in 2 3 8; do expect_out "$want_locate" "$T" index locate -t $t --check "$D/rand.idx" A C GATTACA; done
# -j is the thread option of every subcommand (-t kept where it was)
expect_out "$want_locate" "$T" index locate -j 2 "$D/rand.idx" A C GATTACA
expect_out "$("$T" index count -t 1 "$D/rand.idx" A GATTACA)" "$T" index count -j 3 "$D/rand.idx" A GATTACA
# one option vocabulary (the library's set_algorithm): a regex takes only --algorithm auto; -k 0
# with an approximate engine named is exact search
expect_rc 2 sh -c "printf 'abc\n' | '$T' search -E --algorithm kmp 'a.c' -"
# a regex whose shortest match outruns PCRE2's computed length, over a 200 KB line: one error line
# within its budget of steps, not a scan of the line from every start (seconds a line)
python3 -c "print('a' * 200000); print('b')" >"$D/long_a.txt"
expect_err_line timeout 20 "$T" search -E '(a{1000}){1000}' "$D/long_a.txt"
# ... and one under the cap (60 000 bytes) over a line whose runs of a fall just short everywhere
python3 -c "print(('a' * 59000 + 'b') * 4); print('a' * 70000)" >"$D/runs_a.txt"
expect_err_line timeout 20 "$T" search -c -E '(a{1000}){60}' "$D/runs_a.txt"
expect_out 1 "$T" search -c -E '(a{1000}){60}' "$D/long_a.txt"
expect_out "$(printf 'abcabc\n' | "$T" search abc -)" sh -c "printf 'abcabc\n' | '$T' search -k 0 --algorithm dp abc -"
# index files are written whole or not at all: a write cut short (here by a file-size limit,
# which kills the process as a full disk or a signal would stop it) leaves the old index; an
# output that is the input is refused
cp "$D/rand.idx" "$D/keep.idx"
python3 -c "import random; r = random.Random(3); print(''.join(r.choice('ACGT') for _ in range(400000)))" >"$D/unindexed.txt"
bash -c "ulimit -f 8; exec '$T' index build '$D/unindexed.txt' -o '$D/keep.idx'" >/dev/null 2>&1
cmp -s "$D/rand.idx" "$D/keep.idx" && pass || fail "an interrupted index build damaged the index that was there"
[ -z "$(ls -A "$D" | grep '\.trawl-')" ] && pass || fail "an interrupted index build left its temporary file: $(ls -A "$D" | grep '\.trawl-')"
expect_out "$("$T" index count "$D/rand.idx" ACGTA)" "$T" index count "$D/keep.idx" ACGTA
ln -sf keep.idx "$D/link.idx"
"$T" index build "$D/h.txt" -o "$D/link.idx" >/dev/null 2>&1
[ -L "$D/link.idx" ] && "$T" index count "$D/keep.idx" hello | grep -q "hello${TAB}2" && pass ||
  fail "an index written through a symbolic link replaces the file it points to"
# an index from a pipe is read as far as its header says: its magic is checked before more is
# read (an endless stream is refused at once), trailing or missing bytes are errors; every
# error names the file
expect_out "$("$T" index count "$D/rand.idx" ACGTA)" sh -c "cat '$D/rand.idx' | '$T' index count - ACGTA"
expect_err_line timeout 10 sh -c "yes | '$T' index count - ACGT"
expect_err_line sh -c "(cat '$D/rand.idx'; echo more) | '$T' index count - ACGT"
expect_err_line sh -c "head -c 200 '$D/rand.idx' | '$T' index count - ACGT"
expect_err_line "$T" index count "$D/h.txt" hello
grep -q "h.txt" "$D/err" && pass || fail "an index error names the file: $(cat "$D/err")"
[ "$("$T" index extract "$D/rand.idx" 0 10 | wc -l)" = 1 ] && pass || fail "index extract START LEN ends with a newline"
# help and version check their writes; an empty pattern file adds no pattern (grep -e P -f
# /dev/null); sizes that cannot be served are refused up front
expect_err_line sh -c "'$T' --version >/dev/full"
expect_rc 2 sh -c "'$T' search --help >/dev/full"
expect_out "$("$T" search -c hello "$D/h.txt")" "$T" search -c -e hello -f /dev/null "$D/h.txt"
expect_err_line "$T" search -f /dev/null "$D/h.txt"
expect_err_line "$T" search --chunk-size 1099511627776 hello "$D/h.txt"
# hits of several files name their file: reads of R1 and R2 can be told apart (TSV, JSON, BED);
# a tab inside a field is written \t
printf '@r1\nACGTACGT\n+\nIIIIIIII\n' >"$D/R1.fq"; printf '@r1\nTTACGTAA\n+\nIIIIIIII\n' >"$D/R2.fq"
expect_out "R1.fq${TAB}r1${TAB}0${TAB}4${TAB}0${TAB}+${TAB}ACGT
R1.fq${TAB}r1${TAB}4${TAB}8${TAB}0${TAB}+${TAB}ACGT
R2.fq${TAB}r1${TAB}2${TAB}6${TAB}0${TAB}+${TAB}ACGT" bash -c "cd $D && '$T' search ACGT R1.fq R2.fq"
expect_out '{"file":"R2.fq","source":"r1","start":2,"end":6,"errors":0,"strand":"+","pattern":"ACGT"}' \
  bash -c "cd $D && '$T' search --format json ACGT R2.fq -H"
expect_out "r1${TAB}2${TAB}6${TAB}ACGT${TAB}0${TAB}+${TAB}R2.fq" bash -c "cd $D && '$T' search --format bed -H ACGT R2.fq"
printf 'a\tb\n' >"$D/tab.txt"
expect_out "tab.txt${TAB}0${TAB}3${TAB}0${TAB}+${TAB}a\\tb" bash -c "cd $D && '$T' search --hits -e \"\$(printf 'a\\tb')\" tab.txt"
# best on FASTA reads records as search does: per-record coordinates, the least distance over the
# records, --both-strands; the exact copies are search's, line breaks or not
python3 -c "
import random
r = random.Random(5)
m = 'GACGCATAAAGATGAGACGCTGG'
rc = m[::-1].translate(str.maketrans('ACGT', 'TGCA'))
for name in ('a', 'b'):
    s = ''.join(r.choice('ACGT') for _ in range(3000))
    for at, p in ((500, m), (1700, rc), (2900 - 23, m)):
        s = s[:at] + p + s[at + 23:]
    print('>' + name)
    for i in range(0, len(s), 60): print(s[i:i + 60])
" >"$D/copies.fa"
expect_out "$("$T" search --both-strands GACGCATAAAGATGAGACGCTGG "$D/copies.fa" | awk -v OFS='\t' '{print $1, $2, $3, $4, $5}' | sort)" \
  sh -c "'$T' best --both-strands --leftmost GACGCATAAAGATGAGACGCTGG '$D/copies.fa' | sort"
"$T" best --leftmost GACGTATAAAGATGAGACGCTGG "$D/copies.fa" | cut -f1 | sort -u | tr '\n' ' ' | grep -q "a b" && pass ||
  fail "best on FASTA: every record that reaches the least distance"
cp "$D/h.txt" "$D/self.txt"
expect_err_line "$T" index build "$D/self.txt" -o "$D/self.txt"
cmp -s "$D/h.txt" "$D/self.txt" && pass || fail "index build -o INPUT overwrote its input"
expect_err_line "$T" index extract "$D/rand.idx" s3:0-5
expect_err_line "$T" index extract "$D/rand.idx" s1:5-4
expect_err_line "$T" index extract "$D/rand.idx" s2:0-20001
expect_out "record${TAB}s1${TAB}0${TAB}30000
record${TAB}s2${TAB}30000${TAB}20000" bash -c "$T index info $D/rand.idx | grep '^record[[:space:]]'"

# --- algorithms agree ------------------------------------------------------------------
for alg in bf kmp horspool sunday simd auto; do
  expect_out "$want" "$T" search --count-matches --algorithm "$alg" there "$D/big.txt"
done
# binary files are searched as bytes
printf 'ab\0cd\0ab' >"$D/bin"
expect_out "2" "$T" search --count-matches ab "$D/bin"

# --check re-verifies every hit with an independent DP: every mode passes it
[ -f "$D/rand.fa" ] || python3 -c "
import random
r = random.Random(5)
print('>s1'); print(''.join(r.choice('ACGT') for _ in range(30000)))
print('>s2'); print(''.join(r.choice('ACGTN') for _ in range(20000)))" >"$D/rand.fa"
for args in "ACGTAC" "--both-strands ACGTAC" "-k 2 ACGTACGTAC" "-k 3 --all-ends --both-strands ACGTACGTACGT" \
            "-k 1 --hamming ACGTAC" "-k 2 --iupac ACNTACGTRC" "-k 1 -i acgtacgt" "-k 4 ACG"; do
  expect_rc 0 "$T" search --check --count-matches $args "$D/rand.fa"
done

# CIGARs: edit distance by default, the diagonal under --hamming, case folded with -i
expect_out "4=1I" bash -c "printf 'xxhellxx' | $T search -k 1 --align hellp | cut -f7"
expect_out "1=1X2=" bash -c "printf 'ACGT' | $T search -k 1 --hamming --align AGGT | cut -f7"
expect_out "2=2X" bash -c "printf 'CGTA' | $T search -k 2 --hamming --align -m 1 CGAT | cut -f7 | head -1"
expect_out "5=" bash -c "printf 'xHeLLox' | $T search -k 1 -i --align hello | cut -f7"

# --- bad input: one line on stderr, exit 2 ---------------------------------------------
expect_err_line "$T" search hello "$D/missing"
expect_err_line "$T" search hello "$D"
expect_err_line "$T" search "" "$D/h.txt"
expect_err_line "$T" search --bogus-option hello "$D/h.txt"
expect_err_line "$T" search -k -1 hello "$D/h.txt"
expect_err_line "$T" search --algorithm nosuch hello "$D/h.txt"
# a bad value's line names its option, the tuning ones included
for o in "--threads -j x" "--slice-size --slice-size 4X" "--chunk-size --chunk-size -1" "--inflater --inflater lzma"; do
  read -r name opt val <<<"$o"
  "$T" search "$opt" "$val" hello "$D/h.txt" >/dev/null 2>"$D/err"
  grep -q -- "^trawl: $name: " "$D/err" && pass || fail "search $opt $val: the error does not name $name: $(head -c 200 "$D/err")"
done
# a pattern longer than the text, or an empty input, is "no match" as in grep (-c prints 0)
expect_rc 1 "$T" search "$(printf 'x%.0s' $(seq 1 100))" "$D/h.txt"
: >"$D/empty.txt"
expect_rc 1 "$T" search hello "$D/empty.txt"
expect_out "$D/empty.txt:0
$D/h.txt:2" "$T" search --count-matches hello "$D/empty.txt" "$D/h.txt"
expect_out "0" bash -c "printf '' | $T search --count-matches hello"
expect_out "0" bash -c "printf 'hel' | $T search --count-matches -k 1 hello"
printf 'a\0b\n' >"$D/nulpat"
expect_err_line "$T" search -f "$D/nulpat" "$D/h.txt"
printf 'garbage' | gzip | head -c 15 >"$D/trunc.gz"
expect_err_line "$T" search x "$D/trunc.gz"
if [ "$(id -u)" != 0 ]; then
  cp "$D/h.txt" "$D/unreadable"; chmod 000 "$D/unreadable"
  expect_err_line "$T" search hello "$D/unreadable"
fi
expect_err_line "$T" search --format xml hello "$D/h.txt"
# best: every optimal [start, end) by end then start; --leftmost one per end; against a
# python brute force over all substrings
expect_out "$(printf 'agc.txt\t0\t1\t1\nagc.txt\t0\t2\t1\nagc.txt\t0\t3\t1\nagc.txt\t1\t3\t1\nagc.txt\t2\t3\t1')" \
  bash -c "cd $D && printf AGC > agc.txt && $T best AC agc.txt"
expect_out "$(printf 'agc.txt\t0\t1\t1\nagc.txt\t0\t2\t1\nagc.txt\t0\t3\t1')" bash -c "cd $D && $T best --leftmost AC agc.txt"
expect_out "(standard input)	0	0	2" bash -c "printf AB | $T best ZZ - | head -1"
printf 'GATTACAGATTTACAGGATACA' >"$D/best.txt"
want=$(python3 - "$D/best.txt" <<'PY'
import sys
y = open(sys.argv[1]).read(); x = "GTTAGAC"
def ed(a, b):
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, 1):
            cur[j] = min(prev[j - 1] + (ca != cb), prev[j] + 1, cur[j - 1] + 1)
        prev = cur
    return prev[-1]
pairs = [(e, z, ed(x, y[z:e])) for e in range(len(y) + 1) for z in range(e + 1)]
d = min(p[2] for p in pairs)
print("\n".join(f"{sys.argv[1]}\t{z}\t{e}\t{d}" for e, z, dd in pairs if dd == d))
PY
)
expect_out "$want" "$T" best GTTAGAC "$D/best.txt"
expect_out "$want" "$T" best --algorithm wavefront -j 2 GTTAGAC "$D/best.txt"
# --device gpu without a GPU (CI): a clear error, not a crash; --device auto falls back to the CPU
if ! "$T" search -q --device gpu hello "$D/h.txt" 2>/dev/null; then
  expect_err_line "$T" search --device gpu hello "$D/h.txt"
  expect_err_line "$T" best --device gpu hello "$D/h.txt"
  expect_err_line "$T" search --device gpu:0,0 -k 1 hello "$D/h.txt"
  expect_err_line "$T" search --device gpu:all -k 1 hello "$D/h.txt"
  echo "cli_test: no GPU here: --device gpu checked as an error only" >&2
fi
expect_out "2" "$T" search --count-matches --device auto -k 1 hello "$D/h.txt"

expect_err_line "$T" search --device gpu:x hello "$D/h.txt"
expect_err_line "$T" search --device gpu:0,,1 hello "$D/h.txt"

# Numbers: overflow, negatives where they make no sense and junk are one line and exit 2
for args in "-m 18446744073709551616" "-m 99999999999999999999" "-j -1" "-k 1x" "-k 99999999999" "--chunk-size -5" \
  "--chunk-size 2G" "--chunk-size 1.5M" "--chunk-size 4T" "--slice-size 2048G" "--slice-size K"; do
  expect_err_line "$T" search $args hello "$D/h.txt"
done
# byte counts in K, M, G (KiB, MiB, GiB)
expect_out "$("$T" search --hits --chunk-size 1024 --slice-size 65536 hello "$D/h.txt")" \
  "$T" search --hits --chunk-size 1K --slice-size 64kib hello "$D/h.txt"
expect_out "$("$T" search -c --chunk-size 33554432 hello "$D/h.txt")" "$T" search -c --chunk-size 32M hello "$D/h.txt"
expect_out "h.txt${TAB}0${TAB}5${TAB}0${TAB}+${TAB}hello" bash -c "cd $D && $T search --hits -m -1 hello h.txt | head -1"
"$T" index build "$D/h.txt" -o "$D/hh.idx" >/dev/null 2>&1
expect_err_line "$T" index extract "$D/hh.idx" -1 5
expect_err_line "$T" index extract "$D/hh.idx" 0 99999999999999999999

# Every command that writes checks its writes: a full disk is one line on stderr and exit 2
if [ -w /dev/full ]; then
  python3 -c "print('A' * 20000)" >"$D/a.txt"
  for cmd in "search hello $D/h.txt" "search --count-matches hello $D/h.txt" "search -n hello $D/h.txt" "best AAAAB $D/a.txt" \
             "index build $D/h.txt -o $D/h.idx" "index info $D/rand.idx" "index count $D/rand.idx ACGT" \
             "index locate $D/rand.idx ACGT" "index extract $D/rand.idx 0 100"; do
    "$T" $cmd >/dev/full 2>"$D/err"; rc=$?
    [ "$rc" = 2 ] && [ "$(wc -l <"$D/err")" = 1 ] && pass || fail "$cmd > /dev/full: rc $rc, $(head -c 200 "$D/err")"
  done
fi

# a 1 MiB pattern with -k 3 over 2 MiB of DNA, planted with 3 substitutions: one hit, its
# start and its CIGAR, in seconds (the filter's window, the start and the CIGAR in a band)
python3 - "$D" <<'PY'
import random, sys
random.seed(21)
t = [random.choice("ACGT") for _ in range(2 << 20)]
p = list(t[300000:300000 + (1 << 20)])
for i in (5, 400000, 900000):
    p[i] = "A" if p[i] != "A" else "C"
open(sys.argv[1] + "/long_t.txt", "w").write("".join(t))
open(sys.argv[1] + "/long_p.txt", "w").write("".join(p) + "\n")
PY
got=$(timeout 60 "$T" search -k 3 --align -f "$D/long_p.txt" "$D/long_t.txt" | cut -f2-5,7)
[ "$got" = "300000${TAB}1348576${TAB}3${TAB}+${TAB}5=1X399994=1X499999=1X148575=" ] && pass ||
  fail "1 MiB pattern, -k 3: got [$(echo "$got" | head -c 200)]"

# A line's hits are not held: -c, -q, -m 1, -n and -l over one line of 32 Mi hits stay within a
# few hundred MB (the hits of the slices in flight), where holding the line's hits took GBs.
# Peak memory from the kernel's accounting of a child (the sanitized build's is its shadow's).
python3 -c "import sys; open(sys.argv[1], 'w').write('A' * (32 << 20) + '\n')" "$D/oneline.txt"
peak_mb() {  # peak_mb CMD...: the command's peak resident memory in MB (its output dropped)
  python3 -c "
import resource, subprocess, sys
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss // 1024)" "$@"
}
if [ "$sanitized" = 0 ]; then
  for opt in -c -q "-m 1" -n -l; do
    # shellcheck disable=SC2086
    mb=$(peak_mb "$T" search $opt A "$D/oneline.txt")
    [ "$mb" -lt 700 ] && pass || fail "search $opt over one line of 32 Mi hits: peak $mb MB"
  done
fi
# ... nor a stream's one long line, where no line is printed (-c, -l, the hits table)
if [ "$sanitized" = 0 ]; then
  for opt in -c -l --hits; do
    mb=$(peak_mb bash -c "cat '$D/oneline.txt' | '$T' search $opt AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAC -")
    [ "$mb" -lt 150 ] && pass || fail "search $opt over a stream of one 32 MiB line: peak $mb MB"
  done
fi
expect_out "1" "$T" search -c A "$D/oneline.txt"
expect_out "33554432" "$T" search --count-matches A "$D/oneline.txt"

# --fasta: the inputs must be records; plain text is an error that names the file
printf 'hello\nworld\n' >"$D/plain_in.txt"; printf '>r1\nACGTACGT\n' >"$D/rec_in.txt"
expect_rc 2 "$T" search --fasta hello "$D/plain_in.txt"
grep -q "plain_in.txt: not FASTA or FASTQ" "$D/err" && pass || fail "--fasta on plain text: $(cat "$D/err")"
expect_rc 2 "$T" search -c --fasta hello "$D/plain_in.txt"
expect_out "r1${TAB}2${TAB}4${TAB}0${TAB}+${TAB}GT" "$T" search --fasta GT -m 1 "$D/rec_in.txt"

# search --index with -q / --count-matches counts through the index without listing the hits:
# the same numbers as the listed hits (several records, both strands, -m), and an index of
# 64 Mi A's answers -q for a pattern with 64 Mi hits in little memory
python3 - "$D" <<'PY'
import random, sys
random.seed(8)
recs = "".join(">r%d\n%s\n" % (i, "".join(random.choice("ACGT") for _ in range(random.randint(1, 3000)))) for i in range(12))
open(sys.argv[1] + "/ix_recs.fa", "w").write(recs)
PY
"$T" index build -q "$D/ix_recs.fa" -o "$D/ix_recs.thi"
for args in "ACG" "--both-strands ACG" "--both-strands -e ACG -e GGT -e TTTT" "-m 7 ACG"; do
  # shellcheck disable=SC2086
  want=$("$T" search --index "$D/ix_recs.thi" $args | wc -l)
  # shellcheck disable=SC2086
  expect_out "$want" "$T" search --index "$D/ix_recs.thi" --count-matches $args
done
expect_rc 1 "$T" search --index "$D/ix_recs.thi" -q ACGTACGTACGTACGTACGTAAAA
mib=$([ "$sanitized" = 0 ] && echo 64 || echo 4)
python3 -c "import sys; open(sys.argv[1], 'w').write('A' * (int(sys.argv[2]) << 20))" "$D/many_a.txt" "$mib"
"$T" index build -q "$D/many_a.txt" -o "$D/many_a.thi"
expect_out "$(((mib << 20) - 9))" "$T" search --index "$D/many_a.thi" --count-matches AAAAAAAAAA
if [ "$sanitized" = 0 ]; then
  mb=$(peak_mb "$T" search --index "$D/many_a.thi" -q AAAAAAAAAA)
  [ "$mb" -lt 200 ] && pass || fail "search --index -q over 64 Mi hits: peak $mb MB"
fi

# index locate hands its hits over in batches: 4 Mi hits in well under the ~90 bytes a hit
# that collecting them took, the same lines as search --index lists
python3 -c "import sys; open(sys.argv[1], 'w').write('A' * (4 << 20))" "$D/a4m.txt"
"$T" index build -q "$D/a4m.txt" -o "$D/a4m.thi"
"$T" index locate "$D/a4m.thi" AAAAAAAAAA AAAAAAAAAAAAAAAAAA >"$D/loc.out"
"$T" search --index "$D/a4m.thi" -e AAAAAAAAAA -e AAAAAAAAAAAAAAAAAA >"$D/loc.want"
same "$D/loc.want" "$D/loc.out" "index locate against search --index"
awk -v f="$D/a4m.txt" 'BEGIN { for (i = 0; i + 10 <= 4194304; i++) printf "%s\t%d\t%d\t0\t+\tAAAAAAAAAA\n", f, i, i + 10 }' >"$D/loc1.want"
"$T" index locate "$D/a4m.thi" AAAAAAAAAA >"$D/loc1.out"
same "$D/loc1.want" "$D/loc1.out" "index locate of 4 Mi hits against every start"
# ... and sorts a larger answer through a temporary file in bounded memory: 16 Mi hits (128 MiB
# of positions) within 150 MB
if [ "$sanitized" = 0 ]; then
  python3 -c "import sys; open(sys.argv[1], 'w').write('A' * (16 << 20))" "$D/a16m.txt"
  "$T" index build -q "$D/a16m.txt" -o "$D/a16m.thi"
  mb=$(peak_mb "$T" index locate "$D/a16m.thi" AAAAAAAAAA)
  [ "$mb" -lt 150 ] && pass || fail "index locate of 16 Mi hits: peak $mb MB"
  expect_out "$(((16 << 20) - 9))" bash -c "TMPDIR='$D' '$T' index locate '$D/a16m.thi' AAAAAAAAAA | wc -l"
  expect_err_line env TMPDIR="$D/none" "$T" index locate "$D/a16m.thi" AAAAAAAAAA
  grep -q "temporary file in $D/none" "$D/err" && pass || fail "locate without a temporary folder: $(cat "$D/err")"
fi
# index locate --format json/bed print what search --index prints; index count --format json
for f in json bed; do
  "$T" index locate --format $f "$D/ix_recs.thi" ACG GGT >"$D/loc_f.out"
  "$T" search --index "$D/ix_recs.thi" --format $f -e ACG -e GGT >"$D/loc_f.want"
  same "$D/loc_f.want" "$D/loc_f.out" "index locate --format $f"
done
expect_out "$(printf '{"pattern":"ACG","count":%s}' "$("$T" index count "$D/ix_recs.thi" ACG | cut -f2)")" "$T" index count --format json "$D/ix_recs.thi" ACG
# an index whose FM-index section is damaged: a one-record index still counts from its count
# index; locate and extract say so in one line and write nothing (the section's CRC, read on use)
python3 - "$D" <<'PY'
import random, sys
random.seed(9)
open(sys.argv[1] + "/fmbad.fa", "w").write(">only\n" + "".join(random.choice("ACGT") for _ in range(20000)) + "\n")
PY
"$T" index build -q --count-index on "$D/fmbad.fa" -o "$D/fmbad.thi"
want_count=$("$T" index count "$D/fmbad.thi" ACGTAC)
# the FM-index section lies after the header, the table and the parts info lists before it
fm_at=$("$T" index info "$D/fmbad.thi" | awk -F'\t' '/^bytes:/ && $1 != "bytes:total" { if ($1 == "bytes:FM-index of S'"''"'") { print at + int($2 / 2); exit } at += $2 } BEGIN { at = 44 + 11 * 32 + 4 }')
python3 -c "import sys; p, at = sys.argv[1], int(sys.argv[2]); b = bytearray(open(p, 'rb').read()); b[at] ^= 0x10; open(p, 'wb').write(b)" "$D/fmbad.thi" "$fm_at"
expect_out "$want_count" "$T" index count "$D/fmbad.thi" ACGTAC
expect_err_line "$T" index locate "$D/fmbad.thi" ACGTAC
grep -q "checksum mismatch in section 'FM-index of S''" "$D/err" && pass || fail "index locate of a damaged FM-index: $(cat "$D/err")"
expect_err_line "$T" index extract "$D/fmbad.thi" only:0-10 only:20-30
[ -s "$D/out" ] && fail "index extract of a damaged FM-index wrote output" || pass
# index extract writes any length in pieces: the whole text, a record's range across pieces
[ "$("$T" index extract "$D/many_a.thi" 0 $((mib << 20)) | wc -c)" = $(((mib << 20) + 1)) ] && pass || fail "extract of the whole text"
python3 -c "import random, sys; random.seed(4); open(sys.argv[1], 'w').write('>big\n' + ''.join(random.choice('ACGT') for _ in range(3 << 20)) + '\n')" "$D/big_rec.fa"
"$T" index build -q "$D/big_rec.fa" -o "$D/big_rec.thi"
"$T" index extract "$D/big_rec.thi" big:1000-3000000 >"$D/got_piece"
{ printf '>big:1000-3000000\n'; sed -n 2p "$D/big_rec.fa" | cut -c1001-3000000; } >"$D/want_piece"
same "$D/want_piece" "$D/got_piece" "index extract big:1000-3000000"
if [ "$sanitized" = 0 ]; then
  mb=$(peak_mb "$T" index extract "$D/many_a.thi" 0 $((mib << 20)))
  [ "$mb" -lt 100 ] && pass || fail "index extract of $mib MiB: peak $mb MB"
fi

# multi-line FASTQ (Sanger): the same hits as its one-line form, by name, by content, from a pipe
python3 - "$D" <<'PY'
import random, sys
random.seed(6)
one, multi = [], []
for i in range(40):
    s = "".join(random.choice("ACGT") for _ in range(random.randint(0, 300)))
    q = "".join(random.choice("@+I#") for _ in s)
    one.append("@read%d x\n%s\n+\n%s\n" % (i, s, q))
    wrap = lambda t: "".join(t[j:j + 60] + "\n" for j in range(0, len(t), 60)) or "\n"
    multi.append("@read%d x\n%s+\n%s" % (i, wrap(s) if s else "", wrap(q)))
open(sys.argv[1] + "/one.fq", "w").write("".join(one))
open(sys.argv[1] + "/multi.fq", "w").write("".join(multi))
open(sys.argv[1] + "/multi_fq.txt", "w").write("".join(multi))
PY
"$T" search -k 1 --both-strands GATTACA "$D/one.fq" >"$D/want_fq"
[ -s "$D/want_fq" ] && pass || fail "multi-line FASTQ: no hit to compare"
for f in multi.fq multi_fq.txt; do
  "$T" search -k 1 --both-strands GATTACA "$D/$f" >"$D/got_fq"; same "$D/want_fq" "$D/got_fq" "multi-line FASTQ $f"
done
"$T" search -k 1 --both-strands GATTACA - <"$D/multi.fq" | sed "s|(standard input)|$D/one.fq|" >"$D/got_fq"
"$T" search -k 1 --both-strands GATTACA - <"$D/one.fq" | sed "s|(standard input)|$D/one.fq|" >"$D/want_fq"
same "$D/want_fq" "$D/got_fq" "multi-line FASTQ from a pipe"
expect_out "$("$T" search -c GATTACA "$D/one.fq")" "$T" search -c GATTACA "$D/multi.fq"

# --slice-size 1 over 8 MiB: the same hits as the default slices, in bounded memory (a slice per
# byte took about 250 bytes a byte)
python3 -c "import random, sys; r = random.Random(9); open(sys.argv[1], 'w').write(''.join(r.choice('ACGT') for _ in range(8 << 20)))" "$D/slices8m.txt"
expect_out "$("$T" search --count-matches GATTACA "$D/slices8m.txt")" "$T" search --count-matches --slice-size 1 GATTACA "$D/slices8m.txt"
if [ "$sanitized" = 0 ]; then
  mb=$(peak_mb "$T" search --count-matches --slice-size 1 GATTACA "$D/slices8m.txt")
  [ "$mb" -lt 200 ] && pass || fail "--slice-size 1 over 8 MiB: peak $mb MB"
fi

# UCSC .2bit: read as the FASTA it came from (every command: search, offtarget, best, index
# build, from a pipe; versions 0 and 1, either byte order), written by `trawl pack` as the
# format's description says (tests/oracle/twobit.py reads and writes it on its own)
TB="python3 $(dirname "$0")/../oracle/twobit.py"
python3 - "$D" <<'PY'
import random, sys
r = random.Random(12)
recs = []
for i in range(6):
    n = r.choice([0, 1, 3, 57, 400, 5000])
    s = [r.choice("ACGT") for _ in range(n)]
    for _ in range(3):  # runs of N and soft-masked runs
        if n > 20:
            a = r.randrange(n - 10); k = r.randint(1, 10)
            s[a:a + k] = ["N"] * k
            a = r.randrange(n - 10); k = r.randint(1, 10)
            s[a:a + k] = [c.lower() for c in s[a:a + k]]
    recs.append(">seq%d some text\n%s\n" % (i, "\n".join("".join(s[j:j + 70]) for j in range(0, n, 70))))
recs.append(">chrGuide\nTTTTGACGCATAAAGATGAGACGCAGGTTTTTTCCTGCGTCTCATCTTTATGCGTCTTTT\n")
open(sys.argv[1] + "/tb.fa", "w").write("".join(recs))
PY
$TB write "$D/tb.fa" "$D/tb0.2bit"
$TB write "$D/tb.fa" "$D/tb1.2bit" --version 1
$TB write "$D/tb.fa" "$D/tbbe.2bit" --big-endian
printf '>g1\nGACGCATAAAGATGAGACGC\n' >"$D/tb_guide.fa"
for f in tb0 tb1 tbbe; do
  # small chunks: a sequence decoded in many pieces, its N and soft-masked runs cut by their edges
  for args in "--hits -k 1 ACGTACG" "--hits -i --both-strands GATTA" "-c -k 2 GACGCATAAAGATGAG" \
    "--hits -k 1 --chunk-size 1000 -j 2 ACGTACG" "--hits -i --chunk-size 64 -j 3 GATTA" \
    "--hits --chunk-size 100 -j 2 -i -E 'n+a'"; do
    eval "\"\$T\" search $args \"\$D/tb.fa\"" >"$D/tb.want"
    eval "\"\$T\" search $args \"\$D/\$f.2bit\"" >"$D/tb.got"
    same "$D/tb.want" "$D/tb.got" ".2bit $f: search $args"
  done
  # whole records with their header lines, as the .2bit's FASTA text (tests/oracle/twobit.py) reads
  $TB read "$D/$f.2bit" >"$D/tb_text.fa"
  "$T" search --records -i --chunk-size 200 ACGTNN "$D/tb_text.fa" >"$D/tb.want"
  "$T" search --records -i --chunk-size 200 ACGTNN "$D/$f.2bit" >"$D/tb.got"
  same "$D/tb.want" "$D/tb.got" ".2bit $f: search --records"
  "$T" offtarget --mismatches 3 "$D/tb_guide.fa" "$D/tb.fa" >"$D/tb.want"
  "$T" offtarget --mismatches 3 "$D/tb_guide.fa" "$D/$f.2bit" >"$D/tb.got"
  same "$D/tb.want" "$D/tb.got" ".2bit $f: offtarget"
done
grep -q chrGuide "$D/tb.want" && pass || fail ".2bit: offtarget found no site to compare"
"$T" search --hits -k 1 ACGTACG - <"$D/tb0.2bit" | sed 's/(standard input)/x/' >"$D/tb.got"
"$T" search --hits -k 1 ACGTACG - <"$D/tb.fa" | sed 's/(standard input)/x/' >"$D/tb.want"
same "$D/tb.want" "$D/tb.got" ".2bit from a pipe"
expect_out "$("$T" best GACGCATAAAGATGAG "$D/tb.fa")" "$T" best GACGCATAAAGATGAG "$D/tb1.2bit"
"$T" index build -q "$D/tb0.2bit" -o "$D/tb.thi"
expect_out "$("$T" index extract "$D/tb.thi" seq4 seq5)" bash -c "printf '>seq4\n%s\n>seq5\n%s\n' \"\$($TB read $D/tb0.2bit | sed -n 10p)\" \"\$($TB read $D/tb0.2bit | sed -n 12p)\""
# trawl pack: the oracle reads back every record, N runs and lower case as they were
"$T" pack "$D/tb.fa" -o "$D/packed.2bit"
$TB read "$D/packed.2bit" >"$D/tb.got"
python3 -c "
import sys
sys.path.insert(0, sys.argv[2])
import twobit
for n, s in twobit.fasta_records(open(sys.argv[1]).read()): print('>%s\n%s' % (n, s))" "$D/tb.fa" "$(dirname "$0")/../oracle" >"$D/tb.want"
same "$D/tb.want" "$D/tb.got" "trawl pack, read by the oracle"
cmp -s "$D/packed.2bit" "$D/tb0.2bit" && pass || fail "trawl pack: not the bytes the format's description gives"
# a sequence longer than the 4 Mi-base parts pack encodes at once: N and soft-masked runs over
# the parts' edge are one block each, as the format's description writes them
python3 - "$D/long.fa" <<'PY'
import random, sys
r = random.Random(5)
edge = 4 << 20
s = [r.choice("ACGT") for _ in range(edge + 3001)]
s[edge - 7:edge + 5] = ["N"] * 12
s[edge + 1000:edge + 1000 + 9] = [c.lower() for c in s[edge + 1000:edge + 1009]]
s[edge - 2000:edge + 2000] = [c.lower() for c in s[edge - 2000:edge + 2000]]
s[edge + 2000:edge + 2004] = ["n"] * 4
seq = "".join(s)
open(sys.argv[1], "w").write(">long\n" + "\n".join(seq[i:i + 60] for i in range(0, len(seq), 60)) + "\n>tiny\nACGn\n")
PY
$TB write "$D/long.fa" "$D/long0.2bit"
"$T" pack "$D/long.fa" -o "$D/long.2bit" && cmp -s "$D/long.2bit" "$D/long0.2bit" && pass ||
  fail "trawl pack of a sequence over 4 Mi bases: not the bytes the format's description gives"
gzip -c "$D/tb.fa" >"$D/tbz.fa.gz"
"$T" pack "$D/tbz.fa.gz" && cmp -s "$D/tbz.2bit" "$D/tb0.2bit" && pass || fail "trawl pack of a .fa.gz to NAME.2bit"
# IUPAC codes other than N are written as N, in their case, and counted on stderr, U as T; the
# .2bit reads as that FASTA (the oracle's reading, search and offtarget)
printf '>x desc\nACGTRYNNacgtkmbn\nGACGCATAAAGATGAGACGCwGG\n>y\nsACGTACGuvdh\n' >"$D/iupac.fa"
printf '>x desc\nACGTNNNNacgtnnnn\nGACGCATAAAGATGAGACGCnGG\n>y\nnACGTACGtnnn\n' >"$D/iupac_n.fa"
expect_rc 0 "$T" pack "$D/iupac.fa" -o "$D/iupac.2bit"
grep -q "^trawl pack: 10 bases of .*iupac.fa were IUPAC codes other than N" "$D/err" &&
  grep -q "^trawl pack: 1 base of .*iupac.fa was U and is T" "$D/err" && [ "$(wc -l <"$D/err")" = 2 ] &&
  pass || fail "pack of IUPAC codes: $(cat "$D/err")"
$TB read "$D/iupac.2bit" >"$D/tb.got"
printf '>x\nACGTNNNNacgtnnnnGACGCATAAAGATGAGACGCnGG\n>y\nnACGTACGtnnn\n' >"$D/tb.want"
same "$D/tb.want" "$D/tb.got" "trawl pack of IUPAC codes, read by the oracle"
for args in "search --hits -i -k 1 ACGTNN" "search --hits GACGCATAAAG" "offtarget --mismatches 3 $D/tb_guide.fa"; do
  eval "\"\$T\" $args \"\$D/iupac_n.fa\"" >"$D/tb.want"
  eval "\"\$T\" $args \"\$D/iupac.2bit\"" >"$D/tb.got"
  same "$D/tb.want" "$D/tb.got" "trawl pack of IUPAC codes: $args as the FASTA with N"
done
"$T" pack "$D/tb.fa" -o "$D/quiet.2bit" 2>"$D/err" && [ ! -s "$D/err" ] && pass || fail "trawl pack says nothing without IUPAC codes"
# Debian's py2bit (UCSC's reader in C) reads both as the FASTA with N: names, lengths, bases and
# soft-masked lengths (it gives N in upper case, masked or not)
for f in quiet iupac; do
  want=$D/tb.fa; [ $f = iupac ] && want=$D/iupac_n.fa
  /usr/bin/python3 - "$D/$f.2bit" "$want" "$(dirname "$0")/../oracle" <<'PY' && pass || fail "py2bit reads trawl pack's $f.2bit"
import sys
sys.path.insert(0, sys.argv[3])
import py2bit, twobit
want = twobit.fasta_records(open(sys.argv[2]).read())
tb = py2bit.open(sys.argv[1], True)
assert list(tb.chroms().items()) == [(n, len(s)) for n, s in want], (tb.chroms(), [(n, len(s)) for n, s in want])
for n, s in want:
    assert not s or tb.sequence(n) == s.replace("n", "N"), n  # py2bit refuses to read an empty one
assert tb.info()["soft-masked length"] == sum(c.islower() for _, s in want for c in s)
PY
done
printf '>x\nACGTX*\n' >"$D/bad.fa"
expect_rc 2 "$T" pack "$D/bad.fa" -o "$D/bad.2bit"
grep -q "holds 'X' at 4" "$D/err" && [ ! -e "$D/bad.2bit" ] && [ "$(wc -l <"$D/err")" = 1 ] && pass || fail "pack of a byte .2bit cannot hold: $(cat "$D/err")"
printf '>x\nAC\000GT\n' >"$D/bad.fa"
expect_rc 2 "$T" pack "$D/bad.fa" -o "$D/bad.2bit"
grep -q "holds '\\\\x00' at 2: " "$D/err" && [ "$(wc -l <"$D/err")" = 1 ] && pass || fail "pack of a NUL byte: $(cat "$D/err")"
# a damaged .2bit: one line naming the file, exit 2, never a crash or a hang
python3 - "$D" <<'PY'
import struct, sys
d = sys.argv[1]
good = open(d + "/tb0.2bit", "rb").read()
cases = {
    "trunc": good[:len(good) // 2],
    "count": good[:8] + struct.pack("<I", 0xFFFFFFFF) + good[12:],
    "offset": good[:17 + 4] + struct.pack("<I", 0x7FFFFFF0) + good[25:],
    "version": good[:4] + struct.pack("<I", 7) + good[8:],
    "header": good[:10],
    "name": good[:17] + b"\n" + good[18:],  # a line break in a name would cut its FASTA header
    # a sequence of no bases whose mask block runs past its end: its blocks are checked too
    "emptymask": b"C'A\x1a" + bytes(4) + b"\x01" + bytes(7) + b"\x02s1\x17" + bytes(11) + b"\x01" + bytes(6)
                 + b"\x90" + bytes(5) + b"\xf9\xff\xc5\xff\x00\x8b\x00\x00",
}
for k, v in cases.items():
    open(d + "/bad_%s.2bit" % k, "wb").write(v)
PY
for k in trunc count offset version header name emptymask; do
  expect_rc 2 timeout 10 "$T" search --hits ACGT "$D/bad_$k.2bit"
  [ "$(wc -l <"$D/err")" = 1 ] && grep -q "bad_$k.2bit" "$D/err" && pass || fail "damaged .2bit ($k): $(head -c 200 "$D/err")"
done
# blocks that overlap (N or mask, one given twice) are refused, every sequence's blocks checked
# before any output (a good sequence first gives no line); blocks out of order that do not
# overlap are a valid file
python3 - "$D" <<'PY'
import struct, sys
d = sys.argv[1]
def seq(size, ns, ms):  # all T: packed bytes of zero
    words = lambda v: b"".join(struct.pack("<I", x) for x in v)
    return (struct.pack("<II", size, len(ns)) + words(s for s, _ in ns) + words(n for _, n in ns) +
            struct.pack("<I", len(ms)) + words(s for s, _ in ms) + words(n for _, n in ms) + bytes(4) + bytes((size + 3) // 4))
def twobit(seqs):
    at = 16 + sum(1 + len(n) + 4 for n, _ in seqs)
    head, body = struct.pack("<IIII", 0x1A412743, 0, len(seqs), 0), b""
    for n, s in seqs:
        head += bytes([len(n)]) + n.encode() + struct.pack("<I", at + len(body))
        body += s
    return head + body
cases = {
    "noverlap": [("s1", seq(40, [(2, 6), (6, 4)], []))],
    "moverlap": [("s1", seq(40, [], [(10, 5), (12, 1)]))],
    "ntwice": [("s1", seq(40, [(8, 4), (8, 4)], []))],
    "late": [("s1", seq(4000, [], [])), ("s2", seq(40, [(30, 20)], []))],
}
for k, v in cases.items():
    open(d + "/bad_%s.2bit" % k, "wb").write(twobit(v))
open(d + "/unsorted.2bit", "wb").write(twobit([("s1", seq(40, [(20, 4), (2, 4)], [(30, 2), (1, 3)]))]))
open(d + "/bad_unsorted.2bit", "wb").write(twobit([("s1", seq(40, [(20, 4), (2, 20)], []))]))  # out of order, overlapping
PY
for k in noverlap moverlap ntwice unsorted late; do
  expect_rc 2 timeout 10 "$T" search --hits TTTT "$D/bad_$k.2bit"
  [ "$(wc -l <"$D/err")" = 1 ] && [ ! -s "$D/out" ] && grep -q "bad_$k.2bit" "$D/err" && pass ||
    fail "damaged .2bit ($k): $(wc -l <"$D/out") lines out, $(head -c 200 "$D/err")"
done
expect_out "$(printf '>s1\nTtnnNNTTTTTTTTTTTTTTNNNNTTTTTTttTTTTTTTT')" "$T" search --records -i TT "$D/unsorted.2bit"
# a file named .2bit that is not one is refused, not read as text; a compressed .2bit reads as
# the .2bit; its records are not plain bytes (--no-fasta)
printf '>x\nACGT\n' >"$D/text.2bit"
expect_err_line "$T" search --hits ACGT "$D/text.2bit"
gzip -c "$D/tb0.2bit" >"$D/tbgz.2bit.gz"
"$T" search --hits -k 1 ACGTACG "$D/tb.fa" >"$D/tb.want"
"$T" search --hits -k 1 ACGTACG "$D/tbgz.2bit.gz" >"$D/tb.got"
same "$D/tb.want" "$D/tb.got" "search of a gzip .2bit"
"$T" search --hits -k 1 ACGTACG - <"$D/tbgz.2bit.gz" >"$D/tb.got"
same "$D/tb.want" "$D/tb.got" "search of a gzip .2bit from a pipe"
expect_out "$("$T" best GACGCATAAAGATGAG "$D/tb.fa")" "$T" best GACGCATAAAGATGAG "$D/tbgz.2bit.gz"
expect_err_line "$T" search --no-fasta ACGT "$D/tb0.2bit"
expect_err_line "$T" best --no-fasta ACGT "$D/tb0.2bit"
# a .2bit whose first record is empty is still records (its FASTA text starts with two headers):
# best and the index read it as the FASTA
printf '>e\n>s x\nACGTACGGTTACGT\n>t\nGGTACGTTT\n' >"$D/empty1.fa"
"$T" pack "$D/empty1.fa" -o "$D/empty1.2bit"
expect_out "$("$T" best --both-strands GTACG "$D/empty1.fa")" "$T" best --both-strands GTACG "$D/empty1.2bit"
expect_out "$("$T" best GTACG "$D/empty1.fa")" bash -c "\"$T\" best GTACG - <\"$D/empty1.2bit\""
"$T" index build -q "$D/empty1.fa" -o "$D/empty1fa.thi" && "$T" index build -q "$D/empty1.2bit" -o "$D/empty1.thi" &&
  [ "$("$T" index locate "$D/empty1.thi" GTACG)" = "$("$T" index locate "$D/empty1fa.thi" GTACG)" ] &&
  [ -n "$("$T" index locate "$D/empty1.thi" GTACG)" ] && pass || fail "index of a .2bit whose first record is empty"
expect_rc 0 "$T" index verify "$D/empty1.thi" "$D/empty1.2bit"
# two records of one name: a .2bit reader would find one of them
printf '>d\nACGT\n>d\nGG\n' >"$D/dup.fa"
expect_err_line "$T" pack "$D/dup.fa" -o "$D/dup.2bit"
[ ! -e "$D/dup.2bit" ] && grep -q "named d" "$D/err" && pass || fail "pack of two records of one name: $(cat "$D/err")"

# The progress line: drawn on stderr when it is a terminal and stdout is not, for a search past
# its first second (here a pipe that pauses), cleared at the end; --no-progress draws none
python3 -c "import sys; open(sys.argv[1], 'w').write('ACGT' * (1 << 20))" "$D/prog.txt"
progress_of() {  # progress_of BASH_COMMAND: what stderr (a pseudo-terminal) received
  python3 - "$1" <<'PY'
import os, pty, subprocess, sys
m, s = pty.openpty()
p = subprocess.Popen(["bash", "-c", sys.argv[1]], stderr=s)
os.close(s)
data = b""
while True:
    try:
        c = os.read(m, 4096)
    except OSError:
        break
    if not c:
        break
    data += c
p.wait()
sys.stdout.write(repr(data))
PY
}
search_paused="(cat $D/prog.txt; sleep 1.3; cat $D/prog.txt) | '$T' search --hits -c"
got=$(progress_of "$search_paused ACGTACGT - >$D/prog.out")
case "$got" in *"trawl: (standard input): "*"/s (CPU)"*'\r\x1b[K'"'") pass ;; *) fail "progress line: $got" ;; esac
[ "$(cat "$D/prog.out")" = 1 ] && pass || fail "progress line: the count is $(cat "$D/prog.out")"
got=$(progress_of "$search_paused --no-progress ACGTACGT - >$D/prog.out")
[ "$got" = "b''" ] && pass || fail "--no-progress drew: $got"
# index build draws one line on a terminal, its stage named, cleared before the summary; -q none
build_paused="(printf '>r\\n'; sleep 1.3; cat $D/prog.txt) | '$T' index build - -o $D/prog.thi"
got=$(progress_of "$build_paused >$D/prog.out")
case "$got" in *"trawl: index build: "*" % of "*'\r\x1b[K'"'") pass ;; *) fail "index build progress line: $got" ;; esac
grep -q "^$D/prog.thi: n=4194304 " "$D/prog.out" && pass || fail "index build summary: $(cat "$D/prog.out")"
got=$(progress_of "$build_paused -q >$D/prog.out")
[ "$got" = "b''" ] && pass || fail "index build -q drew: $got"

echo "cli_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
