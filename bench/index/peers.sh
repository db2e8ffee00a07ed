#!/usr/bin/env bash
# peers.sh — the Hybrid Index against its peers r-index and Move-r, one run, same texts and same
# patterns, one thread; writes machine-readable records (CSV) to bench/records/.
#
#   bench/index/peers.sh [--help] [TEXT ...]
#
# TEXT: file names under $CORPORA (default: kjv-rep50.txt repetitive-100m.txt, plus the pangenome
# when PANGENOME is set). Environment (all optional):
#   PEERS_DIR     where the peers are checked out and built (default /work/peers); nothing of the
#                 peers ever goes into this repository
#   MIRRORS       bare git repositories to take the peers' sources from when PEERS_DIR lacks them
#                 (default /work/.mirror, laid out as MIRRORS/<owner>+<name>/repo); see "Sources" below
#   CORPORA       the corpora (default /work/corpora; patterns in CORPORA/patterns/<text>.<m>.txt)
#   BUILD         trawl's build folder with trawl and bench/index/trawl_index_bench (default build-dev)
#   PANGENOME     BASE_LEN: also a pangenome of 64 haplotypes of a random BASE_LEN-bp genome
#                 (trawl-mkgenome as in pangenome.sh, the haplotypes one per line as plain text)
#   LENGTHS       pattern lengths m (default "4 8 16 32")
#   RUNS          best of RUNS for every timing (default 3)
#   COUNT_REPEAT  the count set is the 1000 patterns COUNT_REPEAT times over (default 10; r-index
#                 reports whole milliseconds); trawl-small (no count index: count takes time in the
#                 occurrences) counts the locate set instead
#   OCC_CAP       the locate set is the longest prefix of the 1000 patterns with at most OCC_CAP
#                 occurrences in all (at least one pattern; default 5000000)
#   SAMPLE        positions are compared for the first SAMPLE patterns of each locate set (default 20)
#   TOOLS         subset of "trawl trawl-small r-index move-r" (default all four) holding trawl or
#                 trawl-small, whose index cuts the locate sets
#   WORK          scratch folder for the indexes and converted patterns (default a fresh mktemp -d,
#                 removed at the end unless KEEP=1); an existing WORK's indexes are reused
#   OUT           the CSV (default bench/records/index-peers-<host>-<trawl commit>.csv)
#   JOBS          make -j for the peers' builds (default 2)
#
# Sources (the machine this was written on has no general internet): the peers are taken from
# snapshots of their GitHub repositories (the `fetch` tool of the agent sandbox put them under
# /work/.mirror/<owner>+<name>/repo); elsewhere `git clone --recursive` them into PEERS_DIR/r-index
# and PEERS_DIR/Move-r and this script only builds them. Built and measured (2026-11):
#   r-index  github.com/nicolaprezza/r-index   7009b5374282aa1d8e9b594d0a06c49a0bc1330f
#            (cmake, Release, against Debian's libsdsl-dev 2.1.1 and libdivsufsort-dev)
#   Move-r   github.com/LukasNalbach/Move-r    b9d6b13027e437320d5f9ac09cdc94186867a386
#            submodules at the commits the superproject pins (ips4o, ips2ra, libsais, malloc_count,
#            sdsl-lite + its libdivsufsort, gtl, sparse-map, emhash, ordered, unordered_dense), except
#            sux (pinned 568903f1 not in the snapshot: its HEAD), then Move-r's patched-files/ over
#            them, as Move-r's CMakeLists does; only move-r-build/-count/-locate are built (the
#            benchmark, examples, tests and other CLIs off: they need a dozen more repositories), and
#            MOVE_R_USE_MALLOC_COUNT=OFF (with it on, the binaries spin in malloc_count's calloc before main).
# The commits actually built are written to PEERS_DIR/<peer>/.source-commit and into the records.
#
# What is measured, per text and tool (tool: trawl = default profile, M = 32, with the count index;
# trawl-small = --small, M = 16; r-index; move-r = `move-r-build -c sa -s locate_move`):
#   size (bits/char: 8 * index bytes / text bytes), build (s, wall) and build_peak (MiB, peak RSS),
#   both from /usr/bin/time; load (s) and resident (MiB): wall time and peak RSS of one process
#   that loads the index and counts one pattern; count (us/pattern, best of RUNS, the tool's own
#   clock around the queries only); locate (us/occ, idem, on the locate set); agree (1/0): every
#   tool's total of the count set and of the locate set equal to trawl's (r-index's when trawl is
#   not run), and the sorted positions of the first SAMPLE patterns identical.
# Timings: trawl through trawl_index_bench --load --runs (count / serial locate, one thread);
# r-index through ri-count / ri-locate ("Total time", whole ms); Move-r through move-r-count /
# move-r-locate -m (ns). Patterns are converted to the Pizza&Chili format (header line, then the
# patterns concatenated) for the peers; every tool reads the same patterns.
set -euo pipefail
if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0; fi
for a in "$@"; do case $a in -?*) echo "peers.sh: unknown option $a (see --help)" >&2; exit 2 ;; esac; done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
peers=${PEERS_DIR:-/work/peers}
mirrors=${MIRRORS:-/work/.mirror}
corpora=${CORPORA:-/work/corpora}
build=${BUILD:-$repo/build-dev}
lengths=${LENGTHS:-4 8 16 32}
runs=${RUNS:-3}
count_repeat=${COUNT_REPEAT:-10}
occ_cap=${OCC_CAP:-5000000}
sample=${SAMPLE:-20}
tools=${TOOLS:-trawl trawl-small r-index move-r}
jobs=${JOBS:-2}
texts=("$@")
[ ${#texts[@]} -gt 0 ] || texts=(kjv-rep50.txt repetitive-100m.txt)
for b in "$build/trawl" "$build/bench/index/trawl_index_bench"; do
  [ -x "$b" ] || { echo "peers.sh: $b missing (build trawl and trawl_index_bench)" >&2; exit 1; }
done
host=$(hostname -s 2>/dev/null || echo host)
commit=$(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo unknown)
cpu=$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -1)
cores=$(nproc)
out=${OUT:-$repo/bench/records/index-peers-$host-$commit.csv}
if [ -n "${WORK:-}" ]; then work=$WORK; mkdir -p "$work"; else work=$(mktemp -d); fi
work=$(realpath "$work") corpora=$(realpath "$corpora") peers=$(realpath -m "$peers")
[ -n "${WORK:-}" ] || [ "${KEEP:-0}" = 1 ] || trap 'rm -rf "$work"' EXIT
# trawl's binaries are copied first, so that a rebuild of BUILD during the run does not mix versions
mkdir -p "$work/bin"
cp "$build/trawl" "$build/bench/index/trawl_index_bench" "$work/bin/"
[ -d "$build/bench/index/lib" ] && cp -r "$build/bench/index/lib" "$work/bin/"
trawl=$work/bin/trawl
tib=$work/bin/trawl_index_bench
has() { [[ " $tools " == *" $1 "* ]]; }
log() { echo "[peers $(date -u +%H:%M:%S)] $*" >&2; }
has trawl || has trawl-small || { echo "peers.sh: TOOLS must hold trawl or trawl-small (their index cuts the locate sets)" >&2; exit 2; }

# ---- the peers: sources and builds ------------------------------------------------------------
# extract OWNER+NAME at COMMIT (or its HEAD when the snapshot lacks COMMIT) into DIR; echo the commit
extract() {
  local g=$mirrors/$1/repo dir=$2 want=${3:-HEAD} c
  [ -d "$g" ] || { echo "peers.sh: no sources for $1: clone it into $dir or put a bare repository at $g" >&2; return 1; }
  if git --git-dir="$g" cat-file -e "$want^{commit}" 2>/dev/null; then c=$(git --git-dir="$g" rev-parse "$want^{commit}")
  else c=$(git --git-dir="$g" rev-parse HEAD); echo "peers.sh: $1 lacks $want, taking its HEAD $c" >&2; fi
  rm -rf "$dir"; mkdir -p "$dir"
  # the snapshots leave out large blobs (the peers' data sets and measurements): not those (git
  # archive may still print "invalid object" for them and exits 0)
  git --git-dir="$g" archive "$c" -- . ':(exclude,glob)**/*.7z' ':(exclude)datasets' ':(exclude)measurements' |
    tar -x -C "$dir"
  echo "$c"
}
get_rindex() {
  local d=$peers/r-index
  if [ ! -f "$d/ri-build.cpp" ]; then
    log "r-index: sources from $mirrors"; extract nicolaprezza+r-index "$d" HEAD > "$d.commit.tmp"; mv "$d.commit.tmp" "$d/.source-commit"
  fi
  if [ ! -x "$d/build/ri-locate" ]; then
    log "r-index: building in $d/build"
    mkdir -p "$d/build"
    (cd "$d/build" && nice -n 10 cmake .. -DCMAKE_BUILD_TYPE=Release >cmake.log && nice -n 10 make -j"$jobs" >make.log)
  fi
}
get_mover() {
  local d=$peers/Move-r g=$mirrors/LukasNalbach+Move-r/repo
  if [ ! -f "$d/CMakeLists.txt" ]; then
    log "Move-r: sources and submodules from $mirrors"
    local c; c=$(extract LukasNalbach+Move-r "$d" HEAD); echo "$c" > "$d/.source-commit"
    local sub url owner name pin
    for sub in ips4o ips2ra libsais malloc_count sdsl-lite gtl sparse-map emhash sux ordered unordered_dense; do
      url=$(git --git-dir="$g" show "$c:.gitmodules" | git config -f - --get "submodule.external/$sub.url")
      owner=$(basename "$(dirname "$url")"); name=$(basename "$url" .git)
      pin=$(git --git-dir="$g" ls-tree "$c" "external/$sub" | awk '{print $3}')
      echo "external/$sub $(extract "$owner+$name" "$d/external/$sub" "$pin")" >> "$d/.source-commit"
    done
    pin=$(git --git-dir="$mirrors/simongog+sdsl-lite/repo" ls-tree "$(awk '$1=="external/sdsl-lite"{print $2}' "$d/.source-commit")" external/libdivsufsort | awk '{print $3}')
    echo "external/sdsl-lite/external/libdivsufsort $(extract simongog+libdivsufsort "$d/external/sdsl-lite/external/libdivsufsort" "$pin")" >> "$d/.source-commit"
    cp -r "$d/patched-files/external" "$d/"
  fi
  if [ ! -x "$d/build/cli/move-r-locate" ]; then
    log "Move-r: building in $d/build (move-r-build, move-r-count, move-r-locate)"
    mkdir -p "$d/build"
    (cd "$d/build" && nice -n 10 cmake .. -DCMAKE_BUILD_TYPE=Release -DMOVE_R_BUILD_MOVE_RB_CLI=OFF \
        -DMOVE_R_BUILD_LZENDSA_CLI=OFF -DMOVE_R_BUILD_RLZSA_CLI=OFF -DMOVE_R_BUILD_MOVE_R_BENCH=OFF \
        -DMOVE_R_BUILD_MOVE_RB_BENCH=OFF -DMOVE_R_BUILD_EXAMPLES=OFF -DMOVE_R_BUILD_TESTS=OFF \
        -DMOVE_R_BUILD_INTERNAL_BENCH=OFF -DMOVE_R_USE_MALLOC_COUNT=OFF >cmake.log &&
      nice -n 10 make -j"$jobs" move-r-build move-r-count move-r-locate >make.log)
  fi
}
has r-index && get_rindex
has move-r && get_mover
ri=$peers/r-index/build
mr=$peers/Move-r/build/cli
ri_commit=$(head -1 "$peers/r-index/.source-commit" 2>/dev/null || echo unknown)
mr_commit=$(head -1 "$peers/Move-r/.source-commit" 2>/dev/null || echo unknown)

# ---- records ------------------------------------------------------------------------------------
mkdir -p "$(dirname "$out")"
[ -s "$out" ] || echo "benchmark,case,tool,metric,value,unit,commit,date,host,cpu,cores,gpu,command" > "$out"
csvq() { local s=${1//\"/\"\"}; printf '"%s"' "$s"; }
# rec CASE TOOL METRIC VALUE UNIT COMMAND
rec() {
  printf 'index-peers,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s,none,%s\n' "$(csvq "$1")" "$2" "$3" "$4" "$5" "$commit" \
    "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$host" "$(csvq "$cpu")" "$cores" "$(csvq "$6")" >> "$out"
  printf '  %-28s %-12s %-12s %s %s\n' "$1" "$2" "$3" "$4" "$5" >&2
}
dirty=$(git -C "$repo" status --porcelain --untracked-files=no 2>/dev/null | wc -l)
rec "sources" trawl source_commit 0 - "$commit ($dirty tracked files modified in the work tree; binaries of $build, $(date -u -r "$build/trawl" +%Y-%m-%dT%H:%M:%SZ))"
! has r-index || rec "sources" r-index source_commit 0 - "github.com/nicolaprezza/r-index@$ri_commit"
! has move-r || rec "sources" move-r source_commit 0 - "github.com/LukasNalbach/Move-r@$mr_commit"

# ---- helpers ------------------------------------------------------------------------------------
# timed OUTFILE CMD...: runs CMD, writes "wall_s peak_kib" to OUTFILE
timed() { local o=$1; shift; /usr/bin/time -f "%e %M" -o "$o" "$@"; }
mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
# to_pc LINES OUT: Pizza&Chili file of the lines (all of one length)
to_pc() {
  local n m; n=$(wc -l < "$1"); m=$(head -1 "$1" | tr -d '\n' | wc -c)
  { printf '# number=%d length=%d file=%s forbidden=\n' "$n" "$m" "$(basename "$1")"; tr -d '\n' < "$1"; } > "$2"
}
minof() { sort -g | head -1; }

# ---- the pangenome as plain text -----------------------------------------------------------------
if [ -n "${PANGENOME:-}" ]; then
  pg=$work/pangenome-64x${PANGENOME}.txt
  if [ ! -s "$pg" ]; then
    log "pangenome: 64 x $PANGENOME bp"
    "${MKGENOME:-$build/bench/trawl-mkgenome}" --length "$PANGENOME" --haplotypes 64 --seed 7 |
      awk '/^>/ { if (s != "") print s; s = ""; next } { s = s $0 } END { if (s != "") print s }' > "$pg"
  fi
  mkdir -p "$work/patterns"
  for m in $lengths; do
    python3 - "$pg" "$m" > "$work/patterns/$(basename "$pg" .txt).$m.txt" <<'EOF'
import random, sys
t = open(sys.argv[1], "rb").read().decode()
m = int(sys.argv[2]); r = random.Random(1000 + m); out = []
while len(out) < 1000:
    at = r.randrange(len(t) - m)
    s = t[at:at + m]
    if "\n" not in s: out.append(s)
print("\n".join(out))
EOF
  done
  texts+=("$pg")
fi

# ---- per text -----------------------------------------------------------------------------------
for t in "${texts[@]}"; do
  if [[ $t == /* ]]; then text=$t; else text=$corpora/$t; fi
  tn=$(basename "$text"); base=${tn%.txt}
  [ -f "$text" ] || { echo "peers.sh: no text $text" >&2; exit 1; }
  n=$(stat -c %s "$text")
  w=$work/$base; mkdir -p "$w"
  bpc() { awk -v b="$1" -v n="$n" 'BEGIN { printf "%.4f", 8 * b / n }'; }
  log "== $tn ($n bytes)"
  # -- build
  declare -A idx=([trawl]=$w/trawl.thi [trawl-small]=$w/trawl-small.thi [r-index]=$w/ri.ri [move-r]=$w/mr.move-r)
  declare -A bcmd=(
    [trawl]="$trawl index build -q $text -o ${idx[trawl]}"
    [trawl-small]="$trawl index build -q --small $text -o ${idx[trawl-small]}"
    [r-index]="$ri/ri-build -o $w/ri $text"
    [move-r]="$mr/move-r-build -c sa -s locate_move -p $cores -o $w/mr $text")
  for tool in $tools; do
    if [ ! -s "${idx[$tool]}" ] || [ ! -s "$w/$tool.build" ]; then
      log "build $tool"
      # shellcheck disable=SC2086
      # in the text's work folder: r-index's build leaves sdsl's temporary files in its folder
      (cd "$w" && timed "$w/$tool.build" ${bcmd[$tool]} > "$w/$tool.build.log" 2>&1) || { cat "$w/$tool.build.log" >&2; exit 1; }
    fi
    read -r bs bk < "$w/$tool.build"
    bytes=$(stat -c %s "${idx[$tool]}")
    cmd=${bcmd[$tool]}; [ "$tool" = r-index ] && cmd="$cmd (r-index@$ri_commit)"; [ "$tool" = move-r ] && cmd="$cmd (Move-r@$mr_commit)"
    rec "$tn" "$tool" size "$(bpc "$bytes")" bits/char "$cmd ($bytes bytes)"
    rec "$tn" "$tool" build "$bs" s "$cmd"
    rec "$tn" "$tool" build_peak "$(mib "$bk")" MiB "$cmd"
  done
  # -- pattern sets: count set (repeated), locate set (prefix under OCC_CAP), sample
  p=$w/pat; mkdir -p "$p"
  pdir=$corpora/patterns; [ -f "$pdir/$base.4.txt" ] || pdir=$work/patterns
  for m in $lengths; do
    src=$pdir/$base.$m.txt
    [ -f "$src" ] || { echo "peers.sh: no patterns $src" >&2; exit 1; }
    awk -v m="$m" 'length($0) == m' "$src" > "$p/base.$m.txt"
    for ((i = 0; i < count_repeat; i++)); do cat "$p/base.$m.txt"; done > "$p/count.$m.txt"
    "$trawl" index count -j 1 "${idx[trawl]:-}" -f "$p/base.$m.txt" 2>/dev/null > "$p/counts.$m.tsv" ||
      "$trawl" index count -j 1 "${idx[trawl-small]}" -f "$p/base.$m.txt" > "$p/counts.$m.tsv"
    awk -F'\t' -v cap="$occ_cap" '{ c = $NF; if (NR > 1 && s + c > cap) exit; s += c; print NR }' "$p/counts.$m.tsv" |
      tail -1 | xargs -I{} head -n {} "$p/base.$m.txt" > "$p/locate.$m.txt"
    head -n "$sample" "$p/locate.$m.txt" > "$p/sample.$m.txt"
    for s in count locate sample; do to_pc "$p/$s.$m.txt" "$p/$s.$m.pc"; done
  done
  head -1 "$p/base.$(echo "$lengths" | awk '{print $NF}').txt" > "$p/one.txt"; to_pc "$p/one.txt" "$p/one.pc"
  ref_tool=""
  declare -A tot_count tot_locate
  for tool in $tools; do
    ix=${idx[$tool]}
    # -- load and resident: one process that loads the index and counts one pattern
    case $tool in
      trawl*) lcmd=("$trawl" index count -j 1 "$ix" -f "$p/one.txt") ;;
      r-index) lcmd=("$ri/ri-count" "$ix" "$p/one.pc") ;;
      move-r) lcmd=("$mr/move-r-count" "$ix" "$p/one.pc") ;;
    esac
    best_l=""; best_k=""
    for ((r = 0; r < runs; r++)); do
      timed "$w/load" "${lcmd[@]}" > /dev/null 2>&1
      read -r ls lk < "$w/load"
      best_l=$(printf '%s\n%s\n' "$ls" "${best_l:-$ls}" | minof); best_k=$lk
    done
    rec "$tn" "$tool" load "$best_l" s "${lcmd[*]}"
    rec "$tn" "$tool" resident "$(mib "$best_k")" MiB "${lcmd[*]}"
    for m in $lengths; do
      case_="$tn m=$m"
      cf=$p/count.$m; lf=$p/locate.$m
      nc=$(wc -l < "$cf.txt"); nl=$(wc -l < "$lf.txt")
      case $tool in
        trawl*)
          # trawl-small has no count index: its count takes time in the occurrences; it counts the locate set
          cset=$cf; [ "$tool" = trawl-small ] && { cset=$lf; nc=$nl; }
          c1=("$tib" "$text" --load "$ix" --no-sdsl --threads 1 --runs "$runs" --no-locate --max-patterns 100000000 --patterns "$cset.txt")
          "${c1[@]}" > "$w/$tool.count.$m.md" 2>&1
          row=$(grep "^| $(basename "$cset").txt |" "$w/$tool.count.$m.md")
          ctot=$(awk -F'|' '{gsub(/ /,"",$4); print $4}' <<< "$row")
          cus=$(awk -F'|' '{gsub(/ /,"",$5); print $5}' <<< "$row")
          c2=("$tib" "$text" --load "$ix" --no-sdsl --threads 1 --runs "$runs" --max-patterns 100000000 --patterns "$lf.txt")
          "${c2[@]}" > "$w/$tool.locate.$m.md" 2>&1
          row=$(grep "^| locate.$m.txt |" "$w/$tool.locate.$m.md")
          ltot=$(awk -F'|' '{gsub(/ /,"",$6); print $6}' <<< "$row")
          lus=$(awk -F'|' '{gsub(/ /,"",$7); print $7}' <<< "$row")
          "$trawl" index locate -j 1 "$ix" -f "$p/sample.$m.txt" > "$w/$tool.sample.$m.tsv"
          python3 - "$p/sample.$m.txt" "$w/$tool.sample.$m.tsv" > "$w/$tool.pos.$m" <<'EOF'
import sys
pats = open(sys.argv[1]).read().split("\n")[:-1]
by = {}
for line in open(sys.argv[2]):
    f = line.rstrip("\n").split("\t")
    if len(f) < 6 or not f[1].isdigit(): continue
    by.setdefault("\t".join(f[5:]), set()).add(int(f[1]))
for q in pats:
    print(" ".join(map(str, sorted(by.get(q, ())))))
EOF
          ccmd="${c1[*]}"; lcmd_="${c2[*]}" ;;
        r-index)
          cus=""; lus=""
          for ((r = 0; r < runs; r++)); do
            "$ri/ri-count" "$ix" "$cf.pc" > "$w/ri.count.$m.log" 2>&1
            ms=$(sed -n 's/^Total time : \([0-9]*\) milliseconds.*/\1/p' "$w/ri.count.$m.log")
            cus=$(printf '%s\n%s\n' "$(awk -v a="$ms" -v n="$nc" 'BEGIN { printf "%.3f", 1000 * a / n }')" "${cus:-1e300}" | minof)
            ctot=$(sed -n 's/^total number of occurrences  occ_t = //p' "$w/ri.count.$m.log")
            "$ri/ri-locate" "$ix" "$lf.pc" > "$w/ri.locate.$m.log" 2>&1
            ms=$(sed -n 's/^Total time : \([0-9]*\) milliseconds.*/\1/p' "$w/ri.locate.$m.log")
            ltot=$(sed -n 's/^total number of occurrences  occ_t = //p' "$w/ri.locate.$m.log")
            lus=$(printf '%s\n%s\n' "$(awk -v a="$ms" -v n="$ltot" 'BEGIN { printf "%.4f", 1000 * a / (n > 0 ? n : 1) }')" "${lus:-1e300}" | minof)
          done
          "$ri/ri-locate" -o "$w/ri.sample.$m.raw" "$ix" "$p/sample.$m.pc" > /dev/null 2>&1
          # one position a line, each pattern's sorted; split them by the counts of the sample
          python3 - "$p/sample.$m.txt" "$p/counts.$m.tsv" "$w/ri.sample.$m.raw" > "$w/$tool.pos.$m" <<'EOF'
import sys
k = len(open(sys.argv[1]).read().split("\n")) - 1
counts = [int(l.rstrip("\n").split("\t")[-1]) for l in open(sys.argv[2])][:k]
pos = [int(x) for x in open(sys.argv[3]).read().split()]
at = 0
for c in counts:
    print(" ".join(map(str, sorted(pos[at:at + c])))); at += c
if at != len(pos): print("LEFT OVER", len(pos) - at)
EOF
          ccmd="$ri/ri-count $ix $cf.pc (r-index@$ri_commit)"; lcmd_="$ri/ri-locate $ix $lf.pc (r-index@$ri_commit)" ;;
        move-r)
          cus=""; lus=""
          for ((r = 0; r < runs; r++)); do
            rm -f "$w/mr.m"
            "$mr/move-r-count" -m "$w/mr.m" "$tn" "$ix" "$cf.pc" > "$w/mr.count.$m.log" 2>&1
            ns=$(grep -o 'time_count=[0-9]*' "$w/mr.m" | cut -d= -f2); ctot=$(grep -o 'num_occurrences=[0-9]*' "$w/mr.m" | cut -d= -f2)
            cus=$(printf '%s\n%s\n' "$(awk -v a="$ns" -v n="$nc" 'BEGIN { printf "%.3f", a / 1000 / n }')" "${cus:-1e300}" | minof)
            rm -f "$w/mr.m"
            "$mr/move-r-locate" -m "$w/mr.m" "$tn" "$ix" "$lf.pc" > "$w/mr.locate.$m.log" 2>&1
            ns=$(grep -o 'time_locate=[0-9]*' "$w/mr.m" | cut -d= -f2); ltot=$(grep -o 'num_occurrences=[0-9]*' "$w/mr.m" | cut -d= -f2)
            lus=$(printf '%s\n%s\n' "$(awk -v a="$ns" -v n="$ltot" 'BEGIN { printf "%.4f", a / 1000 / (n > 0 ? n : 1) }')" "${lus:-1e300}" | minof)
          done
          "$mr/move-r-locate" -o "$w/mr.sample.$m.raw" "$ix" "$p/sample.$m.pc" > /dev/null 2>&1
          sed 's/ *$//' "$w/mr.sample.$m.raw" > "$w/$tool.pos.$m"
          ccmd="$mr/move-r-count $ix $cf.pc (Move-r@$mr_commit)"; lcmd_="$mr/move-r-locate $ix $lf.pc (Move-r@$mr_commit)" ;;
      esac
      rec "$case_" "$tool" count "$cus" us/pattern "$ccmd ($nc patterns, $ctot occ, best of $runs)"
      rec "$case_" "$tool" locate "$lus" us/occ "$lcmd_ ($nl patterns, $ltot occ, best of $runs)"
      # agreement with the first tool of the run: totals of both sets, positions of the sample
      [ -n "$ref_tool" ] || ref_tool=$tool
      if [ "$tool" = "$ref_tool" ]; then tot_count[$m]=$ctot; tot_locate[$m]=$ltot; fi
      refc=${tot_count[$m]}; [ "$tool" = trawl-small ] && refc=${tot_locate[$m]}
      ok=1; why=""
      [ "$ctot" = "$refc" ] || { ok=0; why="count total $ctot != $refc ($ref_tool); "; }
      [ "$ltot" = "${tot_locate[$m]}" ] || { ok=0; why="${why}locate total $ltot != ${tot_locate[$m]} ($ref_tool); "; }
      cmp -s "$w/$tool.pos.$m" "$w/$ref_tool.pos.$m" || { ok=0; why="${why}sample positions differ from $ref_tool; "; }
      rec "$case_" "$tool" agree "$ok" 1/0 "${why}totals of $nc count patterns and $nl locate patterns, sorted positions of the first $sample vs $ref_tool"
    done
  done
  unset idx bcmd tot_count tot_locate
done
log "wrote $out"
