#!/usr/bin/env python3
"""bench/offtarget/guides.py GENOME — 312 guides of 20 nt (`g0 SEQ` lines) sampled with a fixed
seed from the first record's first 200,000 lines of a FASTA genome, so that sites exist."""
import argparse
import random

ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
ap.add_argument("genome", help="FASTA genome")
args = ap.parse_args()
r = random.Random(11)
with open(args.genome) as f:
    f.readline()
    seq = ''.join(f.readline().strip() for _ in range(200000))
for i in range(312):
    p = r.randrange(len(seq) - 20)
    print(f'g{i} {seq[p:p + 20]}')
