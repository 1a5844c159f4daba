#!/usr/bin/python3
"""fleetsim: build a SIMULATED mcfleet results file of N GPUs from a real one.

A simulated file is for testing `mcfleet report` (its verdict, its detection
quality at 1,000 or 10,000 GPUs), never a measurement. Every file it writes
says so: /meta attribute `injected` starts with "SIMULATED by tools/fleetsim.py",
and the group /sim holds the ground truth (what was injected where, the seed,
the noise parameters, the template).

How a simulated figure is made
------------------------------
The template is a real results file (or a template JSON extracted from one
with `--extract`; docs/bench/2026-11-23-detection/h200-bench-template.json is
the H200 bench run of 2026-11-23). For each test, each simulated GPU and each
repetition:

    value = fleet_ref * rel * f_gpu ** d * (1 - degradation) ** d

  fleet_ref   the median over the template's verified ranks of each rank's
              median (the template's level);
  rel         one real repetition drawn at random (with replacement) from the
              template's repetitions of that test, over its own rank's median:
              the within-GPU noise a real run shows, non-Gaussian tails kept.
              All metrics of a repetition come from the same real repetition;
  f_gpu       the between-GPU factor, exp(sigma * (sqrt(rho) z_gpu +
              sqrt(1 - rho) z_gpu,test)), z standard normal: --spread sigma
              (default 0.5 %: see below), --spread-corr rho (default 0: every
              test of a GPU independent, the worst case for false positives);
  d           the metric's direction: +1 for rates (gflops, bandwidth_gbs,
              peak_fraction, *_per_w), -1 for costs (latency_ns, time_s,
              serial_s, wall_s, *_time_s, energy_j); 0 for the rest (clock_mhz,
              power, stream ratios), which are resampled real values only.

Where the default between-GPU spread comes from: real multi-GPU data is
scarce. The only per-GPU comparison available are the bench deck's 56 per-test
medians on two different H200s (GPU-71f3af73 on 2026-11-22, GPU-bc64f958 on
2026-11-23; docs/bench/2026-11-22-h200-recheck and
docs/bench/2026-11-23-nvidia-h200-reliability): their log ratios have a
standard deviation of 0.75 % (robust 1.4826 MAD: 0.27 %), which is
sqrt(2) x 0.53 % per GPU if the two are independent. That also contains the
day-to-day and within-GPU noise, so 0.5 % per GPU is a fair upper estimate
for two GPUs of one SKU; the detection benchmark also runs 1 % and 2 %.

Injections (RANKS and NODES are lists such as 0,5,10-12; TESTS a comma list
of test names, group names or shell patterns, e.g. 'mma-*,hbm-triad'):
  --degrade RANKS:PCT[:TESTS]     those GPUs PCT % slower (rates x (1-PCT/100))
  --degrade-node NODES:PCT[:TESTS] every GPU of those nodes
  --degrade-half PCT[:TESTS]      the upper half of every node's GPUs (local
                                  ranks G/2..G-1)
  --clock MHZ                     every clock_mhz figure exactly MHZ
  --clock-outlier RANKS:MHZ       those GPUs' clock_mhz figures MHZ (the
                                  throughput is not changed: add --degrade)
  --fail-verify RANKS[:TESTS]     a wrong result (status 0, verified 0, a
                                  message, figures NaN, as the runner writes)
  --incomplete K                  stopped by a signal: the last K tests not
                                  run (status -3, listed), complete = 0
  --hung RANKS                    those world ranks hung in the last test run:
                                  /hung, world_size, nhung, later tests not run
  --acceptance ARCH               /meta acceptance = 1, deck_arch = ARCH
  --unsupported TESTS[:RANKS]     status -1 (unsupported by the backend)
  --health NAME:RANKS[:AFTER[:BEFORE]]  /health/NAME [nranks, 2] (before,
                                  after), every other rank 0 (or the baseline
                                  of --health-baseline)
Examples:
  tools/fleetsim.py --template docs/bench/2026-11-23-detection/h200-bench-template.json \\
      -n 1024 --gpus-per-node 8 --seed 1 --degrade 17:10 -o /tmp/f.h5
  tools/fleetsim.py --template run.h5 --extract -o run-template.json
Exit codes: 0 written; 2 a bad option or template; 3 the output cannot be
written, or h5py/numpy are missing (use Debian's /usr/bin/python3).
"""
import argparse
import fnmatch
import hashlib
import json
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
from fleetsim_write import HEALTH_BASELINE, HEALTH_BUSY, _write  # noqa: E402


