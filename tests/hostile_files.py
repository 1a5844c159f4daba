#!/usr/bin/env python3
"""Writes malformed variants of a real mcfleet results file, for the hostile
file test (tests/hostile_report.sh) and longer fuzzing campaigns.

usage: hostile_files.py --base FILE.h5 --out DIR [--random N] [--seed S]
       hostile_files.py --make MCFLEET --mpirun MPIRUN --deck DECK --out DIR [...]

--base takes a results file of `mpirun -np 2 mcfleet --backend host --quick
--deck tests/decks/tiny.yaml`; --make runs that command to make one. Writes
into DIR (which must be empty or absent) the deterministic set (about 250
files: truncations, every /meta attribute and /ranks and /results dataset
deleted, wrong types and shapes, bad nranks and statuses, NaN and inf, huge
and non-UTF-8 strings, soft and external links, a directory, a FIFO, an empty
and a non-HDF5 file, valid files of the newer schema) plus N random variants
(default 24: byte flips, truncations and random structural mutations; a
campaign asks for thousands). DIR/manifest.tsv lists one file per line:

    name <TAB> report exit codes allowed <TAB> text the report must print <TAB> plot

where the codes are digits ("2", "0123"), the text is "-" for none, and plot is
"unreadable" when mcfleet_plot.py must exit 2, "any" (0 or 2), or "skip" where
the change is to an object the plots never read (a quick run leaves it out).
"""
import argparse
import os
import random
import shutil
import subprocess
import sys

import h5py
import numpy as np

TEST = "tiny-matrix"            # the test whose datasets are mutated (verified on every rank)
PLOT_READS = {"nranks", "backend", "node", "compute_units", "status", "gflops"}   # of what is mutated
T = "results/" + TEST
STRING = h5py.string_dtype()    # variable-length UTF-8


class Variants:
    def __init__(self, base, out):
        self.base, self.out, self.rows, self.n = base, out, [], 0

    def path(self, name):
        return os.path.join(self.out, "%04d-%s.h5" % (self.n, name))

    def add(self, name, mutate, codes="0123", text="", plot="any"):
        """a copy of the base file changed by mutate(h5py.File)"""
        p = self.path(name)
        shutil.copyfile(self.base, p)
        with h5py.File(p, "r+") as f:
            mutate(f)
        self.record(p, codes, text, plot)

    def add_raw(self, name, data, codes="2", plot="unreadable"):
        p = self.path(name)
        with open(p, "wb") as out:
            out.write(data)
        self.record(p, codes, "", plot)

    def record(self, p, codes, text, plot):
        self.rows.append((os.path.basename(p), codes, text or "-", plot))
        self.n += 1

    def manifest(self):
        with open(os.path.join(self.out, "manifest.tsv"), "w") as m:
            for r in self.rows:
                m.write("\t".join(r) + "\n")


# ------------------------------------------------------------------ mutations
def put_attr(obj, name, value, dtype=None):
    if name in obj.attrs:
        del obj.attrs[name]
    if dtype is None:
        obj.attrs[name] = value
    else:
        obj.attrs.create(name, value, dtype=dtype)


def set_status(f, values):
    """status values, with the figures of ranks that did not verify blanked (as the writer does)"""
    put_ds(f[T], "status", np.array(values, np.int64))
    for m in ("gflops", "time_s"):
        a = f[T][m][:]
        for r, s in enumerate(values):
            if s != 1:
                a[r, :] = np.nan
        f[T][m][...] = a


def put_ds(group, name, data, **kw):
    if name in group:
        del group[name]
    group.create_dataset(name, data=data, **kw)


def fixed(strings):
    """a fixed-length byte-string array, as the writer stores strings"""
    b = [s if isinstance(s, bytes) else s.encode() for s in strings]
    return np.array(b, dtype="S%d" % max(1, max((len(x) for x in b), default=1)))


COMPOUND = np.zeros((), dtype=[("a", "<i4"), ("b", "<f8")])


def wrong_attr_values(current):
    """replacement values of another type or shape for an attribute"""
    out = [("str", np.bytes_(b"12x")), ("vlen", ("2", STRING)), ("float", np.float64(2.5)),
           ("int", np.int64(7)), ("compound", COMPOUND), ("array", np.array([1, 2, 3], np.int64)),
           ("empty", h5py.Empty("i8")), ("uint8", np.uint8(200))]
    if isinstance(current, (bytes, np.bytes_, str)):
        return [o for o in out if o[0] != "str"]
    return [o for o in out if o[0] not in ("int", "uint8")]


