#!/usr/bin/env python3
"""mcfleet export: a run's verdict and a study's performance classes in the
forms operations use: Slurm node lines, Prometheus textfiles, drain commands.

  mcfleet export [RUN.h5] [--study STUDY.json] [--slurm FILE|-] [--slurm-conf CONF]
                 [--slurm-update] [--weight-kind KIND] [--prom DIR|FILE|-] [--fleet]
                 [--figures none|judged|all] [--drain-lines | --drain] [--node NAME] [--force]
                 [report options]

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

Prometheus (--prom), node_exporter textfiles written atomically, mode 0644:
  --prom DIR            one file per node, DIR/mcfleet-<node>.prom (the default
                        form: copy each to its node's textfile directory)
  --prom FILE --node N  node N's file alone (run on the node itself; with
                        --prom DIR, DIR/mcfleet-N.prom)
  --prom FILE --fleet   every node in one file, for a central node_exporter
A node's file holds its GPUs' verdict, causes and worst cause (RUN.h5), their
class per workload kind and the node's class and weight (--study): at most
5 + K series a GPU and K + 1 a node (K kinds classed, at most 6). The fleet
file adds each test's judged figure per GPU and the fleet's counts. --figures none|judged|all overrides (all: every
figure of every test, and the study's per-GPU medians). The series written
are counted on standard error.

Drain (RUN.h5): the verdict is the C report's (`mcfleet report RUN.h5
--format json`, with the report options given here, e.g. --profiles DIR).
--drain-lines prints, for each node with a GPU that FAILs, `scontrol update
NodeName=N State=DRAIN 'Reason=mcfleet: GPU <bus or uuid> <test> FAIL ...'`;
--drain runs them (an operator's choice, never the default) and says what
each scontrol answered. --node NAME limits them to one node.

Every node name given to Slurm, a shell or a file name is checked first
(1-64 letters, digits, '.', '_', '-', starting with a letter or digit): one
that is not is refused with exit 2, naming the file and line (or rank) it
came from, and nothing is written or run. Host lists of --slurm-conf are
matched without being expanded; a line that must be split is expanded
within 65536 names (docs/operations.md, "Node names").

Outputs are never overwritten without --force (and never a symlink, FIFO,
device or directory); - is standard output.

Exit codes: 0 done (with --drain-lines or --drain: no GPU FAILs); 1 with
--drain-lines or --drain: a node has a GPU that FAILs (its line printed, or it
was drained); 2 bad usage, a node name refused, a study, results or
slurm.conf file that cannot be used, an output refused; 3 an output that
cannot be written, a scontrol that failed, the mcfleet binary that cannot be
run.
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import mcfleet_creport as creport  # noqa: E402
import mcfleet_hostlist as hostlist  # noqa: E402
import mcfleet_outpath as outpath  # noqa: E402
import mcfleet_prom as prom  # noqa: E402
import mcfleet_slurm as slurm  # noqa: E402
from mcfleet_results import BadFile, Results, quiet_pipe, reading, show  # noqa: E402

Bad = slurm.Bad


# ---------------------------------------------------------------- where a node name came from
def json_line(text, name):
    """the first line of a JSON text that holds NAME as a string, or 0"""
    for form in (json.dumps(name), json.dumps(name, ensure_ascii=False)):
        at = text.find(form)
        if at >= 0:
            return text.count("\n", 0, at) + 1
    return 0


def study_where(path, text, study):
    """where(node): the study file and line naming NODE, and the input the
    study read it from where it says (its "node_names_refused")"""
    origin = {r.get("node"): r.get("from") for r in study.get("node_names_refused") or [] if isinstance(r, dict)}

    def where(node):
        line = json_line(text, node)
        at = "%s:%d" % (show(path), line) if line else show(path)
        return at + (" (from %s)" % show(origin[node]) if origin.get(node) else "")
    return where


def report_where(path, g):
    return "%s: rank %s's node (/ranks/slurm_nodename, else /ranks/hostname)" % (show(path), g.get("rank"))


# ---------------------------------------------------------------- Prometheus
def prom_files(a, study, rep, units, judged, where_study):
    """{node or None: text} of the textfiles asked for, and the GPUs they hold"""
    figures = a.figures or ("judged" if a.fleet else "none")
    files = prom.Files(node=a.node, per_node=a.per_node)
    if rep is not None:
        prom.from_report(files, rep, units or {}, judged or {}, figures)
    if study is not None:   # a study without classes: its figures alone
        weights = slurm.node_classes(study, where=where_study) if study.get("classes") else None
        prom.from_study(files, study, weights, figures)
    texts = files.texts()
    if a.per_node:   # every node of a file name passes the rule
        first = {}
        for g in (rep or {}).get("gpus", []):
            first.setdefault(prom.gpu_node(g), g)
        for n in texts:
            hostlist.check_name(n, lambda n=n: report_where(a.file, first[n]) if n in first else where_study(n))
    return texts, files.series()


def gpus_of(rep, study, node=None):
    """the GPUs the textfiles are about: the run's, else the study's ({(node, gpu)})"""
    if rep is not None:
        got = {(prom.gpu_node(g), i) for g, i in zip(rep.get("gpus", []), prom.gpu_ids(rep))}
    else:
        got = {(v.get("host", ""), gpu) for b in (study.get("classes") or {}).values()
               for gpu, v in (b.get("gpus") or {}).items()}
        got |= {(g.get("host", ""), g.get("gpu", "")) for f in study.get("figures", []) for g in f.get("gpus", [])}
    return {x for x in got if node is None or x[0] == node}


def prom_path(a, node):
    return os.path.join(a.prom, "mcfleet-%s.prom" % node) if a.per_node else a.prom


def judged_metrics(path):
    """({(test, metric): unit}, {test: its judged metric}) of a results file (in a child process)"""
    def read():
        r = Results(path)
        units, judged = {}, {}
        for name, gname, g in r.tests():
            metrics = [m for m in r.attr_text(g, gname, "summary_metrics").split(",") if m]
            judged[name] = r.summary_metric(g, gname)
            for m in metrics:
                units[(name, m)] = r.unit(g, gname, m)
        return units, judged
    return reading(path, read)


# ---------------------------------------------------------------- drains
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


def drain_plan(report, node=None, path="RUN.h5"):
    """[(node, scontrol words, the shell line)] for each node with a GPU
    that FAILs in the C report's JSON; every node name checked before any is
    returned (Bad naming the file and rank)"""
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
        args, line = slurm.drain_command(n, reason, report_where(path, gpus[0]))
        plan.append((n, args, line))
    return plan


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
    """(the study, where(node)) of mcfleet study's JSON"""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        study = json.loads(text)
    except (OSError, ValueError) as e:
        raise Bad("--study %s: %s" % (show(path), getattr(e, "strerror", None) or e))
    if not isinstance(study, dict) or not (isinstance(study.get("classes"), dict) or isinstance(study.get("figures"),
                                                                                                  list)):
        raise Bad("--study %s: not the JSON of mcfleet study (no \"classes\" or \"figures\")" % show(path))
    return study, study_where(path, text, study)


