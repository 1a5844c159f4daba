#!/usr/bin/env python3
"""mcfleet compare: each GPU's figures against its own history, matched by
the GPU's identity, never by rank or host.

  mcfleet compare OLD.h5 [MORE.h5 ...] NEW.h5 [--format text|json] [--min-rel R] [--sigmas K]

The files are taken in the order given, oldest first; the last is the run
judged. A GPU is its UUID (NVML, HIP), else its board serial: never its
host name, rank or slot. The host backend's identity is the machine
(machine-id:<id>), so its local rank is added, as it is wherever ranks of one
run share one identity; two machines of one host name are two machines. A
rank whose file records neither (empty, "unknown") is not matched, and the
output says so. For each GPU in the newest run and in at least one earlier
run, and each test that measures the same, the summary figures are compared:

  reference  the median of the GPU's per-run medians in the earlier runs
             where there are 3 or more; of 2 earlier runs whose medians
             differ by more than the drift threshold (an unsettled history,
             said so) the better of the two (a rate's higher, a cost's
             lower), else their mean: one wild earlier run never hides a
             drop (a wild better run gives a drift, seen); of 1, its median
  noise      from the earlier runs only (the judged run's own spread never
             widens it), robustly: the spread of its repetitions within a
             run (1.4826 MAD), the lower median over the earlier runs (one
             wild run of two cannot widen it), and with 3 or more earlier
             runs at least the spread of their medians (1.4826 MAD); never
             more than 10 % of the reference
  drift      the newest run's median flagged where |new / reference - 1| >
             max(min-rel, min(K x noise / reference, 10 %)), on the side that is worse
             for the metric (the metric's attribute better, or for files
             older than it its name, as the C report reads it); default
             min-rel 0.02, K 3
  erratic    the newest run's repetitions spread (1.4826 MAD / reference)
             beyond max(5 %, min-rel, min(3 x the history's within-run
             spread, 50 %)): a finding of its own (intermittent throttling,
             a shared GPU), whether or not its median drifted; a run as
             scattered as its history (the host backend's runs spread
             12-24 %) is not
  no history widens the drift threshold beyond 10 % (MAX_LIMIT_REL) or the
  erratic limit beyond 50 % (MAX_ERRATIC_REL); min-rel, given on the
  command line, may

A figure that is infinite, zero or negative (no rate, bandwidth or latency
is) is refused: that GPU's figure in that run is not compared, and the
output lists it (file, test, metric, ranks, the first value), never as a
drift. In the newest run it is a finding (exit 1): a GPU whose newest figure
cannot be right is not a clean GPU; in an earlier run it only leaves that
run's figure out. A NaN repetition is no figure (a rank that did not verify, a
repetition a time limit cut). The files are read within the C report's
bounds (ranks, values, repetitions, string bytes: mcfleet_limits.txt), their
declared sizes checked before any read: a file beyond them is exit 2.

A test of the newest run is the earlier run's test of the same name where
both measure the same: the test's attribute measured ("kernel=matrix
dtype=fp64 shape=8x8x4 ..."; the repetitions, iterations, sweeps, seed and
label are not part of it), rebuilt from the test's attributes for files older
than it. A key that an older file lacks (added by a later build, e.g. matrix
path) is left out where the newer file holds the value the older builds
implied, and named otherwise. Tests that both record their work per unit
(flop_per_unit, bytes_per_unit) must agree on it. A test of another name
that alone measures the same is matched too (a renamed test). Every test
present in one file and not the other, or measuring something else, is
listed as not comparable with the reason, never compared. Files of every
mcfleet version since the first results schema compare.

It names what moved: a GPU on another host or in another slot (host and
device index), and a slot that holds another GPU where the host is the same
machine (it still holds one of its GPUs of the run before; else it is said
that the host of that name holds none of them).

Exit codes: 0 compared, no GPU drifted or erratic, no figure of the newest
run refused; 1 a GPU drifted, its repetitions were erratic or the newest
run holds a figure refused as impossible; 2 bad usage or a file that cannot be read (named);
3 nothing to compare (no GPU or no test in common, said why). Output into a pipe that closes early (| head) ends it
quietly.
"""
import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_results import (MAD_SCALE, BadFile, Results, gpu_identity, measured_differ,  # noqa: E402
                             quiet_pipe, reading, show)



