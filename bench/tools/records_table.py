#!/usr/bin/env python3
"""records_table.py — a Markdown table from a benchmark record (bench/records/*.csv, one row per
figure: benchmark,case,tool,metric,value,unit,commit,date,host,cpu,cores,gpu,command).

  records_table.py RECORD.csv index-peers

index-peers: per text, one row per tool with its size, build time, resident memory after load,
and count (µs/pattern) and locate (µs/occurrence) for every pattern length m; the record's
commit, host and CPU in a line before the tables. docs/PERFORMANCE.md holds its output between
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


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("index-peers",):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    with open(sys.argv[1], newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["benchmark"] == sys.argv[2]]
    if not rows:
        print(f"records_table.py: {sys.argv[1]}: no {sys.argv[2]} rows", file=sys.stderr)
        sys.exit(2)
    print(index_peers(rows))


if __name__ == "__main__":
    main()
