#!/usr/bin/env python3
"""mcfleet study: where a fleet's spread comes from (docs/study.md).

  mcfleet study RUN.h5|TABLE.csv [MORE ...] [--format text|json] [-o FILE] [--html PAGE.html]
                [--location auto|xname|none|REGEX] [--location-map MAP.csv] [--test GLOB] [--all-metrics]
                [--min-rel PCT] [--alpha A] [--boot N] [--seed S] [--kmax K]
                [--force]

Each input is a results file (one run) or a study table (CSV: docs/study.md;
the SC22 artifact's rows through analysis/mcfleet_sc22.py). Every figure
(a test's judged metric) is studied on the log scale, 100 ln(value / median):
a percent of the typical value, so a cabinet 3 % slower is -3 whatever the
unit.

For each figure:
  spread by level  a nested variance decomposition (cabinet > chassis > ...
                   > node > GPU > run > repetition; the location levels from
                   the node names, --location), each level's standard
                   deviation in percent and share of the variance, with 95 %
                   intervals (generalized pivots from a parametric bootstrap
                   of the fitted model: wide where a level has few groups)
  follows          the GPUs' figures against their clock under load, power,
                   temperature, throttled share, NUMA locality and PCIe state:
                   Spearman's rho with its interval and p, and the Theil-Sen
                   slope (percent per unit), where 5 GPUs or more differ
  stands out       the location groups (and nodes) whose mean differs from
                   the rest's by --min-rel percent or more (default 1) with a
                   Holm-adjusted permutation p below --alpha (default 0.01)
  repeatability    with two runs or more: the intra-class correlation of a
                   GPU's run means (1: a GPU is what it was), and per GPU with
                   three runs or more its trend per run (Theil-Sen, Kendall)
Then performance classes per workload kind (matrix, compute, memory, power
(tests with a duration), link, other): each GPU's score is the mean of its figures
in that kind (percent from the median, higher better); classes by exact 1-D
k-means, k by BIC with the variance floored at the measurement noise, classes
closer than twice the noise or --min-rel merged. A node's class is its slowest GPU's.
`mcfleet export --study STUDY.json` turns the classes into Slurm weights and
features and a Prometheus textfile (docs/operations.md).

Exit codes: 0 studied; 2 bad usage or input (the file, line or option
named); 3 nothing to study (no figure with data), an output that cannot be
written, or a missing module.
"""
import argparse
import fnmatch
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_study_data import COVARIATE_UNITS, BadInput, locate, read_inputs, show   # noqa: E402
import mcfleet_study_stats as st   # noqa: E402

CLASS_KINDS = ("matrix", "compute", "memory", "power", "link", "other")
MIN_GPUS_COV = 5   # fewer GPUs than this: no correlation is worth printing
DEFF_SAID = 1.2    # a level tested with a design effect from this up is said beside its groups


class Usage(Exception):
    pass


def design(a, sel, table, where, levels):
    """the nested levels of a figure's observations: (names, [ids per level]),
    outermost first, the last name the residual's; ids made per GPU, then
    indexed per observation"""
    units = a["unit"][sel]
    runs = a["run"][sel]
    node_of = [table.units[u]["node"] for u in range(len(table.units))]
    names, groups = [], []
    for i, lv in enumerate(levels):
        per_unit = st.relabel(["/".join(where[n][:i + 1]) for n in node_of])
        names.append(lv)
        groups.append(per_unit[units])
    names.append("node")
    groups.append(st.relabel(node_of)[units])
    names.append("gpu")
    groups.append(units.astype(np.int64))
    cell = st.relabel(units * (len(table.runs) + 1) + runs)
    reps = np.bincount(cell).max() > 1
    if len(np.unique(runs)) > 1 and reps:
        names.append("run")
        groups.append(cell)
    names.append("repetition" if reps else "run")
    return names, groups


