#!/usr/bin/env python3
"""mcfleet export: a run's verdict and a study's performance classes in the
forms operations use: Slurm node lines, a Prometheus textfile, drain commands.

  mcfleet export [RUN.h5] [--study STUDY.json] [--slurm FILE|-] [--slurm-conf CONF]
                 [--slurm-update] [--weight-kind KIND] [--prom FILE|-]
                 [--drain-lines | --drain] [--node NAME] [--force] [report options]

Slurm (--study, from `mcfleet study --format json`): each node gets a Weight
(Slurm allocates the LOWEST weight first: 1 + round(10 x its class's slowdown
in percent), the largest over the workload kinds, or --weight-kind's) and the
Features mcf_<kind>_<class> (sbatch --constraint=mcf_matrix_A). Slurm 22.05
stops slurmctld at `scontrol reconfigure` on a second NodeName line for a
node it knows ("Duplicated NodeName"), so give the file holding the site's
NodeName lines with --slurm-conf: --slurm then writes that file whole, its
NodeName lines carrying the weights and features (a range split where its
nodes differ, every other key kept; the site's own Weight and Features kept,
docs/operations.md). Without --slurm-conf, --slurm writes bare NodeName
lines, for a site that generates its node definitions. --slurm-update prints
`scontrol update` commands that apply them at once (lost at the next
reconfigure or restart: install the merged file too).

Prometheus (--prom): a node_exporter textfile (put it in the collector's
--collector.textfile.directory, named *.prom), written atomically with mode
0644: per GPU (labels node, gpu, test, metric) the run's figures, verdict and
FAIL causes (RUN.h5) and the study's medians and classes (--study), plus each
node's class and Slurm weight. --node NAME keeps one node's series (one file
per node, written on the node).

Drain (RUN.h5): the verdict is the C report's (`mcfleet report RUN.h5
--format json`, with the report options given here, e.g. --profiles DIR).
--drain-lines prints, for each node with a GPU that FAILs, `scontrol update
NodeName=N State=DRAIN Reason="mcfleet: GPU <bus or uuid> <test> FAIL ..."`;
--drain runs them (an operator's choice, never the default) and says what
each scontrol answered. --node NAME limits them to one node.

Outputs are never overwritten without --force (and never a symlink, FIFO,
device or directory); - is standard output.

Exit codes: 0 done (with --drain-lines or --drain: no GPU FAILs); 1 with
--drain-lines or --drain: a node has a GPU that FAILs (its line printed, or it
was drained); 2 bad usage, a study or results file that cannot be used, an
output refused; 3 an output that cannot be written, a scontrol that failed,
the mcfleet binary that cannot be run.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_compare  # noqa: E402
import mcfleet_creport as creport  # noqa: E402
import mcfleet_outpath as outpath  # noqa: E402
import mcfleet_prom as prom  # noqa: E402
import mcfleet_slurm as slurm  # noqa: E402
from mcfleet_results import BadFile, quiet_pipe, reading, show  # noqa: E402

Bad = slurm.Bad


# ---------------------------------------------------------------- the API `mcfleet study` calls
def slurm_lines(study, conf_text=None, weight_kind="all"):
    """Slurm lines of the study's classes: bare NodeName lines, or with
    conf_text (the site's file with its NodeName lines) that file whole, the
    weights and features merged in. Returns the text; Bad where the study has
    no classes. Nodes of the study the file lacks are named in a comment at
    its end."""
    if conf_text is None:
        return slurm.fragment_lines(study, weight_kind)
    text, notes = slurm.merge(study, conf_text, weight_kind)
    if notes:
        text = text.rstrip("\n") + "\n" + "".join("# mcfleet export: %s\n" % n for n in notes)
    return text if text.endswith("\n") else text + "\n"


def prometheus_text(study=None, report=None, node=None, units=None):
    """the textfile's text: the run's GPUs (report: the C report's JSON; units:
    {(test, metric): unit}), the study's medians and classes (study); node:
    one node's series only"""
    fams = prom.Families()
    if report is not None:
        prom.from_report(fams, report, units or {}, node)
    if study is not None:
        weights = None
        try:
            weights = slurm.node_classes(study)
        except Bad:
            pass   # a study without classes: its figures alone
        prom.from_study(fams, study, node, weights)
    return fams.text()


def write_prom(path, text, force=True):
    """PATH replaced atomically by TEXT, mode 0644 (mcfleet_prom.write)"""
    prom.write(path, text, force)


def gpu_name(g, ident):
    """a GPU as an operator finds it: its PCI bus, else its identity (UUID, serial)"""
    bus = (g.get("pci_bus_id") or "").strip()
    return bus if bus and bus.lower() not in ("none", "unknown") else ident


def cause_words(c):
    """a FAIL cause in a few words"""
    dev = c.get("deviation")
    side = "below" if isinstance(dev, (int, float)) and dev < 0 else "above"
    against = {"fleet-peer": "the fleet", "node-peer": "its node's best", "profile": "its SKU floor"}
    if c.get("rule") in against and isinstance(dev, (int, float)):
        return "%.0f%% %s %s" % (abs(100 * dev), side, against[c["rule"]])
    fixed = {"verification": "wrong results", "status": "runtime error or hang", "deck": "deck not for its arch",
             "unsupported": "test unsupported", "suspect": "figure above peak"}
    if c.get("rule") in fixed:
        return fixed[c["rule"]]
    return "%s: %s" % (c.get("rule", "?"), " ".join(str(c.get("text", "")).split())[:60])


def drain_plan(report, node=None):
    """[(node, scontrol words, the line printed)] for each node with a GPU
    that FAILs in the C report's JSON"""
    by_node = {}
    for g, ident in zip(report.get("gpus", []), prom.gpu_ids(report)):
        if g.get("verdict") != "FAIL":
            continue
        n = prom.gpu_node(g)
        if node is None or n == node:
            by_node.setdefault(n, []).append(dict(g, ident=ident))
    plan = []
    for n in sorted(by_node):
        gpus = by_node[n]
        causes = [(g, c) for g in gpus for c in g.get("causes", []) if c.get("level") == "FAIL"] or [(gpus[0], {})]
        g, c = causes[0]
        what = " ".join(x for x in (c.get("test"), "FAIL", cause_words(c) if c else "") if x)
        more = len(causes) - 1
        reason = "mcfleet: GPU %s %s%s" % (gpu_name(g, g["ident"]), what, "; +%d more on %d GPU%s" % (
            more, len(gpus), "" if len(gpus) == 1 else "s") if more else "")
        args, line = slurm.drain_command(n, reason)
        plan.append((n, args, line))
    return plan


def drain_lines(report, node=None):
    """the scontrol drain commands (drain_plan), as lines"""
    return [line for _, _, line in drain_plan(report, node)]


def run_drains(plan, out=sys.stdout, err=sys.stderr):
    """runs each scontrol of the plan; how many failed (each said)"""
    failed = 0
    for n, args, line in plan:
        said, code = slurm.run(args)
        if code == 0:
            print("drained %s: %s" % (n, line), file=out)
        else:
            failed += 1
            print("mcfleet export: could not drain %s (scontrol exit %d): %s" % (n, code, said or line), file=err)
    return failed


# ---------------------------------------------------------------- the command
def load_study(path):
    try:
        with open(path, encoding="utf-8") as f:
            study = json.load(f)
    except (OSError, ValueError) as e:
        raise Bad("--study %s: %s" % (show(path), getattr(e, "strerror", None) or e))
    if not isinstance(study, dict) or not (isinstance(study.get("classes"), dict) or isinstance(study.get("figures"),
                                                                                                  list)):
        raise Bad("--study %s: not the JSON of mcfleet study (no \"classes\" or \"figures\")" % show(path))
    return study


def units_of(path):
    """{(test, metric): unit} of a results file (mcfleet compare's reader, in a child process)"""
    run = reading(path, lambda: mcfleet_compare.read_run(path))
    return {(t, m): v["unit"] for t, test in run["tests"].items() for m, v in test["metrics"].items()}


def emit(option, path, text, force):
    if path == "-":
        sys.stdout.write(text)
        return
    if option == "--prom":
        prom.write(path, text, force)
    else:
        outpath.write(option, path, force, lambda f: f.write(text))
    print("wrote %s" % show(path), file=sys.stderr)


def main(argv):
    ap = argparse.ArgumentParser(prog="mcfleet export", description=__doc__.split("\n\n")[1],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n", 2)[2])
    ap.add_argument("file", nargs="?", metavar="RUN.h5", help="a results file: the verdict for --prom and the drains")
    ap.add_argument("--study", metavar="STUDY.json", help="mcfleet study's JSON: the classes for --slurm and --prom")
    ap.add_argument("--slurm", metavar="FILE", help="write the Slurm lines to FILE (- for standard output)")
    ap.add_argument("--slurm-conf", metavar="CONF", help="the site's file with its NodeName lines, to merge into")
    ap.add_argument("--slurm-update", action="store_true", help="print scontrol update commands that apply them now")
    ap.add_argument("--weight-kind", default="all", metavar="KIND",
                    help="the workload kind (matrix, memory, power) that orders the weights (default: all)")
    ap.add_argument("--prom", metavar="FILE", help="write the Prometheus textfile (FILE.prom; - for standard output)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--drain-lines", action="store_true", help="print a drain command per node with a FAIL GPU")
    g.add_argument("--drain", action="store_true", help="run those drain commands (scontrol)")
    ap.add_argument("--node", metavar="NAME", help="one node's series and drain only")
    ap.add_argument("--force", action="store_true", help="replace existing outputs (regular files)")
    quiet_pipe()
    try:
        a, passthrough = ap.parse_known_args(argv)
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        return export(a, passthrough)
    except (Bad, BadFile, outpath.Refused) as e:
        print("mcfleet export: %s" % show(str(e)), file=sys.stderr)
        return 2


def export(a, passthrough):
    stdout_users = [o for o, v in (("--slurm", a.slurm), ("--prom", a.prom)) if v == "-"]
    if len(stdout_users) > 1 or (stdout_users and (a.drain_lines or a.drain or a.slurm_update)):
        raise Bad("only one output may go to standard output (-): %s" % ", ".join(
            stdout_users + [o for o, v in (("--drain-lines", a.drain_lines), ("--drain", a.drain),
                                           ("--slurm-update", a.slurm_update)) if v]))
    if not (a.slurm or a.slurm_update or a.prom or a.drain_lines or a.drain):
        raise Bad("nothing to do: give --slurm, --slurm-update, --prom, --drain-lines or --drain (--help)")
    if (a.slurm or a.slurm_update) and not a.study:
        raise Bad("--slurm and --slurm-update need --study STUDY.json (mcfleet study --format json)")
    if (a.drain_lines or a.drain) and not a.file:
        raise Bad("--drain-lines and --drain need the results file RUN.h5")
    if a.prom and not (a.file or a.study):
        raise Bad("--prom needs RUN.h5, --study STUDY.json or both")
    if passthrough and not a.file:
        raise Bad("unknown option%s %s" % ("s" if len(passthrough) > 1 else "", " ".join(passthrough)))
    for opt, path in (("--slurm", a.slurm), ("--prom", a.prom)):
        if path and path != "-":
            outpath.check(opt, path, a.force)   # before any work
    study = load_study(a.study) if a.study else None
    conf = None
    if a.slurm_conf:
        try:
            with open(a.slurm_conf, encoding="utf-8") as f:
                conf = f.read()
        except OSError as e:
            raise Bad("--slurm-conf %s: %s" % (show(a.slurm_conf), e.strerror or e))
    rep = units = None
    if a.file:
        r = creport.run(a.file, passthrough)
        if r.report is None or r.code == 2 or r.report.get("verdict") == "MALFORMED":
            sys.stderr.write(r.stderr or "mcfleet export: %s: the report found it malformed\n" % show(a.file))
            return 3 if r.report is None and r.code not in (1, 2) else 2
        rep = r.report
        if r.code == 3:
            print("mcfleet export: %s is an incomplete run (mcfleet report says which tests); its GPUs are still "
                  "judged" % show(a.file), file=sys.stderr)
        if a.prom:
            units = units_of(a.file)
    rc = 0
    try:
        if a.slurm:
            emit("--slurm", a.slurm, slurm_lines(study, conf, a.weight_kind), a.force)
        if a.slurm_update:
            current = slurm.conf_nodes(conf) if conf is not None else live_state()
            for line in slurm.update_commands(study, current, a.weight_kind):
                print(line)
        if a.prom:
            emit("--prom", a.prom, prometheus_text(study, rep, a.node, units), a.force)
    except OSError as e:
        print("mcfleet export: cannot write: %s" % (e.strerror or e), file=sys.stderr)
        return 3
    if a.drain_lines or a.drain:
        plan = drain_plan(rep, a.node)
        if a.drain_lines:
            for _, _, line in plan:
                print(line)
        elif run_drains(plan):
            return 3
        if not plan:
            print("mcfleet export: no GPU FAILs%s: nothing to drain" % (" on " + a.node if a.node else ""),
                  file=sys.stderr)
        rc = 1 if plan else 0
    return rc


def live_state():
    """the nodes' weights and features as slurmctld has them now, or None
    (then the commands carry ours alone, said)"""
    try:
        p = subprocess.run(["scontrol", "show", "node", "-o"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
        if p.returncode == 0:
            return slurm.live_nodes(p.stdout.decode("utf-8", "replace"))
    except (OSError, subprocess.SubprocessError):
        pass
    print("# mcfleet export: scontrol show node failed: AvailableFeatures below replace the nodes' own features "
          "(give --slurm-conf to keep them)")
    return None


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
