#!/usr/bin/env bash
# readme_test.sh TRAWL SOURCE_DIR — README.md and docs/ARCHITECTURE.md against the tree and the binary.
# README.md: at most 350 lines; its first screen (40 lines) holds the Install section's commands
# (the CI's test command among them) and a `trawl search` example; every example block, a fenced
# block after a line `<!-- example: NAME -->`, prints what the README shows. In such a block a
# line `$ CMD` is a command and the lines after it, up to the next command, its output (stdout and
# stderr). The commands of one block run in order, in one bash and a folder of their own, with
# `trawl` standing for TRAWL. `<!-- example: NAME demo -->`: run beside the demo genome
# build/demo/genome.fa, made as scripts/setup.sh makes it, by $TRAWL_MKGENOME or else
# bench/trawl-mkgenome beside TRAWL (skipped, visibly, when there is none). The examples `grep`
# and `fasta` must exist: they need nothing but TRAWL. An example whose commands run `mpirun`
# finds `trawl` on PATH, and is skipped (visibly) without mpirun or a trawl built with MPI. The C++ example compiles against the
# libtrawl.so beside TRAWL and prints its output (the Python one: tests/python/test_trawl.py).
# docs/ARCHITECTURE.md: every repository path it names in backticks exists (a folder: `src/hits/`;
# a file under a top-level folder: `src/approx/plan.cpp`), and it names every folder under src/
# and every top-level folder git tracks, as `NAME/`.
# README.md and docs/*.md: every relative link names a file of the tree, and its anchor a heading;
# every block between `<!-- generated: CMD -->` and `<!-- end generated -->` is what CMD prints.
set -u
T=$1
SRC=$2
. "$(dirname "$0")/lib.sh"
case $T in /*) ;; *) T=$PWD/$T ;; esac
R=$SRC/README.md
A=$SRC/docs/ARCHITECTURE.md

# --- the README's size and first screen
n=$(wc -l <"$R")
[ "$n" -le 350 ] && pass || fail "README.md has $n lines, want at most 350"
head -40 "$R" >"$D/screen"
# the Install section's commands: its first fenced block, less comment-only lines
awk '/^## Install/ {s = 1; next} s && /^```/ {if (b) exit; b = 1; next} b' "$R" >"$D/install"
grep -v '^[[:space:]]*#' "$D/install" | grep -v '^[[:space:]]*$' >"$D/install_cmds"
[ "$(wc -l <"$D/install_cmds")" -ge 2 ] && pass || fail "README.md: the Install section's first block has fewer than two commands"
while IFS= read -r line; do
  grep -qxF -- "$line" "$D/screen" && pass || fail "README.md: the Install command [$line] is not in the first 40 lines"
done <"$D/install_cmds"
if [ -f "$SRC/.ci/run" ]; then  # the CI runs the README's test command
  ci=$(sed -n 's/^exec //p' "$SRC/.ci/run" | head -1)
  sed 's/[[:space:]]*#.*//' "$D/install_cmds" | grep -qxF -- "$ci" && pass ||
    fail "README.md: the CI's command [$ci] (.ci/run) is not one of the Install section's commands"
fi
grep -q '^\$ trawl search ' "$D/screen" && pass || fail "README.md: no \`\$ trawl search\` example in the first 40 lines"

# --- the example blocks: N.name, N.demo (if marked so), N.cmds (one a line), N.want (the
# transcript: @@i@@ before the output of command i)
X=$D/examples
mkdir -p "$X"
awk -v dir="$X" '
  /^<!-- example: [^ ]+( demo)? -->$/ { n++; state = 1; print $3 > (dir "/" n ".name")
    if ($4 == "demo") print "" > (dir "/" n ".demo")
    printf "" > (dir "/" n ".cmds"); printf "" > (dir "/" n ".want"); next }
  state == 1 && /^```/ { state = 2; c = 0; next }
  state == 2 && /^```/ { state = 0; next }
  state == 2 && /^\$ / { print substr($0, 3) > (dir "/" n ".cmds"); print "@@" c++ "@@" > (dir "/" n ".want"); next }
  state == 2 { print > (dir "/" n ".want") }' "$R"
