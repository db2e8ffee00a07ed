# bench/lib.sh — sourced by the benchmark scripts. bench_args MIN "USAGE" "$@": --help prints
# the script's header comment, fewer than MIN arguments print USAGE and exit 2; then $work is a
# scratch folder, removed at exit.
bench_args() {
  local min=$1 usage=$2
  shift 2
  if [ "${1:-}" = --help ]; then
    sed -n '2,/^[^#]/p' "$0" | sed '/^[^#]/d; s/^# \{0,1\}//'
    exit 0
  fi
  [ $# -ge "$min" ] || { echo "usage: $usage" >&2; exit 2; }
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
