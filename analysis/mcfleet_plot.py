#!/usr/bin/env python3
"""Plots of an mcfleet results file.

  mcfleet_plot.py variation FILE [-o OUT.png] [--tests GLOB]
      per-rank medians of each test's summary metric, grouped by node, with the
      fleet median and the outlier band (median +- 3.5 x 1.4826 x MAD)
  mcfleet_plot.py roofline FILE [-o OUT.png]
      the arithmetic-intensity sweep (memory op fma) against the measured
      bandwidth and compute ceilings, rank 0 and the fleet spread

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
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d tests)" % (args.output, len(tests)))


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
    fig.tight_layout()
    fig.savefig(args.output, dpi=110)
    print("wrote %s (%d intensity points)" % (args.output, len(points)))


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
    args = p.parse_args()
    {"variation": variation, "roofline": roofline}[args.cmd](args)


if __name__ == "__main__":
    main()
