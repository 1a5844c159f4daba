#!/usr/bin/env python3
"""Summaries of an mcfleet results file for the 2026-11-23 GPU re-check.
h5sum.py FILE            meta, tests not run, per-test status, /hung
h5sum.py --bench FILE    every test's median (min-max) and the headline figures"""
import sys
import numpy as np
import h5py

s = lambda x: x.decode(errors="replace") if isinstance(x, bytes) else str(x)

def meta(f):
    m = f["meta"].attrs
    for k in ("backend", "start_time", "end_time", "complete", "nranks", "world_size", "nhung", "hung_ranks",
              "tests_not_run", "hdf5_write_mode", "mpi_library", "hdf5_version"):
        if k in m:
            v = m[k]
            print(f"meta.{k} = {s(v).strip()[:200]}")
    if "tests_not_run_list" in f["meta"]:
        print("meta/tests_not_run_list =", [s(x) for x in f["meta/tests_not_run_list"][:]])
    if "ranks" in f:
        r = f["ranks"]
        for k in ("world_rank", "hostname", "device_name", "device_uuid", "pci_bus_id", "driver"):
            if k in r:
                print(f"ranks/{k} =", [s(x) for x in r[k][:]])

def summary_metric(g):
    sm = s(g.attrs.get("summary_metrics", "")).split(",")
    for k in sm + ["gflops", "bandwidth_gbs", "latency_ns", "speedup"]:
        if k and k in g:
            return k
    return None

def tests(f):
    for name in f["results"]:
        g = f["results"][name]
        st = list(g["status"][:]) if "status" in g else None
        msg = [s(x) for x in g["message"][:]] if "message" in g else []
        k = summary_metric(g)
        extra = ""
        if k:
            d = g[k][:]
            n = [int(np.sum(np.isfinite(row))) for row in d]
            med = [float(np.nanmedian(row)) if np.any(np.isfinite(row)) else float("nan") for row in d]
            extra = f" {k}: finite reps per rank {n}, medians {[round(x, 4) for x in med]}"
        print(f"test {name}: status {st}{extra}" + (f" messages {msg}" if any(msg) else ""))
    if "hung" in f:
        h = f["hung"]
        print("/hung:")
        for k in h:
            print(f"  {k} = {[s(x) for x in h[k][:]]}")

def bench(f):
    rows = {}
    for name in f["results"]:
        g = f["results"][name]
        st = list(g["status"][:])
        k = summary_metric(g)
        if k is None:
            print(f"{name:40s} status {st} (no metric)")
            continue
        d = g[k][0]
        med, lo, hi = np.nanmedian(d), np.nanmin(d), np.nanmax(d)
        clk = float(np.nanmedian(g["clock_mhz"][0])) if "clock_mhz" in g else float("nan")
        rows[name] = (k, med, lo, hi)
        print(f"{name:40s} status {st} {k} median {med:.6g} min {lo:.6g} max {hi:.6g} clock {clk:.0f} MHz")
    ver = sum(1 for n in f["results"] if list(f["results"][n]["status"][:]) == [1])
    print(f"verified: {ver} of {len(f['results'])}")
    print("headline (TFLOP/s or GB/s):")
    for n in ("mma-fp64", "mma-fp16", "mma-fp8", "wgmma-bf16:occupancy=1", "wgmma-bf16:occupancy=2", "hbm-triad"):
        if n in rows:
            k, med, lo, hi = rows[n]
            sc = 1e-3 if k == "gflops" else 1.0
            print(f"  {n:28s} {med*sc:.5g} ({lo*sc:.5g}-{hi*sc:.5g})")

if __name__ == "__main__":
    if sys.argv[1] == "--bench":
        with h5py.File(sys.argv[2], "r") as f:
            bench(f)
    else:
        with h5py.File(sys.argv[1], "r") as f:
            meta(f)
            tests(f)
