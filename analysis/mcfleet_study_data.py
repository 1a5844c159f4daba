"""The observations `mcfleet study` works on, from mcfleet results files
(.h5) or a study table (.csv), and where each node sits (docs/study.md).

One observation is one repetition of one figure (a test's judged metric) on
one GPU in one run. A results file is one run; its figures are each test's
summary metric with a direction (its attribute better), its repetitions
[nranks, repetitions]; a NaN repetition (a rank that did not verify, a cut
repetition) and a figure that is not positive and finite are no
observations (counted, said). The covariates of a GPU in a test are what the
run recorded beside the figure: test_sm_mhz (the clock under load),
test_avg_power_w, test_temp_c_max, the share of its power samples in the
test's span with a throttle reason set (throttle_frac), whether the GPU's
NUMA node holds the rank's cores (numa_local) and whether its PCIe link runs
at its maximum width and generation (pcie_ok).

The study table (CSV) is the same observations written by another tool (the
SC22 reader, analysis/mcfleet_sc22.py) or by hand; its columns are in
docs/study.md and in read_csv below.

A node's name is the Slurm node name the run recorded (/ranks/
slurm_nodename) where set, else its host name. Its location (cabinet,
chassis, slot, ...) comes from a pattern over that name (--location) or a
map (--location-map), outermost level first.

Needs numpy and, for .h5 files, h5py.
"""
import csv
import math
import os
import re
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

KINDS = ("matrix", "compute", "memory", "power", "link", "other")
# the families' kernels by workload kind; a test with a duration is power-limited
KIND_OF_KERNEL = {"matrix": "matrix", "gemm": "matrix", "valu": "compute", "ladder": "compute",
                  "memory": "memory", "latency": "memory", "streams": "compute", "transfer": "link"}
# HPE Cray xnames: x<cabinet>c<chassis>s<slot>b<board>n<node>
XNAME = r"x(?P<cabinet>\d+)c(?P<chassis>\d+)s(?P<slot>\d+)b(?P<board>\d+)n\d+"
PRESETS = {"xname": XNAME}
# NVML's clock-event reasons that are not idle or an application setting: power, thermal, sync boost
THROTTLE_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80 | 0x100
COVARIATE_UNITS = {"sm_mhz": "MHz", "power_w": "W", "temp_c": "degC", "throttle_frac": "fraction",
                   "numa_local": "1/0", "pcie_ok": "1/0"}


class BadInput(Exception):
    """input that cannot be studied; the message names the file, line or option (exit 2)"""


class Table:
    """the observations, as parallel arrays, and what they refer to"""

    def __init__(self):
        self.figures = []      # {"test", "metric", "unit", "better", "kind"}
        self.units = []        # (gpu key, node): a GPU where it sat
        self.runs = []         # {"id", "path", "time"}
        self.fig, self.unit, self.run, self.value = [], [], [], []
        self.cov = {}          # name -> list of floats, one per observation (NaN: not known)
        self.refused = []      # (where, why)
        self.inputs = []       # {"path", "kind", "runs", "gpus", ...}
        self.loc = {}          # node -> {level: value} (from a table's loc: columns)
        self.loc_levels = []
        self._index = {"fig": {}, "unit": {}, "run": {}}

    def index(self, what, key, make):
        ix = self._index[what]
        if key not in ix:
            ix[key] = len(ix)
            make()
        return ix[key]

    def add(self, fig, unit, run, values, covs):
        n = len(values)
        self.fig += [fig] * n
        self.unit += [unit] * n
        self.run += [run] * n
        self.value += list(values)
        for name in set(self.cov) | set(covs):
            col = self.cov.get(name)
            if col is None:   # a column first seen now: NaN for the observations before
                col = self.cov[name] = [math.nan] * (len(self.value) - n)
            v = covs.get(name, math.nan)
            col += list(v) if isinstance(v, (list, np.ndarray)) else [v] * n

    def arrays(self):
        """the observation columns as numpy arrays"""
        out = {k: np.asarray(getattr(self, k), dtype=np.int64) for k in ("fig", "unit", "run")}
        out["value"] = np.asarray(self.value, dtype=np.float64)
        out["cov"] = {k: np.asarray(v, dtype=np.float64) for k, v in self.cov.items()}
        return out


