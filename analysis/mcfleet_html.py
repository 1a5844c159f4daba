#!/usr/bin/env python3
"""mcfleet report FILE.h5 --html OUT.html: the report a person reads, one
self-contained page (plots embedded as PNG, no network, readable offline).

  mcfleet report FILE.h5 --html OUT.html [--metric TEST:METRIC] [report options]

The verdict is mcfleet report's own (its JSON, run by this script with the
same options), so the page and the text report never disagree. The page
opens with the verdict and the flagged GPUs, worst first, with their causes
and evidence; then what was not measured (failed, unsupported, hung ranks:
shown, never dropped); a heatmap of node x local GPU of one figure (--metric;
default the first judged figure), relative to its SKU's median, which stays
one image at 10,000 GPUs; the distribution of every judged figure as the
relative deviation of each GPU from its SKU's median, with the verdict's warn
and fail floors drawn, so noise looks like noise; power against throughput
per GPU with a fitted line per test; and the roofline where the file has an
intensity sweep.

Exit codes: the verdict's (0 PASS or WARN, 1 FAIL, 3 incomplete run), or 2
for a file or option it cannot use; 3 also where the page cannot be written.
"""
import argparse
import base64
import contextlib
import html
import io
import json
import os
import subprocess
import sys

import numpy as np

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_results import BadFile, Results, per_rank_median, reading  # noqa: E402

COLOURS = {"PASS": "#2e7d32", "WARN": "#ef6c00", "FAIL": "#c62828"}
MAX_FLAGGED_ROWS = 500       # flagged GPUs listed in full; beyond, counted
MAX_DIST_PLOTS = 24


def png(fig):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return '<img alt="" src="data:image/png;base64,%s">' % base64.b64encode(buf.getvalue()).decode()


def read_figures(path):
    """per judged figure: per-rank medians, better, unit; statuses; power; ranks"""
    r = Results(path)
    ranks = r.group(r.f, "", b"ranks", required=True)
    node = r.dataset(ranks, "/ranks", "node", "int", (r.nranks,))
    local = r.dataset(ranks, "/ranks", "local_rank", "int", (r.nranks,))
    names = r.dataset(ranks, "/ranks", "device_name", "str", (r.nranks,))
    codes = r.status_codes()
    figs, statuses, power = [], [], []
    for name, gname, g in r.tests():
        st = r.dataset(g, gname, "status", "int", (r.nranks,), required=False)
        if st is not None:
            bad = {}
            for k, s in enumerate(st):
                if codes.get(int(s)) != "verified":
                    bad.setdefault(codes.get(int(s), "status %d" % s), []).append(k)
            if bad:
                statuses.append((name, bad))
        for m in [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]:
            v = r.figures(g, gname, m)
            if v is None:
                continue
            better = r.better(g, gname, m)
            if better:
                figs.append({"test": name, "metric": m, "unit": r.unit(g, gname, m), "better": better,
                             "med": per_rank_median(v)})
        w = r.dataset(g, gname, "test_avg_power_w", "float", (r.nranks,), required=False)
        rate = r.figures(g, gname, "gflops")
        if w is not None and rate is not None:
            power.append((name, per_rank_median(rate), np.asarray(w, float)))
    return {"nranks": r.nranks, "node": node, "local": local, "sku": names, "figs": figs, "statuses": statuses,
            "power": power, "rules": r.rules()}


def rel_dev(fig, sku):
    """each GPU's relative deviation from its SKU's median, signed so that
    negative is worse"""
    d = np.full(len(fig["med"]), np.nan)
    for s in set(sku):
        idx = np.array([i for i, x in enumerate(sku) if x == s])
        v = fig["med"][idx]
        ref = np.nanmedian(v) if np.isfinite(v).any() else np.nan
        if np.isfinite(ref) and ref != 0:
            d[idx] = fig["better"] * (v / ref - 1)
    return d


