#!/usr/bin/env python3
"""records_table.py — Markdown tables from benchmark records (bench/records/*.csv).

  records_table.py RECORD.csv [RECORD.csv ...] KIND
  records_table.py --help

KIND says what a record holds and which table to make of it:

  index-peers     bench/index/peers.sh (one row per figure: benchmark,case,tool,metric,value,
                  unit,commit,date,host,cpu,cores,gpu,command): per text, one row per tool with
                  its size, build time, resident memory after load, and count (µs/pattern) and
                  locate (µs/occurrence) for every pattern length m
  genome          bench/genome/run.sh (job,build,seconds,first_seconds,found,host): the resident
                  genome's calls, then the command line's jobs of each build
  genome-gpus     trawl_genome_bench --bulges 1 on 1, 2, 4 ... GPUs of one host, builds in turn (bench/genome/gpus.sh)
                  (job,device,best_s,first_s,found,build,host,command): each build's load and
                  bulge job on each GPU set, every run, and what two GPUs give over one
  sites-direct    trawl_bench_cuda --sections 6 (guides,tables_ms,direct_ms,sites,same,...): the
                  GPU site scan's two kernels by guide count
  offtarget-bulges  bench/offtarget/old_vs_new.sh (build,device,genome,limits,seconds,...): each
                  job's runs with both builds, the commits taken from the record's name
  exact, patterns, regex, approx-grid, approx-many, approx-long, approx-best, cuda, scaling,
  scale-gpus, scale-mpi, gpu-fasta, stream, offtarget, sassy, index-build, index-pangenome,
  index-count, index-sets
                  a record transcribed from a lab note that bench/results/ held (one row per
                  measured case, see bench/records/README.md): the table of its current figures
  approx-cpus     several approx-grid records: one thread on each CPU
  index-approx    an index-approx-cli record, then an index-approx-warm one: search through the
                  index against the search of the FASTA
  python          python records, one table each
  seed-crossover  bench/approx/seed_crossover.sh (patterns,engine,seconds,hits_md5,commit,host):
                  the seed filter against the suffix filter by guide count
  lines-count     bench/lines/count.sh records of builds measured in one call (input,threads,k,
                  count_s,count_matches_s,ratio,...): -c over --count-matches, a column a build

Transcribed records split a cell of several runs into columns NAME_1, NAME_2, ... and a range
into NAME_min, NAME_max; the tables print runs as "a / b" and a range as "a–b", with the
figures as the record writes them. Each table starts with a line naming the record, its hosts,
the trawl builds and the dates. docs/PERFORMANCE.md holds the output between
`<!-- generated: ... -->` and `<!-- end generated -->`, which tests/cli/readme_test.sh checks."""
import csv
import os
import re
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
    "genome_load": "read the genome once (and copy it to the GPU)",
    "genome_offtarget_1_resident": "offtarget, one guide, mismatches <= 4",
    "genome_search_1_exact_resident": "search, one guide, exact",
    "genome_offtarget_all_resident": "offtarget, 312 guides, mismatches <= 4",
    "genome_search_k_all_resident": "search -k 3, 312 guides, forward",
    "genome_offtarget_all_bulges_resident": "offtarget, 312 guides, mismatches <= 4, 1 DNA + 1 RNA bulge",
    "cli_offtarget": "`trawl offtarget --mismatches 4`, 312 guides, from the FASTA",
    "cli_search": "`trawl search -k 3`, 312 guides, from the FASTA",
    "genome_load_2bit": "read the genome once from its .2bit (and copy it to the GPU)",
    "cli_offtarget_2bit": "`trawl offtarget --mismatches 4`, 312 guides, from the .2bit",
    "cli_search_2bit": "`trawl search -k 3`, 312 guides, from the .2bit",
}


KEPT = {"resident": "genome kept loaded", "resident-bytes": "genome kept loaded, as bytes"}


def genome(rows):
    out = [f"Host: {rows[0]['host']}; seconds, best of the calls (first call in brackets); "
           "3.1 Gbp in 24 records.", "", "| job | build | seconds | found |", "|---|---|---|---|"]
    for r in rows:
        build = KEPT.get(r["build"], f"`{r['build']}`")
        memory = {"genome_resident_bytes": "device memory that holds the genome on the GPU",
                  "genome_host_bytes": "host memory that holds the genome"}
        if r["job"] in memory:
            if int(r["found"]) > 0:
                out.append(f"| {memory[r['job']]} | {build} | – | {int(r['found']) / 2**20:.0f} MiB |")
            continue
        if r["job"] not in GENOME_JOBS:
            continue
        what = GENOME_JOBS[r["job"]]
        found = r["found"].split(" md5")[0]
        out.append(f"| {what} | {build} | {fmt(r['seconds'])} ({fmt(r['first_seconds'])}) | {found} |")
    return "\n".join(out)


def sites_direct(rows):
    r0 = rows[0]
    out = [f"Host: {r0['host']}; build `{r0['build']}`; {r0['genome_gbp']} Gbp generated, guides of {r0['guide']} "
           f"+ {r0['pam']}, mismatches <= {r0['mismatches']}, both strands; kernel time in ms.", "",
           "| guides | block tables | direct test | sites | the same sites |", "|---|---|---|---|---|"]
    for r in rows:
        out.append(f"| {r['guides']} | {r['tables_ms']} | {r['direct_ms']} | {r['sites']} | {r['same']} |")
    return "\n".join(out)


