#!/usr/bin/env python3
"""mcfleet_sc22: the per-run rows of the SC22 GPU variability study (Sinha et
al., "Not All GPUs Are Created Equal", hal-uw/gpu_variability_sc22_artifact)
as a study table (docs/study.md) for `mcfleet study`.

  mcfleet_sc22.py FILE.csv|DIR [MORE ...] -o TABLE.csv [--cluster NAME] [--benchmark NAME]
                  [--source 'REPO COMMIT'] [--kernel REGEX] [--perf-unit s|ms|us|ns] [--kind KIND]
                  [--keep-warmup] [--located-only] [--max-messages N] [--force]

What it reads (a directory: every *.csv below it, sorted; a file of no known
layout there is skipped and said, one named on the command line is an error).
The artifact holds the scripts; the rows the authors released (Longhorn,
Frontera, Lonestar6) are in hal-uw/blox-pal, aggregated_data/. Each file's
layout is told by its header (docs/study-sc22.md lists every released file):
  kernel  uuid, perf, kern_min_start, kern_max_start, num_kerns, ts: the
          artifact's aggregator (gpu-aggregator.py), one row per GPU and run:
          perf is the mean duration of the benchmark's main kernel (SGEMM,
          PageRank on Longhorn); freq, temp, pwr the medians of nvprof's samples
  iter    perf, min_iter_dur, max_iter_dur: a training run's iteration
          durations (ResNet-50, BERT): perf their median, one row per GPU and
          run (ts on Longhorn, reps on Frontera)
  ncu     perf_avg, perf, run: Nsight Compute's mean kernel time in ns
          (PageRank on Frontera)
  gpu     norm_perf, perf: one row per GPU, its runs already merged (ResNet on
          Lonestar6): no run level
  nvprof  a raw trace the artifact's run scripts write (nvprof --print-gpu-trace
          --system-profiling on --csv, one file per GPU and run; the one in
          the artifact's history is a TITAN V PageRank): the file name
          gives the GPU (GPU-<uuid>), the node (cNNN-NNN, a01n01), run<N> and the
          start time (the last number); the main kernel is --kernel or the one
          with the largest total time; value the mean duration of its
          instances strictly between its first and last start, the covariates
          the medians of the clock, power and temperature samples in that span
          (the aggregator's rules, so a trace and its aggregated row agree)
PAL's derived per-GPU factors (32gpu-variability.csv) are no measurement:
refused.

The table: gpu (the GPU's UUID; where the rows have none, the authors' own
id cabinet-node-device), host and loc:<level> from the node (TACC: cabinet
c197 and node 101 are host c197-101, loc:cabinet c197; Summit: node a01n01 is
loc:row a, loc:cabinet a01), sku (the cluster's name, from --cluster or the
file's path: the aggregated rows name no device; else a trace's device),
test (the benchmark), metric kernel_ms or iter_ms, unit ms, better -1 (a
duration), kind (matrix for sgemm, else other; --kind sets it), run (the
run's start ts where the rows have one, else their run or reps index; a row
with neither is a run of its own, L<line>), time (unix seconds), value, and
cov:sm_mhz, cov:power_w, cov:temp_c (the medians; cov:*_mean where the rows
have means too).

Units: perf's unit is not in the files. kernel: told from the kernel window,
perf / ((kern_max_start - kern_min_start) / (num_kerns - 1)): the one unit
(s, ms, us, ns) that makes it 0.5 to 4.5 kernel periods (SGEMM: 1.00 in ms;
PageRank on Longhorn: 2.0 in us). iter and gpu: seconds where the file's
median is below 10 (no training iteration here lasts 10 s), else ms; a
perf_s column must be perf / 1000. --perf-unit overrides; each choice and
its evidence is a comment line of the table.

Refused rows (named FILE:LINE on stderr, --max-messages of them, all
counted): a cell that is not a number, a value not positive and finite, a
location no rule reads, a row that copies an earlier one (the released
SGEMM file holds 2284), a second row of one GPU and run. Rows flagged
warmup=TRUE are skipped (--keep-warmup keeps them). A row without a location
takes its GPU's where all its located rows of that file agree (counted); one
still without is its own node to the study (--located-only leaves it out).
Run it per cluster and benchmark: one table each (--cluster, --benchmark),
with /usr/bin/python3 (the shared output rule, mcfleet_outpath, needs h5py).

Exit codes: 0 written (rows refused are said, not an error); 2 bad usage, an
input that cannot be read or has no known layout (named), a unit that cannot
be told, nothing left to write, an output that exists (without --force) or
is a symlink, FIFO, device or directory; 3 the output cannot be written.
"""
import argparse
import csv
import math
import os
import re
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_outpath as outpath  # noqa: E402

