"""The text form of `mcfleet study` (analysis/mcfleet_study.py): what a
researcher reads first. Every figure in percent of its median (the study's
scale); intervals are 95 % unless the option said otherwise."""
import math

from mcfleet_results import show

CLASS_KINDS = "matrix, compute, memory, power, link or other (a study table's kind column)"

COV_STEP = {"sm_mhz": (100.0, "100 MHz"), "power_w": (100.0, "100 W"), "temp_c": (10.0, "10 degC"),
            "throttle_frac": (0.1, "10 % of the time throttled"), "numa_local": (1.0, "NUMA-local"),
            "pcie_ok": (1.0, "a full PCIe link")}


def num(x, fmt="%.2f"):
    return "-" if x is None or (isinstance(x, float) and not math.isfinite(x)) else fmt % x


def ci(pair, fmt="%.2f"):
    if not pair or pair[0] is None:
        return "[-]"
    return "[%s, %s]" % (num(pair[0], fmt), num(pair[1], fmt))


def pval(p):
    return "-" if p is None else "<0.001" if p < 0.001 else "%.3f" % p


def components_text(f):
    out = ["  spread by level    sd %    95% interval      share    95% interval    groups"]
    for c in f["components"]:
        out.append("  %-16s %6s  %-17s %5s %%  %-15s %6d%s" % (
            show(c["level"]), num(c["sd"]), ci(c.get("sd_ci")), num(100 * c["share"], "%.0f"),
            ci([None if x is None else 100 * x for x in (c.get("share_ci") or [None, None])], "%.0f"),
            c["groups"], "  (estimate below 0, set to 0)" if c.get("truncated") else ""))
    return out


def covariates_text(f):
    out = []
    for c in f["covariates"]:
        step, what = COV_STEP.get(c["name"], (1.0, "1 %s" % c["unit"]))
        sig = c["p"] is not None and c["p"] < 0.01 and c["rho_ci"][0] is not None and \
            (c["rho_ci"][0] > 0 or c["rho_ci"][1] < 0)
        out.append("  follows %-13s rho %+.2f %s p %s; %+.2f %% per %s %s%s" % (
            show(c["name"]), c["rho"], ci(c["rho_ci"]), pval(c["p"]), c["slope"] * step, show(what),
            ci([None if x is None else x * step for x in c["slope_ci"]]), "" if sig else "  (not significant)"))
    return out


def groups_text(f):
    out = []
    for g in f["groups"]:
        if g["stands_out"]:
            out.append("  stands out: %s %s %+.2f %% %s, %s (%d %ss, Holm p %s)" % (
                g["level"], show(g["group"]), g["dev"], ci(g["ci"]), "worse" if g["dev"] * f["better"] < 0 else "better",
                g["n"], g["unit"], pval(g["p_adj"])))
    tested = {g["level"] for g in f["groups"]}
    if tested and not any(g["stands_out"] for g in f["groups"]):
        out.append("  no %s stands out" % " or ".join(sorted(tested)))
    for level, d in f.get("clustered", {}).items():
        out.append("  %s tested with design effect %.2f: its nodes share the levels below it, so a %s's mean "
                   "varies %.2f times more than its node count says" % (level, d, level, d))
    return out


def runs_text(f):
    out = []
    r = f.get("repeatability")
    if r:
        if r["icc"] is None:   # no spread at all, or too few runs per GPU: no ratio to take
            out.append("  repeatability: no ICC (%d GPUs, %d run means: no spread to divide, or one run mean per "
                       "GPU)" % (r["groups"], r["n"]))
        else:
            out.append("  repeatability: ICC %.2f %s (1: a GPU's run means are what it was; 0: the runs scatter as "
                       "much as the GPUs)" % (r["icc"], ci(r["ci"]) if r["ci"][0] is not None else
                                              "(%d GPUs: no interval below 5)" % r["groups"]))
    r = f.get("run_shared_in_node")
    if r and r["icc"] is not None and r["icc"] > 0.5:   # the JSON's null where there is none
        out.append("  the GPUs of a node move together from run to run (node-run ICC %.2f%s): the run level is the "
                   "node's run (its job, its state), not each GPU's noise" % (
                       r["icc"], " " + ci(r["ci"]) if r["ci"][0] is not None else ""))
    worse = [g for g in f["gpus"] if g.get("trend") and g["trend"]["p"] is not None and g["trend"]["p"] < 0.05
             and f["better"] * g["trend"]["slope"] < 0]
    for g in sorted(worse, key=lambda g: f["better"] * g["trend"]["slope"])[:5]:
        out.append("  trend: GPU %s on %s %+.2f %% per %s (Kendall tau %.2f, p %s) over %d runs" % (
            show(g["gpu"]), show(g["host"]), g["trend"]["slope"], g["trend"].get("per", "run"), g["trend"]["tau"],
            pval(g["trend"]["p"]), g["runs"]))
    return out


