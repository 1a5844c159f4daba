#!/usr/bin/env python3
"""Plots of an mcfleet results file.

  mcfleet_plot.py variation FILE [-o OUT.png] [--tests GLOB]
      per-rank medians of each test's summary metric, grouped by node, with the
      fleet median and the verdict's relative floors as the file records them
      (/meta verdict_warn_rel, verdict_fail_rel): a rank outside the warn floor
      on the bad side is marked; the verdict itself is mcfleet report's
  mcfleet_plot.py roofline FILE [-o OUT.png]
      the arithmetic-intensity sweep (memory op fma) against the measured
      bandwidth and compute ceilings, rank 0 and the fleet spread
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
import warnings

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

# Text from the file (test names, units, hosts) is drawn as it is, never read
# as matplotlib's maths: "$\undefinedmacro$" in a name raised ValueError at
# drawing time. text.parse_math is matplotlib 3.5's; before it, short()
# escapes the dollar signs of what it is given.
PARSE_MATH_KEY = "text.parse_math" in matplotlib.rcParams
if PARSE_MATH_KEY:
    matplotlib.rcParams["text.parse_math"] = False


class Unwritable(Exception):
    """an output that cannot be written"""


def short(text, n=60):
    """a label that matplotlib can draw: a huge one overflows its rasterizer;
    with no text.parse_math to turn off (matplotlib < 3.5), "$" escaped"""
    text = text if len(text) <= n else text[:n - 3] + "..."
    return text if PARSE_MATH_KEY else text.replace("$", "\\$")


def csv_text(text):
    """a CSV cell of text from the file: quoted where RFC 4180 asks, and by
    OWASP's CSV injection rule a leading ' where it begins with = + - @ TAB
    CR, which a spreadsheet would run (the C report's rule)"""
    formula = text[:1] in ("=", "+", "-", "@", "\t", "\r")
    if not formula and not any(c in text for c in ',"\n\r'):
        return text
    return '"%s%s"' % ("'" if formula else "", text.replace('"', '""'))


def save(fig, output, what, rect=None):
    """lays out and writes the figure (rect: the part the axes may use), and says what it holds"""
    fig.tight_layout(rect=rect)
    try:
        if isinstance(output, outpath.Path):   # a file under the output rule; else a buffer (the page's)
            fmt = os.path.splitext(output)[1][1:].lower() or "png"
            outpath.write(output.option, output, output.force, lambda f: fig.savefig(f, format=fmt, dpi=110), True)
        else:
            fig.savefig(output, dpi=110)
    except OSError as e:
        raise Unwritable("cannot write %s: %s" % (output, e.strerror or e))
    print("wrote %s (%s)" % (output, what))


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


def roofline(args):
    points, roofs, methods, flop_ceiling, _ = reading(args.file, lambda: read_roofline(args.file))
    if not points:
        raise BadFile("%s: no intensity sweep (memory op fma) with figures (mcfleet report FILE --html OUT draws "
                      "the roof of its bandwidth and compute tests alone)" % args.file)
    points.sort(key=lambda p: p[0])
    ai = np.array([p[0] for p in points])
    fleet = np.array([finite_median(p[1]) for p in points])
    lo = np.array([np.nanmin(p[1]) for p in points])
    hi = np.array([np.nanmax(p[1]) for p in points])
    positive = fleet[fleet > 0]
    if not positive.size:
        raise BadFile("%s: the intensity sweep has no positive figure to draw on a log scale" % args.file)
    print("intensity points (FLOP/byte, the file's flop_per_unit / bytes_per_unit): %s"
          % " ".join("%.4g" % a for a in ai))
    for lv in LEVELS:
        if lv in roofs:
            print("%s ceiling %.4g GB/s (%s): %s" % (lv, roofs[lv][1], roofs[lv][0], methods[lv]))
    draw_roofline(args, points, roofs, methods, flop_ceiling, ai, fleet, lo, hi, positive)


def draw_roofline(args, points, roofs, methods, flop_ceiling, ai, fleet, lo, hi, positive):
    """the hierarchical roofline (shared/seeds/001_*): per level, min(bandwidth x
    intensity, the highest compute ceiling), each labelled with how its level was
    hit; the legend beside the axes, never over the data"""
    fig, ax = plt.subplots(figsize=(10, 5.5))
    ax.fill_between(ai, lo, hi, color="C0", alpha=0.25, label="fleet min-max")
    ax.plot(ai, fleet, "o-", color="C0", label="fleet median (FMA sweep)")
    x = np.logspace(np.log10(ai.min() / 4), np.log10(ai.max() * 4), 200)
    top = max([c[1] for c in flop_ceiling], default=float("inf"))
    notes = []
    for i, lv in enumerate(lv for lv in LEVELS if lv in roofs):
        name, bw = roofs[lv]
        ax.plot(x, np.minimum(bw * x, top), "-", lw=1.2, color="C%d" % (i + 1),
                label="%s roof %.4g GB/s (%s)" % (lv.upper(), bw, short(name, 24)))
        notes.append("%s: %s" % (lv.upper(), short(methods[lv], 150)))
    for i, (name, fl) in enumerate(sorted(flop_ceiling, key=lambda b: -b[1])[:3]):
        ax.axhline(fl, ls=":", lw=0.8, color="C%d" % (i + 6), label="%s %.4g GFLOP/s" % (short(name, 24), fl))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(positive.min() / 4, max(positive.max(), max([c[1] for c in flop_ceiling], default=0)) * 2)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7, loc="upper left", bbox_to_anchor=(1.02, 1.0), borderaxespad=0)
    ax.set_title("empirical roofline: %s" % short(show(args.file), 100), fontsize=9)
    if notes:
        fig.text(0.01, 0.01, "how each level was hit (the file's /meta level_method_*):\n" + "\n".join(notes),
                 fontsize=6, va="bottom", ha="left")
    save(fig, args.output, "%d intensity points, %d roofs" % (len(points), len(roofs)),
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
    ax.set_xscale("log")
    ax.set_yscale("log")
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
            v = r.figures(g, gname, "latency_cycles")
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
        print("wrote %s (%d points)" % (args.csv, len(rows)))
    save(draw_occupancy(args.file, fits, rows), args.output, "%d sweeps" % len(fits))


def draw_occupancy(path, fits, rows):
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        pts = [row for row in rows if (row[1], row[2], row[3]) == key[:3]]
        lab = short("%s %s" % (key[0], key[2]))
        ax.plot([row[4] for row in pts], [row[5] for row in pts], "o", label=lab + " measured")
        ax.plot([row[4] for row in pts], [row[7] for row in pts], "--", label=lab + " model")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("wavefronts (warps) in all")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7)
    ax.set_title("occupancy sweeps and a*min(N,S)*f: %s" % short(show(path), 100), fontsize=9)
    fig.tight_layout()
    return fig