CLUSTERS = {"longhorn": "longhorn", "frontera": "frontera", "ls6": "ls6", "lonestar6": "ls6", "summit": "summit",
            "vortex": "vortex", "corona": "corona"}
KINDS = ("matrix", "compute", "memory", "power", "link", "other")
UNITS = {"s": 1.0, "ms": 1e3, "us": 1e6, "ns": 1e9}   # perf = seconds x this
TACC_CAB = re.compile(r"c\d{3}")
HOST = re.compile(r"(?P<cab>c\d{3})-(?P<node>\d{3})|(?P<row>[a-h])(?P<col>\d\d)n\d\d")
UUID = re.compile(r"GPU-[0-9a-fA-F]{8}(?:-[0-9a-fA-F]{4}){3}-[0-9a-fA-F]{12}")
SAMPLES = {"[SM/Memory Clock (MHz)]": ("sm_mhz", 1.0), "[Power/Limit (mW)]": ("power_w", 1e-3),
           "[Temperature (C)]": ("temp_c", 1.0)}
COVS = (("freq", "sm_mhz"), ("pwr", "power_w"), ("temp", "temp_c"),
        ("mean_freq", "sm_mhz_mean"), ("mean_pwr", "power_w_mean"), ("mean_temp", "temp_c_mean"))
INDEX = ("", "Unnamed: 0")   # a pandas index written as a column: not part of a row's content


class Usage(Exception):
    """bad usage or input: exit 2"""


class Bad(Exception):
    """one row refused"""


def number(text, what):
    try:
        v = float(text)
    except ValueError:
        raise Bad("%s '%s' is not a number" % (what, text))
    if not math.isfinite(v):
        raise Bad("%s '%s' is not finite" % (what, text))
    return v


def fmt(v):
    return "%.10g" % v


def place(cabinet, node):
    """(host, {level: value}) of a row's cabinet and node cells; ("", {}) where
    the row has none (-1 or empty)"""
    cabinet, node = cabinet.strip(), node.strip()
    if cabinet in ("", "-1") and node in ("", "-1"):
        return "", {}
    m = HOST.fullmatch(node)
    if m and m["row"]:   # Summit: a01n01 = row a, cabinet a01, node 01
        return node, {"row": m["row"], "cabinet": m["row"] + m["col"]}
    if TACC_CAB.fullmatch(cabinet) and node.isdigit() and 0 < int(node) < 1000:
        return "%s-%03d" % (cabinet, int(node)), {"cabinet": cabinet}
    raise Bad("cabinet '%s', node '%s': no location rule reads them (TACC: cabinet cNNN and a node number; "
              "Summit: node a01n01)" % (cabinet, node))


def cluster_of(path):
    """the cluster a path names (a directory or file name word), or None"""
    words = re.split(r"[^a-z0-9]+", path.lower())
    found = {CLUSTERS[w] for w in words if w in CLUSTERS}
    return found.pop() if len(found) == 1 else None


def layout(cols):
    c = set(cols)
    if {"GPU_UUID", "PerfVar_classA"} <= c:
        return "pal"
    if {"perf_avg", "perf", "run", "uuid"} <= c:
        return "ncu"
    if {"norm_perf", "perf", "cabinet", "node", "device"} <= c:
        return "gpu"
    if {"perf", "min_iter_dur", "max_iter_dur"} <= c:
        return "iter"
    if {"perf", "uuid", "kern_min_start", "kern_max_start", "num_kerns"} <= c:
        return "kernel"
    return None


