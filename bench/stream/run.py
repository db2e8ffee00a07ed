#!/usr/bin/env python3
"""bench/stream/run.py — searching streams: pipes, gzip and zstd, against ripgrep and grep.

In one run, on the corpora of ../shared/data/make-corpora.sh (kjv-256m.txt, dna-256m.txt):
  pipe   `cat` of the text N times (default 8: 2 GiB) into `trawl search --count-matches`, exact and -k 2,
         against `rg -c` and `grep -c` reading the same pipe and against `cat` alone (the rate a
         pipe moves those bytes): seconds, GB/s, peak RSS.
  gz/zst the text R times (default 4: 1 GiB), compressed once (gzip -6 in one member per core,
         zstd -3): trawl on the
         file (ISA-L and zlib inflaters, zstd) against `igzip -dc`, `gzip -dc`, `zstd -dc` alone
         (the inflater's rate) and `zcat | rg -c`, `zstdcat | rg -c`.
  mapped trawl -j T on the mapped text against rg -j T (and an older trawl with --baseline).
Counts are checked to agree between the trawl runs of one input. Best of --reps.

usage: bench/stream/run.py --trawl build/trawl --corpora /work/corpora [--threads T]
                           [--pipe-copies 8] [--gz-copies 4] [--baseline OLD_TRAWL] [--out FILE]
"""
import argparse, os, subprocess, sys, tempfile, time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from benchlib import machine  # noqa: E402


