#!/usr/bin/env python3
"""Plots of an mcfleet results file.

  mcfleet_plot.py variation FILE [-o OUT.png] [--tests GLOB]
      per-rank medians of each test's summary metric, grouped by node, with the
      fleet median and the verdict's relative floors as the file records them
      (/meta verdict_warn_rel, verdict_fail_rel): a rank outside the warn floor
      on the bad side is marked; the verdict itself is mcfleet report's
  mcfleet_plot.py roofline FILE [-o OUT.png]
      the arithmetic-intensity sweep (memory op fma) against the measured
      bandwidth and compute ceilings, rank 0 and the fleet spread; the
      ladder family's rungs (naive, shared, register: C = A*B, seed 002) at
      the intensity their loops give (the file's flop_per_unit /
      bytes_per_unit, src/family_ladder.h) and their measured GFLOP/s, and
      each library gemm's GFLOP/s as a line; a file with ladder tests and no
      sweep gets the roofs and those points alone. Prints one line per point
      placed ("placed NAME: ...")
  mcfleet_plot.py occupancy FILE [-o OUT.png] [--csv OUT.csv]
      each matrix occupancy sweep fitted to the MI250X paper's throughput model
      (../shared/seeds/000_*, Eq. 2): FLOPS(N) = a * min(N, S) * f, with N the
      wavefronts (warps) in all, f the clock measured at each point, a the
      FLOP per wave per cycle and S the saturation point; on AMD, S should be
      4 x CUs (one wave per matrix core). Where the file has a latency test of
      the same type and shape, its cycles c give 2mnk/c beside the fitted a
      (equal for single-block instructions).

  mcfleet_plot.py heatmap FILE [-o OUT.png] [--metric TEST[:METRIC]]
      node x local GPU of one judged figure (default: the first), each GPU's
      % from its SKU's median (from the best GPU of its SKU where fewer than 5
      GPUs have the figure), negative worse, grey where a GPU has no figure
      (failed, unsupported): one image at 10,000 GPUs; the look of mcfleet
      report --html, which draws it with this code
  mcfleet_plot.py power FILE [-o OUT.png] [--ranks LIST]
      power against throughput per GPU: per power model (/power_model, the
      MI250X paper's P = a * TFLOP/s + b, fitted per GPU over its tests) every
      GPU's points, the fleet median of the per-GPU fits and the 5-95 % band
      of their predictions; below, per test, each GPU's average power against
      its rate. --ranks (e.g. 3,17) draws those GPUs in red with their own fit
  mcfleet_plot.py sustained FILE [-o OUT.png] [--ranks LIST]
      the sustained tests' traces second by second (rate, power, both clocks,
      temperature): the fleet's median and 5-95 % band, and the --ranks GPUs

With fewer than 5 GPUs (FEW_GPUS) a median and a spread mean nothing (the
median of two GPUs is a value neither reached): power and sustained draw each
GPU's own fit and trace, one colour per rank (--ranks drawn thicker), and the
page's distributions each GPU's own value in the test's unit, labelled by
rank, with its distance from the best GPU.

Needs h5py, numpy and matplotlib (Debian: python3-h5py python3-numpy
python3-matplotlib). Where the python3 that runs it lacks them (a pyenv, conda
or venv first on PATH), it runs again under one that has them: MCFLEET_PYTHON
if set, else /usr/bin/python3, /usr/local/bin/python3, each python3 on PATH
(analysis/mcfleet_python.py); where none has them, exit 3 naming the modules
and the packages.

Exit codes:
  0  the figure (and CSV) written
  2  bad usage; a file that cannot be opened, is not an mcfleet results file
     or is malformed (one line on stderr names the file and the object); or
     nothing in the file to plot (no test matches, no sweep, no power figures,
     no judged figure; a --metric or --ranks the file does not have); an
     output (-o, --csv) that exists (--force replaces a regular file) or is a
     symlink, FIFO, device or directory (docs/reliability.md, "Output files")
  3  the figure or CSV cannot be written; no python3 here has h5py, numpy
     and matplotlib (one line names the modules missing and the packages)
The file is read defensively: soft and external links are never followed, and
every object's type and shape is checked before it is used.
"""
import argparse
import fnmatch
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_python  # noqa: E402
mcfleet_python.require("mcfleet_plot")   # h5py, numpy, matplotlib: else another python3, or exit 3