class Result:
    """what convert() returns: rows (dicts of the table's columns), the
    comment lines, the refused rows [(FILE:LINE, why)] and the counts"""

    def __init__(self):
        self.rows, self.comments, self.refused, self.notes, self.runs = [], [], [], [], {}
        self.counts = {"read": 0, "written": 0, "refused": 0, "warmup": 0, "located": 0, "other_benchmark": 0}

    def refuse(self, where, why):
        self.refused.append((where, why))
        self.counts["refused"] += 1


def floats(rows, i):
    """column I of ROWS as numbers, NaN where a cell is none"""
    out = []
    for r in rows:
        try:
            out.append(float(r[i]))
        except (ValueError, IndexError):
            out.append(math.nan)
    return out


def perf_unit(kind, rows, col, forced, path):
    """(seconds-per-unit name, evidence) for a file's perf column"""
    if forced:
        return forced, "--perf-unit %s" % forced
    vals = [v for v in floats(rows, col["perf"]) if v > 0]
    if not vals:
        return "ms", "no perf to tell the unit from"
    if kind == "kernel":
        q = []
        for r in rows:
            try:
                n = float(r[col["num_kerns"]])
                span = float(r[col["kern_max_start"]]) - float(r[col["kern_min_start"]])
                if n >= 2 and span > 0:
                    q.append(float(r[col["perf"]]) / (span / (n - 1)))
            except (ValueError, IndexError):
                pass
        if not q:
            raise Usage("%s: no row with a kernel window (kern_min_start, kern_max_start, num_kerns >= 2) to tell "
                        "perf's unit from: give --perf-unit" % path)
        qm = statistics.median(q)
        fits = [u for u, f in UNITS.items() if 0.5 <= qm / f <= 4.5]
        if len(fits) != 1:
            raise Usage("%s: perf / kernel period is %.4g: no one unit makes it 0.5 to 4.5 periods: give --perf-unit"
                        % (path, qm))
        return fits[0], "perf / kernel period (s) = %.4g (median of %d rows): %.3f periods in %s" % (
            qm, len(q), qm / UNITS[fits[0]], fits[0])
    if "perf_s" in col:
        ratio = [p / s for p, s in zip(floats(rows, col["perf"]), floats(rows, col["perf_s"])) if s > 0 and p > 0]
        if ratio and all(abs(x / 1000 - 1) < 1e-6 for x in ratio):
            return "ms", "perf = 1000 x perf_s in all %d rows" % len(ratio)
        raise Usage("%s: perf is not 1000 x perf_s: give --perf-unit" % path)
    med = statistics.median(vals)
    u = "s" if med < 10 else "ms"
    return u, "median perf %.4g: %s (an iteration of 10 s or more is not seen in these runs)" % (med, u)


