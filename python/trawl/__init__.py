"""trawl: every exact or approximate (edit distance <= k) occurrence of patterns in big texts,
genomes and compressed indexes, on all CPU cores and on NVIDIA GPUs.

    >>> import trawl
    >>> hits = trawl.search("GACGCATAAAGATGAGACG", pathlib.Path("genome.fa.gz"), k=2, both_strands=True)
    >>> for h in hits: print(h.record, h.start, h.end, h.errors, h.strand)

Texts are ``str`` (searched as UTF-8), ``bytes``, ``bytearray``, ``memoryview`` or contiguous
numpy arrays, read in place without a copy, or a file given as an ``os.PathLike`` (plain text,
FASTA or FASTQ, gzip- or zstd-compressed, detected from the bytes). A plain ``str`` is always a
text, never a file name: pass ``pathlib.Path(name)`` for a file.

Coordinates are 0-based, half-open byte offsets on the forward strand: within each record of a
FASTA/FASTQ input (sequence bytes, line breaks removed), within the whole text otherwise. The
semantics are the command line's (``trawl search``): exact search reports every occurrence,
overlapping ones included; approximate search reports one hit per run of end positions within
``k`` (its best end, ties to the earliest, and the leftmost start reaching that score), or every
end with ``all_ends``. Bytes match when equal (ASCII case ignored with ``ignore_case``); with
``iupac`` a code in a pattern (N, R, Y, ...) also matches the bases of its set. Edit distance
counts bytes.

Searches release the GIL and run on all cores unless ``threads`` says otherwise. Errors raise
``ValueError`` (bad arguments, malformed input data), ``OSError`` (files) or ``RuntimeError``
(no GPU, or a GPU failure); ``TypeError`` for arguments of the wrong type.
"""
from __future__ import annotations

import os
import warnings
from typing import Iterable, Iterator, NamedTuple, Optional, Sequence, Union

import numpy as np

from . import _trawl

__version__: str = _trawl.__version__

__all__ = [
    "search", "search_many", "best", "offtarget", "Genome", "GenomeBest", "Index", "Hits", "Hit", "Best", "Site",
    "reverse_complement", "align", "gpu_count", "__version__",
]

Text = Union[str, bytes, bytearray, memoryview, np.ndarray]
Patterns = Union[str, bytes, Iterable[Union[str, bytes]]]


class Hit(NamedTuple):
    """One occurrence. ``pattern`` indexes the patterns as given; ``record`` is the record's name
    (``search``, ``Index.search``) or the text's index in the list (``search_many``)."""
    pattern: int
    record: Union[str, int]
    start: int
    end: int
    errors: int
    strand: str
    cigar: Optional[str] = None


