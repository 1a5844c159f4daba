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
import errno
import math
import os
import re
import signal
import stat
import sys
import threading
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_hostlist as hostlist  # noqa: E402

KINDS = ("matrix", "compute", "memory", "power", "link", "other")
# HPE Cray xnames: x<cabinet>c<chassis>s<slot>b<board>n<node>
XNAME = r"x(?P<cabinet>\d+)c(?P<chassis>\d+)s(?P<slot>\d+)b(?P<board>\d+)n\d+"
PRESETS = {"xname": XNAME}
# NVML's clock-event reasons that are not idle or an application setting: power, thermal, sync boost
THROTTLE_MASK = 0x4 | 0x8 | 0x20 | 0x40 | 0x80 | 0x100
COVARIATE_UNITS = {"sm_mhz": "MHz", "power_w": "W", "temp_c": "degC", "throttle_frac": "fraction",
                   "numa_local": "1/0", "pcie_ok": "1/0"}


def show(name):
    """mcfleet_results.show (a name on one line, printable), imported where
    first needed: that module needs h5py, a study table does not"""
    from mcfleet_results import show as one_line
    return one_line(name)


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
        self.names_refused = {}   # node -> (where it was read, why Slurm cannot take its name)
        self._names_seen = set()
        self._index = {"fig": {}, "unit": {}, "run": {}}

    def node_seen(self, node, where):
        """a node name read at WHERE: one the node-name rule refuses
        (mcfleet_hostlist) is kept, studied and said, for mcfleet export
        refuses it"""
        if node not in self._names_seen:   # each name checked once, where it is first read
            self._names_seen.add(node)
            why = hostlist.name_problem(node)
            if why:
                self.names_refused[node] = (where, why)

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
        for name in sorted(set(self.cov) | set(covs)):   # sorted: the JSON the same on every run
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


def kind_of(identity, duration):
    """a test's workload kind: its family's (the file's schema, as the C report
    reads it), "power" for a test with a duration (power-limited), "other"
    where the family says none"""
    if duration and duration > 0:
        return "power"
    kind = (identity or {}).get("kind")
    return kind if kind in KINDS else "other"


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
        # series_kept 0 (the deck's power: {series: false}): the samples were taken, not kept
        if count is None or not count.sum() or r.attr_int(g, "/" + src, "series_kept", default=1) == 0:
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
            tests.append({"test": name, "measured": r.measured(g, gname)[0], "kind": kind_of(r.identity(name), duration),
                          "metrics": metrics, "covs": covs,
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
        # what was injected for testing (MCFLEET_INJECT*): a planted slow GPU must not read as a real one
        meta["injected"] = "; ".join(t for t in (r.attr_text(r.meta, "/meta", k) for k in ("injected", "injected_slow"))
                                     if t.strip())
        return {"keys": keys, "node": node, "bus": bus, "sku": sku, "tests": tests, "meta": meta, "nranks": n}

    data = reading(path, read)
    run_id = "%s@%s" % (show(os.path.basename(path)), data["meta"]["start_time"])
    ri = table.index("run", (path, data["meta"]["start_time"]),
                     lambda: table.runs.append({"id": run_id, "path": show(path), "time": parse_time(data["meta"]["start_time"])}))
    gpus = set()
    for t in data["tests"]:
        # each SKU its own figure: the spread between two models is no variation
        for m, sku in ((m, x) for m in t["metrics"] for x in sorted(set(data["sku"]))):
            # what the test measured is part of the figure: two decks' tests of one name are two figures
            key = (t["test"], m["metric"], sku, t["measured"])
            fi = table.index("fig", key, lambda: table.figures.append(
                {"test": t["test"], "metric": m["metric"], "unit": m["unit"], "better": m["better"], "kind": t["kind"],
                 "sku": sku, "measured": t["measured"]}))
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
                table.node_seen(data["node"][k], "%s: rank %d (/ranks/slurm_nodename, else /ranks/hostname)"
                                % (show(path), k))
                gpus.add(ui)
                table.add(fi, ui, ri, v, {c: vals[k] for c, vals in t["covs"].items()})
    unnamed = sum(k is None for k in data["keys"])
    table.inputs.append({"path": show(path), "kind": "h5", "runs": 1, "gpus": len(gpus), "start_time":
                         data["meta"]["start_time"], "complete": data["meta"]["complete"],
                         "backend": data["meta"]["backend"], "deck": data["meta"]["deck_path"],
                         "injected": show(data["meta"]["injected"]),
                         "gpus_without_identity": unnamed})


def parse_time(text):
    """unix seconds from ISO 8601 (2026-11-26T01:45:52Z) or a number; NaN
    where neither, or before 1970 or past 10^11 s (no run's time: 1e308 would
    overflow the days between runs)"""
    text = (text or "").strip()
    if not text:
        return math.nan
    try:
        t = float(text)
    except ValueError:
        import datetime
        try:
            d = datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))
        except ValueError:
            return math.nan
        t = (d if d.tzinfo else d.replace(tzinfo=datetime.timezone.utc)).timestamp()
    return t if 0 <= t < 1e11 else math.nan