def timed(cmd, reps):
    """Best wall time, its stdout, and the peak RSS (MiB) of the largest child, of `cmd`."""
    best, out, rss = None, None, 0
    for _ in range(reps):
        t0 = time.perf_counter()
        p = subprocess.run(["/usr/bin/time", "-f", "%M", "bash", "-c", "set -o pipefail; " + cmd],
                           capture_output=True, text=True)
        dt = time.perf_counter() - t0
        if p.returncode not in (0, 1):
            raise RuntimeError(f"{cmd}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
        best = dt if best is None else min(best, dt)
        out = p.stdout.strip()
        try:
            rss = max(rss, int(p.stderr.strip().splitlines()[-1]) // 1024)
        except (ValueError, IndexError):
            pass
    return best, out, rss


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trawl", default="build/trawl")
    ap.add_argument("--baseline", help="an older trawl binary for the mapped-file rows")
    ap.add_argument("--corpora", default="/work/corpora")
    ap.add_argument("--threads", type=int, default=os.cpu_count())
    ap.add_argument("--pipe-copies", type=int, default=8)
    ap.add_argument("--gz-copies", type=int, default=4)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--tmp", default=tempfile.gettempdir())
    ap.add_argument("--out")
    a = ap.parse_args()
    T, j = os.path.abspath(a.trawl), a.threads
    rows = []
    texts = {"kjv": (os.path.join(a.corpora, "kjv-256m.txt"), "for his mercy endureth", "mercy endureth"),
             "dna": (os.path.join(a.corpora, "dna-256m.txt"), "GATTACAGATTACAGGCATTGCA", "GATTACAGGCATTG")}

    def row(what, cmd, nbytes, ref=None):
        t, out, rss = timed(cmd, a.reps)
        gbs = nbytes / t / 1e9
        ratio = f"{ref / t:.2f}" if ref else ""
        rows.append(f"| {what} | {t:.3f} | {gbs:.2f} | {rss} | {ratio} | {out.splitlines()[-1] if out else ''} |")
        print(rows[-1], flush=True)
        return t

    print(f"# stream benchmark on {machine()}, {j} threads, {time.strftime('%Y-%m-%d %H:%M')}", flush=True)
    head = "| what | seconds | GB/s | peak RSS MiB | vs reference (x) | output |\n| --- | --- | --- | --- | --- | --- |"
    for name, (path, exact, approx) in texts.items():
        size = os.path.getsize(path)
        n = size * a.pipe_copies
        cat = " ".join([path] * a.pipe_copies)
        rows.append(f"\n**pipe, {name}: {a.pipe_copies} x {os.path.basename(path)} = {n / 2**30:.1f} GiB through stdin**\n\n{head}")
        print(rows[-1], flush=True)
        base = row("cat \\| cat > /dev/null (the pipe's rate)", f"cat {cat} | cat > /dev/null", n)
        row(f"trawl -j {j} -c '{exact}'", f"cat {cat} | {T} search -j {j} --count-matches '{exact}' -", n, base)
        row(f"rg -j {j} -c -F '{exact}'", f"cat {cat} | rg -j {j} -c -F '{exact}'", n, base)
        if name != "dna":  # dna-256m.txt is one line: grep (like rg) would hold all of it
            row(f"grep -c -F '{exact}'", f"cat {cat} | grep -c -F '{exact}'", n, base)
        row(f"trawl -j {j} -c -k 2 '{approx}'", f"cat {cat} | {T} search -j {j} --count-matches -k 2 '{approx}' -", n, base)

    name, (path, exact, approx) = "kjv", texts["kjv"]
    raw = os.path.join(a.tmp, "trawl-stream-bench.txt")
    gz, zst = raw + ".gz", raw + ".zst"
    if not os.path.exists(gz) or not os.path.exists(zst):
        # gzip -6 in one member per core, concatenated (as pigz --independent or BGZF would)
        subprocess.run(f"for i in $(seq {a.gz_copies}); do cat {path}; done > {raw} && rm -f {raw}.part* && "
                       f"split -n {j} -d {raw} {raw}.part && ls {raw}.part* | xargs -P {j} -n 1 gzip -6 && "
                       f"cat $(ls {raw}.part*.gz | sort) > {gz} && rm -f {raw}.part* && "
                       f"zstd -q -3 -T{j} -f {raw} -o {zst}", shell=True, check=True)
    n = os.path.getsize(path) * a.gz_copies
    rows.append(f"\n**compressed, {name} x {a.gz_copies} = {n / 2**30:.1f} GiB inflated; gzip -6 {os.path.getsize(gz) / 2**20:.0f} MiB, zstd -3 {os.path.getsize(zst) / 2**20:.0f} MiB**\n\n{head}")
    print(rows[-1], flush=True)
    isal = row("igzip -dc > /dev/null (ISA-L alone)", f"igzip -dc {gz} > /dev/null", n)
    zlib = row("gzip -dc > /dev/null (zlib alone)", f"gzip -dc {gz} > /dev/null", n)
    row(f"trawl -j {j} -c (ISA-L) vs igzip alone", f"{T} search -j {j} --count-matches '{exact}' {gz}", n, isal)
    row(f"trawl -j {j} --count-matches --inflater zlib vs gzip alone", f"{T} search -j {j} --count-matches --inflater zlib '{exact}' {gz}", n, zlib)
    row(f"zcat | rg -j {j} -c vs igzip alone", f"gzip -dc {gz} | rg -j {j} -c -F '{exact}'", n, isal)
    row(f"trawl -j {j} -c -k 2 (ISA-L)", f"{T} search -j {j} --count-matches -k 2 '{approx}' {gz}", n, isal)
    zs = row("zstd -dc > /dev/null (alone)", f"zstd -q -dc {zst} > /dev/null", n)
    row(f"trawl -j {j} -c .zst vs zstd alone", f"{T} search -j {j} --count-matches '{exact}' {zst}", n, zs)
    row(f"zstdcat | rg -j {j} -c vs zstd alone", f"zstd -q -dc {zst} | rg -j {j} -c -F '{exact}'", n, zs)

    for name, (path, exact, approx) in texts.items():
        n = os.path.getsize(path)
        rows.append(f"\n**mapped file, {os.path.basename(path)} (page cache warm)**\n\n{head}")
        print(rows[-1], flush=True)
        ref = row(f"rg -j {j} -c -F '{exact}'", f"rg -j {j} -c -F '{exact}' {path}", n)
        row(f"trawl -j {j} -c '{exact}' vs rg", f"{T} search -j {j} --count-matches '{exact}' {path}", n, ref)
        row(f"trawl -j 1 -c '{exact}'", f"{T} search -j 1 --count-matches '{exact}' {path}", n)
        if a.baseline:
            B = os.path.abspath(a.baseline)
            row(f"baseline trawl -j {j} -c '{exact}'", f"{B} search -j {j} --count-matches '{exact}' {path}", n)
            row(f"baseline trawl -j 1 -c '{exact}'", f"{B} search -j 1 --count-matches '{exact}' {path}", n)
        row(f"trawl -j {j} -c -k 2 '{approx}'", f"{T} search -j {j} --count-matches -k 2 '{approx}' {path}", n)
        if a.baseline:
            row(f"baseline trawl -j {j} -c -k 2 '{approx}'", f"{a.baseline} search -j {j} --count-matches -k 2 '{approx}' {path}", n)

    text = "\n".join(rows) + "\n"
    if a.out:
        with open(a.out, "a") as f:
            f.write(f"\n## {machine()}, {j} threads, {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}\n" + text)


if __name__ == "__main__":
    main()