BOOK = ("verified", "status", "message", "start_skew_us", "warmup_runs")


class Usage(Exception):
    """a bad option or template: exit 2"""


class Runtime(Exception):
    """the output cannot be written: exit 3"""


# ---------------------------------------------------------------- lists

def parse_list(text, what, limit):
    """'0,5,10-12' -> sorted unique ints in 0..limit-1"""
    out = set()
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise Usage("%s: empty element in '%s'" % (what, text))
        try:
            if "-" in part[1:]:
                a, b = part.split("-", 1) if not part.startswith("-") else (part, "")
                a, b = int(a), int(b)
            else:
                a = b = int(part)
        except ValueError:
            raise Usage("%s: '%s' is not a number or a range a-b" % (what, part))
        if a < 0 or b < a or b >= limit:
            raise Usage("%s: '%s' is outside 0..%d" % (what, part, limit - 1))
        out.update(range(a, b + 1))
    return sorted(out)


def parse_pct(text, what):
    try:
        v = float(text)
    except ValueError:
        raise Usage("%s: '%s' is not a percentage" % (what, text))
    if not (-1000 < v < 100) or math.isnan(v):
        raise Usage("%s: %s %% is outside (-1000, 100)" % (what, text))
    return v


def match_tests(spec, tests, what):
    """indices of the tests a comma list of names / group names / patterns names"""
    if spec is None or spec == "":
        return list(range(len(tests)))
    out = set()
    for pat in spec.split(","):
        hit = [i for i, t in enumerate(tests)
               if fnmatch.fnmatchcase(t["name"], pat) or fnmatch.fnmatchcase(str(t["attrs"].get("test", "")), pat)]
        if not hit:
            raise Usage("%s: no test matches '%s' (tests: %s)" % (what, pat,
                        ", ".join(t["name"] for t in tests[:8]) + (" ..." if len(tests) > 8 else "")))
        out.update(hit)
    return sorted(out)


# ---------------------------------------------------------------- template

def _py(v):
    """an HDF5 attribute / element as a JSON-able python value"""
    import numpy as np
    if isinstance(v, (bytes, np.bytes_)):
        return v.decode("utf-8", "replace")
    if isinstance(v, np.ndarray):
        return [_py(x) for x in v.tolist()] if v.dtype.kind != "S" else [x.decode("utf-8", "replace") for x in v]
    if isinstance(v, (np.integer,)):
        return int(v)
    if isinstance(v, (np.floating,)):
        return float(v)
    return v


def _kind(dtype):
    return {"i": "i", "u": "i", "f": "f", "S": "s", "O": "s"}.get(dtype.kind, "f")


def _attrs(obj):
    out = {}
    for k in obj.attrs:
        v = obj.attrs[k]
        out[k] = {"k": _kind(getattr(v, "dtype", None) or __import__("numpy").asarray(v).dtype), "v": _py(v)}
    return out


def _dset(d):
    return {"k": _kind(d.dtype), "ndim": d.ndim, "attrs": _attrs(d), "data": _py(d[()])}