def read_table(path, rows, header, res, opt, cluster, explicit):
    """an aggregated file's rows into res.rows"""
    col = {h: i for i, h in enumerate(header)}
    kind = layout(header)
    if kind is None:
        msg = "%s: no known layout (header %s; docs/study-sc22.md lists the layouts)" % (
            path, ",".join(header[:12]))
        if explicit:
            raise Usage(msg)
        res.notes.append(msg + ": skipped")
        return
    if kind == "pal":
        msg = "%s: PAL's derived per-GPU factors (PerfVar_class*), not measured rows" % path
        if explicit:
            raise Usage(msg + ": nothing to convert")
        res.notes.append(msg + ": skipped")
        return
    bench_col = "exp" if "exp" in col else "model" if "model" in col else None
    if kind == "ncu":
        unit = opt.get("perf_unit") or "ns"
        why = "Nsight Compute's gpu__time_duration (perf = perf_avg x kernels)" if unit == "ns" else "--perf-unit"
    else:
        unit, why = perf_unit(kind, [r for _, r in rows], col, opt.get("perf_unit"), path)
    res.comments.append("%s: layout %s, %d rows; perf unit %s: %s" % (path, kind, len(rows), unit, why))
    seen, n0 = {}, len(res.rows)
    content = [i for i, h in enumerate(header) if h not in INDEX]
    for lineno, r in rows:
        where = "%s:%d" % (path, lineno)
        res.counts["read"] += 1
        if len(r) != len(header):
            res.refuse(where, "%d cells, the header has %d" % (len(r), len(header)))
            continue
        cell = lambda name: r[col[name]].strip() if name in col else ""
        bench = (cell(bench_col) if bench_col else "").lower() or "unknown"
        if opt.get("benchmark") and bench != opt["benchmark"]:
            res.counts["other_benchmark"] += 1
            continue
        key = tuple(r[i] for i in content)
        if key in seen:
            res.refuse(where, "a copy of line %d (every cell the same)" % seen[key])
            continue
        seen[key] = lineno
        if cell("warmup").upper() == "TRUE" and not opt.get("keep_warmup"):
            res.counts["warmup"] += 1
            continue
        try:
            host, loc = place(cell("cabinet"), cell("node"))
            gpu = cell("uuid") or (("%s-%s-%s" % (cell("cabinet"), cell("node"), cell("device"))) if host else "")
            if not gpu or gpu == "-1":
                raise Bad("no GPU identity (uuid, or cabinet, node and device)")
            v = number(cell("perf_avg") if kind == "ncu" else cell("perf"), "perf")
            if not v > 0:
                raise Bad("perf %s is not a positive duration" % fmt(v))
            ts, run, time = cell("ts"), "", ""
            if ts and ts != "-1":
                t = number(ts, "ts")
                if not 0 < t < 1e10:
                    raise Bad("ts '%s' is no start time (unix seconds)" % ts)
                run = time = "%d" % t
            elif kind == "gpu":
                run = "1"   # one row per GPU: its runs merged by the authors
            elif kind != "kernel":   # the aggregator's reps there counts kernels, not runs
                run = cell("run") or cell("reps")
            run = run or "L%d" % lineno
            row = {"gpu": gpu, "host": host, "sku": cluster or "", "test": bench,
                   "metric": "iter_ms" if kind in ("iter", "gpu") else "kernel_ms", "unit": "ms", "better": "-1",
                   "kind": opt.get("kind") or ("matrix" if bench == "sgemm" else "other"), "run": run,
                   "time": time, "value": fmt(v / UNITS[unit] * 1e3)}
            for lv, x in loc.items():
                row["loc:" + lv] = x
            for name, cov in COVS:
                if cell(name):
                    x = number(cell(name), name)
                    if x > 0:
                        row["cov:" + cov] = fmt(x)
        except Bad as e:
            res.refuse(where, str(e))
            continue
        k = (gpu, run, bench, row["metric"])
        if k in res.runs:
            res.refuse(where, "GPU %s run %s again (%s): one row per GPU and run" % (gpu, run, res.runs[k]))
            continue
        res.runs[k] = where
        row["_where"], row["_file"] = where, path
        res.rows.append(row)
    res.comments.append("%s: %d rows converted" % (path, len(res.rows) - n0))


def name_facts(path):
    """GPU UUID, host, run, start time and benchmark from a trace's file name"""
    base = os.path.basename(path)
    stem = base[:-4] if base.lower().endswith(".csv") else base
    toks = stem.split("_")
    m = UUID.search(stem)
    host = next((t for t in toks if HOST.fullmatch(t)), "")
    run = next((t[3:] for t in toks if re.fullmatch(r"run\d+", t)), "")
    ts = toks[-1] if re.fullmatch(r"\d{9,10}", toks[-1]) else ""
    return {"uuid": m.group(0) if m else "", "host": host, "run": run, "ts": ts, "bench": toks[0].lower()}