# ---- judged figures: the heatmap and the distributions (also mcfleet report --html)

VERDICT_COLOURS = {"PASS": "#2e7d32", "WARN": "#ef6c00", "FAIL": "#c62828"}
DEFAULT_FAIL_REL = 0.07   # the colour scale's half-width where a file records no floors
# Below this many GPUs a median and a spread say nothing (the median of two
# is their mean, a value neither GPU reached): the distributions, the
# sustained traces and the power models show each GPU's own values instead,
# labelled by rank. The page says so where it applies.
FEW_GPUS = 5
RANK_COLOURS = ("#1565c0", "#c62828", "#2e7d32", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037", "#ad1457")


def rank_colour(k):
    return RANK_COLOURS[k % len(RANK_COLOURS)]


def rank_label(data, k):
    return "rank %d (node %d, GPU %d)" % (k, data["node"][k], data["local"][k])


def read_judged(path):
    """per judged figure (the tests' summary_metrics with a better side): the
    per-rank medians; every test's ranks that did not verify, by status; the
    placement (node, local GPU, SKU) and the file's verdict floors"""
    r = Results(path)
    ranks = r.group(r.f, "", b"ranks", required=True)
    node = r.dataset(ranks, "/ranks", "node", "int", (r.nranks,))
    local = r.dataset(ranks, "/ranks", "local_rank", "int", (r.nranks,))
    names = r.dataset(ranks, "/ranks", "device_name", "str", (r.nranks,))
    if node.min() < 0 or local.min() < 0:
        r.bad("/ranks/node, local_rank", "negative")
    codes = r.status_codes()
    figs, statuses = [], []
    for name, gname, g in r.tests():
        st = r.dataset(g, gname, "status", "int", (r.nranks,), required=False)
        if st is not None:
            bad = {}
            for k, code in enumerate(st):
                if codes.get(int(code)) != "verified":
                    bad.setdefault(codes.get(int(code), "status %d" % code), []).append(k)
            if bad:
                statuses.append((name, bad))
        for m in [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]:
            v = r.figures(g, gname, m)
            better = r.better(g, gname, m) if v is not None else 0
            if better:
                figs.append({"test": name, "metric": m, "unit": r.unit(g, gname, m), "better": better,
                             "med": per_rank_median(v)})
    return {"nranks": r.nranks, "node": node, "local": local, "sku": names, "figs": figs, "statuses": statuses,
            "rules": r.rules()}


def select_figure(data, metric, path):
    """the judged figure TEST[:METRIC] names (None: the first one)"""
    if not data["figs"]:
        raise BadFile("%s: no judged figure (no test with a verified summary metric)" % path)
    if not metric:
        return data["figs"][0]
    t, _, m = metric.partition(":")
    sel = next((f for f in data["figs"] if f["test"] == t and (not m or f["metric"] == m)), None)
    if sel is None:
        raise BadFile("--metric %s: no judged figure of that test and metric in %s (there are: %s)" % (
            metric, path, short(", ".join("%s:%s" % (f["test"], f["metric"]) for f in data["figs"]), 300)))
    return sel


def rel_dev(fig, sku):
    """each GPU's relative deviation from its SKU's median, signed so that
    negative is worse"""
    d = np.full(len(fig["med"]), np.nan)
    for s_ in set(sku):
        idx = np.array([i for i, x in enumerate(sku) if x == s_])
        v = fig["med"][idx]
        ref = np.nanmedian(v) if np.isfinite(v).any() else np.nan
        if np.isfinite(ref) and ref != 0:
            d[idx] = fig["better"] * (v / ref - 1)
    return d


def rel_best(fig, sku):
    """each GPU's relative deviation from the best GPU of its SKU, negative worse"""
    d = np.full(len(fig["med"]), np.nan)
    for s_ in set(sku):
        idx = np.array([i for i, x in enumerate(sku) if x == s_])
        v = fig["med"][idx]
        if np.isfinite(v).any():
            best = np.nanmax(v) if fig["better"] > 0 else np.nanmin(v)
            if best != 0:
                d[idx] = fig["better"] * (v / best - 1)
    return d


def draw_heatmap(data, sel, rules):
    """node x local GPU, % from the SKU's median (from the best GPU of its
    SKU where fewer than FEW_GPUS have the figure: the median of two is
    neither); the colour scale spans at least the fail floor both ways, so
    noise stays pale"""
    few = np.isfinite(sel["med"]).sum() < FEW_GPUS
    dev = rel_best(sel, data["sku"]) if few else rel_dev(sel, data["sku"])
    nodes, gpn = int(data["node"].max()) + 1, int(data["local"].max()) + 1
    grid = np.full((gpn, nodes), np.nan)
    grid[data["local"], data["node"]] = dev * 100
    lim = max(100 * (rules["fail_rel"] if rules else DEFAULT_FAIL_REL),
              np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 0)
    fig, ax = plt.subplots(figsize=(min(18, 7 + nodes * 0.25), 1.2 + 0.35 * gpn))
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("#9e9e9e")
    im = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set_xlabel("node (%d)" % nodes)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1))
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_ylabel("local GPU")
    ax.set_title("%s %s: %% from %s (negative: worse; grey: no figure)" % (
        short(sel["test"], 60), short(sel["metric"], 30),
        "the best GPU of its SKU (fewer than %d GPUs)" % FEW_GPUS if few else "its SKU's median"), fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01)
    return fig


