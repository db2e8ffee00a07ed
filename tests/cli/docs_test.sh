#!/usr/bin/env bash
# docs_test.sh TRAWL SOURCE_DIR — scripts/gen-docs.py's man page and completions against the CLI:
# trawl.1 renders without warnings (groff, else man, else mandoc; a structural check in any case)
# and lists every long option of every command's --help; its EXIT STATUS matches the binary and its
# ENVIRONMENT names every getenv() of the sources; the bash completion completes subcommands,
# options and option values; `zsh -n _trawl` and `fish -n trawl.fish` where those shells exist.
set -u
T=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
G=$D/docs

if ! python3 "$SRC/scripts/gen-docs.py" "$T" "$G" 2>"$D/gen.err"; then
  echo "FAIL: scripts/gen-docs.py failed: $(head -c 300 "$D/gen.err")" >&2
  exit 1
fi
for f in trawl.1 trawl.bash _trawl trawl.fish; do
  [ -s "$G/$f" ] && pass || fail "gen-docs.py wrote no $f"
done
M=$G/trawl.1

# --- the man page: structure (always), then a renderer's warnings
if LC_ALL=C grep -qP '[^\x00-\x7f]' "$M"; then fail "trawl.1: non-ASCII bytes (escape them)"; else pass; fi
if grep -qn '^$' "$M"; then fail "trawl.1: blank lines (use .PP)"; else pass; fi
[ "$(grep -m1 '^\.[A-Z]' "$M" | cut -c1-10)" = ".TH TRAWL " ] && pass || fail "trawl.1: the first macro is not .TH TRAWL"
for s in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS '"EXIT STATUS"|EXIT STATUS' ENVIRONMENT '"SEE ALSO"|SEE ALSO'; do
  grep -qE "^\.SH ($s)\$" "$M" && pass || fail "trawl.1: no .SH $s section"
done
bad=$(grep -nE "^[.']" "$M" | grep -vE "^[0-9]+:\.(\\\\\"|TH|SH|SS|PP|TP|IP|B|I|BR|IR|RS|RE|nf|fi|br)( |\$)" | head -3)
[ -z "$bad" ] && pass || fail "trawl.1: unknown request or unescaped leading '.'/\"'\": $bad"
stray='(^|[^\\])\\([^-:efs&([]|$)'  # a backslash that starts none of the escapes gen-docs.py writes
bad=$(grep -nE "$stray" "$M" | grep -vE '^[0-9]+:\.\\"' | head -2)
[ -z "$bad" ] && pass || fail "trawl.1: a stray backslash: $bad"
if command -v groff >/dev/null; then
  renderer="groff -man -Tutf8 -ww"
  groff -man -Tutf8 -ww "$M" >"$D/man.txt" 2>"$D/man.err"
elif command -v man >/dev/null; then
  renderer="man -l --warnings=w"
  MANWIDTH=80 man -l --warnings=w "$M" >"$D/man.txt" 2>"$D/man.err"
elif command -v mandoc >/dev/null; then
  renderer="mandoc -T lint"
  mandoc -T lint -W warning "$M" >"$D/man.err" 2>&1
  mandoc -T utf8 "$M" >"$D/man.txt" 2>/dev/null
else
  renderer=""
  echo "SKIP: no groff, man or mandoc: trawl.1 checked for structure only"
fi
if [ -n "$renderer" ]; then
  [ ! -s "$D/man.err" ] && pass || fail "$renderer warns on trawl.1: $(head -3 "$D/man.err" | tr '\n' ' ')"
  sed 's/.\x08//g' "$D/man.txt" >"$D/man.plain"  # no overstrike (bold, underline)
  grep -q '^EXIT STATUS' "$D/man.plain" && grep -q '^ *trawl index verify' "$D/man.plain" && pass ||
    fail "$renderer: the rendered trawl.1 lacks its sections"
fi

