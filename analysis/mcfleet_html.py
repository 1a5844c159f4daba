#!/usr/bin/env python3
"""mcfleet report FILE.h5 --html OUT.html: the report a person reads, one
self-contained page (plots embedded as PNG, no network, readable offline).

  mcfleet report FILE.h5 --html OUT.html [--metric TEST:METRIC]
                 [--history OLD.h5 ...] [report options, e.g. --profiles DIR]

The verdict is mcfleet report's own (its JSON, run by this script with the
same options), so the page and the text report never disagree. The page
opens with the verdict and the flagged GPUs, worst first, with their causes
and evidence; then what was not measured (failed, unsupported, hung ranks:
shown, never dropped); the links of the transfer tests (per node, the
GPU-to-GPU matrix as a heatmap and each network test's worst pair,
mcfleet_links.py); a heatmap of node x local GPU of one figure (--metric;
default the first judged figure), relative to its SKU's median, which stays
one image at 10,000 GPUs; the distribution of every judged figure as the
relative deviation of each GPU from its SKU's median, with the verdict's warn
and fail floors drawn, so noise looks like noise; power against throughput
per GPU with the fitted power models; rank 0's occupancy sweeps with the
throughput model fitted; the sustained tests second by second, the flagged
GPUs drawn against the fleet's band; the roofline where the file has an
intensity sweep; and, with --history, each GPU's drift against its own
earlier runs (mcfleet compare's rule; the page's exit code stays the
verdict's). The plots are analysis/mcfleet_plot.py's, the same code.

Exit codes: the verdict's (0 PASS or WARN, 1 FAIL, 3 incomplete run), or 2
for a file or option it cannot use; 3 also where the page cannot be written.
"""
import argparse
import base64
import contextlib
import html
import io
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_python  # noqa: E402
mcfleet_python.require("mcfleet report --html")   # else another python3 that has them, or exit 3

import numpy as np  # noqa: E402

import matplotlib
matplotlib.use("Agg")
if "text.parse_math" in matplotlib.rcParams:   # names from the file drawn as they are, never as maths
    matplotlib.rcParams["text.parse_math"] = False   # (mcfleet_plot sets it too; its short() escapes "$" before 3.5)
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker  # noqa: E402

from mcfleet_results import BadFile, reading, show  # noqa: E402
import mcfleet_compare  # noqa: E402
import mcfleet_creport as creport  # noqa: E402
import mcfleet_links  # noqa: E402
import mcfleet_outpath as outpath  # noqa: E402
import mcfleet_plot as plot  # noqa: E402

COLOURS = plot.VERDICT_COLOURS
MAX_FLAGGED_ROWS = 500       # flagged GPUs listed in full; beyond, counted
CAUSES_SHOWN = 6             # per flagged GPU, worst first, as the text report shows them
MAX_DRIFT_ROWS = 200
HIGHLIGHT = 5                # flagged GPUs drawn by rank in the power and sustained plots


def png(fig, alt=""):
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90)
    plt.close(fig)
    return '<img alt="%s" src="data:image/png;base64,%s">' % (esc(alt), base64.b64encode(buf.getvalue()).decode())


def optional(fn, path):
    """a section's figures, or None where the file has none of its kind"""
    try:
        return fn(path)
    except BadFile:
        return None


def read_all(path):
    """everything the page draws, in one pass of the reader (one child process
    opening the file once: a 10,000-GPU file is most of a GB)"""
    data = plot.read_judged(path)
    data.update(power=plot.read_power(path), traces=plot.read_traces(path),
                occupancy=optional(plot.read_occupancy, path), roofline=optional(plot.read_roofline, path))
    return data