class Hits:
    """Hits as columns, in the library's order (by record, then by start for exact search or by
    end for approximate search, then pattern, strand).

    Columns (numpy arrays, one entry per hit): ``pattern`` (uint32), ``record`` (uint32, an index
    into ``records``; ``text`` for ``search_many``), ``start`` and ``end`` (int64: arithmetic
    near a record's start stays signed), ``errors`` (uint32), ``reverse`` (bool) and ``strand``
    ('+'/'-'); ``cigar`` (a list of str, with ``align=True``). Iterating gives :class:`Hit`
    tuples; ``len()`` is the number of hits. Indexing by an int gives one :class:`Hit`; by a
    slice, a boolean mask (``h[h.errors == 0]``) or an array of indices, the selected
    :class:`Hits`. ``to_pandas()`` gives a DataFrame (pandas is optional).
    """

    def __init__(self, columns: dict, patterns: list, records: Optional[list], where: str):
        self._c = columns
        self.patterns: list = patterns
        #: the record names (``search``), or None (``search_many``: ``text`` indexes the texts)
        self.records: Optional[list] = records
        self._where = where

    def __len__(self) -> int:
        return int(self._c["start"].shape[0])

    @property
    def pattern(self) -> np.ndarray:
        return self._c["pattern"]

    @property
    def record(self) -> np.ndarray:
        return self._c[self._where]

    @property
    def text(self) -> np.ndarray:
        return self._c[self._where]

    @property
    def start(self) -> np.ndarray:
        return self._c["start"]

    @property
    def end(self) -> np.ndarray:
        return self._c["end"]

    @property
    def errors(self) -> np.ndarray:
        return self._c["errors"]

    @property
    def reverse(self) -> np.ndarray:
        return self._c["reverse"].view(np.bool_)

    @property
    def strand(self) -> np.ndarray:
        return np.where(self.reverse, "-", "+")

    @property
    def cigar(self) -> Optional[list]:
        return self._c.get("cigar")

    def _hit(self, i: int) -> Hit:
        c = self._c
        r = int(c[self._where][i])
        cig = c.get("cigar")
        return Hit(int(c["pattern"][i]), self.records[r] if self.records is not None else r, int(c["start"][i]),
                   int(c["end"][i]), int(c["errors"][i]), "-" if c["reverse"][i] else "+",
                   cig[i] if cig is not None else None)

    def __getitem__(self, i) -> Union[Hit, "Hits"]:
        """One hit (an int), or the hits a slice, a boolean mask or an array of indices selects."""
        n = len(self)
        if isinstance(i, slice) or isinstance(i, (list, np.ndarray)):
            sel = np.arange(n)[i] if isinstance(i, slice) else np.asarray(i)
            if sel.dtype == np.bool_ and sel.shape != (n,):
                raise IndexError(f"a boolean mask of {sel.shape[0] if sel.ndim else 0} entries for {n} hits")
            cols = {}
            for k, v in self._c.items():
                if k == "cigar":
                    idx = np.arange(n)[sel] if sel.dtype == np.bool_ else sel
                    cols[k] = [v[int(j)] for j in idx]
                else:
                    cols[k] = v[sel]
            return Hits(cols, self.patterns, self.records, self._where)
        if isinstance(i, np.integer):
            i = int(i)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError("hit index out of range")
        return self._hit(i)

    def __iter__(self) -> Iterator[Hit]:
        return (self._hit(i) for i in range(len(self)))

    def to_dict(self) -> dict:
        """The columns by name (numpy arrays; ``cigar`` a list), plus ``strand``."""
        d = {k: v for k, v in self._c.items() if k != "reverse"}
        d["reverse"] = self.reverse
        d["strand"] = self.strand
        return d

    def to_pandas(self):
        """The hits as a pandas DataFrame: the columns of :meth:`to_dict`, with ``record`` as the
        record names (``search``) and the pattern as text in ``pattern_text``. Needs pandas."""
        try:
            import pandas as pd
        except ImportError as e:  # pandas is optional
            raise ImportError("Hits.to_pandas needs pandas (pip install pandas)") from e
        d = self.to_dict()
        if self.records is not None:
            d[self._where] = np.asarray(self.records, dtype=object)[self.record] if len(self) else np.array([], dtype=object)
        pats = np.asarray([p if isinstance(p, str) else bytes(p).decode("utf-8", "replace") for p in self.patterns],
                          dtype=object)
        d["pattern_text"] = pats[self.pattern] if len(self) else np.array([], dtype=object)
        return pd.DataFrame(d)

    def __repr__(self) -> str:
        return f"<trawl.Hits: {len(self)} hits of {len(self.patterns)} pattern(s)>"


class Best(NamedTuple):
    """``best``'s answer: the distance, and the [start, end) ranges reaching it, in (end, start)
    order."""
    distance: int
    starts: np.ndarray
    ends: np.ndarray


class GenomeBest(NamedTuple):
    """``Genome.best``'s answer: the least distance over the records, and each substring that
    reaches it (``hits``: record, start, end, strand; ``errors`` is the distance)."""
    distance: int
    hits: "Hits"