def figure_study(fi, a, table, where, levels, opt):
    fig = table.figures[fi]
    sel = np.flatnonzero(a["fig"] == fi)
    v = a["value"][sel]
    med = float(np.median(v))
    y = 100.0 * (np.log(v) - np.log(med))   # never v / med: 1e308 / 1e-300 overflows
    names, groups = design(a, sel, table, where, levels)
    out = dict(fig, n_obs=int(sel.size), median=med, n_runs=int(len(np.unique(a["run"][sel]))))
    units = a["unit"][sel]
    uniq = np.unique(units)
    out["n_gpus"] = int(uniq.size)
    out["n_nodes"] = int(len({table.units[u]["node"] for u in uniq}))
    out["scale"] = "100 ln(value / median): percent of the median"
    if sel.size >= 3 and uniq.size >= 2:
        dec = st.nested_components(y, groups, names, n_boot=opt.boot, seed=opt.seed)
        out["components"], out["method"], out["notes"] = dec["components"], dec.get("method", ""), dec.get("notes", [])
    else:
        out["components"], out["method"], out["notes"] = [], "", ["too few GPUs or observations to decompose"]
    # per GPU: its mean (percent), its run means, its covariates; grouped by
    # sorting, never a pass over the observations per GPU (thousands of GPUs)
    uniq, uinv = np.unique(units, return_inverse=True)
    runs = a["run"][sel]
    nu = np.bincount(uinv)
    umeans = np.bincount(uinv, y) / nu
    umed = group_median(uinv, v, uniq.size)
    cells, cinv = np.unique(uinv * (len(table.runs) + 1) + runs, return_inverse=True)
    cmeans = np.bincount(cinv, y) / np.bincount(cinv)
    cunit, crun = cells // (len(table.runs) + 1), cells % (len(table.runs) + 1)
    ucovs = {}
    for c, col in a["cov"].items():
        x = col[sel]
        ok = np.isfinite(x)
        if ok.any():
            ucovs[c] = group_median(uinv[ok], x[ok], uniq.size)
    order = np.argsort(cunit, kind="stable")
    starts = np.searchsorted(cunit[order], np.arange(uniq.size + 1))
    gpus, umean = [], {}
    for i, u in enumerate(uniq):
        node = table.units[u]["node"]
        umean[int(u)] = float(umeans[i])
        mine = order[starts[i]:starts[i + 1]]
        g = {"gpu": table.units[u]["gpu"], "host": node, "bus": table.units[u]["bus"],
             "loc": dict(zip(levels, where[node])), "mean": float(umeans[i]), "median": float(umed[i]),
             "runs": int(mine.size), "covs": {c: float(m[i]) for c, m in ucovs.items() if np.isfinite(m[i])}}
        if mine.size >= 3:
            rr = crun[mine]
            t = np.array([table.runs[r]["time"] for r in rr])
            timed = np.isfinite(t).all() and len(np.unique(t)) == len(t)
            days = (t - t.min()) / 86400.0 if timed else np.arange(len(rr), dtype=float)
            g["trend"] = st.trend(days, cmeans[mine])
            g["trend"]["per"] = "day" if timed else "run"
        gpus.append(g)
    out["gpus"] = gpus
    out["covariates"] = covariates(gpus, opt)
    out["groups"] = standing_out(gpus, levels, opt)
    out["clustered"] = {g["level"]: g["design_effect"] for g in out["groups"] if g["design_effect"] >= DEFF_SAID}
    out["repeatability"] = None
    out["run_shared_in_node"] = None
    if out["n_runs"] > 1 and cells.size > uniq.size:
        out["repeatability"] = st.icc(cmeans, cunit, n_boot=opt.boot, seed=opt.seed)
        # do a node's GPUs move together from run to run (one job on the node)? the ICC of each
        # GPU's run mean less its own mean, grouped by node and run
        node_ix = st.relabel([table.units[u]["node"] for u in uniq])
        nrun = st.relabel(node_ix[cunit] * (len(table.runs) + 1) + crun)
        if np.bincount(nrun).max() > 1 and len(np.unique(nrun)) > 1:
            out["run_shared_in_node"] = st.icc(cmeans - umeans[cunit], nrun, n_boot=opt.boot, seed=opt.seed)
    runs_per_gpu = float(np.median(np.bincount(cunit, minlength=uniq.size)))
    out["noise"] = noise_of(out["components"], max(runs_per_gpu, 1.0), float(np.median(nu)) / max(runs_per_gpu, 1.0))
    return out, umean


