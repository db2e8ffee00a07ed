#!/usr/bin/env bash
# peers.sh — installs the peers the benchmarks time trawl against, from Debian (apt-get, as
# root or with sudo), when they are missing: ripgrep, GNU grep, ugrep, tre-agrep, seqkit.
# edlib and sdsl are build dependencies already (scripts/deps.sh). The bench scripts run
# without these too and mark a missing peer "not installed".
. "$(dirname "$0")/lib.sh"
bench_usage 0 "peers.sh" "$@"
set -euo pipefail
declare -A pkg_of=([rg]=ripgrep [grep]=grep [ugrep]=ugrep [tre-agrep]=tre-agrep [seqkit]=seqkit)
missing=()
for tool in "${!pkg_of[@]}"; do
  command -v "$tool" >/dev/null || missing+=("${pkg_of[$tool]}")
done
((${#missing[@]})) || { echo "peers.sh: all peers installed"; exit 0; }
echo "peers.sh: installing ${missing[*]}" >&2
sudo=()
[ "$(id -u)" = 0 ] || sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
echo "peers.sh: done"
