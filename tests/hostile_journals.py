"""tests/hostile_journal.sh: damaged copies of a real journal (journal.h).

usage: hostile_journals.py JOURNAL OUTDIR
Writes OUTDIR/cutN.h5.journal (cut short at spread points, the header
included), OUTDIR/flipN.h5.journal (a byte changed: its segment's CRC no
longer matches) and OUTDIR/forgedN.h5.journal (a byte of a segment changed and
the CRC recomputed, so that the parser itself meets the damage: lengths,
counts, kinds, strings), and prints how many of each.
"""
import os
import random
import struct
import sys
import zlib

src, out = sys.argv[1], sys.argv[2]
data = open(src, "rb").read()
assert data[:8] == b"MCFJRNL1", "not a journal"
segs, at = [], 8   # (start, payload start, payload length)
while at + 24 <= len(data) and data[at:at + 8] == b"MCFJSEG1":
    (n,) = struct.unpack_from("<Q", data, at + 8)
    segs.append((at, at + 24, n))
    at += 24 + n
assert len(segs) >= 3, f"{len(segs)} segments"
rng = random.Random(int(os.environ.get("MCF_JOURNAL_SEED", "25")))


def put(name, blob):
    with open(os.path.join(out, name + ".h5.journal"), "wb") as f:
        f.write(blob)


cuts = sorted({0, 4, 8, 12, 30, len(data) - 1} | {rng.randrange(8, len(data)) for _ in range(14)})
for i, c in enumerate(cuts):
    put(f"cut{i}", data[:c])
for i in range(10):
    b = bytearray(data)
    p = rng.randrange(8, len(b))
    b[p] ^= 0x5A
    put(f"flip{i}", bytes(b))
forged = 0
for i in range(60):
    start, pay, n = segs[rng.randrange(len(segs))]
    b = bytearray(data)
    # the first 200 bytes of a segment hold its label, time, counts and first calls' heads
    p = pay + (rng.randrange(min(n, 200)) if i % 2 == 0 else rng.randrange(n))
    b[p] = rng.choice([0x00, 0xFF, 0x7F, 0x80, b[p] ^ 0x01, b[p] ^ 0x40])
    struct.pack_into("<I", b, start + 16, zlib.crc32(bytes(b[pay:pay + n])) & 0xFFFFFFFF)
    put(f"forged{i}", bytes(b))
    forged += 1
print(f"{len(cuts)} cut, 10 flipped, {forged} forged journals from {len(segs)} segments")
