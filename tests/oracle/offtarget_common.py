"""offtarget_common.py — what the off-target oracles (offtarget_sites.py, offtarget_bulges.py)
share: IUPAC codes against genome bases, the complement, and a FASTA reader."""
bases = {'A': 1, 'C': 2, 'G': 4, 'T': 8}
codes = {'A': 1, 'C': 2, 'G': 4, 'T': 8, 'R': 5, 'Y': 10, 'S': 6, 'W': 9, 'K': 12, 'M': 3, 'B': 14, 'D': 13,
         'H': 11, 'V': 7, 'N': 15}
comp = str.maketrans('ACGTacgtRYSWKMBDHVNrykmbdhv', 'TGCAtgcaYRSWMKVHDBNyrmkvhdb')
# U is no base (it matches nothing on either strand, as N), but its complement is shown as A
shown_comp = str.maketrans('Uu', 'Aa')


def ok(code, base):
    """Whether IUPAC code `code` matches genome base `base` (N and other bytes match nothing)."""
    return codes[code] & bases.get(base.upper(), 0) != 0


def records(path):
    """(name, sequence) of each FASTA record of `path`."""
    name, seq = None, []
    for line in open(path):
        line = line.rstrip('\n')
        if line.startswith('>'):
            if name is not None: yield name, ''.join(seq)
            name, seq = line[1:].split()[0], []
        else: seq.append(line)
    if name is not None: yield name, ''.join(seq)
