#!/usr/bin/env python3
"""offtarget_bulges.py — the off-target oracle with bulges, for tests/cli/offtarget_test.sh."""
import sys
# offtarget_bulges.py GENOME.fa GUIDES(name:seq,...) PAM SIDE MM DNA RNA: every site by enumerating every
# alignment within the limits from the PAM outward; prints the columns that do not depend on
# which of equally good alignments is shown (guide, seq, chrom, start, end, strand, mm, dna, rna, pam)
from offtarget_common import comp, ok, records
genome, guides, pam, side = sys.argv[1], sys.argv[2].split(','), sys.argv[3], int(sys.argv[4])
M, DB, RB = map(int, sys.argv[5:8])
guides = [(g.split(':')[0], g.split(':')[1]) for g in guides]
def alignments(g, t):
    """(mm, dna, rna, text used) of every alignment of g against a prefix of t within the limits,
    no bulge as the first or last column, no DNA bulge next to an RNA bulge"""
    out = set()
    def go(i, j, mm, d, r, last):  # last column: '' a base pair, 'D' a DNA bulge, 'R' an RNA bulge
        if i == len(g):
            if last == '': out.add((mm, d, r, j))
            return
        if j < len(t):
            nm = mm + (0 if ok(g[i], t[j]) else 1)
            if nm <= M: go(i + 1, j + 1, nm, d, r, '')
        if i > 0:
            if d < DB and j < len(t) and last != 'R': go(i, j + 1, mm, d + 1, r, 'D')
            if r < RB and last != 'D': go(i + 1, j, mm, d, r + 1, 'R')
    go(0, 0, 0, 0, 0, '')
    return out
for chrom, text in records(genome):
    rows = []
    P = len(pam)
    for gi, (gname, g) in enumerate(guides):
        m = len(g)
        for ps in range(len(text) - P + 1):
            for strand in '+-':
                pb = text[ps:ps + P]
                if strand == '-': pb = pb.translate(comp)[::-1]
                if any(not ok(pam[k], pb[k]) for k in range(P)): continue
                right = (side == 3) == (strand == '+')  # the spacer lies left of the PAM (forward coords)
                if right: t = text[max(0, ps - m - DB):ps][::-1]
                else: t = text[ps + P:ps + P + m + DB]
                if strand == '-': t = t.translate(comp)
                gq = g[::-1] if side == 3 else g
                found = alignments(gq, t)
                if not found: continue
                mm, d, r, used = min(found, key=lambda x: (x[0] + x[1] + x[2], x[1] + x[2], x[0], x[1]))
                start, end = (ps - used, ps + P) if right else (ps, ps + P + used)
                rows.append(((ps, gi, strand == '-'), [gname, g, chrom, start, end, strand, mm, d, r, pb.upper()]))
    for key, row in sorted(rows):
        print('\t'.join(map(str, row)))
