#!/usr/bin/env python3
"""mcfleet baseline: what this center's healthy GPUs of one SKU reach, from
its own runs, written as a SKU profile that mcfleet report reads.

  mcfleet baseline FILE.h5 [MORE.h5 ...] -o BASELINE.yaml [--sku NAME] [--force] [--allow-quick]

Every GPU's median of each test's judged figure (its first summary metric
with a direction: gflops, bandwidth_gbs, latency_ns, latency_cycles ...),
over all the runs given, is one value. Which way it is good is the file's
(the metric's attribute better, as the family's row says it). Outliers are removed
until none is left: a value farther from the median of those kept than the
verdict's own warn threshold, max(warn_rel, k_min x spread) with the rules
the files record (/meta verdict_*), is dropped, and the median and spread are
taken again (at most 20 rounds). Of what remains:

  expected  the median
  floor     expected x (1 - max(fail_rel, k_min x spread)) (a ceiling for a
            lower-is-better figure, such as a latency: expected x (1 + ...)),
            spread the relative standard
            deviation of the kept values (1.4826 MAD over the median)

A test is one figure only where every run measured the same thing (the
test's attribute measured, rebuilt for files older than it): each profile
test carries that text as measured:, so mcfleet report applies it only to a
test that measured the same (never the default deck's matrix-fp64 against
the acceptance deck's). A --quick run (small sizes, few repetitions) is
refused unless --allow-quick: its figures are not what a full run reaches.

The profile names every run (file, start time, mcfleet version) and every GPU
(UUID, serial) it came from, and each value removed with why, in its comments
and notes; each figure's source is "measured: <device>, <date>, ...". Text
from the files and their names is written shown, never obeyed: one line
each, control characters (newline, CR, U+2028, NEL ...) as '?', quoted values
escaped. A rank's figure with a repetition that is infinite, zero or
negative is left out. Use it
with mcfleet report --profiles DIR (a directory holding it): its device_name
is the SKU's full name, so it is chosen over a shipped profile of the same
SKU in that directory. A baseline has no datasheet peak, so no figure is
"suspect" against it.

Exit codes: 0 written; 2 bad usage, a file that cannot be read or declares
more than the C report's bounds (named; mcfleet_limits.txt), an existing
output without --force, runs of several SKUs without --sku, or a
--quick run without --allow-quick;
3 nothing to baseline (no test with figures) or the output cannot be written.
"""
import argparse
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_results import MAD_SCALE, BadFile, Results, gpu_keys, quiet_pipe, reading, show  # noqa: E402
import mcfleet_outpath as outpath  # noqa: E402

MAX_ROUNDS = 20


class Usage(Exception):
    pass


def read_run(path):
    r = Results(path)
    r.start_report()   # the C report's reading of its tests: a file whose schema it cannot read is refused
    col = r.rank_column
    uuid, serial = col("device_uuid", "str", ""), col("device_serial", "str", "")
    keys = gpu_keys(uuid, serial, col("local_rank", "int", 0))
    gpus = [{"key": k, "serial": s, "name": n, "arch": a, "cu": c}
            for k, s, n, a, c in zip(keys, serial, col("device_name", "str", "?"), col("device_arch", "str", ""),
                                     col("compute_units", "int", -1))]
    tests = {}
    for name, gname, g in r.tests():
        metric = r.judged_metric(g, gname)
        if metric is None or r.attr_text(g, gname, "not_judged"):   # the run says its figures mean nothing
            continue
        stats = r.figure_stats(g, gname, metric)   # a rank with an infinite or non-positive figure: NaN
        if stats is None:
            continue
        tests[name] = {"metric": metric, "label": r.attr_text(g, gname, "label"), "median": stats[0].tolist(),
                       "measured": r.measured(g, gname)[0], "higher": r.better(g, gname, metric) > 0}
    meta = {k: r.attr_text(r.meta, "/meta", k) for k in ("start_time", "mcfleet_version", "deck_path")}
    meta["quick"] = r.attr_int(r.meta, "/meta", "quick", default=0)
    r.report()
    return {"path": path, "meta": meta, "gpus": gpus, "tests": tests, "rules": r.rules()}


def robust(x):
    m = float(np.median(x))
    s = MAD_SCALE * float(np.median(np.abs(np.asarray(x) - m))) / abs(m) if m else float("inf")
    return m, s


