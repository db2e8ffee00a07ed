#!/usr/bin/env bash
# stream_test.sh TRAWL — inputs that arrive as streams, run like a user would: pipes, gzip,
# zstd, FIFOs, endless streams, memory limits. Every output is compared with the same search of
# a mapped file (checked against grep and python elsewhere) or with grep itself.
set -u
T=${1:?usage: stream_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"

python3 -c "
import random
r = random.Random(9)
print('>chr1 one'); s = ''.join(r.choice('ACGT') for _ in range(300000))
for i in range(0, len(s), 70): print(s[i:i+70])
print('>chr2'); print(''.join(r.choice('ACGTN') for _ in range(50000)))
" >"$D/g.fa"
python3 -c "
import random
r = random.Random(4)
for i in range(3000): print('@read%d' % i); s = ''.join(r.choice('ACGT') for _ in range(r.randint(0, 150))); print(s); print('+'); print('I' * len(s))
" >"$D/r.fq"
python3 -c "
import random
r = random.Random(2)
words = ['error', 'warn', 'info', 'ERROR', 'disk', 'net', 'timeout', 'retry']
for i in range(40000): print(' '.join(r.choice(words) for _ in range(r.randint(0, 12))))
" >"$D/log.txt"
gzip -c "$D/g.fa" >"$D/g.fa.gz"
zstd -q -c "$D/g.fa" >"$D/g.fa.zst"
# BGZF-like: many gzip members back to back
split -b 50000 "$D/r.fq" "$D/part."; for f in "$D"/part.*; do gzip -c "$f"; done >"$D/r.fq.gz"

# Every source gives byte-identical output to the mapped file, for exact and approximate
# search, several engines, threads and chunk sizes (cat: stdin as a pipe, not a mapped file).
for args in "ACGTACGT" "-k 2 GATTACAGATTACA" "--both-strands -k 1 --algorithm myers ACGTTGCA" "-k 3 --all-ends CCCGGGAAATTT" \
            "-e ACGTAC -e TTTTGGGG -e GATC" "-k 1 --align GATTACA" "--format json -k 2 GGGCCCAAATTT" "--hamming -k 2 ACGTACGTAA"; do
  for input in g.fa r.fq; do
    "$T" search $args "$D/$input" >"$D/want"
    for j in 1 2 5; do
      for chunk in 0 1000 65536; do
        share_runs || continue
        cat "$D/$input" | "$T" search -j $j --chunk-size $chunk $args - | sed "s|(standard input)|$D/$input|" >"$D/got"
        same "$D/want" "$D/got" "pipe $input -j $j --chunk-size $chunk $args"
      done
    done
  done
  for z in g.fa.gz g.fa.zst; do
    "$T" search $args "$D/g.fa" | sed "s|$D/g.fa|X|" >"$D/want"
    "$T" search $args "$D/$z" | sed "s|$D/$z|X|" >"$D/got"
    same "$D/want" "$D/got" "$z $args"
  done
  "$T" search $args "$D/r.fq" | sed "s|$D/r.fq|X|" >"$D/want"
  for inflater in auto zlib; do
    "$T" search --inflater $inflater $args "$D/r.fq.gz" | sed "s|$D/r.fq.gz|X|" >"$D/got"
    same "$D/want" "$D/got" "gzip members, $inflater, $args"
  done
done

# -n (matching lines) and -c on a stream equal grep's; small chunks cut lines everywhere
for p in error ERROR timeout 'net disk'; do
  grep -n -- "$p" "$D/log.txt" >"$D/want"
  "$T" search -n --chunk-size 777 -- "$p" - <"$D/log.txt" >"$D/got"
  same "$D/want" "$D/got" "-n $p on a pipe"
done
expect_count=$(grep -o error "$D/log.txt" | wc -l)
got=$(gzip -c "$D/log.txt" | "$T" search --count-matches error)
[ "$got" = "$expect_count" ] && pass || fail "-c on a gzip pipe: $got want $expect_count"

# Early stop: -q and -m on an endless stream return at once; head -1 on an endless stream
if timeout 10 bash -c "yes | $T search -q y"; then pass; else fail "-q on an endless stream"; fi
got=$(timeout 10 bash -c "yes abcabc | $T search --hits -m 3 bc | cut -f2 | tr '\n' ' '")
[ "$got" = "1 4 8 " ] && pass || fail "-m 3 on an endless stream: [$got]"
got=$(timeout 10 bash -c "yes ACGTTGCA | $T search --hits -k 1 GTTG | head -1 | cut -f2-4")
[ "$got" = "$(printf '2\t6\t0')" ] && pass || fail "head -1 on an endless stream: [$got]"

# Live output: a FIFO writer sends one hit, then holds the FIFO open (up to 5 s, until the check
# is done); the hit is printed within a second
hold_open() {  # hold_open FLAG: returns once FLAG exists, or after 5 s
  for _ in $(seq 1 100); do [ -e "$1" ] && return; sleep 0.05; done
}
mkfifo "$D/fifo"
( printf 'starting\nan ERROR here\n'; hold_open "$D/fifo.done" ) >"$D/fifo" &
timeout 8 "$T" search ERROR "$D/fifo" >"$D/live" &
for _ in $(seq 1 10); do [ -s "$D/live" ] && break; sleep 0.1; done
if [ -s "$D/live" ]; then pass; else fail "FIFO: the hit was not printed within a second"; fi
touch "$D/fifo.done"
wait
# ... and a matching line with -n (the line view decides a line at a pause once its newline came)
mkfifo "$D/fifo2"
( printf 'starting\nan ERROR here\n'; hold_open "$D/fifo2.done" ) >"$D/fifo2" &
timeout 8 "$T" search -n ERROR "$D/fifo2" >"$D/live2" &
for _ in $(seq 1 10); do [ -s "$D/live2" ] && break; sleep 0.1; done
if [ "$(cat "$D/live2")" = "2:an ERROR here" ]; then pass; else fail "FIFO, -n: the line was not printed within a second: [$(cat "$D/live2")]"; fi
touch "$D/fifo2.done"
wait

# Memory: 1 GiB through a pipe under a 200 MiB address-space cap (the whole input would not fit)
if [ "$sanitized" != 1 ]; then  # ASan reserves terabytes of address space: no ulimit -v
  got=$(yes ACGTACGTTGCATGCA | head -c 1073741824 | (ulimit -v 400000; "$T" search -j 2 --count-matches TGCATGCA -) 2>&1)
  [ "$got" = "$(( 1073741824 / 17 ))" ] && pass || fail "1 GiB pipe under ulimit -v: [$got]"
  got=$(yes ACGTACGTTGCATGCA | head -c 1073741824 | gzip -1 | (ulimit -v 400000; "$T" search -j 2 --count-matches -k 1 GCATGCAAC -) 2>&1)
  [ -n "$got" ] && [ "$got" -gt 0 ] 2>/dev/null && pass || fail "1 GiB gzip pipe under ulimit -v: [$got]"
fi

# Index build within 2 bytes per input byte + 1 GiB (peak RSS) on a collection whose exact
# LZ77 parse (12 bytes per byte beside the input) would not fit: 110 copies of 1 MB with SNPs
if [ "$sanitized" != 1 ]; then  # ASan's shadow memory would count in the peak
  python3 - "$D/coll.txt" <<'PY'
import random, sys
r = random.Random(11)
base = bytearray(''.join(r.choices('ACGT', k=1 << 20)), 'ascii')
with open(sys.argv[1], 'wb') as f:
    for _ in range(110):
        copy = bytearray(base)
        for _ in range(100): copy[r.randrange(len(copy))] = ord(r.choice('ACGT'))
        f.write(copy)
PY
  n=$(stat -c %s "$D/coll.txt")
  peak=$(python3 -c "
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)" "$T" index build -q "$D/coll.txt" -o "$D/coll.thi")
  [ -n "$peak" ] && [ "$peak" -le $(( 2 * n + (1 << 30) )) ] && [ $(( 13 * n )) -gt $(( 2 * n + (1 << 30) )) ] && pass ||
    fail "index build of $n bytes peaked at $peak bytes (bound $(( 2 * n + (1 << 30) )))"
  pat=$(head -c 12 "$D/coll.txt")
  want=$(python3 -c "import re, sys; print(len(re.findall('(?=' + sys.argv[1] + ')', open(sys.argv[2]).read())))" "$pat" "$D/coll.txt")
  expect_out "$pat	$want" "$T" index count "$D/coll.thi" "$pat"
  rm -f "$D/coll.txt" "$D/coll.thi"
fi

# Bad streams: one line on stderr, exit 2, after the hits before the damage
head -c $(( $(stat -c %s "$D/g.fa.gz") / 2 )) "$D/g.fa.gz" >"$D/cut.gz"
"$T" search ACGTACGT "$D/cut.gz" >"$D/out" 2>"$D/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$D/err")" = 1 ] && grep -q truncated "$D/err" && [ -s "$D/out" ] && pass || fail "truncated gzip: rc $rc, $(cat "$D/err")"
printf '@a\nACGT\n+\nIIII\n@b\nACGT\n+\nII\n' | "$T" search ACG >"$D/out" 2>"$D/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$D/err")" = 1 ] && [ "$(wc -l <"$D/out")" = 1 ] && pass || fail "bad FASTQ record: rc $rc"
printf 'junk after' | cat "$D/g.fa.zst" - | "$T" search ACGT >/dev/null 2>"$D/err"; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$D/err")" = 1 ] && pass || fail "zstd with trailing junk: rc $rc"
# files that cannot be mapped are read
if [ -r /proc/self/status ]; then
  got=$("$T" search --count-matches Name /proc/self/status 2>&1)
  [ "$got" = 1 ] && pass || fail "/proc file: [$got]"
