"""Golden outputs of the Python API: a fixed set of calls on data made here (fixed seeds, pure
Python), each result rendered as text and compared byte for byte with
tests/golden/expected/python/NAME.txt. It guards refactors that must not change any result.

TRAWL_GOLDEN_UPDATE=1 rewrites the expected files (then review `git diff`). A case NAME@VARIANT
(other threads, a compressed copy, the index, ...) must render exactly NAME's expected text.
With TRAWL_GOLDEN_GPU=1 (and a GPU), the cases that take a device run again with
device="gpu" against the same expected files.

    PYTHONPATH=build/python TRAWL_CLI=build/trawl .venv/bin/python -m pytest -q tests/python/test_golden.py
"""
import contextlib
import gzip
import os
import pathlib
import random

import pytest

import trawl

EXPECTED = pathlib.Path(__file__).resolve().parents[1] / "golden" / "expected" / "python"
UPDATE = os.environ.get("TRAWL_GOLDEN_UPDATE") == "1"
GPU = os.environ.get("TRAWL_GOLDEN_GPU") == "1"

MOTIF = "GACGCATAAAGATGAGACGCTGG"
GUIDE = "GACGCATAAAGATGAGACGC"
ADAPTER = "AGATCGGAAGAGCACACGTCTGAACTCCAGTCA"
COMP = str.maketrans("ACGTacgt", "TGCAtgca")


def revcomp(s):
    return s.translate(COMP)[::-1]


# ---- data: fixed seeds, only Random.random() and getrandbits() (stable across versions) ---------

def rand_dna(rng, n):
    return "".join("ACGT"[rng.getrandbits(2)] for _ in range(n))


def mutate(rng, s, subs):
    s = list(s)
    for _ in range(subs):
        i = int(rng.random() * len(s))
        s[i] = "ACGT"[("ACGT".index(s[i]) + 1 + int(rng.random() * 3)) % 4]
    return "".join(s)


def plant(rng, seq, motif, times, subs):
    seq = list(seq)
    for t in range(times):
        m = mutate(rng, motif, subs) if subs else motif
        if t % 2:
            m = revcomp(m)
        at = int(rng.random() * (len(seq) - len(m)))
        seq[at:at + len(m)] = m
    return "".join(seq)


def fasta(records, width=60):
    out = []
    for name, seq in records:
        out.append(f">{name} made by test_golden\n")
        out.extend(seq[i:i + width] + "\n" for i in range(0, len(seq), width))
    return "".join(out)


class Data:
    pass


@pytest.fixture(scope="module")
def d(tmp_path_factory):
    rng = random.Random(7)
    root = tmp_path_factory.mktemp("golden")
    x = Data()
    # a genome: 3 records, the motif planted exactly and with 2 substitutions, both strands
    recs = []
    for name, n in (("chrA", 12000), ("chrB", 9000), ("chrC", 7000)):
        s = rand_dna(rng, n)
        s = plant(rng, s, MOTIF, 4, 0)
        s = plant(rng, s, MOTIF, 4, 2)
        recs.append((name, s))
    x.records = recs
    x.genome_text = fasta(recs).encode()
    x.fa = root / "genome.fa"
    x.fa.write_bytes(x.genome_text)
    x.fa_gz = root / "genome.fa.gz"
    x.fa_gz.write_bytes(gzip.compress(x.genome_text, mtime=0))
    x.seq = recs[0][1].encode()  # one record's bases, as bytes
    # a pangenome: 4 copies of one 8 kbp sequence with their own substitutions
    base = plant(rng, rand_dna(rng, 8000), MOTIF, 3, 0)
    x.pan = root / "pan.fa"
    x.pan.write_text(fasta([(f"hap{h}", mutate(rng, base, 20)) for h in range(4)]))
    # reads: 60 of 50-80 bases from the genome, some with the adapter, some reverse-complemented
    reads = []
    for r in range(60):
        name, s = recs[r % 3]
        ln = 50 + int(rng.random() * 31)
        at = int(rng.random() * (len(s) - ln))
        read = s[at:at + ln]
        if r % 5 == 0:
            read = read[:30] + ADAPTER
        if r % 7 == 0:
            read = revcomp(read)
        reads.append(read)
    x.reads = reads
    x.fq = root / "reads.fq"
    x.fq.write_text("".join(f"@r{i} x\n{s}\n+\n{'I' * len(s)}\n" for i, s in enumerate(reads)))
    x.words = ("The quick brown fox jumps over the lazy dog.\nthe_fox: foxes and Foxes, FOX!\n"
               "fox\ncolour color colr\nnaïve café fox\n")
    x.guides_fa = root / "guides.fa"
    x.guides_fa.write_text(f">g1\n{GUIDE}\n>g2\n{recs[1][1][500:520]}\n")
    x.cas = root / "cas.txt"
    x.cas.write_text(f"/genome\nNNNNNNNNNNNNNNNNNNNNNGG\n{GUIDE}NNN 4 g1\n{recs[2][1][1000:1020]}NNN 1 g2\n")
    # a Cas12a guide: the 20 nt after chrB's first TTTV
    at = next(i for i in range(len(recs[1][1])) if recs[1][1][i:i + 3] == "TTT" and recs[1][1][i + 3] in "ACG")
    x.cas12a = recs[1][1][at + 4:at + 24]
    x.root = root
    # built from relative names: the index records its source's name, which must not depend on
    # where the temporary folder lies
    with inside(root):
        x.index = trawl.Index.build(pathlib.Path(x.fa.name), max_len=32)
        x.pan_index = trawl.Index.build(pathlib.Path(x.pan.name), max_len=16, small=True)
    return x