import numpy as np  # noqa: E402

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from mcfleet_results import BadFile, Results, finite_median, per_rank_median, reading, show  # noqa: E402
import mcfleet_outpath as outpath  # noqa: E402
from mcfleet_plotlib import Unwritable, check_format, csv_text, log_axes, save, short  # noqa: E402
from mcfleet_plot_gpus import heatmap, power, sustained  # noqa: E402 (the subcommands)
# the per-GPU plots by their names here too, for the page (mcfleet_html.py) and the tests
from mcfleet_plot_gpus import (FEW_GPUS, VERDICT_COLOURS, draw_distributions, draw_heatmap,  # noqa: E402,F401
                               draw_power, draw_traces, has_power, read_judged, read_power, read_traces,
                               select_figure)


def read_variation(path, pattern):
    r = Results(path)
    nodes = r.dataset(r.group(r.f, "", b"ranks", required=True), "/ranks", "node", "int", (r.nranks,))
    tests = []
    for name, gname, g in r.tests():
        metric = r.summary_metric(g, gname)
        if not metric or not fnmatch.fnmatch(name, pattern):
            continue
        v = r.figures(g, gname, metric)
        if v is None:
            continue   # no rank verified: no figures
        med = per_rank_median(v)
        if np.isfinite(med).any():
            tests.append((name, metric, r.unit(g, gname, metric), r.better(g, gname, metric), med))
    return r.nranks, nodes, r.attr_text(r.meta, "/meta", "backend", "?"), r.rules(), tests


def variation(args):
    nranks, nodes, backend, rules, tests = reading(args.file, lambda: read_variation(args.file, args.tests))
    if not tests:
        raise BadFile("%s: no test with figures matches %r" % (args.file, args.tests))
    draw_variation(args, nranks, nodes, backend, rules, tests)


def draw_variation(args, nranks, nodes, backend, rules, tests):
    """per test, each rank's median around the fleet's, with the verdict's warn
    and fail floors (relative to the fleet median, on the side that is bad for
    the metric) where the file records them"""
    fig, axes = plt.subplots(len(tests), 1, figsize=(8, 1.9 * len(tests)), squeeze=False)
    for ax, (name, metric, unit, better, med) in zip(axes[:, 0], tests):
        fleet = finite_median(med)
        x = np.arange(len(med))
        out = np.zeros(len(med), bool)
        if rules and better and np.isfinite(fleet) and fleet != 0:
            with np.errstate(invalid="ignore"):
                out = better * (med - fleet) / abs(fleet) < -rules["warn_rel"]
            for rel, shade in ((rules["fail_rel"], "0.93"), (rules["warn_rel"], "0.85")):
                edge = fleet * (1 - better * rel)
                ax.axhspan(min(fleet, edge), max(fleet, edge), color=shade, zorder=0)
        ax.scatter(x[~out], med[~out], c=nodes[~out] % 20, cmap="tab20", vmin=0, vmax=19, s=14,
                   label="rank (colour: node)")
        ax.scatter(x[out], med[out], marker="x", c="red", s=30, label="beyond the warn floor")
        ax.axhline(fleet, color="k", lw=0.8)
        ax.set_ylabel("%s\n[%s]" % (short(metric, 30), short(unit, 20)), fontsize=7)
        ax.set_title(short(name, 100), fontsize=8, loc="left")
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axes[-1, 0].set_xlabel("rank")
    floors = ("shaded: the verdict's floors, warn %.1f%% and fail %.1f%% below the fleet median (the file's "
              "/meta verdict_*)" % (100 * rules["warn_rel"], 100 * rules["fail_rel"]) if rules
              else "no verdict floors in this file (older than 2026-11-25)")
    fig.suptitle("%s: %s ranks, backend %s\n%s" % (short(show(args.file), 100), nranks, short(backend, 40), floors),
                 fontsize=8)
    save(fig, args.output, "%d tests" % len(tests), rect=(0, 0, 1, 1 - 0.5 / fig.get_figheight()))


LEVELS = ("hbm", "l2", "l1", "lds")
# Hopper's copy engine and SM-to-SM shared memory: measured, not roofs (a TMA
# copy reads HBM or L2, whose roofs are there; DSM traffic never reaches them)
NOT_ROOFS = ("tma", "dsm")