def load_h5(path):
    import h5py
    try:
        f = h5py.File(path, "r")
    except OSError as e:
        raise Usage("template %s: cannot be opened as HDF5 (%s)" % (path, e))
    with f:
        for g in ("meta", "ranks", "results"):
            if g not in f:
                raise Usage("template %s: not an mcfleet results file (no /%s)" % (path, g))
        n = int(f["meta"].attrs.get("nranks", 0))
        if n < 1:
            raise Usage("template %s: /meta nranks missing or < 1" % path)
        t = {"source": {"file": os.path.basename(path), "nranks": n}, "meta": _attrs(f["meta"]),
             "meta_dsets": {k: _dset(f["meta"][k]) for k in f["meta"]},
             "ranks": {k: _dset(f["ranks"][k]) for k in f["ranks"]},
             "results_attrs": _attrs(f["results"]), "tests": [], "power": None}
        h = hashlib.sha256()
        with open(path, "rb") as raw:
            for chunk in iter(lambda: raw.read(1 << 20), b""):
                h.update(chunk)
        t["source"]["sha256"] = h.hexdigest()
        for name in f["results"]:
            g = f["results"][name]
            t["tests"].append({"name": name, "attrs": _attrs(g), "dsets": {k: _dset(g[k]) for k in g}})
        if "power" in f:
            p = f["power"]
            t["power"] = {"attrs": _attrs(p), "sources": {}}
            for s in p:
                src = p[s]
                per = {k: _dset(src[k]) for k in src if src[k].ndim == 1 and src[k].shape[0] == n
                       and k in ("status", "count", "cadence_s", "cadence_power_s", "cadence_energy_s", "idle_power_w")}
                series = {k: _attrs(src[k]) for k in src if k not in per}
                t["power"]["sources"][s] = {"attrs": _attrs(src), "per_rank": per, "series": series}
    return t


def load_template(path):
    if not os.path.isfile(path):
        raise Usage("template %s: no such file" % path)
    if path.endswith(".json"):
        try:
            with open(path) as fh:
                t = json.load(fh)
        except (OSError, ValueError) as e:
            raise Usage("template %s: not a fleetsim template JSON (%s)" % (path, e))
        if not isinstance(t, dict) or t.get("fleetsim_template") != 1:
            raise Usage("template %s: not a fleetsim template JSON (no fleetsim_template: 1)" % path)
        return t
    return load_h5(path)


def extract(template, out, force):
    template["fleetsim_template"] = 1
    template["note"] = ("The per-repetition figures of a real mcfleet run (" + template["source"]["file"] +
                        "), extracted by tools/fleetsim.py --extract as a template for simulated fleets. "
                        "The power series are left out (their per-rank status and counts kept).")
    if os.path.exists(out) and not force:
        raise Usage("%s exists (pass --force)" % out)
    try:
        with open(out, "w") as fh:
            json.dump(template, fh, separators=(",", ":"))
            fh.write("\n")
    except OSError as e:
        raise Runtime("%s: %s" % (out, e))


# ---------------------------------------------------------------- writing


# ---------------------------------------------------------------- the simulation