class Site(NamedTuple):
    """One CRISPR off-target site (see :func:`offtarget`)."""
    guide: str            #: the guide's name
    guide_index: int      #: its index in the guides as given
    record: str           #: the genome record (or file) it lies in
    start: int            #: protospacer + PAM: 0-based, half-open, forward strand
    end: int
    strand: str           #: '+' or '-'
    mismatches: int       #: in the protospacer
    dna_bulges: int
    rna_bulges: int
    aligned_guide: str    #: 5'->3' on the site's strand, PAM included; '-' at DNA bulges
    aligned_target: str   #: lower case at mismatches, '-' at RNA bulges
    cigar: str            #: =, X, I (RNA bulge), D (DNA bulge)
    pam_bases: str        #: the target's PAM
    pam: str              #: the PAM (of ``pams``) it matched


def _pattern_list(patterns: Patterns) -> list:
    return [patterns] if isinstance(patterns, (str, bytes)) else list(patterns)


def _not_a_file_name(text, what: str) -> None:
    """A str is always text: one that names an existing file is refused, since its user surely
    meant the file (pathlib.Path searches it)."""
    if isinstance(text, str) and 0 < len(text) < 4096 and "\n" not in text and "\0" not in text and os.path.isfile(text):
        raise ValueError(f"{what} is a str, searched as text, and it names the file {text!r}: pass "
                         f"pathlib.Path({text!r}) to search the file (or bytes to search these bytes)")


def _threads(threads: Optional[int]) -> int:
    """``threads`` as the library takes it: None or 0 is every core, as the CLI's ``-j 0``."""
    if threads is None:
        return 0
    if threads < 0:
        raise ValueError("threads must be >= 0 (0 or None: all cores)")
    return threads


def search(patterns: Patterns, text: Union[Text, os.PathLike], *, k: int = 0, both_strands: bool = False,
           iupac: bool = False, hamming: bool = False, all_ends: bool = False, align: bool = False,
           ignore_case: bool = False, whole_words: bool = False, whole_lines: bool = False,
           regex: bool = False, threads: Optional[int] = None, device: str = "auto", max_hits: Optional[int] = None,
           format: str = "auto", algorithm: str = "auto") -> Hits:
    """Every occurrence of ``patterns`` (one str/bytes, or several) in ``text`` (in memory, or a
    file as an ``os.PathLike``), as :class:`Hits`.

    ``k``: edit-distance bound (0: exact). ``hamming``: substitutions only. ``both_strands``: also
    the reverse complement of each pattern (hits on '-'). ``iupac``: IUPAC codes in the patterns
    match their base sets. ``all_ends``: every end position within ``k``, not one hit per run.
    ``align``: a CIGAR per hit (=, X, I: pattern only, D: text only; the pattern as it reads on
    the hit's strand). ``whole_words`` / ``whole_lines``: exact hits bounded as ``grep -w / -x``.
    ``regex``: the patterns are PCRE2 regular expressions, matched within each line (leftmost-first
    matches, left to right, as ``rg -o``; lines of at most 256 KiB); exact only, on the CPU.
    ``device``: "auto" (the GPU when the work pays for it), "cpu", "gpu", "gpu:all" or
    "gpu:0,1". ``max_hits``: stop after that many hits. ``format``: "auto" (detected), "plain",
    "fasta" or "fastq". ``algorithm``: the engine, as ``trawl search --algorithm``.
    """
    pats = _pattern_list(patterns)
    if isinstance(text, os.PathLike):
        path, body = os.fsdecode(os.fspath(text)), None
    else:
        _not_a_file_name(text, "text")
        path, body = None, text
    c = _trawl.search(pats, body, path, k, hamming, ignore_case, iupac, both_strands, all_ends, align, whole_words,
                      whole_lines, regex, _threads(threads), device, 0 if max_hits is None else max_hits, format, algorithm)
    records = c.pop("records")
    return Hits(c, pats, records, "record")


