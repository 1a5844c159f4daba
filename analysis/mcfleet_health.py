#!/usr/bin/env python3
"""mcfleet health: this node's GPUs, each against its own baseline, in under a
minute: for a Slurm prolog or epilog, an NHC check, or cron.

  mcfleet health [--deck DECK] [--np N] [--launcher CMD] [--history DIR] [--node NAME]
                 [--threshold R] [--sigmas K] [--baseline-runs N] [--keep N] [--timeout S]
                 [--interval S] [--drain] [--prom FILE] [--format text|json] [-- MCFLEET OPTIONS]

It runs a short deck on every GPU of this node (input/health.yaml; on Hopper,
where nvidia-smi says compute capability 9.0, input/health-sm_90.yaml;
input/health-host.yaml for the host backend; a bare name is looked up in
mcfleet's decks) through `mpirun -np N` (N: --np, else the GPUs this node
has), or through --launcher CMD (its {np} replaced by N), keeps the run in
the history directory (--history, default /var/lib/mcfleet/health; one
folder per node) and judges it:
  - the C report's verdict (mcfleet report): a GPU that FAILs a rule (a
    wrong result, a runtime error or hang, health counters, its node's
    peers) is a problem;
  - each GPU against its own earlier healthy runs, matched by UUID (mcfleet
    compare's rule, docs/exit-codes.md): a figure worse than the GPU's own
    reference by more than max(--threshold, --sigmas x its run-to-run noise,
    at most 10 %) is a problem, once the GPU has --baseline-runs earlier
    runs (default 3); until then the baseline is building, said, and the run
    is kept. Repetitions spread far beyond the GPU's history (erratic) are
    said, not counted.
Healthy runs join the baseline (its first --baseline-runs runs kept for good,
the rest the newest --keep, by their recorded start); unhealthy ones are kept
in failed/ as evidence, never in the baseline. The run's output is kept
beside it (.log). A file there that is not a run of this node (unreadable,
another node's) is moved to aside/ and said, never counted or pruned as one.
The node's name (--node, else SLURMD_NODENAME, else the host name) must be
1-64 letters, digits, '.', '_', '-' (docs/operations.md, "Node names").

Output: the first line is a summary fit for Slurm's Reason and NHC
("mcfleet: GPU 0000:3b:00.0 matrix-fp64 47% below its baseline"), then one
line per problem, then what else was found. --drain drains this node
(SLURMD_NODENAME, else --node) with the summary as the reason when it is
unhealthy. --prom FILE writes this node's health gauges (a node_exporter
textfile, atomically). --interval S answers from the last check where it was
healthy and is younger than S seconds (a prolog that need not run it before
every job).

Exit codes: 0 healthy (or the baseline still building: said); 1 unhealthy
(drain the node); 2 bad usage (an option, a deck that cannot be found, a
node name refused); 3
could not check (no GPU found, the launcher or mcfleet failed or timed out,
the run incomplete with no GPU to blame, the history cannot be written, another check holds it past --timeout).
"""
import argparse
import fcntl
import glob
import json
import os
import re
import shlex
import shutil
import signal
import socket
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_compare  # noqa: E402
import mcfleet_creport as creport  # noqa: E402
import mcfleet_prom as prom  # noqa: E402
import mcfleet_slurm as slurm  # noqa: E402
from mcfleet_export import cause_words, gpu_name  # noqa: E402
import mcfleet_hostlist as hostlist  # noqa: E402
from mcfleet_results import BadFile, Results, quiet_pipe, reading, show  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_HISTORY = "/var/lib/mcfleet/health"
DEFAULT_THRESHOLD = 0.05    # a GPU 5 % worse than its own baseline is a problem (beyond its noise)
OK, UNHEALTHY, USAGE, CANNOT = 0, 1, 2, 3


class Cannot(Exception):
    """the check could not be made (exit 3)"""


class Usage(Exception):
    """exit 2"""