def wrong_datasets(n, kind):
    """replacements of another type or shape for a [n] or [n, reps] dataset"""
    reps = 3
    v = [("vlen", (np.array(["a"] * n, dtype=object), STRING)),
         ("compound", (np.zeros(n, dtype=[("a", "<i4"), ("b", "<f8")]), None)),
         ("scalar", (np.int64(1), None)), ("empty", (np.zeros((0,), np.int64), None)),
         ("null", (h5py.Empty("f8"), None)),
         ("longer", (np.ones(n + 1) if kind == "float2" else np.ones(n + 1, np.int64), None)),
         ("shorter", (np.ones(n - 1, np.int64), None)),
         ("3d", (np.ones((n, reps, 2)), None)),
         ("enum", (np.ones(n, np.int8), h5py.enum_dtype({"A": 1, "B": 2}, basetype="i1"))),
         ("opaque", (np.zeros(n, dtype="V8"), None)),
         ("uint64max", (np.full(n, np.iinfo(np.uint64).max, np.uint64), None))]
    if kind == "str":
        v += [("int", (np.arange(n, dtype=np.int64), None)), ("float", (np.ones(n), None)),
              ("2d", (fixed(["h"] * n * 2).reshape(n, 2), None))]
    elif kind == "int":
        v += [("str", (fixed(["1"] * n), None)), ("float", (np.ones(n) * 1.5, None)),
              ("2d", (np.ones((n, 2), np.int64), None))]
    else:   # float2: [n, reps]
        v += [("str", (fixed(["1"] * n * reps).reshape(n, reps), None)),
              ("int", (np.ones((n, reps), np.int64), None)),
              ("1d", (np.ones(n), None)), ("norep", (np.zeros((n, 0)), None)),
              ("rows-longer", (np.ones((n + 1, reps)), None)),
              ("rows-shorter", (np.ones((n - 1, reps)), None))]
    return v


def plot_mode(obj):
    """the plot column of a change to OBJ: "skip" for an object the plots never read"""
    return "any" if obj in PLOT_READS else "skip"


