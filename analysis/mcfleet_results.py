"""Reading an mcfleet results file from Python: one reader for the plots,
the bench scripts and the tools (docs/results-format.md).

The file carries its own constants, and this module takes them from it,
never from a copy of the C code:
  Results.status_codes()   /results attribute status_codes ("1=verified,...")
  Results.rules()          the verdict's default rules of the writing version
                           (/meta verdict_warn_rel, verdict_fail_rel, ...)
  Results.work(g, gname)   a test's flop_per_unit and bytes_per_unit, so the
                           arithmetic intensity is flop / byte as measured
  Results.measured(g, gname)  what a test measured (its attribute measured)
  Results.better(g, gname, m) which way a metric is good (its attribute better)
  Results.identity(name)      a test's keys as the file's schema reads them
Files written before those attributes existed (2026-11-25) get None (or, for
the status codes, the codes of those versions, which have not changed). A
test's keys, and what a file older than measured or better says, are the C
report's reading (`mcfleet report --format json`, its "tests": the file's
schema, /meta/families, or for older files the one frozen table of
src/report/report_legacy.c): no family's keys, implied values or metric
directions are kept here.

gpu_identity() keys a rank's GPU by its UUID or serial, never its host;
quiet_pipe(), called first by each tool's main, ends a tool whose reader
left (| head) without a traceback.

The file is read defensively: soft and external links are never followed,
every object's type and shape is checked before it is used, and the
problems are BadFile with the file and the object named. reading() reads in
a child process, so that a crash of the HDF5 library on a corrupt file is a
BadFile too. The bounds are the C report's (src/report/report_read.h
MCF_RD_MAX_*), read from mcfleet_limits.txt beside this module, never
copied here: the ranks, the values of a dataset, the repetitions of a
metric, the bytes of one string, the bytes of a dataset of strings, the
bytes of a string attribute. Each is checked on the declared type and shape
BEFORE anything is read (a tiny file may declare 2^20 strings of 60,000
bytes and hold only a fill value); strings and figures are then read a
block of rows at a time, variable-length strings checked one by one.

Needs h5py and numpy (Debian: python3-h5py).
"""
import collections
import os
import pickle
import signal
import stat
import sys
import traceback
import warnings

import h5py
import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from mcfleet_limits import (MAX_RANKS, MAX_TEXT, MAX_VALUES, declared_problem, row_blocks, strings,  # noqa: E402,F401
                            world_rank_problem)
from mcfleet_text import show  # noqa: E402,F401  (every reader's `from mcfleet_results import show`)
from mcfleet_study_stats import MAD_SCALE  # noqa: E402,F401  (src/stats.h MCF_MAD_SCALE: tests/limits_agree.sh)
import mcfleet_creport as creport  # noqa: E402


class BadFile(Exception):
    """a results file that cannot be used; the message names the file and the object"""


