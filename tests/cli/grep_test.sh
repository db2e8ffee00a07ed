#!/usr/bin/env bash
# grep_test.sh TRAWL — the grep habits, checked against GNU grep's and ripgrep's own output on
# a small tree: line output, counts, context, -l/-L, -o, -w, -x, -v, -r, --null, exit codes,
# and the refusals of options that do not combine.
set -u
T=${1:?usage: grep_test.sh path/to/trawl}
. "$(dirname "$0")/lib.sh"
export LC_ALL=C

mkdir -p "$D/tree/sub/deeper" "$D/tree/other"
python3 -c "
import random
r = random.Random(21)
words = ['error', 'warning', 'disk', 'net', 'timeout', 'ok', 'retry', 'user_error', 'errors', 'x']
for name, n in (('a.log', 400), ('sub/b.log', 250), ('sub/deeper/c.log', 120), ('other/d.txt', 80)):
    with open('$D/tree/' + name, 'w') as f:
        for i in range(n):
            f.write(' '.join(r.choice(words) for _ in range(r.randint(0, 6))) + '\n')
"
printf 'error\nno newline at the end: error' >"$D/tree/other/tail.txt"
: >"$D/tree/empty.txt"
printf 'nothing to see\n' >"$D/tree/other/none.txt"
cd "$D/tree" || exit 2
files=(a.log sub/b.log sub/deeper/c.log other/d.txt other/tail.txt empty.txt other/none.txt)

# both sides' output and exit status must agree
agree() {  # agree WHAT "REFERENCE CMD" "TRAWL ARGS"
  local ref got rr rg
  # (NUL bytes shown as @; pipefail: the command's status, not tr's)
  ref=$(set -o pipefail; bash -o pipefail -c "$2" 2>/dev/null | tr '\0' @); rr=$?
  got=$(set -o pipefail; bash -o pipefail -c "$T search $3" 2>"$D/err" | tr '\0' @); rg=$?
  if [ "$ref" = "$got" ] && [ "$rr" = "$rg" ]; then pass; else
    fail "$1: trawl search $3 (rc $rg) != $2 (rc $rr): $(diff <(echo "$ref") <(echo "$got") | head -4 | tr '\n' ' ') $(head -c 200 "$D/err")"
  fi
}