def kind_of(kernel, duration):
    if duration and duration > 0:
        return "power"
    return KIND_OF_KERNEL.get(kernel, "other")


def throttle_fraction(r, nranks, spans):
    """per rank, per test span (start, end) on the run's clock: the share of the
    rank's NVML / rocm-smi samples with a throttle reason set; NaN without samples"""
    power = r.group(r.f, "", b"power")
    for src in ("nvml", "rsmi") if power is not None else ():
        g = r.group(power, "/power", src.encode())
        if g is None:
            continue
        src = "power/" + src
        count = r.dataset(g, "/" + src, "count", "int", (nranks,), required=False)
        if count is None or not count.sum():
            continue
        t = r.dataset(g, "/" + src, "t_s", "float", (None,), required=False)
        why = r.dataset(g, "/" + src, "throttle_reasons", "float", (None,), required=False)
        if t is None or why is None or len(t) != count.sum() or len(why) != len(t):
            continue
        edges = np.concatenate([[0], np.cumsum(count)])
        out = np.full((nranks, len(spans[0]) if spans else 0), np.nan)
        for k in range(nranks):
            tk, wk = t[edges[k]:edges[k + 1]], why[edges[k]:edges[k + 1]]
            for j, (a, b) in enumerate(spans[k]):
                sel = (tk >= a) & (tk <= b) & np.isfinite(wk)
                if sel.any():
                    out[k, j] = float(np.mean((wk[sel].astype(np.int64) & THROTTLE_MASK) != 0))
        return out
    return None