# --- every long option of every command's --help is in the man page, as \fB\-\-NAME\fR
commands=("")
for ((i = 0; i < ${#commands[@]}; i++)); do
  c=${commands[i]}
  # shellcheck disable=SC2086
  "$T" $c --help >"$D/help" 2>&1 || fail "trawl $c --help: exit status $?"
  for sub in $(awk '/^Subcommands:$/ {s = 1; next} s && /^  [^ ]/ {print $1} s && /^$/ {s = 0}' "$D/help"); do
    commands+=("${c:+$c }$sub")
  done
  for opt in $(sed -n 's/^  \(-[^ ]*\).*/\1/p' "$D/help" | tr ',' '\n' | grep '^--'); do
    roff="\\fB$(printf '%s' "$opt" | sed 's/-/\\-/g')\\fR"
    grep -qF -- "$roff" "$M" && pass || fail "trawl.1 does not document $opt (trawl $c)"
  done
done
[ "${#commands[@]}" -ge 11 ] && pass || fail "found ${#commands[@]} commands in the --help texts, want >= 11"
grep -qF '.SS "trawl index verify"' "$M" && pass || fail "trawl.1: no subsection for trawl index verify"

# --- EXIT STATUS: what the man page says is what the binary does
for code in 0 1 2; do
  sed -n '/^\.SH EXIT STATUS/,/^\.SH/p' "$M" | grep -qx "\.B $code" && pass || fail "trawl.1: EXIT STATUS lacks $code"
done
printf 'hello\nworld\n' >"$D/t.txt"
expect_rc 0 "$T" search hello "$D/t.txt"
expect_rc 1 "$T" search zzz "$D/t.txt"
expect_rc 2 "$T" search zzz "$D/missing.txt"
expect_rc 2 "$T" search --no-such-option x
expect_rc 2 "$T"
expect_rc 0 "$T" best hel "$D/t.txt"
expect_rc 0 "$T" index build -q -o "$D/t.thi" "$D/t.txt"
expect_rc 1 "$T" index count "$D/t.thi" zzz
expect_rc 0 "$T" index count "$D/t.thi" zzz hello
expect_rc 0 "$T" index verify "$D/t.thi"

# --- ENVIRONMENT: every variable the sources read
env_sec=$(sed -n '/^\.SH ENVIRONMENT/,/^\.SH/p' "$M")
vars=$(grep -rhoE 'getenv\("[A-Za-z_][A-Za-z0-9_]*"\)' "$SRC/apps" "$SRC/src" "$SRC/include" 2>/dev/null |
  sed 's/getenv("\(.*\)")/\1/' | sort -u)
[ -n "$vars" ] && pass || fail "no getenv() found under $SRC/apps, src, include (wrong SOURCE_DIR?)"
for v in $vars; do
  grep -qF "$(printf '%s' "$v" | sed 's/-/\\-/g')" <<<"$env_sec" && pass || fail "trawl.1: ENVIRONMENT lacks $v (read by the sources)"
done

# --- bash: call the completion function as `complete -F` would
bash -n "$G/trawl.bash" && pass || fail "bash -n trawl.bash: syntax error"
# comp WANT WORD... : the completions of the last WORD (the cursor's), sorted, space-separated
comp() {
  local want=$1 got
  shift
  got=$(bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMPREPLY=(); _trawl
    printf "%s\n" "${COMPREPLY[@]}" | sort | tr "\n" " "' _ "$G/trawl.bash" "$@" 2>&1)
  [ "${got% }" = "$want" ] && pass || fail "bash completion of '$*': got [${got% }] want [$want]"
}
comp "search" trawl se
comp "--both-strands" trawl search --both
comp "best index offtarget pack search" trawl ""
comp "--help --version" trawl --
comp "build" trawl index b
comp "always auto never" trawl search --color ""
comp "always" trawl search --color = al
comp "auto cpu gpu gpu:all" trawl search -k 1 --device ""
comp "all" trawl search --device gpu : a
comp "3 5" trawl offtarget --pam-side ""
comp "--engine" trawl index locate x.thi --eng
comp "--line-number --line-regexp --line-width --lines" trawl search -e x --line
comp "" trawl search -o x

# --- zsh, fish: syntax, where installed
if command -v zsh >/dev/null; then
  zsh -n "$G/_trawl" 2>"$D/zsh.err" && pass || fail "zsh -n _trawl: $(head -2 "$D/zsh.err" | tr '\n' ' ')"
  head -1 "$G/_trawl" | grep -qx '#compdef trawl' && pass || fail "_trawl: the first line is not #compdef trawl"
else
  echo "SKIP: zsh not installed: _trawl not checked"
fi
if command -v fish >/dev/null; then
  fish -n "$G/trawl.fish" 2>"$D/fish.err" && pass || fail "fish -n trawl.fish: $(head -2 "$D/fish.err" | tr '\n' ' ')"
  got=$(fish --no-config -c 'source $argv[1]; complete -C"trawl search --both"' "$G/trawl.fish" 2>&1 | cut -f1)
  [ "$got" = "--both-strands" ] && pass || fail "fish completion of 'trawl search --both': got [$got]"
else
  echo "SKIP: fish not installed: trawl.fish not checked"
fi

echo "docs_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