def dense(r, g, gname):
    """a test that is not 2:4 sparse: a sparse rate is dense-equivalent, the
    work of the kept half counted twice, no roof for a dense kernel"""
    return r.attr_text(g, gname, "sparsity", default="dense") == "dense"


def read_roofline(path):
    """the intensity sweep's points; per memory level its highest measured
    bandwidth (test name, GB/s) and how the file says the level was hit
    (/meta level_method_<level>); the compute ceilings (test name, GFLOP/s);
    every ceiling test's per-GPU medians (name, level or None for compute,
    medians), from which the page draws the roof of a deck without a sweep"""
    r = Results(path)
    points, roofs, flop_ceiling, per_gpu = [], {}, [], []
    for name, gname, g in r.tests():
        kernel = r.attr_text(g, gname, "kernel")
        if kernel == "memory" and r.attr_text(g, gname, "op") == "fma":
            v = r.figures(g, gname, "gflops")
            if v is None:
                continue
            work = r.work(g, gname)
            if work is None:   # a file older than flop_per_unit: the kernel's FMA count, as it was
                intensity = r.attr_int(g, gname, "intensity", required=True)
                if intensity <= 0:
                    r.bad(gname + " attribute intensity", "%d is not positive" % intensity)
                size = 8 if r.attr_text(g, gname, "dtype") == "fp64" else 4
                work = (2.0 * intensity, 2.0 * size)
            if not (work[0] > 0 and work[1] > 0):
                r.bad(gname + " attributes flop_per_unit, bytes_per_unit", "%g FLOP per %g bytes" % work)
            med = per_rank_median(v)
            if np.isfinite(med).any():
                points.append((work[0] / work[1], med))
        elif kernel in ("memory", "valu", "matrix"):
            if kernel == "memory" and r.attr_text(g, gname, "level", default="hbm") in NOT_ROOFS:
                continue
            if kernel == "matrix" and not dense(r, g, gname):
                continue
            v = r.figures(g, gname, "bandwidth_gbs" if kernel == "memory" else "gflops")
            med = per_rank_median(v) if v is not None else np.array([np.nan])
            ceiling = finite_median(med)
            if not ceiling > 0:   # a ceiling on a log scale
                continue
            if kernel == "memory":
                level = r.attr_text(g, gname, "level", default="hbm")
                if level not in LEVELS:
                    r.bad(gname + " attribute level", "%r is not one of %s" % (level, ", ".join(LEVELS)))
                if level not in roofs or ceiling > roofs[level][1]:
                    roofs[level] = (name, ceiling)
                per_gpu.append((name, level, med))
            else:
                flop_ceiling.append((name, ceiling))
                per_gpu.append((name, None, med))
    methods = {lv: r.attr_text(r.meta, "/meta", "level_method_" + lv, default="not recorded (an older file)")
               for lv in roofs}
    return points, roofs, methods, flop_ceiling, per_gpu


def read_placed(path):
    """the kernels placed on the roofline beside the sweep: each ladder test
    (name, rung, intensity, per-rank medians of gflops), its intensity the
    file's flop_per_unit / bytes_per_unit (the bytes its loops move from
    global memory, src/family_ladder.h); and each library gemm test (name,
    "gemm", None, medians): a library's traffic is not known by construction,
    so it is drawn as its rate alone"""
    r = Results(path)
    placed = []
    for name, gname, g in r.tests():
        kernel = r.attr_text(g, gname, "kernel")
        if kernel not in ("ladder", "gemm") or not dense(r, g, gname):
            continue
        v = r.figures(g, gname, "gflops")
        if v is None:
            continue
        med = per_rank_median(v)
        if not np.isfinite(med).any():
            continue
        if kernel == "gemm":
            placed.append((name, "gemm", None, med))
            continue
        work = r.work(g, gname)
        if work is None or not (work[0] > 0 and work[1] > 0):
            r.bad(gname + " attributes flop_per_unit, bytes_per_unit", "missing, or not a positive FLOP per byte")
        placed.append((name, r.attr_text(g, gname, "rung", required=True), work[0] / work[1], med))
    return placed


