#!/usr/bin/python3
"""detection_bench: how well does `mcfleet report` find degraded GPUs, and how
often does it flag healthy ones? Measured on SIMULATED fleets (tools/fleetsim.py):
the figures are the verdict engine's behaviour on made-up files built from
real per-repetition data, never measurements of GPUs.

For each between-GPU spread (--spreads), fleet size (--sizes) and seed, it
builds two files with fleetsim:
  single  isolated GPUs degraded by each of --degradations (each on its own
          node; per level max(1, N/256) GPUs, at most 40),
  node    whole nodes degraded by each level (per level max(1, N/2048) nodes),
(and one clean file per size and spread), runs `mcfleet report FILE --format
json` on each, and compares the GPUs it flags with the ground truth in /sim:
  recall     degraded GPUs flagged (WARN or FAIL), and FAIL alone;
  FP rate    healthy GPUs flagged, over every healthy GPU of every file of
             that size and spread (the clean files included).
A degraded GPU is slower on every kept test (--tests) by its level; its other
noise is fleetsim's (real H200 repetitions, a log-normal between-GPU factor).

The verdict is always the binary's (one implementation of the rules: a copy
here would drift from src/report/verdict.c).

Output: a table on stdout and a CSV (--csv). Exit codes: 0 done; 2 a bad
option; 3 fleetsim or mcfleet report failed (its message printed).
"""
import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_TEMPLATE = os.path.join(HERE, "..", "docs", "bench", "2026-11-23-detection", "h200-bench-template.json")
# what an acceptance deck on an H200 runs: tensor cores (wgmma, mma.sync), vector FMA, HBM, L2 and latency
DEFAULT_TESTS = ("wgmma-bf16:occupancy=2,wgmma-fp8,mma-fp64,valu-fp32,hbm-triad,l2-read,lat-mma-fp16,"
                 "chase:working_set=268435456")


class Fail(Exception):
    pass


