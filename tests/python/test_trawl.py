"""The Python package against the pure-Python oracle (tests/oracle/oracle.py) and the CLI.

Run by scripts/test-python.sh against an installed copy of the package; TRAWL_CLI names the
command-line tool of the same build.
"""
import gzip
import os
import pathlib
import random
import resource
import subprocess
import sys
import threading

import numpy as np
import pytest

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "oracle"))
import oracle  # noqa: E402

import trawl  # noqa: E402

CLI = os.environ.get("TRAWL_CLI")


def rand_dna(rng, n, alphabet=b"ACGT"):
    return bytes(rng.choice(alphabet) for _ in range(n))


def as_tuples(hits):
    return [(h.pattern, h.start, h.end, h.errors, h.strand) for h in hits]


# ---- exact ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(20))
def test_exact_against_oracle(seed):
    rng = random.Random(seed)
    text = rand_dna(rng, rng.randint(0, 300), b"ACGT" if seed % 2 else b"ACgt")
    patterns = [rand_dna(rng, rng.randint(1, 6)) for _ in range(rng.randint(1, 5))]
    both, icase = bool(seed & 2), bool(seed & 4)
    want = oracle.exact(patterns, text, both_strands=both, ignore_case=icase)
    got = trawl.search(patterns, text, both_strands=both, ignore_case=icase, threads=1 + seed % 3)
    assert as_tuples(got) == want


def test_every_text_type_gives_the_same_hits():
    rng = random.Random(7)
    raw = rand_dna(rng, 5000)
    want = as_tuples(trawl.search(["ACG", "TTA"], raw))
    assert len(want) > 0
    arr = np.frombuffer(raw, dtype=np.uint8)
    for text in (raw.decode(), bytearray(raw), memoryview(raw), arr, arr.copy()):
        assert as_tuples(trawl.search(["ACG", "TTA"], text)) == want
    assert as_tuples(trawl.search([b"ACG", "TTA"], raw)) == want


def test_single_pattern_and_str_coordinates_are_utf8_bytes():
    hits = trawl.search("aa", "aaaa")
    assert [(h.start, h.end) for h in hits] == [(0, 2), (1, 3), (2, 4)]
    assert list(hits[1:]) == [hits[1], hits[-1]] and hits[-1].start == 2
    with pytest.raises(IndexError):
        hits[3]
    hits = trawl.search("b", "\u00e9b")  # é is two bytes in UTF-8
    assert [(h.start, h.end) for h in hits] == [(2, 3)]


def test_whole_words_and_lines():
    text = b"cat concat cat\ncat\n"
    assert [h.start for h in trawl.search("cat", text, whole_words=True)] == [0, 11, 15]
    assert [h.start for h in trawl.search("cat", text, whole_lines=True)] == [15]


def test_max_hits():
    assert len(trawl.search("a", "a" * 100, max_hits=7)) == 7


def _random_regex(rng):
    atoms = [b"a", b"b", b"c", b" ", b".", b"[ab]", b"[^a ]", b"(?:ab)", b"(a|b)\\1", b"(?:b|ca)"]
    quants = [b"", b"", b"+", b"{1,2}", b"+?"]
    out = b""
    for _ in range(rng.randint(1, 3)):
        a = rng.choice(atoms)
        out += a + (rng.choice(quants) if not a.startswith(b"(") else b"")
    return out + (b"|" + _random_regex(rng) if rng.random() < 0.2 else b"")


@pytest.mark.parametrize("seed", range(16))
def test_regex_against_oracle(seed):
    rng = random.Random(seed)
    text = bytes(rng.choice(b"abcab -AB\n") for _ in range(rng.randint(0, 400)))
    patterns = [_random_regex(rng) for _ in range(rng.randint(1, 3))]
    icase = bool(seed & 1)
    want = oracle.regex(patterns, text, ignore_case=icase)
    got = trawl.search(patterns, text, regex=True, ignore_case=icase, threads=1 + seed % 3)
    assert as_tuples(got) == want, patterns
    many = trawl.search_many(patterns, text.split(b"\n"), regex=True, ignore_case=icase)
    assert len(many) == len(want)


def test_regex_refusals():
    with pytest.raises(ValueError):
        trawl.search("(a", "abc", regex=True)
    with pytest.raises(ValueError):
        trawl.search("a", "abc", regex=True, k=1)
    with pytest.raises(ValueError):
        trawl.search("a", "abc", regex=True, both_strands=True)


# ---- approximate ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(24))
def test_approximate_against_oracle(seed):
    rng = random.Random(100 + seed)
    text = rand_dna(rng, rng.randint(0, 200))
    patterns = [rand_dna(rng, rng.randint(3, 12)) for _ in range(rng.randint(1, 3))]
    k = 1 + seed % 3
    both, all_ends, hamming = bool(seed & 4), bool(seed & 8), bool(seed & 16)
    want = oracle.approx(patterns, text, k, both_strands=both, all_ends=all_ends, hamming=hamming)
    got = trawl.search(patterns, text, k=k, both_strands=both, all_ends=all_ends, hamming=hamming,
                       threads=1 + seed % 2)
    assert as_tuples(got) == want