def draw_distributions(data, rules, limit=24):
    """per judged figure, each GPU's % from its SKU's median, with the warn
    and fail floors: a histogram from 50 GPUs, one dot per GPU below; a
    figure of fewer than FEW_GPUS GPUs shows each GPU's own value instead
    (draw_few)"""
    figs = data["figs"][:limit]
    cols = 3
    rows = (len(figs) + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.4 * rows), squeeze=False)
    for ax, f in zip(axes.flat, figs):
        if np.isfinite(f["med"]).sum() < FEW_GPUS:
            draw_few(ax, data, f, rules)
            continue
        d = 100 * rel_dev(f, data["sku"])
        d = d[np.isfinite(d)]
        if rules:
            for rel, c in ((rules["warn_rel"], VERDICT_COLOURS["WARN"]), (rules["fail_rel"], VERDICT_COLOURS["FAIL"])):
                ax.axvline(-100 * rel, color=c, lw=1)
        lim = max(100 * (rules["fail_rel"] if rules else DEFAULT_FAIL_REL) * 1.5, np.abs(d).max() * 1.05 if d.size else 0)
        if d.size >= 50:
            ax.hist(d, bins=min(60, max(10, d.size // 4)), range=(-lim, lim), color="#546e7a")
        else:   # a few GPUs: each one a dot, so two of them are not one bar
            ax.plot(d, 0.5 + 0.3 * np.sin(np.arange(d.size) * 2.4), "o", color="#546e7a", ms=5)
            ax.set_ylim(0, 1)
            ax.set_yticks([])
        ax.set_xlim(-lim, lim)
        ax.set_title("%s %s (%d GPUs)" % (short(f["test"], 40), short(f["metric"], 24), d.size), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("% from the SKU's median (negative: worse)", fontsize=7)
    for ax in list(axes.flat)[len(figs):]:
        ax.axis("off")
    fig.tight_layout()
    return fig


def best_of(f, sku, k):
    """the best value among GPU K's SKU (the highest, or the lowest where lower is better)"""
    v = np.array([f["med"][i] for i in range(len(sku)) if sku[i] == sku[k] and np.isfinite(f["med"][i])])
    return (v.max() if f["better"] > 0 else v.min()) if v.size else float("nan")


def draw_few(ax, data, f, rules):
    """each GPU's own value in the figure's unit, one row per GPU, labelled by
    rank, with its distance from the best GPU of its SKU; where the GPUs are
    of one SKU, the verdict's warn and fail floors below that best GPU. Rows:
    every rank of a run of fewer than FEW_GPUS (those without a figure say
    so), else the ranks with a figure"""
    med = f["med"]
    ok = np.isfinite(med)
    rows = list(range(len(med))) if len(med) < FEW_GPUS else [int(k) for k in np.flatnonzero(ok)]
    y = {k: len(rows) - 1 - i for i, k in enumerate(rows)}
    shown = [med[k] for k in rows if ok[k]]
    skus = set(data["sku"][k] for k in rows if ok[k])
    if rules and len(skus) == 1 and shown:
        best = best_of(f, data["sku"], next(k for k in rows if ok[k]))
        for rel, c in ((rules["warn_rel"], VERDICT_COLOURS["WARN"]), (rules["fail_rel"], VERDICT_COLOURS["FAIL"])):
            edge = best * (1 - f["better"] * rel)
            ax.axvline(edge, color=c, lw=1)
            shown.append(edge)
    lo, hi = (min(shown), max(shown)) if shown else (0.0, 1.0)
    pad = 0.12 * (hi - lo) if hi > lo else 0.05 * abs(hi) or 1.0
    ax.set_xlim(lo - pad, hi + pad)
    for k in rows:
        if ok[k]:
            ax.plot([med[k]], [y[k]], "o", color=rank_colour(k), ms=7)
            best = best_of(f, data["sku"], k)
            d = f["better"] * (med[k] / best - 1) * 100 if best else float("nan")
            right = med[k] > (lo + hi) / 2   # the label on the side with room, inside the axes
            ax.annotate("%.4g %s%s" % (med[k], short(f["unit"], 10), "" if not abs(d) >= 0.005 else " (%+.1f %%)" % d),
                        (med[k], y[k]), fontsize=6.5, va="bottom", ha="right" if right else "left",
                        xytext=(-4 if right else 4, 4), textcoords="offset points")
        else:
            ax.text(0.02, y[k], "no figure", transform=ax.get_yaxis_transform(), fontsize=6.5, va="center",
                    color="#777")
    ax.set_yticks([y[k] for k in rows])
    ax.set_yticklabels([rank_label(data, k) for k in rows], fontsize=6.5)
    ax.set_ylim(-0.7, len(rows) - 0.3)
    ax.xaxis.set_major_formatter(matplotlib.ticker.EngFormatter(sep=""))   # 1.6M, not an offset "1e6"
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
    ax.set_title("%s %s\n(%d GPUs: each its own)" % (short(f["test"], 40), short(f["metric"], 24), int(ok.sum())),
                 fontsize=8)
    ax.tick_params(labelsize=7)
    ax.set_xlabel("%s (%%: from the best GPU, negative: worse)" % short(f["unit"], 20), fontsize=7)


def heatmap(args):
    data = reading(args.file, lambda: read_judged(args.file))
    sel = select_figure(data, args.metric, args.file)
    fig = draw_heatmap(data, sel, data["rules"])
    missing = int(np.sum(~np.isfinite(sel["med"])))
    save(fig, args.output, "%s %s, %d GPUs, %d without a figure" % (sel["test"], sel["metric"], len(sel["med"]),
                                                                  missing))


# ---- power against throughput (also mcfleet report --html)

def read_power(path):
    """the power models (/power_model: per GPU slope, intercept, r2, and the
    member tests' per-GPU rate in TFLOP/s and average power), and every test
    with per-GPU power and a GFLOP/s rate"""
    r = Results(path)
    per_test = {}
    for name, gname, g in r.tests():
        w = r.dataset(g, gname, "test_avg_power_w", "float", (r.nranks,), required=False)
        rate = r.figures(g, gname, "gflops")
        if w is not None and rate is not None:
            per_test[name] = (per_rank_median(rate) / 1e3, np.asarray(w, float))
    models = []
    pm = r.group(r.f, "", b"power_model")
    if pm is not None:
        for raw in pm.id.__iter__():
            gname = "/power_model/" + show(raw)
            g = r.group(pm, "/power_model", raw, required=True)
            cols = {k: r.dataset(g, gname, k, "float", (r.nranks,)) for k in ("slope", "intercept", "r2")}
            npoints = r.dataset(g, gname, "points", "float", (r.nranks,))
            members = [t for t in r.attr_text(g, gname, "tests").split(",") if t]   # older files: none
            unknown = [t for t in members if t not in per_test]
            points = [per_test[t] for t in members if t in per_test]
            models.append({"name": show(raw), "kernel": r.attr_text(g, gname, "kernel"), "tests": members,
                           "missing": unknown, "xy": points, "npoints": npoints, **cols})
    return {"nranks": r.nranks, "models": models, "per_test": per_test}


def has_power(pw):
    """whether read_power found a fitted model or a test with power"""
    return any(np.isfinite(m["slope"]).any() for m in pw["models"]) or bool(pw["per_test"])


def draw_power(pw, highlight=()):
    """top row: per model, every GPU's (TFLOP/s, W) points, the fleet median
    of the per-GPU fits P = a * TFLOP/s + b and the 5-95 % band of the fits'
    predictions; bottom row: per test (the four drawing the most power), each
    GPU's average power against its rate. HIGHLIGHT: ranks drawn in red"""
    models = [m for m in pw["models"] if np.isfinite(m["slope"]).any()][:4]
    tests = sorted(((n, t, w) for n, (t, w) in pw["per_test"].items() if (np.isfinite(t) & np.isfinite(w)).any()),
                   key=lambda x: -np.nanmedian(x[2]))[:4]
    rows = [x for x in (models, tests) if x]
    cols = max(len(x) for x in rows)
    fig, axes = plt.subplots(len(rows), cols, figsize=(4 * cols, 3.3 * len(rows)), squeeze=False)
    alpha = float(np.clip(30.0 / max(pw["nranks"], 1), 0.05, 0.9))
    size = 24 if pw["nranks"] < 50 else 6   # a few GPUs: each one visible
    hl = [k for k in highlight if 0 <= k < pw["nranks"]]
    few = pw["nranks"] < FEW_GPUS   # each GPU its own colour and fit, no fleet median
    row = 0
    if models:
        for ax, m in zip(axes[row], models):
            xs = [t for t, _ in m["xy"]]
            x_all = np.concatenate(xs) if xs else np.array([])
            for t, w in m["xy"] if not few else ():
                ax.scatter(t, w, s=size, color="#37474f", alpha=alpha, lw=0)
            top = np.nanmax(x_all) if np.isfinite(x_all).any() else 1.0
            x = np.linspace(0, top * 1.05, 30)
            ok = np.isfinite(m["slope"]) & np.isfinite(m["intercept"])
            if few:   # each GPU's own fit: a median of two fits is neither
                for k in np.flatnonzero(ok):
                    ax.plot(x, m["slope"][k] * x + m["intercept"][k], color=rank_colour(k), lw=1.6 if k in hl else 1,
                            label="rank %d%s: P = %.3g W/(TFLOP/s) x + %.3g W" % (
                                k, " (flagged)" if k in hl else "", m["slope"][k], m["intercept"][k]))
                    ax.scatter([t[k] for t, _ in m["xy"]], [w[k] for _, w in m["xy"]], s=18, color=rank_colour(k))
            else:
                pred = m["slope"][ok][:, None] * x[None, :] + m["intercept"][ok][:, None]
                a, b = float(np.median(m["slope"][ok])), float(np.median(m["intercept"][ok]))
                if ok.sum() >= 3:
                    ax.fill_between(x, np.percentile(pred, 5, axis=0), np.percentile(pred, 95, axis=0),
                                    color="#90a4ae", alpha=0.35, lw=0, label="5-95 % of the GPUs' fits")
                ax.plot(x, a * x + b, color="#1565c0", lw=1.2,
                        label="fleet median: P = %.3g W/(TFLOP/s) x + %.3g W" % (a, b))
                for k in hl:
                    if ok[k]:
                        ax.plot(x, m["slope"][k] * x + m["intercept"][k], color="#c62828", lw=1, label="rank %d" % k)
                        ax.scatter([t[k] for t, _ in m["xy"]], [w[k] for _, w in m["xy"]], s=14, color="#c62828")
            ax.set_title("%s model (%s): %d tests, r2 median %.3f" % (
                short(m["name"], 30), m["kernel"], len(m["tests"]) or int(np.nanmax(m["npoints"], initial=0)),
                float(np.nanmedian(m["r2"])) if np.isfinite(m["r2"]).any() else float("nan")), fontsize=8)
            if not m["xy"]:
                ax.text(0.5, 0.5, "member tests not recorded\n(a file older than 2026-11-25)", ha="center",
                        transform=ax.transAxes, fontsize=7, color="#777")
            ax.ticklabel_format(useOffset=False)
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
            ax.set_xlabel("TFLOP/s (test median)", fontsize=7)
            ax.set_ylabel("W (test average)", fontsize=7)
            ax.tick_params(labelsize=7)
            ax.legend(fontsize=6, loc="upper left")
        for ax in axes[row][len(models):]:
            ax.axis("off")
        row += 1
    if tests:
        for ax, (name, t, w) in zip(axes[row], tests):
            ok = np.isfinite(t) & np.isfinite(w)
            if few:
                for k in np.flatnonzero(ok):
                    ax.scatter([t[k]], [w[k]], s=30, color=rank_colour(k),
                               label="rank %d%s" % (k, " (flagged)" if k in hl else ""))
            else:
                ax.scatter(t[ok], w[ok], s=size, color="#37474f", alpha=max(alpha, 0.3), lw=0)
                for k in hl:
                    if ok[k]:
                        ax.scatter([t[k]], [w[k]], s=20, color="#c62828", label="rank %d" % k)
            ax.ticklabel_format(useOffset=False)
            ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(4))
            ax.set_title("%s: %d GPUs" % (short(name, 40), int(ok.sum())), fontsize=8)
            ax.set_xlabel("TFLOP/s (median)", fontsize=7)
            ax.set_ylabel("W (test average)", fontsize=7)
            ax.tick_params(labelsize=7)
            if hl or few:
                ax.legend(fontsize=6)
        for ax in axes[row][len(tests):]:
            ax.axis("off")
    fig.tight_layout()
    return fig


def parse_ranks(text, nranks):
    try:
        ranks = [int(x) for x in text.split(",") if x.strip()] if text else []
    except ValueError:
        raise BadFile("--ranks %r: expected rank numbers separated by commas" % text)
    bad = [k for k in ranks if not 0 <= k < nranks]
    if bad:
        raise BadFile("--ranks: %s not among the file's ranks 0..%d" % (",".join(map(str, bad)), nranks - 1))
    return ranks


def power(args):
    pw = reading(args.file, lambda: read_power(args.file))
    if not has_power(pw):
        raise BadFile("%s: no power figures (no power source was on for every rank, or no test with a rate)"
                      % args.file)
    ranks = parse_ranks(args.ranks, pw["nranks"])
    for m in pw["models"]:
        ok = np.isfinite(m["slope"]) & np.isfinite(m["intercept"])
        if ok.any():
            print("%s: P = %.4g W/(TFLOP/s) x TFLOP/s + %.4g W (fleet median of %d GPUs' fits; slope %.4g-%.4g)%s"
                  % (m["name"], np.median(m["slope"][ok]), np.median(m["intercept"][ok]), ok.sum(),
                     m["slope"][ok].min(), m["slope"][ok].max(),
                     "; tests not in the file: " + ",".join(m["missing"]) if m["missing"] else ""))
    save(draw_power(pw, ranks), args.output, "%d models, %d tests with power" % (
        len(pw["models"]), len(pw["per_test"])))


# ---- sustained traces (also mcfleet report --html: the flagged GPUs')

TRACE_ROWS = (("rate", None), ("power_w", "W"), ("clock_mhz", "MHz (in-kernel)"), ("sm_mhz", "MHz (power source)"),
              ("temp_c_max", "deg C"))


def read_traces(path):
    """per sustained test (a trace group): its per-second columns [nranks, windows]"""
    r = Results(path)
    out = []
    for name, gname, g in r.tests():
        tg = r.group(g, gname, b"trace")
        if tg is None:
            continue
        tname = gname + "/trace"
        cols = {}
        for col, unit in TRACE_ROWS:
            v = r.dataset(tg, tname, col, "float", (r.nranks, None), required=False)
            if v is not None and np.isfinite(v).any():
                cols[col] = v
        if cols:
            out.append({"test": name, "cols": cols, "rate_metric": r.attr_text(tg, tname, "rate_metric"),
                        "unit": r.attr_text(g, gname, "unit")})
    return {"nranks": r.nranks, "tests": out}


def draw_traces(tr, highlight=(), limit=3):
    """per sustained test a column; per reading a row: the fleet's median
    second by second, its 5-95 % band, and the highlighted ranks in colour;
    from fewer than FEW_GPUS GPUs, each GPU's own trace instead (a median
    of two is a trace neither GPU ran), the highlighted ones drawn thicker"""
    tests = tr["tests"][:limit]
    rows = [c for c, _ in TRACE_ROWS if any(c in t["cols"] for t in tests)]
    fig, axes = plt.subplots(len(rows), len(tests), figsize=(4.6 * len(tests), 1.9 * len(rows)), squeeze=False,
                             sharex="col")
    colours = ["#c62828", "#6a1b9a", "#ef6c00", "#00838f", "#5d4037"]
    few = tr["nranks"] < FEW_GPUS
    for j, t in enumerate(tests):
        for i, col in enumerate(rows):
            ax = axes[i][j]
            v = t["cols"].get(col)
            if v is None:
                ax.axis("off")
                continue
            x = np.arange(v.shape[1])
            if few:
                for k in range(v.shape[0]):
                    ax.plot(x, v[k], color=rank_colour(k), lw=1.6 if k in highlight else 0.9,
                            label="rank %d%s" % (k, " (flagged)" if k in highlight else ""))
            else:
                with np.errstate(all="ignore"), warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)   # a window no rank read
                    med = np.nanmedian(v, axis=0)
                    if v.shape[0] >= 3:
                        ax.fill_between(x, np.nanpercentile(v, 5, axis=0), np.nanpercentile(v, 95, axis=0),
                                        color="#90a4ae", alpha=0.4, lw=0, label="5-95 % of GPUs")
                ax.plot(x, med, color="#1565c0", lw=1, label="fleet median")
                for n, k in enumerate(highlight[:len(colours)]):
                    ax.plot(x, v[k], color=colours[n], lw=0.9, label="rank %d" % k)
            unit = dict(TRACE_ROWS)[col] or t["unit"] or t["rate_metric"]
            ax.set_ylabel("%s\n[%s]" % (t["rate_metric"] if col == "rate" else col, short(unit, 16)), fontsize=7)
            ax.tick_params(labelsize=7)
            ax.ticklabel_format(axis="y", useOffset=False)
            if i == 0:
                ax.set_title(short(t["test"], 50) + (" (each GPU its own)" if few else ""), fontsize=8)
                ax.legend(fontsize=6, loc="lower right")
        axes[len(rows) - 1][j].set_xlabel("s from the test's start", fontsize=7)
    fig.tight_layout()
    return fig


def sustained(args):
    tr = reading(args.file, lambda: read_traces(args.file))
    if not tr["tests"]:
        raise BadFile("%s: no sustained test (no /results/<test>/trace)" % args.file)
    ranks = parse_ranks(args.ranks, tr["nranks"])
    save(draw_traces(tr, ranks), args.output, "%d sustained tests" % min(len(tr["tests"]), 3))


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
        args.output = outpath.Path("-o", args.output, args.force)
        run[args.cmd](args)
    except outpath.Refused as e:
        print("mcfleet_plot: %s" % e, file=sys.stderr)
        sys.exit(2)
    except BadFile as e:
        print("mcfleet_plot: %s" % e, file=sys.stderr)
        sys.exit(2)
    except Unwritable as e:
        print("mcfleet_plot: %s" % e, file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