def node_name(given):
    """this node's name, by the node-name rule (mcfleet_hostlist): it names
    the history folder and the node drained; a name refused is exit 2,
    before anything runs"""
    if given is not None:
        name, where = given, "--node"
    elif os.environ.get("SLURMD_NODENAME"):
        name, where = os.environ["SLURMD_NODENAME"], "SLURMD_NODENAME"
    else:
        name, where = socket.gethostname().split(".")[0], "the host name (give --node)"
    try:
        return hostlist.check_name(name, where)
    except hostlist.Bad as e:
        raise Usage(str(e))


def find_deck(deck):
    """the deck's path: DECK where it is a file, else DECK (or DECK.yaml) in
    mcfleet's decks (the installed input/ beside analysis/, or the source
    tree's); auto: health-sm_90.yaml on Hopper, else health.yaml"""
    if deck == "auto":
        deck = "health-sm_90.yaml" if gpu_arch() == "9.0" else "health.yaml"
    if os.path.isfile(deck):
        return deck
    for d in (os.path.join(os.path.dirname(HERE), "input"),):
        for name in (deck, deck + ".yaml"):
            p = os.path.join(d, name)
            if "/" not in deck and os.path.isfile(p):
                return p
    raise Usage("--deck %s: no such file, and no deck of that name in %s" % (
        show(deck), os.path.join(os.path.dirname(HERE), "input")))


def gpu_arch():
    """NVIDIA's compute capability of GPU 0 ("9.0"), or "" (no nvidia-smi, another vendor)"""
    try:
        p = subprocess.run(["nvidia-smi", "--query-gpu=compute_cap", "--format=csv,noheader", "-i", "0"],
                           stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, timeout=30)
        return p.stdout.decode("ascii", "replace").strip() if p.returncode == 0 else ""
    except (OSError, subprocess.SubprocessError):
        return ""


def count_gpus():
    """the GPUs of this node: CUDA_VISIBLE_DEVICES or ROCR/HIP_VISIBLE_DEVICES
    where set, else /dev/nvidiaN, else the GPU nodes of AMD's KFD topology"""
    for var in ("CUDA_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES"):
        v = os.environ.get(var, "").strip()
        if v and v.lower() not in ("none", "nodevfiles"):
            return len([x for x in v.split(",") if x.strip()])
    n = len([d for d in glob.glob("/dev/nvidia*") if re.fullmatch(r"/dev/nvidia\d+", d)])
    if n:
        return n
    if os.path.exists("/dev/kfd"):   # a KFD node with SIMDs is a GPU (a GCD); the CPUs' have none
        n = 0
        for p in glob.glob("/sys/class/kfd/kfd/topology/nodes/*/properties"):
            try:
                with open(p) as f:
                    n += any(w[:1] == ["simd_count"] and len(w) > 1 and w[1].isdigit() and int(w[1]) > 0
                             for w in (line.split() for line in f))
            except OSError:
                pass
        return n
    return 0


def launch(a, deck, out, log):
    """runs the deck on this node's GPUs, its output to LOG; mcfleet's exit code"""
    binary = creport.binary()
    if a.launcher:
        words = [w.replace("{np}", str(a.np)) for w in shlex.split(a.launcher)]
        env = dict(os.environ)
    else:
        words = ["mpirun", "-np", str(a.np)]
        # mpirun on this node alone: a job's or a prolog's Slurm variables (and
        # an srun step's PMIx ones) would make Open MPI reach for the job
        env = {k: v for k, v in os.environ.items()
               if not k.startswith(("SLURM_", "PMIX_", "PMI_")) or k == "SLURM_CONF"}
    env["SLURMD_NODENAME"] = a.node   # recorded in the file (/ranks/slurm_nodename)
    cmd = words + [binary, "--deck", deck, "-o", out] + a.extra
    with open(log, "w") as f:
        f.write("# %s\n" % " ".join(shlex.quote(w) for w in cmd))
        f.flush()
        try:
            p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=f, stderr=subprocess.STDOUT, env=env,
                                 start_new_session=True)
        except OSError as e:
            raise Cannot("cannot start %s: %s" % (words[0], e.strerror or e))
        try:
            return p.wait(timeout=a.timeout)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGTERM)
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, signal.SIGKILL)
                p.wait()
            raise Cannot("the health run did not end within --timeout %d s (stopped)" % a.timeout)


