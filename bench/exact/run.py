#!/usr/bin/env python3
"""bench/exact/run.py — exact search throughput: trawl against ripgrep, GNU grep and ugrep.

Times `trawl search --count-matches` against `rg -F --count-matches`, `grep -F -o | wc -l` and
`ugrep -F -c -o` with the same thread count, in one run, on kjv-256m.txt and dna-256m.txt from
../shared/data/make-corpora.sh, for patterns of 4-64 bytes taken from its pattern sets.
Prints GB/s and trawl's throughput ratio to each peer, and checks that the counts agree where
the semantics agree (rg, grep and ugrep count non-overlapping matches, trawl every occurrence:
they agree for patterns without a proper border). Also times trawl's single-thread engines
(bf, kmp, horspool, sunday, simd) to compare with the seed's Sunday-vs-BF/KMP claim.

usage: bench/exact/run.py --trawl build/trawl --corpora /work/corpora [--threads N]
                          [--patterns 3] [--reps 3] [--out exact-MACHINE.md]
"""
import argparse, os, platform, shutil, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import machine  # noqa: E402


def timed(cmd, reps):
    best, out = None, None
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(cmd, shell=True, capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr.strip()}")
        best = dt if best is None else min(best, dt)
        out = p.stdout.strip()
    return best, out


def has_border(p):
    return any(p[:i] == p[-i:] for i in range(1, len(p)))


def count_of(out):
    # grep -c style "N" or "file:N" lines summed
    return sum(int(l.rsplit(":", 1)[-1]) for l in out.splitlines() if l.strip())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", default="build/trawl")
    ap.add_argument("--corpora", default="/work/corpora")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--patterns", type=int, default=3, help="patterns per length")
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--lengths", default="4,8,16,32,64")
    ap.add_argument("--texts", default="kjv-256m,dna-256m")
    ap.add_argument("--engines", action="store_true", help="also time bf/kmp/horspool/sunday/simd, 1 thread")
    ap.add_argument("--out")
    a = ap.parse_args()
    j = a.threads
    peers = {
        "rg": f"rg -F --count-matches -j {j} -- {{p}} {{f}}",
        "grep": "grep -F -o -- {p} {f} | wc -l",
        "ugrep": f"ugrep -F -c -o -J {j} -- {{p}} {{f}}",
    }
    peers = {k: v for k, v in peers.items() if shutil.which(k)}
    lines = [f"# Exact search: trawl vs peers", "", f"Machine: {machine()}; threads: {j}; "
             f"best of {a.reps} runs, page cache warm; {time.strftime('%Y-%m-%d')}.", "",
             f"Command: `{' '.join(sys.argv)}`", "",
             "| text | m | pattern | trawl GB/s | " + " | ".join(f"{k} GB/s" for k in peers) + " | " +
             " | ".join(f"trawl/{k}" for k in peers) + " | counts |",
             "|---" * (4 + 2 * len(peers) + 1) + "|"]
    engine_rows = []
    for text in a.texts.split(","):
        f = os.path.join(a.corpora, text + ".txt")
        size = os.path.getsize(f)
        subprocess.run(f"cat {f} > /dev/null", shell=True)
        for L in [int(x) for x in a.lengths.split(",")]:
            pf = os.path.join(a.corpora, "patterns", f"{text}.{L}.txt")
            pats = [l.rstrip("\n") for l in open(pf, encoding="latin-1")][: a.patterns]
            for p in pats:
                q = "'" + p.replace("'", "'\\''") + "'"
                t_trawl, out = timed(f"{a.trawl} search --count-matches -j {j} -- {q} {f}", a.reps)
                n_trawl = count_of(out)
                res, agree = {}, []
                for k, cmd in peers.items():
                    t, o = timed(cmd.format(p=q, f=f), 1 if k == "grep" else a.reps)
                    res[k] = t
                    if not has_border(p):
                        agree.append(f"{k}{'=' if count_of(o) == n_trawl else '≠' + str(count_of(o))}")
                gb = lambda t: size / t / 1e9
                row = (f"| {text} | {L} | `{p[:24]}` | {gb(t_trawl):.2f} | " +
                       " | ".join(f"{gb(res[k]):.2f}" for k in peers) + " | " +
                       " | ".join(f"{res[k] / t_trawl:.2f}×" for k in peers) +
                       f" | {n_trawl} {' '.join(agree) if agree else '(border: overlap semantics differ)'} |")
                print(row, flush=True)
                lines.append(row)
                if a.engines and p == pats[0]:
                    times = {}
                    for eng in ["bf", "kmp", "horspool", "sunday", "simd"]:
                        times[eng], o = timed(f"{a.trawl} search --count-matches -j 1 --algorithm {eng} -- {q} {f}", 1)
                        assert count_of(o) == n_trawl, (eng, o, n_trawl)
                    engine_rows.append(f"| {text} | {L} | " + " | ".join(f"{size / times[e] / 1e9:.2f}" for e in times) +
                                       f" | {times['bf'] / times['sunday']:.2f}× | {times['kmp'] / times['sunday']:.2f}× |")
                    print(engine_rows[-1], flush=True)
    if engine_rows:
        lines += ["", "Single-thread engines (GB/s), same counts checked:", "",
                  "| text | m | bf | kmp | horspool | sunday | simd | sunday/bf | sunday/kmp |", "|---" * 9 + "|"] + engine_rows
    if a.out:
        with open(a.out, "w") as fh:
            fh.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
