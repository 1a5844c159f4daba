#!/usr/bin/env python3
"""Copies a CUDA-13 cubin, rewriting the ELF e_flags architecture field to the
encoding of CUDA <= 12 (EF_CUDA_SM | texmode | 64-bit address | virtual SM),
so older disassemblers read it. The code itself is not touched.
usage: cubin-oldflags.py IN OUT"""
import struct
import sys

data = bytearray(open(sys.argv[1], "rb").read())
if data[:4] != b"\x7fELF" or data[4] != 2:
    sys.exit("cubin-oldflags: %s is not a 64-bit ELF" % sys.argv[1])
flags = struct.unpack_from("<I", data, 0x30)[0]
sm = (flags >> 8) & 0xFF          # CUDA 13: the SM number in bits 8-15
if sm < 0x30:                     # already the old encoding (SM in bits 0-7)
    sm = flags & 0xFF
struct.pack_into("<I", data, 0x30, (sm << 16) | 0x500 | sm)
open(sys.argv[2], "wb").write(data)
