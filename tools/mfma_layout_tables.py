#!/usr/bin/env python3
"""Write tests/data/mfma-layouts/{cdna2,cdna3}.txt: AMD's register layouts of
every MFMA instruction in kernels/hip/mfma_list.h, as printed by AMD's Matrix
Instruction Calculator (github.com/ROCm/amd_matrix_instruction_calculator).

The calculator is run from a checkout given on the command line, never copied
here; only what it prints (the layouts) is written. It needs the `tabulate`
Python module (Debian: python3-tabulate); put it on PYTHONPATH if missing.

    tools/mfma_layout_tables.py CALCULATOR_CHECKOUT [SRCDIR]

Output format (read by tests/test_mfma_layout.c), one instruction at a time:
    inst NAME CALC_NAME M N K BLK A_BITS B_BITS D_BITS [sparse]
    stats CYCLES OPS_PER_CU_CYCLE          its execution cycles and dense ops per CU per cycle (-d)
    A BLOCK I  cell(k=0) cell(k=1) ...     one line per row i of A
    B BLOCK K  cell(j=0) cell(j=1) ...     one line per row k of B
    D BLOCK I  cell(j=0) cell(j=1) ...     one line per row i of D
    K BLOCK I  cell(k=0) cell(k=1) ...     sparse only: the compression index (-k), per row i of A
    end
where a cell LANE:REG:LO says the element sits in lane LANE, VGPR REG (the
lowest of a pair for 64-bit elements) counted from the operand's first, bits
LO .. LO + bits - 1. Shapes and widths are what the calculator printed.

The 2:4 sparse instructions (smfmac, CDNA3; marked "sparse"): K is the
logical k, as the calculator prints A over it; A's cell for A[i][k] is the
bits that hold the kept pair of k's chunk of 4 (2 x A_BITS wide: A_BITS is
half what the calculator's cell spans), and K's cell the 4 index bits of that
chunk (i0 in the low 2, i1 in the high 2) in the index VGPR (src2).
"""
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mfma_list  # noqa: E402

ARCHS = (("cdna2", "CDNA2", "gfx90a"), ("cdna3", "CDNA3", "gfx940/gfx941/gfx942"))
# v3{17}.[15:0]  or  v[1:0]{5}  or  v2{0}
CELL = re.compile(r"^v(?:(\d+)|\[(\d+):(\d+)\])\{(\d+)\}(?:\.\[(\d+):(\d+)\])?$")


def die(msg):
    sys.exit("mfma_layout_tables: " + msg)


def parse_ops(srcdir):
    try:
        return mfma_list.read(srcdir)
    except (OSError, ValueError) as e:
        die(str(e))


def calc(calculator, args):
    cmd = [sys.executable, os.path.join(calculator, "matrix_calculator.py")] + args
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        die("%s failed: %s" % (" ".join(cmd), r.stderr.strip()))
    return r.stdout


def norm(name):
    """v_mfma_f32_32x32x1_2b_f32 and mfma_f32_32x32x1f32 alike: CDNA3 renamed
    the instructions (block count, underscores, bf16's _1k dropped)."""
    name = re.sub(r"_\d+b(?=_)", "", name.lower())
    return re.sub(r"_1k$", "", name).replace("v_", "", 1).replace("_", "")


def calc_name(op, listed, arch):
    exact = "v_" + op["builtin"]
    if exact in listed:
        return exact
    hits = [n for n in listed if norm(n) == norm(op["builtin"])]
    if len(hits) != 1:
        die("%s: no single %s instruction for %s (candidates %s)" % (op["name"], arch, op["builtin"], hits))
    return hits[0]


def layout(calculator, arch, inst, matrix):
    """{block: [(row, [(lane, reg, lo, bits), ...]), ...]} from the CSV."""
    blocks, block = {}, None
    for line in calc(calculator, ["-a", arch, "-i", inst, "-R", "-" + matrix, "--csv"]).splitlines():
        if line.startswith("Block "):
            block = blocks.setdefault(int(line.split()[1]), [])
        elif block is not None and line and line[0].isdigit():
            fields = line.split(",")
            cells = []
            for c in fields[1:]:
                m = CELL.match(c)
                if not m:
                    die("%s %s %s: unexpected cell %r" % (arch, inst, matrix, c))
                if m.group(1) is not None:
                    reg, bits = int(m.group(1)), 32
                else:
                    hi, lo = int(m.group(2)), int(m.group(3))
                    reg, bits = lo, 32 * (hi - lo + 1)
                lo_bit = 0
                if m.group(5) is not None:
                    lo_bit, bits = int(m.group(6)), int(m.group(5)) - int(m.group(6)) + 1
                cells.append((int(m.group(4)), reg, lo_bit, bits))
            block.append((int(fields[0]), cells))
    if not blocks:
        die("%s %s %s: no layout printed" % (arch, inst, matrix))
    return blocks


