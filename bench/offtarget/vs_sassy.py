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

--baseline LABEL=PATH also times another trawl build's CPU search (an older commit) in the same
run, and --csv OUT.csv writes every timing as a record row (bench/records, kind `sassy`; the commit
is TRAWL_COMMIT's, or git's where the script runs).

usage: bench/offtarget/vs_sassy.py --trawl build/trawl --genome G.fa --guides guides.fa [--threads T]
                                   [--baseline LABEL=PATH] [--csv OUT.csv] [--runs N]
"""
import argparse, csv, os, subprocess, sys, time

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
    ap.add_argument("--baseline", action="append", default=[], help="LABEL=PATH of another trawl build")
    ap.add_argument("--csv", help="write the timings as record rows")
    ap.add_argument("--runs", type=int, default=1, help="runs of each trawl command (min and max are kept)")
    a = ap.parse_args()
    j = a.threads
    _, guides = read_fasta(a.guides)
    rows = []
    commit = os.environ.get("TRAWL_COMMIT") or subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
        cwd=os.path.dirname(os.path.abspath(__file__))).stdout.strip()
    gpu_name = subprocess.run(["sh", "-c", "nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1"],
                              capture_output=True, text=True).stdout.strip() or "none"
    what = (f"{os.path.basename(a.genome)} ({os.path.getsize(a.genome) / 1e9:.2f} GB), {len(guides)} guides x "
            f"{len(guides[0])} nt, forward strand, k = 3, no PAM filter, {j} threads")

    def record(tool, times, hits, command):
        rows.append({"input": what, "tool": tool, "seconds_min": f"{min(times):.2f}", "seconds_max": f"{max(times):.2f}",
                     "hits": hits, "commit": commit, "date": time.strftime("%Y-%m-%d"),
                     "host": f"{gpu_name} host" if gpu_name != "none" else "CPU host",
                     "cpu": machine().split(",")[0], "cores": os.cpu_count(), "gpu": gpu_name,
                     "command": " ".join(command) + f", {len(times)} run(s), {time.strftime('%H:%M')}",
                     "source": "measured by bench/offtarget/vs_sassy.py"})

    def timed(cmd):
        times, out = [], ""
        for _ in range(a.runs):
            dt, out = run(cmd)
            times.append(dt)
        return times, out
    print(f"# Sassy2's CPU setup on {machine()}, {time.strftime('%Y-%m-%d %H:%M')}\n")
    print(f"{len(guides)} guides x {len(guides[0])} nt, forward strand, k = 3, no PAM filter, "
          f"genome {os.path.getsize(a.genome) / 1e9:.2f} GB ({a.genome}), {j} threads.\n")
    print("| tool | seconds | hits |\n|---|---|---|")
    cpu_cmd = ["search", "-k", "3", "-j", str(j), "--device", "cpu", "--count-matches", "-f", a.guides, a.genome]
    times, out = timed([a.trawl] + cpu_cmd)
    t_cpu = min(times)
    n_cpu = sum(int(line.rsplit(":", 1)[-1]) for line in out.split())
    print(f"| trawl, CPU | {t_cpu:.2f} | {n_cpu} |", flush=True)
    record("trawl, CPU", times, n_cpu, ["trawl"] + cpu_cmd)
    for b in a.baseline:
        label, path = b.split("=", 1)
        times, out = timed([path] + cpu_cmd)
        n = sum(int(line.rsplit(":", 1)[-1]) for line in out.split())
        print(f"| trawl {label}, CPU | {min(times):.2f} | {n} |", flush=True)
        record(f"trawl {label}, CPU", times, n, ["trawl"] + cpu_cmd)
    try:
        gpu_cmd = ["search", "-k", "3", "--device", "gpu", "--count-matches", "-f", a.guides, a.genome]
        times, out = timed([a.trawl] + gpu_cmd)
        n = sum(int(x.rsplit(':', 1)[-1]) for x in out.split())
        print(f"| trawl, GPU | {min(times):.2f} | {n} |", flush=True)
        record("trawl, GPU", times, n, ["trawl"] + gpu_cmd)
    except RuntimeError as e:
        print(f"# no GPU run: {e}", file=sys.stderr)
    names, seqs = read_fasta(a.genome)
    import sassy
    from importlib import metadata
    sassy_version = metadata.version("sassy-rs")
    s = sassy.Searcher("dna", rc=False)
    t0 = time.perf_counter()
    matches = s.search_many(guides, seqs, 3, j, "single")
    t_sassy = time.perf_counter() - t0
    print(f"| sassy-rs {sassy_version} search_many (single) | {t_sassy:.2f} | {len(matches)} |")
    record(f"sassy-rs {sassy_version} search_many (single)", [t_sassy], len(matches),
           ["sassy.Searcher('dna', rc=False).search_many(guides, records, 3, threads, 'single')"])
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
    if a.csv:
        with open(a.csv, "w", newline="") as f:
            w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
            w.writeheader()
            w.writerows(rows)


if __name__ == "__main__":
    main()