def test_align_gives_a_cigar_of_the_hit_distance():
    rng = random.Random(3)
    text = rand_dna(rng, 3000)
    hits = trawl.search(["ACGTACGTAC", "GGATCCAT"], text, k=2, both_strands=True, align=True)
    assert len(hits) > 0 and len(hits.cigar) == len(hits)
    for h in hits:
        p = [b"ACGTACGTAC", b"GGATCCAT"][h.pattern]
        p = p if h.strand == "+" else oracle.revcomp(p)
        assert h.cigar == trawl.align(p, text[h.start:h.end])
        assert oracle.edit_distance(p, text[h.start:h.end]) == h.errors


def test_iupac():
    hits = trawl.search("ACN", b"ACGTACTT", iupac=True)
    assert [(h.start, h.end) for h in hits] == [(0, 3), (4, 7)]


# ---- files and records, against the CLI --------------------------------------------------

def make_fasta(path, rng, records=5, length=4000, motif=b"GACGCATAAAGATGAG"):
    out = []
    for r in range(records):
        seq = bytearray(rand_dna(rng, length))
        for _ in range(6):
            at = rng.randrange(0, length - len(motif))
            m = bytearray(motif if rng.random() < 0.5 else oracle.revcomp(motif))
            m[rng.randrange(len(m))] = ord(rng.choice("ACGT"))
            seq[at:at + len(m)] = m
        out.append(b">chr%d some description\n" % r)
        out += [bytes(seq[i:i + 60]) + b"\n" for i in range(0, length, 60)]
    data = b"".join(out)
    path.write_bytes(data)
    return data


def cli_tsv(*args):
    r = subprocess.run([CLI, *args], capture_output=True, check=False)
    assert r.returncode in (0, 1), r.stderr
    return [line.split("\t") for line in r.stdout.decode().splitlines()]


@pytest.mark.skipif(CLI is None, reason="TRAWL_CLI not set")
@pytest.mark.parametrize("args", [dict(k=0), dict(k=2, both_strands=True), dict(k=1, all_ends=True),
                                  dict(k=2, hamming=True, both_strands=True)])
def test_file_search_equals_the_cli(tmp_path, args):
    rng = random.Random(11)
    fa = tmp_path / "g.fa"
    data = make_fasta(fa, rng)
    gz = tmp_path / "g.fa.gz"
    gz.write_bytes(gzip.compress(data))
    motif = "GACGCATAAAGATGAG"
    flags = ["-k", str(args.get("k", 0)), "--align"]
    flags += ["--both-strands"] if args.get("both_strands") else []
    flags += ["--all-ends"] if args.get("all_ends") else []
    flags += ["--hamming"] if args.get("hamming") else []
    want = cli_tsv("search", "--format", "tsv", *flags, motif, str(fa))
    assert len(want) > 0
    for text in (fa, gz, data):  # a path, a gzip path, and the same FASTA in memory
        got = trawl.search(motif, text, align=True, **args)
        assert [[h.record, str(h.start), str(h.end), str(h.errors), h.strand, motif, h.cigar] for h in got] == want
    assert got.records == [f"chr{r}" for r in range(5)]


def test_format_plain_reads_fasta_as_bytes(tmp_path):
    hits = trawl.search(">chr", b">chr1\nACGT\n", format="plain")
    assert [(h.record, h.start) for h in hits] == [("<text>", 0)]
    hits = trawl.search("CG", b">chr1\nAC\nGT\n")
    assert [(h.record, h.start) for h in hits] == [("chr1", 1)]


# ---- offtarget -------------------------------------------------------------------------------

def _site_rows(sites):
    return [[s.guide, s.guide_index, s.record, s.start, s.end, s.strand, s.mismatches, s.dna_bulges, s.rna_bulges,
             s.aligned_guide, s.aligned_target, s.cigar, s.pam_bases] for s in sites]


@pytest.mark.skipif(CLI is None, reason="TRAWL_CLI not set")
@pytest.mark.parametrize("mode", [dict(), dict(mismatches=4), dict(dna_bulges=1, rna_bulges=1),
                                  dict(pams=["TTTV"], pam_side=5, mismatches=2), dict(pams=["NGG", "NAG"], max_edits=2)])
def test_offtarget_equals_the_cli(tmp_path, mode):
    rng = random.Random(13)
    guides = {"g1": "GACGCATAAAGATGAGACGC", "g2": "TTGACCATGGATCCAAGTCA"}
    records = []
    for r in range(3):
        seq = bytearray(rand_dna(rng, 6000))
        for name, g in guides.items():
            for _ in range(8):  # guide + PAM, mutated, on either strand
                site = bytearray((g + "AGG").encode()) if mode.get("pam_side") != 5 else bytearray(("TTTA" + g).encode())
                for _ in range(rng.randint(0, 3)):
                    site[rng.randrange(len(site))] = ord(rng.choice("ACGT"))
                site = bytes(site) if rng.random() < 0.5 else oracle.revcomp(bytes(site))
                at = rng.randrange(len(seq) - len(site))
                seq[at:at + len(site)] = site
        records.append(b">chr%d\n" % r + bytes(seq) + b"\n")
    fa = tmp_path / "g.fa"
    fa.write_bytes(b"".join(records))
    gfile = tmp_path / "guides.fa"
    gfile.write_text("".join(f">{n}\n{g}\n" for n, g in guides.items()))
    args = []
    for p in mode.get("pams", ["NGG"]):
        args += ["--pam", p]
    for k in ("mismatches", "dna_bulges", "rna_bulges", "max_edits", "pam_side"):
        if k in mode:
            args += ["--" + k.replace("_", "-"), str(mode[k])]
    want = [[r[0]] + r[2:] for r in cli_tsv("offtarget", *args, str(gfile), str(fa))[1:]]  # less guide_seq
    assert len(want) > 10
    got = trawl.offtarget(gfile, fa, threads=2, **mode)
    rows = [[str(x) for i, x in enumerate(r) if i != 1] for r in _site_rows(got)]
    assert rows == want
    # guides given as a dict, the genome in memory: the same sites
    again = trawl.offtarget(guides, fa.read_bytes(), **mode)
    assert _site_rows(again) == _site_rows(got)
    if mode == {}:
        ix = trawl.Index.build(fa, max_len=32)
        assert _site_rows(trawl.offtarget(guides, ix)) == _site_rows(got)