def text_lines(what, f, count):
    """the lines of F, each UTF-8 (F opened with errors="surrogateescape");
    count[0]: how many were read; a line that is not: BadInput naming WHAT:line"""
    for line in f:
        count[0] += 1
        if not line.isascii():
            try:
                line.encode("utf-8")
            except UnicodeEncodeError as e:
                raise BadInput("%s:%d: not UTF-8 text (byte 0x%02x at column %d): save the table as UTF-8"
                               % (what, count[0], ord(line[e.start]) - 0xDC00, e.start + 1))
        yield line


def csv_rows(what, lines, count):
    """(first line, cells) of each row of LINES (a cell may hold a quoted
    newline); blank rows and rows whose first cell begins with # skipped;
    what the csv module refuses (an oversized cell) is BadInput naming WHAT:line"""
    reader = csv.reader(lines)
    while True:
        start = count[0] + 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as e:
            raise BadInput("%s:%d: %s" % (what, count[0], e))
        if not row or (len(row) == 1 and not row[0].strip()) or row[0].startswith("#"):
            continue
        yield start, row


def open_text(what, path, regular=True):
    """PATH for reading as UTF-8 text (a byte order mark skipped); BadInput
    where it cannot be opened, or is no regular file where REGULAR (a FIFO
    would wait for a writer; a map may come from a shell's <(...))"""
    try:
        mode = os.stat(path).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR))
        if regular and not stat.S_ISREG(mode):
            raise BadInput("%s: not a regular file" % what)
        return open(path, newline="", encoding="utf-8-sig", errors="surrogateescape")
    except OSError as e:
        raise BadInput("%s: cannot open: %s" % (what, e.strerror))


def column_names(what, line, names):
    """the header's names, stripped; BadInput for one empty, unprintable or twice"""
    names = [h.strip() for h in names]
    for i, h in enumerate(names, 1):
        if not h or h in ("loc:", "cov:"):
            raise BadInput("%s:%d: column %d has no name%s" % (what, line, i, " after '%s'" % h if h else ""))
        if show(h) != h:
            raise BadInput("%s:%d: column %d's name '%s' holds a control or unprintable character"
                           % (what, line, i, show(h)))
        if names.index(h) != i - 1:
            raise BadInput("%s:%d: column '%s' named twice" % (what, line, h))
    return names