def roofline(args):
    points, roofs, methods, flop_ceiling, _ = reading(args.file, lambda: read_roofline(args.file))
    placed = reading(args.file, lambda: read_placed(args.file))
    if not points and not any(p[2] is not None for p in placed):
        raise BadFile("%s: no intensity sweep (memory op fma) and no ladder test with figures (mcfleet report FILE "
                      "--html OUT draws the roof of its bandwidth and compute tests alone)" % args.file)
    points.sort(key=lambda p: p[0])
    ai = np.array([p[0] for p in points])
    fleet = np.array([finite_median(p[1]) for p in points])
    lo = np.array([np.nanmin(p[1]) for p in points]) if points else ai
    hi = np.array([np.nanmax(p[1]) for p in points]) if points else ai
    positive = np.concatenate([fleet[fleet > 0]] + [[finite_median(p[3])] for p in placed
                                                    if finite_median(p[3]) > 0])
    if not positive.size:
        raise BadFile("%s: the intensity sweep and the ladder have no positive figure to draw on a log scale"
                      % args.file)
    if points:
        print("intensity points (FLOP/byte, the file's flop_per_unit / bytes_per_unit): %s"
              % " ".join("%.4g" % a for a in ai))
    for lv in LEVELS:
        if lv in roofs:
            print("%s ceiling %.4g GB/s (%s): %s" % (lv, roofs[lv][1], roofs[lv][0], methods[lv]))
    for name, fl in flop_ceiling:
        print("compute ceiling %.4g GFLOP/s (%s)" % (fl, name))
    for name, kind, x, med in placed:
        print("placed %s: %s, %s%.4g GFLOP/s (median over ranks)" % (
            name, "library gemm" if x is None else "ladder rung " + kind,
            "" if x is None else "intensity %.4g FLOP/byte, " % x, finite_median(med)))
    draw_roofline(args, points, roofs, methods, flop_ceiling, ai, fleet, lo, hi, positive, placed)


RUNG_MARKERS = {"naive": "v", "shared": "s", "register": "D"}


def draw_placed(ax, placed):
    """the ladder's rungs as points (each rank's median: the spread as a bar)
    and each library gemm as a dashed line at its rate"""
    for i, (name, kind, x, med) in enumerate(placed):
        y = finite_median(med)
        if not y > 0:
            continue
        colour = CEILING_COLOURS[(i + 3) % len(CEILING_COLOURS)]
        if x is None:
            ax.axhline(y, ls="--", lw=1, color=colour, label="library %s %.4g GFLOP/s" % (short(name, 24), y))
            continue
        ok = med[np.isfinite(med)]
        ax.errorbar([x], [y], yerr=[[y - ok.min()], [ok.max() - y]], fmt=RUNG_MARKERS.get(kind, "o"), ms=7,
                    color=colour, capsize=3, label="ladder %s: %s, %.4g FLOP/B, %.4g GFLOP/s"
                    % (kind, short(name, 20), x, y))


def draw_roofline(args, points, roofs, methods, flop_ceiling, ai, fleet, lo, hi, positive, placed=()):
    """the hierarchical roofline (shared/seeds/001_*): per level, min(bandwidth x
    intensity, the highest compute ceiling), each labelled with how its level was
    hit; the ladder's rungs and the library gemm (draw_placed) on it; the legend
    beside the axes, never over the data"""
    fig, ax = plt.subplots(figsize=(10, 5.5))
    if len(points):
        ax.fill_between(ai, lo, hi, color="C0", alpha=0.25, label="fleet min-max")
        ax.plot(ai, fleet, "o-", color="C0", label="fleet median (FMA sweep)")
    xs = np.concatenate([ai, [p[2] for p in placed if p[2] is not None]])
    top = max([c[1] for c in flop_ceiling], default=float("inf"))
    if np.isfinite(top) and roofs:   # reach each roof's ridge point
        xs = np.concatenate([xs, [top / bw for _, bw in roofs.values()]])
    x = np.logspace(np.log10(xs.min() / 4), np.log10(xs.max() * 4), 200)
    notes = []
    for i, lv in enumerate(lv for lv in LEVELS if lv in roofs):
        name, bw = roofs[lv]
        ax.plot(x, np.minimum(bw * x, top), "-", lw=1.2, color="C%d" % (i + 1),
                label="%s roof %.4g GB/s (%s)" % (lv.upper(), bw, short(name, 24)))
        notes.append("%s: %s" % (lv.upper(), short(methods[lv], 150)))
    for i, (name, fl) in enumerate(sorted(flop_ceiling, key=lambda b: -b[1])[:3]):
        ax.axhline(fl, ls=":", lw=0.8, color="C%d" % (i + 6), label="%s %.4g GFLOP/s" % (short(name, 24), fl))
    draw_placed(ax, placed)
    log_axes(ax)
    ax.set_ylim(positive.min() / 4, max(positive.max(), max([c[1] for c in flop_ceiling], default=0)) * 2)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title("empirical roofline: %s" % short(show(args.file), 100), fontsize=9)
    if notes:
        fig.text(0.01, 0.01, "how each level was hit (the file's /meta level_method_*):\n" + "\n".join(notes),
                 fontsize=6, va="bottom", ha="left")
    save(fig, args.output, "%d intensity points, %d roofs" % (len(points), len(roofs)) + (
         ", %d ladder rungs, %d library gemm" % (sum(p[2] is not None for p in placed),
                                                 sum(p[2] is None for p in placed)) if placed else ""),
         rect=(0, 0.03 + 0.022 * (len(notes) + 1) if notes else 0, 1, 1))


