#!/usr/bin/env python3
"""report.py — turns the output of bench/approx/run.sh into Markdown tables (their figures go
into bench/records/approx-*.csv): the target table (one thread, DNA, m <= 64, k <= 3), per
corpus one row per (m, k) with one thread, all threads, scaling, edlib and the ratio, then the
many-pattern, grep-like peer and `trawl best` sections as run.sh printed them.

    bench/approx/report.py RUN.md [--also OTHER.md LABEL] > tables.md

--also adds a column with the one-thread GB/s of the same cell in another run (noise check).
"""
import argparse
import re


def parse(path):
    """{corpus: {(m, k): {threads: GB/s, 'edlib': GB/s, 'hits': n}}}, the raw sections, header."""
    cells, sections, header = {}, {}, ""
    corpus, section = None, None
    for line in open(path, encoding="utf-8"):
        line = line.rstrip("\n")
        if line.startswith("# machine:"):
            header = line[2:]
        m = re.match(r"## ([^\s:]+)(:?)", line)
        if m:
            corpus, section = (m.group(1) if m.group(2) else None), line
            sections[section] = []
            continue
        if section is not None:
            sections[section].append(line)
        f = [x.strip() for x in line.split("|")]
        if len(f) < 13 or corpus is None or not f[3].isdigit():
            continue
        tool, engine, mm, k, th = f[1], f[2], int(f[3]), int(f[4]), int(f[5])
        gbs = float(f[9])
        c = cells.setdefault(corpus, {}).setdefault((mm, k), {})
        if tool == "trawl" and engine == "auto":
            c[th] = gbs
            c["hits"] = f[12]
        elif tool == "edlib" and engine == "HW distance":
            c["edlib"] = gbs
    return cells, sections, header


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("run", help="the output of bench/approx/run.sh")
    ap.add_argument("--also", nargs=2, metavar=("OTHER", "LABEL"), help="another run's output and its column's label")
    a = ap.parse_args()
    run = a.run
    other, label = (parse(a.also[0])[0], a.also[1]) if a.also else (None, None)
    cells, sections, header = parse(run)
    print(f"Run: {header}\n")
    dna = cells.get("dna-256m", {})
    if dna:
        print("### One thread, DNA, GB/s (target >= 1.5 for m <= 64, k <= 3)\n")
        print("| m | k = 0 | k = 1 | k = 2 | k = 3 |\n|---|---|---|---|---|")
        for mm in (8, 16, 32, 64):
            print(f"| {mm} | " + " | ".join(f"{dna.get((mm, k), {}).get(1, float('nan')):.2f}" for k in range(4)) + " |")
        print()
    for corpus, rows in cells.items():
        threads = sorted({t for c in rows.values() for t in c if isinstance(t, int)})
        all_t = threads[-1]
        print(f"### {corpus}: GB/s of text, fastest of REPS runs; ratio = 1 thread / edlib HW\n")
        head = f"| m | k | 1 thread | {all_t} threads | scaling | edlib HW | ratio | clusters |"
        sep = "|---|---|---|---|---|---|---|---|"
        if other:
            head += f" 1 thread, {label} |"
            sep += "---|"
        print(head + "\n" + sep)
        for (mm, k), c in sorted(rows.items()):
            if 1 not in c:
                continue
            one, many, ed = c[1], c.get(all_t, float("nan")), c.get("edlib", float("nan"))
            line = (f"| {mm} | {k} | {one:.2f} | {many:.1f} | {many / one:.1f}x | {ed:.3f} | {one / ed:.0f}x | "
                    f"{c.get('hits', '')} |")
            if other:
                o = other.get(corpus, {}).get((mm, k), {}).get(1)
                line += f" {o:.2f} |" if o is not None else " |"
            print(line)
        print()
    for name, lines in sections.items():
        if "trawl (full file)" in name:
            many = [l for l in lines if "1000 patterns" in l or "pattern by pattern" in l]
            if many:
                print(f"### Many patterns ({name.split(':')[0][3:]}, 8 MiB prefix)\n")
                print("| tool | engine | m | k | threads | MiB | wall s | cpu s | GB/s wall | GB/s per cpu-s | GCUPS wall | hits |")
                print("|---|---|---|---|---|---|---|---|---|---|---|---|")
                print("\n".join(many) + "\n")
            continue
        print(name.replace("## ", "### ") + "\n")
        print("\n".join(l for l in lines if l.strip()) + "\n")


if __name__ == "__main__":
    main()