def read_h5(path, table, all_metrics=False):
    """a results file's observations into TABLE (one run)"""
    from mcfleet_results import Results, gpu_identity, reading, show   # h5py only where a file is read

    def read():
        r = Results(path)
        n = r.nranks
        uuid, serial = r.rank_column("device_uuid", "str", ""), r.rank_column("device_serial", "str", "")
        local = r.rank_column("local_rank", "int", -1)
        keys = gpu_identity(uuid, serial, local)
        host = [show(h) for h in r.rank_column("hostname", "str", "")]
        sname = [show(h) for h in r.rank_column("slurm_nodename", "str", "")]
        node = [s if s.strip() else h for s, h in zip(sname, host)]
        bus = [show(b) for b in r.rank_column("pci_bus_id", "str", "")]
        sku = [show(d) for d in r.rank_column("device_name", "str", "")]
        near = r.rank_column("cores_local_to_gpu", "int", -1)
        pcie = [math.nan] * n
        h = r.group(r.f, "", b"health")
        if h is not None:
            got = [r.dataset(h, "/health", c, "int", (n, 2), required=False)
                   for c in ("pcie_gen", "pcie_gen_max", "pcie_width", "pcie_width_max")]
            if all(x is not None for x in got):
                g, gm, w, wm = (x[:, 0] for x in got)
                pcie = [float(g[k] >= gm[k] and w[k] >= wm[k]) if min(g[k], gm[k], w[k], wm[k]) > 0 else math.nan
                        for k in range(n)]
        tests = []
        for name, gname, g in r.tests():
            kernel = r.attr_text(g, gname, "kernel")
            duration = r.attr_float(g, gname, "duration", default=0.0) or 0.0
            names = [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]
            metrics = []
            for m in names if all_metrics else names[:1]:
                better = r.better(g, gname, m)
                v = r.figures(g, gname, m) if better else None
                if v is None:
                    continue
                metrics.append({"metric": m, "unit": r.unit(g, gname, m), "better": int(better),
                                "values": np.asarray(v, dtype=np.float64)})
            covs = {}
            for cov, ds in (("sm_mhz", "test_sm_mhz"), ("power_w", "test_avg_power_w"), ("temp_c", "test_temp_c_max")):
                v = r.dataset(g, gname, ds, "float", (n,), required=False)
                if v is not None:
                    covs[cov] = [float(x) if np.isfinite(x) and x > 0 else math.nan for x in v]
            a = r.dataset(g, gname, "rep_start_s", "float", (n, None), required=False)
            b = r.dataset(g, gname, "rep_end_s", "float", (n, None), required=False)
            span = None
            if a is not None and b is not None:
                span = [(float(np.nanmin(a[k])), float(np.nanmax(b[k]))) if np.isfinite(a[k]).any() and
                        np.isfinite(b[k]).any() else (math.nan, math.nan) for k in range(n)]
            tests.append({"test": name, "kind": kind_of(kernel, duration), "metrics": metrics, "covs": covs,
                          "span": span})
        spans = [[t["span"][k] if t["span"] else (math.nan, math.nan) for t in tests] for k in range(n)]
        thr = throttle_fraction(r, n, spans)
        for j, t in enumerate(tests):
            if thr is not None:
                t["covs"]["throttle_frac"] = [float(x) for x in thr[:, j]]
            t["covs"]["numa_local"] = [float(x) if x >= 0 else math.nan for x in near]
            t["covs"]["pcie_ok"] = pcie
        meta = {k: r.attr_text(r.meta, "/meta", k) for k in ("start_time", "mcfleet_version", "backend", "deck_path")}
        meta["complete"] = r.attr_int(r.meta, "/meta", "complete", default=1)
        return {"keys": keys, "node": node, "bus": bus, "sku": sku, "tests": tests, "meta": meta, "nranks": n}

    data = reading(path, read)
    run_id = "%s@%s" % (show(os.path.basename(path)), data["meta"]["start_time"])
    ri = table.index("run", (path, data["meta"]["start_time"]),
                     lambda: table.runs.append({"id": run_id, "path": show(path), "time": parse_time(data["meta"]["start_time"])}))
    gpus = set()
    for t in data["tests"]:
        # each SKU its own figure: the spread between two models is no variation
        for m, sku in ((m, x) for m in t["metrics"] for x in sorted(set(data["sku"]))):
            key = (t["test"], m["metric"], sku)
            fi = table.index("fig", key, lambda: table.figures.append(
                {"test": t["test"], "metric": m["metric"], "unit": m["unit"], "better": m["better"], "kind": t["kind"],
                 "sku": sku}))
            if table.figures[fi]["better"] != m["better"]:
                table.refused.append((show(path), "test %s metric %s: better %d here, %d in an earlier input; not read"
                                      % (t["test"], m["metric"], m["better"], table.figures[fi]["better"])))
                continue
            for k in range(data["nranks"]):
                if data["keys"][k] is None or data["sku"][k] != sku:
                    continue
                v = m["values"][k]
                v = v[~np.isnan(v)]
                bad = ~(np.isfinite(v) & (v > 0))
                if bad.any():
                    table.refused.append((show(path), "test %s metric %s rank %d: %d repetitions not a positive "
                                          "finite number (first %g): not studied" % (t["test"], m["metric"], k,
                                                                                      int(bad.sum()), v[bad][0])))
                    v = v[~bad]
                if not v.size:
                    continue
                ui = table.index("unit", (data["keys"][k], data["node"][k]),
                                 lambda: table.units.append({"gpu": data["keys"][k], "node": data["node"][k],
                                                             "bus": data["bus"][k]}))
                gpus.add(ui)
                table.add(fi, ui, ri, v, {c: vals[k] for c, vals in t["covs"].items()})
    unnamed = sum(k is None for k in data["keys"])
    table.inputs.append({"path": show(path), "kind": "h5", "runs": 1, "gpus": len(gpus), "start_time":
                         data["meta"]["start_time"], "complete": data["meta"]["complete"],
                         "backend": data["meta"]["backend"], "deck": data["meta"]["deck_path"],
                         "gpus_without_identity": unnamed})


def parse_time(text):
    """unix seconds from ISO 8601 (2026-11-26T01:45:52Z) or a number; NaN where neither"""
    text = (text or "").strip()
    if not text:
        return math.nan
    try:
        return float(text)
    except ValueError:
        pass
    import datetime
    try:
        t = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return math.nan
    if t.tzinfo is None:
        t = t.replace(tzinfo=datetime.timezone.utc)
    return t.timestamp()