def heatmap(data, fig_sel, rules):
    dev = rel_dev(fig_sel, data["sku"])
    nodes, gpn = int(data["node"].max()) + 1, int(data["local"].max()) + 1
    grid = np.full((gpn, nodes), np.nan)
    grid[data["local"], data["node"]] = dev * 100
    lim = max(100 * (rules["fail_rel"] if rules else 0.07), np.nanmax(np.abs(grid)) if np.isfinite(grid).any() else 0)
    w = min(18, 7 + nodes * 0.25)
    fig, ax = plt.subplots(figsize=(w, 1.2 + 0.35 * gpn))
    cmap = matplotlib.colormaps["RdYlGn"].copy()
    cmap.set_bad("#9e9e9e")
    im = ax.imshow(np.ma.masked_invalid(grid), aspect="auto", cmap=cmap, vmin=-lim, vmax=lim, interpolation="nearest")
    ax.set_xlabel("node (%d)" % nodes)
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1))
    ax.yaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_ylabel("local GPU")
    ax.set_title("%s %s: %% from its SKU's median (negative: worse; grey: no figure)" % (fig_sel["test"],
                 fig_sel["metric"]), fontsize=9)
    fig.colorbar(im, ax=ax, fraction=0.03, pad=0.01)
    fig.tight_layout()
    return png(fig)