def group_median(inv, x, n):
    """the median of x per group (inv: each value's group, 0..n-1); NaN for an empty group"""
    order = np.lexsort((x, inv))
    xs, gs = x[order], inv[order]
    starts = np.searchsorted(gs, np.arange(n + 1))
    cnt = np.diff(starts)
    out = np.full(n, np.nan)
    has = cnt > 0
    lo = starts[:-1] + (cnt - 1) // 2
    hi = starts[:-1] + cnt // 2
    out[has] = 0.5 * xs[lo[has]] + 0.5 * xs[hi[has]]   # never (a + b) / 2: 1e308 + 1e308 overflows
    return out


def noise_of(components, runs, per_run):
    """how much a GPU's score (its mean over the study's runs) would move in a
    repeat of the study (percent): the run component over the runs a GPU has
    and the repetition component over all its repetitions. With one run the
    run-to-run part is inside the GPU level, unknown: then a single
    repetition's spread stands for it (conservative: docs/study.md)"""
    below, seen = [], False
    for c in components:
        if seen:
            below.append(c)
        seen = seen or "gpu" in c["level"].split("+")   # "node+gpu": one GPU per node
    var = {c["level"]: c["var"] for c in below}
    if "run" in var and "repetition" in var:
        v = var["run"] / runs + var["repetition"] / (runs * per_run)
    elif "run" in var:   # one observation per run (a table of per-run rows)
        v = var["run"] / runs
    else:                # one run: a repetition's own spread
        v = sum(var.values())
    return float(np.sqrt(v)) if v > 0 else 0.0


def covariates(gpus, opt):
    out = []
    for c in sorted({k for g in gpus for k in g["covs"]}):
        pts = [(g["covs"][c], g["mean"]) for g in gpus if c in g["covs"]]
        if len(pts) < MIN_GPUS_COV:
            continue
        x, y = np.array(pts).T
        with np.errstate(over="ignore"):
            span = np.ptp(x)
        if span == 0 or not np.isfinite(span):   # no spread, or one no difference of floats can hold (1e308)
            continue
        r = st.rank_correlation(x, y, n_boot=opt.boot, seed=opt.seed)
        r.update(st.slope(x, y))
        r.update({"name": c, "unit": COVARIATE_UNITS.get(c, ""), "x_range": [float(x.min()), float(x.max())]})
        out.append(r)
    return out


def standing_out(gpus, levels, opt):
    """the location groups and nodes whose mean differs from the rest, top
    down: a group found at one level has its deviation taken out of the
    levels below it, so a slow cabinet is named once, not again as each of
    its chassis and nodes (one of them still stands out where it deviates
    beyond its cabinet)"""
    out = []
    shift = np.zeros(len(gpus))   # what the groups found so far explain, per GPU
    loc_of = [[g["loc"][lv] for lv in levels] for g in gpus]
    hosts = [g["host"] for g in gpus]
    mean = np.array([g["mean"] for g in gpus])
    nodes = sorted(set(hosts))
    ix = {n: k for k, n in enumerate(nodes)}
    node_of = np.array([ix[h] for h in hosts])
    loc_of_node = [None] * len(nodes)
    for h, loc in zip(hosts, loc_of):
        loc_of_node[ix[h]] = loc
    # each node's group at each level, outermost first ("cabinet/chassis": chassis 0 of two cabinets differ)
    node_key = [["/".join(loc[:j + 1]) for loc in loc_of_node] for j in range(len(levels))]
    for i, lv in enumerate(levels + ["node"]):
        adj = mean - shift
        if lv == "node":   # the GPUs of each node
            grp = np.array(hosts, dtype=object)
            vals, unit, of_unit, deff = adj, "gpu", np.arange(len(gpus)), 1.0
            if len(set(hosts)) < 2 or len(set(hosts)) == len(hosts):
                break
        else:   # the nodes of each group of this level
            vals = np.bincount(node_of, adj) / np.bincount(node_of)
            grp = np.array(node_key[i], dtype=object)
            unit, of_unit = "node", node_of
            if len(set(node_key[i])) < 2:
                continue
            # the nodes of a chassis share its draw: a cabinet's mean varies more than its node
            # count says (Kish's design effect from the levels between this one and the node)
            deff = st.design_effect(vals, node_key[i], node_key[i + 1:])
        for r in st.groups_standing_out(vals, grp, opt.min_rel, alpha=opt.alpha, seed=opt.seed, deff=deff):
            out.append(dict(r, level=lv, group=str(r["group"]), unit=unit, design_effect=deff))
            if r["stands_out"]:
                member = np.array([grp[u] == r["group"] for u in of_unit])
                shift[member] += r["dev"]
    return out