def stats(calculator, arch, inst):
    """(execution cycles, ops per CU per cycle) from --detail-instruction"""
    text = calc(calculator, ["-a", arch, "-i", inst, "-d"])
    got = [re.search(r"^\s*%s:\s*(\d+)\s*$" % key, text, re.M) for key in ("Execution cycles", "(?:FLOPs|Ops)/CU/cycle")]
    if not all(got):
        die("%s %s: no execution cycles or ops/CU/cycle in -d's output" % (arch, inst))
    return tuple(int(m.group(1)) for m in got)


def emit(out, arch, op, inst, tables, st):
    shape = {}
    for mat, blocks in tables.items():
        widths = {c[3] for rows in blocks.values() for _, cells in rows for c in cells}
        if len(widths) != 1:
            die("%s %s: mixed element widths %s" % (inst, mat, widths))
        shape[mat] = (len(blocks), len(blocks[0]), len(blocks[0][0][1]), widths.pop())
    (blk, m, k, abits), (_, _, n, bbits), (_, _, _, dbits) = shape["A"], shape["B"], shape["D"]
    sparse = "K" in tables
    if sparse:
        if shape["K"][3] != 4:
            die("%s: compression index cells of %d bits, expected 4" % (inst, shape["K"][3]))
        abits //= 2   # a cell holds a chunk's kept pair
    out.write("# python3 matrix_calculator.py -a %s -i %s -R -A --csv (and -B, -D%s; -d for stats)\n"
              % (arch, inst, ", -k" if sparse else ""))
    out.write("inst %s %s %d %d %d %d %d %d %d%s\n" % (op["name"], inst, m, n, k, blk, abits, bbits, dbits,
                                                    " sparse" if sparse else ""))
    out.write("stats %d %d\n" % st)
    for mat in ("A", "B", "D", "K") if sparse else ("A", "B", "D"):
        for b in sorted(tables[mat]):
            for row, cells in tables[mat][b]:
                out.write("%s %d %d %s\n" % (mat, b, row, " ".join("%d:%d:%d" % c[:3] for c in cells)))
    out.write("end\n")


def main():
    if len(sys.argv) not in (2, 3):
        die("usage: mfma_layout_tables.py CALCULATOR_CHECKOUT [SRCDIR]")
    calculator = os.path.abspath(sys.argv[1])
    srcdir = sys.argv[2] if len(sys.argv) == 3 else os.path.join(os.path.dirname(__file__), "..")
    commit = subprocess.run(["git", "-C", calculator, "rev-parse", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or os.environ.get("CALC_COMMIT", "unknown")
    ops = parse_ops(srcdir)
    outdir = os.path.join(srcdir, "tests/data/mfma-layouts")
    os.makedirs(outdir, exist_ok=True)
    for fname, arch, targets in ARCHS:
        listed = set(calc(calculator, ["-a", arch, "-L"]).split())
        path = os.path.join(outdir, fname + ".txt")
        with open(path, "w") as out:
            out.write("# MFMA register layouts on %s (%s), from AMD's Matrix Instruction Calculator\n" % (arch, targets))
            out.write("# repository: https://github.com/ROCm/amd_matrix_instruction_calculator\n")
            out.write("# commit: %s\n" % commit)
            out.write("# written by: tools/mfma_layout_tables.py CALCULATOR_CHECKOUT, which runs in that\n")
            out.write("#   checkout the command line above each instruction (with tabulate 0.8.9)\n")
            out.write("# format: see tools/mfma_layout_tables.py; cells are LANE:VGPR:LOW_BIT\n")
            count = 0
            for op in ops:
                if not op["c3" if arch == "CDNA3" else "c2"]:
                    continue
                inst = calc_name(op, listed, arch)
                mats = ("A", "B", "D", "k") if op["sparse"] else ("A", "B", "D")
                tables = {mat.upper(): layout(calculator, arch, inst, mat) for mat in mats}
                emit(out, arch, op, inst, tables, stats(calculator, arch, inst))
                count += 1
        print("%s: %d instructions" % (path, count))


if __name__ == "__main__":
    main()