DEFAULT_MIN_REL = 0.02   # the least relative change flagged
DEFAULT_SIGMAS = 3.0     # times the GPU's own run-to-run noise
MAX_NOISE_REL = 0.10     # the most noise a history may claim, relative to its reference
MAX_LIMIT_REL = 0.10     # the widest a history may make the drift threshold or the erratic limit
ERRATIC_MIN_REL = 0.05   # a repetition spread below this is never erratic
ERRATIC_TIMES = 3.0      # erratic beyond this many times the history's within-run spread
MAX_ERRATIC_REL = 0.50   # the widest a history may make the erratic limit: x[1e-3, 1, 1e3] claims 148 %


class Usage(Exception):
    pass


def read_run(path):
    """what compare needs from one file, as plain data"""
    r = Results(path)
    r.start_report()   # the tests' keys, read by the C report while this reads the figures
    uuid, serial = r.rank_column("device_uuid", "str", ""), r.rank_column("device_serial", "str", "")
    host, local = r.rank_column("hostname", "str", ""), r.rank_column("local_rank", "int", -1)
    device = r.rank_column("device", "int", -1)
    keys = gpu_identity(uuid, serial, local)
    gpus = [{"key": keys[k], "host": host[k], "device": int(device[k]), "local_rank": int(local[k]),
             "uuid": uuid[k], "serial": serial[k]} for k in range(r.nranks)]
    tests = {}
    for name, gname, g in r.tests():
        work = r.work(g, gname)
        measured, how = r.measured(g, gname)
        metrics = {}
        for m in [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]:
            stats = r.figure_stats(g, gname, m)
            if stats is None:
                continue
            better = r.better(g, gname, m)
            if not better:
                continue
            med, sigma, refused = stats
            metrics[m] = {"better": better, "unit": r.unit(g, gname, m), "median": med.tolist(),
                          "rep_sigma": sigma.tolist(), "refused": refused}
        tests[name] = {"measured": measured, "measured_from": how, "label": r.attr_text(g, gname, "label"),
                       "work": list(work) if work else None, "metrics": metrics,
                       "not_judged": r.attr_text(g, gname, "not_judged")}
    for name in tests:   # each test's keys, as the C report reads the file's schema
        tests[name]["identity"] = r.identity(name)
    for k, g in enumerate(gpus):   # the report's: the tests another job shared the GPU for
        g["environment"] = r.environment(k)
    meta = {k: r.attr_text(r.meta, "/meta", k) for k in ("mcfleet_version", "start_time", "deck_path", "backend")}
    # the path as every line shows it: a name in a shared folder may hold a newline or an escape
    return {"path": show(path), "meta": meta, "gpus": gpus, "tests": tests}