def classes(figs, umeans, table, opt):
    out = {}
    for kind in CLASS_KINDS:
        fis = [i for i, f in enumerate(figs) if f["kind"] == kind and umeans[i]]
        if not fis:
            continue
        score = {}
        for i in fis:
            for u, m in umeans[i].items():
                score.setdefault(u, []).append(figs[i]["better"] * m)
        units = sorted(score)
        s = np.array([np.mean(score[u]) for u in units])
        noise = float(np.median([figs[i]["noise"] for i in fis]))
        c = st.classes_1d(s, noise, kmax=opt.kmax, min_gap=opt.min_rel)
        labels = np.asarray(c["labels"])
        centres = [float(x) for x in c["centres"]]
        best = max(centres)
        names = [chr(ord("A") + k) for k in range(len(centres))]
        cls = [{"name": names[k], "n_gpus": int((labels == k).sum()), "centre": centres[k],
                "slowdown": best - centres[k], "min": float(s[labels == k].min()) if (labels == k).any() else None,
                "max": float(s[labels == k].max()) if (labels == k).any() else None} for k in range(len(centres))]
        gpus, nodes = {}, {}
        for u, sc, lab in zip(units, s, labels):
            node = table.units[u]["node"]
            gpus[table.units[u]["gpu"]] = {"class": names[lab], "score": float(sc), "host": node}
            if node not in nodes or sc < nodes[node]["score"]:
                nodes[node] = {"class": names[lab], "score": float(sc), "slowest_gpu": table.units[u]["gpu"]}
        out[kind] = {"k": int(c["k"]), "rule": c.get("rule", ""), "noise": noise, "tests": [figs[i]["test"] for i in fis],
                     "classes": cls, "gpus": gpus, "nodes": nodes, "bic": c.get("bic")}
    return out


def study(paths, opt):
    table = read_inputs(paths, opt.all_metrics)
    if opt.test:
        keep = [i for i, f in enumerate(table.figures) if any(fnmatch.fnmatchcase(f["test"], g) for g in opt.test)]
    else:
        keep = list(range(len(table.figures)))
    a = table.arrays()
    nodes = sorted({u["node"] for u in table.units})
    levels, where, unparsed, how = locate(nodes, opt.location, opt.location_map, table.loc, table.loc_levels)
    figs, umeans = [], []
    for fi in keep:
        if not (a["fig"] == fi).any():
            continue
        f, um = figure_study(fi, a, table, where, levels, opt)
        figs.append(f)
        umeans.append(um)
    node_info = {}
    for u in table.units:
        n = node_info.setdefault(u["node"], {"loc": dict(zip(levels, where[u["node"]])), "gpus": []})
        if u["gpu"] not in n["gpus"]:
            n["gpus"].append(u["gpu"])
    moved = {}
    for u in table.units:
        moved.setdefault(u["gpu"], set()).add(u["node"])
    return {"tool": "mcfleet study", "inputs": table.inputs,
            "refused": [{"where": w, "why": y} for w, y in table.refused],
            "runs": [{"id": r["id"], "path": r["path"], "time": r["time"] if np.isfinite(r["time"]) else None}
                     for r in table.runs],
            "location": {"levels": levels, "pattern": how, "hosts_unparsed": unparsed},
            "gpus_moved": sorted(g for g, n in moved.items() if len(n) > 1),
            "options": {"min_rel": opt.min_rel, "alpha": opt.alpha, "boot": opt.boot, "seed": opt.seed, "kmax": opt.kmax},
            "figures": figs, "classes": classes(figs, umeans, table, opt), "nodes": node_info,
            "node_names_refused": [{"node": n, "from": w, "why": y}
                                   for n, (w, y) in sorted(table.names_refused.items())]}