def read_csv(path, table):
    """a study table into TABLE; a bad cell or header is BadInput naming path:line"""
    try:
        f = open(path, newline="", encoding="utf-8")
    except OSError as e:
        raise BadInput("%s: cannot open: %s" % (path, e.strerror))
    with f:
        lines = enumerate(f, 1)
        comments, header, lineno = [], None, 0
        for lineno, line in lines:
            if line.startswith("#"):
                comments.append(line[1:].strip())
                continue
            if line.strip():
                header = next(csv.reader([line]))
                break
        if header is None:
            raise BadInput("%s: no header row (the columns gpu, test, value at least; docs/study.md)" % path)
        header = [h.strip() for h in header]
        col = {h: i for i, h in enumerate(header)}
        for need in ("gpu", "test", "value"):
            if need not in col:
                raise BadInput("%s:%d: no column '%s' (a study table needs gpu, test and value; docs/study.md)"
                               % (path, lineno, need))
        if len(col) != len(header):
            raise BadInput("%s:%d: a column named twice" % (path, lineno))
        locs = [h for h in header if h.startswith("loc:")]
        covs = [h for h in header if h.startswith("cov:")]
        known = {"gpu", "test", "value", "metric", "unit", "better", "kind", "run", "rep", "time", "host", "sku"}
        extra = [h for h in header if h not in known and h not in locs and h not in covs]
        if extra:
            raise BadInput("%s:%d: unknown column '%s' (known: %s, loc:<level>, cov:<name>; docs/study.md)"
                           % (path, lineno, extra[0], ", ".join(sorted(known))))
        levels = [h[4:] for h in locs]
        if table.loc_levels and levels and levels != table.loc_levels:
            raise BadInput("%s:%d: location levels %s differ from an earlier table's %s"
                           % (path, lineno, levels, table.loc_levels))
        table.loc_levels = table.loc_levels or levels
        rows, bad, gpus, runs = 0, 0, set(), set()
        cell = lambda row, name, default="": row[col[name]].strip() if name in col and row[col[name]].strip() else default
        pending = {}
        for lineno, row in ((n, r) for n, l in lines for r in csv.reader([l]) if l.strip() and not l.startswith("#")):
            if len(row) != len(header):
                raise BadInput("%s:%d: %d cells, the header has %d" % (path, lineno, len(row), len(header)))
            try:
                v = float(cell(row, "value", "nan"))
            except ValueError:
                v = math.nan
            if not (math.isfinite(v) and v > 0):
                bad += 1
                if bad <= 5:
                    table.refused.append(("%s:%d" % (path, lineno), "value '%s' is not a positive finite number: "
                                          "row not studied" % cell(row, "value")))
                continue
            b = cell(row, "better", "1")
            if b not in ("1", "+1", "-1"):
                raise BadInput("%s:%d: better '%s': +1 (higher is better) or -1 (lower)" % (path, lineno, b))
            kind = cell(row, "kind", "other")
            if kind not in KINDS:
                raise BadInput("%s:%d: kind '%s': one of %s" % (path, lineno, kind, ", ".join(KINDS)))
            test, metric, sku = cell(row, "test"), cell(row, "metric", "value"), cell(row, "sku")
            gpu, node = cell(row, "gpu"), cell(row, "host") or cell(row, "gpu")
            if not test or not gpu:
                raise BadInput("%s:%d: an empty %s" % (path, lineno, "test" if not test else "gpu"))
            fi = table.index("fig", (test, metric, sku), lambda: table.figures.append(
                {"test": test, "metric": metric, "unit": cell(row, "unit"), "better": int(b), "kind": kind, "sku": sku}))
            if table.figures[fi]["better"] != int(b):
                raise BadInput("%s:%d: better %s, where earlier rows of %s %s say %d"
                               % (path, lineno, b, test, metric, table.figures[fi]["better"]))
            run = cell(row, "run", "1")
            ri = table.index("run", (path, run), lambda: table.runs.append(
                {"id": run, "path": path, "time": parse_time(cell(row, "time"))}))
            ui = table.index("unit", (gpu, node), lambda: table.units.append({"gpu": gpu, "node": node, "bus": ""}))
            if levels:
                here = {lv: cell(row, "loc:" + lv) for lv in levels}
                was = table.loc.setdefault(node, here)
                if was != here:
                    raise BadInput("%s:%d: node %s at %s, where an earlier row put it at %s"
                                   % (path, lineno, node, here, was))
            cv = {}
            for c in covs:
                try:
                    cv[c[4:]] = float(cell(row, c, "nan"))
                except ValueError:
                    raise BadInput("%s:%d: column %s: '%s' is not a number" % (path, lineno, c, cell(row, c)))
            table.add(fi, ui, ri, [v], cv)
            rows += 1
            gpus.add(gpu)
            runs.add(run)
        if bad > 5:
            table.refused.append((path, "%d rows in all with a value that is not a positive finite number" % bad))
        if not rows:
            raise BadInput("%s: no row with a value to study" % path)
        del pending
    table.inputs.append({"path": path, "kind": "csv", "runs": len(runs), "gpus": len(gpus), "rows": rows,
                         "rows_refused": bad, "comments": comments[:20]})