def roofline_section(path, data):
    """the empirical roofline: the intensity sweep under the measured roofs;
    without a sweep (an acceptance deck has none) the roof alone, from the
    bandwidth and compute tests the file has; without those, why there is none"""
    head = "<h2>Empirical roofline</h2>"
    if data["roofline"] is None:
        return head + "<p>No roofline: the file's tests could not be read for one (see the sections above).</p>"
    points, roofs, methods, flops, per_gpu = data["roofline"]
    points = [p for p in points if np.isfinite(p[1]).any()]
    if points:
        points.sort(key=lambda p: p[0])
        ai = np.array([p[0] for p in points])
        fleet = np.array([np.nanmedian(p[1]) for p in points])
        lo = np.array([np.nanmin(p[1]) for p in points])
        hi = np.array([np.nanmax(p[1]) for p in points])
        positive = fleet[fleet > 0]
        if positive.size:
            buf = io.BytesIO()
            args = argparse.Namespace(file=path, output=buf)
            with contextlib.redirect_stdout(io.StringIO()):   # its "wrote ..." line is for the command line
                plot.draw_roofline(args, points, roofs, methods, flops, ai, fleet, lo, hi, positive)
            plt.close("all")
            return head + ("" if roofs else "<p>No memory bandwidth test in this file: the sweep without a "
                           "bandwidth roof.</p>") + (
                '<img alt="roofline" src="data:image/png;base64,%s">' % base64.b64encode(buf.getvalue()).decode())
    levels, compute = plot.roof_ceilings(per_gpu, data["nranks"])
    sweep = ("This file has no intensity sweep (a memory test with <code>op: fma</code> at several "
             "<code>intensity</code> steps, as in <code>input/roofline.yaml</code>; an acceptance deck has none), "
             "so no kernel is placed under the roof")
    if not levels or not compute:
        lacks = [x for x, have in (("a memory bandwidth test (<code>kernel: memory</code>)", levels),
                                   ("a compute test (<code>kernel: matrix</code> or <code>valu</code>)", compute))
                 if not have]
        return head + "<p>No roofline: %s, and the roof needs %s with figures, which it lacks.</p>" % (
            sweep[0].lower() + sweep[1:], " and ".join(lacks))
    whose = ("each ceiling the fleet median of the GPUs' medians" if data["nranks"] >= plot.FEW_GPUS else
             "each ceiling the best GPU's own figure, its rank named (fewer than %d GPUs: no median)" % plot.FEW_GPUS)
    return head + "<p>%s. The roof is drawn from the ceilings it measured: %s bandwidth and %d compute "\
        "ceilings, each from its ridge point (the intensity where the bandwidth reaches it); %s.</p>" % (
            sweep, " and ".join(lv.upper() for lv in plot.LEVELS if lv in levels), len(compute), whose) \
        + png(plot.draw_roof(path, levels, compute, methods), "roofline of the measured ceilings")


def esc(x):
    return html.escape(str(x))