def read_conf(path):
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except (OSError, ValueError) as e:
        raise Bad("--slurm-conf %s: %s" % (show(path), getattr(e, "strerror", None) or e))


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
    ap.add_argument("--prom", metavar="DIR|FILE", help="Prometheus textfiles: a directory (one file per node), or "
                    "FILE with --node or --fleet (- for standard output)")
    ap.add_argument("--fleet", action="store_true", help="--prom FILE holds every node (a central node_exporter)")
    ap.add_argument("--figures", choices=prom.FIGURES, help="per-test figures in the textfiles (default: none in a "
                    "node's file, judged in the fleet's)")
    g = ap.add_mutually_exclusive_group()
    g.add_argument("--drain-lines", action="store_true", help="print a drain command per node with a FAIL GPU")
    g.add_argument("--drain", action="store_true", help="run those drain commands (scontrol)")
    ap.add_argument("--node", metavar="NAME", help="one node's textfile and drain only")
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


def check_usage(a, passthrough):
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
    if (a.fleet or a.figures) and not a.prom:
        raise Bad("--fleet and --figures go with --prom")
    if a.prom and a.fleet and a.node:
        raise Bad("--fleet and --node: one file holds the fleet or one node, not both")
    a.per_node = a.prom not in (None, "-") and os.path.isdir(a.prom)   # --prom DIR: one file per node
    if a.prom and not (a.fleet or a.node or a.per_node):
        raise Bad("--prom %s: give a directory (one file per node, mcfleet-<node>.prom), --node NAME (that node's "
                  "file, as node_exporter is deployed) or --fleet (every node in one file)" % show(a.prom))
    if a.per_node and a.fleet:
        raise Bad("--prom %s is a directory: --fleet writes one file (give its path)" % show(a.prom))
    if passthrough and not a.file:
        raise Bad("unknown option%s %s" % ("s" if len(passthrough) > 1 else "", " ".join(passthrough)))
    if a.node is not None:
        hostlist.check_name(a.node, "--node")
    if a.prom and os.path.islink(a.prom):
        raise outpath.Refused("--prom '%s' is a symlink: mcfleet never writes through one (give the directory or "
                              "file it points to)" % show(a.prom))
    for opt, path in (("--slurm", a.slurm), ("--prom", a.prom)):
        if path and path != "-" and not (opt == "--prom" and a.per_node):
            outpath.check(opt, path, a.force)   # before any work


def export(a, passthrough):
    """reads the inputs, computes every output (a refused name or line
    writes nothing), then writes them; the exit code"""
    check_usage(a, passthrough)
    got = read_inputs(a, passthrough)
    if isinstance(got, int):
        return got
    return write_outputs(a, got, compute_outputs(a, got))


