"""Prometheus' text format for node_exporter's textfile collector
(docs/operations.md): metric families with HELP and TYPE lines, names by
Prometheus' rules (the mcfleet_ prefix, base units: a figure in GFLOP/s is
exported in FLOP/s as mcfleet_gpu_figure_flop_per_second, GB/s as
..._bytes_per_second, ns as ..._seconds, MHz as ..._hertz), label values
escaped (backslash, double quote, newline), each family's samples together.

write() puts the file in place atomically: a temporary file in the same
directory (named .NAME.XXXX.tmp: the collector reads *.prom only), written,
fsync'ed, mode 0644 whatever the umask (node_exporter runs as another user),
then renamed over the old file, so a scrape sees the old file or the new one,
never half of one.
"""
import math
import re

import mcfleet_outpath as outpath
from mcfleet_results import gpu_keys

# unit -> (name suffix, factor to the base unit)
UNITS = {
    "GFLOP/s": ("flop_per_second", 1e9), "TFLOP/s": ("flop_per_second", 1e12), "FLOP/s": ("flop_per_second", 1.0),
    "GB/s": ("bytes_per_second", 1e9), "MB/s": ("bytes_per_second", 1e6), "B/s": ("bytes_per_second", 1.0),
    "s": ("seconds", 1.0), "ms": ("seconds", 1e-3), "us": ("seconds", 1e-6), "ns": ("seconds", 1e-9),
    "MHz": ("hertz", 1e6), "GHz": ("hertz", 1e9), "Hz": ("hertz", 1.0),
    "W": ("watts", 1.0), "J": ("joules", 1.0), "C": ("celsius", 1.0), "%": ("ratio", 0.01),
    "cycles": ("cycles", 1.0), "FLOP/byte": ("flop_per_byte", 1.0),
}
VERDICT_CODE = {"PASS": 0, "WARN": 1, "FAIL": 2}


def unit_name(unit):
    """(metric name suffix, factor): a unit the table lacks keeps its value
    under the plain name, the unit as a label"""
    return UNITS.get(unit, ("", 1.0))


def escape(value):
    return str(value).replace("\\", "\\\\").replace("\n", "\\n").replace('"', '\\"')


def valid_name(name):
    return re.fullmatch(r"[a-zA-Z_:][a-zA-Z0-9_:]*", name) is not None


class Families:
    """metric families in the order first added; each sample once"""

    def __init__(self):
        self.fam = {}

    def add(self, name, help_text, labels, value, kind="gauge"):
        if value is None or not isinstance(value, (int, float)) or not math.isfinite(value):
            return
        assert valid_name(name), name
        f = self.fam.setdefault(name, {"help": help_text, "type": kind, "samples": {}})
        key = tuple(sorted((k, str(v)) for k, v in labels.items() if v is not None))
        f["samples"][key] = float(value)

    def text(self):
        out = []
        for name, f in self.fam.items():
            out.append("# HELP %s %s" % (name, f["help"].replace("\\", "\\\\").replace("\n", " ")))
            out.append("# TYPE %s %s" % (name, f["type"]))
            for key, v in sorted(f["samples"].items()):
                lab = ",".join('%s="%s"' % (k, escape(x)) for k, x in key)
                out.append("%s%s %s" % (name, "{%s}" % lab if lab else "", repr(v) if v != int(v) or abs(v) >= 1e15
                                        else str(int(v))))
        return "\n".join(out) + "\n" if out else ""


def figure(fams, prefix, what, node, gpu, test, metric, unit, value):
    suffix, factor = unit_name(unit)
    name = "%s_%s" % (prefix, suffix) if suffix else prefix
    help_text = "%s, in %s%s (labels: test, metric)" % (
        what, suffix.replace("_", " ") if suffix else "the unit of the unit label",
        "" if not suffix or factor == 1 else " (converted from %s)" % unit)
    labels = {"node": node, "gpu": gpu, "test": test, "metric": metric}
    if not suffix:
        labels["unit"] = unit
    fams.add(name, help_text, labels, None if value is None else value * factor)


def gpu_node(g):
    """a report GPU's node: the Slurm node name where the run recorded one, else its host name"""
    return g.get("slurm_nodename") or g.get("host") or ""


def gpu_ids(rep):
    """each report GPU's identity, as mcfleet compare matches GPUs (its UUID,
    else its serial; the local rank added where ranks share one, as the host
    backend's do), else rank<k>"""
    gpus = rep.get("gpus", [])
    return gpu_keys([g.get("uuid") or "" for g in gpus], [g.get("serial") or "" for g in gpus],
                    [g.get("local_rank", -1) for g in gpus])


FIGURES = ("none", "judged", "all")   # which per-test figures a file carries (docs/operations.md)


class Files:
    """the textfiles being filled: one (the fleet's, or one node's: NODE), or
    one per node (per_node). of(node) is the Families a node's series go to,
    None where they go nowhere; fleet is the Families of fleet-wide series
    (None in per-node files and in one node's)"""

    def __init__(self, node=None, per_node=False):
        self.node, self.per_node = node, per_node
        self.files = {}
        self.one = None if per_node else Families()
        self.fleet = self.one if node is None and not per_node else None

    def of(self, node):
        if self.node is not None and node != self.node:
            return None
        return self.files.setdefault(node, Families()) if self.per_node else self.one

    def texts(self):
        """{node: text} per node, else {None: text}"""
        if self.per_node:
            return {n: f.text() for n, f in self.files.items()}
        return {None: self.one.text()}

    def series(self):
        fams = list(self.files.values()) if self.per_node else [self.one]
        return sum(len(f["samples"]) for x in fams for f in x.fam.values())