def test_offtarget_refusals(tmp_path):
    with pytest.raises(ValueError):
        trawl.offtarget({"g": "ACGTXX"}, b"ACGT")
    with pytest.raises(ValueError):
        trawl.offtarget({"g": "ACGT"}, b"ACGT", pam_side=4)
    with pytest.raises(ValueError):
        trawl.offtarget({"g": "ACGT"}, b"ACGT", pams="XYZ")
    with pytest.raises(TypeError):
        trawl.offtarget("ACGT", b"ACGT")


# ---- search_many -----------------------------------------------------------------------------

@pytest.mark.parametrize("mode", [dict(k=1, both_strands=True), dict(k=2, all_ends=True), dict(k=0),
                                  dict(k=2, hamming=True), dict(k=3, both_strands=True), dict(k=9),
                                  dict(k=0, whole_words=True)])
def test_search_many_equals_search_per_text(mode):
    rng = random.Random(5)
    reads = [rand_dna(rng, rng.randint(0, 120)) for _ in range(1500)]
    barcodes = [rand_dna(rng, 8) for _ in range(4)] + [b"ACGTAC"]
    # a barcode cut at a read's start or end, with an error, in every 10th read
    for i in range(0, len(reads), 10):
        b = bytearray(barcodes[i % 4])
        b[rng.randrange(len(b))] = ord(rng.choice("ACGT"))
        reads[i] = bytes(b[2:]) + reads[i] + bytes(b[:-1])
    got = trawl.search_many(barcodes, reads, threads=2, **mode)
    want = []
    for i, r in enumerate(reads):
        want += [(i, *t) for t in as_tuples(trawl.search(barcodes, r, threads=1, **mode))]
    assert [(h.record, *t) for h, t in zip(got, as_tuples(got))] == want
    assert got.records is None and got.text.dtype == np.uint32
    if mode.get("k") in (1, 2) and not mode.get("hamming"):
        oracle_hits = []
        for i, r in enumerate(reads[:200]):
            oracle_hits += [(i, *t) for t in oracle.approx(barcodes, r, mode["k"], both_strands=mode.get("both_strands", False),
                                                           all_ends=mode.get("all_ends", False))]
        assert [(h.record, *t) for h, t in zip(got, as_tuples(got)) if h.record < 200] == oracle_hits


def test_search_many_takes_mixed_texts():
    got = trawl.search_many("ACG", ["xACG", b"ACGACG", np.frombuffer(b"ACG", np.uint8), ""])
    assert list(got.text) == [0, 1, 1, 2]
    with pytest.raises(TypeError):
        trawl.search_many("ACG", "ACGT")


# ---- best ----------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(12))
def test_best_against_oracle(seed):
    rng = random.Random(200 + seed)
    x = rand_dna(rng, rng.randint(1, 10))
    y = rand_dna(rng, rng.randint(1, 120))
    d, occ = oracle.best(x, y)
    if d == len(x):
        pytest.skip("every short substring is optimal")
    got = trawl.best(x, y, leftmost=True)
    assert got.distance == d
    assert list(zip(got.starts.tolist(), got.ends.tolist())) == occ
    every = trawl.best(x, y)  # every start, as `trawl best` lists them
    assert list(zip(every.starts.tolist(), every.ends.tolist())) == oracle.best_every(x, y)[1]


def test_best_every_start_is_the_former_spelling():
    with pytest.warns(DeprecationWarning):
        old = trawl.best("ACGT", "TTACGATT", every_start=False)
    new = trawl.best("ACGT", "TTACGATT", leftmost=True)
    assert (old.distance, old.starts.tolist(), old.ends.tolist()) == (new.distance, new.starts.tolist(), new.ends.tolist())


# ---- the index -----------------------------------------------------------------------------

