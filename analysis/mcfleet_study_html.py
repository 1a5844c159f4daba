"""The page of `mcfleet study --html`: one self-contained file (plots as
embedded PNG, no network) with what the text says and the plots a study
prints: per figure, the spread by level with its intervals, the GPUs against
each covariate, the location groups; per workload kind, the GPUs' scores by
class. The numbers are the study's JSON (analysis/mcfleet_study.py), drawn,
never recomputed."""

import mcfleet_html as web   # png(), esc(), and matplotlib set up as for the report's page
from mcfleet_html import esc, plt
from mcfleet_outpath import write
from mcfleet_plotlib import short
from mcfleet_results import show
from mcfleet_study_text import COV_STEP, ci, names_refused, num, pval

CLASS_COLOURS = ["#1b7837", "#7fbf7b", "#d9a400", "#e08214", "#b2182b", "#762a83", "#555555"]
MAX_FIGURE_SECTIONS = 60   # beyond, the figures are listed in the table only
MAX_TABLE_ROWS = 200


def components_plot(f):
    comps = f["components"]
    fig, ax = plt.subplots(figsize=(5.5, 0.5 + 0.45 * len(comps)))
    ys = list(range(len(comps)))[::-1]
    for y, c in zip(ys, comps):
        lo, hi = (c.get("sd_ci") or [None, None])
        ax.barh(y, c["sd"], color="#4a7fb5")
        if lo is not None and hi is not None:
            ax.plot([lo, hi], [y, y], color="black", lw=1.5)
    ax.set_yticks(ys)
    ax.set_yticklabels([short(c["level"], 30) for c in comps])
    ax.set_xlabel("standard deviation, % of the median (95 % interval)")
    ax.set_title(short("%s %s: spread by level" % (show(f["test"]), show(f["metric"]))), fontsize=10)
    fig.tight_layout()
    return web.png(fig, "spread by level of %s" % show(f["test"]))


def covariate_plot(f, c):
    pts = [(g["covs"][c["name"]], g["mean"]) for g in f["gpus"] if c["name"] in g["covs"]]
    fig, ax = plt.subplots(figsize=(4.2, 3.2))
    ax.scatter([p[0] for p in pts], [p[1] for p in pts], s=8, alpha=0.6)
    ax.set_xlabel(short("%s (%s)" % (c["name"], c["unit"])))
    ax.set_ylabel("GPU's figure, % of the median")
    ax.set_title(short("%s: rho %+.2f" % (show(f["test"]), c["rho"])), fontsize=9)
    fig.tight_layout()
    return web.png(fig, "%s against %s" % (show(f["test"]), c["name"]))


def groups_plot(f, level, levels):
    """the GPUs by the groups of LEVEL, each group named as the study names it
    (cabinet/chassis: chassis 0 of two cabinets are two groups)"""
    above = levels[:levels.index(level) + 1] if level != "node" else []
    by = {}
    for g in f["gpus"]:
        key = "/".join(g["loc"].get(lv, "?") for lv in above) if above else g["host"]
        by.setdefault(key, []).append(g["mean"])
    names = sorted(by)
    out = {g["group"]: g for g in f["groups"] if g["level"] == level}
    fig, ax = plt.subplots(figsize=(min(12, 1.5 + 0.35 * len(names)), 3.2))
    for i, n in enumerate(names):
        hit = out.get(n, {}).get("stands_out")
        ax.scatter([i] * len(by[n]), by[n], s=6, color="#b2182b" if hit else "#4a7fb5", alpha=0.6)
    ax.axhline(0, color="#999", lw=0.8)
    ax.set_xticks(range(len(names)))
    ax.set_xticklabels([short(show(n), 14) for n in names], rotation=90, fontsize=7)
    ax.set_ylabel("GPU's figure, % of the median")
    ax.set_title(short("%s by %s (red: stands out)" % (show(f["test"]), level)), fontsize=9)
    fig.tight_layout()
    return web.png(fig, "%s by %s" % (show(f["test"]), level))


