#!/usr/bin/env python3
"""bench/python/bench.py — the Python package against the CLI, edlib and sassy-rs (PyPI), in one run.

    PYTHONPATH=build/python .venv/bin/python bench/python/bench.py [--cli build/trawl] [--scale 1.0]

1. Call overhead: trawl.search over a 256 MiB DNA file against `trawl search` on the same file
   (exact and k = 2, both strands), best of 3 each.
2. One 24-nt pattern over 64 MiB of DNA, k = 0..3, both strands: trawl.search, sassy-rs
   (Searcher("dna", rc=True).search) and edlib (align HW, task="locations", each strand).
   Where the semantics agree the hits are compared: the forward-strand end positions with their
   scores (trawl all_ends vs sassy search_all).
3. 96 barcodes of 24 nt over 1 M reads of 150-300 nt, k = 3, both strands: trawl.search_many
   on the CPU, and with device="auto" where a GPU is present, against sassy's search_many
   (modes single and batch_texts, the faster reported; sassy-rs runs on the CPU).

--scale shrinks every input (0.25: a quarter). Prints a Markdown report on stdout.
"""
import argparse
import os
import pathlib
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))
import benchlib  # noqa: E402

os.environ.setdefault("RUST_BACKTRACE", "0")  # sassy-rs prints a panic's backtrace otherwise
try:
    import sassy
except ImportError:
    sassy = None
try:
    import edlib
except ImportError:
    edlib = None

BASES = b"ACGT"


def dna(rng, n):
    return np.frombuffer(BASES, dtype=np.uint8)[rng.integers(0, 4, n, dtype=np.uint8)].tobytes()


def plant(rng, text, pattern, copies):
    t = bytearray(text)
    for _ in range(copies):
        p = bytearray(pattern if rng.random() < 0.5 else trawl.reverse_complement(pattern).encode())
        for _ in range(rng.integers(0, 4)):
            p[rng.integers(len(p))] = BASES[rng.integers(4)]
        at = int(rng.integers(0, len(t) - len(p)))
        t[at:at + len(p)] = p
    return bytes(t)


def best_of(n, f):
    best, out = None, None
    for _ in range(n):
        t0 = time.perf_counter()
        out = f()
        dt = time.perf_counter() - t0
        best = dt if best is None else min(best, dt)
    return best, out


def overhead(args, rng, rows):
    n = int((256 << 20) * args.scale)
    pattern = dna(rng, 20)
    with tempfile.TemporaryDirectory() as tmp:
        path = pathlib.Path(tmp) / "dna.txt"
        path.write_bytes(plant(rng, dna(rng, n), pattern, 2000))
        for k in (0, 2):
            kargs = ["-k", str(k)] if k else []
            t_cli, _ = best_of(3, lambda: subprocess.run([args.cli, "search", "--hits", "--both-strands", *kargs, pattern, str(path)],
                                                          stdout=subprocess.DEVNULL, check=False))
            t_py, hits = best_of(3, lambda: trawl.search(pattern, path, k=k, both_strands=True))
            cli_lines = subprocess.run([args.cli, "search", "--count-matches", "--both-strands", *kargs, pattern, str(path)],
                                       capture_output=True, text=True).stdout.strip()
            rows.append(f"| {n >> 20} MiB file, k = {k} | {t_cli:.3f} s | {t_py:.3f} s | {t_py / t_cli:.3f} | "
                        f"{len(hits)} / {cli_lines} |")


def one_pattern(args, rng, rows, agree):
    n = int((64 << 20) * args.scale)
    pattern = dna(rng, 24)
    text = plant(rng, dna(rng, n), pattern, 500)
    for k in range(4):
        t_tr, hits = best_of(3, lambda: trawl.search(pattern, text, k=k, both_strands=True))
        t_tr1, _ = best_of(3, lambda: trawl.search(pattern, text, k=k, both_strands=True, threads=1))
        cells = [f"{t_tr:.3f} s", f"{t_tr1:.3f} s"]
        if sassy is not None:
            s = sassy.Searcher("dna", rc=True)
            t_s, m = best_of(3, lambda: s.search(pattern, text, k))
            cells.append(f"{t_s:.3f} s ({t_s / t_tr:.1f}x)")
            # all end positions within k on the forward strand: the same set by definition
            fwd = sassy.Searcher("dna", rc=False)
            theirs = sorted((x.text_end, x.cost) for x in fwd.search_all(pattern, text, k))
            mine = trawl.search(pattern, text, k=k, all_ends=True) if k else trawl.search(pattern, text)
            ours = sorted(zip(mine.end.tolist(), mine.errors.tolist()))
            agree.append(f"k = {k}: forward ends within k: trawl {len(ours)}, sassy {len(theirs)}, "
                         f"{'identical' if ours == theirs else 'DIFFERENT'}")
        else:
            cells.append("not installed")
        if edlib is not None:
            rc = trawl.reverse_complement(pattern)
            def run_edlib():
                a = edlib.align(pattern, text, mode="HW", task="locations", k=k)
                b = edlib.align(rc, text, mode="HW", task="locations", k=k)
                return a, b
            t_e, _ = best_of(1, run_edlib)
            cells.append(f"{t_e:.3f} s ({t_e / t_tr:.1f}x)")
        else:
            cells.append("not installed")
        rows.append(f"| {n >> 20} MiB, k = {k} | {len(hits)} | " + " | ".join(cells) + " |")