def test_index_against_oracle(tmp_path):
    rng = random.Random(9)
    base = rand_dna(rng, 2000)
    text = b"".join(bytes(c if rng.random() > 0.01 else ord("A") for c in base) for _ in range(8))
    stages = []
    ix = trawl.Index.build(text, max_len=16, progress=lambda s, d, t: stages.append(s))
    assert stages and len(ix) == len(text)
    for _ in range(30):
        at = rng.randrange(len(text) - 12)
        p = text[at:at + rng.randint(1, 40)]
        want = oracle.locate(p, text)
        assert ix.locate_offsets(p).tolist() == want
        assert ix.locate(p).start.tolist() == want  # one record: its coordinates are the text's
        assert ix.count(p) == len(want)
    assert ix.extract(100, 50) == text[100:150]
    path = tmp_path / "t.idx"
    ix.save(path)
    again = trawl.Index.load(path)
    assert again.locate_offsets(text[5:20]).tolist() == ix.locate_offsets(text[5:20]).tolist()
    again.verify(text)
    with pytest.raises(ValueError):
        again.verify(text[:-1] + b"x")
    assert ix.info()["n"] == len(text)


def test_index_count_index_option():
    # count_index: the run-length BWT kept (auto for the default profile, or on) or not; the
    # counts agree with the oracle either way, and a bad name is a ValueError
    rng = random.Random(10)
    base = rand_dna(rng, 1500)
    text = b"".join(bytes(c if rng.random() > 0.01 else ord("C") for c in base) for _ in range(6))
    built = {name: trawl.Index.build(text, max_len=12, count_index=name) for name in ("auto", "on", "off")}
    small = trawl.Index.build(text, small=True)
    assert built["auto"].info()["bwt_runs"] == built["on"].info()["bwt_runs"] > 0
    assert built["off"].info()["bwt_runs"] == 0 and small.info()["bwt_runs"] == 0
    for _ in range(20):
        at = rng.randrange(len(text) - 20)
        p = text[at:at + rng.randint(1, 20)]
        want = len(oracle.locate(p, text))
        for ix in list(built.values()) + [small]:
            assert ix.count(p) == want
    with pytest.raises(ValueError):
        trawl.Index.build(text, count_index="sometimes")


def test_index_search_equals_search(tmp_path):
    rng = random.Random(4)
    fa = tmp_path / "g.fa"
    data = make_fasta(fa, rng, records=3, length=3000)
    ix = trawl.Index.build(fa)
    pats = ["GACGCATA", "ACGT", "TTT"]
    assert [n for n, _, _ in ix.records] == ["chr0", "chr1", "chr2"]
    assert as_tuples(ix.search(pats)) == as_tuples(trawl.search(pats, data))
    assert [h.record for h in ix.search(pats)] == [h.record for h in trawl.search(pats, data)]
    # locate: one pattern's hits per record, as trawl index locate prints them
    assert as_tuples(ix.locate("ACGT")) == as_tuples(trawl.search("ACGT", data)) != []
    assert [h.record for h in ix.locate("ACGT")] == [h.record for h in trawl.search("ACGT", data)]
    kept = trawl.Index.build(fa, kernel_text=True)  # S'' kept as text: the same answers
    for args in (dict(k=1), dict(k=2, both_strands=True), dict(k=1, all_ends=True), dict(k=2, hamming=True)):
        assert as_tuples(ix.search(pats, **args)) == as_tuples(trawl.search(pats, data, **args))
        assert as_tuples(kept.search(pats, **args)) == as_tuples(trawl.search(pats, data, **args))
    assert as_tuples(kept.search(pats, k=2, device="cpu")) == as_tuples(trawl.search(pats, data, k=2))
    if trawl.gpu_count() == 0:
        with pytest.raises(RuntimeError):
            kept.search(pats, k=2, device="gpu")
    else:  # the kernel scanned on the device
        assert as_tuples(kept.search(pats, k=2, both_strands=True, device="gpu")) == \
            as_tuples(trawl.search(pats, data, k=2, both_strands=True))
    with pytest.raises(ValueError):
        kept.search(pats, k=1, device="tpu")
    for h in ix.search(pats)[:20]:
        assert ix.extract_record(h.record, h.start, h.end) == pats[h.pattern].encode()
    chr2 = b"".join(data.split(b">chr2 some description\n")[1].split(b"\n"))
    assert ix.extract_record("chr2") == chr2 and ix.extract_record("chr2", 10, 20) == chr2[10:20]
    with pytest.raises(ValueError):
        ix.extract_record("chr9")
    with pytest.raises(ValueError):
        ix.extract_record("chr2", 0, len(chr2) + 1)