# ---- renderings --------------------------------------------------------------------------------

def hits_text(h):
    lines = [repr(h), f"patterns {h.patterns!r}", f"records {h.records!r}", f"len {len(h)}"]
    cols = h.to_dict()
    lines.append("columns " + " ".join(f"{k}:{getattr(v, 'dtype', type(v).__name__)}" for k, v in sorted(cols.items())))
    for t in h:
        lines.append("\t".join(str(v) for v in t))
    return "\n".join(lines) + "\n"


def sites_text(sites):
    lines = [f"{len(sites)} sites"]
    lines += ["\t".join(str(v) for v in s) for s in sites]
    return "\n".join(lines) + "\n"


def best_text(b):
    return (f"distance {b.distance}\nstarts {b.starts.dtype} {b.starts.tolist()}\n"
            f"ends {b.ends.dtype} {b.ends.tolist()}\n")


@contextlib.contextmanager
def inside(folder):
    """Runs a block in `folder`, so that relative file names (which outputs show) are stable."""
    old = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(old)


def in_root(fn):
    """fn(d, dev) run inside the data folder."""
    def run(d, dev):
        with inside(d.root):
            return fn(d, dev)
    return run


# The index's compressed sections (zstd) differ between libzstd versions (1.5.4 and 1.5.5 do):
# their sizes are masked.
ZSTD_PARTS = ("FM-index of S''", "S'' text", "count index")


def info_lines(info):
    out = []
    for k in sorted(info):
        v = info[k]
        if k in ("bytes", "bits_per_char"):
            v = "(zstd)"
        elif k == "parts":
            v = {p: "(zstd)" if p in ZSTD_PARTS else n for p, n in v.items()}
        out.append(f"info {k} {v!r}")
    return out


def raises_text(fn):
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 — the exception's type and message are the output
        return f"{type(e).__name__}: {e}\n"
    return f"no exception: {r!r}\n"


# ---- cases: name -> fn(d, device) -> str; gpu: the cases that take a device ---------------------

CASES = {}
GPU_CASES = set()


def case(name, gpu=False):
    def register(fn):
        assert name not in CASES, name
        CASES[name] = fn
        if gpu:
            GPU_CASES.add(name)
        return fn
    return register


def both(name, fn, gpu=True):
    case(name, gpu)(fn)


