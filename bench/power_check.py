#!/usr/bin/env python3
"""The power figures issue 4 asks for, from a results file of
bench/power-bench.yaml: per source status and update cadence; for the long
test, the energy counter's average power against the time-weighted mean of
the readings; the power model per type.
usage: power_check.py FILE [FILE_WITH_POWER_OFF]"""
import os
import sys

import h5py
import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from mcfleet_results import text as s  # noqa: E402  (the one reader's decode helper)
f = h5py.File(sys.argv[1], "r")
for name, g in f["power"].items():
    st = s(g["status"][0])
    cad = g["cadence_s"][0]
    print("source %-7s %-60s cadence %.4f s, %d samples, idle %.1f W" % (name, st[:60], cad, g["count"][0], g["idle_power_w"][0]))
if "long-bf16" in f["results"]:
    g = f["results/long-bf16"]
    span = g["rep_end_s"][0, -1] - g["rep_start_s"][0, 0]
    a, m = g["test_avg_power_w"][0], g["test_mean_power_w"][0]
    print("long-bf16: %.1f s, energy counter %.1f W, time-weighted readings %.1f W, difference %.2f%%, "
          "%.0f TFLOP/s, %.1f GFLOP/s/W" % (span, a, m, 100 * (a - m) / m, np.median(g["gflops"][0]) / 1e3,
                                             np.median(g["gflops_per_w"][0])))
    print("  per repetition: energy-based %s W, readings %s W, under-sampled %s" % (
        np.round(g["avg_power_w"][0, :5], 1), np.round(g["mean_power_w"][0, :5], 1), g["power_under_sampled"][0, :5]))
for d, g in f.get("power_model", {}).items():
    print("power model %s: P = %.3f W per TFLOP/s x + %.1f W, R^2 = %.4f over %d levels" % (
        d, g["slope"][0], g["intercept"][0], g["r2"][0], g["points"][0]))
    for name, t in f["results"].items():
        if s(t.attrs["kernel"]) == "matrix" and s(t.attrs.get("dtype", "")) == d and "test_avg_power_w" in t and s(t.attrs["mode"]) == "throughput":
            print("   %-28s %8.1f TFLOP/s %7.1f W" % (name, np.median(t["gflops"][0]) / 1e3, t["test_avg_power_w"][0]))
if len(sys.argv) > 2:
    off = h5py.File(sys.argv[2], "r")
    for name in f["results"]:
        if name in off["results"] and "gflops" in f["results"][name]:
            on_v, off_v = np.median(f["results"][name]["gflops"][0]), np.median(off["results"][name]["gflops"][0])
            print("sampler cost %-26s on %.1f / off %.1f TFLOP/s: %+.3f%%" % (name, on_v / 1e3, off_v / 1e3, 100 * (on_v - off_v) / off_v))