def jsonable(x):
    if isinstance(x, dict):
        return {str(k): jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating, float)):
        return float(x) if np.isfinite(x) else None
    if isinstance(x, np.ndarray):
        return jsonable(x.tolist())
    return x


def parse_args(argv):
    usage, doc = __doc__.split("\n\n", 2)[1:]
    p = argparse.ArgumentParser(prog="mcfleet study", formatter_class=argparse.RawDescriptionHelpFormatter,
                                usage=usage.strip(), description=doc.rsplit("\nExit codes", 1)[0],
                                epilog="Exit codes: 0 studied; 2 bad usage or input (the file:line or option "
                                "named);\n3 nothing to study, an output that cannot be written, or a missing Python "
                                "module.\nExamples:\n  mcfleet study week1.h5 week2.h5 week3.h5\n"
                                "  mcfleet study fleet.h5 --location 'nid(?P<cabinet>\\d{3})\\d{3}' --html study.html\n"
                                "  mcfleet study table.csv --format json -o study.json   # docs/study.md: the table")
    p.add_argument("inputs", nargs="*", metavar="RUN.h5|TABLE.csv", help="results files (one run each) and study "
                   "tables (a name ending .csv)")
    p.add_argument("--format", choices=("text", "json"), default="text", help="text (default) or json (complete: "
                   "every GPU; what mcfleet export --study reads)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the text or JSON here (default: standard output)")
    p.add_argument("--html", metavar="PAGE.html", help="also a self-contained HTML page of the study, with its plots")
    p.add_argument("--location", default="auto", metavar="auto|xname|none|REGEX", help="where each node sits: auto "
                   "(default: xname where every node name is one, else none), xname (HPE Cray), none, or a regular "
                   "expression matched against the whole node name whose named groups are the levels, outermost "
                   "first")
    p.add_argument("--location-map", metavar="MAP.csv", help="a CSV with the header host,<level>,... giving each "
                   "node's location (instead of --location)")
    p.add_argument("--test", action="append", metavar="GLOB", help="study only tests matching this glob (repeatable)")
    p.add_argument("--all-metrics", action="store_true", help="every summary metric with a direction, not only "
                   "each test's judged one")
    p.add_argument("--min-rel", type=float, default=1.0, metavar="PCT", help="least deviation (percent) a group "
                   "must show to stand out (default 1)")
    p.add_argument("--alpha", type=float, default=0.01, metavar="A", help="Holm-adjusted p below which a group "
                   "stands out (default 0.01)")
    p.add_argument("--boot", type=int, default=200, metavar="N", help="bootstrap draws for the intervals, 20 to "
                   "100000 (default 200)")
    p.add_argument("--seed", type=int, default=20261128, metavar="S", help="the bootstrap's seed, 0 or more (the "
                   "same seed, the same study)")
    p.add_argument("--kmax", type=int, default=5, metavar="K", help="most performance classes per kind, 1 to 26 "
                   "(default 5)")
    p.add_argument("--force", action="store_true", help="replace existing output files")
    opt = p.parse_args(argv)
    if not opt.inputs:
        raise Usage("no input: give results files (.h5) or study tables (.csv); mcfleet study --help")
    if not 1 <= opt.kmax <= 26:
        raise Usage("--kmax %d: 1 to 26" % opt.kmax)
    if not 20 <= opt.boot <= 100000:
        raise Usage("--boot %d: 20 to 100000" % opt.boot)
    if not 0 <= opt.seed < 2 ** 63:
        raise Usage("--seed %d: 0 to 2^63 - 1" % opt.seed)
    if not 0 < opt.alpha < 1:
        raise Usage("--alpha %s: a probability between 0 and 1, both excluded" % opt.alpha)
    if not 0 <= opt.min_rel < 100:
        raise Usage("--min-rel %s: a percent from 0 to below 100" % opt.min_rel)
    return opt