def distributions(data, rules):
    figs = data["figs"][:MAX_DIST_PLOTS]
    n = len(figs)
    cols = 3
    rows = (n + cols - 1) // cols
    fig, axes = plt.subplots(rows, cols, figsize=(12, 2.4 * rows), squeeze=False)
    for ax, f in zip(axes.flat, figs):
        d = 100 * rel_dev(f, data["sku"])
        d = d[np.isfinite(d)]
        if rules:
            for rel, c in ((rules["warn_rel"], COLOURS["WARN"]), (rules["fail_rel"], COLOURS["FAIL"])):
                ax.axvline(-100 * rel, color=c, lw=1)
        lim = max(100 * (rules["fail_rel"] if rules else 0.07) * 1.5, np.abs(d).max() * 1.05 if d.size else 0)
        if d.size >= 50:
            ax.hist(d, bins=min(60, max(10, d.size // 4)), range=(-lim, lim), color="#546e7a")
        else:   # a few GPUs: each one a dot, so two of them are not one bar
            ax.plot(d, 0.5 + 0.3 * np.sin(np.arange(d.size) * 2.4), "o", color="#546e7a", ms=5)
            ax.set_ylim(0, 1)
            ax.set_yticks([])
        ax.set_xlim(-lim, lim)
        ax.set_title("%s %s (%d GPUs)" % (f["test"], f["metric"], d.size), fontsize=8)
        ax.tick_params(labelsize=7)
        ax.set_xlabel("% from the SKU's median (negative: worse)", fontsize=7)
    for ax in list(axes.flat)[n:]:
        ax.axis("off")
    fig.tight_layout()
    return png(fig)


def power_plot(data):
    tests = [p for p in data["power"] if np.isfinite(p[1]).any() and np.isfinite(p[2]).any()][:6]
    if not tests:
        return None
    fig, axes = plt.subplots(1, len(tests), figsize=(4 * len(tests), 3.2), squeeze=False)
    for ax, (name, rate, w) in zip(axes[0], tests):
        ok = np.isfinite(rate) & np.isfinite(w)
        ax.scatter(w[ok], rate[ok] / 1e3, s=8, color="#37474f")
        if ok.sum() >= 3 and np.ptp(w[ok]) > 0:
            a, b = np.polyfit(w[ok], rate[ok] / 1e3, 1)
            x = np.linspace(w[ok].min(), w[ok].max(), 20)
            ax.plot(x, a * x + b, color="#c62828", lw=1, label="fit: %.3g TFLOP/s per W" % a)
            ax.legend(fontsize=7)
        ax.set_title(name, fontsize=8)
        ax.set_xlabel("W (test average)", fontsize=7)
        ax.set_ylabel("TFLOP/s", fontsize=7)
        ax.tick_params(labelsize=7)
    fig.tight_layout()
    return png(fig)


def roofline_png(path):
    import mcfleet_plot
    try:
        points, roofs, methods, flops = reading(path, lambda: mcfleet_plot.read_roofline(path))
    except BadFile:
        return None
    if not points or not roofs:
        return None
    points.sort(key=lambda p: p[0])
    ai = np.array([p[0] for p in points])
    fleet = np.array([np.nanmedian(p[1]) for p in points])
    lo = np.array([np.nanmin(p[1]) for p in points])
    hi = np.array([np.nanmax(p[1]) for p in points])
    positive = fleet[fleet > 0]
    if not positive.size:
        return None
    buf = io.BytesIO()
    args = argparse.Namespace(file=path, output=buf)
    with contextlib.redirect_stdout(io.StringIO()):   # its "wrote ..." line is for the command line
        mcfleet_plot.draw_roofline(args, points, roofs, methods, flops, ai, fleet, lo, hi, positive)
    plt.close("all")
    return '<img alt="roofline" src="data:image/png;base64,%s">' % base64.b64encode(buf.getvalue()).decode()


def esc(x):
    return html.escape(str(x))


def page(rep, data, path, metric):
    v = rep.get("verdict", "?")
    c = rep.get("counts", {})
    out = ['<!doctype html><html><head><meta charset="utf-8"><title>mcfleet report: %s</title>' % esc(path),
           "<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;"
           "vertical-align:top}th{background:#eee}.v{font-size:28px;font-weight:bold;color:#fff;padding:4px 12px}"
           "img{max-width:100%}</style></head><body>",
           "<h1>mcfleet report</h1><p>%s &middot; mcfleet %s &middot; backend %s &middot; deck %s</p>"
           % (esc(path), esc(rep.get("mcfleet_version", "")), esc(rep.get("backend", "")), esc(rep.get("deck", ""))),
           '<p><span class="v" style="background:%s">VERDICT: %s</span> &nbsp; GPUs: %s PASS, %s WARN, %s FAIL; '
           "nodes: %s PASS, %s WARN, %s FAIL</p>" % (COLOURS.get(v, "#555"), esc(v), c.get("pass", 0), c.get("warn", 0),
                                                      c.get("fail", 0), c.get("nodes_pass", 0), c.get("nodes_warn", 0),
                                                      c.get("nodes_fail", 0))]
    for line in rep.get("reasons", []) + rep.get("profiles", []):
        out.append("<div>%s</div>" % esc(line))
    if rep.get("injected"):
        out.append("<p><b>Injected for testing:</b> %s</p>" % esc(rep["injected"]))
    flagged = [g for g in rep.get("gpus", []) if g.get("verdict") != "PASS"]
    flagged.sort(key=lambda g: -g.get("severity", 0))
    out.append("<h2>Flagged GPUs (%d)</h2>" % len(flagged))
    if flagged:
        out.append("<table><tr><th>verdict</th><th>rank</th><th>host</th><th>node</th><th>local</th><th>UUID</th>"
                   "<th>serial</th><th>PCI</th><th>causes</th><th>evidence</th></tr>")
        for g in flagged[:MAX_FLAGGED_ROWS]:
            causes = "<br>".join(esc("%s %s: %s" % (x.get("level", ""), x.get("rule", ""), x.get("text", "")))
                                 for x in g.get("causes", [])[:6])
            out.append('<tr><td style="color:%s"><b>%s</b></td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
                       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                       % (COLOURS.get(g["verdict"], "#000"), esc(g["verdict"]), g.get("rank"), esc(g.get("host")),
                          g.get("node"), g.get("local_rank"), esc(g.get("uuid")), esc(g.get("serial")),
                          esc(g.get("pci_bus_id")), causes, esc(g.get("evidence", ""))))
        out.append("</table>")
        if len(flagged) > MAX_FLAGGED_ROWS:
            out.append("<p>... and %d more (mcfleet report --format csv lists all)</p>" % (len(flagged) - MAX_FLAGGED_ROWS))
    else:
        out.append("<p>No GPU flagged.</p>")
    out.append("<h2>Not measured</h2>")
    if data["statuses"]:
        out.append("<table><tr><th>test</th><th>status</th><th>ranks</th></tr>")
        for name, bad in data["statuses"]:
            for s, rk in bad.items():
                out.append("<tr><td>%s</td><td>%s</td><td>%s</td></tr>" % (esc(name), esc(s), esc(
                    ", ".join(map(str, rk[:50])) + (" ... (%d in all)" % len(rk) if len(rk) > 50 else ""))))
        out.append("</table>")
    else:
        out.append("<p>Every rank verified every test.</p>")
    if data["figs"]:
        sel = data["figs"][0]
        if metric:
            t, _, m = metric.partition(":")
            sel = next((f for f in data["figs"] if f["test"] == t and (not m or f["metric"] == m)), None)
            if sel is None:
                raise BadFile("--metric %s: no judged figure of that test and metric in %s" % (metric, path))
        out.append("<h2>Heatmap: node x local GPU</h2>" + heatmap(data, sel, data["rules"]))
        out.append("<h2>Distributions</h2><p>Each GPU's median against its SKU's median; the lines are the "
                   "verdict's warn and fail floors (the peer rule may set a wider threshold where the fleet's "
                   "spread is wider: the causes above say which).</p>" + distributions(data, data["rules"]))
    pp = power_plot(data)
    if pp:
        out.append("<h2>Power against throughput, per GPU</h2>" + pp)
    rl = roofline_png(path)
    if rl:
        out.append("<h2>Empirical roofline</h2>" + rl)
    out.append("<p style='color:#777'>Not on this page yet: the occupancy fits, sustained traces of the flagged "
               "GPUs and drift against a baseline (mcfleet compare, analysis/mcfleet_plot.py).</p></body></html>")
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(prog="mcfleet report FILE.h5 --html", description=__doc__.split("\n\n")[1])
    ap.add_argument("file", metavar="FILE.h5")
    ap.add_argument("--html", required=True, metavar="OUT.html")
    ap.add_argument("--metric", help="TEST[:METRIC] of the heatmap (default: the first judged figure)")
    a, passthrough = ap.parse_known_args(argv)
    binary = os.environ.get("MCFLEET_BIN", "mcfleet")
    p = subprocess.run([binary, "report", a.file, "--format", "json"] + passthrough, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    try:
        rep = json.loads(p.stdout.decode("utf-8", "replace"))
    except ValueError:
        sys.stderr.write(p.stderr.decode("utf-8", "replace"))
        return p.returncode or 2
    if rep.get("verdict") == "MALFORMED" or p.returncode == 2:
        sys.stderr.write(p.stderr.decode("utf-8", "replace") or "mcfleet report: %s\n" % "; ".join(rep.get("reasons", [])))
        return 2
    try:
        data = reading(a.file, lambda: read_figures(a.file))
        if all(k in rep.get("rules", {}) for k in ("warn_rel", "fail_rel")):
            data["rules"] = rep["rules"]   # the floors the verdict used (--warn/--fail included)
        text = page(rep, data, a.file, a.metric)
    except BadFile as e:
        print("mcfleet report: %s" % e, file=sys.stderr)
        return 2
    try:
        with open(a.html, "w") as f:
            f.write(text)
    except OSError as e:
        print("mcfleet report: cannot write %s: %s" % (a.html, e.strerror or e), file=sys.stderr)
        return 3
    print("wrote %s (verdict %s, %d KB)" % (a.html, rep.get("verdict"), len(text) // 1024))
    return p.returncode


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