def page(rep, data, path, metric, history=None):
    v = rep.get("verdict", "?")
    c = rep.get("counts", {})
    out = ['<!doctype html><html><head><meta charset="utf-8"><title>mcfleet report: %s</title>' % esc(show(path)),
           "<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px}"
           "table{border-collapse:collapse;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;"
           "vertical-align:top}th{background:#eee}.v{font-size:28px;font-weight:bold;color:#fff;padding:4px 12px}"
           "img{max-width:100%}</style></head><body>",
           "<h1>mcfleet report</h1><p>%s &middot; mcfleet %s &middot; backend %s &middot; deck %s</p>"
           % (esc(show(path)), esc(rep.get("mcfleet_version", "")), esc(rep.get("backend", "")), esc(rep.get("deck", ""))),
           '<p><span class="v" style="background:%s">VERDICT: %s</span> &nbsp; GPUs: %s PASS, %s WARN, %s FAIL; '
           "nodes: %s PASS, %s WARN, %s FAIL</p>" % (COLOURS.get(v, "#555"), esc(v), c.get("pass", 0), c.get("warn", 0),
                                                      c.get("fail", 0), c.get("nodes_pass", 0), c.get("nodes_warn", 0),
                                                      c.get("nodes_fail", 0))]
    for line in rep.get("reasons", []) + rep.get("profiles", []):
        out.append("<div>%s</div>" % esc(line))
    if rep.get("injected"):
        out.append("<p><b>Injected for testing:</b> %s</p>" % esc(rep["injected"]))
    if rep.get("injected_slow"):
        out.append("<p><b>Slowdown injected for testing:</b> %s</p>" % esc(rep["injected_slow"]))
    flagged = [g for g in rep.get("gpus", []) if g.get("verdict") != "PASS"]
    flagged.sort(key=lambda g: -g.get("severity", 0))
    out.append("<h2>Flagged GPUs (%d)</h2>" % len(flagged))
    if flagged:
        out.append("<table><tr><th>verdict</th><th>rank</th><th>host</th><th>node</th><th>local</th><th>UUID</th>"
                   "<th>serial</th><th>PCI</th><th>causes</th><th>next</th><th>evidence</th></tr>")
        for g in flagged[:MAX_FLAGGED_ROWS]:
            every = g.get("causes", [])   # worst first, as the binary lists them
            causes = "<br>".join(esc("%s %s: %s" % (x.get("level", ""), x.get("rule", ""), x.get("text", "")))
                                 for x in every[:CAUSES_SHOWN])
            if len(every) > CAUSES_SHOWN:
                causes += "<br>... %d more (%d in all; mcfleet report --format json lists them)" % (
                    len(every) - CAUSES_SHOWN, len(every))
            # the report's next steps: the first thing to do, then the others, and what it cannot rule out
            steps = [t for t in g.get("next_steps") or [] if isinstance(t, str)]
            nxt = "<br>".join(esc(("then: " if k else "") + t) for k, t in enumerate(steps))
            if g.get("caveat"):
                nxt += "<br>note: " + esc(g["caveat"])
            whose = {"node": " (its node's)", "environment": " (the environment's)", "deck": " (the deck's)"}.get(
                g.get("attribution", "gpu"), "")
            out.append('<tr><td style="color:%s"><b>%s</b>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td>'
                       "<td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td></tr>"
                       % (COLOURS.get(g["verdict"], "#000"), esc(g["verdict"]), esc(whose), g.get("rank"),
                          esc(g.get("host")), g.get("node"), g.get("local_rank"), esc(g.get("uuid")),
                          esc(g.get("serial")), esc(g.get("pci_bus_id")), causes, nxt, esc(g.get("evidence", ""))))
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
        sel = plot.select_figure(data, metric, path)
        out.append("<h2>Heatmap: node x local GPU</h2>" + png(plot.draw_heatmap(data, sel, data["rules"]), "heatmap"))
        few = sum(1 for f in data["figs"] if np.isfinite(f["med"]).sum() < plot.FEW_GPUS)
        out.append("<h2>Distributions</h2><p>%s; the lines are the verdict's warn and fail floors%s (the peer rule "
                   "may set a wider threshold where the fleet's spread is wider: the causes above say which).</p>" % (
                       "Each GPU's median against its SKU's median" if not few else
                       "Fewer than %d GPUs have %s: a median and a spread of so few mean nothing (the median of "
                       "two is a value neither GPU reached), so each GPU's own median is drawn, in the test's "
                       "unit, labelled by rank, with its distance from the best GPU of its SKU" % (
                           plot.FEW_GPUS, "these figures" if few == len(data["figs"])
                           else "%d of these figures (marked 'each its own')" % few),
                       "" if not few else ", there below that best GPU")
                   + png(plot.draw_distributions(data, data["rules"]), "distributions"))
    out.append(mcfleet_links.links_section(rep, png))
    highlight = [g["rank"] for g in flagged[:HIGHLIGHT] if isinstance(g.get("rank"), int)]
    named = (" The flagged GPUs in colour: %s." % ", ".join("rank %d" % k for k in highlight)) if highlight else ""
    pw = data["power"]
    if plot.has_power(pw):
        models = any(np.isfinite(m["slope"]).any() for m in pw["models"])
        fits = ("every GPU's points, the fleet median of the fits and the band of 5-95 % of them"
                if pw["nranks"] >= plot.FEW_GPUS else
                "each GPU's points and its own fit, one colour per rank (fewer than %d GPUs: no fleet median)"
                % plot.FEW_GPUS)
        out.append("<h2>Power against throughput, per GPU</h2><p>%s%s%s</p>" % (
            "Top: per power model (P = a &middot; TFLOP/s + b, fitted per GPU over its tests; the MI250X "
            "matrix-core paper's model) %s. Bottom: " % fits if models else "No power model in this file (its deck "
            "has no occupancy or size steps of one type: input/power-study.yaml has). ",
            "per test, each GPU's average power against its rate." if pw["per_test"] else "", esc(named))
            + png(plot.draw_power(pw, highlight), "power"))
    occ = occupancy_section(path, data)
    if occ:
        out.append(occ)
    tr = data["traces"]
    if tr["tests"]:
        if tr["nranks"] < plot.FEW_GPUS:
            what = ("Each GPU's own trace, one colour per rank (fewer than %d GPUs: a fleet median would be a "
                    "trace no GPU ran); %s" % (plot.FEW_GPUS, "the flagged drawn thicker: %s." % ", ".join(
                        "rank %d" % k for k in highlight) if highlight else "no GPU flagged."))
        else:
            what = "The fleet's median and 5-95 %% band; %s" % (named.strip() if highlight else
                                                               "no GPU flagged, none drawn apart.")
        out.append("<h2>Sustained at the limit, second by second</h2><p>%s</p>" % esc(what)
                   + png(plot.draw_traces(tr, highlight), "sustained traces"))
    out.append(roofline_section(path, data))
    out.append(drift_section(history))
    out.append("</body></html>")
    return "\n".join(x for x in out if x)


