#!/usr/bin/env python3
"""bench/index/warm_search.py — search through a Hybrid Index kept loaded in one process
(trawl.Index.search, repeated) against trawl.search over the indexed FASTA (repeated), on one
device, the hits compared. `trawl search --index` pays the index's load and, on a GPU, the
device's start-up and teardown in every run; a process that keeps the Index pays them once.

    PYTHONPATH=build/python .venv/bin/python bench/index/warm_search.py FASTA INDEX PATTERNS \\
        [--k 3] [--device gpu] [--rounds 3]

PATTERNS: one pattern a line (both strands are searched). Prints a Markdown table: the load,
the first and the later searches through the index, the first and the later plain searches of
the file, the later plain searches of the FASTA held in memory (bytes read once), and the ratio
of the best later search through the index to the best later plain search of each kind.
"""
import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import benchlib  # noqa: E402


def timed(f):
    t = time.perf_counter()
    out = f()
    return out, time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("fasta", type=pathlib.Path)
    ap.add_argument("index", type=pathlib.Path)
    ap.add_argument("patterns", type=pathlib.Path)
    ap.add_argument("--k", type=int, default=3)
    ap.add_argument("--device", default="gpu")
    ap.add_argument("--rounds", type=int, default=3)
    a = ap.parse_args()
    global trawl
    import trawl  # after the arguments: --help needs no built package
    pats = [l.strip() for l in a.patterns.read_text().splitlines() if l.strip()]
    opts = dict(k=a.k, both_strands=True, device=a.device)

    ix, load_s = timed(lambda: trawl.Index.load(a.index))
    through, plain = [], []
    for _ in range(a.rounds):
        got, s = timed(lambda: ix.search(pats, **opts))
        through.append(s)
    for _ in range(a.rounds):
        want, s = timed(lambda: trawl.search(pats, a.fasta, **opts))
        plain.append(s)
    text = a.fasta.read_bytes()
    held = []
    for _ in range(a.rounds):
        want_held, s = timed(lambda: trawl.search(pats, text, **opts))
        held.append(s)
    del text
    key = lambda hits: [(h.record, h.start, h.end, h.errors, h.pattern, h.strand) for h in hits]
    same = key(got) == key(want) == key(want_held)

    print(f"Machine: {benchlib.machine()}; GPUs: {trawl.gpu_count()}; device {a.device}")
    print(f"{len(pats)} patterns, k = {a.k}, both strands; {a.index.name}: {len(ix)} bytes, "
          f"{ix.info()['kernel_length']} in its kernel; {len(got)} hits, {'the same' if same else 'NOT the same'}\n")
    print("| load | through the index: first | later | plain, file: first | later | plain, in memory: later "
          "| ratio (later): file | in memory |")
    print("|---|---|---|---|---|---|---|---|")
    later = lambda v: min(v[1:]) if len(v) > 1 else v[0]
    secs = lambda v: " / ".join(f"{x:.2f}" for x in v)
    print(f"| {load_s:.2f} s | {through[0]:.2f} s | {secs(through[1:])} s | {plain[0]:.2f} s | {secs(plain[1:])} s | "
          f"{secs(held[1:] or held)} s | {later(plain) / later(through):.1f}x | {later(held) / later(through):.1f}x |")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