def test_genome_kept_searches_as_the_file(tmp_path):
    rng = random.Random(6)
    fa = tmp_path / "g.fa"
    data = make_fasta(fa, rng, records=4, length=5000)
    g = trawl.Genome(fa, device="cpu")
    assert [n for n, _ in g.records] == ["chr0", "chr1", "chr2", "chr3"] and g.bases == 20000
    assert g.resident_gpus == [] and g.resident_bytes == 0 and "4 record(s)" in repr(g)
    chr2 = b"".join(data.split(b">chr2 some description\n")[1].split(b">")[0].split(b"\n"))
    assert g.sequence("chr2") == chr2 == g.sequence(2)
    assert g.sequence("chr2", 10, 23) == chr2[10:23] and g.sequence(2, 4990) == chr2[4990:]
    with pytest.raises(ValueError):
        g.sequence("chr9")
    with pytest.raises(ValueError):
        g.sequence(2, 0, len(chr2) + 1)
    with pytest.raises(ValueError):
        g.sequence(2, 20, 10)
    # DNA without a GPU: kept two bits a base, or as bytes when asked
    as_bytes = trawl.Genome(fa, device="cpu", pack=False)
    assert g.packed and g.host_bytes < g.bases // 3
    assert not as_bytes.packed and as_bytes.host_bytes > g.bases and as_bytes.sequence(2, 10, 23) == chr2[10:23]
    pats = ["GACGCATA", "ACGT", "TTT", "GACGCATAAAGATGAG" * 20]
    for args in (dict(), dict(k=1), dict(k=2, both_strands=True), dict(k=1, all_ends=True), dict(k=2, hamming=True)):
        got = g.search(pats, **args)
        assert as_tuples(got) == as_tuples(trawl.search(pats, fa, **args)) == as_tuples(as_bytes.search(pats, **args))
        assert [h.record for h in got] == [h.record for h in trawl.search(pats, fa, **args)]
    guides = {"g1": "GACGCATAAAGATGAGACGC"}
    for opts in (dict(mismatches=4), dict(mismatches=2, dna_bulges=1, rna_bulges=1)):
        assert g.offtarget(guides, **opts) == trawl.offtarget(guides, fa, **opts)
        assert trawl.offtarget(guides, g, **opts) == trawl.offtarget(guides, fa, **opts)
        assert as_bytes.offtarget(guides, **opts) == trawl.offtarget(guides, fa, **opts)
    from_bytes = trawl.Genome(data, device="cpu", name="mem.fa")
    assert from_bytes.records == g.records and from_bytes.name == "mem.fa"
    if trawl.gpu_count() > 0:
        on_gpu = trawl.Genome(fa, device="gpu")
        assert on_gpu.resident_gpus == [0] and on_gpu.resident_bytes > g.bases  # under 64 KiB: kept as bytes
        assert not on_gpu.packed and on_gpu.sequence(2) == chr2
        big = trawl.Genome(b">big\n" + bytes(rng.choice(b"ACGT") for _ in range(100000)) + b"\n", device="gpu")
        assert 0 < big.resident_bytes < big.bases // 2  # two bits a base
        assert as_tuples(on_gpu.search(pats, k=2, device="gpu")) == as_tuples(g.search(pats, k=2))
    with pytest.raises(OSError):
        trawl.Genome(tmp_path / "missing.fa")


def test_damaged_index_file_raises_value_error(tmp_path):
    # a damaged byte anywhere: refused by the load (header, table, records) or by the first
    # query that reads its part (verify reads them all; the count index ends the file)
    path = tmp_path / "t.idx"
    trawl.Index.build(b"abracadabra" * 50).save(path)
    good = path.read_bytes()
    for at in (20, 200, len(good) // 2, len(good) - 30):
        raw = bytearray(good)
        raw[at] ^= 0x40
        path.write_bytes(bytes(raw))
        with pytest.raises(ValueError):
            trawl.Index.load(path).verify()
    with pytest.raises(OSError):
        trawl.Index.load(tmp_path / "missing.idx")


# ---- errors --------------------------------------------------------------------------------

def test_bad_arguments_raise_the_documented_exceptions(tmp_path):
    with pytest.raises(ValueError):
        trawl.search("", "ACGT")
    with pytest.raises(ValueError):
        trawl.search("A", "ACGT", k=-1)
    with pytest.raises(ValueError):
        trawl.search("A", "ACGT", device="tpu")
    with pytest.raises(ValueError):
        trawl.search("A", "ACGT", threads=-1)
    with pytest.raises(ValueError):
        trawl.search([], "ACGT")
    with pytest.raises(TypeError):
        trawl.search("A", 12)
    with pytest.raises(TypeError):
        trawl.search([1], "ACGT")
    with pytest.raises(OSError):
        trawl.search("A", tmp_path / "missing.fa")
    bad = tmp_path / "bad.fq"
    bad.write_bytes(b"@r1\nACGT\n+\nII\n")
    with pytest.raises(ValueError):
        trawl.search("A", bad)
    corrupt = tmp_path / "bad.gz"
    corrupt.write_bytes(gzip.compress(b"ACGT" * 1000)[:-12] + b"\0" * 12)
    with pytest.raises(ValueError):
        trawl.search("A", corrupt)
    if trawl.gpu_count() == 0:
        with pytest.raises(RuntimeError):
            trawl.search("A", "ACGT", device="gpu")


# ---- zero copy and the GIL -----------------------------------------------------------------

COPY_PROBE = """
import resource, sys
import numpy as np
import trawl
raw = b"ACGT" * (48 << 20)  # 192 MiB
text = {"bytes": lambda: raw, "str": lambda: raw.decode(), "numpy": lambda: np.frombuffer(raw, np.uint8),
        "memoryview": lambda: memoryview(raw), "copied": lambda: raw}[sys.argv[1]]()
trawl.search("ACGA", "ACGT" * 1000, threads=2)  # start-up
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
assert len(trawl.search("ACGA", bytearray(text) if sys.argv[1] == "copied" else text, threads=2)) == 0
print((resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) // 1024)
"""


def peak_growth_mib(kind):
    r = subprocess.run([sys.executable, "-c", COPY_PROBE, kind], capture_output=True, check=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path)))
    return int(r.stdout)


