#!/usr/bin/env bash
# setup.sh — the first command: installs what is missing (apt-get; Python build tools in .venv),
# builds trawl in Release (the Python module too),
# makes a demo genome with planted motifs and searches it (exactly and approximately).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/deps.sh
trawl_install_deps
py=$(trawl_python_env)
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTRAWL_BUILD_TESTS=OFF -DTRAWL_PYTHON=ON -DPython_EXECUTABLE="$py" >/dev/null
cmake --build build -j"$(nproc)"
mkdir -p build/demo
# 8 Mbp over 4 chromosomes; a 23-nt guide planted 50 times exactly and 50 times with 2 substitutions.
./build/bench/trawl-mkgenome --length 8000000 --records 4 --motif GACGCATAAAGATGAGACGCTGG \
  --exact 50 --mutated 50 --errors 2 --seed 1 --truth build/demo/planted.tsv >build/demo/genome.fa
echo "== exact, both strands: hits per strand =="
./build/trawl search --both-strands GACGCATAAAGATGAGACGCTGG build/demo/genome.fa | cut -f5 | sort | uniq -c
echo "== approximate (k = 2), first 5 hits with alignments =="
./build/trawl search --both-strands -k 2 --align GACGCATAAAGATGAGACGCTGG build/demo/genome.fa | head -5
echo "== planted: $(grep -c . build/demo/planted.tsv) copies; found with k = 2: $(./build/trawl search --count-matches --both-strands -k 2 GACGCATAAAGATGAGACGCTGG build/demo/genome.fa)"
echo "== the same from Python (build/python; pip install . installs the package) =="
PYTHONPATH=build/python "$py" -c 'import pathlib, trawl
hits = trawl.search("GACGCATAAAGATGAGACGCTGG", pathlib.Path("build/demo/genome.fa"), k=2, both_strands=True)
print(len(hits), "hits;", "first:", hits[0])'
