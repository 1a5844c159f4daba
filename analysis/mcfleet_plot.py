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

Needs h5py, numpy and matplotlib (Debian: python3-h5py python3-matplotlib).

Exit codes:
  0  the figure (and CSV) written
  2  bad usage; a file that cannot be opened, is not an mcfleet results file
     or is malformed (one line on stderr names the file and the object); or
     nothing in the file to plot (no test matches, no sweep)
  3  the figure or CSV cannot be written
The file is read defensively: soft and external links are never followed, and
every object's type and shape is checked before it is used.
"""
import argparse
import fnmatch
import os
import sys

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_results import BadFile, Results, finite_median, per_rank_median, reading, show  # noqa: E402


class Unwritable(Exception):
    """an output that cannot be written"""


def short(text, n=60):
    """a label that matplotlib can draw: a huge one overflows its rasterizer"""
    return text if len(text) <= n else text[:n - 3] + "..."


def save(fig, output, what, rect=None):
    """lays out and writes the figure (rect: the part the axes may use), and says what it holds"""
    fig.tight_layout(rect=rect)
    try:
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
    (/meta level_method_<level>); the compute ceilings (test name, GFLOP/s)"""
    r = Results(path)
    points, roofs, flop_ceiling = [], {}, []
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
            ceiling = finite_median(per_rank_median(v)) if v is not None else float("nan")
            if not ceiling > 0:   # a ceiling on a log scale
                continue
            if kernel == "memory":
                level = r.attr_text(g, gname, "level", default="hbm")
                if level not in LEVELS:
                    r.bad(gname + " attribute level", "%r is not one of %s" % (level, ", ".join(LEVELS)))
                if level not in roofs or ceiling > roofs[level][1]:
                    roofs[level] = (name, ceiling)
            else:
                flop_ceiling.append((name, ceiling))
    methods = {lv: r.attr_text(r.meta, "/meta", "level_method_" + lv, default="not recorded (an older file)")
               for lv in roofs}
    return points, roofs, methods, flop_ceiling


def roofline(args):
    points, roofs, methods, flop_ceiling = reading(args.file, lambda: read_roofline(args.file))
    if not points:
        raise BadFile("%s: no intensity sweep (memory op fma) with figures" % args.file)
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


def occupancy(args):
    units, sweeps, latency = reading(args.file, lambda: read_occupancy(args.file))
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
    if not fits:
        raise BadFile("%s has no matrix occupancy sweep (two or more explicit occupancy points)" % args.file)
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        unit = "FLOP/wave/cycle" if per_cycle else "FLOP/s per wave (no clock)"
        line = "%s%s %s %s: a = %.4g %s, saturates at N = %d (%d per unit of %d)" % (
            key[0], "" if key[1] == key[0] else " x " + key[1], key[2], key[3] or "", a, unit, s_, s_ // units, units)
        if c and per_cycle:
            line += "; latency %.1f cycles gives 2mnk/c = %.4g" % (c, 2.0 * m * nn * k / c)
        print(line)
    if args.csv:
        try:
            with open(args.csv, "w") as out:
                out.write("test,dtype,dtype_b,shape,waves,gflops,clock_mhz,model_gflops\n")
                for row in rows:
                    out.write("%s,%s,%s,%s,%d,%.6g,%.6g,%.6g\n" % row)
        except OSError as e:
            raise Unwritable("cannot write %s: %s" % (args.csv, e.strerror or e))
        print("wrote %s (%d points)" % (args.csv, len(rows)))
    draw_occupancy(args, fits, rows)


def draw_occupancy(args, fits, rows):
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
    ax.set_title("occupancy sweeps and a*min(N,S)*f: %s" % short(show(args.file), 100), fontsize=9)
    save(fig, args.output, "%d sweeps" % len(fits))


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="cmd", required=True)
    v = sub.add_parser("variation", help="per-rank medians by node, with outliers")
    v.add_argument("file")
    v.add_argument("-o", "--output", default="variation.png")
    v.add_argument("--tests", default="*", help="glob of test names (default: all)")
    r = sub.add_parser("roofline", help="intensity sweep against the measured ceilings")
    r.add_argument("file")
    r.add_argument("-o", "--output", default="roofline.png")
    o = sub.add_parser("occupancy", help="matrix occupancy sweeps fitted to the throughput model")
    o.add_argument("file")
    o.add_argument("-o", "--output", default="occupancy.png")
    o.add_argument("--csv", help="also write the points and the model to this CSV")
    args = p.parse_args()
    try:
        {"variation": variation, "roofline": roofline, "occupancy": occupancy}[args.cmd](args)
    except BadFile as e:
        print("mcfleet_plot: %s" % e, file=sys.stderr)
        sys.exit(2)
    except Unwritable as e:
        print("mcfleet_plot: %s" % e, file=sys.stderr)
        sys.exit(3)


if __name__ == "__main__":
    main()