class Results:
    """an mcfleet results file, opened and read with every object checked"""

    def __init__(self, path):
        self.path = path
        try:
            st = os.stat(path)
        except OSError as e:
            raise BadFile("%s: cannot open: %s" % (path, e.strerror))
        if not stat.S_ISREG(st.st_mode):   # open(2) of a FIFO would wait for a writer
            raise BadFile("%s: not a regular file" % path)
        try:
            self.f = h5py.File(path, "r")
        except OSError as e:
            raise BadFile("%s: cannot open as an HDF5 file: %s" % (path, show(str(e))))
        self.meta = self.group(self.f, "", b"meta", required=True)
        self.results = self.group(self.f, "", b"results", required=True)
        self.nranks = self.attr_int(self.meta, "/meta", "nranks", required=True)
        if not 1 <= self.nranks <= MAX_RANKS:
            self.bad("/meta attribute nranks", "%d is not a rank count (1..%d)" % (self.nranks, MAX_RANKS))
        size = self.attr_int(self.meta, "/meta", "world_size", default=self.nranks)   # as the C report, before
        if not self.nranks <= size <= MAX_RANKS:                                      # the per-rank datasets
            self.bad("/meta attribute world_size", "%d ranks launched, but nranks is %d (at most %d)"
                     % (size, self.nranks, MAX_RANKS))
        ranks = self.group(self.f, "", b"ranks")
        w = None if ranks is None else self.dataset(ranks, "/ranks", "world_rank", "int", (self.nranks,), False)
        why = None if w is None else world_rank_problem(w, size)   # older files lack it: no check
        if why:
            self.bad("/ranks/world_rank", why)

    def bad(self, obj, what):
        raise BadFile("%s: %s: %s" % (self.path, obj, what))

    def child(self, g, gname, name, kind, required=False):
        """the group or dataset NAME (bytes) under g, through a hard link only; None if absent"""
        obj = "%s/%s" % (gname, show(name))
        if not g.id.links.exists(name):
            if required:
                self.bad(obj, "missing")
            return None
        if g.id.links.get_info(name).type != h5py.h5l.TYPE_HARD:
            self.bad(obj, "is a soft or external link, not followed")
        oid = h5py.h5o.open(g.id, name)
        if kind == "group" and isinstance(oid, h5py.h5g.GroupID):
            return h5py.Group(oid)
        if kind == "dataset" and isinstance(oid, h5py.h5d.DatasetID):
            return h5py.Dataset(oid)
        self.bad(obj, "is not a %s" % kind)

    def group(self, g, gname, name, required=False):
        return self.child(g, gname, name, "group", required)

    def dataset(self, g, gname, name, kind, shape, required=True):
        """the values of a dataset of kind "float", "int" or "str" and the given shape
        (None in a shape: any length >= 1); None if absent and not required"""
        got = self.checked(g, gname, name, kind, shape, required)
        if got is None:
            return None
        d, obj, dt = got
        if kind == "str":
            return strings(d, dt.kind == "S", show, lambda why: self.bad(obj, why))
        return d[()].astype(np.float64 if kind == "float" else np.int64)

    def checked(self, g, gname, name, kind, shape, required=True):
        """(dataset, its name, its type) once its type, shape and declared size
        are within the bounds; nothing is read. None if absent and not required"""
        d = self.child(g, gname, name.encode(), "dataset", required)
        if d is None:
            return None
        obj = "%s/%s" % (gname, show(name))
        try:
            dt = d.dtype
        except (TypeError, ValueError):
            self.bad(obj, "has a type numpy cannot hold")
        ok = {"float": dt.kind == "f", "int": dt.kind in "iu",
              "str": dt.kind == "S" or h5py.check_string_dtype(dt) is not None}[kind]
        if not ok:
            self.bad(obj, "is of type %s, expected %s" % (dt, kind))
        if d.shape is None or len(d.shape) != len(shape) or any(
                (want is None and have < 1) or (want is not None and have != want)
                for have, want in zip(d.shape, shape)):
            self.bad(obj, "has shape %s, expected %s" % (d.shape, tuple("n" if s is None else s for s in shape)))
        why = declared_problem(d.shape, dt.itemsize, kind == "str" and dt.kind == "S")
        if why:
            self.bad(obj, why)
        return d, obj, dt

    def figure_stats(self, g, gname, metric):
        """each rank's median and spread (1.4826 MAD) of its repetitions of a
        metric ([nranks, repetitions] dataset), read a block of rows at a time
        (the whole may be MAX_VALUES doubles, 2 GiB), and the refused: (ranks,
        first rank, its figure) of the rows holding a figure that is infinite or
        not positive (no rate, bandwidth or latency is), whose median and spread
        are then NaN. A NaN repetition is no figure (a rank that did not verify,
        a repetition a time limit cut). None if the test has no such dataset."""
        got = self.checked(g, gname, metric, "float", (self.nranks, None), required=False)
        if got is None:
            return None
        d, _, _ = got
        med, spread, refused = [], [], [0, -1, 0.0]
        for r0, v in row_blocks(d, 8 * d.shape[1]):
            v = v.astype(np.float64)
            bad = ~np.isnan(v) & ~(np.isfinite(v) & (v > 0))
            rows = bad.any(axis=1)
            if rows.any():
                if not refused[0]:
                    r = int(np.argmax(rows))
                    refused[1:] = [r0 + r, float(v[r][bad[r]][0])]
                refused[0] += int(rows.sum())
                v[rows] = np.nan
            m = per_rank_median(v)
            med.append(m)
            spread.append(MAD_SCALE * per_rank_median(np.abs(v - m[:, None])))
        return np.concatenate(med), np.concatenate(spread), (tuple(refused) if refused[0] else None)

    def attr(self, obj, objname, name, required):
        what = "%s attribute %s" % (objname, name)
        if name not in obj.attrs:
            if required:
                self.bad(what, "missing")
            return None, what
        try:   # the declared size, before reading
            aid = obj.attrs.get_id(name)
            shape, dt = aid.shape, aid.dtype
        except (TypeError, ValueError, KeyError):
            shape, dt = None, None   # a type numpy cannot hold: reading it says so
        if shape and int(np.prod(shape, dtype=object)) != 1:
            self.bad(what, "holds %d values, expected one" % int(np.prod(shape, dtype=object)))
        if dt is not None and dt.kind == "S" and dt.itemsize > MAX_TEXT:
            self.bad(what, "is a string of %d bytes (at most %d)" % (dt.itemsize, MAX_TEXT))
        v = obj.attrs[name]
        if isinstance(v, (bytes, str)) and len(v) > MAX_TEXT:
            self.bad(what, "is longer than %d bytes" % MAX_TEXT)
        if isinstance(v, np.ndarray):
            if v.size != 1:
                self.bad(what, "holds %d values, expected one" % v.size)
            v = v.reshape(-1)[0]
        return v, what

    def attr_text(self, obj, objname, name, default="", required=False):
        v, what = self.attr(obj, objname, name, required)
        if v is None:
            return default
        if not isinstance(v, (bytes, str)):
            self.bad(what, "is not a string")
        return show(v)

    def attr_int(self, obj, objname, name, default=0, required=False):
        v, what = self.attr(obj, objname, name, required)
        if v is None:
            return default
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            self.bad(what, "is not an integer")
        return int(v)

    def tests(self):
        """(display name, path, group) of every test, in the order they ran"""
        out = []
        for raw in self.results.id.__iter__():
            gname = "/results/" + show(raw)
            out.append((show(raw), gname, self.group(self.results, "/results", raw, required=True)))
        return out

    def summary_metric(self, g, gname):
        names = [m for m in self.attr_text(g, gname, "summary_metrics").split(",") if m]
        return names[0] if names else None

    def judged_metric(self, g, gname):
        """the test's judged figure: its first summary metric with figures
        and a direction (better), or None"""
        for m in [m for m in self.attr_text(g, gname, "summary_metrics").split(",") if m]:
            if self.figures(g, gname, m) is not None and self.better(g, gname, m):
                return m
        return None

    def figures(self, g, gname, metric):
        """a metric's [nranks, repetitions] values; None if the test has no such dataset"""
        return self.dataset(g, gname, metric, "float", (self.nranks, None), required=False)

    def rank_column(self, name, kind, default):
        """/ranks/NAME as a list of nranks values (kind "str" or "int"), or
        DEFAULT for every rank where an older file lacks it"""
        ranks = self.group(self.f, "", b"ranks", required=True)
        v = self.dataset(ranks, "/ranks", name, kind, (self.nranks,), required=False)
        return [int(x) for x in v] if v is not None and kind == "int" else \
            list(v) if v is not None else [default] * self.nranks

    def attr_float(self, obj, objname, name, default=None, required=False):
        v, what = self.attr(obj, objname, name, required)
        if v is None:
            return default
        if not isinstance(v, (float, int, np.floating, np.integer)) or isinstance(v, bool):
            self.bad(what, "is not a number")
        return float(v)

    def status_codes(self):
        """{code: name} of the test statuses, from /results attribute status_codes"""
        raw = self.attr_text(self.results, "/results", "status_codes", default=None)
        try:
            return parse_status_codes(raw)
        except ValueError as e:
            self.bad("/results attribute status_codes", str(e))

    def rules(self):
        """the verdict's default rules as the writing version had them
        ({"warn_rel": 0.035, ...}); None for a file older than that record"""
        names = ("warn_rel", "fail_rel", "alpha", "k_min", "small_n", "clock_rel")
        got = {n: self.attr_float(self.meta, "/meta", "verdict_" + n) for n in names}
        if all(v is None for v in got.values()):
            return None
        for n, v in got.items():
            if v is None or not np.isfinite(v) or v < 0:
                self.bad("/meta attribute verdict_" + n, "missing or not a finite non-negative number")
        return got

    def work(self, g, gname):
        """(FLOP, bytes) one unit of the test does, as its metrics were
        computed; None for a file older than that record"""
        flop = self.attr_float(g, gname, "flop_per_unit")
        nbytes = self.attr_float(g, gname, "bytes_per_unit")
        if flop is None and nbytes is None:
            return None
        for n, v in (("flop_per_unit", flop), ("bytes_per_unit", nbytes)):
            if v is None or not np.isfinite(v) or v < 0:
                self.bad("%s attribute %s" % (gname, n), "missing or not a finite non-negative number")
        return flop, nbytes

    def start_report(self):
        """the report() started, to run while this reader reads the file"""
        if getattr(self, "_pending", None) is None and getattr(self, "_report", None) is None:
            self._pending = creport.start(self.path, fmt="tests-json")

    def report(self):
        """the C report's reading of this file's tests and of its GPUs shared
        with another job (--format tests-json, read once): the one reading of
        a test's keys and the one judgement of those GPUs"""
        if getattr(self, "_report", None) is None:
            self.start_report()
            rep, self._pending = creport.finish(self._pending), None
            if rep.report is None or not isinstance(rep.report.get("tests"), list):
                why = (rep.stderr.strip().splitlines() or ["no report"])[-1]
                raise BadFile("%s: what its tests measured cannot be read: %s" % (self.path, show(why)))
            if rep.report.get("schema_problem"):   # the families or a test's keys: nothing to compare by
                raise BadFile("%s: what its tests measured cannot be read: %s"
                              % (self.path, show(str(rep.report["schema_problem"]))))
            self._report = rep.report
            self._identity = {t.get("test"): t for t in rep.report["tests"] if isinstance(t, dict)}
        return self._report

    def identity(self, name):
        """test NAME as the C report reads it from this file's schema (its
        entry of the report JSON's "tests": kernel, measured, keys, implied,
        amounts, better); None where the report lists no such test"""
        self.report()
        return self._identity.get(show(name))

    def environment(self, rank):
        """{test: the report's words} for each test during which another job
        was on rank's GPU ("why", "next": the report's next step)"""
        if getattr(self, "_environment", None) is None:   # once: a fleet's file has 10^4 ranks
            self._environment = {g.get("rank"): {e.get("test"): e for e in g.get("environment") or []
                                                 if isinstance(e, dict)}
                                 for g in self.report().get("gpus") or [] if isinstance(g, dict)}
        return self._environment.get(rank, {})

    def better(self, g, gname, metric):
        """+1 where higher is better, -1 lower, 0 neither: the metric dataset's
        attribute better (written from the family's row), else, for files
        older than it (2026-11-23), the C report's reading of the file"""
        d = self.child(g, gname, metric.encode(), "dataset", True)
        t = self.attr_text(d, "%s/%s" % (gname, show(metric)), "better", default=None)
        if t is None:
            t = ((self.identity(gname.rsplit("/", 1)[-1]) or {}).get("better") or {}).get(metric)
        return {"higher": 1, "lower": -1}.get(t, 0)

    def measured(self, g, gname):
        """what the test measured, as (text, how): the test's attribute
        measured (newer files, how "recorded"), else the text the C report
        rebuilds from its keys (how "rebuilt")"""
        t = self.attr_text(g, gname, "measured", default=None)
        if t is not None:
            return t, "recorded"
        ident = self.identity(gname.rsplit("/", 1)[-1])
        if ident is None:
            self.bad(gname, "is not a test the report reads")
        return ident.get("measured", ""), "rebuilt"

    def unit(self, g, gname, metric):
        d = self.child(g, gname, metric.encode(), "dataset", True)
        return self.attr_text(d, "%s/%s" % (gname, show(metric)), "unit")



