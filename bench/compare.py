#!/usr/bin/env python3
"""Prints mcfleet's figures (a results file) beside the torch references
(bench/torch_reference.py's JSON lines) and the issue's targets."""
import json
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from mcfleet_results import status_codes_of, status_name, text  # noqa: E402  (the one reader)


def med(f, test, metric):
    if test not in f["results"] or metric not in f["results"][test]:
        return float("nan")
    return float(np.nanmedian(f["results"][test][metric][0, :]))


def spread(f, test, metric):
    if test not in f["results"] or metric not in f["results"][test]:
        return ""
    v = f["results"][test][metric][0, :]
    return "%.4g-%.4g" % (np.nanmin(v), np.nanmax(v))


def main():
    f = h5py.File(sys.argv[1], "r")
    ref = {}
    for line in open(sys.argv[2]):
        o = json.loads(line)
        if "name" in o:
            ref[o["name"]] = o
    best = lambda *tests: max((med(f, t, "gflops") for t in tests), key=lambda v: -1 if v != v else v)
    bf16 = best("wgmma-bf16:occupancy=1", "wgmma-bf16:occupancy=2") / 1e3
    fp16 = best("wgmma-fp16:occupancy=1", "wgmma-fp16:occupancy=2") / 1e3
    tf32 = med(f, "wgmma-tf32", "gflops") / 1e3
    fp8 = med(f, "wgmma-fp8", "gflops") / 1e3
    fp64 = med(f, "mma-fp64", "gflops") / 1e3
    triad = med(f, "hbm-triad", "bandwidth_gbs")
    r = lambda k: ref.get(k, {}).get("value", float("nan"))
    rows = [
        ("wgmma bf16 TFLOP/s", bf16, "cuBLAS bf16", r("cublas-bf16"), bf16 / r("cublas-bf16"), ">= 1.15x cuBLAS"),
        ("wgmma fp16 TFLOP/s", fp16, "cuBLAS fp16", r("cublas-fp16"), fp16 / r("cublas-fp16"), ">= 1.15x cuBLAS"),
        ("wgmma fp8 TFLOP/s", fp8, "wgmma fp16", fp16, fp8 / fp16, ">= 1.9x fp16"),
        ("wgmma tf32 TFLOP/s", tf32, "wgmma fp16 / 2", fp16 / 2, tf32 / (fp16 / 2), ">= 0.95"),
        ("mma fp64 TFLOP/s", fp64, "cuBLAS fp64", r("cublas-fp64"), fp64 / r("cublas-fp64"), ">= 1.0x cuBLAS"),
        ("HBM triad GB/s", triad, "torch copy", r("torch-copy"), triad / r("torch-copy"), ">= 1.0x copy"),
    ]
    print("%-22s %10s   %-16s %10s %8s   %s" % ("mcfleet", "value", "reference", "value", "ratio", "target"))
    for row in rows:
        print("%-22s %10.4g   %-16s %10.4g %8.3f   %s" % row)
    print("\nall figures: per-test medians over 10 repetitions (rank 0), with min-max")
    codes = status_codes_of(f)
    for name in f["results"]:
        g = f["results"][name]
        for m in [m for m in text(g.attrs["summary_metrics"]).split(",") if m]:
            print("  %-34s %-18s %12.5g  (%s)" % (name, m, med(f, name, m), spread(f, name, m)))
        st = int(g["status"][0])
        if codes.get(st) != "verified":
            print("  %-34s %s: %s" % (name, status_name(codes, st), text(g["message"][0])))
    print("\nreferences:")
    for k, o in ref.items():
        print("  %-14s %10.4g %s  (median of 20; min-max time %.4g-%.4g s)" % (k, o["value"], o["unit"], o["min_s"], o["max_s"]))


main()