fi

# a file that shrinks while it is searched (mapped): exit 2 and the message, although no hit
# comes after the cut. Sellers' DP with a 600-byte pattern keeps the search busy for seconds,
# so the cut lands mid-search (a sanitized build, some 30x slower, on a twentieth of the file).
shrink_bytes=8000000; [ "$sanitized" = 1 ] && shrink_bytes=400000
python3 -c "
import random; random.seed(11)
open('$D/shrinks.txt','w').write(''.join(random.choices('ACGT', k=${shrink_bytes})))"
long=$(python3 -c "import random; random.seed(12); print(''.join(random.choice('ACGT') for _ in range(600)))")
"$T" search -j 1 -k 5 --algorithm dp "$long" "$D/shrinks.txt" >"$D/out" 2>"$D/err" &
job=$!
sleep 0.5
truncate -s 100000 "$D/shrinks.txt"
wait $job; rc=$?
[ "$rc" = 2 ] && [ "$(wc -l <"$D/err")" = 1 ] && grep -q 'shrank' "$D/err" && [ ! -s "$D/out" ] && pass ||
  fail "file shrinking mid-search: rc $rc, $(head -c 200 "$D/err")"

# every compressed stream users have: zstd that starts with a skippable frame (pzstd writes one
# before every frame), gzip members with FHCRC, FEXTRA, FNAME and FCOMMENT, in both inflaters
want_fa=$("$T" search --count-matches -k 1 GATTACA "$D/g.fa")
if command -v pzstd >/dev/null; then
  pzstd -q -p 2 -c "$D/g.fa" >"$D/g.pz.zst" 2>/dev/null
  expect_out "$want_fa" "$T" search --count-matches -k 1 GATTACA "$D/g.pz.zst"