def read_csv(path, table):
    """a study table into TABLE; a bad cell or header is BadInput naming path:line"""
    name = show(path)   # in messages: on one line whatever the file is called
    with open_text(name, path) as f:
        count = [0]
        lines = text_lines(name, f, count)
        comments, header, hline = [], None, 0
        for line in lines:
            if line.startswith("#"):
                comments.append(show(line[1:].strip()))
                continue
            if line.strip():
                try:
                    header = next(csv.reader([line]))
                except csv.Error as e:
                    raise BadInput("%s:%d: %s" % (name, count[0], e))
                hline = count[0]
                break
        if header is None:   # an empty table: nothing to study (exit 3 where nothing else is), not a bad one
            table.refused.append((name, "an empty table: no header row and no rows"))
            table.inputs.append({"path": name, "kind": "csv", "runs": 0, "gpus": 0, "rows": 0, "rows_refused": 0,
                                 "comments": comments[:20]})
            return
        header = column_names(name, hline, header)
        col = {h: i for i, h in enumerate(header)}
        for need in ("gpu", "test", "value"):
            if need not in col:
                raise BadInput("%s:%d: no column '%s' (a study table needs gpu, test and value; docs/study.md)"
                               % (name, hline, need))
        locs = [h for h in header if h.startswith("loc:")]
        covs = [h for h in header if h.startswith("cov:")]
        known = {"gpu", "test", "value", "metric", "unit", "better", "kind", "run", "rep", "time", "host", "sku"}
        extra = [h for h in header if h not in known and h not in locs and h not in covs]
        if extra:
            raise BadInput("%s:%d: unknown column '%s' (known: %s, loc:<level>, cov:<name>; docs/study.md)"
                           % (name, hline, extra[0], ", ".join(sorted(known))))
        levels = [h[4:] for h in locs]
        if table.loc_levels and levels and levels != table.loc_levels:
            raise BadInput("%s:%d: location levels %s differ from an earlier table's %s"
                           % (name, hline, levels, table.loc_levels))
        table.loc_levels = table.loc_levels or levels
        rows, bad, gpus, runs = 0, 0, set(), set()
        # the named cells of a row, stripped, each its default where absent or empty (one pass per row: 100,000
        # rows in a second or two)
        named = ("value", "better", "kind", "test", "metric", "sku", "gpu", "host", "run", "unit", "time")
        given = [(col.get(n), d) for n, d in zip(named, ("", "1", "other", "", "value", "", "", "", "1", "", ""))]
        given += [(col[h], "") for h in locs + covs]
        for lineno, row in csv_rows(name, lines, count):
            if len(row) != len(header):
                multi = " (a quoted cell runs over several lines from here: a quote not closed?)" \
                    if any("\n" in c or "\r" in c for c in row) else ""
                raise BadInput("%s:%d: %d cells, the header has %d%s" % (name, lineno, len(row), len(header), multi))
            cells = [(row[i].strip() or d) if i is not None else d for i, d in given]
            value, b, kind, test, metric, sku, gpu, host, run, unit, when = cells[:11]
            try:
                v = float(value or "nan")
            except ValueError:
                v = math.nan
            if not (math.isfinite(v) and v > 0):
                bad += 1
                if bad <= 5:
                    table.refused.append(("%s:%d" % (name, lineno), "value '%s' is not a positive finite number: "
                                          "row not studied" % show(value[:40])))
                continue
            if b not in ("1", "+1", "-1"):
                raise BadInput("%s:%d: better '%s': +1 (higher is better) or -1 (lower)" % (name, lineno, show(b[:40])))
            if kind not in KINDS:
                raise BadInput("%s:%d: kind '%s': one of %s" % (name, lineno, show(kind[:40]), ", ".join(KINDS)))
            node = host or gpu
            if not test or not gpu:
                raise BadInput("%s:%d: an empty %s" % (name, lineno, "test" if not test else "gpu"))
            fi = table.index("fig", (test, metric, sku), lambda: table.figures.append(
                {"test": test, "metric": metric, "unit": unit, "better": int(b), "kind": kind, "sku": sku}))
            if table.figures[fi]["better"] != int(b):
                raise BadInput("%s:%d: better %s, where earlier rows of %s %s say %d"
                               % (name, lineno, b, show(test), show(metric), table.figures[fi]["better"]))
            ri = table.index("run", (path, run), lambda: table.runs.append(
                {"id": run, "path": name, "time": parse_time(when)}))
            ui = table.index("unit", (gpu, node), lambda: table.units.append({"gpu": gpu, "node": node, "bus": ""}))
            table.node_seen(node, "%s:%d" % (name, lineno))
            if levels:
                here = tuple(cells[11:11 + len(levels)])   # "": not known
                was = table.loc.setdefault(node, (here, "%s:%d" % (name, lineno)))
                if was[0] != here:
                    raise BadInput("%s:%d: node %s at %s, where %s put it at %s" % (
                        name, lineno, show(node), place(levels, here), was[1], place(levels, was[0])))
            cv = {}
            for c, x in zip(covs, cells[11 + len(levels):]):
                try:
                    cv[c[4:]] = float(x or "nan")
                except ValueError:
                    raise BadInput("%s:%d: column %s: '%s' is not a number" % (name, lineno, c, show(x[:40])))
            table.add(fi, ui, ri, [v], cv)
            rows += 1
            gpus.add(gpu)
            runs.add(run)
        if bad > 5:
            table.refused.append((name, "%d rows in all with a value that is not a positive finite number" % bad))
        if not rows:
            table.refused.append((name, "no row with a value to study (%d row%s refused)"
                                  % (bad, "" if bad == 1 else "s")))
    table.inputs.append({"path": name, "kind": "csv", "runs": len(runs), "gpus": len(gpus), "rows": rows,
                         "rows_refused": bad, "comments": comments[:20]})


def place(levels, where):
    """cabinet=c1 chassis=? : a location, one line"""
    return " ".join("%s=%s" % (lv, show(w) or "?") for lv, w in zip(levels, where))


def read_inputs(paths, all_metrics=False):
    table = Table()
    seen = {}
    for p in paths:
        try:   # one file twice (week*.h5 and week1.h5 again) would count each observation twice
            st = os.stat(p)
            key = (st.st_dev, st.st_ino)
        except OSError:
            key = None   # the reader says why
        if key in seen:
            raise BadInput("%s: given twice (also as %s): each observation would count twice"
                           % (show(p), show(seen[key])))
        if key is not None:
            seen[key] = p
        if p.lower().endswith(".csv"):   # TABLE.CSV from a spreadsheet too
            read_csv(p, table)
        else:
            read_h5(p, table, all_metrics)
    return table


