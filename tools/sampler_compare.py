#!/usr/bin/env python3
"""mcfleet's power and energy beside an independent sampler's, for the same windows.

  nvidia-smi --query-gpu=timestamp,power.draw.instant,power.draw.average,clocks.sm,temperature.gpu,\\
      clocks_event_reasons.active,enforced.power.limit --format=csv,noheader,nounits -lms 100 > smi.csv &
  mcfleet --deck input/power-wall.yaml -o run.h5; python3 tools/torch_gemm_reference.py sustain -o torch.json
  sampler_compare.py --smi smi.csv [--h5 run.h5] [--torch torch.json ...] [--min-seconds 5] [-o out.json]

For every test of the file that lasted at least --min-seconds (rank 0), the
window from its first repetition's start to its last one's end is put on the
Unix clock (/meta/clock_origin_unix_s) and nvidia-smi's instantaneous power is
integrated over it (trapezoids, the samples inside plus the window's edges
interpolated): energy, mean power, median SM clock, the most frequent
clock-event reasons, set beside the file's test_energy_j and test_mean_power_w.
For each torch sustain run, the same over its last half (its steady state) with
its TFLOP/s. Exit 1 when a mcfleet energy differs from the sampler's by more
than --tolerance (default 3%).
"""
import argparse
import csv
import datetime
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from mcfleet_results import text  # noqa: E402  (the one reader's decode helper)


def die(msg, code=2):
    print("sampler_compare: " + msg, file=sys.stderr)
    sys.exit(code)


def num(s):
    try:
        return float(s)
    except ValueError:
        return float("nan")


def read_smi(path):
    rows = []
    with open(path) as f:
        for n, rec in enumerate(csv.reader(f), 1):
            if len(rec) < 7:
                continue
            try:
                t = datetime.datetime.strptime(rec[0].strip(), "%Y/%m/%d %H:%M:%S.%f")
            except ValueError:
                continue   # a header or a broken line
            # nvidia-smi prints local time: the device machines run in UTC
            rows.append({"t": t.replace(tzinfo=datetime.timezone.utc).timestamp(), "w": num(rec[1]),
                         "w_avg": num(rec[2]), "mhz": num(rec[3]), "temp": num(rec[4]),
                         "reasons": rec[5].strip(), "limit": num(rec[6])})
    if len(rows) < 2:
        die("%s: fewer than 2 samples" % path)
    return rows


def window(rows, t0, t1):
    """Energy (J), mean power, median clock, reasons and the sample count over [t0, t1]."""
    pts = [(r["t"], r["w"]) for r in rows if r["w"] == r["w"]]

    def at(t):
        for (ta, wa), (tb, wb) in zip(pts, pts[1:]):
            if ta <= t <= tb:
                return wa + (wb - wa) * (t - ta) / (tb - ta) if tb > ta else wa
        return float("nan")
    inside = [(t, w) for t, w in pts if t0 < t < t1]
    seq = [(t0, at(t0))] + inside + [(t1, at(t1))]
    energy = sum((tb - ta) * (wa + wb) / 2 for (ta, wa), (tb, wb) in zip(seq, seq[1:]))
    sel = [r for r in rows if t0 <= r["t"] <= t1]
    reasons = {}
    for r in sel:
        reasons[r["reasons"]] = reasons.get(r["reasons"], 0) + 1
    return {"energy_j": energy, "mean_w": energy / (t1 - t0) if t1 > t0 else float("nan"),
            "median_mhz": statistics.median([r["mhz"] for r in sel]) if sel else float("nan"),
            "limit_w": statistics.median([r["limit"] for r in sel]) if sel else float("nan"),
            "reasons": sorted(reasons.items(), key=lambda kv: -kv[1])[:3], "samples": len(sel)}


def compare_h5(path, rows, min_s, tol):
    import h5py
    import numpy as np
    out, bad = [], 0
    with h5py.File(path, "r") as f:
        origin = float(f["meta"].attrs["clock_origin_unix_s"])
        for name, g in f["results"].items():
            if "rep_start_s" not in g or "test_energy_j" not in g:
                continue
            s0, s1 = g["rep_start_s"][0], g["rep_end_s"][0]
            if not np.isfinite(s0).any():
                continue
            t0, t1 = float(np.nanmin(s0)) + origin, float(np.nanmax(s1)) + origin
            if t1 - t0 < min_s:
                continue
            smi = window(rows, t0, t1)
            mine = float(g["test_energy_j"][0])
            ratio = mine / smi["energy_j"] if smi["energy_j"] > 0 else float("nan")
            ok = abs(ratio - 1) <= tol
            bad += not ok
            rate = {}
            for m in ("gflops", "sustained_gflops", "clock_mhz", "sustained_clock_mhz"):
                if m in g:
                    rate[m] = float(np.nanmedian(g[m][0]))
            out.append({"test": name, "seconds": t1 - t0, "mcfleet_energy_j": mine,
                        "mcfleet_mean_w": float(g["test_mean_power_w"][0]) if "test_mean_power_w" in g else None,
                        "smi": smi, "energy_ratio": ratio, "within_tolerance": ok, **rate})
            print("%-34s %6.1f s  mcfleet %9.1f J  smi %9.1f J  ratio %.4f  smi %6.1f W %6.0f MHz  %s"
                  % (name, t1 - t0, mine, smi["energy_j"], ratio, smi["mean_w"], smi["median_mhz"],
                     "ok" if ok else "OUTSIDE %.0f%%" % (tol * 100)))
    return out, bad


def compare_torch(path, rows):
    with open(path) as f:
        d = json.load(f)
    w = d["windows"]
    half = w[len(w) // 2:]
    t0, t1 = half[0]["t_start"], w[-1]["t_start"] + 1.0
    smi = window(rows, t0, t1)
    tf = statistics.median(x["tflops"] for x in half)
    print("torch %-5s %-5s %5d^3 last %4.0f s: %7.1f TFLOP/s  smi %6.1f W %6.0f MHz (limit %.0f W)  %s"
          % (d["dtype"], d["inputs"], d["size"], t1 - t0, tf, smi["mean_w"], smi["median_mhz"], smi["limit_w"],
             smi["reasons"][:1]))
    return {"file": path, "dtype": d["dtype"], "inputs": d["inputs"], "tflops": tf, "smi": smi}


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--smi", required=True)
    p.add_argument("--h5")
    p.add_argument("--torch", action="append", default=[])
    p.add_argument("--min-seconds", type=float, default=5.0)
    p.add_argument("--tolerance", type=float, default=0.03)
    p.add_argument("-o", "--output")
    a = p.parse_args()
    rows = read_smi(a.smi)
    res, bad = {"smi_samples": len(rows)}, 0
    if a.h5:
        res["mcfleet"], bad = compare_h5(a.h5, rows, a.min_seconds, a.tolerance)
    res["torch"] = [compare_torch(t, rows) for t in a.torch]
    if a.output:
        with open(a.output, "w") as f:
            json.dump(res, f, indent=1)
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