def occupancy_section(path, data):
    """rank 0's occupancy sweeps and the throughput model fitted to them"""
    if data["occupancy"] is None:
        return None   # no sweep, or no compute_units column (an older file): the other sections still stand
    units, sweeps, latency = data["occupancy"]
    fits, rows = plot.fit_occupancy(units, sweeps, latency)
    if not fits:
        return None
    lines = "".join("<li>%s</li>" % esc(x) for x in plot.occupancy_lines(units, fits))
    return ("<h2>Occupancy fits (rank 0)</h2><p>FLOPS(N) = a &middot; min(N, S) &middot; f, fitted to each "
            "sweep (the MI250X matrix-core paper's model): a per wave and cycle, saturation at S.</p><ul>%s</ul>"
            % lines + png(plot.draw_occupancy(path, fits, rows), "occupancy"))


def drift_section(history):
    """mcfleet compare of the earlier runs given with --history against this one"""
    if history is None:
        return ("<h2>Drift</h2><p>No history given: <code>mcfleet report FILE --html OUT --history OLD.h5 "
                "[...]</code> adds each GPU's drift against its own earlier runs (mcfleet compare), and "
                "<code>--profiles DIR</code>, a directory holding the SKU profile that <code>mcfleet baseline</code> "
                "made from this center's own runs, judges against it (its causes are above).</p>")
    res = history
    out = ["<h2>Drift against history (%d earlier run%s)</h2>" % (len(res["runs"]) - 1,
                                                                  "" if len(res["runs"]) == 2 else "s"),
           "<p>GPUs matched by UUID or serial: %d compared. Flagged where the change is beyond %g x the GPU's "
           "own run-to-run noise and at least %.1f %%, on the worse side.</p>" % (
               res["gpus_compared"], res["sigmas"], 100 * res["min_rel"])]
    if res["drift"]:
        out.append("<table><tr><th>GPU</th><th>host</th><th>device</th><th>test</th><th>metric</th><th>now</th>"
                   "<th>reference</th><th>change</th><th>threshold</th><th>earlier runs</th></tr>")
        for d in res["drift"][:MAX_DRIFT_ROWS]:
            out.append("<tr><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%s</td><td>%.4g %s</td><td>%.4g</td>"
                       "<td><b>%+.1f %%</b></td><td>%.1f %%</td><td>%d</td></tr>" % (
                           esc(d["gpu"]), esc(d["host"]), d["device"], esc(d["test"]), esc(d["metric"]), d["value"],
                           esc(d["unit"]), d["reference"], 100 * d["deviation"], 100 * d["threshold"],
                           d["earlier_runs"]))
        out.append("</table>")
        if len(res["drift"]) > MAX_DRIFT_ROWS:
            out.append("<p>... and %d more (mcfleet compare lists all)</p>" % (len(res["drift"]) - MAX_DRIFT_ROWS))
    else:
        out.append("<p>No GPU drifted.</p>")
    for m in res["moves"][:MAX_DRIFT_ROWS]:
        out.append("<div>%s: %s %s -> %s</div>" % (esc(m["gpu"]), esc(m["kind"]), esc(m["from"]), esc(m["to"])))
    why = {}
    for n in res["not_comparable"]:
        why.setdefault(n["why"], []).append(n["test"])
    for w, tests in why.items():
        out.append("<div>not comparable, %s: %s</div>" % (esc(w), esc(", ".join(tests[:50]) + (
            " ... (%d in all)" % len(tests) if len(tests) > 50 else ""))))
    return "\n".join(out)