# search: in-memory texts
both("search_bytes_exact", lambda d, dev: hits_text(trawl.search(["ACGTAC", b"GATTACA"], d.seq, device=dev)))
both("search_bytes_exact@t1", lambda d, dev: hits_text(trawl.search(["ACGTAC", b"GATTACA"], d.seq, threads=1, device=dev)))
both("search_bytes_exact@bytearray", lambda d, dev: hits_text(trawl.search(["ACGTAC", b"GATTACA"], bytearray(d.seq), device=dev)))
both("search_bytes_k2", lambda d, dev: hits_text(trawl.search(MOTIF, d.seq, k=2, align=True, device=dev)))
both("search_bytes_k2@str", lambda d, dev: hits_text(trawl.search(MOTIF, d.seq.decode(), k=2, align=True, threads=2, device=dev)))
both("search_bytes_k2_both", lambda d, dev: hits_text(trawl.search(MOTIF, d.seq, k=2, both_strands=True, device=dev)))
both("search_bytes_all_ends", lambda d, dev: hits_text(trawl.search(MOTIF, d.seq, k=3, all_ends=True, device=dev)))
both("search_bytes_hamming", lambda d, dev: hits_text(trawl.search(MOTIF, d.seq, k=2, hamming=True, both_strands=True, align=True, device=dev)))
both("search_bytes_iupac", lambda d, dev: hits_text(trawl.search("GACGCATRAAGATGNGACGCNGG", d.seq, iupac=True, both_strands=True, device=dev)))
both("search_bytes_max_hits", lambda d, dev: hits_text(trawl.search(["AC", "GT"], d.seq, max_hits=9, device=dev)))
both("search_str_words", lambda d, dev: hits_text(trawl.search(["fox", "the"], d.words, ignore_case=True, whole_words=True, device=dev)))
both("search_str_lines", lambda d, dev: hits_text(trawl.search("fox", d.words, whole_lines=True, device=dev)))
both("search_str_utf8", lambda d, dev: hits_text(trawl.search(["café", "ï", "colr"], d.words, k=1, device=dev)))
case("search_regex")(lambda d, dev: hits_text(trawl.search([r"fox(es)?", r"colou?r", r"^\w+"], d.words, regex=True, device="cpu")))
case("search_regex_icase")(lambda d, dev: hits_text(trawl.search(r"f.x", d.words, regex=True, ignore_case=True, whole_words=True)))
# search: files
both("search_fasta_k0", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa, both_strands=True, device=dev)))
both("search_fasta_k0@gz", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa_gz, both_strands=True, device=dev)))
both("search_fasta_k0@t1", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa, both_strands=True, threads=1, device=dev)))
both("search_fasta_k2", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa, k=2, both_strands=True, align=True, device=dev)))
both("search_fasta_k2@gz", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa_gz, k=2, both_strands=True, align=True, threads=2, device=dev)))
both("search_fasta_k2_noalign", lambda d, dev: hits_text(trawl.search(MOTIF, d.fa, k=2, both_strands=True, device=dev)))
both("search_fasta_k2_noalign@index", lambda d, dev: hits_text(d.index.search(MOTIF, k=2, both_strands=True, device=dev)))
both("search_fasta_many", lambda d, dev: hits_text(trawl.search([GUIDE, "ACGTTGCAGT", "TTTTTTTT"], d.fa, k=1, device=dev)))
both("search_fasta_plain", in_root(lambda d, dev: hits_text(trawl.search("made by", pathlib.Path("genome.fa"), format="plain", device=dev))))
both("search_fastq", lambda d, dev: hits_text(trawl.search(ADAPTER, d.fq, k=3, device=dev)))
case("search_errors")(in_root(lambda d, dev: "".join([
    raises_text(lambda: trawl.search("ACGT", d.seq, k=-1)),
    raises_text(lambda: trawl.search("ACGT", d.seq, threads=-1)),
    raises_text(lambda: trawl.search("ACGT", d.seq, device="tpu")),
    raises_text(lambda: trawl.search("AC(", d.seq, regex=True)),
    raises_text(lambda: trawl.search("ACGT", d.seq, regex=True, both_strands=True)),
    raises_text(lambda: trawl.search("ACGT", pathlib.Path("missing.fa"))),
    raises_text(lambda: trawl.search("ACGT", 12)),
    raises_text(lambda: trawl.search_many("ACGT", "ACGTACGT")),
])))
# search_many
both("search_many_k1", lambda d, dev: hits_text(trawl.search_many([ADAPTER[:16], GUIDE], d.reads, k=1, both_strands=True, device=dev)))
both("search_many_k1@t1", lambda d, dev: hits_text(trawl.search_many([ADAPTER[:16], GUIDE], [r.encode() for r in d.reads], k=1, both_strands=True, threads=1, device=dev)))
both("search_many_exact", lambda d, dev: hits_text(trawl.search_many(["ACGT", "GGG"], d.reads[:12], device=dev)))
both("search_many_hamming", lambda d, dev: hits_text(trawl.search_many(ADAPTER[:20], d.reads, k=2, hamming=True, device=dev)))
# best
both("best_leftmost", lambda d, dev: best_text(trawl.best(MOTIF, d.seq, leftmost=True, device=dev)))
both("best_leftmost@t1", lambda d, dev: best_text(trawl.best(MOTIF, d.seq.decode(), leftmost=True, threads=1, device=dev)))
both("best_every", lambda d, dev: best_text(trawl.best("ACGTTGCAGTTTAAACCC", d.seq, device=dev)))
both("best_words", lambda d, dev: best_text(trawl.best("the lazy fax", d.words, device=dev)))
case("best_empty")(lambda d, dev: best_text(trawl.best("XYZ", "abcdef")))
# offtarget
both("offtarget_dict", lambda d, dev: sites_text(trawl.offtarget({"g1": GUIDE, "g2": d.records[1][1][500:520]}, d.fa, mismatches=4, device=dev)))
both("offtarget_dict@file", lambda d, dev: sites_text(trawl.offtarget(d.guides_fa, d.fa_gz, mismatches=4, threads=1, device=dev)))
both("offtarget_dict@index", lambda d, dev: sites_text(trawl.offtarget(d.guides_fa, d.index, mismatches=4, device=dev)))
both("offtarget_bulges", lambda d, dev: sites_text(trawl.offtarget(d.guides_fa, d.fa, mismatches=3, dna_bulges=1, rna_bulges=1, device=dev)))
both("offtarget_bulges@index", lambda d, dev: sites_text(trawl.offtarget(d.guides_fa, d.index, mismatches=3, dna_bulges=1, rna_bulges=1, device=dev)))
both("offtarget_list", lambda d, dev: sites_text(trawl.offtarget([GUIDE, ("named", "TTGACCAGTCAAGGTACCAT")], d.genome_text, pams=["NGG", "NAG"], mismatches=3, max_edits=3, device=dev)))
both("offtarget_casoffinder", lambda d, dev: sites_text(trawl.offtarget(d.cas, d.fa, device=dev)))
both("offtarget_cas12a", lambda d, dev: sites_text(trawl.offtarget({"c": d.cas12a}, d.fa, pams="TTTV", pam_side=5, pam_mismatches=1, mismatches=4, device=dev)))
case("offtarget_errors")(lambda d, dev: "".join([
    raises_text(lambda: trawl.offtarget("ACGT", d.fa)),
    raises_text(lambda: trawl.offtarget({"g": "ACGTZ"}, d.fa)),
    raises_text(lambda: trawl.offtarget({"g": GUIDE}, d.fa, pam_side=4)),
]))