NO_IDENTITY = ("", "none", "unknown", "n/a")   # what backends write where they know none


def gpu_identity(uuid, serial, local_rank):
    """each rank's GPU identity, or None where the file records none: its
    UUID, else its board serial (never the host name, the rank index or the
    slot). Where ranks of one run share one identity, and always for the host
    backend's machine-id:<id> (its "device" is the machine), the local rank
    is added, so that one rank of a machine matches the same local rank of it
    in a run of another size. Two machines named alike (vm) differ by their
    identities; two that share /etc/machine-id (a cloned image) cannot be
    told apart."""
    ident = [u if u.strip().lower() not in NO_IDENTITY else s if s.strip().lower() not in NO_IDENTITY else None
             for u, s in zip(uuid, serial)]
    count = collections.Counter(i for i in ident if i is not None)   # (ident.count(i) was n^2 at 2^20 ranks)
    shared = {i for i, c in count.items() if c > 1}
    return [None if i is None else "%s#local%d" % (i, local_rank[k]) if i in shared or i.startswith("machine-id:")
            else i for k, i in enumerate(ident)]


def gpu_keys(uuid, serial, local_rank):
    """gpu_identity, with "rank<k>" for a rank without one (mcfleet baseline:
    a key for every rank; mcfleet compare matches no GPU without identity)"""
    return [i or "rank%d" % k for k, i in enumerate(gpu_identity(uuid, serial, local_rank))]