def build(base, out, nrandom, seed):
    os.makedirs(out, exist_ok=True)
    if os.listdir(out):
        sys.exit("hostile_files: %s is not empty" % out)
    with h5py.File(base, "r") as f:
        meta_names = sorted(f["meta"].attrs.keys())
        meta_vals = {k: f["meta"].attrs[k] for k in meta_names}
        rank_names = sorted(f["ranks"].keys())
        rank_kind = {k: ("str" if f["ranks"][k].dtype.kind == "S" else
                         "int" if f["ranks"][k].dtype.kind == "i" else "float") for k in rank_names}
        test_names = sorted(f[T].keys())
        n = int(f["meta"].attrs["nranks"])
        if "status" not in f[T] or list(f[T]["status"][:]) != [1] * n:
            sys.exit("hostile_files: %s: %s did not verify on every rank; give a clean base file" % (base, T))
    size = os.path.getsize(base)
    v = Variants(base, out)
    blob = open(base, "rb").read()

    # --- not a results file at all
    v.add_raw("empty", b"")
    v.add_raw("text", b"tests:\n  - name: x\n")
    v.add_raw("hdf5-signature-only", blob[:8])
    v.add_raw("signature-then-zeros", blob[:8] + bytes(4096))
    v.add_raw("signature-then-random", blob[:8] + random.Random(seed).randbytes(8192))
    d = v.path("directory")
    os.mkdir(d)
    v.record(d, "2", "not a regular file", "unreadable")
    fifo = v.path("fifo")
    os.mkfifo(fifo)
    v.record(fifo, "2", "not a regular file", "unreadable")
    # --- truncated: every cut before the end of the file's address space fails to open
    for cut in sorted(set([1, 7, 8, 48, 96, 512, 800, 1024, 2047, 2048, 4096, 8192,
                           size // 10, size // 4, size // 2, 3 * size // 4, 9 * size // 10,
                           size - 512, size - 8, size - 1])):
        if 0 < cut < size:
            v.add_raw("truncated-%d" % cut, blob[:cut])
    # --- the file padded: a longer file is still a valid one
    v.add_raw("padded", blob + bytes(4096), codes="0", plot="any")

    # --- /meta attributes deleted, and given the wrong type or shape
    required_meta = {"nranks", "complete", "mcfleet_version"}
    for k in meta_names:
        v.add("meta-del-" + k, lambda f, k=k: f["meta"].attrs.__delitem__(k), plot=plot_mode(k),
              codes="2" if k in required_meta else "0",
              text=("/meta attribute %s: missing" % k) if k in required_meta else "")
    for k in ["nranks", "complete", "nnodes", "mcfleet_version", "backend", "start_time", "deck_path",
              "injected", "tests_not_run"]:
        for what, val in wrong_attr_values(meta_vals[k]):
            if isinstance(val, tuple):
                v.add("meta-%s-%s" % (k, what), lambda f, k=k, val=val: put_attr(f["meta"], k, val[0], val[1]),
                      codes="0123", plot=plot_mode(k))
            else:
                v.add("meta-%s-%s" % (k, what), lambda f, k=k, val=val: put_attr(f["meta"], k, val),
                      codes="0123", plot=plot_mode(k))
    for val in [-1, 0, 1, 3, 2**31 - 1, 2**31, 2**32 + 2, 2**40, 2**63 - 1, -2**63]:
        v.add("meta-nranks-%d" % val, lambda f, val=val: put_attr(f["meta"], "nranks", np.int64(val)),
              codes="2", text="nranks")
    for val in [-1, 2, 99]:
        v.add("meta-complete-%d" % val, lambda f, val=val: put_attr(f["meta"], "complete", np.int64(val)),
              codes="2", text="complete")
    v.add("meta-complete-0", lambda f: put_attr(f["meta"], "complete", np.int64(0)), codes="3",
          text="INCOMPLETE RUN")
    v.add("meta-huge-deck-path", lambda f: put_attr(f["meta"], "deck_path", np.bytes_(b"d" * 60000)),
          codes="0", plot="skip")
    v.add("meta-huge-version", lambda f: put_attr(f["meta"], "mcfleet_version", np.bytes_(b"9" * 60000)),
          codes="0", plot="skip")
    v.add("meta-non-utf8-backend", lambda f: put_attr(f["meta"], "backend", np.bytes_(b"h\xff\xfe\x1b[31m")),
          codes="0")
    v.add("meta-vlen-backend", lambda f: put_attr(f["meta"], "backend", "h\u00f6st", STRING), codes="0",
          text="h\u00f6st")
    v.add("meta-tests-not-run", lambda f: put_attr(f["meta"], "tests_not_run", np.bytes_(b"a,b")), codes="3", plot="skip")

    # --- the group structure itself
    v.add("no-meta", lambda f: f.__delitem__("meta"), codes="2", text="/meta", plot="unreadable")
    v.add("no-results", lambda f: f.__delitem__("results"), codes="2", text="/results", plot="unreadable")
    v.add("no-ranks", lambda f: f.__delitem__("ranks"), codes="2", text="/ranks")
    v.add("results-empty", lambda f: [f["results"].__delitem__(k) for k in list(f["results"])], codes="2",
          text="/results")
    v.add("meta-is-dataset", lambda f: (f.__delitem__("meta"), f.create_dataset("meta", data=[1])), codes="2",
          text="/meta", plot="unreadable")
    v.add("ranks-is-dataset", lambda f: (f.__delitem__("ranks"), f.create_dataset("ranks", data=[1])),
          codes="2", text="/ranks")
    v.add("results-has-dataset", lambda f: f["results"].create_dataset("stray", data=[1.0]), codes="2",
          text="stray")
    v.add("results-test-is-dataset", lambda f: (f["results"].__delitem__(TEST),
                                                f["results"].create_dataset(TEST, data=[1.0])), codes="2",
          text=TEST)
    v.add("results-long-name", lambda f: f["results"].move(TEST, "t" * 4000), codes="0")
    v.add("results-non-utf8-name", lambda f: f["results"].move(TEST, b"bad\xff\x1b]0;x\x07name"), codes="0")

    # --- soft and external links in place of objects
    v.add("soft-meta", lambda f: (f.move("meta", "meta0"), f.__setitem__("meta", h5py.SoftLink("/nowhere"))),
          codes="2", text="/meta", plot="unreadable")
    v.add("soft-results-test", lambda f: (f["results"].__delitem__(TEST),
                                          f["results"].__setitem__(TEST, h5py.SoftLink("/nowhere"))),
          codes="2", text="link")
    v.add("soft-hostname", lambda f: (f["ranks"].__delitem__("hostname"),
                                      f["ranks"].__setitem__("hostname", h5py.SoftLink("/nowhere"))),
          codes="2", text="hostname")
    v.add("soft-status-loop", lambda f: (f[T].__delitem__("status"),
                                         f[T].__setitem__("status", h5py.SoftLink("/" + T + "/status"))),
          codes="2", text="status")
    v.add("soft-status-to-valid", lambda f: (f[T].__delitem__("status"),
                                             f[T].__setitem__("status", h5py.SoftLink("/results/tiny-valu/status"))),
          codes="2", text="status")
    v.add("external-results-test", lambda f: f["results"].__setitem__(
        "ext", h5py.ExternalLink("/nonexistent/x.h5", "/results/x")), codes="2", text="ext")
    v.add("external-to-fifo", lambda f: (f[T].__delitem__("status"), f[T].__setitem__(
        "status", h5py.ExternalLink(os.path.abspath(fifo), "/status"))), codes="2", text="status")
    v.add("external-ranks", lambda f: (f.__delitem__("ranks"), f.__setitem__(
        "ranks", h5py.ExternalLink(os.path.abspath(base), "/ranks"))), codes="2", text="/ranks")

    # --- /ranks datasets deleted, and of the wrong type or shape
    required_ranks = {"hostname", "device_name", "node"}
    for k in rank_names:
        v.add("ranks-del-" + k, lambda f, k=k: f["ranks"].__delitem__(k), plot=plot_mode(k),
              codes="2" if k in required_ranks else "0",
              text=("/ranks/%s: missing" % k) if k in required_ranks else "")
    # the identity the verdict prints is optional (older files lack it) but,
    # where present, must be what it claims
    for k in ["hostname", "device_name", "node", "cores_local_to_gpu", "device_uuid", "device_serial", "pci_bus_id",
              "device_arch", "local_rank", "compute_units"]:
        if k not in rank_kind:
            continue
        for what, (data, dt) in wrong_datasets(n, rank_kind[k]):
            # strings may be fixed or variable length
            ok = rank_kind[k] == "str" and what == "vlen"
            v.add("ranks-%s-%s" % (k, what), lambda f, k=k, data=data, dt=dt: put_ds(f["ranks"], k, data, dtype=dt),
                  codes="0" if ok else "2", plot=plot_mode(k))
    v.add("ranks-huge-hostname", lambda f: put_ds(f["ranks"], "hostname", fixed([b"h" * (1 << 20)] * n)),
          codes="2", text="hostname", plot="skip")
    v.add("ranks-long-hostname", lambda f: put_ds(f["ranks"], "hostname", fixed([b"h" * 3000] * n)),
          codes="0", plot="skip")
    v.add("ranks-non-utf8-hostname", lambda f: put_ds(f["ranks"], "hostname",
                                                      fixed([b"\xff\xfe\x1b[2J", b"n\x00de"])), codes="0", plot="skip")
    v.add("ranks-vlen-hostname", lambda f: put_ds(f["ranks"], "hostname", np.array(["a", "b"], dtype=object),
                                                  dtype=STRING), codes="0", plot="skip")
    # placement indices beyond the ranks (a random byte flip made a 444 PiB heatmap grid)
    v.add("ranks-node-beyond", lambda f: put_ds(f["ranks"], "node", np.array([0, 1 << 54], np.int64)),
          codes="2", text="node")
    v.add("ranks-local-beyond", lambda f: put_ds(f["ranks"], "local_rank", np.array([0, 1 << 40], np.int64)),
          codes="2", text="local_rank")
    v.add("ranks-unallocated-huge", lambda f: (put_attr(f["meta"], "nranks", np.int64(1 << 30)),
                                               f["ranks"].__delitem__("node"),
                                               f["ranks"].create_dataset("node", shape=(1 << 30,), dtype="i8",
                                                                         chunks=(1024,))),
          codes="2", text="nranks")
    v.add("cores-not-local", lambda f: put_ds(f["ranks"], "cores_local_to_gpu", np.array([0, 1], np.int64)),
          codes="0", text="not local")

    # --- /results/<test> datasets deleted, wrong types and shapes
    for k in test_names:
        required = k in ("status", "message", "gflops")
        v.add("test-del-" + k, lambda f, k=k: f[T].__delitem__(k), codes="2" if required else "0", plot=plot_mode(k),
              text=("%s: missing" % k) if required else "")
    for k, kind in [("status", "int"), ("message", "str"), ("gflops", "float2")]:
        for what, (data, dt) in wrong_datasets(n, kind):
            ok = kind == "str" and what == "vlen"
            v.add("test-%s-%s" % (k, what), lambda f, k=k, data=data, dt=dt: put_ds(f[T], k, data, dtype=dt),
                  codes="0" if ok else "2", text="-" if ok else k, plot=plot_mode(k))
    for a in ["summary_metrics", "metrics", "unit"]:
        obj = (lambda f: f[T + "/gflops"]) if a == "unit" else (lambda f: f[T])
        v.add("test-attr-del-" + a, lambda f, a=a, obj=obj: obj(f).attrs.__delitem__(a), codes="0")
        for what, val in wrong_attr_values(b"x"):
            if isinstance(val, tuple):
                v.add("test-attr-%s-%s" % (a, what), lambda f, a=a, obj=obj, val=val: put_attr(obj(f), a, *val))
            else:
                v.add("test-attr-%s-%s" % (a, what), lambda f, a=a, obj=obj, val=val: put_attr(obj(f), a, val))
    for what, val in [("commas", b",,,,gflops,,"), ("unknown", b"nosuch"), ("abs-path", b"/ranks/node"),
                      ("dotdot", b"../tiny-valu/gflops"), ("group", b"."), ("string-ds", b"message"),
                      ("int-ds", b"status"), ("many", b",".join([b"gflops"] * 8000)),
                      ("huge-name", b"g" * 60000), ("non-utf8", b"\xff\xfe")]:
        v.add("summary-" + what, lambda f, val=val: put_attr(f[T], "summary_metrics", np.bytes_(val)),
              codes="0" if what == "commas" else "2", plot="skip")
    v.add("unit-huge", lambda f: put_attr(f[T + "/gflops"], "unit", np.bytes_(b"u" * 60000)), codes="0")
    v.add("unit-control-chars", lambda f: put_attr(f[T + "/gflops"], "unit", np.bytes_(b"\x1b[31m\r\n")),
          codes="0")

    # --- values out of range, NaN and inf
    for val in [2, 7, -6, -99, 2**40, -2**63]:
        v.add("status-%d" % val, lambda f, val=val: put_ds(f[T], "status", np.array([1, val], np.int64)),
              codes="2", text="status")
    v.add("status-wrong", lambda f: set_status(f, [1, 0]), codes="1",
          text="FAILED VERIFICATION")
    v.add("status-wrong-with-figure", lambda f: put_ds(f[T], "status", np.array([1, 0], np.int64)), codes="2",
          text="did not verify")
    v.add("status-error", lambda f: set_status(f, [1, -2]), codes="3",
          text="ERROR")
    v.add("status-not-run", lambda f: set_status(f, [-3, -3]), codes="3",
          text="NOT RUN")
    v.add("status-hung", lambda f: set_status(f, [1, -4]), codes="3", text="HUNG")
    v.add("status-cut", lambda f: set_status(f, [-5, 1]), codes="3", text="cut")
    v.add("status-unsupported", lambda f: set_status(f, [-1, -1]), codes="0",
          text="unsupported")
    v.add("status-int8", lambda f: put_ds(f[T], "status", np.array([1, 1], np.int8)), codes="0")
    v.add("status-uint64", lambda f: put_ds(f[T], "status", np.array([1, 1], np.uint64)), codes="0")
    for what, val in [("nan", np.nan), ("inf", np.inf), ("-inf", -np.inf)]:
        def nan(f, val=val):
            g = f[T + "/gflops"]
            a = g[:]
            a[1, :] = val
            g[...] = a
        v.add("gflops-all-" + what, nan, codes="2", text="gflops")
        v.add("gflops-one-" + what, lambda f, val=val: f[T + "/gflops"].__setitem__((0, 1), val), codes="2",
              text="gflops")
    v.add("gflops-trailing-nan", lambda f: f[T + "/gflops"].__setitem__((0, 2), np.nan), codes="0")   # a time limit
    v.add("gflops-huge", lambda f: f[T + "/gflops"].__setitem__((0, 0), 1e308), codes="0")
    v.add("gflops-unallocated-huge", lambda f: (f[T].__delitem__("gflops"), f[T].create_dataset(
        "gflops", shape=(n, 1 << 40), maxshape=(n, None), chunks=(1, 1024), dtype="f8")), codes="2",
          text="gflops")
    v.add("gflops-float32", lambda f: put_ds(f[T], "gflops", f[T + "/gflops"][:].astype(np.float32)), codes="0")
    v.add("message-huge", lambda f: put_ds(f[T], "message", fixed([b"m" * (1 << 20)] * n)), codes="2",
          text="message", plot="skip")
    v.add("message-non-utf8", lambda f: (set_status(f, [1, 0]),
                                         put_ds(f[T], "message", fixed([b"", b"\xc3\x28\xff\x1b[0m"]))),
          codes="1", text="FAILED VERIFICATION", plot="skip")
    v.add("under-sampled-bad", lambda f: put_ds(f[T], "power_under_sampled", fixed(["x"] * n)), codes="2",
          text="power_under_sampled")
    v.add("under-sampled-ok", lambda f: put_ds(f[T], "power_under_sampled", np.ones((n, 3))), codes="0",
          text="shorter than 3 power updates")
    v.add("power-summary-missing", lambda f: put_attr(f[T], "power_summary", np.bytes_(b"test_avg_power_w")),
          codes="2", text="test_avg_power_w")

    # --- the newer schema: hung ranks, cut repetitions, large text as datasets
    def hung(f, consistent=True, world=3, listed=b"2", world_rank=(0, 1), hung_rank=(2,)):
        put_attr(f["meta"], "world_size", np.int64(world))
        put_attr(f["meta"], "hung_ranks", np.bytes_(listed))
        put_attr(f["meta"], "nhung", np.int64(len(hung_rank)))
        put_ds(f["ranks"], "world_rank", np.array(world_rank, np.int64))
        h = f.create_group("hung")
        k = len(hung_rank)
        h.create_dataset("world_rank", data=np.array(hung_rank, np.int64))
        h.create_dataset("hostname", data=fixed(["node-h%d" % i for i in range(k)]))
        h.create_dataset("device_uuid", data=fixed(["GPU-dead-%d" % i for i in range(k)]))
        h.create_dataset("pci_bus_id", data=fixed(["0000:c1:00.%d" % i for i in range(k)]))
        h.create_dataset("device_name", data=fixed(["H200"] * k))
        h.create_dataset("test", data=fixed([TEST] * (k if consistent else k + 1)))
    v.add("hung-one", hung, codes="3", text="GPU-dead-0")
    v.add("hung-two", lambda f: hung(f, world=4, listed=b"1,3", world_rank=(0, 2), hung_rank=(1, 3)), codes="3",
          text="0000:c1:00.1")
    v.add("hung-none", lambda f: hung(f, world=2, listed=b"", hung_rank=()), codes="0")
    v.add("hung-test-length", lambda f: hung(f, consistent=False), codes="2", text="/hung")
    v.add("hung-world-small", lambda f: hung(f, world=1), codes="2", text="world_size")
    v.add("hung-list-mismatch", lambda f: hung(f, listed=b"2,5"), codes="2", text="hung_ranks")
    v.add("hung-list-garbage", lambda f: hung(f, listed=b"2x,,-"), codes="2", text="hung_ranks")
    v.add("hung-rank-out-of-range", lambda f: hung(f, hung_rank=(9,), listed=b"9"), codes="2", text="world_rank")
    v.add("hung-world-rank-dup", lambda f: hung(f, world_rank=(0, 2)), codes="2", text="world_rank")
    v.add("hung-world-rank-shape", lambda f: hung(f, world_rank=(0, 1, 2)), codes="2", text="world_rank")
    v.add("hung-group-dataset", lambda f: (put_attr(f["meta"], "world_size", np.int64(3)),
                                           f.create_dataset("hung", data=[1])), codes="2", text="/hung")
    v.add("hung-missing-group", lambda f: (put_attr(f["meta"], "world_size", np.int64(3)),
                                           put_attr(f["meta"], "hung_ranks", np.bytes_(b"2"))),
          codes="2", text="/hung")
    v.add("hung-list-truncated", lambda f: hung(f, world=4, listed=b"1,...", world_rank=(0, 2), hung_rank=(1, 3)),
          codes="3", text="HUNG")
    v.add("hung-list-after-dots", lambda f: hung(f, world=4, listed=b"1,...,3", world_rank=(0, 2),
                                                 hung_rank=(1, 3)), codes="2", text="hung_ranks")
    v.add("hung-nhung-wrong", lambda f: (hung(f), put_attr(f["meta"], "nhung", np.int64(5))), codes="2",
          text="nhung")
    v.add("results-ntests-wrong", lambda f: put_attr(f["results"], "ntests", np.int64(9)), codes="2",
          text="ntests")
    v.add("results-test-deleted", lambda f: f["results"].__delitem__(TEST), codes="2", text="ntests")
    v.add("hung-huge-list", lambda f: hung(f, listed=b",".join([b"2"] * 20000)), codes="2", text="hung_ranks")

    def text_as_datasets(f, not_run=()):
        """the deck and the tests not run as datasets only (the newer writer keeps the
        attributes where they fit; the older has only the attributes)"""
        m = f["meta"]
        deck = m.attrs["deck"] if "deck" in m.attrs else m["deck_text"][0]
        for k in ("deck", "tests_not_run"):
            if k in m.attrs:
                del m.attrs[k]
        put_ds(m, "deck_text", fixed([deck]))
        put_ds(m, "tests_not_run_list", fixed(list(not_run)) if not_run else np.zeros((0,), "S1"))
    v.add("text-datasets", text_as_datasets, codes="0")
    v.add("text-datasets-not-run", lambda f: text_as_datasets(f, [b"x", b"y"]), codes="3", text="not run")
    v.add("text-datasets-bad", lambda f: (text_as_datasets(f), put_ds(f["meta"], "tests_not_run_list",
                                                                      np.ones((2, 2)))), codes="2",
          text="tests_not_run_list")

    text_variants(v)
    size_variants(v, n)

    # --- random variants: byte flips, truncations, structural mutations
    rng = random.Random(seed)
    structural = [r for r in v.rows if r[0].split("-", 1)[1].startswith(("meta-", "ranks-", "test-", "status-"))]
    for i in range(nrandom):
        kind = rng.choice(["flip", "flip", "flip", "truncate", "mix"])
        if kind == "truncate":
            cut = rng.randrange(1, size)
            v.add_raw("rnd-truncate-%d" % cut, blob[:cut])
            continue
        if kind == "mix" and structural:
            src = os.path.join(out, rng.choice(structural)[0])
            data = bytearray(open(src, "rb").read())
        else:
            data = bytearray(blob)
        for _ in range(rng.choice([1, 1, 2, 4, 16])):
            # most of the metadata is in the first few KiB and at the end; raw data anywhere
            pos = rng.choice([rng.randrange(0, min(4096, len(data))), rng.randrange(0, len(data))])
            data[pos] ^= 1 << rng.randrange(8) if rng.random() < 0.7 else rng.randrange(1, 256)
        v.add_raw("rnd-%s-%d" % (kind, i), bytes(data), codes="0123", plot="any")
    v.manifest()
    return len(v.rows)


