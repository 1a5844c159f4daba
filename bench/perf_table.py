#!/usr/bin/env python3
"""Markdown tables for docs/performance.md, straight from a bench results file
and the torch references of the same run, so no figure is transcribed by hand.
usage: perf_table.py BENCH.h5 TORCH.jsonl"""
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from mcfleet_results import text as s  # noqa: E402  (the one reader's decode helper)

f = h5py.File(sys.argv[1], "r")
ref = {o["name"]: o for o in map(json.loads, open(sys.argv[2])) if "name" in o}


def stat(test, metric):
    v = f["results"][test][metric][0, :]
    return np.median(v), v.min(), v.max()


def row(label, test, scale=1e-3, unit="TFLOP/s"):
    m, lo, hi = stat(test, "gflops")
    pf = stat(test, "peak_fraction")[0] if "peak_fraction" in f["results"][test] else float("nan")
    clk = stat(test, "clock_mhz")[0] if "clock_mhz" in f["results"][test] else float("nan")
    return m * scale, lo * scale, hi * scale, pf, clk


print("| kernel | median | min-max | of peak at measured clock | clock (MHz) |")
print("| --- | --- | --- | --- | --- |")
for label, test in [
    ("wgmma bf16 m64n256k16 SS, 1 warpgroup/SM", "wgmma-bf16:occupancy=1"),
    ("wgmma bf16 m64n256k16 SS, 2 warpgroups/SM", "wgmma-bf16:occupancy=2"),
    ("wgmma fp16 m64n256k16 SS, 1 warpgroup/SM", "wgmma-fp16:occupancy=1"),
    ("wgmma fp16 m64n256k16 SS, 2 warpgroups/SM", "wgmma-fp16:occupancy=2"),
    ("wgmma bf16 m64n256k16 RS (A in registers)", "wgmma-bf16-rs"),
    ("wgmma tf32 m64n256k8", "wgmma-tf32"),
    ("wgmma fp8 e4m3 m64n256k32", "wgmma-fp8"),
    ("wgmma fp8 e5m2 m64n256k32", "wgmma-fp8-e5m2"),
    ("wgmma int8 m64n256k32 (TOP/s)", "wgmma-int8"),
    ("wgmma bf16 m64n8k16", "wgmma-bf16-n8"),
    ("wgmma bf16 m64n32k16", "wgmma-bf16-n32"),
    ("wgmma bf16 m64n64k16", "wgmma-bf16-n64"),
    ("wgmma bf16 m64n128k16", "wgmma-bf16-n128"),
    ("mma.sync fp64 m16n8k16 (DMMA)", "mma-fp64"),
    ("mma.sync fp64 m16n8k8", "mma-fp64-k8"),
    ("mma.sync fp64 m16n8k4", "mma-fp64-k4"),
    ("mma.sync fp64 m8n8k4", "mma-fp64-8x8x4"),
    ("mma.sync tf32 m16n8k8", "mma-tf32"),
    ("mma.sync fp16 m16n8k16", "mma-fp16"),
    ("mma.sync fp16 m16n8k16, fp16 accumulate", "mma-fp16-acc16"),
    ("mma.sync bf16 m16n8k16", "mma-bf16"),
    ("mma.sync fp8 e4m3 m16n8k32", "mma-fp8"),
    ("mma.sync int8 m16n8k32 (TOP/s)", "mma-int8"),
    ("VALU fp32 FMA", "valu-fp32"),
    ("VALU fp64 FMA", "valu-fp64"),
    ("VALU fp16x2 FMA", "valu-fp16x2"),
]:
    if test not in f["results"]:
        continue
    m, lo, hi, pf, clk = row(label, test)
    print("| %s | %.4g | %.4g-%.4g | %s | %.0f |" % (label, m, lo, hi, "%.2f%%" % (100 * pf) if pf == pf else "-", clk))

print("\n| memory kernel | median (GB/s) | min-max |")
print("| --- | --- | --- |")
for test in ["hbm-read", "hbm-copy", "hbm-triad", "hbm-triad-fp32", "hbm-triad-gridstride", "l2-read", "l1-read", "lds-read"]:
    if test in f["results"]:
        m, lo, hi = stat(test, "bandwidth_gbs")
        print("| %s (%s) | %.1f | %.1f-%.1f |" % (test, s(f["results"][test].attrs["label"]), m, lo, hi))

print("\n| intensity sweep (FMAs per element) | GFLOP/s | GB/s |")
print("| --- | --- | --- |")
for test in f["results"]:
    g = f["results"][test]
    if s(g.attrs["kernel"]) == "memory" and s(g.attrs.get("op", "")) == "fma":
        print("| %s %s | %.5g | %.5g |" % (int(g.attrs["intensity"]), s(g.attrs["dtype"]), stat(test, "gflops")[0],
                                          stat(test, "bandwidth_gbs")[0]))

print("\n| latency | median (ns) | cycles |")
print("| --- | --- | --- |")
for test in f["results"]:
    g = f["results"][test]
    if "latency_ns" in g:
        cyc = stat(test, "latency_cycles")[0] if "latency_cycles" in g else float("nan")
        print("| %s | %.4g | %s |" % (test, stat(test, "latency_ns")[0], "%.1f" % cyc if cyc == cyc else "-"))

print("\n| torch reference, same run | median | min-max time (s) |")
print("| --- | --- | --- |")
for k, o in ref.items():
    print("| %s | %.4g %s | %.4g-%.4g |" % (k, o["value"], o["unit"], o["min_s"], o["max_s"]))
