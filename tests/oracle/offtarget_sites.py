#!/usr/bin/env python3
"""offtarget_sites.py — the off-target oracle without bulges, for tests/cli/offtarget_test.sh: every
PAM position of every record, both strands, every guide and PAM, by brute force; the full
output columns of `trawl offtarget`."""
import sys
# offtarget_sites.py GENOME.fa GUIDES(name:seq:mm,...) PAMS(,) SIDE PAM_MM
from offtarget_common import comp, ok, records, shown_comp
genome, guides, pams, side, pam_mm = sys.argv[1], sys.argv[2], sys.argv[3].split(','), int(sys.argv[4]), int(sys.argv[5])
guides = [(g.split(':')[0], g.split(':')[1], int(g.split(':')[2])) for g in guides.split(',')]
for chrom, text in records(genome):
    rows = []
    for gi, (gname, g, limit) in enumerate(guides):
        for pi, pam in enumerate(pams):
            L = len(g) + len(pam)
            for i in range(len(text) - L + 1):
                for strand in '+-':
                    s = text[i:i + L] if strand == '+' else text[i:i + L].translate(comp)[::-1]
                    ps, pa = (len(pam), 0) if side == 5 else (0, len(g))
                    pmm = sum(not ok(pam[j], s[pa + j]) for j in range(len(pam)))
                    mm = sum(not ok(g[j], s[ps + j]) for j in range(len(g)))
                    if mm <= limit and pmm <= pam_mm:
                        # sites in the order trawl documents: PAM start (forward strand), guide, strand
                        pam_at = i + pa if strand == '+' else i + L - pa - len(pam)
                        rows.append(((pam_at, gi, strand == '-', i), (mm, pmm, pi), gname, g, pam, s, strand))
    best = {}
    for key, rank, *rest in rows:
        if key not in best or rank < best[key][0]: best[key] = (rank, rest)
    for key in sorted(best):
        (mm, pmm, pi), (gname, g, pam, s, strand) = best[key]
        ps, pa = (len(pam), 0) if side == 5 else (0, len(g))
        t = list(s)
        for j in range(len(pam)): t[pa + j] = t[pa + j].upper() if ok(pam[j], s[pa + j]) else t[pa + j].lower()
        for j in range(len(g)): t[ps + j] = t[ps + j].upper() if ok(g[j], s[ps + j]) else t[ps + j].lower()
        t = ''.join(t)
        if strand == '-': t = t.translate(shown_comp)
        cigar, j = '', 0
        while j < len(t):
            k = j
            while k < len(t) and t[k].isupper() == t[j].isupper(): k += 1
            cigar += f"{k - j}{'=' if t[j].isupper() else 'X'}"; j = k
        pam_bases = t[:len(pam)] if side == 5 else t[len(g):]
        aligned = pam + g if side == 5 else g + pam
        print('\t'.join(map(str, [gname, g, chrom, key[3], key[3] + len(t), strand, mm, 0, 0, aligned, t, cigar, pam_bases])))