def measured_differ(a, b, name_a, name_b, amounts=False):
    """why two tests (a of file name_a, b of name_b: their Results.identity)
    are not the same measurement, or None where they are: the kernel, a key
    whose values differ, or a key one lacks whose value in the other is not
    the one the builds without it implied. Keys that say how much or how long
    (iterations, seed ...) count only with amounts (mcfleet health: the
    health deck's figures are judged against runs of the same deck)."""
    if a.get("kernel") != b.get("kernel"):
        return "it measures another kernel (%s in %s, %s in %s)" % (a.get("kernel"), name_a, b.get("kernel"), name_b)
    ka, kb = a.get("keys") or {}, b.get("keys") or {}
    # a key a file lacks, where its text was rebuilt (a file before measured),
    # is part of that text as its build implied it, as if recorded
    ia, ib = ({k for k in (x.get("implied") or []) if not x.get("measured_rebuilt")} for x in (a, b))
    skip = set() if amounts else set(a.get("amounts") or []) | set(b.get("amounts") or [])
    why = []
    for k in [k for k in ka if k not in skip] + [k for k in kb if k not in ka and k not in skip]:
        if k in ka and k in kb and ka[k] == kb[k]:
            continue
        if k not in ka or k not in kb:
            has, lname, hname = (ka, name_b, name_a) if k in ka else (kb, name_a, name_b)
            why.append("%s is missing in %s (%s=%s in %s; no value is implied by files without it)"
                       % (k, lname, k, has[k], hname))
        elif (k in ia) != (k in ib):   # one file lacks it: its build's implied value differs
            has, lacks, hname, lname = (ka, kb, name_a, name_b) if k in ib else (kb, ka, name_b, name_a)
            why.append("%s is missing in %s, whose build implied %s=%s; %s has %s=%s"
                       % (k, lname, k, lacks[k], hname, k, has[k]))
        else:
            why.append("%s differs (%s in %s, %s in %s)" % (k, ka[k], name_a, kb[k], name_b))
    return "; ".join(why) or None