def search_many(patterns: Patterns, texts: Sequence[Text], *, k: int = 0, both_strands: bool = False,
                iupac: bool = False, hamming: bool = False, all_ends: bool = False, ignore_case: bool = False,
                whole_words: bool = False, whole_lines: bool = False, regex: bool = False,
                threads: Optional[int] = None, device: str = "auto", algorithm: str = "auto") -> Hits:
    """``patterns`` in each of many short ``texts`` (reads), in one call on all cores: the hits of
    ``search(patterns, texts[i])`` for every i, in order, with ``text`` = i. ``device`` as for
    :func:`search`: the texts are searched as one sequence, on the GPU when the work pays for it
    (Hamming, whole lines, regular expressions and k >= m search each text alone, on the CPU)."""
    pats = _pattern_list(patterns)
    if isinstance(texts, (str, bytes)):
        raise TypeError("texts must be a sequence of texts (for one text, use trawl.search)")
    c = _trawl.search_many(pats, texts, k, hamming, ignore_case, iupac, both_strands, all_ends, whole_words,
                           whole_lines, regex, _threads(threads), device, algorithm)
    return Hits(c, pats, None, "text")


def offtarget(guides, genome, *, pams: Union[str, Sequence[str]] = "NGG", pam_side: int = 3,
              mismatches: int = 3, pam_mismatches: int = 0, dna_bulges: int = 0, rna_bulges: int = 0,
              max_edits: Optional[int] = None, threads: Optional[int] = None, device: str = "auto") -> list:
    """CRISPR off-target sites of ``guides`` in ``genome``, as a list of :class:`Site`, in the
    command line's order (record, PAM position, guide, strand) and with its semantics (``trawl
    offtarget``): the PAM aligned without gaps (at most ``pam_mismatches``), the protospacer from
    the PAM outward with at most ``mismatches``, ``dna_bulges`` (extra genome bases) and
    ``rna_bulges`` (extra guide bases), ``max_edits`` in all; both strands; N in the genome
    matches nothing.

    ``guides``: a guide file as an ``os.PathLike`` (FASTA, ``NAME SEQ`` lines or a Cas-OFFinder
    input file, whose PAM and per-guide limits are used), a ``{name: protospacer}`` dict, or a
    sequence of protospacers or of ``(name, protospacer)`` pairs. ``genome``: a text, a file as an
    ``os.PathLike`` (FASTA, gzip, ...), a :class:`Genome` or an :class:`Index`. ``pam_side``: 3 (Cas9) or 5
    (Cas12a, e.g. ``pams="TTTV"``). ``device`` as for :func:`search` (auto: the CPU with bulges).
    """
    guide_bytes, pairs = None, []
    if isinstance(guides, os.PathLike):
        with open(guides, "rb") as f:
            guide_bytes = f.read()
    elif isinstance(guides, dict):
        pairs = [(str(k), str(v)) for k, v in guides.items()]
    elif isinstance(guides, (str, bytes)):
        raise TypeError("guides must be a path (os.PathLike), a dict or a sequence of guides")
    else:
        for i, g in enumerate(guides):
            pairs.append((str(g[0]), str(g[1])) if isinstance(g, tuple) else (f"guide{i + 1}", g if isinstance(g, str) else g.decode()))
    pam_list = [pams] if isinstance(pams, str) else list(pams)
    index = genome._ix if isinstance(genome, Index) else None
    kept = genome._g if isinstance(genome, Genome) else None
    path = os.fsdecode(os.fspath(genome)) if isinstance(genome, os.PathLike) else None
    _not_a_file_name(genome, "genome")
    body = genome if index is None and kept is None and path is None else None
    return _trawl.offtarget(guide_bytes, pairs, body, path, index, kept, pam_list, pam_side, mismatches, pam_mismatches,
                            dna_bulges, rna_bulges, -1 if max_edits is None else max_edits, _threads(threads), device)


