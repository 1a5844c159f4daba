#!/usr/bin/env python3
"""Checks SASS (from cuobjdump --dump-sass or nvdisasm) of mcfleet's matrix
kernels: each contains the instruction it claims, and no kernel at all uses
local memory (LDL/STL: spills or stack arrays).

usage: sass_check.py [--old-nvdisasm] DUMP   (lines 'arch = sm_XX' separate the images)
--old-nvdisasm: the dump is from CUDA 11.8's nvdisasm, which silently drops
instructions newer than itself (the FP8 QGMMA of sm_90a, the FP8 MMA of
sm_89), leaving gaps in the addresses. A claim not found in a function with
such gaps is reported SKIPPED, not passed; without gaps it fails. cuobjdump
on a GPU machine checks those claims."""
import re
import sys

# mangled-name pattern -> (what, instruction regex); dtype numbers are enum mcf_dtype
CLAIMS = [
    (r"k_mmaI7mma_f64", "mma.sync fp64", r"\bDMMA\b"),
    (r"k_mmaI12mma_f64_16x8ILi4E", "mma.sync fp64 m16n8k4", r"\bDMMA\b"),
    (r"k_mmaI12mma_f64_16x8ILi8E", "mma.sync fp64 m16n8k8", r"\bDMMA\b"),
    (r"k_mmaI12mma_f64_16x8ILi16E", "mma.sync fp64 m16n8k16", r"\bDMMA\b"),
    (r"k_mmaI8mma_tf32", "mma.sync tf32", r"\bHMMA\b"),
    (r"k_mmaI7mma_f16L", "mma.sync fp16", r"\bHMMA\b"),
    (r"k_mmaI8mma_bf16", "mma.sync bf16", r"\bHMMA\b"),
    (r"k_mmaI13mma_f16_acc16", "mma.sync fp16 acc16", r"\bHMMA\b"),
    (r"k_mmaI8mma_e4m3", "mma.sync fp8 e4m3", r"\b(QMMA|HMMA)\b"),
    (r"k_mmaI8mma_e5m2", "mma.sync fp8 e5m2", r"\b(QMMA|HMMA)\b"),
    (r"k_mmaI6mma_s8", "mma.sync int8", r"\bIMMA\b"),
    (r"k_wgmmaILi2E", "wgmma tf32", r"\bHGMMA\b"),
    (r"k_wgmmaILi3E", "wgmma fp16", r"\bHGMMA\b"),
    (r"k_wgmmaILi5E", "wgmma bf16", r"\bHGMMA\b"),
    (r"k_wgmmaILi6E", "wgmma fp8 e4m3", r"\bQGMMA\b"),
    (r"k_wgmmaILi7E", "wgmma fp8 e5m2", r"\bQGMMA\b"),
    (r"k_wgmmaILi8E", "wgmma int8", r"\bIGMMA\b"),
    # 2:4 sparse (matrix_sp.cu, wgmma.cu); sm_90 widens FP8 mma.sp to fp16 HMMA.SP and
    # runs it with one accumulator (the 4-accumulator FP8 kernel is a trap there)
    (r"k_mma_spI10mma_sp_f16", "mma.sp fp16", r"\bHMMA\.SP\b"),
    (r"k_mma_spI11mma_sp_bf16", "mma.sp bf16", r"\bHMMA\.SP\b"),
    (r"k_mma_spI9mma_sp_s8", "mma.sp int8", r"\bIMMA\.SP\b"),
    (r"k_mma_spI11mma_sp_e4m3Li1E", "mma.sp fp8 e4m3", r"\b(QMMA|HMMA)\.SP\b"),
    (r"k_mma_spI11mma_sp_e5m2Li1E", "mma.sp fp8 e5m2", r"\b(QMMA|HMMA)\.SP\b"),
    (r"k_wgmma_spILi3E", "sparse wgmma fp16", r"\bHGMMA\.SP\b"),
    (r"k_wgmma_spILi5E", "sparse wgmma bf16", r"\bHGMMA\.SP\b"),
    (r"k_wgmma_spILi6E", "sparse wgmma fp8 e4m3", r"\bQGMMA\.SP\b"),
    (r"k_wgmma_spILi7E", "sparse wgmma fp8 e5m2", r"\bQGMMA\.SP\b"),
    (r"k_wgmma_spILi8E", "sparse wgmma int8", r"\bIGMMA\.SP\b"),
    # FP8 pairs, A's format x B's (wgmma.cu's WG_E4M3_E5M2, WG_E5M2_E4M3: MCF_DTYPE_COUNT + 1, + 2)
    (r"k_wgmmaILi12E", "wgmma fp8 e4m3 x e5m2", r"\bQGMMA\b"),
    (r"k_wgmmaILi13E", "wgmma fp8 e5m2 x e4m3", r"\bQGMMA\b"),
    (r"k_wgmma_spILi12E", "sparse wgmma fp8 e4m3 x e5m2", r"\bQGMMA\.SP\b"),
    (r"k_wgmma_spILi13E", "sparse wgmma fp8 e5m2 x e4m3", r"\bQGMMA\.SP\b"),
]