else
  echo "SKIP: pzstd not installed: zstd with skippable frames not checked here" >&2
fi
python3 -c "
import struct, zlib
data = open('$D/g.fa', 'rb').read()
def member(part, flags):
    co = zlib.compressobj(6, zlib.DEFLATED, -15)
    raw = co.compress(part) + co.flush()
    h = b'\x1f\x8b\x08' + bytes([flags]) + struct.pack('<I', 0) + b'\x00\x03'
    if flags & 4: h += struct.pack('<H', 6) + b'XY\x02\x00ab'
    if flags & 8: h += b'g.fa\x00'
    if flags & 16: h += b'a comment\x00'
    if flags & 2: h += struct.pack('<H', zlib.crc32(h) & 0xffff)
    return h + raw + struct.pack('<II', zlib.crc32(part), len(part) & 0xffffffff)
third = len(data) // 3
out = member(data[:third], 2) + member(data[third:2 * third], 2 | 4 | 8 | 16) + member(data[2 * third:], 8)
open('$D/g.hcrc.gz', 'wb').write(out)
bad = bytearray(member(data, 2)); bad[10] ^= 1
open('$D/g.badhcrc.gz', 'wb').write(bytes(bad))
"
gzip -t "$D/g.hcrc.gz" && pass || fail "the FHCRC test file is not valid gzip"
for inflater in auto zlib; do
  expect_out "$want_fa" "$T" search --inflater $inflater --count-matches -k 1 GATTACA "$D/g.hcrc.gz"
  expect_out "$want_fa" sh -c "cat '$D/g.hcrc.gz' | '$T' search --inflater $inflater --count-matches -k 1 GATTACA -"
  expect_err_line "$T" search --inflater $inflater -c GATTACA "$D/g.badhcrc.gz"