def read_inputs(paths, all_metrics=False):
    table = Table()
    for p in paths:
        if p.endswith(".csv"):
            read_csv(p, table)
        else:
            read_h5(p, table, all_metrics)
    return table


def locate(nodes, pattern, mapfile, table_loc, table_levels):
    """(levels, {node: tuple of level values}, unparsed nodes, how): where each
    node sits, outermost level first; every level is prefixed by the one above
    it, so cabinet 1's chassis 0 is not cabinet 2's"""
    if table_levels and table_loc:
        where = {n: tuple(table_loc.get(n, {}).get(lv, "") for lv in table_levels) for n in nodes}
        return list(table_levels), where, [n for n, w in where.items() if not all(w)], "the table's loc: columns"
    if mapfile:
        return read_map(mapfile, nodes)
    if pattern in ("none", ""):
        return [], {n: () for n in nodes}, [], "none"
    tried = [PRESETS["xname"]] if pattern == "auto" else [PRESETS.get(pattern, pattern)]
    try:
        rx = re.compile(tried[0])
    except re.error as e:
        raise BadInput("--location '%s': not a regular expression: %s" % (pattern, e))
    levels = list(rx.groupindex)
    if not levels and pattern != "auto":
        raise BadInput("--location '%s': no named group (write (?P<cabinet>...) for each level, outermost first)"
                       % pattern)
    where, unparsed = {}, []
    for n in nodes:
        m = rx.fullmatch(n)
        if m:
            where[n] = tuple(m.group(lv) or "" for lv in levels)
        else:
            unparsed.append(n)
    if pattern == "auto" and unparsed:
        return [], {n: () for n in nodes}, [], "none (auto: not every node name is an HPE Cray xname)"
    for n in unparsed:
        where[n] = ("?",) * len(levels)
    how = "xname (auto)" if pattern == "auto" else pattern
    return levels, where, unparsed, how


def read_map(path, nodes):
    try:
        with open(path, newline="", encoding="utf-8") as f:
            rows = [(i, r) for i, r in enumerate(csv.reader(f), 1) if r and not r[0].startswith("#")]
    except OSError as e:
        raise BadInput("--location-map %s: cannot open: %s" % (path, e.strerror))
    if not rows or rows[0][1][0].strip() != "host" or len(rows[0][1]) < 2:
        raise BadInput("--location-map %s:1: the header must be host,<level>[,<level>...] (outermost first)" % path)
    levels = [h.strip() for h in rows[0][1][1:]]
    where = {}
    for i, r in rows[1:]:
        if len(r) != len(levels) + 1:
            raise BadInput("--location-map %s:%d: %d cells, the header has %d" % (path, i, len(r), len(levels) + 1))
        where[r[0].strip()] = tuple(x.strip() for x in r[1:])
    unparsed = [n for n in nodes if n not in where]
    return levels, {n: where.get(n, ("?",) * len(levels)) for n in nodes}, unparsed, "map %s" % path
