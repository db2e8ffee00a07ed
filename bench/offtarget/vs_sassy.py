#!/usr/bin/env python3
"""bench/offtarget/vs_sassy.py — Sassy2's published CPU setup, trawl against sassy-rs (PyPI) in one run.

312 random 23-nt guides (seed 1, as bench/scale/inputs.sh makes them), forward strand only,
k = 3, no PAM filter, over a FASTA genome (one text per record), hits counted:
  trawl search -k 3 -j T --count-matches -f GUIDES GENOME     (one hit per run of ends within k)
  trawl search -k 3 --device gpu ...                            (when a GPU is present)
  sassy.Searcher("dna", rc=False).search_many(guides, records, 3, T, "single")
Wall seconds of the search (the genome is in the page cache for trawl and in memory for
sassy-rs; reading it into Python is not timed). The hit sets are compared through the ends:
every sassy-rs match must end where trawl --all-ends has an end within k for that guide, and
each trawl hit's run of ends must hold a sassy-rs match end.

usage: bench/offtarget/vs_sassy.py --trawl build/trawl --genome G.fa --guides guides.fa [--threads T]
"""
import argparse, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import machine  # noqa: E402


def read_fasta(path):
    names, seqs, cur = [], [], []
    with open(path, "rb") as f:
        for line in f:
            if line.startswith(b">"):
                if names:
                    seqs.append(b"".join(cur))
                names.append(line[1:].split()[0].decode())
                cur = []
            else:
                cur.append(line.rstrip(b"\r\n"))
    if names:
        seqs.append(b"".join(cur))
    return names, seqs


def run(cmd):
    t0 = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    if p.returncode not in (0, 1):
        raise RuntimeError(f"{' '.join(cmd)}: exit {p.returncode}: {p.stderr[-300:]}")
    return dt, p.stdout


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", required=True)
    ap.add_argument("--genome", required=True)
    ap.add_argument("--guides", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    a = ap.parse_args()
    j = a.threads
    _, guides = read_fasta(a.guides)
    print(f"# Sassy2's CPU setup on {machine()}, {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(f"{len(guides)} guides x {len(guides[0])} nt, forward strand, k = 3, no PAM filter, "
          f"genome {os.path.getsize(a.genome) / 1e9:.2f} GB ({a.genome}), {j} threads.\n")
    print("| tool | seconds | hits |\n|---|---|---|")
    t_cpu, out = run([a.trawl, "search", "-k", "3", "-j", str(j), "--device", "cpu", "--count-matches", "-f", a.guides, a.genome])
    n_cpu = sum(int(line.rsplit(":", 1)[-1]) for line in out.split())
    print(f"| trawl, CPU | {t_cpu:.2f} | {n_cpu} |", flush=True)
    try:
        t_gpu, out = run([a.trawl, "search", "-k", "3", "--device", "gpu", "--count-matches", "-f", a.guides, a.genome])
        print(f"| trawl, GPU | {t_gpu:.2f} | {sum(int(x.rsplit(':', 1)[-1]) for x in out.split())} |", flush=True)
    except RuntimeError as e:
        print(f"# no GPU run: {e}", file=sys.stderr)
    names, seqs = read_fasta(a.genome)
    import sassy
    s = sassy.Searcher("dna", rc=False)
    t0 = time.perf_counter()
    matches = s.search_many(guides, seqs, 3, j, "single")
    t_sassy = time.perf_counter() - t0
    print(f"| sassy-rs {getattr(sassy, '__version__', '')} search_many (single) | {t_sassy:.2f} | {len(matches)} |")
    print(f"\ntrawl CPU is {t_sassy / t_cpu:.1f}x sassy-rs on the same cores.\n")
    # the hit sets, through the ends within k
    _, tsv = run([a.trawl, "search", "-k", "3", "-j", str(j), "--all-ends", "--format", "tsv", "-f", a.guides, a.genome])
    _, clusters = run([a.trawl, "search", "-k", "3", "-j", str(j), "--format", "tsv", "-f", a.guides, a.genome])
    rec = {n: i for i, n in enumerate(names)}
    gid = {g.decode(): i for i, g in enumerate(guides)}
    ends = set()
    for line in tsv.splitlines():
        f = line.split("\t")
        ends.add((rec[f[0]], gid[f[5]], int(f[2])))
    theirs = {(m.text_idx, m.pattern_idx, m.text_end) for m in matches}
    outside = len(theirs - ends)
    # a trawl hit is a run of consecutive ends: it is covered when one of its ends is sassy's
    by_key = {}
    for r, g, e in ends:
        by_key.setdefault((r, g), set()).add(e)
    covered = 0
    hits = [line.split("\t") for line in clusters.splitlines()]
    for f in hits:
        r, g, e = rec[f[0]], gid[f[5]], int(f[2])
        run_ends, x = set(), e
        while x in by_key.get((r, g), ()):
            run_ends.add(x)
            x -= 1
        x = e + 1
        while x in by_key.get((r, g), ()):
            run_ends.add(x)
            x += 1
        covered += any((r, g, y) in theirs for y in run_ends)
    print(f"Hit sets: trawl {len(ends)} ends within k in {len(hits)} runs; sassy-rs {len(theirs)} match ends, "
          f"{outside} of them not an end within k; {covered} of trawl's {len(hits)} runs hold a sassy-rs match end.")


if __name__ == "__main__":
    main()
