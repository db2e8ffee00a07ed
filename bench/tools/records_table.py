#!/usr/bin/env python3
"""records_table.py — a Markdown table from a benchmark record (bench/records/*.csv, one row per
figure: benchmark,case,tool,metric,value,unit,commit,date,host,cpu,cores,gpu,command).

  records_table.py RECORD.csv index-peers
  records_table.py RECORD.csv genome

index-peers: per text, one row per tool with its size, build time, resident memory after load,
and count (µs/pattern) and locate (µs/occurrence) for every pattern length m; the record's
commit, host and CPU in a line before the tables.
genome (bench/genome/run.sh, columns job,build,seconds,first_seconds,found,host): the resident
genome's calls, then the command line's jobs of each build. docs/PERFORMANCE.md holds the output between
`<!-- generated: ... -->` and `<!-- end generated -->`, which tests/cli/readme_test.sh checks."""
import csv
import sys
from collections import defaultdict


def fmt(v):
    x = float(v)
    if x >= 100:
        return f"{x:,.0f}"
    if x >= 10:
        return f"{x:.1f}"
    return f"{x:.3g}"


def index_peers(rows):
    first = rows[0]
    out = [f"Record `{first['commit']}`, {first['date'][:10]}, host {first['host']} "
           f"({first['cpu']}, {first['cores']} cores), one thread. Count in µs a pattern, locate in "
           "µs an occurrence; `agree`: every tool's totals and sampled positions equal."]
    fig = defaultdict(dict)  # (text, tool) -> metric or metric@m -> value
    texts, tools, lengths = [], [], []
    agree = True
    for r in rows:
        if r["metric"] == "source_commit":
            continue
        case, tool, metric = r["case"], r["tool"], r["metric"]
        text, _, m = case.partition(" m=")
        if text not in texts:
            texts.append(text)
        if tool not in tools:
            tools.append(tool)
        if m:
            if int(m) not in lengths:
                lengths.append(int(m))
            if metric == "agree":
                agree = agree and r["value"] == "1"
                continue
            fig[(text, tool)][f"{metric}@{m}"] = r["value"]
        else:
            fig[(text, tool)][metric] = r["value"]
    lengths.sort()
    ms = " / ".join(str(m) for m in lengths)
    for text in texts:
        out.append("")
        out.append(f"**{text}**")
        out.append("")
        out.append(f"| tool | bits/char | build s | resident MiB | count m = {ms} | locate m = {ms} |")
        out.append("|---|---|---|---|---|---|")
        for tool in tools:
            f = fig.get((text, tool))
            if not f:
                continue
            get = lambda k: fmt(f[k]) if k in f else "–"
            count = " / ".join(get(f"count@{m}") for m in lengths)
            locate = " / ".join(get(f"locate@{m}") for m in lengths)
            out.append(f"| {tool} | {get('size')} | {get('build')} | {get('resident')} | {count} | {locate} |")
    out.append("")
    out.append("Answers agree: " + ("yes, every text and length." if agree else "NO (see the record)."))
    return "\n".join(out)


GENOME_JOBS = {
    "genome_load": "read the genome and copy it to the GPU (once)",
    "genome_offtarget_1_resident": "offtarget, one guide, mismatches <= 4",
    "genome_offtarget_all_resident": "offtarget, 312 guides, mismatches <= 4",
    "genome_search_k_all_resident": "search -k 3, 312 guides, forward",
    "cli_offtarget": "`trawl offtarget --mismatches 4`, 312 guides, from the FASTA",
    "cli_search": "`trawl search -k 3`, 312 guides, from the FASTA",
}


def genome(rows):
    out = [f"Host: {rows[0]['host']}; seconds, best of the calls (first call in brackets); "
           "3.1 Gbp in 24 records.", "", "| job | build | seconds | found |", "|---|---|---|---|"]
    for r in rows:
        if r["job"] not in GENOME_JOBS:
            continue
        what = GENOME_JOBS[r["job"]]
        build = "genome kept loaded" if r["build"] == "resident" else f"`{r['build']}`"
        found = r["found"].split(" md5")[0]
        out.append(f"| {what} | {build} | {fmt(r['seconds'])} ({fmt(r['first_seconds'])}) | {found} |")
    return "\n".join(out)


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("index-peers", "genome"):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], newline="") as f:
        rows = list(csv.DictReader(f))
    if sys.argv[2] == "genome":
        print(genome(rows))
        return
    rows = [r for r in rows if r["benchmark"] == sys.argv[2]]
    if not rows:
        print(f"records_table.py: {sys.argv[1]}: no {sys.argv[2]} rows", file=sys.stderr)
        sys.exit(2)
    print(index_peers(rows))


if __name__ == "__main__":
    main()