def tail(path, n=3):
    try:
        with open(path, errors="replace") as f:
            lines = [x.rstrip() for x in f if x.strip() and not x.startswith("#")]
        return " | ".join(lines[-n:])
    except OSError:
        return ""


def judge(a, run_path, baseline):
    """(problems, notes, compared, gpus): problems and notes are lines; compared
    the per-GPU figures against their baseline (for --prom)"""
    problems, notes = [], []
    r = creport.run(run_path)
    if r.report is None or r.code == 2:
        raise Cannot("mcfleet report could not read the health run: %s" % (r.stderr.strip().splitlines() or ["?"])[-1])
    rep = r.report
    ids = prom.gpu_ids(rep)
    bus = {i: gpu_name(g, i) for g, i in zip(rep.get("gpus", []), ids)}
    for g, i in zip(rep.get("gpus", []), ids):
        for c in g.get("causes", []):
            if c.get("level") == "FAIL":
                problems.append((1e6, "mcfleet: GPU %s %s" % (bus[i], " ".join(
                    x for x in (c.get("test"), "FAIL", cause_words(c)) if x))))
    if r.code == 3 and not problems:   # incomplete, and no GPU to blame (a hung or failing GPU FAILs: above)
        raise Cannot("the health run is incomplete: %s" % "; ".join(rep.get("reasons", []))[:200])
    olds = []
    for p in baseline:
        try:
            olds.append(reading(p, lambda p=p: mcfleet_compare.read_run(p)))
        except BadFile as e:
            notes.append("mcfleet: note: a baseline run cannot be read, left out: %s" % show(str(e)))
    compared = []
    if not olds:
        notes.append("mcfleet: note: no baseline yet%s" % (
            "" if problems else ": this run starts it (1 of %d runs)" % a.baseline_runs))
        return problems, notes, compared, len(ids)
    new = reading(run_path, lambda: mcfleet_compare.read_run(run_path))
    res = mcfleet_compare.compare(olds + [new], a.threshold, a.sigmas, every=True, amounts=True)
    compared = res.get("compared", [])
    for d in res["drift"]:
        name = bus.get(d["gpu"], d["gpu"])
        worse = "below" if d["deviation"] < 0 else "above"   # a rate fell, a latency rose
        line = "mcfleet: GPU %s %s %d%% %s its baseline" % (name, d["test"], int(abs(100 * d["deviation"])), worse)
        if d["earlier_runs"] >= a.baseline_runs:
            # worst first, a latency's rise as the rate it costs (+100 % is a rate's -50 %)
            dev = d["deviation"]
            env = " [the environment's (mcfleet report): %s; next: %s]" % (d["environment"], d["next"]) \
                if d.get("environment") else ""
            problems.append((-dev if dev < 0 else dev / (1 + dev), line + " (%s %s: %.5g %s against %.5g over %d runs, threshold %.1f%%)"
                             % (d["test"], d["metric"], d["value"], d["unit"], d["reference"], d["earlier_runs"],
                                100 * d["threshold"]) + env))
        else:
            notes.append("mcfleet: note: %s (baseline building: %d of %d runs, not judged yet)" % (
                line[len("mcfleet: "):], d["earlier_runs"], a.baseline_runs))
    for x in res["refused"]:
        if x["newest"]:
            problems.append((1e6, "mcfleet: %s %s: %s" % (x["test"], x["metric"], x["why"])))
    for e in res["erratic"]:
        notes.append("mcfleet: note: GPU %s %s erratic: repetitions spread %.0f%% (its history %.0f%%)" % (
            bus.get(e["gpu"], e["gpu"]), e["test"], 100 * e["spread"], 100 * e["typical"]))
    for k in res["gpus_new"]:
        notes.append("mcfleet: note: GPU %s has no baseline yet (new, or another GPU in its slot): it starts now"
                     % bus.get(k, k))
    short = {c["earlier_runs"] for c in compared if c["earlier_runs"] < a.baseline_runs}
    if short:
        notes.append("mcfleet: note: baseline building: %d of %d runs" % (max(short), a.baseline_runs))
    if not res["gpus_compared"]:
        notes.append("mcfleet: note: nothing compared with the baseline: %s" % "; ".join(res["why_nothing"]))
    for n in res["not_comparable"][:5]:
        notes.append("mcfleet: note: %s not compared: %s" % (n["test"], n["why"]))
    for x in compared:
        x["name"] = bus.get(x["gpu"], x["gpu"])
    return problems, notes, compared, len(ids)