def read_trace(path, lines, res, opt, cluster):
    """a raw nvprof GPU trace: one row"""
    f = name_facts(path)
    bench = f["bench"]
    if opt.get("benchmark") and bench != opt["benchmark"]:
        res.counts["other_benchmark"] += 1
        return
    header, units, kernels, samples = None, None, {}, []
    for lineno, line in lines:
        if line.startswith("==") or not line.strip():
            continue
        cells = next(csv.reader([line]))
        if header is None:
            header = cells
            col = {h: i for i, h in enumerate(header)}
            if not {"Start", "Duration", "Device", "Name"} <= set(col):
                raise Usage("%s:%d: not an nvprof GPU trace (no Start, Duration, Device, Name)" % (path, lineno))
            continue
        if units is None:
            units = dict(zip(header, cells))
            for c in ("Start", "Duration"):
                if units.get(c) not in UNITS:
                    raise Usage("%s:%d: %s in '%s', not s, ms, us or ns" % (path, lineno, c, units.get(c)))
            continue
        if len(cells) != len(header):
            res.refuse("%s:%d" % (path, lineno), "%d cells, the header has %d" % (len(cells), len(header)))
            continue
        get = lambda c: cells[col[c]] if c in col else ""
        name = get("Name")
        try:
            start = number(get("Start"), "Start") / UNITS[units["Start"]]
            if name in SAMPLES and get("System"):
                cov, scale = SAMPLES[name]
                samples.append((start, get("Device"), cov, number(get("System").split("/")[0], name) * scale))
            elif get("Duration") and not name.startswith("["):
                dur = number(get("Duration"), "Duration") / UNITS[units["Duration"]] * 1e3
                kernels.setdefault((name, get("Device")), []).append((start, dur))
        except Bad as e:
            res.refuse("%s:%d" % (path, lineno), str(e))
    if header is None or units is None:
        raise Usage("%s: no trace rows (an empty or cut nvprof log)" % path)
    pick = [k for k in kernels if re.search(opt["kernel"], k[0])] if opt.get("kernel") else list(kernels)
    if not pick:
        raise Usage("%s: no kernel%s in the trace" % (path, " matches --kernel" if opt.get("kernel") else ""))
    main = max(pick, key=lambda k: (sum(d for _, d in kernels[k]), k))
    inst = sorted(kernels[main])
    lo, hi = inst[0][0], inst[-1][0]
    inner = [d for s, d in inst if lo < s < hi] or [d for _, d in inst]
    dev = re.search(r"\((\d+)\)\s*$", main[1])
    gpu = f["uuid"] or (f["host"] + ":" + dev.group(1) if f["host"] and dev else "")
    if not gpu:
        raise Usage("%s: no GPU identity in the file name (GPU-<uuid>, or a node name cNNN-NNN / a01n01)" % path)
    host, loc = "", {}
    if f["host"]:
        m = HOST.fullmatch(f["host"])
        host, loc = place(m["cab"] or "", m["node"] or f["host"])
    run = f["run"] or f["ts"] or "1"
    k = (gpu, run, bench, "kernel_ms")
    if k in res.runs:
        res.refuse(path, "GPU %s run %s again (%s): one row per GPU and run" % (gpu, run, res.runs[k]))
        return
    res.runs[k] = path
    row = {"gpu": gpu, "host": host, "sku": cluster or re.sub(r"\s*\(\d+\)\s*$", "", main[1]), "test": bench,
           "metric": "kernel_ms", "unit": "ms", "better": "-1",
           "kind": opt.get("kind") or ("matrix" if bench.startswith("sgemm") else "other"),
           "run": run, "time": f["ts"], "value": fmt(sum(inner) / len(inner)),
           "_where": path, "_file": path}
    for lv, x in loc.items():
        row["loc:" + lv] = x
    for cov in ("sm_mhz", "power_w", "temp_c"):
        xs = [x for s, d, c, x in samples if c == cov and d == main[1] and lo < s < hi]
        if xs:
            row["cov:" + cov] = fmt(statistics.median(xs))
    res.counts["read"] += 1
    res.rows.append(row)
    res.comments.append("%s: nvprof trace, kernel %s on %s: %d instances, %d between the first and last start"
                        % (path, main[0][:80], main[1], len(inst), len(inner)))