@pytest.mark.parametrize("kind", ["bytes", "str", "numpy", "memoryview"])
def test_texts_are_not_copied(kind):
    # in a fresh process, a copy of the 192 MiB text during the search would raise its peak memory
    assert peak_growth_mib(kind) < 64, "the text was copied"


def test_the_copy_probe_sees_a_copy():
    assert peak_growth_mib("copied") >= 150


def test_searches_release_the_gil():
    rng = random.Random(1)
    text = rand_dna(rng, 1 << 16) * 32  # 2 MiB, searched by the quadratic reference engine
    done = threading.Event()
    result = {}

    def work():
        result["hits"] = len(trawl.search(["ACGTACGTACGTACGTACGT", "GATTACAGATTACAGATTAC"], text, k=3, threads=1,
                                          algorithm="dp"))
        done.set()

    ticks = 0
    t = threading.Thread(target=work)
    t.start()
    while not done.is_set():
        ticks += 1
        done.wait(0.001)
    t.join()
    assert "hits" in result
    assert ticks >= 10, "the main thread did not run while the search ran"


def test_reverse_complement():
    assert trawl.reverse_complement("ACGTN") == "NACGT"
    assert trawl.reverse_complement(b"aacR") == "Ygtt"


# ---- the GPU (skipped without one) -------------------------------------------------------------

@pytest.mark.skipif(trawl.gpu_count() == 0, reason="no CUDA device")
@pytest.mark.parametrize("device", ["gpu", "gpu:0,0"])
def test_gpu_equals_cpu(device):
    rng = random.Random(21)
    text = bytearray(rand_dna(rng, 1 << 20))
    guides = [rand_dna(rng, 23) for _ in range(16)]
    for g in guides:  # each guide 8 times, with up to 3 substitutions, on either strand
        for _ in range(8):
            site = bytearray(g if rng.random() < 0.5 else oracle.revcomp(g))
            for _ in range(rng.randint(0, 3)):
                site[rng.randrange(len(site))] = ord(rng.choice("ACGT"))
            at = rng.randrange(len(text) - len(site))
            text[at:at + len(site)] = site
    text = bytes(text)
    cpu = trawl.search(guides, text, k=3, both_strands=True, device="cpu")
    gpu = trawl.search(guides, text, k=3, both_strands=True, device=device)
    assert len(cpu) > 0 and as_tuples(gpu) == as_tuples(cpu)


@pytest.mark.skipif(trawl.gpu_count() == 0, reason="no CUDA device")
def test_search_many_on_the_gpu_equals_the_cpu():
    rng = random.Random(22)
    reads = [rand_dna(rng, rng.randint(100, 300)) for _ in range(20000)]
    barcodes = [rand_dna(rng, 24) for _ in range(8)]
    for i in range(0, len(reads), 7):  # a barcode, with an error, in every 7th read
        b = bytearray(barcodes[i % 8])
        b[rng.randrange(len(b))] = ord(rng.choice("ACGT"))
        reads[i] = reads[i][:40] + bytes(b) + reads[i][40:]
    cpu = trawl.search_many(barcodes, reads, k=3, both_strands=True, device="cpu")
    gpu = trawl.search_many(barcodes, reads, k=3, both_strands=True, device="gpu")
    assert len(cpu) > 1000
    assert [(h.record, *t) for h, t in zip(gpu, as_tuples(gpu))] == [(h.record, *t) for h, t in zip(cpu, as_tuples(cpu))]


def test_the_engine_room_has_type_stubs():
    stub = pathlib.Path(trawl._trawl.__file__).with_name("_trawl.pyi")
    text = stub.read_text()
    for name in ("def search(", "def offtarget(", "class Index"):
        assert name in text


def test_options_mean_what_the_cli_means():
    # threads=0 is every core (the CLI's -j 0); k = 0 with an approximate engine named is exact
    # search (the CLI's -k 0 --algorithm dp): every occurrence; regex takes only "auto"
    text = "ACGTACGTTACGA" * 50
    want = trawl.search("ACG", text)
    assert len(want) == 150
    for threads in (0, None, 1, 3):
        assert list(trawl.search("ACG", text, threads=threads).start) == list(want.start)
    for algorithm in ("dp", "myers", "myers-word"):
        assert list(trawl.search("ACG", text, algorithm=algorithm).start) == list(want.start)
    with pytest.raises(ValueError):
        trawl.search("ACG", text, algorithm="nope")
    with pytest.raises(ValueError):
        trawl.search("AC.", text, regex=True, algorithm="kmp")


def test_text_that_starts_with_a_quote_is_text(tmp_path):
    # FASTA needs a header line and then a line of sequence letters (or a FASTA file name)
    mail = b"> quoted reply from bob\nhello there\n"
    assert list(trawl.search("bob", mail).start) == [20]
    (tmp_path / "mail.txt").write_bytes(mail)
    assert list(trawl.search("bob", tmp_path / "mail.txt").start) == [20]
    (tmp_path / "seq.fa").write_bytes(b">r1\nACGTbob\n")
    h = trawl.search("bob", tmp_path / "seq.fa")
    assert list(h.start) == [4] and [h.records[r] for r in h.record] == ["r1"]
    (tmp_path / "nohead.fa").write_bytes(b"ACGT\n")
    with pytest.raises(ValueError, match="nohead.fa"):
        trawl.search("ACG", tmp_path / "nohead.fa")