def summary_of(problems, ngpus, compared, notes):
    if problems:
        problems.sort(key=lambda p: -p[0])
        first = problems[0][1]
        first = re.sub(r" \(.*\)$", "", first)   # the short form: the details are on its own line
        return first + (" (+%d more)" % (len(problems) - 1) if len(problems) > 1 else "")
    building = any("baseline building" in n or "no baseline yet" in n for n in notes)
    tests = {c["test"] for c in compared}
    return "mcfleet: healthy: %d GPU%s%s%s" % (ngpus, "" if ngpus == 1 else "s", ", %d test%s within their baseline" % (
        len(tests), "" if len(tests) == 1 else "s") if tests else "", "; baseline still building" if building else "")


def run_start(path, node):
    """(the recorded start of a results file, None) where it is a run of NODE
    (every rank's /ranks/slurm_nodename, as the launch set it), else (None, why)"""
    r = Results(path)
    names = sorted(set(show(x) for x in r.rank_column("slurm_nodename", "str", "")))
    if names != [node]:
        return None, "its ranks ran on %s, not %s" % (", ".join("'%s'" % x for x in names[:3]), node)
    start = r.attr_text(r.meta, "/meta", "start_time")
    return (start, None) if start else (None, "it records no start time")


def runs_of(paths, node, aside, notes):
    """(recorded start, path) of those of PATHS that read as runs of NODE,
    oldest first; any other (unreadable, another node's) is moved to ASIDE
    with its .log, and said in NOTES: never counted as a run, never pruned
    in place of one"""
    good = []
    for p in sorted(paths):
        try:
            start, why = reading(p, lambda p=p: run_start(p, node))
        except BadFile as e:
            start, why = None, show(str(e)).replace(p + ": ", "", 1)
        if start is not None:
            good.append((start, p))
            continue
        try:
            os.makedirs(aside, exist_ok=True)
            for q in (p, p[:-3] + ".log"):
                if os.path.exists(q):
                    shutil.move(q, os.path.join(aside, os.path.basename(q)))
            notes.append("mcfleet: note: %s is not a health run of this node (%s): moved to %s"
                         % (show(p), why, show(aside)))
        except OSError as e:
            notes.append("mcfleet: note: %s is not a health run of this node (%s), and cannot be moved aside: %s"
                         % (show(p), why, e.strerror or e))
    return sorted(good)


def keep_runs(runs, anchors, keep):
    """prunes RUNS ((start, path), oldest first) to the first ANCHORS and the newest KEEP"""
    drop = runs[anchors:len(runs) - keep] if len(runs) > anchors + keep else []
    for _, p in drop:
        for q in (p, p[:-3] + ".log"):
            try:
                os.unlink(q)
            except OSError:
                pass


def write_json(path, obj):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=1)
        f.flush()
        os.fsync(f.fileno())
    os.replace(tmp, path)


def gauges(a, code, nbase, compared):
    fams = prom.Families()
    lab = {"node": a.node}
    fams.add("mcfleet_health_status", "the node's last health check: 0 healthy, 1 unhealthy, 3 could not check "
             "(mcfleet health's exit code)", lab, code)
    fams.add("mcfleet_health_last_check_timestamp_seconds", "when the node's last health check ended", lab, time.time())
    fams.add("mcfleet_health_baseline_runs", "healthy runs in the node's baseline", lab, nbase)
    for c in compared:
        L = {"node": a.node, "gpu": c["gpu"], "test": c["test"], "metric": c["metric"]}
        fams.add("mcfleet_health_gpu_deviation_ratio", "the GPU's figure against its own baseline, new / reference - 1 "
                 "(a rate: negative is worse; a latency: positive is worse)", L, c["deviation"])
        fams.add("mcfleet_health_gpu_threshold_ratio", "the deviation beyond which the figure is a problem", L,
                 c["threshold"])
    return fams.text()


