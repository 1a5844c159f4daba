#!/usr/bin/env python3
"""ISA checks of the HIP kernels, from hipcc's assembly (make hip-asm).

For each gfx target directory given:
  - every MFMA kernel k_mfma<T, ACC> contains the instruction T claims (the
    mnemonic of kernels/hip/mfma_list.h, per CDNA generation, which
    tests/test_mfma_layout checks against AMD's own tables), exactly 2 x ACC of them inside its one loop and 3 x ACC in all,
    and no other v_mfma / v_smfmac; on a generation without the instruction, the kernel
    holds s_trap and no v_mfma (the host never launches it). The 2:4 sparse
    structs (MCF_SMFMAC_LIST) issue their v_smfmac_* on gfx94x and trap on gfx90a;
  - every self-test kernel k_selftest<T> (kernels/hip/selftest.hip) issues
    T's instruction exactly once, and nothing else, or holds s_trap and no
    v_mfma where the generation lacks it;
  - every instruction of the table has its kernels;
  - every VALU kernel's main loop issues only its type's FMA (v_fma_f64,
    v_fma_f32, v_pk_fma_f32 for fp32x2, v_pk_fma_f16), in multiples of 8 chains;
  - no kernel in any file uses scratch: private segment 0, no VGPR or SGPR spills.
Usage: hip_isa.py ASMDIR/gfx90a [ASMDIR/gfx940 ...]
"""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tools"))
import mfma_list  # noqa: E402  (tools/mfma_list.py)

# struct in kernels/hip/mfma_ops.h -> (CDNA2 mnemonic, CDNA3 mnemonic); None: absent there. Read from
# kernels/hip/mfma_list.h, the one list, whose mnemonics tests/test_mfma_layout checks against AMD's
# own tables (tests/data/mfma-layouts)
MNEMONIC = {r["name"]: r["asm"] for r in mfma_list.read()}
SPARSE = {r["name"] for r in mfma_list.read() if r["sparse"]}   # CDNA3's smfmac (MCF_SMFMAC_LIST)
# k_valu<T>: the FMA its chains must issue. Scalar FP32 must stay scalar: the
# compiler would otherwise pair independent chains into v_pk_fma_f32 and the
# fp32 test would measure the packed rate (hipcc runs with -fno-slp-vectorize).
VALU = {"d": ("v_fma_f64",), "f": ("v_fma_f32", "v_fmac_f32"), "Dv2_f": ("v_pk_fma_f32",),
        "7__half2": ("v_pk_fma_f16",)}
VALU_KERNEL = re.compile(r"k_valuI(d|f|Dv2_f|7__half2)E")
FMA = re.compile(r"^\s*(v_\w*fma\w*)")
GENERATION = {"gfx90a": 0, "gfx940": 1, "gfx941": 1, "gfx942": 1}
KERNEL = re.compile(r"^(_Z\w+):\s*(?:;.*)?$")
MFMA_KERNEL = re.compile(r"k_mfmaI\d+(\w+?)Li(\d+)E")
SELFTEST_KERNEL = re.compile(r"k_selftestI\d+(\w+?)E")
LOOP_HEAD = re.compile(r"^(\.LBB\d+_\d+):.*Loop Header")
MFMA = re.compile(r"^\s*(v_(?:mfma|smfmac)_\w+)")   # dense and 2:4 sparse matrix instructions


def kernels(text):
    """(name, body lines) of every kernel in an assembly file"""
    name, body = None, []
    for line in text.splitlines():
        m = KERNEL.match(line)
        if m:
            name, body = m.group(1), []
            continue
        if name:
            body.append(line)
            if re.match(r"^\.Lfunc_end\d+:", line):
                yield name, body
                name = None


def loops(body):
    """the instruction lines of each loop: from its header label to the branch back to it"""
    for i, line in enumerate(body):
        m = LOOP_HEAD.match(line)
        if not m:
            continue
        for j in range(i + 1, len(body)):
            if re.match(r"^\s*s_cbranch_\w+\s+%s\s*$" % re.escape(m.group(1)), body[j]):
                yield body[i + 1:j]
                break


def scratch_problems(text):
    out = []
    for m in re.finditer(r"\.amdhsa_kernel (\S+)(.*?)\.end_amdhsa_kernel", text, re.S):
        size = re.search(r"\.amdhsa_private_segment_fixed_size (\d+)", m.group(2))
        if not size or int(size.group(1)) != 0:
            out.append("%s: private segment %s bytes (scratch)" % (m.group(1), size.group(1) if size else "?"))
    for m in re.finditer(r"\.name:\s+(\S+)(?:(?!\.name:).)*?\.(vgpr|sgpr)_spill_count:\s+(\d+)", text, re.S):
        if int(m.group(3)) != 0:
            out.append("%s: %s %s spills" % (m.group(1), m.group(3), m.group(2).upper()))
    return out