def history_noise(hist, reps, ref):
    """(noise, within) of a GPU's figure from its earlier runs alone: hist their
    medians, reps their repetitions' spreads (1.4826 MAD), ref the reference"""
    s = sorted(x for x in reps if np.isfinite(x))
    within = s[(len(s) - 1) // 2] if s else 0.0   # the lower median: one wild run of two cannot widen it
    between = 0.0
    if len(hist) >= 3:
        between = MAD_SCALE * float(np.median(np.abs(np.asarray(hist) - np.median(hist))))
    return min(max(within, between), MAX_NOISE_REL * abs(ref)), within


def reference(hist, reps, better, min_rel, sigmas):
    """(reference, noise, within, threshold, unsettled) of a GPU's figure from
    its earlier runs' medians hist and spreads reps: the median of 3 or more;
    of 2 that differ by more than the threshold (an unsettled history) the
    better, else their mean; unsettled is None or (a, b, their difference
    relative to the better)"""
    def judged(ref):
        noise, within = history_noise(hist, reps, ref)
        return ref, noise, within, max(min_rel, min(sigmas * noise / ref, MAX_LIMIT_REL))
    if len(hist) != 2:
        return judged(float(np.median(hist))) + (None,)
    best = max(hist) if better > 0 else min(hist)
    got = judged(best)
    apart = abs(hist[0] - hist[1]) / best
    if apart > got[3]:
        return got + ((hist[0], hist[1], apart),)
    return judged((hist[0] + hist[1]) / 2) + (None,)


def where(g):
    return "%s device %d (local rank %d)" % (g["host"], g["device"], g["local_rank"])


def not_same(old, new, told, tnew, amounts=False):
    """why test told of run old and tnew of run new are not one measurement,
    or None; amounts: the keys that say how much or how long count too"""
    if told["identity"] is None or tnew["identity"] is None:
        why = None if told["measured"] == tnew["measured"] else "what it measured differs (%s in %s, %s in %s)" % (
            told["measured"], old["path"], tnew["measured"], new["path"])
    else:
        why = measured_differ(told["identity"], tnew["identity"], old["path"], new["path"], amounts)
    if why:
        return why
    if told["work"] and tnew["work"] and told["work"] != tnew["work"]:
        return ("its work per unit differs (flop_per_unit, bytes_per_unit %g, %g in %s; %g, %g in %s): its figures "
                "are computed otherwise" % (*told["work"], old["path"], *tnew["work"], new["path"]))
    return None


def pair_tests(old, new, amounts=False):
    """which test of the earlier run old each test of the newest run is: the
    one of the same name where it measures the same, else the one test that
    measures the same under another name (a deck that renamed it), where
    that pairing is unique both ways. Returns ({new name: old name},
    {new name: why its namesake is not the same measurement})"""
    pairs, why = {}, {}
    for name, t in new["tests"].items():
        o = old["tests"].get(name)
        if o is not None:
            w = not_same(old, new, o, t, amounts)
            if w:
                why[name] = "not the same measurement as in %s: %s" % (old["path"], w)
            else:
                pairs[name] = name
    free_old = [n for n in old["tests"] if n not in new["tests"]]
    free_new = [n for n in new["tests"] if n not in old["tests"]]
    cand = {n: [o for o in free_old if not not_same(old, new, old["tests"][o], new["tests"][n], amounts)]
            for n in free_new}
    for n, c in cand.items():
        if len(c) == 1 and sum(c[0] in cc for cc in cand.values()) == 1:
            pairs[n] = c[0]
    return pairs, why


def compare(runs, min_rel, sigmas, every=False, amounts=False):
    """every: also list each GPU figure compared ("compared": value, reference,
    deviation, threshold), drifted or not (mcfleet health's gauges); amounts:
    a test whose iterations (or another amount) differ is not the same
    measurement (mcfleet health: runs of one deck)"""
    new = runs[-1]
    old = runs[:-1]
    out = {"runs": [{"path": x["path"], **x["meta"], "gpus": len(x["gpus"]),
                     "gpus_without_identity": sum(g["key"] is None for g in x["gpus"])} for x in runs],
           "min_rel": min_rel, "sigmas": sigmas, "max_noise_rel": MAX_NOISE_REL, "max_limit_rel": MAX_LIMIT_REL, "max_erratic_rel": MAX_ERRATIC_REL,
           "unsettled": [], "refused_newest": 0, "erratic_min_rel":
           max(ERRATIC_MIN_REL, min_rel), "erratic_times": ERRATIC_TIMES, "drift": [], "erratic": [], "refused": [],
           "moves": [], "not_comparable": [], "renamed": [],
           "hosts_unmatched": [], "gpus_compared": 0, "gpus_new": [], "gpus_gone": [], "why_nothing": []}
    index = [{g["key"]: k for k, g in enumerate(x["gpus"]) if g["key"] is not None} for x in runs]
    # moves: a GPU somewhere else than in the run before it; a slot holding
    # another GPU, where the host is the same machine (it holds one of its
    # earlier GPUs: two machines of one host name are not one)
    for i in range(1, len(runs)):
        prev_slot = {(g["host"], g["device"], g["local_rank"]): g["key"] for g in runs[i - 1]["gpus"]
                     if g["key"] is not None}
        on_host = [{}, {}]
        for side, x in enumerate((runs[i - 1], runs[i])):
            for g in x["gpus"]:
                if g["key"] is not None:
                    on_host[side].setdefault(g["host"], set()).add(g["key"])
        same_machine = {h for h in on_host[1] if on_host[1][h] & on_host[0].get(h, set())}
        for h in sorted(set(on_host[1]) & set(on_host[0]) - same_machine):
            out["hosts_unmatched"].append({"host": h, "run": i, "why": "host %s in %s holds none of the GPUs it held "
                                           "in %s: another machine of that name, or all its GPUs changed; its slots "
                                           "are not compared" % (h, runs[i]["path"], runs[i - 1]["path"])})
        for g in runs[i]["gpus"]:
            if g["key"] is None:
                continue
            k = index[i - 1].get(g["key"])
            if k is not None:
                p = runs[i - 1]["gpus"][k]
                if (p["host"], p["device"], p["local_rank"]) != (g["host"], g["device"], g["local_rank"]):
                    out["moves"].append({"gpu": g["key"], "run": i, "kind": "moved", "from": where(p),
                                         "to": where(g)})
            elif g["host"] in same_machine:
                was = prev_slot.get((g["host"], g["device"], g["local_rank"]))
                if was is not None and was != g["key"]:
                    out["moves"].append({"gpu": g["key"], "run": i, "kind": "swapped", "from": was,
                                         "to": where(g)})
    for g in new["gpus"]:
        if g["key"] is not None and not any(g["key"] in ix for ix in index[:-1]):
            out["gpus_new"].append(g["key"])
    out["gpus_gone"] = sorted({g["key"] for x in old for g in x["gpus"] if g["key"] is not None} - set(index[-1]))
    # tests: each earlier run's test that is each of the newest run's
    paired = []
    for x in old:
        pairs, why = pair_tests(x, new, amounts)
        paired.append(pairs)
        for name, w in why.items():
            out["not_comparable"].append({"test": name, "run": x["path"], "why": w})
        for n, o in pairs.items():
            if n != o:
                out["renamed"].append({"test": n, "run": x["path"], "was": o})
    for name in new["tests"]:
        absent = [x["path"] for x, p in zip(old, paired) if name not in p and name not in x["tests"]]
        if absent:
            out["not_comparable"].append({"test": name, "run": ", ".join(absent), "why": "not in %s" % (
                "the earlier runs" if len(absent) == len(old) and len(old) > 1 else ", ".join(absent))})
    used = [set(p.values()) for p in paired]
    gone = {}
    for x, u in zip(old, used):
        for n in x["tests"]:
            if n not in new["tests"] and n not in u:
                gone.setdefault(n, []).append(x["path"])
    for n in sorted(gone):
        out["not_comparable"].append({"test": n, "run": ", ".join(gone[n]), "why": "not in the newest run %s (in %s)"
                                      % (new["path"], ", ".join(gone[n]))})
    for x in runs:   # figures that no rate, bandwidth or latency can be: not compared, said
        for name, t in x["tests"].items():
            for m, fig in t["metrics"].items():
                if fig["refused"]:
                    n, rank, val = fig["refused"]
                    out["refused_newest"] += x is new   # a finding: exit 1
                    out["refused"].append({"run": x["path"], "test": name, "metric": m, "ranks": n, "rank": rank,
                                           "newest": x is new,
                                           "why": "%d rank%s with a figure that is not a positive finite number "
                                           "(rank %d: %s): not compared" % (n, "" if n == 1 else "s", rank,
                                                                            show("%g" % val))})
    compared, tests_compared = set(), set()
    for k, g in enumerate(new["gpus"]):
        if g["key"] is None:
            continue
        for name, t in new["tests"].items():
            for m, fig in t["metrics"].items():
                hist, reps = [], []
                for x, ix, p in zip(old, index[:-1], paired):
                    j = ix.get(g["key"])
                    f = x["tests"][p[name]]["metrics"].get(m) if name in p else None
                    if j is None or f is None or not np.isfinite(f["median"][j]):
                        continue
                    hist.append(f["median"][j])
                    reps.append(f["rep_sigma"][j])
                v = fig["median"][k]
                if not hist or not np.isfinite(v):
                    continue
                compared.add(g["key"])
                tests_compared.add(name)
                # > 0: figures that are not were refused
                ref, noise, within, thr, unsettled = reference(hist, reps, fig["better"], min_rel, sigmas)
                dev = v / ref - 1
                who = {"gpu": g["key"], "host": g["host"], "device": g["device"], "uuid": g["uuid"],
                       "serial": g["serial"], "test": name, "metric": m, "unit": fig["unit"], "earlier_runs": len(hist)}
                if unsettled:
                    out["unsettled"].append(dict(who, earlier=list(unsettled[:2]), differ=unsettled[2], reference=ref))
                if every:
                    out.setdefault("compared", []).append(dict(who, value=v, reference=ref, deviation=dev,
                                                               threshold=thr, better=fig["better"]))
                env = g["environment"].get(name)   # the report's: another job on the GPU during the test
                if env:
                    who["environment"] = env["why"]
                    who["next"] = env["next"]
                if fig["better"] * dev < -thr:
                    out["drift"].append(dict(who, value=v, reference=ref, deviation=dev, threshold=thr, noise=noise))
                spread = fig["rep_sigma"][k] / ref
                limit = max(ERRATIC_MIN_REL, min_rel, min(ERRATIC_TIMES * within / ref, MAX_ERRATIC_REL))
                if np.isfinite(spread) and spread > limit:
                    out["erratic"].append(dict(who, spread=spread, typical=within / ref, limit=limit))
    out["gpus_compared"] = len(compared)
    out["tests_compared"] = sorted(tests_compared)
    # a test in both runs with no figure compared: said, with why
    for name, t in new["tests"].items():
        pairs = [(x, p[name]) for x, p in zip(old, paired) if name in p]
        if not pairs or name in tests_compared or not compared:
            continue
        olds = [x["tests"][o] for x, o in pairs]
        why = t["not_judged"] or next((o["not_judged"] for o in olds if o["not_judged"]), "")
        if why:
            why = "its figures are not judged: %s" % why
        elif not t["metrics"] or not any(set(t["metrics"]) & set(o["metrics"]) for o in olds):
            why = "no figure with a direction in common (the newest run's: %s)" % (", ".join(t["metrics"]) or "none")
        else:
            why = "no GPU has its figure in both runs"
        out["not_comparable"].append({"test": name, "run": ", ".join(x["path"] for x, _ in pairs), "why": why})
    out["drift"].sort(key=lambda d: -abs(d["deviation"]))
    out["erratic"].sort(key=lambda d: -d["spread"])
    if not compared:
        out["why_nothing"] = why_nothing(runs, index, paired)
    return out


def why_nothing(runs, index, paired):
    """why no GPU and test were compared, in words"""
    new, why = runs[-1], []
    for x in runs:
        if x["gpus"] and all(g["key"] is None for g in x["gpus"]):
            why.append("%s records no GPU identity (/ranks device_uuid and device_serial empty or 'unknown'): its "
                       "GPUs cannot be matched, and the host name is never used" % x["path"])
    common = set(index[-1]) & {k for ix in index[:-1] for k in ix}
    if not common and index[-1]:
        why.append("no GPU of %s is in an earlier run (by UUID or serial)" % new["path"])
    if not any(paired):
        why.append("no test of %s measures what a test of an earlier run did (see Not comparable)" % new["path"])
    elif common and not any(t["metrics"] for t in new["tests"].values()):
        why.append("no test of %s has a figure with a direction" % new["path"])
    refused = [x["path"] for x in runs if any(f["refused"] for t in x["tests"].values() for f in t["metrics"].values())]
    if refused:
        why.append("figures refused in %s: not positive finite numbers (see Figures refused)" % ", ".join(refused))
    return why or ["no GPU has a finite figure of a test in common in the newest run and an earlier one"]


def pct(x):
    return "%+.1f%%" % (100 * x)


def print_text(res, out):
    p = lambda *a: print(*a, file=out)  # noqa: E731
    p("mcfleet compare: %d runs, oldest first; the last is judged" % len(res["runs"]))
    for i, r in enumerate(res["runs"]):
        p("  [%d] %s  (mcfleet %s, %s, deck %s, %d GPUs, backend %s)" % (i, r["path"], r["mcfleet_version"],
          r["start_time"], r["deck_path"], r["gpus"], r["backend"]))
        if r["gpus_without_identity"]:
            p("      %d of its %d GPUs without identity (no UUID or serial): not matched, not by host name"
              % (r["gpus_without_identity"], r["gpus"]))
    p("rule: worse than the GPU's own earlier median by more than max(%.1f%%, %g x its run-to-run noise in the "
      "earlier runs, at most %g%%); erratic where the repetitions spread beyond max(%.1f%%, %g x the earlier runs' "
      "spread, at most %g%%)" % (100 * res["min_rel"], res["sigmas"], 100 * res["max_limit_rel"],
                                 100 * res["erratic_min_rel"], res["erratic_times"], 100 * res["max_limit_rel"]))
    drifted = sorted({d["gpu"] for d in res["drift"]})
    p("")
    shared = sorted({d["gpu"] for d in res["drift"] if d.get("environment")})
    p("DRIFT: %d of %d GPUs compared%s" % (len(drifted), res["gpus_compared"], " (%d with another job on the GPU: the "
      "environment's, as mcfleet report says)" % len(shared) if shared else ""))
    for gkey in drifted:
        ds = [d for d in res["drift"] if d["gpu"] == gkey]
        d0 = ds[0]
        p("  %s  (%s device %d%s)" % (gkey, d0["host"], d0["device"],
                                       ", serial " + d0["serial"] if d0["serial"] else ""))
        for d in ds:
            p("    - %s %s: %.5g %s against %.5g over %d earlier run%s: %s (threshold %s, noise %.3g)%s"
              % (d["test"], d["metric"], d["value"], d["unit"], d["reference"], d["earlier_runs"],
                 "" if d["earlier_runs"] == 1 else "s", pct(d["deviation"]), pct(-d["threshold"]).lstrip("-+"),
                 d["noise"], " [environment: another job on the GPU]" if d.get("environment") else ""))
        env = [d for d in ds if d.get("environment")]
        if env:   # the report's judgement, in its words: the GPU may be healthy
            p("    the environment's (mcfleet report): %s: %d of these %d figures; next: %s"
              % (env[0]["environment"], len(env), len(ds), env[0]["next"]))
    if res["erratic"]:
        erratic = sorted({d["gpu"] for d in res["erratic"]})
        p("")
        p("ERRATIC: %d of %d GPUs compared (repetitions far more spread than in their history)"
          % (len(erratic), res["gpus_compared"]))
        for gkey in erratic:
            ds = [d for d in res["erratic"] if d["gpu"] == gkey]
            p("  %s  (%s device %d%s)" % (gkey, ds[0]["host"], ds[0]["device"],
                                           ", serial " + ds[0]["serial"] if ds[0]["serial"] else ""))
            for d in ds:
                p("    - %s %s: erratic: repetitions spread %.1f%% (history's typical %.1f%%, limit %.1f%%)"
                  % (d["test"], d["metric"], 100 * d["spread"], 100 * d["typical"], 100 * d["limit"]))
    if res["unsettled"]:
        p("")
        p("History unsettled (2 earlier runs that disagree):")
        for u in res["unsettled"]:
            p("  %s %s %s: history unsettled: earlier medians %.5g and %.5g differ by %.1f%%; judged against the "
              "better" % (u["gpu"], u["test"], u["metric"], u["earlier"][0], u["earlier"][1], 100 * u["differ"]))
    if res["refused"]:
        p("")
        p("Figures refused:%s" % (" (%d in the newest run: a finding, exit 1)" % res["refused_newest"]
                                  if res["refused_newest"] else ""))
        for x in res["refused"]:
            p("  %s: %s %s: %s" % (x["run"], x["test"], x["metric"], x["why"]))
    if res["moves"] or res["hosts_unmatched"]:
        p("")
        p("Moves:")
        for m in res["moves"]:
            if m["kind"] == "moved":
                p("  %s moved from %s to %s (run %d)" % (m["gpu"], m["from"], m["to"], m["run"]))
            else:
                p("  %s now holds %s, which held %s (run %d)" % (m["to"], m["gpu"], m["from"], m["run"]))
    for h in res["hosts_unmatched"]:
        p("  %s" % h["why"])
    if res["gpus_new"] or res["gpus_gone"]:
        p("")
        p("GPUs without history (new): %s" % (", ".join(res["gpus_new"]) or "none"))
        p("GPUs of earlier runs not in the newest: %s" % (", ".join(res["gpus_gone"]) or "none"))
    if res["renamed"]:
        p("")
        p("Tests matched by what they measure under another name:")
        for n in res["renamed"]:
            p("  %s was %s in %s" % (n["test"], n["was"], n["run"]))
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
    quiet_pipe()
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
        print("mcfleet compare: %s" % show(str(e)), file=sys.stderr)
        return 2
    res = compare(runs, a.min_rel, a.sigmas)
    if a.format == "json":
        json.dump(res, sys.stdout, indent=1, allow_nan=False, default=float)
        print()
    else:
        print_text(res, sys.stdout)
    if res["drift"] or res["erratic"] or res["refused_newest"]:
        return 1
    if not res["gpus_compared"]:
        print("mcfleet compare: no GPU and test in common between the newest run and the earlier ones: %s"
              % "; ".join(res["why_nothing"]), file=sys.stderr)
        return 3
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