CEILING_COLOURS = ("#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457", "#2e7d32", "#c62828", "#455a64",
                   "#827717", "#283593")   # none of the memory levels' C0-C3


def roof_ceilings(per_gpu, nranks):
    """the roof of a file without an intensity sweep: per memory level its
    highest bandwidth, and every compute ceiling, each (test, value, whose).
    From FEW_GPUS GPUs a ceiling is the fleet median of the GPUs' medians;
    from fewer, the best GPU's own figure (a median of two is a rate neither
    GPU reached), the rank named"""
    levels, compute = {}, []
    for name, level, med in per_gpu:
        ok = np.flatnonzero(np.isfinite(med) & (med > 0))
        if not ok.size:
            continue
        if min(nranks, ok.size) < FEW_GPUS:   # GPUs with the figure, as the distributions count them
            k = int(ok[np.argmax(med[ok])])
            value, whose = float(med[k]), "rank %d" % k
        else:
            value, whose = finite_median(med), "fleet median"
        if level is None:
            compute.append((name, value, whose))
        elif level not in levels or value > levels[level][1]:
            levels[level] = (name, value, whose)
    return levels, sorted(compute, key=lambda c: -c[1])


def draw_roof(path, levels, compute, methods):
    """the roofline of the measured ceilings alone (no kernel under it): per
    memory level bandwidth x intensity up to the highest compute ceiling, and
    each compute ceiling from its ridge point (ceiling / the first level's
    bandwidth) on"""
    fig, ax = plt.subplots(figsize=(12, 5.5))
    bw0 = levels[next(lv for lv in LEVELS if lv in levels)][1] if levels else None
    top = compute[0][1] if compute else None
    ridges = [c[1] / bw0 for c in compute] if bw0 else [1.0]
    x = np.logspace(np.log10(min(ridges) / 16), np.log10(max(ridges) * 16), 300)
    notes = []
    for i, lv in enumerate(lv for lv in LEVELS if lv in levels):
        name, bw, whose = levels[lv]
        y = bw * x if top is None else np.minimum(bw * x, top)
        ax.plot(x, y, "-", lw=1.6, color="C%d" % i, label="%s %.4g GB/s (%s, %s)" % (lv.upper(), bw, short(name, 20),
                                                                                     whose))
        notes.append("%s: %s" % (lv.upper(), short(methods.get(lv, ""), 150)))
    for j, (name, fl, whose) in enumerate(compute):
        start = fl / bw0 if bw0 else x[0]
        seg = x[x >= start]
        colour = CEILING_COLOURS[j % len(CEILING_COLOURS)]
        ax.plot(np.concatenate(([start], seg)), np.full(seg.size + 1, fl), ls="--", lw=1, color=colour,
                label="%s %.4g GFLOP/s (%s)%s" % (short(name, 20), fl, whose,
                                                   ", ridge %.3g FLOP/byte" % start if bw0 else ""))
        if bw0:
            ax.plot([start], [fl], "o", ms=4, color=colour)
    log_axes(ax)
    lows = [bw * x[0] for _, bw, _ in levels.values()] + [c[1] for c in compute]
    ax.set_ylim(min(lows) / 2, max(c[1] for c in compute) * 2 if compute else max(lows) * 1e4)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title("roofline of the measured ceilings (no intensity sweep in this file)\n%s" % short(show(path), 90),
                 fontsize=9)
    if notes:
        fig.text(0.01, 0.01, "how each level was hit (the file's /meta level_method_*):\n" + "\n".join(notes),
                 fontsize=6, va="bottom", ha="left")
    fig.tight_layout(rect=(0, 0.03 + 0.022 * (len(notes) + 1) if notes else 0, 1, 1))
    return fig


