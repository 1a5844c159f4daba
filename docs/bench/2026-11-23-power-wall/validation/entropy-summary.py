#!/usr/bin/env python3
"""One line per test of an entropy-check results file: inputs, verification
status (and the message when it failed), median TFLOP/s, in-kernel clock and
the test's average power where the sampler recorded it.
    entropy-summary.py FILE.h5"""
import sys
import numpy as np
import h5py

s = lambda x: x.decode(errors="replace") if isinstance(x, bytes) else str(x)


def med(g, k, scale=1.0):
    if k not in g:
        return "-"
    v = np.asarray(g[k][0], dtype=float).ravel()   # rank 0
    v = v[np.isfinite(v)]
    return "%.4g" % (np.median(v) * scale) if v.size else "nan"


with h5py.File(sys.argv[1], "r") as f:
    print("%-24s %-7s %-6s %9s %8s %8s  %s" % ("test", "inputs", "status", "TFLOP/s", "MHz", "W", "message"))
    for name in f["results"]:
        g = f["results"][name]
        st = int(g["status"][0]) if "status" in g else None
        msg = s(g["message"][0]).strip() if "message" in g else ""
        print("%-24s %-7s %-6s %9s %8s %8s  %s" % (
            name, s(g.attrs.get("inputs", "?")), st, med(g, "gflops", 1e-3), med(g, "clock_mhz"),
            med(g, "avg_power_w") if "avg_power_w" in g else med(g, "test_avg_power_w"), msg[:300]))