def best(x: Text, y: Text, *, leftmost: bool = False, threads: Optional[int] = None, device: str = "cpu",
         every_start: Optional[bool] = None) -> Best:
    """The best approximate substring: the smallest edit distance between ``x`` and any substring
    of ``y``, and every [start, end) of ``y`` at that distance, by end then start, as ``trawl
    best`` lists them; with ``leftmost``, each optimal end with its leftmost start only
    (``trawl best --leftmost``). ``y`` may be a file (``os.PathLike``: its bytes, decompressed
    when gzip or zstd); a .2bit genome raises ValueError (its records are not one text:
    ``Genome(path).best(x)`` searches them). ``every_start`` is the former spelling (deprecated):
    ``every_start=False`` is ``leftmost=True``."""
    if every_start is not None:
        warnings.warn("trawl.best(every_start=...) is deprecated: every start is the default; "
                      "leftmost=True lists each end's leftmost start", DeprecationWarning, stacklevel=2)
        leftmost = not every_start
    _not_a_file_name(y, "y")
    d, s, e = _trawl.best(x, y, not leftmost, _threads(threads), device)
    return Best(d, s, e)


def reverse_complement(dna: Text) -> str:
    """The reverse complement of a DNA string (ACGT, acgt and IUPAC codes; other bytes kept)."""
    return _trawl.reverse_complement(dna)


def align(pattern: Text, text: Text, *, ignore_case: bool = False, iupac: bool = False, hamming: bool = False) -> str:
    """The CIGAR of an optimal global alignment of ``pattern`` against ``text`` (=, X, I: a byte of
    the pattern only, D: of the text only; ties prefer =/X, then I, then D)."""
    return _trawl.align(pattern, text, ignore_case, iupac, hamming)


def gpu_count() -> int:
    """The number of CUDA devices trawl can use (0 without CUDA or a device)."""
    return _trawl.gpu_count()


def _records_search(impl, patterns, k, hamming, ignore_case, iupac, both_strands, all_ends, threads, device,
                    algorithm) -> Hits:
    """Index.search and Genome.search: their engine's hits in per-record columns, as Hits."""
    pats = _pattern_list(patterns)
    c = impl.search(pats, k, hamming, ignore_case, iupac, both_strands, all_ends, _threads(threads), device, algorithm)
    records = c.pop("records")
    return Hits(c, pats, records, "record")


