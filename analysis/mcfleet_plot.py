#!/usr/bin/env python3
"""Plots of an mcfleet results file.

  mcfleet_plot.py variation FILE [-o OUT.png] [--tests GLOB]
      per-rank medians of each test's summary metric, grouped by node, with the
      fleet median and the outlier band (median +- 3.5 x 1.4826 x MAD)
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
Exit codes: 0 ok, 2 bad usage or a file that is not an mcfleet results file.
"""
import argparse
import fnmatch
import sys

import h5py
import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

OUTLIER_K = 3.5
MAD_SCALE = 1.4826


def text(v):
    return v.decode() if isinstance(v, bytes) else str(v)


def open_results(path):
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        sys.exit("mcfleet_plot: cannot open %s: %s" % (path, e))
    if "meta" not in f or "results" not in f:
        print("mcfleet_plot: %s is not an mcfleet results file" % path, file=sys.stderr)
        sys.exit(2)
    return f


def summary_metric(g):
    names = [m for m in text(g.attrs.get("summary_metrics", "")).split(",") if m]
    return names[0] if names else None


def per_rank_median(d):
    with np.errstate(all="ignore"):
        return np.nanmedian(d[:], axis=1)


def save(fig, output, what):
    """lays out and writes the figure, and says what it holds"""
    fig.tight_layout()
    fig.savefig(output, dpi=110)
    print("wrote %s (%s)" % (output, what))


def variation(args):
    f = open_results(args.file)
    nodes = f["ranks/node"][:]
    tests = [(n, g) for n, g in f["results"].items()
             if summary_metric(g) and fnmatch.fnmatch(n, args.tests)]
    if not tests:
        sys.exit("mcfleet_plot: no test with figures matches %r" % args.tests)
    fig, axes = plt.subplots(len(tests), 1, figsize=(8, 1.9 * len(tests)), squeeze=False)
    for ax, (name, g) in zip(axes[:, 0], tests):
        metric = summary_metric(g)
        med = per_rank_median(g[metric])
        fleet = np.nanmedian(med)
        mad = np.nanmedian(np.abs(med - fleet))
        band = OUTLIER_K * MAD_SCALE * mad
        x = np.arange(len(med))
        out = np.abs(med - fleet) > band if mad > 0 else np.zeros(len(med), bool)
        ax.scatter(x[~out], med[~out], c=nodes[~out], cmap="tab20", s=14, label="rank (colour: node)")
        ax.scatter(x[out], med[out], marker="x", c="red", s=30, label="outlier")
        ax.axhline(fleet, color="k", lw=0.8)
        if mad > 0:
            ax.axhspan(fleet - band, fleet + band, color="0.9", zorder=0)
        ax.set_ylabel("%s\n[%s]" % (metric, text(g[metric].attrs["unit"])), fontsize=7)
        ax.set_title(name, fontsize=8, loc="left")
        ax.tick_params(labelsize=7)
        ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    axes[-1, 0].set_xlabel("rank")
    meta = f["meta"].attrs
    fig.suptitle("%s: %s ranks, backend %s" % (args.file, meta["nranks"], text(meta["backend"])), fontsize=9)
    save(fig, args.output, "%d tests" % len(tests))


def roofline(args):
    f = open_results(args.file)
    points, bw_ceiling, flop_ceiling = [], [], []
    for name, g in f["results"].items():
        kernel = text(g.attrs["kernel"])
        if kernel == "memory" and text(g.attrs.get("op", "")) == "fma" and "gflops" in g:
            ai = 2.0 * int(g.attrs["intensity"]) / (2.0 * (8 if text(g.attrs["dtype"]) == "fp64" else 4))
            points.append((ai, per_rank_median(g["gflops"])))
        elif kernel == "memory" and "bandwidth_gbs" in g:
            bw_ceiling.append((name, np.nanmedian(per_rank_median(g["bandwidth_gbs"]))))
        elif kernel in ("valu", "matrix") and "gflops" in g:
            flop_ceiling.append((name, np.nanmedian(per_rank_median(g["gflops"]))))
    if not points:
        sys.exit("mcfleet_plot: no intensity sweep (memory op fma) in %s" % args.file)
    points.sort(key=lambda p: p[0])
    ai = np.array([p[0] for p in points])
    fleet = np.array([np.nanmedian(p[1]) for p in points])
    lo = np.array([np.nanmin(p[1]) for p in points])
    hi = np.array([np.nanmax(p[1]) for p in points])
    fig, ax = plt.subplots(figsize=(7, 4.5))
    ax.fill_between(ai, lo, hi, color="C0", alpha=0.25, label="fleet min-max")
    ax.plot(ai, fleet, "o-", color="C0", label="fleet median (FMA sweep)")
    x = np.logspace(np.log10(ai.min() / 2), np.log10(ai.max() * 2), 100)
    for i, (name, bw) in enumerate(sorted(bw_ceiling, key=lambda b: -b[1])[:4]):
        ax.plot(x, bw * x, "--", lw=0.8, color="C%d" % (i + 1), label="%s %.3g GB/s" % (name, bw))
    for i, (name, fl) in enumerate(sorted(flop_ceiling, key=lambda b: -b[1])[:3]):
        ax.axhline(fl, ls=":", lw=0.8, color="C%d" % (i + 5), label="%s %.3g GFLOP/s" % (name, fl))
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_ylim(fleet.min() / 4, max(fleet.max(), max([c[1] for c in flop_ceiling], default=0)) * 2)
    ax.set_xlabel("arithmetic intensity [FLOP/byte]")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7)
    ax.set_title("empirical roofline: %s" % args.file, fontsize=9)
    save(fig, args.output, "%d intensity points" % len(points))


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


