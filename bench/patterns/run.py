#!/usr/bin/env python3
"""bench/patterns/run.py — literal pattern sets: trawl against ripgrep, GNU grep and ugrep.

In one run, on the corpora of ../shared/data/make-corpora.sh (kjv-256m.txt, dna-256m.txt):
sets of 1, 5, 100, 1,000, 2,663 and 10,000 literals, made here with a fixed seed:
  kjv   distinct words of the KJV text (any length: short words overlap, as log tokens do);
        the 2,663 set is distinct phrases of 15-30 bytes (a dictionary of >= 15-byte entries)
  dna   distinct 16-32-mers sampled from the first 64 MiB of dna-256m.txt
each with one thread and with all threads:
  trawl search -j T --count-matches -f SET            every occurrence, overlapping ones included
  rg -j T --count-matches -F -f SET      non-overlapping leftmost-longest occurrences
  ugrep -J T -c -o -F -f SET             the same as rg
  grep -o -F -f SET | wc -l              the same (one thread; one-thread rows only)
The counts agree where no two occurrences overlap (the DNA sets); the table gives them all.
Seconds are the best of --reps; "x rg" is rg's time over trawl's with the same threads.

usage: bench/patterns/run.py --trawl build/trawl --corpora /work/corpora [--threads T]
                             [--sizes 1,5,100,1000,2663,10000] [--reps 3] [--out FILE]
"""
import argparse, os, random, re, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import machine  # noqa: E402


def timed(cmd, reps, limit):
    """Best wall time and the last line of stdout of `cmd`; None past `limit` seconds."""
    best, out = None, ""
    for _ in range(reps):
        t0 = time.perf_counter()
        try:
            p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], capture_output=True, text=True,
                               timeout=limit)
        except subprocess.TimeoutExpired:
            return None, f"> {limit} s"
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        best = dt if best is None else min(best, dt)
        out = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    return best, out


def peer(cmd, reps, limit):
    """timed(), or (None, the error) for a peer that is missing or fails on this machine."""
    try:
        return timed(cmd, reps, limit)
    except RuntimeError as e:
        print(f"# {e}", file=sys.stderr)
        return None, "error"


def make_sets(corpora, sizes, tmp, names=("kjv", "dna")):
    """The pattern files of `names`, one per size: {(name, size): path}. Each corpus has its
    own seeded generator, so a corpus's sets do not depend on the other's."""
    sets = {}
    if "kjv" in names:
        rng = random.Random(20261125)
        kjv = open(os.path.join(corpora, "kjv.txt"), encoding="latin-1").read()
        words = sorted(set(re.findall(r"[A-Za-z]+", kjv)))
        tokens = re.findall(r"[A-Za-z]+", kjv)
        phrases = set()
        while len(phrases) < 2663:
            i = rng.randrange(len(tokens) - 6)
            p = tokens[i]
            for t in tokens[i + 1:i + 6]:
                if len(p) >= 15:
                    break
                p += " " + t
            if 15 <= len(p) <= 30:
                phrases.add(p)
        for n in sizes:
            write_set(sets, tmp, "kjv", n, sorted(phrases) if n == 2663 else rng.sample(words, min(n, len(words))))
    if "dna" in names:
        rng = random.Random(20261126)
        with open(os.path.join(corpora, "dna-256m.txt")) as f:
            dna = f.read(64 << 20)
        for n in sizes:
            kmers = set()
            while len(kmers) < n:
                m = rng.randint(16, 32)
                i = rng.randrange(len(dna) - m)
                k = dna[i:i + m]
                if re.fullmatch(r"[ACGT]+", k):
                    kmers.add(k)
            write_set(sets, tmp, "dna", n, sorted(kmers))
    return sets


def write_set(sets, tmp, name, n, pats):
    path = os.path.join(tmp, f"trawl-patterns-{name}.{n}.txt")
    with open(path, "w") as f:
        f.write("\n".join(pats) + "\n")
    sets[(name, n)] = path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", default="build/trawl")
    ap.add_argument("--corpora", default="/work/corpora")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--sizes", default="1,5,100,1000,2663,10000")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--limit", type=int, default=120, help="seconds before a peer's run is given up")
    ap.add_argument("--no-grep", action="store_true", help="skip GNU grep (slow with big sets)")
    ap.add_argument("--tmp", default=tempfile.gettempdir())
    ap.add_argument("--only", choices=["kjv", "dna"], help="one corpus (the other need not exist)")
    ap.add_argument("--out")
    a = ap.parse_args()
    T = os.path.abspath(a.trawl)
    sizes = [int(s) for s in a.sizes.split(",")]
    texts = {"kjv": os.path.join(a.corpora, "kjv-256m.txt"), "dna": os.path.join(a.corpora, "dna-256m.txt")}
    if a.only:
        texts = {a.only: texts[a.only]}
    sets = make_sets(a.corpora, sizes, a.tmp, list(texts))
    head = ("| corpus | patterns | threads | trawl s | rg s | ugrep s | grep s | x rg | trawl count | rg count |\n"
            "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    rows = [f"# pattern sets on {machine()}, {time.strftime('%Y-%m-%d %H:%M')}", "", head]
    print("\n".join(rows), flush=True)
    threads = sorted({1, a.threads})
    fmt = lambda t: "—" if t is None else f"{t:.3f}"
    for name, path in texts.items():
        for n in sizes:
            pf = sets[(name, n)]
            for j in threads:
                tt, tc = timed(f"{T} search -j {j} --count-matches -f {pf} {path}", a.reps, a.limit)
                rt, rc = peer(f"rg -j {j} --count-matches -F -f {pf} {path}", a.reps, a.limit)
                ut, _ = peer(f"ugrep -J {j} -c -o -F -f {pf} {path}", a.reps, a.limit)
                gt = None
                if j == 1 and not a.no_grep:
                    gt, _ = peer(f"grep -o -F -f {pf} {path} | wc -l", 1, a.limit)
                ratio = f"{rt / tt:.2f}" if tt and rt else "—"
                rows.append(f"| {name} | {n} | {j} | {fmt(tt)} | {fmt(rt)} | {fmt(ut)} | {fmt(gt)} | {ratio} | {tc} | {rc} |")
                print(rows[-1], flush=True)
    if a.out:
        with open(a.out, "a") as f:
            f.write("\n" + "\n".join(rows) + "\n")


if __name__ == "__main__":
    main()
