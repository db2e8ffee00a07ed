# lib.sh — sourced by the CLI test scripts: a scratch folder $D (removed at exit, with any
# background job), check counters and the expectation helpers. $T is the trawl binary.
D=$(mktemp -d /tmp/trawl-cli-XXXXXX)
trap 'kill $(jobs -p) 2>/dev/null; rm -rf "$D"' EXIT
fails=0; checks=0
pass() { checks=$((checks + 1)); }
fail() { checks=$((checks + 1)); fails=$((fails + 1)); echo "FAIL: $*" >&2; }
# expect_rc WANT CMD... : exit status of CMD
expect_rc() { local want=$1; shift; "$@" >"$D/out" 2>"$D/err"; local rc=$?; [ "$rc" = "$want" ] && pass || fail "rc $rc != $want: $*"; }
# expect_out WANT CMD... : stdout of CMD (exact)
expect_out() { local want=$1; shift; local got; got=$("$@" 2>"$D/err"); [ "$got" = "$want" ] && pass || fail "$*: got [$got] want [$want]"; }
# expect_err_line CMD... : exit 2 and exactly one line on stderr
expect_err_line() { "$@" >"$D/out" 2>"$D/err"; local rc=$?; local lines; lines=$(wc -l <"$D/err");
  [ "$rc" = 2 ] && [ "$lines" = 1 ] && grep -q '^trawl: ' "$D/err" && pass || fail "want one-line error + rc 2 (rc=$rc, $lines lines: $(head -c 200 "$D/err")): $*"; }
# same FILE1 FILE2 WHAT : byte-identical files
same() { if cmp -s "$1" "$2"; then pass; else fail "$3: outputs differ ($(diff "$1" "$2" | head -3 | tr '\n' ' '))"; fi; }
# $sanitized is 1 when $T is the ASan + UBSan build (10-30x slower; CMake sets
# TRAWL_TEST_SANITIZED). share_runs: true for every $TRAWL_TEST_SHARE-th call (CMake's share,
# tests/CMakeLists.txt; every call when unset): the share of a script's heaviest grids a build runs.
sanitized=${TRAWL_TEST_SANITIZED:-0}
share_count=0
share_runs() { share_count=$((share_count + 1)); [ $(((share_count - 1) % ${TRAWL_TEST_SHARE:-1})) = 0 ]; }
TAB=$'\t'