for p in error disk timeout 'user_error' zzz; do
  agree "-n $p" "grep -n -- '$p' a.log" "-n -- '$p' a.log"
  agree "-c $p" "grep -c -- '$p' a.log" "-c -- '$p' a.log"
  agree "-v $p" "grep -v -- '$p' a.log" "-v -- '$p' a.log"
  agree "-v -n $p" "grep -v -n -- '$p' a.log" "-v -n -- '$p' a.log"
  agree "-v -c $p" "grep -v -c -- '$p' a.log" "-v -c -- '$p' a.log"
  agree "-w -n $p" "grep -w -n -- '$p' a.log" "-w -n -- '$p' a.log"
  agree "-x -c $p" "grep -x -c -- '$p' a.log" "-x -c -- '$p' a.log"
  agree "-i -c $p" "grep -i -c -- '$p' a.log" "-i -c -- '$p' a.log"
  agree "-o -n $p" "grep -o -n -- '$p' a.log" "-o -n -- '$p' a.log"
  agree "-b $p" "grep -b -- '$p' a.log" "-b -- '$p' a.log"
  agree "-o -b -n $p" "grep -o -b -n -- '$p' a.log" "-o -b -n -- '$p' a.log"
  agree "-b -C 1 $p, several files" "grep -b -C 1 -- '$p' ${files[*]}" "-b -C 1 -- '$p' ${files[*]}"
  agree "-m 3 -n $p" "grep -m 3 -n -- '$p' a.log" "-m 3 -n -- '$p' a.log"
  agree "-c $p, several files" "grep -c -- '$p' ${files[*]}" "-c -- '$p' ${files[*]}"
  agree "-l $p" "grep -l -- '$p' ${files[*]}" "-l -- '$p' ${files[*]}"
  # -L: grep's list; exit status as ripgrep's (0 when a file is listed; grep: when a line matched)
  agree "-L $p" "grep -L -- '$p' ${files[*]}; rg --files-without-match -- '$p' ${files[*]} >/dev/null" "-L -- '$p' ${files[*]}"
  agree "-l -v $p" "grep -l -v -- '$p' ${files[*]}" "-l -v -- '$p' ${files[*]}"
  agree "-n $p, several files" "grep -n -- '$p' ${files[*]}" "-n -- '$p' ${files[*]}"
  agree "-I -n $p" "grep -h -n -- '$p' ${files[*]}" "-I -n -- '$p' ${files[*]}"
  agree "-H -n $p" "grep -H -n -- '$p' a.log" "-H -n -- '$p' a.log"
  for c in "-A 1" "-B 2" "-C 1" "-A 3 -B 1" "-C 0"; do
    agree "$c -n $p" "grep $c -n -- '$p' ${files[*]}" "$c -n -- '$p' ${files[*]}"
  done
  agree "-C 2 -m 2 $p" "grep -C 2 -m 2 -n -- '$p' a.log" "-C 2 -m 2 -n -- '$p' a.log"
  agree "-r -n $p" "rg --sort path -n -- '$p'" "-r -n -- '$p'"
  agree "-r -n $p sub" "rg --sort path -n -- '$p' sub" "-r -n -- '$p' sub"
  agree "-r -c $p" "rg --sort path -c --include-zero -- '$p' ." "-r -c -- '$p' ."
  agree "-f, -n" "grep -n -F -e error -e disk -e net a.log" "-n -e error -e disk -e net a.log"
  agree "-l --null $p" "grep -l --null -- '$p' ${files[*]}" "-l --null -- '$p' ${files[*]}"
  agree "-c --null $p" "grep -c --null -- '$p' ${files[*]}" "-c --null -- '$p' ${files[*]}"
done
# a stream, cut into small chunks: lines and context across every chunk edge
for p in error 'disk net'; do
  agree "stream -C 1 $p" "grep -C 1 -n -- '$p' a.log" "-C 1 -n --chunk-size 97 -- '$p' - < a.log"
  agree "stream -v -c $p" "grep -v -c -- '$p' a.log" "-v -c --chunk-size 13 -- '$p' - < a.log"
  agree "stream -o $p" "grep -o -- '$p' a.log" "-o --chunk-size 7 -- '$p' - < a.log"
  agree "stream -b -n $p" "grep -b -n -- '$p' a.log" "-b -n --chunk-size 11 -- '$p' - < a.log"