def test_hits_as_users_handle_them(tmp_path):
    text = b"ACGTACGTTACGA" * 20
    hits = trawl.search(["ACG", "TTAC"], text, k=1)
    # signed coordinates: arithmetic near a record's start stays below zero, not 2**64 - x
    assert hits.start.dtype == np.int64 and hits.end.dtype == np.int64
    assert int((hits.start - 100000).min()) < 0
    # a boolean mask, a slice and an index array select Hits; an int gives one Hit
    exact = hits[hits.errors == 0]
    assert isinstance(exact, trawl.Hits) and len(exact) == int((hits.errors == 0).sum()) > 0
    assert all(h.errors == 0 for h in exact) and exact.records == hits.records
    assert list(hits[2:5]) == [hits[2], hits[3], hits[4]]
    assert list(hits[np.array([4, 0])]) == [hits[4], hits[0]]
    assert len(hits[hits.errors > 99]) == 0
    with pytest.raises(IndexError):
        hits[np.array([True, False])]
    with_cigar = trawl.search("ACGTT", text, k=1, align=True)
    picked = with_cigar[with_cigar.errors == 1]
    assert picked.cigar == [c for c, e in zip(with_cigar.cigar, with_cigar.errors) if e == 1]
    try:
        import pandas  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError, match="pandas"):
            hits.to_pandas()
    else:
        df = hits.to_pandas()
        assert len(df) == len(hits) and list(df["start"]) == list(hits.start)
        assert set(df["record"]) == {"<text>"} and set(df["pattern_text"]) <= {"ACG", "TTAC"}


def test_a_str_that_names_a_file_is_refused_and_paths_work_everywhere(tmp_path, monkeypatch):
    (tmp_path / "genome.fa").write_bytes(b">chr1\nGACGCATAAAGATGAGACGCTGGAAAA\n")
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="pathlib.Path"):
        trawl.search("GACG", "genome.fa")
    with pytest.raises(ValueError, match="pathlib.Path"):
        trawl.offtarget(["GACGCATAAAGATGAGACGC"], "genome.fa")
    with pytest.raises(ValueError, match="pathlib.Path"):
        trawl.best("GACG", "genome.fa")
    assert len(trawl.offtarget(["GACGCATAAAGATGAGACGC"], pathlib.Path("genome.fa"))) == 1
    # best and Index.verify take a path as the other functions do
    b = trawl.best("GACGCAT", pathlib.Path("genome.fa"))
    assert b.distance == 0 and list(b.starts) == [6] and b.starts.dtype == np.int64
    (tmp_path / "plain.txt").write_bytes(b"hello world hello")
    ix = trawl.Index.build(b"hello world hello")
    ix.verify(pathlib.Path("plain.txt"))
    with pytest.raises(ValueError):
        ix.verify(pathlib.Path("genome.fa"))


def test_a_2bit_genome_is_read_as_its_fasta(tmp_path):
    import twobit  # tests/oracle: written from the format's description
    rng = random.Random(31)
    fasta = "".join(">c%d x\n%s\n" % (i, "".join(rng.choice("ACGTNacgt") for _ in range(rng.randint(0, 900))))
                    for i in range(5))
    (tmp_path / "g.fa").write_text(fasta)
    (tmp_path / "g.2bit").write_bytes(twobit.write(twobit.fasta_records(fasta)))
    for pattern, k in (("ACG", 0), ("ACGTA", 1)):
        a = trawl.search(pattern, pathlib.Path(tmp_path / "g.fa"), k=k, both_strands=True)
        b = trawl.search(pattern, pathlib.Path(tmp_path / "g.2bit"), k=k, both_strands=True)
        assert len(a) > 0 and hits_text_of(a) == hits_text_of(b)
    # a .2bit's records are not one text: trawl.best refuses it, Genome.best searches them
    with pytest.raises(ValueError, match="2bit"):
        trawl.best("ACGTTA", pathlib.Path(tmp_path / "g.2bit"))
    a = trawl.Genome(pathlib.Path(tmp_path / "g.fa"), device="cpu").best("ACGTTA", both_strands=True)
    b = trawl.Genome(pathlib.Path(tmp_path / "g.2bit"), device="cpu").best("ACGTTA", both_strands=True)
    rows = lambda hs: [(h.record, h.start, h.end, h.errors, h.strand) for h in hs]
    assert a.distance == b.distance and len(a.hits) > 0 and rows(a.hits) == rows(b.hits)