def classes_text(res):
    if not res["classes"]:
        return ["  none: no figure of kind %s" % CLASS_KINDS]
    out = []
    for kind, c in res["classes"].items():
        out.append("%s: %d class%s over %d GPUs (noise %s): %s" % (
            kind, c["k"], "" if c["k"] == 1 else "es", len(c["gpus"]), "%.2f %%" % c["noise"] if c["noise"] else
            "not measured: no spread below the GPU level", c["rule"]))
        for k in c["classes"]:
            out.append("  class %s  %5d GPUs  centre %+.2f %%  %.2f %% behind class A  [%s, %s]" % (
                k["name"], k["n_gpus"], k["centre"], k["slowdown"], num(k["min"]), num(k["max"])))
        slow = sorted(c["nodes"].items(), key=lambda x: x[1]["score"])[:3]
        if c["k"] > 1 and slow:
            out.append("  slowest nodes: %s" % ", ".join("%s (class %s, %+.2f %%)" % (show(n), v["class"], v["score"])
                                                       for n, v in slow))
    return out


def names_refused(res):
    """the study's nodes whose names Slurm cannot take, in one line (text and page)"""
    bad = res["node_names_refused"]
    return "%d node name%s Slurm cannot take (mcfleet export refuses %s): %s" % (
        len(bad), "" if len(bad) == 1 else "s", "it" if len(bad) == 1 else "them", "; ".join(
            "'%s' from %s: %s" % (show(r["node"]), show(r["from"]), r["why"]) for r in bad[:3]))


def text_report(res):
    out = ["mcfleet study: %d input%s, %d run%s, %d node%s" % (
        len(res["inputs"]), "" if len(res["inputs"]) == 1 else "s", len(res["runs"]),
        "" if len(res["runs"]) == 1 else "s", len(res["nodes"]), "" if len(res["nodes"]) == 1 else "s")]
    loc = res["location"]
    out.append("location: %s (%s)" % (show(" > ".join(loc["levels"])) or "no levels", show(loc["pattern"])))
    if loc["hosts_unparsed"]:
        out.append("  %d nodes not placed (location '?': the name does not match, not in the map, or a cell "
                   "empty): %s" % (
            len(loc["hosts_unparsed"]), ", ".join(show(h) for h in loc["hosts_unparsed"][:5])))
    for i in res["inputs"]:
        if i.get("injected"):
            out.append("INJECTED FOR TESTING in %s: %s" % (show(i["path"]), show(i["injected"])[:300]))
        if not i.get("complete", 1):
            out.append("incomplete run: %s (stopped or failed: what it finished is studied)" % show(i["path"]))
    for r in res["refused"][:10]:
        out.append("refused: %s: %s" % (show(r["where"]), show(r["why"])))
    if res.get("node_names_refused"):
        out.append(names_refused(res))
    if res["gpus_moved"]:
        out.append("GPUs seen on more than one node (each place studied as its own GPU): %s"
                   % ", ".join(show(g) for g in res["gpus_moved"][:5]))
    out.append("scale: 100 ln(value / median), percent of the figure's median; intervals 95 %")
    skus = len({f.get("sku", "") for f in res["figures"]}) > 1
    names = [(f["test"], f["metric"], f.get("sku", "")) for f in res["figures"]]
    for f, name in zip(res["figures"], names):
        twice = names.count(name) > 1   # one name, two measurements (two decks): say which
        out.append("")
        out.append("%s %s%s%s (%s, %s is better, kind %s): %d GPUs on %d nodes, %d run%s, median %s" % (
            show(f["test"]), show(f["metric"]), " [%s]" % show(f["sku"]) if skus else "",
            " {%s}" % show(f.get("measured", "")) if twice else "", show(f["unit"]) or "no unit", "higher" if f["better"] > 0 else "lower",
            f["kind"], f["n_gpus"], f["n_nodes"], f["n_runs"], "" if f["n_runs"] == 1 else "s", "%.6g" % f["median"]))
        if f["components"]:
            out += components_text(f)
        for n in f.get("notes", []):
            out.append("  note: %s" % show(n))
        out += covariates_text(f) + groups_text(f) + runs_text(f)
    out.append("")
    out.append("performance classes (a node takes its slowest GPU's class)")
    out += classes_text(res)
    return "\n".join(out) + "\n"
