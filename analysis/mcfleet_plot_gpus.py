"""The plots of each GPU for analysis/mcfleet_plot.py and the page
(mcfleet_html.py): the judged figures as a heatmap and distributions (each
GPU's own values below 5 GPUs), power over time, and sustained tests' traces.
Import it after mcfleet_python.require()."""
import warnings

import numpy as np
import matplotlib.pyplot as plt
import matplotlib.ticker

from mcfleet_results import BadFile, Results, per_rank_median, reading, show
from mcfleet_plotlib import save, short


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
    # as the C report: indices of a placement, which the heatmap's grid is sized by
    if node.min() < 0 or local.min() < 0 or node.max() >= r.nranks or local.max() >= r.nranks:
        r.bad("/ranks/node, local_rank", "not a node or local index (0..nranks-1)")
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