def quiet_pipe():
    """a tool's output piped into a reader that stops early (| head -2) ends
    the tool quietly, as it ends cat, not with a BrokenPipeError traceback:
    SIGPIPE's default action (Python ignores it). Each tool's main calls it
    first."""
    if hasattr(signal, "SIGPIPE"):
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)


def text(v):
    """an attribute or dataset element as str: bytes decoded (UTF-8, errors
    replaced); for the bench scripts on their own files, where show()'s
    escaping of control characters is not needed"""
    return v.decode("utf-8", "replace") if isinstance(v, bytes) else str(v)


def parse_status_codes(raw):
    """{code: name} from the text of /results attribute status_codes
    ("1=verified,0=wrong,..."); the codes of older files where raw is None;
    ValueError naming the item that is not CODE=name"""
    if raw is None:
        return dict(OLD_STATUS_CODES)
    codes = {}
    for item in text(raw).split(","):
        code, sep, name = item.partition("=")
        try:
            if not sep or not name:
                raise ValueError
            codes[int(code)] = name
        except ValueError:
            raise ValueError("%r is not CODE=name" % short_text(item))
    return codes


def status_codes_of(f):
    """the status codes of an h5py.File opened by a script that trusts it"""
    return parse_status_codes(f["results"].attrs.get("status_codes"))