def classes_plot(kind, c):
    fig, ax = plt.subplots(figsize=(6, 2.8))
    scores = {}
    for g in c["gpus"].values():
        scores.setdefault(g["class"], []).append(g["score"])
    lo = min(min(v) for v in scores.values())
    hi = max(max(v) for v in scores.values())
    bins = [lo + (hi - lo) * i / 40 for i in range(41)] if hi > lo else 10
    for i, k in enumerate(c["classes"]):
        if k["name"] in scores:
            ax.hist(scores[k["name"]], bins=bins, color=CLASS_COLOURS[i % len(CLASS_COLOURS)],
                    label="class %s (%d)" % (k["name"], k["n_gpus"]))
    ax.set_xlabel("GPU score, % from the fleet's median (higher is better)")
    ax.set_ylabel("GPUs")
    ax.legend(fontsize=7)
    ax.set_title("%s: %d class%s" % (kind, c["k"], "" if c["k"] == 1 else "es"), fontsize=10)
    fig.tight_layout()
    return web.png(fig, "classes of %s" % kind)


def figure_section(i, f, levels):
    out = ['<h3 id="f%d">%s %s %s</h3>' % (i, esc(show(f["test"])), esc(show(f["metric"])),
                                           esc(show(f.get("sku", "")))),
           "<p>%s, %s is better, kind %s: %d GPUs on %d nodes, %d runs, median %s</p>" % (
               esc(show(f["unit"]) or "no unit"), "higher" if f["better"] > 0 else "lower", esc(f["kind"]), f["n_gpus"],
               f["n_nodes"], f["n_runs"], esc("%.6g" % f["median"]))]
    if f["components"]:
        out.append("<table><tr><th>level</th><th>groups</th><th>sd %</th><th>95 % interval</th><th>share</th>"
                   "<th>95 % interval</th></tr>")
        for c in f["components"]:
            out.append("<tr><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s %%</td><td>%s</td></tr>" % (
                esc(c["level"]), c["groups"], num(c["sd"]), ci(c.get("sd_ci")), num(100 * c["share"], "%.0f"),
                ci([None if x is None else 100 * x for x in (c.get("share_ci") or [None, None])], "%.0f")))
        out.append("</table>" + components_plot(f))
    for n in f.get("notes", []):
        out.append("<div>note: %s</div>" % esc(show(n)))
    if f["covariates"]:
        out.append("<table><tr><th>covariate</th><th>GPUs</th><th>Spearman rho</th><th>95 % interval</th><th>p</th>"
                   "<th>effect</th></tr>")
        for c in f["covariates"]:
            step, what = COV_STEP.get(c["name"], (1.0, "1 %s" % c["unit"]))
            out.append("<tr><td>%s</td><td>%d</td><td>%+.2f</td><td>%s</td><td>%s</td><td>%+.2f %% per %s %s</td></tr>"
                       % (esc(c["name"]), c["n"], c["rho"], ci(c["rho_ci"]), pval(c["p"]), c["slope"] * step, esc(what),
                          ci([None if x is None else x * step for x in c["slope_ci"]])))
        out.append("</table>")
        out += [covariate_plot(f, c) for c in f["covariates"] if c["name"] in ("sm_mhz", "power_w", "temp_c")]
    hits = [g for g in f["groups"] if g["stands_out"]]
    if hits:
        out.append("<p><b>Stand out:</b> " + "; ".join(esc("%s %s %+.2f %% %s (Holm p %s)" % (
            g["level"], show(g["group"]), g["dev"], ci(g["ci"]), pval(g["p_adj"]))) for g in hits) + "</p>")
    for lv, d in f.get("clustered", {}).items():
        out.append("<p>%s tested with design effect %.2f (its nodes share the levels below it)</p>" % (esc(lv), d))
    for lv in [lv for lv in levels if any(g["level"] == lv for g in f["groups"])][:2]:
        out.append(groups_plot(f, lv, levels))
    r = f.get("repeatability")
    if r:
        out.append("<p>Repeatability across runs: ICC %s %s</p>" % (num(r["icc"]), ci(r["ci"])))
    return out