@pytest.mark.parametrize("seed", range(4))
def test_genome_best_is_the_least_over_the_records(seed):
    # oracle.best and oracle.best_every of each record and strand
    rng = random.Random(600 + seed)
    x = rand_dna(rng, rng.randint(4, 10))
    # a first record with a base: a file whose first record is empty reads as plain text
    recs = [rand_dna(rng, rng.choice([0, rng.randint(1, 150)]) if i else rng.randint(1, 150)) for i in range(4)]
    at = rng.randrange(len(x))
    recs[2] += x[:at] + (b"A" if x[at:at + 1] != b"A" else b"C") + x[at + 1:]  # x with one mismatch
    fasta = b"".join(b">r%d d\n%s\n" % (i, s) for i, s in enumerate(recs))
    rc = trawl.reverse_complement(x).encode()
    for both in (False, True):
        strands = [(x, "+")] + ([(rc, "-")] if both else [])
        per = [[oracle.best(p, s) if s else None for p, _ in strands] for s in recs]
        per_every = [[oracle.best_every(p, s) if s else None for p, _ in strands] for s in recs]
        d = min(r[0] for rs in per for r in rs if r)
        assert d < len(x)
        for pack in (True, False):
            g = trawl.Genome(fasta, device="cpu", pack=pack)
            left = g.best(x, leftmost=True, both_strands=both)
            assert left.distance == d
            want = [("r%d" % i, s, e, strand) for i, rs in enumerate(per) for (_, strand), r in zip(strands, rs)
                    if r and r[0] == d for s, e in r[1]]
            h = left.hits
            got = [(h.records[r], s, e, "-" if v else "+") for r, s, e, v in
                   zip(h.record.tolist(), h.start.tolist(), h.end.tolist(), h.reverse.tolist())]
            assert got == want and set(h.errors.tolist()) == {d}
            every = g.best(x, both_strands=both).hits
            pairs = [(every.records[r], s, e, "-" if v else "+") for r, s, e, v in
                     zip(every.record.tolist(), every.start.tolist(), every.end.tolist(), every.reverse.tolist())]
            assert pairs == [("r%d" % i, s, e, strand) for i, rs in enumerate(per_every)
                             for (_, strand), r in zip(strands, rs) if r and r[0] == d for s, e in r[1]]


def hits_text_of(h):
    return [(h.records[r], s, e, x) for r, s, e, x in zip(h.record.tolist(), h.start.tolist(), h.end.tolist(), h.errors.tolist())]


@pytest.mark.skipif(not CLI, reason="TRAWL_CLI not set")
def test_index_search_gives_the_hits_trawl_index_locate_prints(tmp_path):
    rng = random.Random(41)
    fasta = "".join(">r%d\n%s\n" % (i, "".join(rng.choice("ACGT") for _ in range(rng.randint(1, 3000)))) for i in range(7))
    (tmp_path / "g.fa").write_text(fasta)
    subprocess.run([CLI, "index", "build", "-q", str(tmp_path / "g.fa"), "-o", str(tmp_path / "g.thi")], check=True)
    printed = subprocess.run([CLI, "index", "locate", str(tmp_path / "g.thi"), "ACGT", "GGA"], capture_output=True,
                             text=True).stdout.splitlines()
    h = trawl.Index.load(tmp_path / "g.thi").search(["ACGT", "GGA"])
    ours = ["%s\t%d\t%d\t0\t+\t%s" % (h.records[r], s, e, ["ACGT", "GGA"][p])
            for r, s, e, p in zip(h.record.tolist(), h.start.tolist(), h.end.tolist(), h.pattern.tolist())]
    assert len(printed) > 20 and ours == printed


def test_readme_python_example(tmp_path, monkeypatch, capsys):
    """The README's Python block prints the output block that follows it."""
    readme = (pathlib.Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("\n## Python\n", 1)[1]
    code, rest = section.split("```python\n", 1)[1].split("```\n", 1)
    want = rest.lstrip("\n").removeprefix("```\n").split("```", 1)[0]
    monkeypatch.chdir(tmp_path)
    exec(compile(code, "README.md", "exec"), {})
    assert capsys.readouterr().out == want


def test_usage_python_block(tmp_path, monkeypatch, capsys):
    """docs/USAGE.md's Python cheat sheet runs, beside small stand-ins for the files and names
    it uses, and its prints show what it found."""
    usage = (pathlib.Path(__file__).resolve().parents[2] / "docs" / "USAGE.md").read_text()
    code = usage.split("```python\n", 1)[1].split("```\n", 1)[0]
    monkeypatch.chdir(tmp_path)
    rng = random.Random(71)
    site = "GACGCATAAAGATGAGACGCTGG"
    seq = "".join(rng.choice("ACGT") for _ in range(3000))
    seq = seq[:1000] + site + seq[1000:2000] + site.replace("ATA", "ATT") + seq[2000:]
    with gzip.open(tmp_path / "genome.fa.gz", "wt") as f:
        f.write(">chr1\n" + seq + "\n")
    (tmp_path / "pangenome.fa").write_text(">h1\n" + seq + "\n>h2\n" + seq[:1500] + "GATTACA" + seq[1500:] + "\n")
    (tmp_path / "guides.fa").write_text(">g1\nGACGCATAAAGATGAGACGC\n")
    (tmp_path / "app.log").write_text("ERROR: 3\nok\nERRORS: 12\n")
    names = {"barcodes": ["ACGTACGT", "TTGCAACG"], "list_of_reads": ["ACGTACGTTT", "GGGTTGCAAC", "CCCC"],
             "text": "xxACGTTGCAyyACGTAGCA"}
    exec(compile(code, "docs/USAGE.md", "exec"), names)
    out = capsys.readouterr().out.splitlines()
    # the search's first hits and the off-target sites, each a line
    assert any(line.startswith("chr1 1000 1023 0 +") for line in out), out
    assert any(line.startswith("g1 chr1 1000 +") for line in out), out
    assert (tmp_path / "pg.idx").exists()