def locate(nodes, pattern, mapfile, table_loc, table_levels):
    """(levels, {node: tuple of level values}, unplaced nodes, how): where each
    node sits, outermost level first; every level is prefixed by the one above
    it, so cabinet 1's chassis 0 is not cabinet 2's. A level not known is '?'."""
    if table_levels and table_loc:
        unknown = ("",) * len(table_levels)
        where = {n: tuple(w or "?" for w in table_loc.get(n, (unknown,))[0]) for n in nodes}
        return list(table_levels), where, [n for n in nodes if "?" in where[n]], "the table's loc: columns"
    if mapfile is not None:
        return read_map(mapfile, nodes)
    if pattern in ("none", ""):
        return [], {n: () for n in nodes}, [], "none"
    tried = PRESETS["xname"] if pattern == "auto" else PRESETS.get(pattern, pattern)
    try:
        rx = re.compile(tried)
    except (re.error, RecursionError, OverflowError) as e:
        raise BadInput("--location '%s': not a regular expression: %s" % (show(pattern), e))
    levels = list(rx.groupindex)
    if not levels and pattern != "auto":
        raise BadInput("--location '%s': no named group (write (?P<cabinet>...) for each level, outermost first)"
                       % show(pattern))
    where, unparsed = {}, []
    with time_bound(MATCH_SECONDS, "--location '%s': matching the %d node names took over %d s (a pattern that "
                    "backtracks, such as (a+)+: write it without nested repeats)" % (show(pattern), len(nodes),
                                                                                    MATCH_SECONDS)):
        for n in nodes:
            m = rx.fullmatch(n)
            if m:
                where[n] = tuple(m.group(lv) or "?" for lv in levels)
            else:
                unparsed.append(n)
    if pattern == "auto" and unparsed:
        return [], {n: () for n in nodes}, [], "auto: not every node name is an HPE Cray xname"
    for n in unparsed:
        where[n] = ("?",) * len(levels)
    how = "xname (auto)" if pattern == "auto" else show(pattern)
    return levels, where, unparsed, how


MATCH_SECONDS = 10   # the node names of a fleet match a sane pattern in milliseconds


class time_bound:
    """a with-block that raises BadInput(message) after SECONDS (SIGALRM: a
    regular expression's match is interrupted); the caller's own alarm (a
    test harness's) is put back afterwards, less the time spent"""

    def __init__(self, seconds, message):
        self.seconds, self.message = seconds, message

    def _expired(self, *_):
        raise BadInput(self.message)

    def __enter__(self):
        self.armed = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
        if self.armed:
            self.t0 = time.monotonic()
            self.old = signal.signal(signal.SIGALRM, self._expired)
            self.old_timer = signal.setitimer(signal.ITIMER_REAL, self.seconds)
        return self

    def __exit__(self, *_):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, self.old)
            left = self.old_timer[0] - (time.monotonic() - self.t0)
            if self.old_timer[0] > 0:
                signal.setitimer(signal.ITIMER_REAL, max(left, 0.001), self.old_timer[1])
        return False


def read_map(path, nodes):
    """--location-map: host,<level>,... per node; a host listed twice, a level
    named twice, a row of the wrong length: BadInput naming path:line"""
    what = "--location-map %s" % show(path)
    with open_text(what, path, regular=False) as f:
        count = [0]
        rows = list(csv_rows(what, text_lines(what, f, count), count))
    if not rows or rows[0][1][0].strip() != "host" or len(rows[0][1]) < 2:
        raise BadInput("%s:%d: the header must be host,<level>[,<level>...] (outermost first)"
                       % (what, rows[0][0] if rows else 1))
    levels = column_names(what, rows[0][0], rows[0][1])[1:]
    where, line = {}, {}
    for i, r in rows[1:]:
        if len(r) != len(levels) + 1:
            raise BadInput("%s:%d: %d cells, the header has %d" % (what, i, len(r), len(levels) + 1))
        host, here = r[0].strip(), tuple(x.strip() or "?" for x in r[1:])
        if not host:
            raise BadInput("%s:%d: an empty host" % (what, i))
        if host in where and where[host] != here:
            raise BadInput("%s:%d: host %s at %s, where line %d put it at %s" % (
                what, i, show(host), place(levels, here), line[host], place(levels, where[host])))
        where[host], line[host] = here, i
    unknown = ("?",) * len(levels)
    placed = {n: where.get(n, unknown) for n in nodes}
    return levels, placed, [n for n in nodes if "?" in placed[n]], "map %s" % show(path)
