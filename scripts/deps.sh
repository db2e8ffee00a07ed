#!/usr/bin/env bash
# deps.sh — installs the Debian 12 packages trawl builds and tests with, only those missing.
# Sourced by setup.sh and test.sh. Needs root or sudo when something is missing.
trawl_install_deps() {
  local pkgs=(build-essential cmake pkg-config zlib1g-dev libcli11-dev libfmt-dev libtbb-dev
              libsdsl-dev libdivsufsort-dev libzstd-dev libisal-dev libvectorscan-dev libpcre2-dev zstd libgtest-dev libbenchmark-dev libedlib-dev gzip ripgrep seqkit
              clang libclang-rt-14-dev libopenmpi-dev openmpi-bin python3-dev python3-venv python3-py2bit ccache)
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

# The Python build and test tools (scikit-build-core, nanobind, numpy, pytest) in a virtual
# environment at .venv, made when missing; prints its python.
trawl_python_env() {
  local venv="$PWD/.venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv" >&2
  "$venv/bin/python" -c 'import nanobind, scikit_build_core, numpy, pytest' 2>/dev/null ||
    "$venv/bin/python" -m pip install -q 'scikit-build-core>=0.10' 'nanobind>=2.0' 'numpy>=1.21' pytest >&2
  echo "$venv/bin/python"
}