def check(a):
    """(exit code, summary, problem lines, notes, compared, baseline runs)"""
    hist = os.path.join(a.history, a.node)
    base, failed = os.path.join(hist, "baseline"), os.path.join(hist, "failed")
    try:
        for d in (base, failed):
            os.makedirs(d, exist_ok=True)
        lock = open(os.path.join(hist, ".lock"), "a")
    except OSError as e:
        raise Cannot("the history %s cannot be written: %s" % (show(hist), e.strerror or e))
    deadline = time.time() + a.timeout
    while True:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
            break
        except OSError:
            if time.time() > deadline:
                raise Cannot("another mcfleet health holds %s (waited %d s)" % (show(hist), a.timeout))
            time.sleep(0.5)
    status_path = os.path.join(hist, "status.json")
    if a.interval:
        try:
            with open(status_path) as f:
                st = json.load(f)
            age = time.time() - float(st["time"])
            if st.get("code") == OK and 0 <= age < a.interval:
                return OK, "%s (checked %d s ago)" % (st["summary"], age), [], [], [], st.get("baseline_runs", 0)
        except (OSError, ValueError, KeyError, TypeError):
            pass
    stamp = time.strftime("%Y%m%dT%H%M%S", time.gmtime()) + ".%06dZ" % (time.time() % 1 * 1e6)
    run_path = os.path.join(hist, "run-%s.h5" % stamp)
    log = run_path[:-3] + ".log"
    aside, swept = os.path.join(hist, "aside"), []
    kept = {d: runs_of(glob.glob(os.path.join(d, "*.h5")), a.node, aside, swept) for d in (base, failed)}
    baseline = [p for _, p in kept[base]]
    try:
        rc = launch(a, a.deck, run_path, log)
    except Cannot:
        for p in (run_path, log):
            if os.path.exists(p):
                shutil.move(p, os.path.join(failed, os.path.basename(p)))
        raise
    if rc not in (0, 1, 3) or not os.path.isfile(run_path):   # 3 with a file: incomplete, judged below
        for p in (run_path, log):
            if os.path.exists(p):
                shutil.move(p, os.path.join(failed, os.path.basename(p)))
        raise Cannot("the health run failed (exit %d of the launcher or mcfleet; log %s): %s" % (
            rc, os.path.join(failed, os.path.basename(log)), tail(log)))
    try:
        problems, notes, compared, ngpus = judge(a, run_path, baseline)
        notes += swept
    except Cannot:
        for p in (run_path, log):
            shutil.move(p, os.path.join(failed, os.path.basename(p)))
        raise
    code = UNHEALTHY if problems else OK
    dest = base if code == OK else failed
    for p in (run_path, log):
        shutil.move(p, os.path.join(dest, os.path.basename(p)))
    kept[dest] = sorted(kept[dest] + runs_of([os.path.join(dest, os.path.basename(run_path))], a.node, aside, notes))
    keep_runs(kept[base], a.baseline_runs, a.keep)
    keep_runs(kept[failed], 0, a.keep)
    nbase = min(len(kept[base]), a.baseline_runs + a.keep)
    summary = summary_of(problems, ngpus, compared, notes)
    write_json(status_path, {"time": time.time(), "node": a.node, "code": code, "summary": summary,
                             "problems": [p[1] for p in problems], "run": os.path.join(dest, os.path.basename(run_path)),
                             "baseline_runs": nbase})
    return code, summary, [p[1] for p in problems], notes, compared, nbase