def read_inputs(a, passthrough):
    """the study (and where its names are), the site's slurm.conf, the C
    report's JSON and the run's judged metrics; or the exit code where the
    report could not read the run"""
    got = argparse.Namespace(study=None, where=None, conf=None, conf_name=None, rep=None, units=None, judged=None)
    if a.study:
        got.study, got.where = load_study(a.study)
    if a.slurm_conf:
        got.conf, got.conf_name = read_conf(a.slurm_conf), show(a.slurm_conf)
    if a.file:
        r = creport.run(a.file, passthrough)
        if r.report is None or r.code == 2 or r.report.get("verdict") == "MALFORMED":
            sys.stderr.write(r.stderr or "mcfleet export: %s: the report found it malformed\n" % show(a.file))
            return 3 if r.report is None and r.code not in (1, 2) else 2
        got.rep = r.report
        if r.code == 3:
            print("mcfleet export: %s is an incomplete run (mcfleet report says which tests); its GPUs are still "
                  "judged" % show(a.file), file=sys.stderr)
        if a.prom:
            got.units, got.judged = judged_metrics(a.file)
    return got


def compute_outputs(a, got):
    """every output's text, before any is written: Bad where a name or a
    host list is refused"""
    out = argparse.Namespace(slurm=None, updates=None, prom=None, nseries=0, plan=None)
    nodes = slurm.node_classes(got.study, a.weight_kind, got.where) if a.slurm or a.slurm_update else None
    if a.slurm:
        if got.conf is None:
            out.slurm = slurm.fragment_lines(nodes, a.weight_kind)
        else:
            text, notes = slurm.merge(nodes, got.conf, got.conf_name)
            if notes:
                text = text.rstrip("\n") + "\n" + "".join("# mcfleet export: %s\n" % n for n in notes)
            out.slurm = text if text.endswith("\n") else text + "\n"
    if a.slurm_update:
        current, note = (slurm.conf_nodes(got.conf, nodes, got.conf_name), None) if got.conf is not None \
            else live_state()
        out.updates = ([note] if note else []) + slurm.update_commands(nodes, current)
    if a.prom:
        out.prom, out.nseries = prom_files(a, got.study, got.rep, got.units, got.judged, got.where)
        if a.per_node:
            for n in out.prom:
                outpath.check("--prom", prom_path(a, n), a.force)
    if a.drain_lines or a.drain:
        out.plan = drain_plan(got.rep, a.node, a.file)
    return out


def write_outputs(a, got, out):
    """writes, prints or runs what compute_outputs made; the exit code"""
    try:
        if out.slurm is not None:
            emit("--slurm", a.slurm, out.slurm, a.force)
        for line in out.updates or []:
            print(line)
        if out.prom is not None:
            write_prom(a, out.prom, out.nseries, got.rep, got.study)
    except OSError as e:
        print("mcfleet export: cannot write: %s" % (e.strerror or e), file=sys.stderr)
        return 3
    if out.plan is None:
        return 0
    if a.drain_lines:
        for _, _, line in out.plan:
            print(line)
    elif run_drains(out.plan):
        return 3
    if not out.plan:
        print("mcfleet export: no GPU FAILs%s: nothing to drain" % (" on " + a.node if a.node else ""),
              file=sys.stderr)
    return 1 if out.plan else 0


def emit(option, path, text, force):
    if path == "-":
        sys.stdout.write(text)
        return
    outpath.write(option, path, force, lambda f: f.write(text))
    print("wrote %s" % show(path), file=sys.stderr)


def write_prom(a, texts, nseries, rep, study):
    for node, text in sorted(texts.items(), key=lambda x: x[0] or ""):
        if a.prom == "-":
            sys.stdout.write(text)
        else:
            prom.write(prom_path(a, node), text, a.force)
    ngpus = len(gpus_of(rep, study, a.node))
    if not texts:
        print("mcfleet export: no GPU of node %s in the run or the study: no file written in %s"
              % (a.node, show(a.prom)), file=sys.stderr)
        return
    where = "standard output" if a.prom == "-" else show(a.prom) if None in texts else \
        "%d file%s in %s" % (len(texts), "" if len(texts) == 1 else "s", show(a.prom))
    print("wrote %s: %d series%s" % (where, nseries, " for %d GPUs (%.1f a GPU)" % (ngpus, nseries / ngpus)
                                     if ngpus else ""), file=sys.stderr)


def live_state():
    """(the nodes' weights and features as slurmctld has them now, None),
    or (None, a comment line saying the commands carry ours alone)"""
    try:
        p = subprocess.run(["scontrol", "show", "node", "-o"], stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, timeout=60)
        if p.returncode == 0:
            return slurm.live_nodes(p.stdout.decode("utf-8", "replace")), None
    except (OSError, subprocess.SubprocessError):
        pass
    return None, ("# mcfleet export: scontrol show node failed: AvailableFeatures below replace the nodes' own "
                  "features (give --slurm-conf to keep them)")


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
