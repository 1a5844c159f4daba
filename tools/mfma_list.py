"""The MFMA instruction list of kernels/hip/mfma_list.h, read by the Python
tools and tests that need it (tools/mfma_layout_tables.py, tests/hip_isa.py),
so that the one list in the tree serves C, HIP and Python alike."""
import os
import re

# one X(...) row of MCF_MFMA_LIST, its continuation lines joined
ROW = re.compile(r"\bX\((mfma_\w+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*\w+,\s*\w+,\s*\w+,"
                 r"\s*([01]),\s*([01]),\s*__builtin_amdgcn_(\w+),\s*\"(\w*)\",\s*\"(\w*)\",\s*(\w+),\s*(\w+),"
                 r"\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+)\)")
# one X(...) row of MCF_SMFMAC_LIST (CDNA3's 2:4 sparse instructions; K the logical k)
SPARSE_ROW = re.compile(r"\bX\((smfmac_\w+),\s*(\d+),\s*(\d+),\s*(\d+),\s*(\d+),\s*\w+,\s*\w+,\s*\w+,\s*\w+,"
                        r"\s*__builtin_amdgcn_(\w+),\s*\"(\w+)\",\s*(\w+),\s*(\w+),\s*(\d+),\s*(\d+)\)")


def path(srcdir=None):
    return os.path.join(srcdir or os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."),
                        "kernels", "hip", "mfma_list.h")


def read(srcdir=None):
    """[{name, shape (M, N, K, BLK), bits, c2, c3, builtin, asm (CDNA2, CDNA3: None where absent),
    types (A, B), cycles (CDNA2, CDNA3), ops (CDNA2, CDNA3), sparse}] in the lists' order (the
    dense MCF_MFMA_LIST, then MCF_SMFMAC_LIST, whose K is the logical k); ValueError where a row
    cannot be read"""
    p = path(srcdir)
    with open(p) as f:
        raw = f.read()
    text = raw.replace("\\\n", " ")
    rows = [{"name": m.group(1), "shape": tuple(int(m.group(g)) for g in range(2, 6)), "bits": int(m.group(6)),
             "c2": m.group(7) == "1", "c3": m.group(8) == "1", "builtin": m.group(9),
             "asm": (m.group(10) or None, m.group(11) or None), "types": (m.group(12), m.group(13)),
             "cycles": (int(m.group(14)), int(m.group(16))), "ops": (int(m.group(15)), int(m.group(17))),
             "sparse": False}
            for m in ROW.finditer(text)]
    sparse = [{"name": m.group(1), "shape": tuple(int(m.group(g)) for g in range(2, 5)) + (1,),
               "bits": int(m.group(5)), "c2": False, "c3": True, "builtin": m.group(6), "asm": (None, m.group(7)),
               "types": (m.group(8), m.group(9)), "cycles": (0, int(m.group(10))), "ops": (0, int(m.group(11))),
               "sparse": True}
              for m in SPARSE_ROW.finditer(text)]
    listed = len(re.findall(r"^\s*X\(mfma_", raw, re.M))
    listed_sparse = len(re.findall(r"^\s*X\(smfmac_", raw, re.M))
    if not rows or len(rows) != listed or len(sparse) != listed_sparse:
        raise ValueError("%s: read %d of its %d dense and %d of its %d sparse X(...) rows"
                         % (p, len(rows), listed, len(sparse), listed_sparse))
    return rows + sparse
