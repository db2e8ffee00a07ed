"""UCSC .2bit written and read from the format's description alone (an oracle for trawl's
reader and `trawl pack`): header (signature, version, count, reserved), index (name length,
name, offset: 4 bytes in version 0, 8 in version 1), then per sequence its size, N blocks, mask
blocks, a reserved word and the bases at two bits each (T=0, C=1, A=2, G=3, first base high).

  python3 twobit.py write IN.fa OUT.2bit [--version 1] [--big-endian]
  python3 twobit.py read IN.2bit          (FASTA on stdout, one line a record)
"""
import struct
import sys

CODE = {"T": 0, "C": 1, "A": 2, "G": 3}


def fasta_records(text):
    recs, name, seq = [], None, []
    for line in text.splitlines():
        if line.startswith(">"):
            if name is not None:
                recs.append((name, "".join(seq)))
            name, seq = line[1:].split()[0] if line[1:].split() else "", []
        elif name is not None:
            seq.append(line.strip())
    if name is not None:
        recs.append((name, "".join(seq)))
    return recs


def runs(seq, test):
    out, start = [], None
    for i, c in enumerate(seq):
        if test(c) and start is None:
            start = i
        elif not test(c) and start is not None:
            out.append((start, i - start))
            start = None
    if start is not None:
        out.append((start, len(seq) - start))
    return out


def write(recs, version=0, big=False):
    e = ">" if big else "<"
    bodies = []
    for name, seq in recs:
        ns = runs(seq, lambda c: c in "Nn")
        masks = runs(seq, lambda c: c.islower())
        packed = bytearray((len(seq) + 3) // 4)
        for i, c in enumerate(seq):
            packed[i // 4] |= CODE.get(c.upper(), 0) << (6 - 2 * (i % 4))
        b = struct.pack(e + "I", len(seq))
        for blocks in (ns, masks):
            b += struct.pack(e + "I", len(blocks))
            b += b"".join(struct.pack(e + "I", s) for s, _ in blocks)
            b += b"".join(struct.pack(e + "I", n) for _, n in blocks)
        bodies.append(b + struct.pack(e + "I", 0) + bytes(packed))
    width = 8 if version == 1 else 4
    index_size = 16 + sum(1 + len(n.encode()) + width for n, _ in recs)
    out = struct.pack(e + "IIII", 0x1A412743, version, len(recs), 0)
    off = index_size
    for (name, _), body in zip(recs, bodies):
        out += bytes([len(name.encode())]) + name.encode() + struct.pack(e + ("Q" if version == 1 else "I"), off)
        off += len(body)
    return out + b"".join(bodies)


def read(data):
    sig = struct.unpack("<I", data[:4])[0]
    e = "<" if sig == 0x1A412743 else ">"
    _, version, count, _ = struct.unpack(e + "IIII", data[:16])
    at, recs = 16, []
    for _ in range(count):
        n = data[at]
        name = data[at + 1:at + 1 + n].decode()
        at += 1 + n
        if version == 1:
            off = struct.unpack(e + "Q", data[at:at + 8])[0]
            at += 8
        else:
            off = struct.unpack(e + "I", data[at:at + 4])[0]
            at += 4
        size, nn = struct.unpack(e + "II", data[off:off + 8])
        p = off + 8
        nstarts = struct.unpack(e + "%dI" % nn, data[p:p + 4 * nn]); p += 4 * nn
        nsizes = struct.unpack(e + "%dI" % nn, data[p:p + 4 * nn]); p += 4 * nn
        nm = struct.unpack(e + "I", data[p:p + 4])[0]; p += 4
        mstarts = struct.unpack(e + "%dI" % nm, data[p:p + 4 * nm]); p += 4 * nm
        msizes = struct.unpack(e + "%dI" % nm, data[p:p + 4 * nm]); p += 4 * nm
        p += 4
        seq = ["TCAG"[(data[p + i // 4] >> (6 - 2 * (i % 4))) & 3] for i in range(size)]
        for s, k in zip(nstarts, nsizes):
            seq[s:s + k] = ["N"] * k
        for s, k in zip(mstarts, msizes):
            seq[s:s + k] = [c.lower() for c in seq[s:s + k]]
        recs.append((name, "".join(seq)))
    return recs


if __name__ == "__main__":
    if sys.argv[1] == "write":
        recs = fasta_records(open(sys.argv[2]).read())
        data = write(recs, 1 if "--version" in sys.argv and sys.argv[sys.argv.index("--version") + 1] == "1" else 0,
                     "--big-endian" in sys.argv)
        open(sys.argv[3], "wb").write(data)
    else:
        for name, seq in read(open(sys.argv[2], "rb").read()):
            sys.stdout.write(">%s\n%s\n" % (name, seq))