# Index
@case("index_basics")
def _index_basics(d, dev):
    ix = d.index
    lines = [repr(ix), f"len {len(ix)} max_len {ix.max_len}", f"records {ix.records}"]
    lines += info_lines(ix.info())
    for p in (MOTIF, "ACGT", "GATTACA", "C" * 30, revcomp(MOTIF)):
        loc = ix.locate_offsets(p)
        lines.append(f"count {p} {ix.count(p)} locate {loc.dtype} {loc.tolist()}")
    lines.append(f"extract {ix.extract(11990, 25)!r} {ix.extract(len(ix) - 5, 50)!r}")
    lines.append(f"extract_record {ix.extract_record('chrB', 100, 160)!r} {len(ix.extract_record('chrC'))}")
    lines.append(raises_text(lambda: ix.extract_record("nosuch")).rstrip("\n"))
    lines.append(raises_text(lambda: ix.extract_record("chrA", 10, 20000)).rstrip("\n"))
    lines.append(raises_text(lambda: ix.verify(d.genome_text)).rstrip("\n"))
    lines.append(raises_text(lambda: ix.verify(b"ACGT")).rstrip("\n"))
    return "\n".join(lines) + "\n"


@case("index_bytes")
def _index_bytes(d, dev):
    ix = trawl.Index.build(d.words.encode() * 3, max_len=8)
    lines = [repr(ix), f"records {ix.records}"]
    lines += info_lines(ix.info())
    for p in ("fox", "the", "colour color", "zzz", "ï"):
        lines.append(f"count {p} {ix.count(p)} locate {ix.locate_offsets(p).tolist()}")
    lines.append(f"extract {ix.extract(40, 30)!r}")
    return "\n".join(lines) + "\n"