def main(argv):
    ap = argparse.ArgumentParser(prog="mcfleet report FILE.h5 --html", description=__doc__.split("\n\n")[1])
    ap.add_argument("file", metavar="FILE.h5")
    ap.add_argument("--html", required=True, metavar="OUT.html")
    ap.add_argument("--metric", help="TEST[:METRIC] of the heatmap (default: the first judged figure)")
    ap.add_argument("--history", nargs="+", action="extend", metavar="OLD.h5",
                    help="earlier runs, oldest first: each GPU's drift against them (mcfleet compare's rule)")
    ap.add_argument("--force", action="store_true", help="replace an existing OUT.html (a regular file)")
    a, passthrough = ap.parse_known_args(argv)
    try:
        outpath.check("--html", a.html, a.force)   # before the work (mcfleet checked too; this may run by hand)
    except outpath.Refused as e:
        print("mcfleet report: %s" % show(str(e)), file=sys.stderr)
        return 2
    p = creport.run(a.file, passthrough)   # the verdict is the C report's
    rep = p.report
    if rep is None:
        sys.stderr.write(p.stderr)
        return p.code or 2
    if rep.get("verdict") == "MALFORMED" or p.code == 2:
        sys.stderr.write(p.stderr or "mcfleet report: %s\n" % "; ".join(rep.get("reasons", [])))
        return 2
    try:
        data = reading(a.file, lambda: read_all(a.file))
        if all(k in rep.get("rules", {}) for k in ("warn_rel", "fail_rel")):
            data["rules"] = rep["rules"]   # the floors the verdict used (--warn/--fail included)
        history = None
        if a.history:
            runs = [reading(x, lambda x=x: mcfleet_compare.read_run(x)) for x in a.history + [a.file]]
            history = mcfleet_compare.compare(runs, mcfleet_compare.DEFAULT_MIN_REL, mcfleet_compare.DEFAULT_SIGMAS)
        text = page(rep, data, a.file, a.metric, history)
    except BadFile as e:
        print("mcfleet report: %s" % show(str(e)), file=sys.stderr)
        return 2
    try:
        outpath.write("--html", a.html, a.force, lambda f: f.write(text))
    except outpath.Refused as e:
        print("mcfleet report: %s" % show(str(e)), file=sys.stderr)
        return 2
    except OSError as e:
        print("mcfleet report: cannot write --html %s: %s" % (show(a.html), e.strerror or e), file=sys.stderr)
        return 3
    print("wrote %s (verdict %s, %d KB)" % (show(a.html), rep.get("verdict"), len(text) // 1024))
    return p.code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