class Genome:
    """A genome read once and kept for many searches: the records of a FASTA, FASTQ or .2bit
    file (or of a text), their sequences in memory and, with a GPU (``device`` "gpu", or "auto"
    when one is present), on the GPU too, so that a search moves no text and parses nothing.
    DNA is kept two bits a base (``packed``) unless ``pack`` is False: a search on the GPU reads
    from the host only the bytes around its hits, one without a GPU decodes it as it goes, as
    a search of a .2bit file does.
    ``search``, ``offtarget`` and ``best`` give exactly what :func:`search`, :func:`offtarget`
    and ``trawl best`` give for the file, with per-record coordinates; CUDA starts once a process.

    ``source``: the file, as an ``os.PathLike`` or a ``str`` (a genome is a file: here, unlike
    :func:`search`, a ``str`` names one), or the file's bytes.
    """

    def __init__(self, source: Union[str, bytes, os.PathLike], *, device: str = "auto", name: str = "genome",
                 pack: bool = True):
        if isinstance(source, (str, os.PathLike)):
            self._g = _trawl.Genome.open(os.fsdecode(os.fspath(source)), device, pack)
        else:
            self._g = _trawl.Genome.from_bytes(source, name, device, pack)

    @property
    def name(self) -> str:
        return self._g.name

    @property
    def records(self) -> list:
        """(name, length) of each record."""
        return self._g.records

    @property
    def bases(self) -> int:
        """The records' total length."""
        return self._g.bases

    @property
    def resident_gpus(self) -> list:
        """The GPUs that hold the sequences (empty: host memory only)."""
        return self._g.resident_gpus

    @property
    def resident_bytes(self) -> int:
        """The device memory that holds the sequences on each of those GPUs (DNA of 64 KiB or
        more: two bits a base and the runs of other bytes); 0 in host memory only."""
        return self._g.resident_bytes

    @property
    def packed(self) -> bool:
        """True when the sequences are kept two bits a base in host memory: DNA of A, C, G, T
        and N (either case), kept as a .2bit image (and on the GPU, when there is one)."""
        return self._g.packed

    @property
    def host_bytes(self) -> int:
        """The host memory that holds the sequences: the .2bit image when ``packed``, else the
        bytes."""
        return self._g.host_bytes

    def sequence(self, record: Union[int, str], start: int = 0, end: Optional[int] = None) -> bytes:
        """A record's sequence, by number or name: bases ``start`` to ``end`` (default: all)."""
        if isinstance(record, str):
            names = [r[0] for r in self.records]
            if record not in names:
                raise ValueError(f"no record is named {record!r}")
            record = names.index(record)
        return self._g.sequence(record, start, end)

    def search(self, patterns: Patterns, *, k: int = 0, both_strands: bool = False, iupac: bool = False,
               hamming: bool = False, all_ends: bool = False, ignore_case: bool = False,
               threads: Optional[int] = None, device: str = "auto", algorithm: str = "auto") -> Hits:
        """The hits of ``patterns`` in each record, as :func:`search` gives them for the file (same
        options), with per-record coordinates."""
        return _records_search(self._g, patterns, k, hamming, ignore_case, iupac, both_strands, all_ends, threads,
                               device, algorithm)

    def offtarget(self, guides, **options) -> list:
        """:func:`offtarget` of ``guides`` in this genome (the same keyword options)."""
        return offtarget(guides, self, **options)

    def best(self, x: Text, *, leftmost: bool = False, both_strands: bool = False, threads: Optional[int] = None,
             device: str = "cpu") -> GenomeBest:
        """The best approximate substrings of ``x`` in the records, as ``trawl best`` gives them for
        the file: the least edit distance between ``x`` (with ``both_strands``, also its reverse
        complement) and a substring of any record, and every substring of every record at that
        distance, records in order, in each the forward strand's then the reverse's, by end then
        start; with ``leftmost``, each optimal end's leftmost start only."""
        c = self._g.best(x, not leftmost, both_strands, _threads(threads), device)
        distance = c.pop("distance")
        records = c.pop("records")
        return GenomeBest(distance, Hits(c, [x], records, "record"))

    def __len__(self) -> int:
        return len(self.records)

    def __repr__(self) -> str:
        where = f", on GPU {','.join(map(str, self.resident_gpus))}" if self.resident_gpus else ""
        kept = ", two bits a base" if self.packed else ""
        return f"<trawl.Genome {self.name!r}: {len(self)} record(s), {self.bases} bases{kept}{where}>"