def fit_saturating(n, y):
    """least-squares a and S of y = a * min(n, S), S among the points' n"""
    best = None
    for s_ in sorted(set(n)):
        x = np.minimum(n, s_)
        a = float(np.dot(x, y) / np.dot(x, x))
        err = float(np.sum((y - a * x) ** 2))
        if best is None or err < best[2] - 1e-12 * abs(err):
            best = (a, s_, err)
    return best


def parse_shape(r, gname, text):
    try:
        m, n, k = (int(x) for x in text.split("x"))
    except ValueError:
        r.bad(gname + " attribute shape", "%r is not MxNxK" % text)
    if min(m, n, k) <= 0:
        r.bad(gname + " attribute shape", "%r is not MxNxK" % text)
    return m, n, k


def read_occupancy(path):
    r = Results(path)
    units = int(r.dataset(r.group(r.f, "", b"ranks", required=True), "/ranks", "compute_units", "int",
                          (r.nranks,))[0])
    if units <= 0:
        r.bad("/ranks/compute_units", "rank 0 has %d compute units" % units)
    sweeps, latency = {}, {}
    for name, gname, g in r.tests():
        if r.attr_text(g, gname, "kernel") != "matrix":
            continue
        mode = r.attr_text(g, gname, "mode")
        dtype = r.attr_text(g, gname, "dtype")
        shape = r.attr_text(g, gname, "shape")
        if mode == "latency":
            cycles = [m for m in r.attr_text(g, gname, "summary_metrics").split(",")   # the latency in cycles
                      if m and r.figures(g, gname, m) is not None and r.unit(g, gname, m) == "cycles"]
            v = r.figures(g, gname, cycles[0]) if cycles else None
            if v is not None and np.isfinite(finite_median(v[0])):
                latency[(dtype, shape)] = finite_median(v[0])
            continue
        occ = r.attr_int(g, gname, "occupancy")
        if mode != "throughput" or occ <= 0:
            continue   # auto occupancy has no N
        status = r.dataset(g, gname, "status", "int", (r.nranks,), required=False)
        v = r.figures(g, gname, "gflops")
        if status is None or v is None or int(status[0]) != 1 or not np.isfinite(finite_median(v[0])):
            continue   # a point that did not verify has no figure
        parse_shape(r, gname, shape)
        key = (dtype, r.attr_text(g, gname, "dtype_b", dtype), shape, r.attr_text(g, gname, "path"))
        clk = r.figures(g, gname, "clock_mhz")
        clock = finite_median(clk[0]) if clk is not None else float("nan")
        sweeps.setdefault(key, []).append((occ * units, finite_median(v[0]), clock, name))
    return units, sweeps, latency


def fit_occupancy(units, sweeps, latency):
    """per sweep of two or more points, the model's a and S; per point, the measured and modelled GFLOP/s"""
    rows, fits = [], []
    for key, pts in sorted(sweeps.items()):
        if len(pts) < 2:
            continue
        pts.sort()
        n = np.array([p[0] for p in pts], float)
        gf = np.array([p[1] for p in pts], float)
        clk = np.array([p[2] for p in pts], float)
        per_cycle = bool(np.all(np.isfinite(clk)) and np.all(clk > 0))
        y = gf * 1e9 / (clk * 1e6) if per_cycle else gf * 1e9   # FLOP per cycle, or FLOP/s without a clock
        a, s_, _ = fit_saturating(n, y)
        m, nn, k = (int(x) for x in key[2].split("x"))   # checked by read_occupancy
        c = latency.get((key[0], key[2]))
        fits.append((key, a, s_, per_cycle, c, m, nn, k))
        for (ni, g_, ck, name), yi in zip(pts, y):
            model = a * min(ni, s_) * (ck * 1e6 if per_cycle else 1.0) / 1e9
            rows.append((name, key[0], key[1], key[2], int(ni), g_, ck, model))
    return fits, rows