def make_base(mcfleet, mpirun, deck, out):
    path = os.path.join(out, "base.h5")
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    subprocess.run([mpirun, "-np", "2", "--oversubscribe", "--bind-to", "none", mcfleet, "--backend", "host",
                    "--quick", "--deck", deck, "-o", path], check=True, env=env, stdout=subprocess.DEVNULL)
    return path


def text_variants(v):
    """text from the file shown, never obeyed (issue 27): matplotlib maths in a
    test's name, a unit and a host; spreadsheet formulas (=, +, -, @) at the
    start of test names, hosts and UUIDs; bidi overrides and separators; and
    every form of invalid UTF-8 (surrogates, overlong 2-, 3- and 4-byte
    forms, beyond U+10FFFF, F5..F7 leads). All valid files: exit 0, and the
    report prints the test's name as it was cleaned (tests/hostile_report.sh
    checks its text, JSON and CSV are valid UTF-8 and safe)"""
    def hosts(f, names):
        put_ds(f["ranks"], "hostname", fixed(names))

    def math(f):
        f["results"].move(TEST, "$\\undefinedmacro$")
        put_attr(f["results/$\\undefinedmacro$/gflops"], "unit", np.bytes_(b"$x^2$"))
        put_attr(f["results/tiny-valu/gflops"], "unit", np.bytes_(b"$\\undefinedmacro$"))
        f["results"].move("tiny-triad", "$x^2$ triad")
        f["results"].move("tiny-fp16", "$\\sqrt{fp16}$")   # unsupported on the host: the page's table names it
        hosts(f, [b"$\\frac{a}$", b"$x_"])
    v.add("shown-math", math, codes="0", text="\\undefinedmacro")

    def formula(f):
        f["results"].move(TEST, '=HYPERLINK("x.invalid?leak","click")')   # no '/': a group
        f["results"].move("tiny-valu", "+1+2")
        f["results"].move("tiny-triad", "-3+4")
        f["results"].move("tiny-fp16", "@SUM(1+1)*cmd|' -C calc'!A0")
        hosts(f, [b"=1+2", b"@host"])
        put_ds(f["ranks"], "device_uuid", fixed([b"-2+3", b"+GPU-1"]))
        put_ds(f["ranks"], "pci_bus_id", fixed([b"=0000:01:00.0", b"@0000:02:00.0"]))
    v.add("shown-formula", formula, codes="0", text="=HYPERLINK")

    rlo, lri, pdi, sep = "\u202e", "\u2066", "\u2069", "\u2028"
    def bidi(f):
        f["results"].move(TEST, "tiny" + rlo + "xirtam")
        put_attr(f["results/tiny" + rlo + "xirtam/gflops"], "unit", np.bytes_(("GFLOP" + sep + "/s").encode()))
        hosts(f, [("vm" + rlo + "1").encode(), (lri + "vm" + pdi + "\u200f\u061c\u2029").encode()])
        put_ds(f["ranks"], "device_uuid", fixed([("\u200e\u202a\u202b\u202c\u202d" + "GPU").encode(), b"GPU-2"]))
        put_attr(f["meta"], "backend", np.bytes_(("host" + rlo).encode()))
        put_attr(f["meta"], "deck_path", np.bytes_(("deck" + "\u2067\u2068" + ".yaml").encode()))
    v.add("shown-bidi", bidi, codes="0", text="tiny?xirtam")

    bad = b"\xed\xa0\x80\xed\xbf\xbf\xe0\x80\xaf\xe0\x9f\xbf\xc0\xaf\xf0\x80\x80\xaf\xf0\x8f\xbf\xbf" \
          b"\xf4\x90\x80\x80\xf5\x80\x80\x80\xf6\xbf\xf7\xbf\xbf\xbf\xe2\x82"
    def invalid(f):
        f["results"].move(TEST, b"t" + bad + b"x")
        put_attr(f[b"results/t" + bad + b"x/gflops"], "unit", np.bytes_(b"u" + bad))
        hosts(f, [b"h" + bad, b"h\xf4\x90\x80\x80" + "\u00f6".encode()])
        put_ds(f["ranks"], "device_uuid", fixed([b"\xf5\x80" + bad, b"GPU\xed\xb2\x80"]))
        put_attr(f["meta"], "backend", np.bytes_(b"host\xf0\x8f\xbf\xbf"))
    v.add("shown-invalid-utf8", invalid, codes="0", text="t" + "?" * len(bad) + "x")

    def cut(f):   # a long name the report prints cut short ("%.Ns", name[200]) inside a character
        for k, name in enumerate(("\u20ac" * 150, "x" + "\u20ac" * 150, "xy" + "\u20ac" * 150)):
            f["results"].move(("tiny-valu", "tiny-triad", "tiny-fp16")[k], name)
        hosts(f, [("\u00e9" * 200).encode(), ("x" + "\u00e9" * 200).encode()])
    v.add("shown-cut-utf8", cut, codes="0")