def baseline(runs, sku, rules):
    """per test: expected, bound, spread, kept and removed values"""
    out = {}
    names = []
    for x in runs:
        names += [n for n in x["tests"] if n not in names]
    for name in names:
        vals, metric, measured, higher = [], None, {}, True
        for i, x in enumerate(runs):
            t = x["tests"].get(name)
            if t is None:
                continue
            metric, higher = (metric, higher) if metric else (t["metric"], t["higher"])
            if t["metric"] != metric:
                continue
            measured.setdefault(t["measured"], []).append(i)
            for k, g in enumerate(x["gpus"]):
                if g["name"] == sku and np.isfinite(t["median"][k]) and t["median"][k] > 0:
                    vals.append((t["median"][k], i, g["key"]))
        if len(measured) > 1:
            out[name] = {"skipped": "the runs measured different things under this name: %s"
                         % "; ".join("runs %s: %s" % (",".join(map(str, i)), m) for m, i in measured.items())}
            continue
        if len(vals) < 2:
            if vals:
                out[name] = {"skipped": "one value: a baseline needs two or more GPUs or runs"}
            continue
        kept, removed = list(vals), []
        for _ in range(MAX_ROUNDS):
            m, s = robust([v for v, _, _ in kept])
            thr = max(rules["warn_rel"], rules["k_min"] * s)
            drop = [e for e in kept if abs(e[0] / m - 1) > thr]
            if not drop or len(kept) - len(drop) < 2:
                break
            removed += [(v, i, g, v / m - 1, thr) for v, i, g in drop]
            kept = [e for e in kept if e not in drop]
        m, s = robust([v for v, _, _ in kept])
        margin = max(rules["fail_rel"], rules["k_min"] * s)
        if margin >= 0.5:
            out[name] = {"skipped": "spread %.1f%% of %d values: too noisy for a floor" % (100 * s, len(kept))}
            continue
        out[name] = {"metric": metric, "expected": m, "bound": m * (1 - margin) if higher else m * (1 + margin),
                     "higher": higher, "spread": s, "kept": kept, "removed": removed,
                     "measured": next(iter(measured))}
    return out


def fmt(v):
    """6 significant digits as a plain decimal (1676990, not 1.67699e+06)"""
    return np.format_float_positional(v, precision=6, unique=False, fractional=False, trim="-")


def cut(text, limit):
    """text within limit characters, cut at a word and said so"""
    if len(text) <= limit:
        return text
    return text[:limit - 5].rsplit(" ", 1)[0].rstrip(";,") + " ..."


def runs_text(runs, limit):
    """the runs for the profile's source (the profile reader keeps 511
    characters): as many whole as fit, then how many more"""
    parts = ["%s (started %s)" % (show(x["path"]), x["meta"]["start_time"]) for x in runs]
    text = "mcfleet baseline of " + "; ".join(parts)
    for k in range(len(parts), 0, -1):
        more = len(parts) - k
        text = "mcfleet baseline of " + "; ".join(parts[:k]) + (" and %d more runs (listed above)" % more if more else "")
        if len(text) <= limit:
            return text
    return cut(text, limit)


