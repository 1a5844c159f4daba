#!/usr/bin/env python3
"""mcfleet compare: each GPU's figures against its own history, matched by
the GPU's identity, never by rank or host.

  mcfleet compare OLD.h5 [MORE.h5 ...] NEW.h5 [--format text|json] [--min-rel R] [--sigmas K]

The files are taken in the order given, oldest first; the last is the run
judged. A GPU is its UUID (NVML, HIP), else its board serial; where ranks of
one run share one identity (the host backend: one machine), the local rank is
added to it. For each GPU in the newest run and in at least one earlier run,
and for each test of the same name and the same parameters, the summary
figures are compared:

  reference  the median of the GPU's per-run medians in the earlier runs
  noise      the GPU's own run-to-run spread: the standard deviation of its
             earlier medians (3 or more earlier runs), and never less than
             the spread of its repetitions within a run (1.4826 MAD, the
             largest of its runs), so that two runs alone still have one
  drift      flagged where |new / reference - 1| > max(min-rel, K x noise /
             reference), on the side that is worse for the metric (the
             metric's attribute better); default min-rel 0.02, K 3

It names what moved: a GPU on another host or in another slot (host and
device index), and a slot that holds another GPU. Tests that exist in one
run and not the other, or whose parameters differ (the test's label, its
work per unit), are listed as not comparable, never compared.

Exit codes: 0 compared, no GPU drifted; 1 a GPU drifted; 2 bad usage or a
file that cannot be read (named); 3 nothing to compare (no GPU or no test in
common).
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_results import MAD_SCALE, BadFile, Results, gpu_keys, reading  # noqa: E402



DEFAULT_MIN_REL = 0.02   # the least relative change flagged
DEFAULT_SIGMAS = 3.0     # times the GPU's own run-to-run noise


class Usage(Exception):
    pass


def read_run(path):
    """what compare needs from one file, as plain data"""
    r = Results(path)
    uuid, serial = r.rank_column("device_uuid", "str", ""), r.rank_column("device_serial", "str", "")
    host, local = r.rank_column("hostname", "str", ""), r.rank_column("local_rank", "int", -1)
    device = r.rank_column("device", "int", -1)
    keys = gpu_keys(uuid, serial, local)
    gpus = [{"key": keys[k], "host": host[k], "device": int(device[k]), "local_rank": int(local[k]),
             "uuid": uuid[k], "serial": serial[k]} for k in range(r.nranks)]
    tests = {}
    for name, gname, g in r.tests():
        work = r.work(g, gname)
        params = {"label": r.attr_text(g, gname, "label"), "work": list(work) if work else None}
        metrics = {}
        for m in [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]:
            v = r.figures(g, gname, m)
            better = r.better(g, gname, m)
            if v is None or not better:
                continue
            with np.errstate(all="ignore"):
                med = [float(np.nanmedian(row)) if np.isfinite(row).any() else float("nan") for row in v]
                mad = [float(np.nanmedian(np.abs(row - np.nanmedian(row)))) if np.isfinite(row).any()
                       else float("nan") for row in v]
            metrics[m] = {"better": better, "unit": r.unit(g, gname, m), "median": med, "rep_sigma":
                          [MAD_SCALE * x for x in mad]}
        tests[name] = {"params": params, "metrics": metrics}
    meta = {k: r.attr_text(r.meta, "/meta", k) for k in ("mcfleet_version", "start_time", "deck_path", "backend")}
    return {"path": path, "meta": meta, "gpus": gpus, "tests": tests}


def where(g):
    return "%s device %d (local rank %d)" % (g["host"], g["device"], g["local_rank"])


def compare(runs, min_rel, sigmas):
    new = runs[-1]
    old = runs[:-1]
    out = {"runs": [{"path": x["path"], **x["meta"], "gpus": len(x["gpus"])} for x in runs],
           "min_rel": min_rel, "sigmas": sigmas, "drift": [], "moves": [], "not_comparable": [],
           "gpus_compared": 0, "gpus_new": [], "gpus_gone": []}
    index = [{g["key"]: k for k, g in enumerate(x["gpus"])} for x in runs]
    # moves: a GPU somewhere else than in the run before it; a slot holding another GPU
    for i in range(1, len(runs)):
        prev_slot = {(g["host"], g["device"], g["local_rank"]): g["key"] for g in runs[i - 1]["gpus"]}
        for g in runs[i]["gpus"]:
            k = index[i - 1].get(g["key"])
            if k is not None:
                p = runs[i - 1]["gpus"][k]
                if (p["host"], p["device"], p["local_rank"]) != (g["host"], g["device"], g["local_rank"]):
                    out["moves"].append({"gpu": g["key"], "run": i, "kind": "moved", "from": where(p),
                                         "to": where(g)})
            else:
                was = prev_slot.get((g["host"], g["device"], g["local_rank"]))
                if was is not None and was != g["key"]:
                    out["moves"].append({"gpu": g["key"], "run": i, "kind": "swapped", "from": was,
                                         "to": where(g)})
    for g in new["gpus"]:
        if not any(g["key"] in ix for ix in index[:-1]):
            out["gpus_new"].append(g["key"])
    out["gpus_gone"] = sorted({g["key"] for x in old for g in x["gpus"]} - set(index[-1]))
    # tests that cannot be compared
    for name, t in new["tests"].items():
        earlier = [x["tests"].get(name) for x in old]
        if all(e is None for e in earlier):
            out["not_comparable"].append({"test": name, "why": "not in the earlier runs"})
        elif any(e is not None and e["params"] != t["params"] for e in earlier):
            diff = [x["path"] for x, e in zip(old, earlier) if e is not None and e["params"] != t["params"]]
            out["not_comparable"].append({"test": name, "why": "its parameters differ in %s (label %r)" %
                                          (", ".join(diff), t["params"]["label"])})
    for name in sorted({n for x in old for n in x["tests"]} - set(new["tests"])):
        out["not_comparable"].append({"test": name, "why": "not in the newest run"})
    skip = {n["test"] for n in out["not_comparable"]}
    compared = set()
    for k, g in enumerate(new["gpus"]):
        for name, t in new["tests"].items():
            if name in skip:
                continue
            for m, fig in t["metrics"].items():
                hist, reps = [], [fig["rep_sigma"][k]]
                for x, ix in zip(old, index[:-1]):
                    j = ix.get(g["key"])
                    f = x["tests"].get(name, {}).get("metrics", {}).get(m)
                    if j is None or f is None or not np.isfinite(f["median"][j]):
                        continue
                    hist.append(f["median"][j])
                    reps.append(f["rep_sigma"][j])
                v = fig["median"][k]
                if not hist or not np.isfinite(v):
                    continue
                compared.add(g["key"])
                ref = float(np.median(hist))
                noise = max([s for s in reps if np.isfinite(s)] + [0.0])
                if len(hist) >= 3:
                    noise = max(noise, float(np.std(hist, ddof=1)))
                if ref == 0:
                    continue
                dev = v / ref - 1
                thr = max(min_rel, sigmas * noise / abs(ref))
                if fig["better"] * dev < -thr:
                    out["drift"].append({"gpu": g["key"], "host": g["host"], "device": g["device"],
                                         "uuid": g["uuid"], "serial": g["serial"], "test": name, "metric": m,
                                         "unit": fig["unit"], "value": v, "reference": ref,
                                         "deviation": dev, "threshold": thr, "noise": noise,
                                         "earlier_runs": len(hist)})
    out["gpus_compared"] = len(compared)
    out["drift"].sort(key=lambda d: -abs(d["deviation"]))
    return out


def pct(x):
    return "%+.1f%%" % (100 * x)


def print_text(res, out):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("mcfleet compare: %d runs, oldest first; the last is judged" % len(res["runs"]))
    for i, r in enumerate(res["runs"]):
        p("  [%d] %s  (mcfleet %s, %s, deck %s, %d GPUs, backend %s)" % (i, r["path"], r["mcfleet_version"],
          r["start_time"], r["deck_path"], r["gpus"], r["backend"]))
    p("rule: worse than the GPU's own earlier median by more than max(%.1f%%, %g x its run-to-run noise)"
      % (100 * res["min_rel"], res["sigmas"]))
    drifted = sorted({d["gpu"] for d in res["drift"]})
    p("")
    p("DRIFT: %d of %d GPUs compared" % (len(drifted), res["gpus_compared"]))
    for gkey in drifted:
        ds = [d for d in res["drift"] if d["gpu"] == gkey]
        d0 = ds[0]
        p("  %s  (%s device %d%s)" % (gkey, d0["host"], d0["device"],
                                       ", serial " + d0["serial"] if d0["serial"] else ""))
        for d in ds:
            p("    - %s %s: %.5g %s against %.5g over %d earlier run%s: %s (threshold %s, noise %.3g)"
              % (d["test"], d["metric"], d["value"], d["unit"], d["reference"], d["earlier_runs"],
                 "" if d["earlier_runs"] == 1 else "s", pct(d["deviation"]), pct(-d["threshold"]).lstrip("-+"),
                 d["noise"]))
    if res["moves"]:
        p("")
        p("Moves:")
        for m in res["moves"]:
            if m["kind"] == "moved":
                p("  %s moved from %s to %s (run %d)" % (m["gpu"], m["from"], m["to"], m["run"]))
            else:
                p("  %s now holds %s, which held %s (run %d)" % (m["to"], m["gpu"], m["from"], m["run"]))
    if res["gpus_new"] or res["gpus_gone"]:
        p("")
        p("GPUs without history (new): %s" % (", ".join(res["gpus_new"]) or "none"))
        p("GPUs of earlier runs not in the newest: %s" % (", ".join(res["gpus_gone"]) or "none"))
    if res["not_comparable"]:
        p("")
        p("Not comparable:")
        for n in res["not_comparable"]:
            p("  %s: %s" % (n["test"], n["why"]))


def main(argv):
    ap = argparse.ArgumentParser(prog="mcfleet compare", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split(
                                     "\n\n", 2)[2])
    ap.add_argument("files", nargs="+", metavar="FILE.h5", help="results files, oldest first")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    ap.add_argument("--min-rel", type=float, default=DEFAULT_MIN_REL,
                    help="least relative change flagged (default %g)" % DEFAULT_MIN_REL)
    ap.add_argument("--sigmas", type=float, default=DEFAULT_SIGMAS, help="noise multiplier (default %g)" % DEFAULT_SIGMAS)
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if len(a.files) < 2:
        print("mcfleet compare: give two or more results files, oldest first", file=sys.stderr)
        return 2
    if not (0 <= a.min_rel < 1) or not (a.sigmas >= 0):
        print("mcfleet compare: --min-rel must be in [0, 1) and --sigmas >= 0", file=sys.stderr)
        return 2
    try:
        runs = [reading(p, lambda p=p: read_run(p)) for p in a.files]
    except BadFile as e:
        print("mcfleet compare: %s" % e, file=sys.stderr)
        return 2
    res = compare(runs, a.min_rel, a.sigmas)
    if a.format == "json":
        json.dump(res, sys.stdout, indent=1, allow_nan=False, default=float)
        print()
    else:
        print_text(res, sys.stdout)
    if not res["gpus_compared"]:
        print("mcfleet compare: no GPU and test in common between the newest run and the earlier ones",
              file=sys.stderr)
        return 3
    return 1 if res["drift"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
