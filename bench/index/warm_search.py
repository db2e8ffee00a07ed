#!/usr/bin/env python3
"""bench/index/warm_search.py — search through a Hybrid Index kept loaded in one process
(trawl.Index.search, repeated) against trawl.search over the indexed FASTA (repeated), on one
device, the hits compared. `trawl search --index` pays the index's load and, on a GPU, the
device's start-up and teardown in every run; a process that keeps the Index pays them once.

    PYTHONPATH=build/python .venv/bin/python bench/index/warm_search.py FASTA INDEX PATTERNS \\
        [--k 3] [--device gpu] [--rounds 3]

PATTERNS: one pattern a line (both strands are searched). Prints a Markdown table: the load,
the first and the later searches through the index, the first and the later plain searches,
and the ratio of the best later ones.
"""
import argparse
import pathlib
import sys
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import benchlib  # noqa: E402
import trawl  # noqa: E402


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
    same = len(got) == len(want) and all(
        (g.record, g.start, g.end, g.errors, g.pattern, g.strand) == (w.record, w.start, w.end, w.errors, w.pattern, w.strand)
        for g, w in zip(got, want))

    print(f"Machine: {benchlib.machine()}; GPUs: {trawl.gpu_count()}; device {a.device}")
    print(f"{len(pats)} patterns, k = {a.k}, both strands; {a.index.name}: {len(ix)} bytes, "
          f"{ix.info()['kernel_length']} in its kernel; {len(got)} hits, {'the same' if same else 'NOT the same'}\n")
    print("| load | through the index: first | later | plain: first | later | ratio (later) |")
    print("|---|---|---|---|---|---|")
    later = lambda v: min(v[1:]) if len(v) > 1 else v[0]
    print(f"| {load_s:.2f} s | {through[0]:.2f} s | {' / '.join(f'{x:.2f}' for x in through[1:])} s | "
          f"{plain[0]:.2f} s | {' / '.join(f'{x:.2f}' for x in plain[1:])} s | {later(plain) / later(through):.1f}x |")
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