def write_profile(path, runs, sku, figures, rules, force):
    g0 = next(g for x in runs for g in x["gpus"] if g["name"] == sku)
    gpus = sorted({(g["key"], g["serial"]) for x in runs for g in x["gpus"] if g["name"] == sku})
    dates = sorted(x["meta"]["start_time"][:10] for x in runs if x["meta"]["start_time"])
    span = dates[0] if dates and dates[0] == dates[-1] else "%s..%s" % (dates[0], dates[-1]) if dates else "undated"
    lines = ["# mcfleet baseline: what this center's healthy %s GPUs reach, from its own runs" % sku,
             "# (mcfleet baseline; docs/acceptance.md). Runs, oldest as given first:"]
    for i, x in enumerate(runs):
        lines.append("#   [%d] %s  started %s, mcfleet %s, deck %s" % (i, show(x["path"]), x["meta"]["start_time"],
                                                                      x["meta"]["mcfleet_version"], x["meta"]["deck_path"]))
    lines.append("# GPUs (%d): %s" % (len(gpus), ", ".join(u + (" serial " + s if s else "") for u, s in gpus)))
    lines.append("# Outliers removed beyond max(%g, %g x spread) of the median, then floors at "
                 "max(%g, %g x spread) below it (the files' verdict rules)"
                 % (rules["warn_rel"], rules["k_min"], rules["fail_rel"], rules["k_min"]))
    for name, f in figures.items():
        if "skipped" in f:
            lines.append("# %s: not in the baseline: %s" % (name, f["skipped"]))
            continue
        for v, i, g, dev, thr in f["removed"]:
            lines.append("# %s: removed %s in run [%d]: %s, %+.1f%% from the median (beyond %.1f%%)"
                         % (name, g, i, fmt(v), 100 * dev, 100 * thr))
    q = lambda s: '"%s"' % show(s).replace("\\", "\\\\").replace('"', '\\"')  # noqa: E731
    lines += ["sku: %s" % q("%s baseline" % sku),
              "description: %s" % q("measured by mcfleet baseline from %d run%s of %d GPUs, %s"
                                    % (len(runs), "" if len(runs) == 1 else "s", len(gpus), span)),
              "sources:",
              "  runs: %s" % q(runs_text(runs, 500)),
              "match:"]
    if g0["arch"]:
        lines.append("  arch: [%s]" % q(g0["arch"].split(":")[0]))
    lines.append("  device_name: [%s]" % q(sku))
    if g0["cu"] > 0:
        lines.append("  compute_units: [%d]" % g0["cu"])
    lines.append("tests:")
    n = 0
    for name, f in figures.items():
        if "skipped" in f:
            continue
        src = "measured: %s, %s, mcfleet baseline of %d GPU medians in %d run%s" % (
            sku, span, len(f["kept"]), len({i for _, i, _ in f["kept"]}), "" if len(runs) == 1 else "s")
        note = "spread %.2f%%; %d removed as outliers" % (100 * f["spread"], len(f["removed"]))
        lines.append("  %s: {metric: %s, measured: %s, expected: %s, %s: %s, source: %s, note: %s}"
                     % (q(name), f["metric"], q(f["measured"]), fmt(f["expected"]), "floor" if f["higher"] else "ceiling",
                        fmt(f["bound"]), q(cut(src, 500)), q(note)))
        n += 1
    if not n:
        raise Usage("nothing to baseline: no test with judged figures (a summary metric with a direction) on two "
                    "or more %s GPUs or runs" % sku)
    try:
        outpath.write("-o", path, force, lambda out: out.write("\n".join(lines) + "\n"))
    except OSError as e:
        raise OSError("cannot write %s: %s" % (path, e.strerror or e))
    return n


def main(argv):
    quiet_pipe()
    ap = argparse.ArgumentParser(prog="mcfleet baseline", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("files", nargs="+", metavar="FILE.h5", help="results files of healthy GPUs")
    ap.add_argument("-o", "--output", required=True, metavar="BASELINE.yaml")
    ap.add_argument("--sku", help="the device name to baseline, where the runs hold several")
    ap.add_argument("--force", action="store_true", help="replace an existing output")
    ap.add_argument("--allow-quick", action="store_true",
                    help="accept --quick runs (small sizes, few repetitions: not what a full run reaches)")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        outpath.check("-o", a.output, a.force)   # before the runs are read
        runs = [reading(p, lambda p=p: read_run(p)) for p in a.files]
        quick = [x["path"] for x in runs if x["meta"]["quick"] == 1]
        if quick and not a.allow_quick:
            raise Usage("%s: a --quick run (small sizes, few repetitions), not what a full run reaches: baseline "
                        "full runs, or give --allow-quick" % ", ".join(quick))
        skus = sorted({g["name"] for x in runs for g in x["gpus"]})
        if a.sku is not None and a.sku not in skus:
            raise Usage("--sku %r: the runs hold %s" % (a.sku, ", ".join(repr(s) for s in skus)))
        if a.sku is None and len(skus) > 1:
            raise Usage("the runs hold several SKUs (%s): choose one with --sku" % ", ".join(repr(s) for s in skus))
        sku = a.sku or skus[0]
        rules = next((x["rules"] for x in runs if x["rules"]), None)
        if rules is None:
            raise Usage("%s: no verdict rules recorded (/meta verdict_*: files from 2026-11-25 on)" % a.files[0])
        figures = baseline(runs, sku, rules)
        n = write_profile(a.output, runs, sku, figures, rules, a.force)
    except (BadFile, Usage, outpath.Refused) as e:
        print("mcfleet baseline: %s" % show(str(e)), file=sys.stderr)
        return 3 if str(e).startswith("nothing to baseline") else 2
    except OSError as e:
        print("mcfleet baseline: %s" % show(str(e)), file=sys.stderr)
        return 3
    print("wrote %s: %s, %d tests from %d runs" % (show(a.output), show(sku), n, len(runs)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