def outputs(opt):
    """[(option, path)] of the files to write, checked before the study (a
    refusal costs no wait): each by the output rule (mcfleet_outpath: exists,
    a symlink, a directory ...), in a folder that exists, neither an input
    nor the other output"""
    from mcfleet_outpath import check
    out = [(o, p) for o, p in (("-o", opt.output), ("--html", opt.html)) if p is not None]
    for option, path in out:
        check(option, path, opt.force)
        folder = os.path.dirname(path) or "."
        if not os.path.isdir(folder):
            raise CannotWrite("%s %s: cannot write: no folder %s" % (option, show(path), show(folder)))
        for i in opt.inputs:
            if os.path.exists(path) and os.path.exists(i) and os.path.samefile(path, i):
                raise Usage("%s %s is an input: the study does not write over what it reads" % (option, show(path)))
    if len(out) == 2 and os.path.abspath(out[0][1]) == os.path.abspath(out[1][1]):
        raise Usage("-o and --html name the same file %s" % show(out[0][1]))
    return out


class CannotWrite(Exception):
    """an output that cannot be written (exit 3)"""


def main(argv):
    from mcfleet_results import BadFile, quiet_pipe
    from mcfleet_study_text import text_report
    from mcfleet_outpath import Refused, write
    quiet_pipe()
    try:
        opt = parse_args(argv)
        outputs(opt)
        if opt.html is not None:   # matplotlib: missing, said before the study (or another python3 run)
            import mcfleet_python
            mcfleet_python.require("mcfleet study --html")
            from mcfleet_study_html import write_page
        res = jsonable(study(opt.inputs, opt))
    except (Usage, BadInput, BadFile, Refused) as e:
        print("mcfleet study: %s" % e, file=sys.stderr)
        return 2
    except CannotWrite as e:
        print("mcfleet study: %s" % e, file=sys.stderr)
        return 3
    except ImportError as e:
        print("mcfleet study: --html needs matplotlib: %s" % e, file=sys.stderr)
        return 3
    if not res["figures"]:
        whole = [r for r in res["refused"] if r["where"] in [i["path"] for i in res["inputs"]]]   # a table's own first
        why = "; ".join("%s: %s" % (r["where"], r["why"]) for r in (whole + [r for r in res["refused"]
                                                                             if r not in whole])[:3])
        print("mcfleet study: nothing to study: no figure with data in %s%s%s" % (
            ", ".join(show(i) for i in opt.inputs), " matching --test" if opt.test else "",
            " (%s)" % show(why) if why else ""), file=sys.stderr)
        return 3
    # strict JSON: jsonable made every NaN and infinity null, allow_nan=False holds it to that
    body = json.dumps(res, indent=1, allow_nan=False) + "\n" if opt.format == "json" else text_report(res)
    doing = ("-o", opt.output)
    try:
        if opt.output is None:
            sys.stdout.write(body)
        else:
            write("-o", opt.output, opt.force, lambda f: f.write(body))
        if opt.html is not None:
            doing = ("--html", opt.html)
            write_page(opt.html, res, opt.force)
    except Refused as e:
        print("mcfleet study: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        what = "the standard output" if doing[1] is None else "%s %s" % (doing[0], show(doing[1]))
        print("mcfleet study: %s: cannot write: %s" % (what, e.strerror or e), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