def main(argv):
    extra = []
    if "--" in argv:
        i = argv.index("--")
        argv, extra = argv[:i], argv[i + 1:]
    ap = argparse.ArgumentParser(prog="mcfleet health", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter, epilog=__doc__.split(
                                     "\n\n", 2)[2])
    ap.add_argument("--deck", default="auto", help="the health deck (default: auto, see below)")
    ap.add_argument("--np", type=int, help="ranks, one per GPU (default: the GPUs of this node)")
    ap.add_argument("--launcher", metavar="CMD", help="the command that starts the ranks, {np} their number "
                    "(default: mpirun -np N)")
    ap.add_argument("--history", default=DEFAULT_HISTORY, metavar="DIR", help="where runs are kept (default %s)"
                    % DEFAULT_HISTORY)
    ap.add_argument("--node", help="this node's name (default: SLURMD_NODENAME, else the host name)")
    ap.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD, metavar="R",
                    help="least relative change that is a problem (default %g)" % DEFAULT_THRESHOLD)
    ap.add_argument("--sigmas", type=float, default=mcfleet_compare.DEFAULT_SIGMAS, metavar="K",
                    help="times the GPU's own run-to-run noise (default %g)" % mcfleet_compare.DEFAULT_SIGMAS)
    ap.add_argument("--baseline-runs", type=int, default=3, metavar="N",
                    help="earlier runs a GPU needs before it is judged (default 3); kept for good")
    ap.add_argument("--keep", type=int, default=10, metavar="N", help="newest runs kept in the baseline and in "
                    "failed/ (default 10)")
    ap.add_argument("--timeout", type=int, default=300, metavar="S", help="seconds the run may take (default 300)")
    ap.add_argument("--interval", type=int, default=0, metavar="S",
                    help="answer from the last healthy check if younger than S seconds (default 0: always run)")
    ap.add_argument("--drain", action="store_true", help="drain this node when it is unhealthy (scontrol)")
    ap.add_argument("--prom", metavar="FILE", help="write this node's health gauges (node_exporter textfile)")
    ap.add_argument("--format", choices=("text", "json"), default="text")
    quiet_pipe()
    try:
        a = ap.parse_args(argv)
    except SystemExit as e:
        return OK if e.code == 0 else USAGE
    a.extra = extra
    try:
        if not (0 <= a.threshold < 1) or a.sigmas < 0 or a.baseline_runs < 1 or a.keep < 1 or a.timeout < 1 \
                or a.interval < 0 or (a.np is not None and a.np < 1):
            raise Usage("--threshold must be in [0, 1), --sigmas >= 0, --baseline-runs, --keep, --timeout, --np >= 1")
        a.node = node_name(a.node)
        a.deck = find_deck(a.deck)
        if a.np is None:
            a.np = count_gpus()
            if not a.np:
                raise Cannot("no GPU found on this node (CUDA/ROCR/HIP_VISIBLE_DEVICES, /dev/nvidiaN, /dev/kfd): give "
                             "--np N (and --deck health-host.yaml -- --backend host to check the host backend)")
        code, summary, problems, notes, compared, nbase = check(a)
    except Usage as e:
        print("mcfleet health: %s" % e, file=sys.stderr)
        return USAGE
    except (Cannot, BadFile) as e:
        code, summary, problems, notes, compared = CANNOT, "mcfleet: could not check: %s" % show(str(e)), [], [], []
        nbase = len(glob.glob(os.path.join(a.history, getattr(a, "node", "") or "-", "baseline", "*.h5")))
    out = {"node": getattr(a, "node", ""), "code": code, "summary": summary, "problems": problems, "notes": notes}
    if a.format == "json":
        print(json.dumps(out, indent=1))
    else:
        print(summary)
        for line in problems + notes:
            print(line)
    sys.stdout.flush()   # the summary first, before what the drain says on stderr (one log for both)
    if a.drain and code == UNHEALTHY:
        args, line = slurm.drain_command(a.node, summary)
        said, rc = slurm.run(args)
        print("drained %s: %s" % (a.node, line) if rc == 0 else
              "mcfleet health: could not drain %s (scontrol exit %d): %s" % (a.node, rc, said), file=sys.stderr)
    if a.prom:
        try:
            prom.write(a.prom, gauges(a, code, nbase, compared))
        except Exception as e:   # outpath.Refused or OSError: the check's answer stands
            print("mcfleet health: --prom %s not written: %s" % (show(a.prom), e), file=sys.stderr)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