@case("index_pan")
def _index_pan(d, dev):
    ix = d.pan_index
    lines = [repr(ix), f"records {ix.records}"]
    lines += info_lines(ix.info())
    for p in (MOTIF[:16], "ACGTAC", "GATTACA"):
        lines.append(f"count {p} {ix.count(p, threads=1)} locate {ix.locate_offsets(p, threads=2).tolist()}")
    return "\n".join(lines) + "\n"


@case("index_pan@saved")
def _index_pan_saved(d, dev):
    path = d.root / "pan.thi"
    d.pan_index.save(path)
    ix = trawl.Index.load(path)
    ix.verify()
    lines = [repr(ix), f"records {ix.records}"]
    lines += info_lines(ix.info())
    for p in (MOTIF[:16], "ACGTAC", "GATTACA"):
        lines.append(f"count {p} {ix.count(p)} locate {ix.locate_offsets(p).tolist()}")
    return "\n".join(lines) + "\n"


both("index_pan_search", lambda d, dev: hits_text(d.pan_index.search([MOTIF, "GATTACAGATT"], k=2, both_strands=True, device=dev)))
both("index_pan_search@fasta", lambda d, dev: hits_text(trawl.search([MOTIF, "GATTACAGATT"], d.pan, k=2, both_strands=True, device=dev)))
both("index_pan_search@t1", lambda d, dev: hits_text(d.pan_index.search([MOTIF, "GATTACAGATT"], k=2, both_strands=True, threads=1, device=dev)))
both("index_search_long", lambda d, dev: hits_text(d.pan_index.search(MOTIF + "ACGTAC", k=3, all_ends=True, device=dev)))
both("index_search_long@fasta", lambda d, dev: hits_text(trawl.search(MOTIF + "ACGTAC", d.pan, k=3, all_ends=True, device=dev)))
both("index_search_icase", lambda d, dev: hits_text(d.index.search(["gacgcataaag", "ttnnccrrgtacg"], iupac=True, ignore_case=True, hamming=True, k=1, device=dev)))
both("index_search_icase@fasta", lambda d, dev: hits_text(trawl.search(["gacgcataaag", "ttnnccrrgtacg"], d.fa, iupac=True, ignore_case=True, hamming=True, k=1, device=dev)))


# helpers
@case("helpers")
def _helpers(d, dev):
    lines = [
        trawl.reverse_complement("ACGTNRYacgtn-x"),
        trawl.reverse_complement(b"GATTACA"),
        trawl.align("ACGTTGCA", "ACGTGCAA"),
        trawl.align("acgt", "ACGT", ignore_case=True),
        trawl.align("ACNT", "ACGT", iupac=True),
        trawl.align("ACGTTGCA", "ACGATGCT", hamming=True),
        trawl.align("", "ACG"),
        trawl.align("ACG", ""),
        " ".join(trawl.__all__),
    ]
    return "\n".join(lines) + "\n"


# ---- the test --------------------------------------------------------------------------------

def check(label, got):
    name = label.split("@")[0]
    want = EXPECTED / f"{name}.txt"
    if UPDATE and label == name:
        want.parent.mkdir(parents=True, exist_ok=True)
        want.write_text(got)
        return
    assert want.exists(), f"no {want}: run with TRAWL_GOLDEN_UPDATE=1"
    assert got == want.read_text(), f"{label}: differs from {want.name}"


@pytest.mark.parametrize("label", list(CASES))
def test_golden(d, label):
    check(label, CASES[label](d, "cpu"))


@pytest.mark.parametrize("label", sorted(GPU_CASES))
def test_golden_gpu(d, label):
    if not GPU:
        pytest.skip("TRAWL_GOLDEN_GPU=1 runs the device cases on the GPU")
    if trawl.gpu_count() == 0:
        pytest.skip("no GPU")
    check(label, CASES[label](d, "gpu"))


def test_golden_no_stale_files():
    names = {label.split("@")[0] for label in CASES}
    stale = sorted(p.name for p in EXPECTED.glob("*.txt") if p.stem not in names)
    if UPDATE:
        for n in stale:
            (EXPECTED / n).unlink()
        return
    assert not stale, f"expected files of no case: {stale}"