class Index:
    """The compressed Hybrid Index (LZ77 + an FM-index over the text around phrase boundaries):
    exact locate and count over a repetitive collection, in a fraction of its size.

    Build with :meth:`Index.build`, or read a file written by ``save`` or ``trawl index build``
    with :meth:`Index.load`. Offsets are into the records' sequences concatenated (see
    ``records``); ``search`` gives per-record coordinates.
    """

    def __init__(self, impl: "_trawl.Index"):
        self._ix = impl

    @classmethod
    def build(cls, text: Union[Text, os.PathLike], *, max_len: int = 32, small: bool = False, fasta: bool = True,
              kernel_text: bool = False, count_index: str = "auto", progress=None) -> "Index":
        """Indexes ``text`` (or a file). ``max_len``: M, the longest pattern answered from the kernel
        directly (longer ones are verified). ``small``: the compact FM-index profile (with
        ``max_len=16``, the one for repetitive text). ``fasta``: read FASTA/FASTQ as records.
        ``kernel_text``: keep the kernel S'' as compressed text too (a larger file; approximate
        search reads it instead of decoding it from the BWT).
        ``count_index``: "auto", "on" or "off": keep the text's run-length BWT, with which
        ``count`` takes time independent of the number of occurrences (auto: on for the default
        profile when the text is at most 256 MiB).
        ``progress(stage, done, total)`` is called as the build goes."""
        if isinstance(text, os.PathLike):
            impl = _trawl.Index.build(None, os.fsdecode(os.fspath(text)), max_len, small, fasta, kernel_text,
                                      count_index, progress)
        else:
            impl = _trawl.Index.build(text, None, max_len, small, fasta, kernel_text, count_index, progress)
        return cls(impl)

    @classmethod
    def load(cls, path: Union[str, os.PathLike]) -> "Index":
        """Reads an index file: its header and records now, each other part (every section
        checksummed) when a query first needs it, from the file kept open. ValueError on a
        damaged or foreign file, at load or at the query that reads the damaged part."""
        return cls(_trawl.Index.load(os.fsdecode(os.fspath(path))))

    def save(self, path: Union[str, os.PathLike]) -> None:
        self._ix.save(os.fsdecode(os.fspath(path)))

    def __len__(self) -> int:
        return len(self._ix)

    @property
    def max_len(self) -> int:
        return self._ix.max_len

    @property
    def records(self) -> list:
        """(name, start, length) of each record in the concatenated text."""
        return self._ix.records

    def count(self, pattern: Text, *, threads: Optional[int] = None) -> int:
        return self._ix.count(pattern, _threads(threads))

    def locate(self, pattern: Text, *, threads: Optional[int] = None) -> Hits:
        """Every occurrence of ``pattern`` inside one record, in record coordinates, as ``trawl
        index locate`` prints them: by record, then start; one across a record's end is left
        out. ``locate_offsets`` gives the starts in the records' sequences concatenated."""
        return self.search([pattern], threads=threads)

    def locate_offsets(self, pattern: Text, *, threads: Optional[int] = None) -> np.ndarray:
        """Every start of ``pattern`` in the concatenated text (the records joined: ``records``
        gives where each begins), ascending (uint64), occurrences across records included."""
        return self._ix.locate(pattern, _threads(threads))

    def extract(self, start: int, length: int) -> bytes:
        """The text's bytes [start, start + length), clipped to its end."""
        return self._ix.extract(start, length)

    def extract_record(self, name: str, start: int = 0, end: Optional[int] = None) -> bytes:
        """Bytes [start, end) of the record ``name``, in record coordinates (0-based, half-open, as
        ``search`` reports hits); ``end`` None: to the record's end. ValueError for an unknown name
        or a range outside the record."""
        return self._ix.extract_record(name, start, end)

    def search(self, patterns: Patterns, *, k: int = 0, both_strands: bool = False, iupac: bool = False,
               hamming: bool = False, all_ends: bool = False, ignore_case: bool = False,
               threads: Optional[int] = None, device: str = "auto", algorithm: str = "auto") -> Hits:
        """The hits of ``patterns`` inside each record, exactly those :func:`search` gives over the
        indexed FASTA (same options), with per-record coordinates. Approximate patterns with
        m + k <= ``max_len`` are searched in the index's kernel only (fast on repetitive
        collections); longer ones in the extracted records. ``device`` as for :func:`search`: the
        kernel's scan runs there (an Index kept loaded searches again without loading, and
        the GPU's start-up is paid once a process)."""
        return _records_search(self._ix, patterns, k, hamming, ignore_case, iupac, both_strands, all_ends, threads,
                               device, algorithm)

    def info(self) -> dict:
        """Sizes: n, phrases, kernel_length, bits_per_char, the bytes of each part, ..."""
        return self._ix.info()

    def verify(self, source: Optional[Text] = None) -> None:
        """A full self-check (and, with ``source``, a text or a file as an ``os.PathLike``, that
        the index holds exactly that text). Raises ValueError saying what does not hold."""
        msg = self._ix.verify(source)
        if msg:
            raise ValueError(msg)

    def __repr__(self) -> str:
        return f"<trawl.Index: {len(self)} bytes, {len(self.records)} record(s), M = {self.max_len}>"