def many_reads(args, rng, rows):
    count = int(1_000_000 * args.scale)
    lengths = rng.integers(150, 301, count)
    blob = dna(rng, int(lengths.sum()))
    offs = np.concatenate([[0], np.cumsum(lengths)])
    barcodes = [dna(rng, 24) for _ in range(96)]
    reads = [blob[offs[i]:offs[i + 1]] for i in range(count)]
    for i in range(0, count, 50):  # a barcode (with up to 3 substitutions) in every 50th read
        r = bytearray(reads[i])
        b = bytearray(barcodes[i % 96])
        for _ in range(rng.integers(0, 4)):
            b[rng.integers(len(b))] = BASES[rng.integers(4)]
        r[10:34] = b
        reads[i] = bytes(r)
    t_tr, hits = best_of(2, lambda: trawl.search_many(barcodes, reads, k=3, both_strands=True, device="cpu"))
    auto = "no GPU"
    if trawl.gpu_count() > 0:
        t_auto, hits_auto = best_of(2, lambda: trawl.search_many(barcodes, reads, k=3, both_strands=True))
        a, c = hits_auto.to_dict(), hits.to_dict()
        same = a.keys() == c.keys() and all(np.array_equal(a[key], c[key]) for key in c)
        auto = f"{t_auto:.3f} s ({len(hits_auto)} hits, {'the same as the CPU' if same else 'DIFFERENT'})"
    cell = "not installed"
    if sassy is not None:
        s = sassy.Searcher("dna", rc=True)
        threads = os.cpu_count()
        best = None
        for mode in ("single", "batch_texts"):  # (batch_patterns: not implemented for DNA in 0.3.0)
            t, m = best_of(1, lambda: s.search_many(barcodes, reads, 3, threads, mode))
            if best is None or t < best[0]:
                best = (t, mode, len(m))
        cell = f"{best[0]:.3f} s ({best[0] / t_tr:.1f}x; mode {best[1]}, {best[2]} matches)"
        if trawl.gpu_count() > 0:
            auto += f"; sassy-rs / this: {best[0] / t_auto:.1f}x"
    rows.append(f"| {count} reads, {int(lengths.sum()) >> 20} MiB | {t_tr:.3f} s ({len(hits)} hits) | {auto} | {cell} |")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", default="build/trawl")
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    global np, trawl
    import numpy as np  # after the arguments: --help needs neither numpy nor the built package
    import trawl
    rng = np.random.default_rng(1)
    print(f"# Python package benchmark\n\nMachine: {benchlib.machine()}. trawl {trawl.__version__}, "
          f"sassy-rs {getattr(sassy, '__version__', 'installed') if sassy else 'missing'}, "
          f"edlib {'installed' if edlib else 'missing'}; all threads unless said.\n")
    rows = []
    overhead(args, rng, rows)
    print("## Call overhead: trawl.search vs the CLI (same file, best of 3)\n")
    print("| input | CLI | Python | Python / CLI | hits (Python / CLI) |\n|---|---|---|---|---|")
    print("\n".join(rows))
    rows, agree = [], []
    one_pattern(args, rng, rows, agree)
    print("\n## One 24-nt pattern, both strands (best of 3; edlib 1 run, one thread, both strands in turn)\n")
    print("| text | trawl hits | trawl | trawl 1 thread | sassy-rs (1 thread) | edlib |\n|---|---|---|---|---|---|")
    print("\n".join(rows))
    print("\nHit sets where the semantics agree:\n")
    print("\n".join(f"- {a}" for a in agree))
    rows = []
    many_reads(args, rng, rows)
    print("\n## 96 barcodes x reads, k = 3, both strands: search_many\n")
    print("| reads | trawl.search_many, CPU | trawl.search_many, device auto | sassy-rs search_many |\n|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