def read_file(path, res, opt, explicit):
    cluster = opt.get("cluster")
    named = cluster_of(path)
    if cluster and named and named != cluster:
        res.notes.append("%s: the path names %s, not %s: skipped" % (path, named, cluster))
        return
    cluster = cluster or named
    try:
        with open(path, newline="", encoding="utf-8") as f:
            first = f.readline()
            if not first:
                if explicit:
                    raise Usage("%s: empty" % path)
                res.notes.append("%s: empty: skipped" % path)
                return
            f.seek(0)
            lines = enumerate(f, 1)
            if first.startswith("==") or first.startswith('"Start"'):
                read_trace(path, lines, res, opt, cluster)
                return
            rows = [(n, r) for n, line in lines for r in csv.reader([line]) if line.strip()]
    except OSError as e:
        raise Usage("%s: cannot read: %s" % (path, e.strerror or e))
    except UnicodeDecodeError:
        raise Usage("%s: not UTF-8 text" % path)
    if not rows:
        raise Usage("%s: no header row" % path)
    header = [h.strip() for h in rows[0][1]]
    read_table(path, rows[1:], header, res, opt, cluster, explicit)


def locate_by_gpu(res):
    """rows without a location take their GPU's, where its located rows of the
    same file agree (one campaign: another file may be years apart)"""
    at = {}
    key = lambda r: (r["_file"], r["gpu"])
    for r in res.rows:
        if r["host"]:
            at.setdefault(key(r), set()).add(tuple(sorted((k, v) for k, v in r.items()
                                                          if k == "host" or k.startswith("loc:"))))
    for r in res.rows:
        if not r["host"] and len(at.get(key(r), ())) == 1:
            r.update(dict(next(iter(at[key(r)]))))
            res.counts["located"] += 1


def convert(paths, cluster=None, benchmark=None, source=None, kernel=None, perf_unit=None, kind=None,
            keep_warmup=False, located_only=False):
    """the study table's rows of PATHS (files or directories): a Result;
    Usage for bad usage or an input that cannot be read"""
    if cluster is not None:
        cluster = CLUSTERS.get(cluster.lower(), cluster.lower())
    if kernel:
        try:
            re.compile(kernel)
        except re.error as e:
            raise Usage("--kernel '%s': %s" % (kernel, e))
    if perf_unit is not None and perf_unit not in UNITS:
        raise Usage("--perf-unit '%s': one of s, ms, us, ns" % perf_unit)
    if kind is not None and kind not in KINDS:
        raise Usage("--kind '%s': one of %s" % (kind, ", ".join(KINDS)))
    opt = {"cluster": cluster, "benchmark": benchmark.lower() if benchmark else None, "kernel": kernel,
           "perf_unit": perf_unit, "kind": kind, "keep_warmup": keep_warmup}
    res = Result()
    files = []
    for p in paths:
        if os.path.isdir(p):
            for d, subs, names in os.walk(p):
                subs.sort()
                files += [(os.path.join(d, n), False) for n in sorted(names) if n.lower().endswith(".csv")]
        elif os.path.exists(p):
            files.append((p, True))
        else:
            raise Usage("%s: no such file or directory" % p)
    done = set()
    for p, explicit in files:
        if os.path.realpath(p) in done:   # named twice, or inside a folder named too
            continue
        done.add(os.path.realpath(p))
        at = len(res.comments)
        read_file(p, res, opt, explicit)
        if len(res.comments) > at:   # the file was read: where it came from, before what was found
            res.comments.insert(at, "source: %s %s" % (source or "(repository and commit not given: --source)", p))
    locate_by_gpu(res)
    if located_only:
        res.counts["unlocated"] = sum(1 for r in res.rows if not r["host"])
        res.rows = [r for r in res.rows if r["host"]]
    res.counts["written"] = len(res.rows)
    return res


RULES = ("rules: value = perf converted to ms (kernel_ms: the mean duration of the main kernel in a run; iter_ms: "
         "the median training-iteration duration), better -1; host cNNN-NNN from cabinet and node (TACC), "
         "a01n01 (Summit: loc:row, loc:cabinet); run = ts where the rows have one, else run/reps; "
         "cov:sm_mhz, cov:power_w, cov:temp_c = the aggregator's medians (freq, pwr, temp), cov:*_mean its means; "
         "warm-up rows skipped, copies and second rows of a GPU's run refused (analysis/mcfleet_sc22.py --help)")


