#!/usr/bin/env bash
# readme_test.sh TRAWL SOURCE_DIR — README.md and docs/ARCHITECTURE.md against the tree and the binary.
# README.md: at most 350 lines; its first screen (40 lines) holds the Install section's commands
# (the CI's test command among them) and a `trawl search` example. In README.md,
# docs/SEMANTICS.md and docs/USAGE.md every example block, a fenced block after a line
# `<!-- example: NAME -->`, prints what the document shows. In such a block a line `$ CMD` is a
# command and the lines after it, up to the next command, its output (stdout and stderr). The
# commands of one block run in order, in one bash and a folder of their own, with `trawl`
# standing for TRAWL. `<!-- example: NAME demo -->`: run beside the demo genome
# build/demo/genome.fa, made as scripts/setup.sh makes it, by $TRAWL_MKGENOME or else
# bench/trawl-mkgenome beside TRAWL (skipped, visibly, when there is none).
# `<!-- example: NAME commands -->`: a block of command lines without their output (the
# cheat sheets of docs/USAGE.md), each line not a comment a command that must end with status 0
# or 1, run beside stand-ins for the files the lines name (made here: see stand_ins; the
# genome, build/demo/genome.fa too, is the demo's on 400 kbp); `tail -f` reads its file once. The examples `grep` and `fasta` must exist: they
# need nothing but TRAWL. An example whose commands run `mpirun` finds `trawl` on PATH, and is
# skipped (visibly) without mpirun or a trawl built with MPI; `srun CMD` runs CMD. The C++
# example compiles against the libtrawl.so beside TRAWL and prints its output (the Python one:
# tests/python/test_trawl.py, which also runs docs/USAGE.md's Python block); docs/USAGE.md's C++
# fragments compile as the body of a function given `text` and `my_site_sink`.
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
for doc in "$R" "$SRC/docs/SEMANTICS.md" "$SRC/docs/USAGE.md"; do
  [ -f "$doc" ] || continue
  awk -v dir="$X" -v doc="${doc#"$SRC"/}" -v n="$(find "$X" -name '*.name' | wc -l)" '
    /^<!-- example: [^ ]+( demo| commands)? -->$/ { n++; state = 1; mode = $4 == "commands" ? $4 : ""
      print doc ": " $3 > (dir "/" n ".name")
      if ($4 == "demo" || $4 == "commands") print "" > (dir "/" n ".demo")
      if ($4 == "commands") print "" > (dir "/" n ".commands")
      printf "" > (dir "/" n ".cmds"); printf "" > (dir "/" n ".want"); next }
    state == 1 && /^```/ { state = 2; c = 0; next }
    state == 2 && /^```/ { state = 0; next }
    state == 2 && mode == "" && /^\$ / { print substr($0, 3) > (dir "/" n ".cmds"); print "@@" c++ "@@" > (dir "/" n ".want"); next }
    state == 2 { print > (dir "/" n ".want") }' "$doc"
