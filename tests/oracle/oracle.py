"""Pure-Python oracles for the Python package's tests: naive search and full dynamic programming,
written from the definitions (include/trawl/approx.hpp) and sharing no code with trawl.

Hits are tuples (pattern, start, end, errors, strand) with strand '+' or '-'.
"""

_COMPLEMENT = bytes.maketrans(b"ACGTUacgtuRYSWKMBDHVNrySwkmbdhvn", b"TGCAAtgcaaYRSWMKVHDBNyrswmkvhdbn")


def revcomp(s: bytes) -> bytes:
    return s.translate(_COMPLEMENT)[::-1]


def _fold(s: bytes, ignore_case: bool) -> bytes:
    return s.lower() if ignore_case else s


def _strands(patterns, both_strands):
    for i, p in enumerate(patterns):
        yield i, "+", p
        if both_strands:
            yield i, "-", revcomp(p)


def exact(patterns, text: bytes, both_strands=False, ignore_case=False):
    """Every occurrence, overlapping ones included, by (start, pattern, strand)."""
    t = _fold(text, ignore_case)
    out = []
    for i, strand, p in _strands(patterns, both_strands):
        q = _fold(p, ignore_case)
        for s in range(len(t) - len(q) + 1):
            if t[s:s + len(q)] == q:
                out.append((i, s, s + len(q), 0, strand))
    return sorted(set(out), key=lambda h: (h[1], h[0], h[4] == "-"))


def regex(patterns, text: bytes, ignore_case=False):
    """Each pattern's matches in each line (split at newline), left to right, each searched from
    the end of the previous one, with Python's re (leftmost-first, as PCRE2); for patterns that
    never match the empty string. By (start, pattern)."""
    import re
    out = []
    for i, p in enumerate(patterns):
        r = re.compile(p, re.IGNORECASE if ignore_case else 0)
        ls = 0
        for line in text.split(b"\n"):
            pos = 0
            while True:
                m = r.search(line, pos)
                if m is None:
                    break
                assert m.end() > m.start(), "the oracle takes patterns that never match empty"
                out.append((i, ls + m.start(), ls + m.end(), 0, "+"))
                pos = m.end()
            ls += len(line) + 1
    return sorted(out, key=lambda h: (h[1], h[0], h[2]))


def edit_distance(a: bytes, b: bytes) -> int:
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] != b[j - 1]))
        prev = cur
    return prev[len(b)]


def _end_scores(p: bytes, t: bytes, hamming: bool):
    """score_j for every end j: the least distance of p to a substring ending at j (Sellers)."""
    m = len(p)
    if hamming:
        return {j: sum(p[i] != t[j - m + 1 + i] for i in range(m)) for j in range(m - 1, len(t))}
    col = list(range(m + 1))
    scores = {}
    for j, c in enumerate(t):
        new = [0] * (m + 1)
        for i in range(1, m + 1):
            new[i] = min(col[i] + 1, new[i - 1] + 1, col[i - 1] + (p[i - 1] != c))
        col = new
        scores[j] = col[m]
    return scores


def _leftmost_start(p: bytes, t: bytes, j: int, score: int, hamming: bool) -> int:
    if hamming:
        return j - len(p) + 1
    for z in range(max(0, j + 1 - len(p) - score), j + 2):
        if edit_distance(p, t[z:j + 1]) == score:
            return z
    raise AssertionError("no start")


def approx(patterns, text: bytes, k: int, both_strands=False, all_ends=False, hamming=False):
    """Approximate hits by the definitions: every end within k (all_ends), or per run of
    consecutive ends within k its best end (leftmost on ties); each with its leftmost start.
    Sorted by (end, pattern, strand, start)."""
    out = []
    for i, strand, p in _strands(patterns, both_strands):
        scores = _end_scores(p, text, hamming)
        ends = [j for j in sorted(scores) if scores[j] <= k]
        if all_ends:
            chosen = ends
        else:
            chosen, run = [], []
            for j in ends + [None]:
                if run and (j is None or j != run[-1] + 1):
                    chosen.append(min(run, key=lambda e: (scores[e], e)))
                    run = []
                if j is not None:
                    run.append(j)
        for j in chosen:
            out.append((i, _leftmost_start(p, text, j, scores[j], hamming), j + 1, scores[j], strand))
    return sorted(out, key=lambda h: (h[2], h[0], h[4] == "-", h[1]))


def best(x: bytes, y: bytes):
    """ASM(x, y) and its optimal ends j (exclusive) with their leftmost starts, by end."""
    scores = _end_scores(x, y, False)
    d = min([len(x)] + list(scores.values()))
    occ = [(_leftmost_start(x, y, j, d, False), j + 1) for j in sorted(scores) if scores[j] == d]
    if not y:
        occ = [(0, 0)]
    return d, occ


def best_every(x: bytes, y: bytes):
    """ASM(x, y) and every optimal substring (start, end exclusive), by end then start."""
    d, _ = best(x, y)
    if not y:
        return d, [(0, 0)]
    scores = _end_scores(x, y, False)
    occ = []
    for j in sorted(scores):
        if scores[j] != d:
            continue
        # a substring within d of x is len(x) - d to len(x) + d long
        for z in range(max(0, j + 1 - len(x) - d), j + 2 - max(0, len(x) - d)):
            if edit_distance(x, y[z:j + 1]) == d:
                occ.append((z, j + 1))
    return d, occ


def locate(pattern: bytes, text: bytes):
    return [s for s in range(len(text) - len(pattern) + 1) if text[s:s + len(pattern)] == pattern]