def check_selftest(arch, gen, struct, body):
    """the layout self-test's kernel: one instruction, T's, issued once"""
    if struct not in MNEMONIC:
        return ["%s: k_selftest<%s>: no expected instruction" % (arch, struct)]
    want = MNEMONIC[struct][gen]
    issued = [MFMA.match(l).group(1) for l in body if MFMA.match(l)]
    where = "%s k_selftest<%s>" % (arch, struct)
    if want is None:
        if issued or not any("s_trap" in l for l in body):
            return ["%s: absent on this generation, yet issues %s / has no s_trap" % (where, issued)]
    elif issued != [want]:
        return ["%s: issues %s, expected one %s" % (where, issued, want)]
    return []


def check_target(d):
    arch = os.path.basename(os.path.normpath(d))
    gen = GENERATION[arch]
    problems, seen, seen_valu, seen_selftest, nkernels = [], set(), set(), set(), 0
    for f in sorted(os.listdir(d)):
        if not f.endswith(".s"):
            continue
        text = open(os.path.join(d, f)).read()
        problems += ["%s/%s: %s" % (arch, f, p) for p in scratch_problems(text)]
        nkernels += len(re.findall(r"\.amdhsa_kernel ", text))
        for name, body in kernels(text):
            v = VALU_KERNEL.search(name)
            if v:
                want = VALU[v.group(1)]
                per_loop = [[FMA.match(l).group(1) for l in lp if FMA.match(l)] for lp in loops(body)]
                main = max(per_loop, key=len) if per_loop else []
                if not main or any(x not in want for x in main) or len(main) % 8:
                    problems.append("%s k_valu<%s>: main loop issues %s, expected a multiple of 8 of %s"
                                    % (arch, v.group(1), main, "/".join(want)))
                else:
                    print("%s k_valu<%s>: %d x %s per iteration" % (arch, v.group(1), len(main), main[0]))
                seen_valu.add(v.group(1))
                continue
            st = SELFTEST_KERNEL.search(name)
            if st:
                problems += check_selftest(arch, gen, st.group(1), body)
                seen_selftest.add(st.group(1))
                continue
            m = MFMA_KERNEL.search(name)
            if not m:
                continue
            struct, acc = m.group(1), int(m.group(2))
            if struct not in MNEMONIC:
                problems.append("%s: %s: no expected instruction for %s" % (arch, name, struct))
                continue
            seen.add(struct)
            want = MNEMONIC[struct][gen]
            issued = [MFMA.match(l).group(1) for l in body if MFMA.match(l)]
            where = "%s k_mfma<%s, %d>" % (arch, struct, acc)
            if want is None:
                if issued or not any("s_trap" in l for l in body):
                    problems.append("%s: absent on this generation, yet issues %s / has no s_trap" % (where, issued))
                continue
            if any(x != want for x in issued):
                problems.append("%s: issues %s, expected only %s" % (where, sorted(set(issued)), want))
            if len(issued) != 3 * acc:
                problems.append("%s: %d x %s in all, expected %d" % (where, len(issued), want, 3 * acc))
            lps = list(loops(body))
            per_iter = [sum(1 for l in lp if MFMA.match(l)) for lp in lps]
            if per_iter != [2 * acc]:
                problems.append("%s: %s per loop iteration (one loop per kernel), expected [%d]"
                                % (where, per_iter, 2 * acc))
            else:
                print("%s: %d x %s per iteration" % (where, per_iter[0], want))
    missing = sorted(set(MNEMONIC) - seen) + sorted("k_valu<%s>" % t for t in set(VALU) - seen_valu)
    missing += sorted("k_selftest<%s>" % t for t in set(MNEMONIC) - seen_selftest)
    if missing:
        problems.append("%s: no kernels for %s" % (arch, ", ".join(missing)))
    sparse = sum(1 for s in seen if s in SPARSE and MNEMONIC[s][gen])
    print("%s: %d kernels, %d MFMA instructions checked (%d 2:4 sparse v_smfmac issued), no scratch: %s"
          % (arch, nkernels, len(seen), sparse,
             "yes" if not any("scratch" in p or "spill" in p for p in problems) else "NO"))
    return problems


def main():
    problems = []
    for d in sys.argv[1:]:
        problems += check_target(d)
    for p in problems:
        print("FAIL:", p)
    sys.exit(1 if problems or len(sys.argv) < 2 else 0)


if __name__ == "__main__":
    main()
