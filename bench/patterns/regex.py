#!/usr/bin/env python3
"""bench/patterns/regex.py — regular expressions (-E): trawl against ripgrep and GNU grep.

In one run, on kjv-256m.txt of ../shared/data/make-corpora.sh, each expression below is
counted by matching lines, with one thread and with all threads:
  trawl search -E -c -j T EXPR
  rg -c -j T EXPR          (Rust regex; the expressions below read alike in both dialects)
  rg -P -c -j T EXPR       (PCRE2, trawl's dialect)
  grep -E -c EXPR          (one thread; `\\w` and `\\b` as GNU extensions)
ripgrep searches one file on one thread whatever -j says. The line counts must agree; a
mismatch fails the run. Seconds are the best of --reps; "x rg" is rg's time over trawl's with
the same threads.

usage: bench/patterns/regex.py --trawl build/trawl --corpora /work/corpora [--threads T] [--reps 3] [--out FILE]
"""
import argparse, os, subprocess, sys, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import machine  # noqa: E402

EXPRS = [
    ("alternation of names", r"Jesus|Moses|David"),
    ("word of the word", r"\w+ of the \w+"),
    ("capitalised -ed word", r"[A-Z][a-z]+ed\b"),
    ("a, 3 bytes, b", r"a[^x]{3}b"),
    ("anchored line", r"^Psa[0-9]+:[0-9]+ .*LORD"),
    ("rare: number of 3 digits", r"[0-9]{3}"),
]


def timed(cmd, reps):
    best, out = None, ""
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(["bash", "-c", cmd], capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            return None, f"exit {p.returncode}: {p.stderr.strip()[-200:]}"
        best = dt if best is None else min(best, dt)
        out = p.stdout.strip() or "0"
    return best, out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", required=True)
    ap.add_argument("--corpora", required=True)
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out")
    a = ap.parse_args()
    text = os.path.join(a.corpora, "kjv-256m.txt")
    rows = [f"# regular expressions (-E) on {machine()}, {time.strftime('%Y-%m-%d %H:%M')}", "",
            f"kjv-256m.txt ({os.path.getsize(text) >> 20} MiB), line counts (-c), best of {a.reps}.", "",
            "| expression | threads | lines | trawl s | rg s | rg -P s | grep -E s | x rg | x rg -P |",
            "|---|---|---|---|---|---|---|---|---|"]
    print("\n".join(rows), flush=True)
    bad = False
    for label, e in EXPRS:
        q = "'" + e.replace("'", "'\\''") + "'"
        for j in sorted({1, a.threads}):
            tt, tc = timed(f"{a.trawl} search -E -c -j {j} -- {q} {text}", a.reps)
            rt, rc = timed(f"rg -c -j {j} -- {q} {text}", a.reps)
            pt, pc = timed(f"rg -P -c -j {j} -- {q} {text}", a.reps)
            gt, gc = timed(f"grep -E -c -- {q} {text}", a.reps) if j == 1 else (None, tc)
            counts = {tc, rc, pc, gc}
            if len(counts) != 1:
                bad = True
                print(f"# count mismatch for {e}: trawl {tc}, rg {rc}, rg -P {pc}, grep {gc}", file=sys.stderr)
            f = lambda t: "-" if t is None else f"{t:.3f}"
            x = lambda t: "-" if t is None or tt is None else f"{t / tt:.2f}"
            rows.append(f"| `{e}` ({label}) | {j} | {tc} | {f(tt)} | {f(rt)} | {f(pt)} | {f(gt)} | {x(rt)} | {x(pt)} |")
            print(rows[-1], flush=True)
    if a.out:
        with open(a.out, "w") as fh:
            fh.write("\n".join(rows) + "\n")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