names=$(cat "$X"/*.name 2>/dev/null | tr '\n' ' ')
for need in grep fasta; do
  case " $names" in *" $need "*) pass ;; *) fail "README.md: no example block marked <!-- example: $need -->" ;; esac
done

MK=${TRAWL_MKGENOME:-$(dirname "$T")/bench/trawl-mkgenome}
demo=""
if [ -x "$MK" ]; then
  # setup.sh's trawl-mkgenome arguments (a command continued over lines with '\', output to build/demo/genome.fa)
  read -ra mkargs <<<"$(sed -n '/trawl-mkgenome /,/genome\.fa$/p' "$SRC/scripts/setup.sh" | sed 's/\\$//' | tr '\n' ' ' |
    sed 's/.*trawl-mkgenome //; s/>.*//')"
  mkdir -p "$D/demo/build/demo"
  if [ "${#mkargs[@]}" -gt 0 ] && (cd "$D/demo" && "$MK" "${mkargs[@]}" >build/demo/genome.fa) 2>"$D/mk.err"; then
    demo=$D/demo/build/demo/genome.fa
    pass
  else
    fail "could not make the demo genome with $MK and scripts/setup.sh's arguments [${mkargs[*]:-}]: $(head -c 200 "$D/mk.err")"
  fi
fi

for f in "$X"/*.name; do
  [ -e "$f" ] || break
  i=${f%.name}
  name=$(cat "$f")
  if [ -e "$i.demo" ] && [ -z "$demo" ]; then
    echo "SKIP: README example $name: no demo genome (no trawl-mkgenome at $MK; set TRAWL_MKGENOME)"
    continue
  fi
  dir=$D/run-$(basename "$i")
  mkdir -p "$dir"
  if [ -e "$i.demo" ]; then mkdir -p "$dir/build/demo" && ln -s "$demo" "$dir/build/demo/genome.fa"; fi
  # an example that runs mpirun finds `trawl` on PATH (mpirun starts programs, not functions);
  # it needs mpirun and a trawl built with MPI
  mpi=0
  if grep -q '^mpirun ' "$i.cmds"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    printf 'hello\n' >"$D/mpi_probe.txt"
    if ! command -v mpirun >/dev/null ||
      [ "$(timeout 60 mpirun -np 2 "$T" search -c hello "$D/mpi_probe.txt" 2>/dev/null | wc -l)" != 1 ]; then
      echo "SKIP: README example $name: no mpirun, or trawl was built without MPI"
      continue
    fi
    mpi=1
    mkdir -p "$D/mpibin" && ln -sf "$T" "$D/mpibin/trawl"
  fi
  {
    printf 'trawl() { %q "$@"; }\n' "$T"
    [ "$mpi" = 1 ] && printf 'export PATH=%q:"$PATH"\n' "$D/mpibin"
    c=0
    while IFS= read -r cmd; do
      printf "echo '@@%d@@'\n%s\n" "$c" "$cmd"
      c=$((c + 1))
    done <"$i.cmds"
  } >"$i.sh"
  [ -s "$i.cmds" ] && pass || fail "README example $name: no \$ command in its block"
  (cd "$dir" && timeout 60 bash "$i.sh" >"$i.got" 2>&1)
  if cmp -s "$i.want" "$i.got"; then pass; else
    fail "README example $name: the output differs from the README's (< README, > $T):
$(diff "$i.want" "$i.got" | head -12)"
  fi
done

# --- docs/ARCHITECTURE.md names the tree as it is
if [ ! -f "$A" ]; then
  fail "no docs/ARCHITECTURE.md"
else
  grep -o '`[^`]*`' "$A" | tr -d '`' | sort -u >"$D/tokens"
  paths=0
  while IFS= read -r t; do
    [[ $t =~ ^[A-Za-z0-9_.+-]+(/[A-Za-z0-9_.+-]+)*/?$ && $t == */* ]] || continue
    top=${t%%/*}
    if [[ $t == */ ]] || [ -d "$SRC/$top" ]; then
      paths=$((paths + 1))
      [ -e "$SRC/$t" ] && pass || fail "docs/ARCHITECTURE.md names \`$t\`, which is not in $SRC"
    fi
  done <"$D/tokens"
  [ "$paths" -ge 10 ] && pass || fail "docs/ARCHITECTURE.md: only $paths repository paths in backticks"
  for d in "$SRC"/src/*/; do
    name=src/$(basename "$d")/
    grep -qF "\`$name\`" "$A" && pass || fail "docs/ARCHITECTURE.md does not name \`$name\`"
  done
  if tops=$(git -C "$SRC" ls-files 2>/dev/null | sed -n 's|^\([^./][^/]*\)/.*|\1|p' | sort -u) && [ -n "$tops" ]; then
    for t in $tops; do
      grep -qF "\`$t/\`" "$A" && pass || fail "docs/ARCHITECTURE.md does not name the top-level folder \`$t/\`"
    done
  else
    echo "SKIP: $SRC is not a git checkout: top-level folders not checked against docs/ARCHITECTURE.md"
  fi
fi

# --- the links of README.md and docs/*.md: a relative link names a file of the tree, and an
# anchor one of its headings (GitHub's slugs: lower case, punctuation dropped, spaces as '-')
slugs() { awk '/^```/ {f = !f; next} !f && /^#+ /' "$1" | sed -E 's/^#+ +//' | tr 'A-Z' 'a-z' |
  sed -E 's/[^a-z0-9 _-]//g; s/ /-/g'; }
for doc in "$R" "$SRC"/docs/*.md; do
  links=0
  while IFS= read -r l; do
    case $l in http:* | https:* | mailto:*) continue ;; esac
    path=${l%%#*}
    anchor=""
    [[ $l == *#* ]] && anchor=${l#*#}
    target=$doc
    [ -n "$path" ] && target=$(dirname "$doc")/$path
    links=$((links + 1))
    if [ ! -e "$target" ]; then
      fail "${doc#"$SRC"/}: the link ($l) names no file"
    elif [ -n "$anchor" ]; then
      slugs "$target" | grep -qxF -- "$anchor" && pass || fail "${doc#"$SRC"/}: the link ($l) names no heading of ${target#"$SRC"/}"
    else
      pass
    fi
  done < <(awk '/^```/ {f = !f; next} !f' "$doc" | grep -oE '\]\([^) ]+\)' | sed -E 's/^\]\((.*)\)$/\1/')
done

# --- generated blocks: `<!-- generated: CMD -->` ... `<!-- end generated -->` hold what CMD prints,
# run in the source tree (docs/PERFORMANCE.md's tables from bench/records)
for doc in "$R" "$SRC"/docs/*.md; do
  while IFS= read -r cmd; do
    want=$(cd "$SRC" && bash -c "$cmd" 2>&1)
    got=$(awk -v c="<!-- generated: $cmd -->" '$0 == c {f = 1; next} /^<!-- end generated -->$/ {f = 0} f' "$doc")
    [ "$want" = "$got" ] && pass || fail "${doc#"$SRC"/}: the block generated by [$cmd] is not what it prints now"
  done < <(sed -n 's/^<!-- generated: \(.*\) -->$/\1/p' "$doc")
done

# --- the C++ example: first.cpp, compiled against the library beside TRAWL, prints what the
# README shows after `$ ./a.out` (not under the sanitizers: the library's runtime comes first)
lib=$(dirname "$T")/libtrawl.so
if [ "$sanitized" = 0 ] && [ -e "$lib" ] && command -v g++ >/dev/null; then
  awk '/^## C\+\+/ {s = 1} s && /^```cpp/ {b = 1; next} b && /^```/ {exit} b' "$R" >"$D/first.cpp"
  awk '/^## C\+\+/ {s = 1} s && /^\$ \.\/a\.out/ {o = 1; next} o && /^```/ {exit} o' "$R" >"$D/first.want"
  [ -s "$D/first.cpp" ] && [ -s "$D/first.want" ] && pass || fail "README.md: no C++ example with its output"
  if g++ -std=c++20 -I "$SRC/include" "$D/first.cpp" -o "$D/first" "$lib" -Wl,-rpath,"$(dirname "$lib")" 2>"$D/first.err"; then
    "$D/first" >"$D/first.out" 2>&1
    same "$D/first.want" "$D/first.out" "README.md's C++ example"
  else
    fail "README.md's C++ example does not compile: $(head -c 300 "$D/first.err")"
  fi
else
  echo "readme_test: the C++ example is not compiled here (sanitized build, or no libtrawl.so beside $T)" >&2
fi

echo "readme_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