def size_variants(v, n):
    """Tiny files that declare more than the bounds of src/report/report_read.h
    (MCF_RD_MAX_*, analysis/mcfleet_limits.txt), storing only fill values: the
    report, compare and baseline refuse them (exit 2, the object named) from
    the declared size, before reading (issue 27); and noisy repetitions, which
    the report passes and compare must not let hide a drop."""
    big = 1 << 20   # MCF_RD_MAX_RANKS, the most ranks a file may claim

    def fleet(f, string_type):
        """every per-rank dataset of `big` ranks, only its fill value stored;
        fixed-length strings of string_type"""
        put_attr(f["meta"], "nranks", np.int64(big))
        names = []
        f.visititems(lambda name, o: names.append(name) if isinstance(o, h5py.Dataset) and len(o.shape) >= 1
                     and o.shape[0] == n and min(o.shape) > 0 and not name.startswith("meta/") else None)
        for name in names:
            o = f[name]
            dt = np.dtype(string_type) if o.dtype.kind == "S" else o.dtype
            fill = None if dt.kind in "SO" else o[(0,) * len(o.shape)]
            attrs = dict(o.attrs)
            rows = max(1, min(big, (1 << 20) // max(1, dt.itemsize * int(np.prod(o.shape[1:])))))
            del f[name]
            d = f.create_dataset(name, shape=(big,) + o.shape[1:], dtype=dt, chunks=(rows,) + o.shape[1:],
                                 fillvalue=fill)
            for k, a in attrs.items():
                d.attrs[k] = a

    def unwritten(group, name, shape, dtype, fill=None):
        """a dataset of only its fill value"""
        if name in group:
            del group[name]
        group.create_dataset(name, shape=shape, dtype=dtype, chunks=tuple(min(x, 4096) for x in shape),
                             fillvalue=fill)

    def wide(f):   # more repetitions than MCF_RD_MAX_COLS, fill values only
        attrs = dict(f[T + "/gflops"].attrs)
        unwritten(f[T], "gflops", (n, (1 << 20) + 1), "f8", 1.0)
        for k, a in attrs.items():
            f[T + "/gflops"].attrs[k] = a

    def noisy(f):   # one rank's repetitions at x[1e-3, 1, 1e3] of its median
        g = f[T + "/gflops"]
        a = g[:]
        a[0, :] = np.nanmedian(a[0]) * np.resize([1e-3, 1.0, 1e3], a.shape[1])
        g[...] = a

    v.add("size-fleet-huge-string-type", lambda f: fleet(f, "S60000"), codes="2", text="too large", plot="skip")
    v.add("size-string-type-over-max", lambda f: unwritten(f["ranks"], "device_uuid", (n,), "S100000"), codes="2",
          text="device_uuid", plot="skip")
    v.add("size-vlen-string-long", lambda f: put_ds(f["ranks"], "device_serial", np.array(
        [b"s", b"x" * 70000], dtype=object), dtype=h5py.string_dtype("ascii")), codes="2", text="device_serial",
          plot="skip")
    v.add("size-repetitions-wide", wide, codes="2", text="gflops")
    v.add("noisy-repetitions", noisy, codes="0")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--base", help="a results file of the tiny deck on 2 host ranks")
    p.add_argument("--make", metavar="MCFLEET", help="make the base file with this mcfleet")
    p.add_argument("--mpirun", default="mpirun")
    p.add_argument("--deck", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "decks/tiny.yaml"))
    p.add_argument("--out", required=True, help="the directory to write (empty or absent)")
    p.add_argument("--random", type=int, default=24, help="random variants besides the fixed set (default 24)")
    p.add_argument("--seed", type=int, default=1)
    a = p.parse_args()
    if bool(a.base) == bool(a.make):
        p.error("give one of --base and --make")
    if a.make:
        tmp = a.out + ".base"
        os.makedirs(tmp, exist_ok=True)
        a.base = make_base(a.make, a.mpirun, a.deck, tmp)
    count = build(a.base, a.out, a.random, a.seed)
    print("hostile_files: %d files in %s (manifest.tsv)" % (count, a.out))


if __name__ == "__main__":
    main()