def from_report(files, rep, units, judged, figures="judged"):
    """the run's GPUs (the C report's JSON): identity, verdict, causes, the
    report's worst cause, and the per-test figures FIGURES asks for ("judged":
    each test's judged metric, {test: metric} in JUDGED; "all": every one).
    units: {(test, metric): unit} from the file"""
    for g, gpu in zip(rep.get("gpus", []), gpu_ids(rep)):
        n = gpu_node(g)
        fams = files.of(n)
        if fams is None:
            continue
        lab = {"node": n, "gpu": gpu}
        fams.add("mcfleet_gpu_info", "a GPU of the run: 1, its PCI bus, name and rank as labels",
                 dict(lab, bus=g.get("pci_bus_id", ""), name=g.get("device_name", ""), rank=g.get("rank")), 1)
        if g.get("verdict") in VERDICT_CODE:
            fams.add("mcfleet_gpu_verdict", "the GPU's acceptance verdict (mcfleet report): 0 PASS, 1 WARN, 2 FAIL",
                     lab, VERDICT_CODE[g["verdict"]])
        causes = g.get("causes", [])
        for level in ("FAIL", "WARN"):
            fams.add("mcfleet_gpu_%s_causes" % level.lower(), "how many rules the GPU %ss (mcfleet report)"
                     % level, lab, sum(1 for c in causes if c.get("level") == level))
        worst = next((c for c in causes if c.get("level") in ("FAIL", "WARN")
                      and isinstance(c.get("deviation"), (int, float))), None)
        if worst is not None:   # the report's own order: worst first
            fams.add("mcfleet_gpu_worst_cause_deviation_ratio", "the GPU's worst cause (mcfleet report): its "
                     "deviation from the reference (-0.12: 12 % below), the rule, test and whose fault as labels",
                     dict(lab, level=worst["level"], rule=worst.get("rule", ""), test=worst.get("test", ""),
                          metric=worst.get("metric", ""), attribution=worst.get("attribution", "")),
                     worst["deviation"])
        if figures == "none":
            continue
        for key, v in sorted((g.get("figures") or {}).items()):
            test, _, metric = key.partition(" ")
            if figures == "judged" and judged.get(test) != metric:
                continue
            figure(fams, "mcfleet_gpu_figure", "the GPU's figure in the run (the median of its repetitions)", n, gpu,
                   test, metric, units.get((test, metric), ""), v)
    if files.fleet is not None:
        counts = rep.get("counts") or {}
        for k in ("pass", "warn", "fail"):
            files.fleet.add("mcfleet_run_gpus", "GPUs of the run by verdict", {"verdict": k.upper()}, counts.get(k))


def from_study(files, study, weights=None, figures="judged"):
    """the study's classes (each GPU's score and class per workload kind, each
    node's class and Slurm weight), and with figures "all" its per-GPU medians"""
    if figures == "all":
        for f in study.get("figures", []):
            for g in f.get("gpus", []):
                fams = files.of(g.get("host", ""))
                if fams is not None:
                    figure(fams, "mcfleet_study_figure", "the GPU's median over the study's runs", g.get("host", ""),
                           g.get("gpu", ""), f.get("test", ""), f.get("metric", ""), f.get("unit", ""),
                           g.get("median"))
    for kind, block in sorted((study.get("classes") or {}).items()):
        for c in block.get("classes", []) if files.fleet is not None else []:
            files.fleet.add("mcfleet_class_slowdown_ratio", "a performance class's slowdown behind the best class of "
                            "its kind (0.03: 3 % slower)", {"kind": kind, "class": c.get("name")},
                            None if c.get("slowdown") is None else c["slowdown"] / 100.0)
            files.fleet.add("mcfleet_class_gpus", "GPUs in a performance class", {"kind": kind, "class": c.get("name")},
                            c.get("n_gpus"))
        for gpu, v in sorted((block.get("gpus") or {}).items()):
            fams = files.of(v.get("host", ""))
            if fams is not None:
                fams.add("mcfleet_gpu_class_score_ratio", "the GPU's score of a workload kind against the fleet median "
                         "(log ratio; -0.03: about 3 % slower), its performance class as a label",
                         {"node": v.get("host", ""), "gpu": gpu, "kind": kind, "class": v.get("class")},
                         None if v.get("score") is None else v["score"] / 100.0)
        for n, v in sorted((block.get("nodes") or {}).items()):
            fams = files.of(n)
            if fams is not None:
                fams.add("mcfleet_node_class", "the node's performance class of a workload kind (its slowest GPU's): "
                         "1, the class as a label", {"node": n, "kind": kind, "class": v.get("class")}, 1)
    for n, r in sorted((weights or {}).items()):
        fams = files.of(n)
        if fams is not None:
            fams.add("mcfleet_node_slurm_weight", "the node's Slurm Weight from its classes (lower is allocated "
                     "first; docs/operations.md)", {"node": n}, r["weight"])


def write(path, text, force=True):
    """PATH replaced atomically by TEXT, mode 0644 (see the module); Refused
    or OSError as mcfleet_outpath.write"""
    outpath.write("--prom", path, force, lambda f: f.write(text), mode=0o644)