def ints(text, what):
    try:
        v = [int(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError("%s: a comma list of integers" % what)
    return v


def floats(text):
    try:
        return [float(x) for x in text.split(",") if x]
    except ValueError:
        raise argparse.ArgumentTypeError("a comma list of numbers: %s" % text)


def run(cmd, what, ok=(0, 1)):
    p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if p.returncode not in ok:
        raise Fail("%s: exit %d: %s" % (what, p.returncode, (p.stderr or p.stdout).decode(errors="replace")[-800:]))
    return p


def plan(n, g, kind, levels):
    """degradation specs: (rank list, pct) pairs for fleetsim"""
    out = []
    nnodes = n // g
    if kind == "single":
        per = max(1, min(40, n // 256))
        node = 0
        for pct in levels:
            ranks = []
            for _ in range(per):
                ranks.append((node % nnodes) * g + (node * 3) % g)   # a varying local rank
                node += max(1, nnodes // (per * len(levels) + 1))
            out.append((sorted(set(ranks)), pct))
    elif kind == "node":
        per = max(1, n // 2048)
        step = max(1, nnodes // (per * len(levels) + 1))
        node = step // 2
        for pct in levels:
            nodes = []
            for _ in range(per):
                nodes.append(node % nnodes)
                node += step
            out.append((sorted(set(nodes)), pct))
    return out


def flagged_engine(mcfleet, path, extra):
    p = run([mcfleet, "report", path, "--format", "json"] + extra, "mcfleet report " + path, ok=(0, 1))
    try:
        doc = json.loads(p.stdout.decode())
    except ValueError as e:
        raise Fail("mcfleet report %s --format json: not JSON (%s): %s" % (path, e, p.stdout[:300]))
    level = {}
    for gpu in doc.get("gpus", []):
        level[int(gpu.get("world_rank", gpu.get("rank")))] = gpu.get("verdict", "PASS")
    return level, doc


# ---------------------------------------------------------------- main

def main(argv=None):
    p = argparse.ArgumentParser(prog="detection_bench.py", formatter_class=argparse.RawDescriptionHelpFormatter,
                                description=__doc__.split("\n\n", 1)[1].split("Output:")[0],
                                epilog="Exit codes: 0 done; 2 a bad option; 3 fleetsim or mcfleet report failed.")
    p.add_argument("--mcfleet", default=os.environ.get("MCFLEET", "mcfleet"), help="the mcfleet binary ($MCFLEET)")
    p.add_argument("--template", default=DEFAULT_TEMPLATE, help="fleetsim's template (default: the H200 bench run)")
    p.add_argument("--sizes", type=lambda s: ints(s, "--sizes"), default=[64, 1024, 10000], help="fleet sizes")
    p.add_argument("--gpus-per-node", type=int, default=8)
    p.add_argument("--degradations", type=floats, default=[2, 3, 5, 7, 10, 20], help="percent slower")
    p.add_argument("--spreads", type=floats, default=[0.5, 1, 2], help="between-GPU spreads, percent")
    p.add_argument("--seeds", type=int, default=3, help="seeds per size and spread (default 3)")
    p.add_argument("--tests", default=DEFAULT_TESTS, help="the template's tests kept (default: 8 acceptance-like tests)")
    p.add_argument("--report-arg", action="append", default=[], help="an extra argument for mcfleet report")
    p.add_argument("--csv", help="write the table as CSV")
    p.add_argument("--workdir", help="where the files go (default: a temporary folder, removed)")
    p.add_argument("--keep", action="store_true", help="keep the simulated files")
    a = p.parse_args(argv)
    if a.gpus_per_node < 1 or any(n < 2 * a.gpus_per_node for n in a.sizes) or a.seeds < 1:
        p.error("every size must hold at least two nodes; --seeds at least 1")
    try:
        import h5py  # noqa: F401
        import numpy  # noqa: F401  (fleetsim needs both)
    except ImportError as e:
        print("detection_bench.py: %s: use Debian's /usr/bin/python3" % e, file=sys.stderr)
        return 3
    work = a.workdir or tempfile.mkdtemp(prefix="detection-bench.")
    os.makedirs(work, exist_ok=True)
    engine = "mcfleet"
    rows = []
    t0 = time.time()
    try:
        for spread in a.spreads:
            for n in a.sizes:
                G = a.gpus_per_node
                stats = {}   # (kind, pct) -> [n, flagged, failed]
                healthy = [0, 0, 0]
                for seed in range(1, a.seeds + 1):
                    jobs = [("clean", [])] if seed == 1 else []
                    for kind in ("single", "node"):
                        # at most max(G, N/16) degraded GPUs per file, so that they do not move the fleet median
                        per_level = max(1, min(40, n // 256)) if kind == "single" else G * max(1, n // 2048)
                        per_file = max(1, int(max(G, n // 16) // per_level))
                        for j in range(0, len(a.degradations), per_file):
                            jobs.append((kind, a.degradations[j:j + per_file]))
                    for fi, (kind, levels) in enumerate(jobs):
                        path = os.path.join(work, "f-%g-%d-%d-%d.h5" % (spread, n, seed, fi))
                        cmd = [sys.executable, os.path.join(HERE, "fleetsim.py"), "--template", a.template,
                               "-o", path, "--force", "-n", str(n), "-g", str(G), "--spread", str(spread),
                               "--seed", str(100000 * seed + 100 * fi + n % 97 + int(spread * 10)), "--tests", a.tests]
                        truth = {}
                        for ranks, pct in plan(n, G, kind, levels):
                            if kind == "single":
                                cmd += ["--degrade", "%s:%g" % (",".join(map(str, ranks)), pct)]
                                for r in ranks:
                                    truth[r] = pct
                            else:
                                cmd += ["--degrade-node", "%s:%g" % (",".join(map(str, ranks)), pct)]
                                for nd in ranks:
                                    for r in range(nd * G, nd * G + G):
                                        truth[r] = pct
                        run(cmd, "fleetsim", ok=(0,))
                        level = flagged_engine(a.mcfleet, path, a.report_arg)[0]
                        if len(level) != n:
                            raise Fail("%s: the report judged %d GPUs of %d" % (path, len(level), n))
                        for r in range(n):
                            v = level.get(r, "PASS")
                            if r in truth:
                                s = stats.setdefault((kind, truth[r]), [0, 0, 0])
                                s[0] += 1
                                s[1] += v in ("WARN", "FAIL")
                                s[2] += v == "FAIL"
                            else:
                                healthy[0] += 1
                                healthy[1] += v in ("WARN", "FAIL")
                                healthy[2] += v == "FAIL"
                        if not a.keep:
                            os.unlink(path)
                for (kind, pct), (cnt, fl, fa) in sorted(stats.items()):
                    rows.append({"engine": engine, "spread_pct": spread, "gpus": n, "kind": kind, "degradation_pct": pct,
                                 "degraded": cnt, "recall": fl / cnt, "recall_fail": fa / cnt,
                                 "healthy": healthy[0], "fp_rate": healthy[1] / healthy[0],
                                 "fp_fail_rate": healthy[2] / healthy[0]})
                print("# spread %g%%, %d GPUs: %d healthy, %d flagged (%.3f%%), %.0f s" %
                      (spread, n, healthy[0], healthy[1], 100.0 * healthy[1] / healthy[0], time.time() - t0),
                      file=sys.stderr)
    except Fail as e:
        print("detection_bench.py: %s" % e, file=sys.stderr)
        return 3
    except KeyboardInterrupt:
        return 3
    finally:
        if not a.workdir and not a.keep:
            try:
                for x in os.listdir(work):
                    os.unlink(os.path.join(work, x))
                os.rmdir(work)
            except OSError:
                pass
    print("SIMULATED fleets (tools/fleetsim.py, template %s); judged by %s" %
          (os.path.basename(a.template), a.mcfleet + " report"))
    print("%-6s %7s %6s %-6s %6s %8s %8s %8s %9s %9s" % ("engine", "spread%", "gpus", "kind", "degr%", "degraded",
                                                        "recall", "rec.FAIL", "healthy", "FP rate"))
    for r in rows:
        print("%-6s %7g %6d %-6s %6g %8d %7.1f%% %7.1f%% %9d %8.3f%%" % (
            r["engine"], r["spread_pct"], r["gpus"], r["kind"], r["degradation_pct"], r["degraded"],
            100 * r["recall"], 100 * r["recall_fail"], r["healthy"], 100 * r["fp_rate"]))
    if a.csv:
        try:
            with open(a.csv, "w", newline="") as fh:
                w = csv.DictWriter(fh, fieldnames=list(rows[0].keys()) if rows else ["engine"])
                w.writeheader()
                w.writerows(rows)
        except OSError as e:
            print("detection_bench.py: %s: %s" % (a.csv, e), file=sys.stderr)
            return 3
    return 0


if __name__ == "__main__":
    sys.exit(main())