def columns(rows):
    """the table's header: fixed columns first, then the loc: and cov: ones any row has"""
    have = {k for r in rows for k, v in r.items() if v != "" and not k.startswith("_")}
    locs = [c for c in ("loc:row", "loc:cabinet") if c in have]
    covs = sorted(c for c in have if c.startswith("cov:"))
    fixed = ["gpu", "host"] + locs + ["sku", "test", "metric", "unit", "better", "kind", "run", "time", "value"]
    return [c for c in fixed if c in have or c in ("gpu", "test", "value", "run")] + covs


def write(res, path, force, argv):
    cols = columns(res.rows)

    def fill(out):
        for line in ["mcfleet_sc22.py " + " ".join(argv)] + res.comments + [RULES] + [
                "rows: %s" % ", ".join("%s %d" % kv for kv in res.counts.items())]:
            out.write("# %s\n" % line.replace("\n", " "))
        w = csv.writer(out, lineterminator="\n")
        w.writerow(cols)
        for r in res.rows:
            w.writerow([r.get(c, "") for c in cols])
    try:
        outpath.write("-o", path, force, fill)
    except OSError as e:
        raise OSError("cannot write %s: %s" % (path, e.strerror or e))
    return cols


def main(argv):
    ap = argparse.ArgumentParser(prog="mcfleet_sc22.py", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("inputs", nargs="+", metavar="FILE.csv|DIR", help="aggregated rows, raw nvprof traces, folders")
    ap.add_argument("-o", "--output", required=True, metavar="TABLE.csv", help="the study table to write")
    ap.add_argument("--cluster", help="the cluster (longhorn, frontera, ls6, summit, vortex, corona, or a name): "
                    "the rows' sku; files whose path names another cluster are skipped")
    ap.add_argument("--benchmark", help="only this benchmark's rows (sgemm, pagerank, resnet, bert, lammps)")
    ap.add_argument("--source", help="'REPO COMMIT' the files came from, for the table's # source: lines")
    ap.add_argument("--kernel", metavar="REGEX", help="raw traces: the main kernel (default: the largest total time)")
    ap.add_argument("--perf-unit", choices=sorted(UNITS), help="perf's unit (default: told from the data)")
    ap.add_argument("--kind", choices=KINDS, help="the rows' kind (default: matrix for sgemm, else other)")
    ap.add_argument("--keep-warmup", action="store_true", help="keep rows flagged warmup=TRUE")
    ap.add_argument("--located-only", action="store_true", help="leave out rows whose node is not known")
    ap.add_argument("--max-messages", type=int, default=20, metavar="N", help="refused rows named (default 20)")
    ap.add_argument("--force", action="store_true", help="replace an existing output")
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        outpath.check("-o", a.output, a.force)   # before the inputs are read
        res = convert(a.inputs, a.cluster, a.benchmark, a.source, a.kernel, a.perf_unit, a.kind, a.keep_warmup,
                      a.located_only)
        for n in res.notes:
            print("mcfleet_sc22: %s" % n, file=sys.stderr)
        for where, why in res.refused[:max(a.max_messages, 0)]:
            print("mcfleet_sc22: %s: %s: row refused" % (where, why), file=sys.stderr)
        if res.counts["refused"] > max(a.max_messages, 0):
            print("mcfleet_sc22: %d more refused rows not named (--max-messages)"
                  % (res.counts["refused"] - max(a.max_messages, 0)), file=sys.stderr)
        if not res.rows:
            raise Usage("nothing to write: no row converted (%s)"
                        % ", ".join("%s %d" % kv for kv in res.counts.items()))
        write(res, a.output, a.force, argv)
    except (Usage, outpath.Refused) as e:
        print("mcfleet_sc22: %s" % e, file=sys.stderr)
        return 2
    except OSError as e:
        print("mcfleet_sc22: %s" % e, file=sys.stderr)
        return 3
    c = res.counts
    print("wrote %s: %d rows, %d GPUs, %d nodes; %d refused, %d warm-up skipped, %d located by their GPU's other rows"
          % (a.output, c["written"], len({r["gpu"] for r in res.rows}), len({r["host"] for r in res.rows if r["host"]}),
             c["refused"], c["warmup"], c["located"]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