def occupancy(args):
    f = open_results(args.file)
    units = int(f["ranks/compute_units"][0])
    sweeps = {}
    for name, g in f["results"].items():
        a = g.attrs
        if text(a.get("kernel", "")) != "matrix" or text(a.get("mode", "")) != "throughput":
            continue
        occ = int(a.get("occupancy", 0))
        if occ <= 0 or "gflops" not in g or "status" not in g or int(g["status"][0]) != 1:
            continue   # auto occupancy has no N; a point that did not verify has no figure
        key = (text(a["dtype"]), text(a.get("dtype_b", a["dtype"])), text(a["shape"]), text(a.get("path", "")))
        clock = float(np.nanmedian(g["clock_mhz"][0])) if "clock_mhz" in g else float("nan")
        sweeps.setdefault(key, []).append((occ * units, float(np.nanmedian(g["gflops"][0])), clock, name))
    latency = {}
    for name, g in f["results"].items():
        a = g.attrs
        if text(a.get("kernel", "")) == "matrix" and text(a.get("mode", "")) == "latency" and "latency_cycles" in g:
            latency[(text(a["dtype"]), text(a["shape"]))] = float(np.nanmedian(g["latency_cycles"][0]))
    rows, fits = [], []
    for key, pts in sorted(sweeps.items()):
        if len(pts) < 2:
            continue
        pts.sort()
        n = np.array([p[0] for p in pts], float)
        gf = np.array([p[1] for p in pts], float)
        clk = np.array([p[2] for p in pts], float)
        per_cycle = np.all(np.isfinite(clk)) and np.all(clk > 0)
        y = gf * 1e9 / (clk * 1e6) if per_cycle else gf * 1e9   # FLOP per cycle, or FLOP/s without a clock
        a, s_, _ = fit_saturating(n, y)
        m, nn, k = (int(x) for x in key[2].split("x"))
        c = latency.get((key[0], key[2]))
        fits.append((key, a, s_, per_cycle, c, m, nn, k))
        for (ni, g_, ck, name), yi in zip(pts, y):
            model = a * min(ni, s_) * (ck * 1e6 if per_cycle else 1.0) / 1e9
            rows.append((name, key[0], key[1], key[2], int(ni), g_, ck, model))
    if not fits:
        print("mcfleet_plot: %s has no matrix occupancy sweep (two or more explicit occupancy points)"
              % args.file, file=sys.stderr)
        sys.exit(2)
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        unit = "FLOP/wave/cycle" if per_cycle else "FLOP/s per wave (no clock)"
        line = "%s%s %s %s: a = %.4g %s, saturates at N = %d (%d per unit of %d)" % (
            key[0], "" if key[1] == key[0] else " x " + key[1], key[2], key[3] or "", a, unit, s_, s_ // units, units)
        if c and per_cycle:
            line += "; latency %.1f cycles gives 2mnk/c = %.4g" % (c, 2.0 * m * nn * k / c)
        print(line)
    if args.csv:
        with open(args.csv, "w") as out:
            out.write("test,dtype,dtype_b,shape,waves,gflops,clock_mhz,model_gflops\n")
            for r in rows:
                out.write("%s,%s,%s,%s,%d,%.6g,%.6g,%.6g\n" % r)
        print("wrote %s (%d points)" % (args.csv, len(rows)))
    fig, ax = plt.subplots(figsize=(7, 4.5))
    for key, a, s_, per_cycle, c, m, nn, k in fits:
        pts = [r for r in rows if (r[1], r[2], r[3]) == key[:3]]
        lab = "%s %s" % (key[0], key[2])
        ax.plot([r[4] for r in pts], [r[5] for r in pts], "o", label=lab + " measured")
        ax.plot([r[4] for r in pts], [r[7] for r in pts], "--", label=lab + " model")
    ax.set_xscale("log", base=2)
    ax.set_xlabel("wavefronts (warps) in all")
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=7)
    ax.set_title("occupancy sweeps and a*min(N,S)*f: %s" % args.file, fontsize=9)
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
    {"variation": variation, "roofline": roofline, "occupancy": occupancy}[args.cmd](args)


if __name__ == "__main__":
    main()