def occupancy_lines(units, fits):
    out = []
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        unit = "FLOP/wave/cycle" if per_cycle else "FLOP/s per wave (no clock)"
        line = "%s%s %s %s: a = %.4g %s, saturates at N = %d (%d per unit of %d)" % (
            key[0], "" if key[1] == key[0] else " x " + key[1], key[2], key[3] or "", a, unit, s_, s_ // units, units)
        if c and per_cycle:
            line += "; latency %.1f cycles gives 2mnk/c = %.4g" % (c, 2.0 * m * nn * k / c)
        out.append(line)
    return out


def occupancy(args):
    units, sweeps, latency = reading(args.file, lambda: read_occupancy(args.file))
    fits, rows = fit_occupancy(units, sweeps, latency)
    if not fits:
        raise BadFile("%s has no matrix occupancy sweep (two or more explicit occupancy points)" % args.file)
    for line in occupancy_lines(units, fits):
        print(line)
    if args.csv:
        try:
            outpath.write("--csv", args.csv, args.force, lambda out: out.write(
                "test,dtype,dtype_b,shape,waves,gflops,clock_mhz,model_gflops\n"
                + "".join("%s,%s,%s,%s,%d,%.6g,%.6g,%.6g\n" % (tuple(csv_text(x) for x in row[:4]) + row[4:])
                          for row in rows)))
        except OSError as e:
            raise Unwritable("cannot write %s: %s" % (args.csv, e.strerror or e))
        print("wrote %s (%d points)" % (show(args.csv), len(rows)))
    save(draw_occupancy(args.file, fits, rows), args.output, "%d sweeps" % len(fits))


def draw_occupancy(path, fits, rows):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        pts = [row for row in rows if (row[1], row[2], row[3]) == key[:3]]
        lab = short("%s %s" % (key[0], key[2]))
        ax.plot([row[4] for row in pts], [row[5] for row in pts], "o", label=lab + " measured")
        ax.plot([row[4] for row in pts], [row[7] for row in pts], "--", label=lab + " model")
    log_axes(ax, base=2, axes="x")
    ax.set_xlabel("wavefronts (warps) in all")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7)
    ax.set_title("occupancy sweeps and a*min(N,S)*f: %s" % short(show(path), 100), fontsize=9)
    fig.tight_layout()
    return fig


# ---- judged figures: the heatmap and the distributions (also mcfleet report --html)



# the subcommands: name, what it draws, its function, and its options beyond FILE and -o
COMMANDS = (
    ("variation", "per-rank medians by node, with outliers", variation,
     (("--tests", dict(default="*", help="glob of test names (default: all)")),)),
    ("roofline", "intensity sweep against the measured ceilings", roofline, ()),
    ("occupancy", "matrix occupancy sweeps fitted to the throughput model", occupancy,
     (("--csv", dict(help="also write the points and the model to this CSV")),)),
    ("heatmap", "node x local GPU of one judged figure, %% from the SKU's median", heatmap,
     (("--metric", dict(help="TEST[:METRIC] (default: the first judged figure)")),)),
    ("power", "power against throughput per GPU, with the fitted power models", power,
     (("--ranks", dict(help="ranks to draw in red with their own fit, e.g. 3,17")),)),
    ("sustained", "the sustained tests' traces, second by second", sustained,
     (("--ranks", dict(help="ranks to draw beside the fleet's median, e.g. 3,17")),)),
)


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    run = {}
    for name, what, fn, options in COMMANDS:
        c = sub.add_parser(name, help=what)
        c.add_argument("file")
        c.add_argument("-o", "--output", default=name + ".png")
        c.add_argument("--force", action="store_true", help="replace an existing output (a regular file)")
        for flag, kw in options:
            c.add_argument(flag, **kw)
        run[name] = fn
    args = p.parse_args()
    try:
        for option, path in (("-o", args.output), ("--csv", getattr(args, "csv", None))):
            if path is not None:
                outpath.check(option, path, args.force)   # before the work
        if args.output is not None:
            check_format("-o", args.output)
        args.output = outpath.Path("-o", args.output, args.force)
        run[args.cmd](args)
    except outpath.Refused as e:
        print("mcfleet_plot: %s" % show(str(e)), file=sys.stderr)
        sys.exit(2)
    except BadFile as e:
        print("mcfleet_plot: %s" % show(str(e)), file=sys.stderr)
        sys.exit(2)
    except Unwritable as e:
        print("mcfleet_plot: %s" % show(str(e)), file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