def simulate(t, a, argv):
    import numpy as np
    import h5py

    N, G = a.n, a.gpus_per_node
    rng = np.random.default_rng(a.seed)
    tests = t["tests"]
    if a.tests:
        keep = match_tests(a.tests, tests, "--tests")
        tests = [tests[i] for i in keep]
    T = len(tests)
    if T == 0:
        raise Usage("the template has no tests")
    nnodes = (N + G - 1) // G
    node = np.arange(N) // G
    local = np.arange(N) % G
    injected = []

    # ---- ground truth arrays
    degr = np.zeros((N, T))          # fractional slowdown per GPU and test
    for spec in a.degrade:
        p = spec.split(":", 2)
        if len(p) < 2:
            raise Usage("--degrade %s: expected RANKS:PCT[:TESTS]" % spec)
        rk = parse_list(p[0], "--degrade ranks", N)
        pct = parse_pct(p[1], "--degrade")
        ti = match_tests(p[2] if len(p) > 2 else None, tests, "--degrade")
        degr[np.ix_(rk, ti)] = 1 - (1 - degr[np.ix_(rk, ti)]) * (1 - pct / 100)
        injected.append("degrade ranks %s by %g%%%s" % (p[0], pct, " on " + p[2] if len(p) > 2 else ""))
    for spec in a.degrade_node:
        p = spec.split(":", 2)
        if len(p) < 2:
            raise Usage("--degrade-node %s: expected NODES:PCT[:TESTS]" % spec)
        nd = parse_list(p[0], "--degrade-node nodes", nnodes)
        pct = parse_pct(p[1], "--degrade-node")
        ti = match_tests(p[2] if len(p) > 2 else None, tests, "--degrade-node")
        rk = np.nonzero(np.isin(node, nd))[0]
        degr[np.ix_(rk, ti)] = 1 - (1 - degr[np.ix_(rk, ti)]) * (1 - pct / 100)
        injected.append("degrade nodes %s by %g%%%s" % (p[0], pct, " on " + p[2] if len(p) > 2 else ""))
    if a.degrade_half is not None:
        p = a.degrade_half.split(":", 1)
        pct = parse_pct(p[0], "--degrade-half")
        ti = match_tests(p[1] if len(p) > 1 else None, tests, "--degrade-half")
        if G < 2:
            raise Usage("--degrade-half needs --gpus-per-node 2 or more")
        rk = np.nonzero(local >= G // 2)[0]
        degr[np.ix_(rk, ti)] = 1 - (1 - degr[np.ix_(rk, ti)]) * (1 - pct / 100)
        injected.append("degrade local ranks %d-%d of every node by %g%%" % (G // 2, G - 1, pct))

    clock_out = np.full(N, np.nan)
    for spec in a.clock_outlier:
        p = spec.split(":")
        if len(p) != 2:
            raise Usage("--clock-outlier %s: expected RANKS:MHZ" % spec)
        rk = parse_list(p[0], "--clock-outlier ranks", N)
        clock_out[rk] = _positive(p[1], "--clock-outlier MHz")
        injected.append("clock of ranks %s at %s MHz" % (p[0], p[1]))
    if a.clock is not None:
        injected.append("every clock_mhz figure %g MHz" % a.clock)

    status_inj = np.zeros((N, T), dtype=np.int64)   # 0: as the template; else the status to write
    msg_inj = {}
    for spec in a.fail_verify:
        p = spec.split(":", 1)
        rk = parse_list(p[0], "--fail-verify ranks", N)
        if len(p) > 1:
            ti = match_tests(p[1], tests, "--fail-verify")
        else:
            ti = [next((i for i, x in enumerate(tests) if _has_metrics(x)), 0)]
        for i in ti:
            for r in rk:
                status_inj[r, i] = 100   # marker: wrong result
                msg_inj[(r, i)] = "wrong result: C[17] = 12.5, expected 13 (0 of 4096 tiles checked before it) " \
                                  "[simulated by fleetsim]"
        injected.append("wrong result on ranks %s in %s" % (p[0], ",".join(tests[i]["name"] for i in ti)))
    unsupported = np.zeros((N, T), dtype=bool)
    for spec in a.unsupported:
        p = spec.rsplit(":", 1) if ":" in spec and _looks_ranks(spec.rsplit(":", 1)[1]) else [spec]
        ti = match_tests(p[0], tests, "--unsupported")
        rk = parse_list(p[1], "--unsupported ranks", N) if len(p) > 1 else list(range(N))
        unsupported[np.ix_(rk, ti)] = True
        injected.append("unsupported: %s on %s" % (",".join(tests[i]["name"] for i in ti),
                                                   "ranks " + p[1] if len(p) > 1 else "every rank"))

    hung = parse_list(a.hung, "--hung", N) if a.hung else []
    if len(hung) >= N:
        raise Usage("--hung: at least one rank must answer")
    not_run = set()
    if a.incomplete:
        if a.incomplete >= T:
            raise Usage("--incomplete %d: the template has %d tests; at least one must run" % (a.incomplete, T))
        not_run.update(range(T - a.incomplete, T))
        injected.append("stopped by a signal: the last %d tests not run" % a.incomplete)
    hung_test = None
    if hung:
        last_run = min(not_run) - 1 if not_run else T - 1
        hung_test = last_run
        not_run.update(range(last_run + 1, T))
        injected.append("ranks %s hung in %s" % (a.hung, tests[last_run]["name"]))

    health = {}
    if a.health or a.health_baseline:
        for k, v in HEALTH_BASELINE.items():
            health[k] = np.full((N, 2), v, dtype=np.int64)
        for k, v in HEALTH_BUSY.items():
            health[k] = np.full(N, v, dtype=np.int64)
    for spec in a.health:
        p = spec.split(":")
        if len(p) < 2 or len(p) > 4:
            raise Usage("--health %s: expected NAME:RANKS[:AFTER[:BEFORE]]" % spec)
        name = p[0]
        if not name or not all(c.isalnum() or c == "_" for c in name):
            raise Usage("--health %s: a counter name is letters, digits and _" % spec)
        rk = parse_list(p[1], "--health ranks", N)
        after = _int(p[2], "--health AFTER") if len(p) > 2 else 1
        before = _int(p[3], "--health BEFORE") if len(p) > 3 else 0
        if name in HEALTH_BUSY:   # a 1-D [nranks] figure: AFTER is its value
            health[name][rk] = after
            injected.append("health %s = %d on ranks %s" % (name, after, p[1]))
            continue
        if name not in health:
            health[name] = np.zeros((N, 2), dtype=np.int64)
        health[name][rk, 0] = before
        health[name][rk, 1] = after
        injected.append("health %s = %d (before %d) on ranks %s" % (name, after, before, p[1]))

    # ---- between-GPU factors
    sigma = a.spread / 100.0
    rho = a.spread_corr
    z = math.sqrt(rho) * rng.standard_normal((N, 1)) + math.sqrt(1 - rho) * rng.standard_normal((N, T))
    factor = np.exp(sigma * z)
    perf = factor * (1 - degr)

    # ---- write
    out = a.output
    tmp = out + ".fleetsim-partial"
    if os.path.exists(out) and not a.force:
        raise Usage("%s exists (pass --force)" % out)
    try:
        f = h5py.File(tmp, "w", track_order=True)
    except OSError as e:
        raise Runtime("%s: cannot be created (%s)" % (tmp, e))
    try:
        with f:
            _write(f, t, a, tests, N, G, nnodes, node, local, rng, perf, clock_out, status_inj, msg_inj,
                   unsupported, hung, hung_test, not_run, health, injected, factor, degr, argv)
        os.replace(tmp, out)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise Runtime("%s: %s" % (out, e))
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise
    return injected


def _positive(text, what):
    try:
        v = float(text)
    except ValueError:
        raise Usage("%s: '%s' is not a number" % (what, text))
    if not v > 0 or math.isinf(v):
        raise Usage("%s: %s is not positive" % (what, text))
    return v


def _int(text, what):
    try:
        return int(text)
    except ValueError:
        raise Usage("%s: '%s' is not an integer" % (what, text))


def _looks_ranks(s):
    return bool(s) and all(c.isdigit() or c in ",-" for c in s)


def _has_metrics(test):
    return any(d["ndim"] == 2 and k not in ("rep_start_s", "rep_end_s") for k, d in test["dsets"].items())


# ---------------------------------------------------------------- command line

def parser():
    p = argparse.ArgumentParser(
        prog="fleetsim.py", formatter_class=argparse.RawDescriptionHelpFormatter,
        description=__doc__.split("\n\n", 1)[1].split("Exit codes:")[0],
        epilog="Exit codes: 0 written; 2 a bad option or template; 3 the output cannot be written, "
               "or h5py/numpy are missing.")
    p.add_argument("--template", required=True, metavar="FILE",
                   help="a real mcfleet results file (.h5) or a template extracted from one (.json)")
    p.add_argument("-o", "--output", required=True, metavar="FILE", help="the simulated results file (or JSON with --extract)")
    p.add_argument("--extract", action="store_true",
                   help="write the template's per-repetition figures as a template JSON instead of simulating")
    p.add_argument("--force", action="store_true", help="overwrite OUTPUT")
    p.add_argument("-n", "--ranks", dest="n", type=int, default=64, metavar="N", help="GPUs (ranks) to simulate (default 64)")
    p.add_argument("-g", "--gpus-per-node", type=int, default=4, metavar="G", help="GPUs per node (default 4)")
    p.add_argument("--seed", type=int, default=1, help="random seed: the same seed and options give the same file (default 1)")
    p.add_argument("--spread", type=float, default=0.5, metavar="PCT",
                   help="between-GPU spread, the standard deviation of log(factor) in %% (default 0.5, from two real H200s)")
    p.add_argument("--spread-corr", type=float, default=0.0, metavar="RHO",
                   help="correlation of a GPU's factors across its tests, 0..1 (default 0: independent)")
    p.add_argument("--resample", choices=("series", "iid"), default="series",
                   help="series (default): each GPU repeats a template rank's repetitions in their order, times a "
                        "jitter of the template's rep-to-rep noise (robust spread of successive log differences "
                        "over sqrt 2); iid: repetitions drawn with replacement, order lost (this makes the H200's "
                        "first 3-4 HBM repetitions, 10%% low, land in the median of a quarter of the GPUs)")
    p.add_argument("--tests", metavar="TESTS", help="keep only these tests of the template (names, group names, patterns)")
    p.add_argument("--device-name", help="the device name written for every rank (default: the template's)")
    p.add_argument("--device-arch", help="the device arch written for every rank (default: the template's)")
    p.add_argument("--host-format", default="nid%06d", help="host name format of node i (default nid%%06d)")
    p.add_argument("--first-node", type=int, default=1, help="the number of the first node's host name (default 1)")
    p.add_argument("--no-better", dest="write_better", action="store_false",
                   help="drop the template's 'better' attribute from metric datasets (as older files)")
    g = p.add_argument_group("injections (recorded in /meta injected and /sim)")
    g.add_argument("--degrade", action="append", default=[], metavar="RANKS:PCT[:TESTS]")
    g.add_argument("--degrade-node", action="append", default=[], metavar="NODES:PCT[:TESTS]")
    g.add_argument("--degrade-half", metavar="PCT[:TESTS]")
    g.add_argument("--clock", type=float, metavar="MHZ", help="every clock_mhz figure exactly MHZ")
    g.add_argument("--clock-outlier", action="append", default=[], metavar="RANKS:MHZ")
    g.add_argument("--fail-verify", action="append", default=[], metavar="RANKS[:TESTS]")
    g.add_argument("--incomplete", type=int, default=0, metavar="K", help="the last K tests not run, complete = 0")
    g.add_argument("--hung", metavar="RANKS", help="world ranks that hung in the last test run")
    g.add_argument("--acceptance", metavar="ARCH", help="mark the file an acceptance run of the deck for ARCH")
    g.add_argument("--unsupported", action="append", default=[], metavar="TESTS[:RANKS]")
    g.add_argument("--health", action="append", default=[], metavar="NAME:RANKS[:AFTER[:BEFORE]]")
    g.add_argument("--health-baseline", action="store_true",
                   help="write /health with healthy values for every rank (implied by --health)")
    return p


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    p = parser()
    a = p.parse_args(argv)
    try:
        import numpy  # noqa: F401
        import h5py   # noqa: F401
    except ImportError as e:
        print("fleetsim.py: %s: run it with Debian's /usr/bin/python3 (python3-h5py, python3-numpy)" % e,
              file=sys.stderr)
        return 3
    try:
        if a.n < 1 or a.n > 1 << 20:
            raise Usage("-n %d: between 1 and 2^20 ranks" % a.n)
        if a.gpus_per_node < 1 or a.gpus_per_node > 64:
            raise Usage("--gpus-per-node %d: between 1 and 64" % a.gpus_per_node)
        if not (0 <= a.spread < 50):
            raise Usage("--spread %g: between 0 and 50 %%" % a.spread)
        if not (0 <= a.spread_corr <= 1):
            raise Usage("--spread-corr %g: between 0 and 1" % a.spread_corr)
        if a.incomplete < 0:
            raise Usage("--incomplete must not be negative")
        if a.clock is not None and not a.clock > 0:
            raise Usage("--clock must be positive")
        t = load_template(a.template)
        if a.extract:
            extract(t, a.output, a.force)
            print("fleetsim: template %s -> %s (%d tests)" % (a.template, a.output, len(t["tests"])))
            return 0
        inj = simulate(t, a, argv)
        print("fleetsim: SIMULATED %d GPUs on %d nodes -> %s (seed %d; %s)" %
              (a.n, (a.n + a.gpus_per_node - 1) // a.gpus_per_node, a.output, a.seed,
               "; ".join(inj) if inj else "no injection"))
        return 0
    except Usage as e:
        print("fleetsim.py: %s" % e, file=sys.stderr)
        return 2
    except Runtime as e:
        print("fleetsim.py: %s" % e, file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 3


if __name__ == "__main__":
    sys.exit(main())
