#!/usr/bin/env bash
# deps.sh — installs the Debian 12 packages trawl builds and tests with, only those missing.
# Sourced by setup.sh and test.sh. Needs root or sudo when something is missing.
trawl_install_deps() {
  local pkgs=(build-essential cmake pkg-config zlib1g-dev libcli11-dev libfmt-dev libtbb-dev
              libsdsl-dev libdivsufsort-dev libzstd-dev libisal-dev libvectorscan-dev zstd libgtest-dev libbenchmark-dev libedlib-dev gzip ripgrep
              clang libclang-rt-14-dev libopenmpi-dev openmpi-bin)
  local missing=() p
  for p in "${pkgs[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
  done
  ((${#missing[@]})) || return 0
  echo "trawl: installing ${missing[*]}" >&2
  local sudo=()
  [ "$(id -u)" = 0 ] || sudo=(sudo)
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