done
names=$(cat "$X"/*.name 2>/dev/null | tr '\n' ' ')
for need in grep fasta; do
  case " $names" in *"README.md: $need "*) pass ;; *) fail "README.md: no example block marked <!-- example: $need -->" ;; esac
done
grep -q 'commands' "$SRC/docs/USAGE.md" 2>/dev/null && [ "$(find "$X" -name '*.commands' | wc -l)" -ge 5 ] && pass ||
  fail "docs/USAGE.md: fewer than five command blocks marked <!-- example: NAME commands -->"

# stand_ins DIR: the files docs/USAGE.md's command blocks name, small, beside the demo genome
stand_ins() {
  local d=$1
  cp "$D/small/genome.fa" "$d/genome.fa" && gzip -kf "$d/genome.fa"
  printf 'GACGCATAAAGATGAGACGC\nTTGACGGATCAG\n' >"$d/patterns.txt"
  printf 'line with GACGCATAAAGATGAGACGC\nnothing\n' >"$d/big.txt"
  printf '>bc1\nACGTACGTAC\n>bc2\nTTGCAACGGA\n' >"$d/barcodes.fa"
  printf 'g1 GACGCATAAAGATGAGACGC\n' >"$d/guides.txt"
  printf '>g1\nGACGCATAAAGATGAGACGC\n' >"$d/guides.fa"
  printf 'ERROR: 3 files\nok\n' >"$d/app.log"
  mkdir -p "$d/docs" "$d/build" && printf '# notes\nTODO: more\n' >"$d/docs/notes.md"
  printf 'void *p = malloc(8);\n' >"$d/a.c" && cp "$d/a.c" "$d/build/b.c"
  local r
  for r in reads sample_R1 sample_R2; do
    printf '@r1\nACGTAGATCGGAAGAGCACAC\n+\nIIIIIIIIIIIIIIIIIIIII\n@r2\nACGTACGTACGTACGTACGTA\n+\nIIIIIIIIIIIIIIIIIIIII\n' |
      gzip >"$d/$r.fq.gz"
  done
}

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
    # the command blocks' stand-in genome: the demo's records and motifs on 400 kbp, so that the
    # blocks stay quick under the sanitizers
    mkdir -p "$D/small" && "$MK" --length 400000 --records 4 --motif GACGCATAAAGATGAGACGCTGG --exact 10 --mutated 10 \
      --errors 2 --seed 1 >"$D/small/genome.fa" && pass || fail "could not make the command blocks' genome with $MK"
  else
    fail "could not make the demo genome with $MK and scripts/setup.sh's arguments [${mkargs[*]:-}]: $(head -c 200 "$D/mk.err")"
  fi
fi

for f in "$X"/*.name; do
  [ -e "$f" ] || break
  i=${f%.name}
  name=$(cat "$f")
  if [ -e "$i.demo" ] && [ -z "$demo" ]; then
    echo "SKIP: example $name: no demo genome (no trawl-mkgenome at $MK; set TRAWL_MKGENOME)"
    continue
  fi
  dir=$D/run-$(basename "$i")
  mkdir -p "$dir"
  if [ -e "$i.commands" ]; then mkdir -p "$dir/build/demo" && cp "$D/small/genome.fa" "$dir/build/demo/genome.fa"
  elif [ -e "$i.demo" ]; then mkdir -p "$dir/build/demo" && ln -s "$demo" "$dir/build/demo/genome.fa"; fi
  # a command block: each line not a comment is a command
  [ -e "$i.commands" ] && grep -v '^[[:space:]]*#' "$i.want" | grep -v '^[[:space:]]*$' >"$i.cmds"

  # an example that runs mpirun finds `trawl` on PATH (mpirun starts programs, not functions);
  # it needs mpirun and a trawl built with MPI
  mpi=0
  if grep -q '^mpirun ' "$i.cmds"; then
    export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
    printf 'hello\n' >"$D/mpi_probe.txt"
    if ! command -v mpirun >/dev/null ||
      [ "$(timeout 60 mpirun -np 2 "$T" search -c hello "$D/mpi_probe.txt" 2>/dev/null | wc -l)" != 1 ]; then
      echo "SKIP: example $name: no mpirun, or trawl was built without MPI"
      continue
    fi
    mpi=1
    mkdir -p "$D/mpibin" && ln -sf "$T" "$D/mpibin/trawl"
  fi
  if [ -e "$i.commands" ]; then
    # each command must end with status 0 (hits) or 1 (none); in order, in one bash
    stand_ins "$dir"
    {
      printf 'trawl() { %q "$@"; }\n' "$T"
      [ "$mpi" = 1 ] && printf 'export PATH=%q:"$PATH"\n' "$D/mpibin"
      printf 'tail() { local a=(); for x; do [ "$x" = -f ] || a+=("$x"); done; command tail "${a[@]}"; }\n'
      printf 'srun() { "$@"; }\n'
      c=0
      while IFS= read -r cmd; do
        # every command of a pipeline: 0, 1, or killed by SIGPIPE when a later one stops reading
        printf '%s\nfor rc in "${PIPESTATUS[@]}"; do [ $rc -le 1 ] || [ $rc = 141 ] || echo "@@%d@@ status $rc: %s"; done\n' \
          "$cmd" "$c" "${cmd//[\'\"\$\`]/}"
        c=$((c + 1))
      done <"$i.cmds"
    } >"$i.sh"
    [ -s "$i.cmds" ] && pass || fail "example $name: no command in its block"
    (cd "$dir" && timeout 120 bash "$i.sh" >"$i.got" 2>&1)
    [ $? = 124 ] && echo "@@-@@ status 124: the block ran past 120 s" >>"$i.got"
    if grep -q '^@@[0-9-]*@@ status' "$i.got"; then
      fail "example $name: a command failed: $(grep -B3 '^@@[0-9-]*@@ status' "$i.got" | head -8)"
    else
      pass
    fi
    continue
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
  [ -s "$i.cmds" ] && pass || fail "example $name: no \$ command in its block"
  (cd "$dir" && timeout 60 bash "$i.sh" >"$i.got" 2>&1)
  if cmp -s "$i.want" "$i.got"; then pass; else
    fail "example $name: the output differs from the document's (< document, > $T):
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

# --- docs/USAGE.md's C++ fragments: their #include lines, then the rest as the body of one
# function whose parameters are the names the fragments take as given
if command -v g++ >/dev/null && [ -f "$SRC/docs/USAGE.md" ]; then
  awk '/^```cpp/ {b = 1; next} b && /^```/ {b = 0; next} b' "$SRC/docs/USAGE.md" >"$D/usage.cpp.in"
  {
    grep '^#include' "$D/usage.cpp.in"
    echo '#include <cstdio>'
    echo 'void usage_fragments(std::string_view text, trawl::offtarget::site_sink& my_site_sink) {'
    grep -v '^#include' "$D/usage.cpp.in"
    echo '}'
  } >"$D/usage.cpp"
  [ "$(grep -c . "$D/usage.cpp.in")" -ge 5 ] && pass || fail "docs/USAGE.md: no C++ fragments"
  if g++ -std=c++20 -fsyntax-only -I "$SRC/include" "$D/usage.cpp" 2>"$D/usage.err"; then pass; else
    fail "docs/USAGE.md's C++ fragments do not compile: $(head -c 400 "$D/usage.err")"
  fi
fi

echo "readme_test: $checks checks, $fails failed"
[ "$fails" = 0 ]