def status_name(codes, code):
    """a status code's name from Results.status_codes() (or the file's own
    /results attribute, parsed the same way), the number where unknown"""
    return codes.get(int(code), "status %d" % int(code))


def short_text(text, n=60):
    return text if len(text) <= n else text[:n - 3] + "..."


# The status codes for files written before /results status_codes, and for
# writers of simulated files (tools/fleetsim.py); they have not changed since
# (src/results/results.c asserts the enum against its own copy). Readers of a
# file take its own attribute: Results.status_codes(), status_codes_of().
OLD_STATUS_CODES = {1: "verified", 0: "wrong", -1: "unsupported", -2: "error", -3: "not run", -4: "hung", -5: "cut"}


def per_rank_median(v):
    """each row's median over its finite values; NaN for a row with none (one
    vectorised call: a loop over rows took seconds at 10,000 ranks)"""
    v = np.asarray(v, float)
    if v.ndim != 2 or v.shape[1] == 0:
        return np.full(v.shape[0] if v.ndim else 0, np.nan)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # "All-NaN slice": that row's NaN is the answer
        return np.nanmedian(np.where(np.isfinite(v), v, np.nan), axis=1)


def finite_median(v):
    v = np.asarray(v, float)
    v = v[np.isfinite(v)]
    return float(np.median(v)) if v.size else float("nan")


def read_here(path, fn):
    """runs fn, which reads the file: h5py's own errors on a corrupt file (a
    checksum, a truncated chunk, a broken heap, a type it cannot convert)
    become BadFile"""
    try:
        return fn()
    except BadFile:
        raise
    except (OSError, KeyError, ValueError, TypeError, RuntimeError, IndexError, UnicodeError) as e:
        lines = show(str(e)).splitlines()
        raise BadFile("%s: cannot be read: %s" % (path, lines[0] if lines else type(e).__name__))


def reading(path, fn):
    """read_here in a child process, which hands back plain data: the HDF5
    library's decoders can crash on corrupt metadata (docs/reliability.md), and
    a crash there is an unreadable file, not a crash of this script. Errors in
    drawing, after the reading, stay what they are."""
    if not hasattr(os, "fork"):
        return read_here(path, fn)
    rfd, wfd = os.pipe()
    pid = os.fork()
    if pid == 0:   # the reader
        try:
            os.close(rfd)
            try:
                out = ("ok", read_here(path, fn))
            except BadFile as e:
                out = ("bad", str(e))
            except BaseException:
                out = ("bug", traceback.format_exc())
            with os.fdopen(wfd, "wb") as w:
                w.write(pickle.dumps(out))
        finally:
            os._exit(0)
    os.close(wfd)
    try:
        with os.fdopen(rfd, "rb") as r:
            data = r.read()
        _, status = os.waitpid(pid, 0)
    except BaseException:   # interrupted: the reader goes too
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        raise
    if not data:
        sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0
        raise BadFile("%s: reading it crashed (signal %d, %s): the file is corrupt in a way the HDF5 library "
                      "does not survive" % (path, sig, signal.Signals(sig).name if sig else "no answer"))
    kind, value = pickle.loads(data)
    if kind == "bad":
        raise BadFile(value)
    if kind == "bug":
        raise RuntimeError("reading %s failed:\n%s" % (path, value))
    return value
