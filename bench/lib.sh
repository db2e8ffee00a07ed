# bench/lib.sh — sourced by the benchmark scripts. bench_usage MIN "USAGE" "$@": --help (-h) prints
# the script's header comment; an option (an argument that starts with '-', '-' alone aside) or
# fewer than MIN arguments print USAGE and exit 2. bench_args MIN "USAGE" "$@": the same, then
# $work is a scratch folder, removed at exit.
bench_usage() {
  local min=$1 usage=$2 a
  shift 2
  if [ "${1:-}" = --help ] || [ "${1:-}" = -h ]; then
    sed -n '2,/^[^#]/p' "$0" | sed '/^[^#]/d; s/^# \{0,1\}//'
    exit 0
  fi
  for a in "$@"; do
    case $a in -?*) echo "$(basename "$0"): unknown option $a; usage: $usage" >&2; exit 2 ;; esac
  done
  [ $# -ge "$min" ] || { echo "usage: $usage" >&2; exit 2; }
}
bench_args() {
  bench_usage "$@"
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
}