# ---- transcribed records ------------------------------------------------------------------

def read(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def runs(row, name):
    """the (low, high) pairs of column NAME: its runs (NAME_1 ...) and ranges (NAME_min, NAME_max)"""
    out = []
    if row.get(name):
        out.append((row[name], row[name]))
    if row.get(name + "_min"):
        out.append((row[name + "_min"], row[name + "_max"]))
    i = 1
    while name + f"_{i}" in row or name + f"_{i}_min" in row:
        if row.get(name + f"_{i}"):
            out.append((row[name + f"_{i}"],) * 2)
        if row.get(name + f"_{i}_min"):
            out.append((row[name + f"_{i}_min"], row[name + f"_{i}_max"]))
        i += 1
    return out


def one(lo, hi):
    return lo if float(lo) == float(hi) else f"{lo}–{hi}"


def each(pairs, unit=""):
    """every run, as the record has it: "a / b", a range "a–b"; "—" when there is none"""
    if not pairs:
        return "—"
    return " / ".join(one(lo, hi) for lo, hi in pairs) + unit


def span(pairs, unit=""):
    """the lowest to the highest of the runs"""
    if not pairs:
        return "—"
    lo = min((p[0] for p in pairs), key=float)
    hi = max((p[1] for p in pairs), key=float)
    return one(lo, hi) + unit


def all_runs(rows, name):
    return [p for r in rows for p in runs(r, name)]


def col(r, name, unit=""):
    return each(runs(r, name), unit)


def about(path, rows):
    """the line before a table: the record, its hosts, builds and dates, and where it came from"""
    hosts = []
    for r in rows:
        parts = [r["cpu"]] if r.get("cpu") else []
        if r.get("cores"):
            parts.append(f"{r['cores']} cores")
        if r.get("gpu") and r["gpu"] != "none":
            parts.append(r["gpu"])
        h = f"{r['host']} ({', '.join(parts)})" if parts else r["host"]
        if h not in hosts:
            hosts.append(h)
    builds = []
    for r in rows:
        for c in r.get("commit", "").split():
            if c not in builds:
                builds.append(c)
    unnamed = any(not r.get("commit") for r in rows)
    dates = sorted({r["date"] for r in rows if r.get("date")})
    line = f"Record `{path}`: " + "; ".join(hosts) + "."
    if builds:
        line += " trawl " + ", ".join(f"`{b}`" for b in builds)
        line += " and builds the note does not name." if unnamed else "."
    else:
        line += " The note does not name the trawl build."
    if dates:
        line += " " + (dates[0] if len(dates) == 1 else f"{dates[0]} to {dates[-1]}") + "."
    sources = sorted({r["source"] for r in rows if r.get("source")})
    if sources:
        line += " " + "; ".join(s[0].upper() + s[1:] for s in sources) + "."
    return line


def table(header, body):
    """a Markdown table; a | inside a cell (a regular expression) is escaped"""
    def cells(row):
        return "| " + " | ".join(c.replace("|", "\\|") for c in row) + " |"
    return [cells(header), "|" + "---|" * len(header)] + [cells(r) for r in body]


def page(head, header, body, tail=()):
    """the lines before a table, the table, the lines after it"""
    return "\n".join(list(head) + table(header, body) + list(tail))


def main_commit(rows):
    """the build most rows of a record measured"""
    count = defaultdict(int)
    for r in rows:
        count[r["commit"]] += 1
    return max(count, key=count.get)


def exact(path, rows):
    """trawl against ripgrep, GNU grep and ugrep: per text and thread count, m = 8-64"""
    body = []
    for text in dict.fromkeys(r["text"] for r in rows):
        for threads in ("16", "1"):
            sel = [r for r in rows if r["text"] == text and r["threads"] == threads and 8 <= int(r["m"]) <= 64]
            peers = [span(all_runs(sel, c)) for c in ("trawl_gbs", "rg_gbs", "grep_gbs", "ugrep_gbs")]
            body.append([text, threads] + peers + [span(all_runs(sel, "trawl_over_rg"), "×")])
    head = [about(path, rows), "",
            "GB/s over 256 MiB, page cache warm, the lowest to the highest of the patterns of m = 8–64 "
            "(two patterns per length with 16 threads, one with 1); trawl / rg is ripgrep's time over trawl's.", ""]
    return page(head, ["text", "threads", "trawl", "ripgrep 13", "GNU grep 3.11", "ugrep 3.11", "trawl / rg"], body)


def patterns(path, rows):
    """pattern sets against ripgrep, ugrep and GNU grep, both corpora, 1 and 16 threads"""
    sel = [r for r in rows if r["commit"] == "8a443dd" and r["corpus"] in ("kjv", "dna") and not r.get("device")]

    def x_rg(r):
        bound = re.search(r"x rg (> [\d.]+)", r.get("note", ""))
        return col(r, "x_rg") if runs(r, "x_rg") or not bound else bound.group(1)
    body = [[r["corpus"], r["patterns"], r["threads"]] + [col(r, c) for c in ("trawl_s", "rg_s", "ugrep_s", "grep_s")]
            + [x_rg(r), col(r, "trawl_count"), col(r, "rg_count")] for r in sel]
    head = [about(path, sel), "",
            "Seconds with `--count-matches -f SET`, best of 2 (grep one run, one-thread rows only; — past 15 s). "
            "× rg is ripgrep's time over trawl's; trawl counts every occurrence, ripgrep non-overlapping ones.", ""]
    header = ["corpus", "patterns", "threads", "trawl s", "rg s", "ugrep s", "grep s", "× rg", "trawl count", "rg count"]
    return page(head, header, body)


def regex(path, rows):
    figures = ("trawl_s", "rg_s", "rg_pcre2_s", "grep_e_s", "x_rg", "x_rg_pcre2")
    body = [[f"`{r['expression']}`", r["threads"], col(r, "lines")] + [col(r, c) for c in figures] for r in rows]
    head = [about(path, rows), "",
            "kjv-256m.txt, line counts (`-c`), best of 3, seconds; × rg is ripgrep's time over trawl's.", ""]
    return page(head, ["expression", "threads", "lines", "trawl", "rg", "rg -P", "grep -E", "× rg", "× rg -P"], body)


def approx_grid(path, rows):
    """one pattern over dna-256m: m by k, one thread / all threads (× edlib at one thread)"""
    c = main_commit(rows)
    sel = [r for r in rows if r["commit"] == c and r["text"] == "dna-256m"]
    threads = next((r["threads"] for r in sel if r.get("threads")), "16")
    ks = sorted({r["k"] for r in sel}, key=int)
    body = []
    for m in sorted({r["m"] for r in sel}, key=int):
        line = [m]
        for k in ks:
            r = next((r for r in sel if r["m"] == m and r["k"] == k), None)
            cell = f"{col(r, 'trawl_1t_gbs')} / {col(r, 'trawl_gbs')} ({col(r, 'trawl_1t_over_edlib')}×)" if r else "—"
            line.append(cell)
        body.append(line)
    head = [about(path, sel), "",
            f"GB/s of a 256 MiB DNA text, one pattern, fastest of the runs: one thread / {threads} threads "
            "(in brackets one thread over edlib's HW mode on a 32 MiB prefix). k = 0 runs the approximate engines.", ""]
    return page(head, ["m"] + [f"k = {k}" for k in ks], body)


def approx_cpus(paths, records):
    """one thread on each CPU: the dense cell m = 8, and m = 16-64, k <= 3"""
    body = []
    for rows in records:
        c = main_commit(rows)
        sel = [r for r in rows if r["commit"] == c and r["text"] == "dna-256m"]
        dense = [next((col(r, "trawl_1t_gbs") for r in sel if r["m"] == "8" and r["k"] == k), "—") for k in "0123"]
        mid = [r for r in sel if r["m"] in ("16", "32", "64") and int(r["k"]) <= 3]
        low = [r for r in sel if int(r["m"]) <= 64 and int(r["k"]) <= 3]
        body.append([f"{sel[0]['cpu']}, {sel[0]['host']}", f"`{c}`", " / ".join(dense), span(all_runs(mid, "trawl_1t_gbs")),
                     span(all_runs(low, "edlib_1t_gbs")), span(all_runs(low, "trawl_1t_over_edlib"), "×")])
    head = ["Records " + ", ".join(f"`{p}`" for p in paths) + " (sources in each record's `source` column).", "",
            "One thread, GB/s of dna-256m, one pattern; edlib's HW mode on a 32 MiB prefix of the same text.", ""]
    header = ["CPU, host", "trawl", "m = 8, k = 0 / 1 / 2 / 3", "m = 16–64, k ≤ 3", "edlib", "× edlib (m ≤ 64, k ≤ 3)"]
    return page(head, header, body)


def approx_many(path, rows):
    def hits(r):
        return col(r, "hits") + (f" ({r['hits_note']})" if r.get("hits_note") else "")
    body = [[f"{r['tool']} ({r['engine']})", r["k"], r["threads"], col(r, "wall_s"), col(r, "gbs_wall"), hits(r)]
            for r in rows]
    head = [about(path, rows), "",
            "1,000 patterns of 20–23 nt over an 8 MiB prefix of dna-256m; GB/s counts the text once per pattern.", ""]
    return page(head, ["tool", "k", "threads", "wall s", "GB/s", "hits"], body)


def approx_long(path, rows):
    def noted(r, c):
        return col(r, c) + (f" ({r[c + '_note']})" if r.get(c + "_note") else "")
    body = [[r["m"], r["k"], noted(r, "d8cbe46_gbs"), noted(r, "avx2_kernel_gbs"), col(r, "edlib_gbs")] for r in rows]
    head = [about(path, rows), "",
            "One thread, GB/s, a 32 MiB prefix of dna-256m (edlib: 8 MiB); `filter`: the pigeonhole filter takes "
            "the pattern.", ""]
    return page(head, ["m", "k", "AVX-512", "AVX2 (`--simd avx2`)", "edlib"], body)


def approx_best(path, rows):
    c = main_commit(rows)
    sel = [r for r in rows if r["commit"] == c]
    names = [("myers_1t_ms", "Myers, 1 thread, ms"), ("myers_16t_ms", "Myers, 16 threads, ms"),
             ("edlib_1t_ms", "edlib (HW, no bound), ms"), ("myers_1t_over_edlib", "1 thread over edlib")]
    body = [[label] + [col(r, name, "×" if name.endswith("edlib") else "") for r in sel] for name, label in names]
    head = [about(path, sel), "",
            "`trawl best`: X random 0/1 of 32–1024 bytes over Y of 2^22 (rand01-4m.txt), fastest of 3.", ""]
    return page(head, ["|X|"] + [r["X"] for r in sel], body)


CUDA_ROWS = [
    ("exact", "filter (16-byte loads, first/second/last-byte filter)", "32", "throughput",
     "exact search, device-resident 1 GiB, m = 32"),
    ("myers", "single", "16", "tcups", "Myers, one pattern m = 16, k = 4"),
    ("myers", "single", "32", "tcups", "Myers, one pattern m = 32, k = 4"),
    ("myers", "single", "64", "tcups", "Myers, one pattern m = 64, k = 4"),
    ("task-parallel", "tiled (coded)", "23", "time", "312 guides × 23 nt, k = 3, both strands, over 3.10 Gbp"),
    ("best", "Myers multi-word", "1024", "time", "`best`, |X| = 1024 over 2^22 (Myers)"),
    ("best", "wavefront (Man-Nakano-Ito)", "1024", "time", "`best`, |X| = 1024 over 2^22 (wavefront)"),
]


def cuda(path, rows):
    """the GPU kernels on device-resident data, and a file from the page cache end to end"""
    builds = list(dict.fromkeys(r["commit"] for r in rows))
    body = []
    for section, what, m, metric, label in CUDA_ROWS:
        line = [label]
        for b in builds:
            sel = [r for r in rows if r["commit"] == b and r["section"] == section and r["what"] == what
                   and r["m"] == m and r["metric"] == metric and ("3.10" in r["input"] or section != "task-parallel")]
            line.append(f"{col(sel[0], 'value')} {sel[0]['unit']}" if sel else "—")
        body.append(line)
    e2e = []
    for b in builds:
        sel = [r for r in rows if r["commit"] == b and r["section"] == "end-to-end" and r["metric"] == "throughput"
               and "mapped file" in r["what"] and "32 MiB" in r["what"]]
        e2e.append(span(all_runs(sel, "value"), " GB/s") if sel else "—")
    body.append(["a 1 GiB file from the page cache, 32 MiB chunks, end to end (exact and k = 2, every run)"] + e2e)
    gpus = [next(r["gpu"] for r in rows if r["commit"] == b).split(" (")[0] for b in builds]
    return page([about(path, rows), ""], ["what"] + [f"{g}, `{b}`" for g, b in zip(gpus, builds)], body)


def scaling(path, rows):
    keys = list(dict.fromkeys((r["m"], r["k"]) for r in rows))
    body = []
    for key in keys:
        sel = [r for r in rows if (r["m"], r["k"]) == key]
        body.append([f"m = {key[0]}, k = {key[1]}", col(sel[0], "count")]
                    + [f"{col(r, 'gbs')} ({col(r, 'speedup')}×)" for r in sel])
    header = ["search", "count"]
    for r in rows:
        if (r["m"], r["k"]) == keys[0]:
            t = r["threads"]
            header.append(f"{t} thread" + ("s" if t != "1" else "") if r["device"] == "cpu" else "GPU, end to end")
    head = [about(path, rows), "",
            "`trawl search -c` over dna-256m.txt, GB/s of the whole process (speed-up over one thread), best of 3; "
            "the GPU column includes the process's start and the CUDA context.", ""]
    return page(head, header, body)


def scale_gpus(path, rows):
    """the newest host: the search and offtarget over 1, 2 and 4 cards"""
    last = max(r["date"] for r in rows)
    c = [r["commit"] for r in rows if r["date"] == last and r["what"] == "search -k 3" and r.get("speedup")][-1]
    sel = [r for r in rows if r["commit"] == c]
    body = []
    for dev in dict.fromkeys(r["device"] for r in sel):
        s = next(r for r in sel if r["device"] == dev and r["what"] == "search -k 3" and r.get("speedup"))
        o = [r for r in sel if r["device"] == dev and r["what"].startswith("offtarget")]
        body.append([f"`{dev}`", col(s, "seconds"), col(s, "speedup"), col(s, "efficiency", " %") if runs(s, "efficiency")
                     else "—", each(all_runs(o, "seconds"))])
    head = [about(path, sel), "",
            "3.1 Gbp FASTA in the page cache, seconds: `search -k 3 --both-strands` of 312 guides × 23 nt "
            "(best of 2) and `offtarget --mismatches 4` of 312 guides of 20 nt + NGG (single runs).", ""]
    return page(head, ["--device", "search s", "speed-up", "efficiency", "offtarget s"], body)


def scale_mpi(path, rows):
    """MPI ranks on one host against one process, 3.1 Gbp"""
    new = [r for r in rows if r["commit"] == "fba26f1"]
    old = [r for r in rows if r["commit"] == "de76109" and r["input"] == "3.1 Gbp FASTA" and "first call" not in r["command"]]
    body = []
    for r in new:
        o = [x for x in old if x["ranks"] == r["ranks"] and x["launcher"] == r["launcher"]]
        run = "one process" if r["launcher"].startswith("none") else f"mpirun -np {r['ranks']}"
        body.append([f"{run}, -j {r['threads_per_rank']}", each(all_runs(o, "seconds")), col(r, "seconds"),
                     col(r, "over_one_process", "×")])
    head = [about(path, new + old), "",
            "312 guides × 23 nt, `-k 3 --both-strands --device cpu`, the 3.1 Gbp FASTA of bench/scale/inputs.sh, "
            "one round each, seconds; every output the same.", ""]
    return page(head, ["run", "`de76109` s", "`fba26f1` s", "over one process"], body)


def gpu_fasta(path, rows):
    body = []
    for cmd in dict.fromkeys(r["command_line"] for r in rows if r["chunk"].startswith("default")):
        o = next(r for r in rows if r["command_line"] == cmd and r["build"] == "de76109")
        n = next(r for r in rows if r["command_line"] == cmd and r["build"] == "37faf0f" and r["chunk"].startswith("default"))
        body.append([f"`{cmd}`", col(o, "seconds"), col(n, "seconds"), col(o, "max_rss_gb", " GB"), col(n, "max_rss_gb", " GB")])
    head = [about(path, rows), "",
            "The 3.1 Gbp FASTA of bench/scale/inputs.sh through one GPU, two rounds each, seconds; "
            "`de76109` reads it in 256 MiB chunks, `37faf0f` in 32 MiB chunks.", ""]
    return page(head, ["command", "`de76109` s", "`37faf0f` s", "`de76109` max RSS", "`37faf0f` max RSS"], body)


def stream(path, rows):
    pipe = [r for r in rows if r["date"] == "2026-11-26" and r["input"].startswith("pipe")]
    comp = [r for r in rows if r["input"].startswith("compressed")]
    body = [[r["input"].split(" = ")[0], r["what"], col(r, "seconds"), "—", col(r, "vs_reference", "×"),
             f"`{r['reference']}` {col(r, 'reference_seconds')} s"] for r in pipe]
    body += [["1 GiB of KJV, gzip -6 / zstd -3", f"`{r['what']}`", col(r, "seconds"), col(r, "peak_rss_mib") + " MiB",
              col(r, "vs_reference", "×") if runs(r, "vs_reference") else "—", ""] for r in comp]
    head = [about(path, pipe + comp), "",
            "Seconds, best of 3, `-j 16`; × is the reference's time over the row's (above 1: faster than the "
            "reference). The .gz and .zst rows' RSS is the compressed file's mapping.", ""]
    return page(head, ["input", "what", "seconds", "peak RSS", "×", "reference"], body)


def offtarget(path, rows):
    """3.1 Gbp, 312 guides of 20 nt, sites found from the PAM positions"""
    sel = [r for r in rows if r["date"] == "2026-11-27" and r["genome"] == "3.1 Gbp" and r["build"] in ("91e4769", "8a443dd")
           and not r["note"].startswith("the footnote")]
    early = sorted({r["note"] for r in sel if r["note"] and not r["note"].startswith("rounds")})

    def cell(lim, dev, b):
        out = []
        for r in sel:
            if r["limits"] == lim and r["device"] == dev and r["build"] == b:
                for i, (lo, hi) in enumerate(runs(r, "seconds")):
                    star = r["note"] in early or (r["note"].startswith("rounds 2 and 3") and i > 0)
                    out.append(one(lo, hi) + ("*" if star else ""))
        return " / ".join(out) or "—"
    body = []
    for lim in dict.fromkeys(r["limits"] for r in sel):
        r0 = next(r for r in sel if r["limits"] == lim)
        body.append([f"`{lim}`", cell(lim, "gpu", "91e4769"), cell(lim, "gpu", "8a443dd"), cell(lim, "auto", "8a443dd"),
                     cell(lim, "cpu -j 16", "8a443dd"), f"{col(r0, 'sites')} ({r0['md5']})"])
    head = [about(path, sel), "",
            "`trawl offtarget` over a 3.1 Gbp genome (`trawl-mkgenome --length 3100000000 --records 24 --seed 7`), "
            "312 guides of 20 nt, PAM NGG, both strands, seconds; one md5 per row.", ""]
    header = ["limits", "GPU `91e4769`", "GPU `8a443dd`", "auto `8a443dd`", "16 CPU threads `8a443dd`", "sites (md5)"]
    return page(head, header, body, ["", "\\* " + "; ".join(early) + "."] if early else [])


def offtarget_bulges(path, rows):
    """bench/offtarget/old_vs_new.sh: the record's name is offtarget-bulges-NEW-vs-OLD-HOST.csv"""
    m = re.match(r"offtarget-bulges-(\w+)-vs-(\w+)-", os.path.basename(path))
    new, old = m.groups() if m else ("new", "old")
    body = []
    for key in dict.fromkeys((r["genome"], r["limits"], r["device"]) for r in rows):
        sel = [r for r in rows if (r["genome"], r["limits"], r["device"]) == key]
        o = " / ".join(r["seconds"] for r in sel if r["build"] == "trawl-old")
        n = " / ".join(r["seconds"] for r in sel if r["build"] == "trawl")
        same = "yes" if len({r["md5"] for r in sel}) == 1 else "NO"
        body.append([key[0], f"`{key[1]}`", key[2], o, n, sel[0]["sites"], same])
    head = [f"Record `{path}`: {rows[0]['host']}; trawl `{old}` (old) and `{new}` (new), interleaved; "
            "seconds of each run.", ""]
    return page(head, ["genome", "limits", "device", f"`{old}` s", f"`{new}` s", "sites", "one md5"], body)


def genome_gpus(path, rows):
    """trawl_genome_bench --bulges 1 on one GPU and more, builds in turn: every run's best of its calls"""
    builds = list(dict.fromkeys(r["build"] for r in rows))
    devices = list(dict.fromkeys(r["device"] for r in rows))
    jobs = {"load": "load (FASTA, kept two bits a base on each GPU)",
            "offtarget_all_resident": "offtarget, 312 guides, mismatches <= 4",
            "offtarget_all_bulges_resident": "offtarget, 312 guides, mismatches <= 4, 1 DNA + 1 RNA bulge"}
    jobs = {job: what for job, what in jobs.items() if any(r["job"] == job for r in rows)}  # those the record holds
    head = [f"Record `{path}`: {rows[0]['host']}; `{rows[0]['command']}`; seconds, best of each run's calls, "
            "every run.", ""]
    body = []
    for job, what in jobs.items():
        for b in builds:
            secs = {d: [float(r["best_s"]) for r in rows if (r["job"], r["build"], r["device"]) == (job, b, d)] for d in devices}
            cells = [" / ".join(fmt(v) for v in secs[d]) or "—" for d in devices]
            # the best of one GPU over the best of each larger set
            gains = [f"{min(secs[devices[0]]) / min(secs[d]):.2f}×" if job != "load" and secs[devices[0]] and secs[d] else "—"
                     for d in devices[1:]]
            body.append([what, f"`{b}`", *cells, *gains])
    more = [f"best 1 GPU / best {len(d.split(','))} GPUs" for d in devices[1:]]
    return page(head, ["job", "build", *[f"`{d}` s" for d in devices], *more], body)


def sassy(path, rows):
    # a transcribed record holds two calls (its 17:37 one is the table); vs_sassy.py --csv one call
    sel = [r for r in rows if "17:37" in r["command"]] or rows
    runs = "one run each" if "17:37" in sel[0]["command"] else "the fastest–slowest of the runs"
    head = [about(path, sel), "",
            "312 guides × 23 nt, forward strand, k = 3, no PAM filter, over the 3.15 GB genome of "
            f"bench/scale/inputs.sh, 16 threads, {runs}; the hit sets agree.", ""]
    return page(head, ["tool", "seconds", "hits"], [[r["tool"], col(r, "seconds"), col(r, "hits")] for r in sel])


def seed_crossover(path, rows):
    by_n = defaultdict(dict)
    for r in rows:
        by_n[int(r["patterns"])][r["engine"]] = r
    body = [[str(n), e["myers-seeds"]["seconds"], e["myers-suffix"]["seconds"],
             "yes" if e["myers-seeds"]["hits_md5"] == e["myers-suffix"]["hits_md5"] else "NO"]
            for n, e in sorted(by_n.items())]
    head = [f"Record `{path}`: {rows[0]['host']}; trawl `{rows[0]['commit']}`.", "",
            "The first N of 312 guides (23 nt), k = 3, forward strand, over 30 MB of the 3.1 Gbp genome, one "
            "thread, `--count-matches`, best of the runs, each engine forced.", ""]
    return page(head, ["guides", "seed filter s", "suffix filter s", "same counts"], body)


def index_build(path, rows):
    sel = [r for r in rows if "suffix array of S''" in r["command"] or r["build"].startswith("28198a8")]

    def build(r):
        return f"`{r['build']}`" if re.match(r"^[0-9a-f]{7}$", r["build"]) else r["build"]
    body = [[r["input"], r["host"], build(r), col(r, "seconds"),
             col(r, "peak_rss_kb") + " KB" + (f" ({r['note']})" if r.get("note") else "")] for r in sel]
    head = [about(path, sel), "",
            "`trawl index build`, default profile, single runs: time and peak RSS (`/usr/bin/time`).", ""]
    return page(head, ["input", "host", "build", "seconds", "peak RSS"], body)


INDEX_FIGURES = (("seconds", " s"), ("peak_gb", " GB peak"), ("z", " phrases"), ("kept_phrases", " kept"),
                 ("s2_bytes", " bytes"), ("s2_pct_of_text", " % of the text"), ("index_mb", " MB"),
                 ("bits_per_char", " bits/char"))


def index_pangenome(path, rows):
    sel = [r for r in rows if r["build"] in ("6461f2c", "720a3cf") and r["input"].startswith("the issue's")]
    body = []
    for what in dict.fromkeys(r["what"] for r in sel):
        line = [what]
        for b in ("6461f2c", "720a3cf"):
            r = next((r for r in sel if r["what"] == what and r["build"] == b), None)
            line.append(", ".join(col(r, c) + unit for c, unit in INDEX_FIGURES if runs(r, c)) if r else "—")
        body.append(line)
    head = [about(path, sel), "",
            "The issue's pangenome (64 haplotypes of a 50 Mbp genome, 3.2 Gbp; the relative parse takes its "
            "first 64 MiB as the reference); 312 guides of 23 nt, k = 3, both strands; two rounds of each search.", ""]
    return page(head, ["", "`6461f2c` (reference only)", "`720a3cf` (co-linear sources)"], body)


def index_count(path, rows):
    builds = ("196dc10", "cb39f50", "dba9213")
    bench = [r for r in rows if r["build"] in builds and r.get("occ_per_pattern")]
    body = []
    for p in dict.fromkeys(r["patterns"] for r in bench):
        sel = {r["build"]: r for r in bench if r["patterns"] == p}
        line = [p, col(sel["196dc10"], "occ_per_pattern")]
        for b in builds:
            line += [col(sel[b], "serial_us_per_occ"), col(sel[b], "locate_over_count")]
        body.append(line)
    head = [about(path, bench), "",
            "`trawl_index_bench`, one thread, on the pangenome's index (the load excluded): serial locate in µs "
            "per occurrence, and locate's time over count's.", ""]
    header = ["patterns", "occurrences each", "`196dc10` µs/occ", "÷", "`cb39f50` µs/occ", "÷",
              "`dba9213` (`--kernel-text`) µs/occ", "÷"]
    cli = [r for r in rows if r["build"] in ("196dc10", "dba9213") and r.get("cli_s_min")]
    tail = []
    if cli:
        lines = []
        for what in dict.fromkeys(r["patterns"] for r in cli):
            lines.append([what] + [each(all_runs([r for r in cli if r["patterns"] == what and r["build"] == b], "cli_s"), " s")
                                   for b in ("196dc10", "dba9213")])
        tail = [""] + table(["the command line, one pattern", "`196dc10`", "`dba9213`"], lines)
    return page(head, header, body, tail)


CURRENT = ("44d15e7", "4a7307b", "54ad30e", "049312e")  # the builds with the GPU path's start-up of 44d15e7


def index_approx(paths, records):
    """approximate search through the index against the search of the FASTA"""
    cli, warm = records[0], records[1]

    def builds(sel, key="build"):
        return ", ".join(f"`{b}`" for b in dict.fromkeys(r[key] for r in sel))

    def group(label, sel):
        return [label, span(all_runs(sel, "index_s")), span(all_runs(sel, "plain_s")), span(all_runs(sel, "ratio"), "×"),
                builds(sel)]
    default = [r for r in cli if r["index"].startswith("default (M = 32, no S''")]
    text = [r for r in cli if r["index"] == "--kernel-text (M = 32)" and r["build"] in CURRENT and r.get("query")]
    body = [group("16 CPU cores, default index", [r for r in default if r["device"] == "cpu"]),
            group("16 CPU cores, `--kernel-text` index", [r for r in text if r["device"] == "cpu"]),
            group("one GPU, default index", [r for r in default if r["device"] == "gpu"]),
            group("one GPU, `--kernel-text` index", [r for r in text if r["device"] == "gpu"])]
    plain = all_runs(warm, "plain_file_later_s") + all_runs(warm, "plain_memory_later_s")
    ratio = all_runs(warm, "ratio_file") + all_runs(warm, "ratio_memory")
    body.append(["one GPU, the index kept loaded (Python `Index.search(device=\"gpu\")`; the FASTA searched again "
                 "in the same process)", span(all_runs(warm, "index_later_s")), span(plain), span(ratio, "×"),
                 builds(warm, "commit")])
    ctx = [r for r in cli if r.get("what", "").startswith("a process that only creates a CUDA context")]
    body.append(["a process that only creates a CUDA context and exits", span(all_runs(ctx, "other_s")), "", "",
                 builds(ctx, "commit")])
    head = [about(paths[0], default + text + ctx), about(paths[1], warm), "",
            "The issue's pangenome (64 haplotypes of 50 Mbp, 3.2 Gbp), 312 guides of 23 nt, k = 3, both strands, "
            "seconds (the lowest to the highest over the calls and rounds; hosts of one kind differ by up to 30 %). "
            "The ratio is the FASTA's time over the index's, within one call.", ""]
    return page(head, ["", "through the index", "over the FASTA", "ratio", "builds"], body)


def index_sets(path, rows):
    sel = [r for r in rows if r["build"] == "35387f9" and r["what"] == "trawl_index_bench"]
    body = [[r["patterns"], r["n_patterns"], col(r, "occurrences"), col(r, "serial_us_per_occ"),
             col(r, "set_16t_speedup", "×"), col(r, "balanced_16t_speedup", "×")] for r in sel]
    head = [about(path, sel), "",
            "`trawl_index_bench` on the index of kjv-rep50.txt (default profile): serial locate, and the speed-up "
            "of a pattern set spread over 16 threads (`set`) and of one pattern after another (`balanced`).", ""]
    return page(head, ["patterns", "#", "occurrences", "serial µs/occ", "set, 16 threads", "one by one, 16 threads"], body)


def lines_count(paths, records):
    """bench/lines/count.sh records: -c over --count-matches, per build, in one call"""
    r0 = records[0][0]
    head = ["Records " + ", ".join(f"`{p}`" for p in paths) + f" ({r0['cpu']}, {r0['cores']} cores).",
            "",
            f"`bench/lines/count.sh`, {r0['mb']} MB of each input in the page cache: the time of `search -c` (lines "
            "with a hit) over `search --count-matches` (hits) on the same file, best of 7 each, the two alternating; "
            f"pattern {r0['pattern']} on one-line DNA, {records[0][-1]['pattern']} on the KJV's lines. "
            "Exact / `-k 1`.", ""]
    header = ["input", "threads"] + [f"`{rows[0]['build']}`" for rows in records]
    body = []
    for inp, label in (("dna", "one-line DNA"), ("kjv", "KJV lines")):
        for j in dict.fromkeys(r["threads"] for r in records[0] if r["input"] == inp):
            line = [label, j]
            for rows in records:
                cell = {r["k"]: r["ratio"] for r in rows if r["input"] == inp and r["threads"] == j}
                line.append(f"{cell.get('0', '—')} / {cell.get('1', '—')}")
            body.append(line)
    tail = [""]
    for rows in records:  # the most threads against 4, in the cell where they gain least
        most = max(int(r["threads"]) for r in rows)
        t = {(r["input"], r["k"], int(r["threads"])): float(r["count_s"]) for r in rows}
        worst = max(t[i, k, most] / t[i, k, 4] for (i, k, j) in t if j == most and (i, k, 4) in t)
        tail.append(f"`{rows[0]['build']}`: `-c` at {most} threads takes at most {worst:.2f}× its time at 4 threads.")
    return page(head, header, body, tail)


def python(paths, records):
    out = []
    for path, rows in zip(paths, records):
        body = []
        for r in rows:
            what = r["benchmark"].split(" (")[0].split(":")[0]
            if runs(r, "python_s"):
                body.append([what, r["input"], f"Python {col(r, 'python_s')} s, CLI {col(r, 'cli_s')} s", "—"])
            elif runs(r, "trawl_1t_s"):
                body.append([what, r["input"], f"{col(r, 'trawl_s')} s (one thread {col(r, 'trawl_1t_s')} s)",
                             f"sassy-rs {col(r, 'sassy_1t_s')} s, edlib {col(r, 'edlib_1t_s')} s (one thread)"])
            else:
                trawl = f"{col(r, 'trawl_s')} s"
                if runs(r, "trawl_device_auto_s"):
                    trawl += f" (`device=\"auto\"`: the GPU, {col(r, 'trawl_device_auto_s')} s)"
                body.append([what, r["input"], trawl, f"sassy-rs {col(r, 'sassy_s')} s ({r['sassy_mode']})"])
        out.append(page([about(path, rows), ""], ["benchmark", "input", "trawl", "peers"], body))
    return "\n\n".join(out)


KINDS = {
    "exact": exact, "patterns": patterns, "regex": regex, "approx-grid": approx_grid, "approx-many": approx_many,
    "approx-long": approx_long, "approx-best": approx_best, "cuda": cuda, "scaling": scaling, "scale-gpus": scale_gpus,
    "scale-mpi": scale_mpi, "gpu-fasta": gpu_fasta, "stream": stream, "offtarget": offtarget,
    "offtarget-bulges": offtarget_bulges, "genome-gpus": genome_gpus, "sassy": sassy, "seed-crossover": seed_crossover, "index-build": index_build, "index-pangenome": index_pangenome,
    "index-count": index_count, "index-sets": index_sets,
}
MULTI = {"approx-cpus": approx_cpus, "index-approx": index_approx, "python": python, "lines-count": lines_count}


def main():
    args = sys.argv[1:]
    if args in (["--help"], ["-h"]):
        print(__doc__.strip())
        return
    kinds = ("index-peers", "genome", "sites-direct", *KINDS, *MULTI)
    if len(args) < 2 or args[-1] not in kinds or (len(args) > 2 and args[-1] not in MULTI):
        print(__doc__.strip().splitlines()[2].strip(), file=sys.stderr)
        sys.exit(2)
    kind, paths = args[-1], args[:-1]
    if kind in MULTI:
        print(MULTI[kind](paths, [read(p) for p in paths]))
        return
    rows = read(paths[0])
    if kind in KINDS:
        print(KINDS[kind](paths[0], rows))
        return
    if kind == "genome":
        print(genome(rows))
        return
    if kind == "sites-direct":
        print(sites_direct(rows))
        return
    rows = [r for r in rows if r["benchmark"] == kind]
    if not rows:
        print(f"records_table.py: {paths[0]}: no {kind} rows", file=sys.stderr)
        sys.exit(2)
    print(index_peers(rows))


if __name__ == "__main__":
    main()