done

# A mapped FASTA whose records are long single lines is cut into pieces inside the lines (no
# piece holds a whole 300 KB line, none starts at a '>' inside a line, no header is cut):
# the same hits as the records wrapped at 60, several threads, small chunks, exact and -k 1,
# and the same records for --records
python3 - "$D" <<'PY'
import random, sys
r = random.Random(17)
d = sys.argv[1]
recs = []
for i in range(6):
    n = r.choice([10, 70000, 300000])
    s = ''.join(r.choice('ACGT') for _ in range(n))
    if n > 1000:  # a '>' inside the line, where a cut may land, and planted hits
        s = s[:n // 3] + '>' * 3 + s[n // 3:] + 'GATTACAGATTACA' * 5
    header = ('h%d ' % i) + ('x' * 70000 if i == 2 else 'desc')
    recs.append((header, s))
with open(d + '/longline.fa', 'w') as f:
    for h, s in recs: f.write('>%s\n%s\n' % (h, s))
with open(d + '/wrapped.fa', 'w') as f:
    for h, s in recs: f.write('>%s\n%s\n' % (h, '\n'.join(s[i:i + 60] for i in range(0, len(s), 60))))
PY
for args in "GATTACA" "-k 1 GATTACAGA" "--both-strands -c TTTTTT"; do
  "$T" search -j 1 $args "$D/wrapped.fa" >"$D/want"
  for j in 1 2 4; do
    "$T" search -j $j --chunk-size 65536 $args "$D/longline.fa" >"$D/got"
    same "$D/want" "$D/got" "one-line records in pieces -j $j: $args"
  done
done
# a byte order mark before a header longer than a piece: the header is never cut
{ printf '\xEF\xBB\xBF'; cat "$D/longline.fa"; } >"$D/bom.fa"
python3 -c "import sys; sys.stdout.write(open(sys.argv[1]).read().replace('>h0 desc', '>h0 ' + 'y' * 200000, 1))" "$D/bom.fa" >"$D/bom_long.fa"
python3 -c "import sys; sys.stdout.write(open(sys.argv[1]).read().replace('>h0 desc', '>h0 ' + 'y' * 200000, 1))" "$D/wrapped.fa" >"$D/wrapped_long.fa"
"$T" search -j 1 GATTACA "$D/wrapped_long.fa" >"$D/want"
"$T" search -j 4 --chunk-size 65536 GATTACA "$D/bom_long.fa" >"$D/got"
same "$D/want" "$D/got" "a byte order mark and a 200 KB first header, in pieces"
"$T" search --records --line-width 0 GATTACA "$D/wrapped.fa" >"$D/want"
"$T" search -j 4 --chunk-size 65536 --records --line-width 0 GATTACA "$D/longline.fa" >"$D/got"
same "$D/want" "$D/got" "--records of one-line records in pieces"

echo "stream_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