def page(res):
    out = ['<!doctype html><html><head><meta charset="utf-8"><title>mcfleet study</title>',
           "<style>body{font-family:sans-serif;margin:1.5em;max-width:1400px}table{border-collapse:collapse;"
           "font-size:13px;margin:4px 0}td,th{border:1px solid #ccc;padding:2px 6px}th{background:#eee}"
           "img{max-width:100%;vertical-align:top}</style></head><body><h1>mcfleet study</h1>"]
    out.append("<p>%d inputs, %d runs, %d nodes; location %s (%s). Scale: 100 ln(value / median), percent of each "
               "figure's median; intervals 95 %%.</p>" % (
                   len(res["inputs"]), len(res["runs"]), len(res["nodes"]),
                   esc(show(" > ".join(res["location"]["levels"])) or "no levels"),
                   esc(show(res["location"]["pattern"]))))
    out.append("<ul>" + "".join("<li>%s</li>" % esc(show(i["path"])) for i in res["inputs"][:50]) + "</ul>")
    for i in res["inputs"]:
        if i.get("injected"):
            out.append("<p><b>Injected for testing</b> in %s: %s</p>" % (esc(show(i["path"])), esc(show(i["injected"])[:300])))
        if not i.get("complete", 1):
            out.append("<p><b>Incomplete run</b>: %s (stopped or failed: what it finished is studied)</p>"
                       % esc(show(i["path"])))
    for r in res["refused"][:20]:
        out.append("<div>refused: %s: %s</div>" % (esc(show(r["where"])), esc(show(r["why"]))))
    if res.get("node_names_refused"):
        out.append("<p><b>%s</b></p>" % esc(names_refused(res)))
    out.append("<h2>Performance classes</h2><p>A node takes its slowest GPU's class; Slurm's Weight and Features "
               "from these: mcfleet export --study (docs/operations.md).</p>")
    for kind, c in res["classes"].items():
        out.append("<h3>%s</h3><p>%s</p><table><tr><th>class</th><th>GPUs</th><th>centre %%</th><th>behind class A, %%</th>"
                   "</tr>" % (esc(kind), esc(c["rule"])))
        for k in c["classes"]:
            out.append("<tr><td>%s</td><td>%d</td><td>%+.2f</td><td>%.2f</td></tr>" % (
                esc(k["name"]), k["n_gpus"], k["centre"], k["slowdown"]))
        out.append("</table>" + classes_plot(kind, c))
    out.append("<h2>Figures</h2><table><tr><th>test</th><th>metric</th><th>GPUs</th><th>largest level</th>"
               "<th>sd %</th><th>stands out</th></tr>")
    for i, f in enumerate(res["figures"][:MAX_TABLE_ROWS]):
        top = max(f["components"], key=lambda c: c["var"]) if f["components"] else None
        name = esc(show(f["test"]))
        out.append('<tr><td>%s</td><td>%s</td><td>%d</td><td>%s</td><td>%s</td><td>%s</td></tr>' % (
            '<a href="#f%d">%s</a>' % (i, name) if i < MAX_FIGURE_SECTIONS else name, esc(show(f["metric"])),
            f["n_gpus"], esc(top["level"] if top else "-"),
            num(top["sd"]) if top else "-", esc(", ".join(show(g["group"]) for g in f["groups"] if g["stands_out"])[:200])))
    out.append("</table>")
    for i, f in enumerate(res["figures"][:MAX_FIGURE_SECTIONS]):
        out += figure_section(i, f, res["location"]["levels"] + ["node"])
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_page(path, res, force):
    body = page(res)
    write("--html", path, force, lambda f: f.write(body))