done
# long lines (up to 600 KB, no newline for many chunks) between short ones, cut into chunks:
# each line is looked at again after every chunk until its newline comes
python3 -c "
import random
r = random.Random(9)
for i in range(12):
    n = r.choice([0, 3, 50, 70000, 600000])
    s = ''.join(r.choice('acgt') for _ in range(n))
    if i % 3 == 0 and n > 100: s = s[:n // 2] + 'gattaca' + s[n // 2:]
    print(s)" > long.txt
for args in "-c gattaca" "-n -o gattaca" "-v -c gattaca" "-n -C 1 ttttttttttt" "-c acgtacgtacgt"; do
  agree "long lines $args" "grep $args long.txt" "$args --chunk-size 4096 - < long.txt"
  agree "long lines, mapped, $args" "grep $args long.txt" "$args long.txt"
done
# counted lines (-c, -v -c, -l, -q) place the hits among the line ends the workers find: long
# lines cut into small slices, exact and approximate, with and without a final newline
for args in "-c gattaca" "-v -c gattaca" "-c acgtacgtacgt" "-v -c acgtacgtacgt" "-c -i GATTACA" "-l gattaca"; do
  agree "long lines, small slices, $args" "grep $args long.txt" "$args --slice-size 4096 long.txt"
done
agree "long lines -k 1 -c, small slices" "$T search --format tsv -k 1 gattaca long.txt | python3 -c \"
import sys
text = open('long.txt', 'rb').read()
print(len({text.count(b'\\\\n', 0, int(l.split('\\\\t')[1])) for l in sys.stdin}))\"" "-k 1 -c --slice-size 4096 gattaca long.txt"
# many short lines, several hits on some, in small slices: the workers count the lines that lie
# whole in their slices themselves (search_sink::settles_lines), -m stops at the count
python3 -c "
import random
r = random.Random(11)
for i in range(30000):
    print(''.join(r.choice('acgt') for _ in range(r.choice([0, 5, 30, 80, 200]))))" > short.txt
for args in "-c gat" "-c -m 777 gat" "-v -c gat" "-v -c -m 50 gat" "-c gattaca" "-l gattaca" "-c -i GATC" "-c -m 1 zzz"; do
  agree "short lines, small slices, $args" "grep $args short.txt" "$args --slice-size 1000 short.txt"
done
# slices of several of the workers' 512 KiB steps (kLineStep), whose lines the steps cut
for args in "-c gat" "-v -c gat" "-c -m 777 gat" "-l gattaca"; do
  agree "short lines, slices of several steps, $args" "grep $args short.txt" "$args -j 2 --slice-size 1500000 short.txt"
done
for args in "-c gattaca" "-v -c gattaca" "-c -i GATTACA" "-c acgtacgtacgt"; do
  agree "long lines, slices of several steps, $args" "grep $args long.txt" "$args -j 2 --slice-size 3000000 long.txt"
done
agree "short lines -k 1 -c, small slices" "$T search --format tsv -k 1 gattaca short.txt | python3 -c \"
import sys
text = open('short.txt', 'rb').read()
print(len({text.count(b'\\\\n', 0, int(l.split('\\\\t')[1])) for l in sys.stdin}))\"" "-k 1 -c --slice-size 1000 gattaca short.txt"
# an approximate hit kept by the next slice may start on a line this slice's worker sees whole
# (it crosses the line's '\n' and the slice's end): that line is counted once
printf 'x\nACGTACGTTTT\nTTTTzz\n' > cross.txt
agree "-k 1 -c, a hit across a line break and a slice edge" "echo 1" "-k 1 -e ACGTACGT -e TTTTTTTT --slice-size 16 -c cross.txt"
agree "-k 1 -v -c, a hit across a line break and a slice edge" "echo 2" "-k 1 -v -e ACGTACGT -e TTTTTTTT --slice-size 16 -c cross.txt"
head -c -1 long.txt > long_nofinal.txt
agree "no final newline, -l -v gattaca" "grep -l -v gattaca long_nofinal.txt" "-l -v gattaca long_nofinal.txt"
for args in "-c gattaca" "-v -c gattaca" "-v -c zzz" "-c -v acgtacgtacgt"; do
  agree "no final newline, $args" "grep $args long_nofinal.txt" "$args long_nofinal.txt"
  agree "no final newline, stream, $args" "grep $args long_nofinal.txt" "$args --chunk-size 4096 - < long_nofinal.txt"
done
# approximate search in the line view: lines of the hits
agree "-k 1 -c" "$T search --format tsv -k 1 eror a.log | python3 -c \"
import sys
text = open('a.log', 'rb').read()
lines = {text.count(b'\\\\n', 0, int(l.split('\\\\t')[1])) for l in sys.stdin}
print(len(lines))\"" "-k 1 -c eror a.log"

# -E: regular expressions, against ripgrep (leftmost-first, as PCRE2)
for p in 'err(or|ors)?' '^(disk|net) ' 'time[a-z]+$' 'x( |$)' '\berror\b' '(ok|retry) (ok|retry)' 'e.r' \
         'user_?error' '[^ ]{8,}' '(\w+) \1' '(?<=disk )net' '(?i)ERROR'; do
  agree "-E -n $p" "rg -P -n -- '$p' a.log" "-E -n -- '$p' a.log"
  agree "-E -c $p" "rg -P -c -- '$p' a.log" "-E -c -- '$p' a.log"
  agree "-E -o -n $p" "rg -P -o -n -- '$p' a.log" "-E -o -n -- '$p' a.log"
  agree "-E -v -c $p" "rg -P -v -c -- '$p' a.log" "-E -v -c -- '$p' a.log"
  agree "-E -w -o $p" "rg -P -w -o -- '$p' a.log" "-E -w -o -- '$p' a.log"
  agree "-E -i -o $p" "rg -P -i -o -- '$p' a.log" "-E -i -o -- '$p' a.log"
  agree "-E -l $p" "rg -P --sort path -l -- '$p' ${files[*]}" "-E -l -- '$p' ${files[*]}"
  agree "stream -E -o $p" "rg -P -o -n -- '$p' a.log" "-E -o -n --chunk-size 7 -- '$p' - < a.log"
done
agree "-E -x" "rg -P -x -n -- '(error|disk)( (ok|x))*' a.log" "-E -x -n -- '(error|disk)( (ok|x))*' a.log"
agree "-E several" "rg -P -o -n -e 'dis.' -e 'n[a-z]t' a.log" "-E -o -n -e 'dis.' -e 'n[a-z]t' a.log"
agree "-E -f" "rg -P -c -f <(printf 'err.r\\n^ok\\n') a.log" "-E -c -f <(printf 'err.r\\n^ok\\n') a.log"
# empty matches: every line matches; -o prints none of them
agree "-E -c r*" "rg -c 'r*' a.log" "-E -c 'r*' a.log"
agree "-E -v -c r*" "grep -v -c 'r*' a.log" "-E -v -c 'r*' a.log"
agree "-E -o x*" "true" "-E -o 'x*' other/none.txt"
# hit output: each match with its coordinates
expect_out "$(printf '(standard input)\t2\t5\t0\t+\tb+\n(standard input)\t6\t8\t0\t+\tb+')" bash -c "printf 'a bbb\nbb\n' | $T search --hits -E 'b+'"
# refused: a bad expression, -E with approximate or DNA options, on the GPU, with -F
for bad in "-E (" "-E -k 1 a" "-E --both-strands a" "-E --iupac a" "-E --align a" "-E -F a" "-E --index x a" \
           "-E --algorithm simd a" "-E -w -x a" "-E --device gpu a"; do
  expect_err_line "$T" search $bad a.log
done
# a line longer than 256 KiB: one line, exit 2
head -c 300000 /dev/zero | tr '\0' a >"$D/long"
expect_err_line "$T" search -E 'a+b' "$D/long"

# --color always: the hit highlighted in the line
expect_out "$(printf '\033[32m2\033[0m:a \033[1;31merror\033[0m b')" \
  bash -c "printf 'x\na error b\n' | $T search --color always -n error"
# FASTA: -c counts records with a hit, -v -c those without
printf '>r1\nACGTAC\nGT\n>r2\nTTTT\n>r3\nCGTACG\n' >"$D/f.fa"
expect_out "2" "$T" search -c CGTA "$D/f.fa"
expect_out "1" "$T" search -v -c CGTA "$D/f.fa"
expect_out "4" "$T" search --count-matches -e CGTA -e TTT "$D/f.fa"  # TTTT holds TTT twice
expect_err_line "$T" search -n CGTA "$D/f.fa"

# pattern names from a FASTA pattern file, and the matched text (also across chunk edges of a stream)
printf '>fwd_primer some description\nACGTAC\n>rev\nTTTT\n' >"$D/prim.fa"
printf '>chr1\nGGACGTACTTTTTG\n' >"$D/g.fa"
expect_out "chr1${TAB}2${TAB}8${TAB}0${TAB}+${TAB}fwd_primer${TAB}ACGTAC
chr1${TAB}8${TAB}12${TAB}0${TAB}+${TAB}rev${TAB}TTTT
chr1${TAB}9${TAB}13${TAB}0${TAB}+${TAB}rev${TAB}TTTT" "$T" search -f "$D/prim.fa" --pattern-names --matched --chunk-size 3 - <"$D/g.fa"
expect_out '{"source":"chr1","start":2,"end":8,"errors":1,"strand":"+","pattern":"ACGTTC","matched":"ACGTAC"}' \
  "$T" search --format json --matched -k 1 ACGTTC "$D/g.fa"
want=$(grep -o -- error a.log)
expect_out "$want" bash -c "$T search --matched --chunk-size 5 error - < a.log | cut -f7"
expect_err_line "$T" search --matched --format bed error a.log
expect_err_line "$T" search --pattern-names -c error a.log

# exit status: -v with every line matching is "nothing selected"
printf 'aa\naa\n' >"$D/aa"
expect_rc 1 "$T" search -v a "$D/aa"
expect_rc 0 "$T" search -v b "$D/aa"
expect_rc 1 "$T" search -L a "$D/aa"
expect_rc 0 "$T" search -q -v b "$D/aa"
expect_rc 1 "$T" search -q -v a "$D/aa"
# a directory without -r is an error for that input only; -s silences it
expect_rc 2 "$T" search error sub a.log
expect_rc 2 "$T" search -s error no-such-file a.log
[ -s "$D/err" ] && fail "-s printed: $(cat "$D/err")" || pass

# options that do not combine: one line, exit 2, never one of them dropped
for bad in "-c -n" "-c --count-matches" "-l -L" "-o -v" "-c -l" "-w -k 1" "-x --all-ends" "-n --format json" \
           "-o -C 2" "-H -I" "--count-matches -v" "-c --align -k 1"; do
  expect_err_line "$T" search $bad error a.log
done
expect_err_line "$T" search --coutn error a.log
grep -q "did you mean --count" "$D/err" && grep -q "trawl search --help" "$D/err" && pass || fail "did-you-mean: $(cat "$D/err")"
expect_err_line "$T" serch error a.log
grep -q "did you mean search" "$D/err" && pass || fail "did-you-mean for a command: $(cat "$D/err")"

# a text file that starts with '>' is text (a quoted mail, a Markdown note): FASTA needs a
# header line and then a line of sequence letters, or a FASTA name (.fa, .fasta, ...)
mkdir -p "$D/quoted/notes"
cd "$D/quoted" || exit 2
printf '> quoted reply from bob\nhello there\n' >mail.txt
printf '> **Note**\n> bob wrote this\n\nand bob again\n' >notes/NOTES.md
printf '>r1\nACGTbob\n' >notes/seq.txt
for opt in -c -l -q -n; do
  agree "quoted $opt" "grep $opt bob mail.txt" "$opt bob mail.txt"
done
agree "quoted -rl" "grep -rl bob notes mail.txt | sort" "-rl bob notes mail.txt | sort"
agree "quoted -rc" "grep -rc bob notes | sort" "-rc bob notes | sort"
expect_out "r1${TAB}4${TAB}7${TAB}0${TAB}+${TAB}bob" "$T" search bob notes/seq.txt
cp notes/seq.txt notes/seq.fa
printf 'ACGT\n' >nohead.fa
expect_out "r1${TAB}4${TAB}7${TAB}0${TAB}+${TAB}bob" "$T" search bob notes/seq.fa
expect_err_line "$T" search ACG nohead.fa
grep -q "nohead.fa" "$D/err" && pass || fail "a FASTA without a header names the file: $(cat "$D/err")"
cd "$D/tree" || exit 2

# -r like grep and ripgrep: hidden files and folders (.git too) skipped unless --hidden; grep's
# --include/--exclude/--exclude-dir, ripgrep's -g (a '!' glob skips files and folders)
mkdir -p "$D/walk/src/.hid" "$D/walk/.git" "$D/walk/build" "$D/walk/docs"
cd "$D/walk" || exit 2
for f in src/a.c src/b.h src/.hid/c.c .git/config build/d.c docs/e.md .env; do printf 'error here\n' >"$f"; done
agree "-r hidden" "rg -l error . | sort" "-rl error . | sort"
agree "-r --hidden" "grep -rl error . | sort" "-rl --hidden error . | sort"
for opts in "--include=*.c" "--exclude=*.c" "--exclude-dir=build" "--include=*.c --exclude-dir=src" "--exclude=*.md --exclude-dir=.git"; do
  agree "-r $opts" "grep -rl $opts error . | sort" "-rl --hidden $opts error . | sort"
done
for globs in "-g *.c" "-g !*.md" "-g *.c -g !build" "-g src/*.h" "-g !src"; do
  agree "-r $globs" "rg -l $globs error . | sort" "-rl $globs error . | sort"
done
cd "$D/tree" || exit 2

# Lines by default, as grep prints them (file names with several files), exact and
# approximate; --hits for the table
for p in error disk user_error; do
  agree "lines $p" "grep -- '$p' a.log" "-- '$p' a.log"
  agree "lines $p, several files" "grep -- '$p' a.log sub/b.log other/tail.txt" "-- '$p' a.log sub/b.log other/tail.txt"
  agree "lines $p, -h" "grep -h -- '$p' a.log sub/b.log" "-I -- '$p' a.log sub/b.log"
  agree "lines $p, -m 3" "grep -m 3 -- '$p' a.log" "-m 3 -- '$p' a.log"
done
agree "lines, stdin" "grep disk <a.log" "disk <a.log"
agree "approximate lines" "python3 -c \"
import sys
def ed_in(p, t):  # the least edit distance of p to a substring of t (Sellers)
    col = list(range(len(p) + 1)); best = col[-1]
    for c in t:
        prev, col[0] = col[0], 0
        for i in range(1, len(p) + 1):
            cur = min(prev + (p[i - 1] != c), col[i] + 1, col[i - 1] + 1); prev, col[i] = col[i], cur
        best = min(best, col[-1])
    return best
for line in open('a.log'):
    if ed_in('timeuot', line.rstrip(chr(10))) <= 2: sys.stdout.write(line)
\"" "-k 2 timeuot a.log"
[ "$("$T" search --hits disk a.log | head -1 | cut -f1-3 | tr '\t' ' ')" = "$(grep -bo disk a.log | head -1 | awk -F: '{print "a.log", $1, $1 + 4}')" ] &&
  pass || fail "--hits: the table"
# Binary inputs (a NUL in the first block) as grep: one note on stderr, no bytes, exit 0;
# -a prints the lines; --binary-files=without-match skips them; -c counts their lines
printf 'ELF\0\0 GLIBC_2.2 x\nmore GLIBC_2.34\n' >"$D/tree/prog.bin"
agree "binary: -a" "grep -a GLIBC_2 prog.bin" "-a GLIBC_2 prog.bin"
agree "binary: -c" "grep -c GLIBC_2 prog.bin" "-c GLIBC_2 prog.bin"
agree "binary: without-match" "grep --binary-files=without-match GLIBC_2 prog.bin a.log" "--binary-files=without-match GLIBC_2 prog.bin a.log"
agree "binary: stdout" "grep GLIBC_2 prog.bin" "GLIBC_2 prog.bin"
"$T" search GLIBC_2 prog.bin >/dev/null 2>"$D/err"; rc=$?
[ "$rc" = 0 ] && [ "$(cat "$D/err")" = "trawl: prog.bin: binary file matches" ] && pass || fail "binary: rc $rc, [$(cat "$D/err")]"

echo "grep_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