def functions(text):
    """Yields (arch, name, body) for every function in the dump."""
    arch, name, body = "?", None, []
    for line in text.splitlines():
        m = re.search(r"arch = (sm_\w+)", line)
        f = re.search(r"Function : (\S+)", line) or re.match(r"\s*\.text\.(\S+):", line)
        if m or f:
            if name:
                yield arch, name, "\n".join(body)
            name, body = None, []
            if m:
                arch = m.group(1)
            if f:
                name = f.group(1)
            continue
        if name:
            body.append(line)
    if name:
        yield arch, name, "\n".join(body)


def has_gaps(body):
    """Instructions are 16 bytes apart; a larger step means one was dropped."""
    addrs = [int(a, 16) for a in re.findall(r"/\*([0-9a-f]{4,})\*/\s+\S", body)]
    return any(b - a > 16 for a, b in zip(addrs, addrs[1:]))


def main():
    old = sys.argv[1] == "--old-nvdisasm"
    text = open(sys.argv[-1]).read()
    fails, checked, seen, skipped = [], 0, set(), set()
    for arch, name, body in functions(text):
        if re.search(r"\b(LDL|STL)\b", body):
            fails.append("%s %s uses local memory (LDL/STL)" % (arch, name))
        for pat, what, ins in CLAIMS:
            if not re.search(pat, name):
                continue
            # the fp8 kernels are a trap below sm_89, by design
            if ("fp8" in what and arch == "sm_80") or ("m16n8k" in what and arch in ("sm_80", "sm_89")):
                continue   # traps below sm_89 (fp8) and sm_90 (fp64 m16n8kK), by design
            if not re.search(ins, body) and old and has_gaps(body):
                skipped.add("%s in %s" % (what, arch))
                continue
            checked += 1
            seen.add((what, arch))
            if not re.search(ins, body):
                found = sorted(set(re.findall(r"\b[A-Z]*MMA[\w.]*", body)))
                fails.append("%s %s (%s): no %s; matrix instructions found: %s" % (arch, what, name[:60], ins, found or "none"))
    for what in sorted(set(w for w, _ in seen)):
        archs = sorted(a for w, a in seen if w == what)
        print("  %-22s checked in %s" % (what, ", ".join(archs)))
    for what in sorted(skipped):
        print("  %-30s SKIPPED: nvdisasm 11.8 dropped instructions it cannot decode" % what)
    wanted = set(w for _, w, _ in CLAIMS) - set(w.split(" in ")[0] for w in skipped)
    missing = wanted - set(w for w, _ in seen)
    if missing:
        fails.append("no kernel found for: " + ", ".join(sorted(missing)))
    for f in fails:
        print("FAIL: " + f)
    print("%d kernel images checked, %d failures" % (checked, len(fails)))
    sys.exit(1 if fails else 0)


main()
