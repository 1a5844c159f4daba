#!/bin/bash
# mcfleet export --prom and --drain-lines (docs/operations.md):
# 1. the study fixture (tests/data/study-fixture.json) as the fleet's
#    textfile with every figure (--fleet --figures all): it parses with
#    Prometheus' own text parser (Debian's python3-prometheus-client), every
#    family has HELP and TYPE, names and labels follow Prometheus' rules, each
#    study median is there in base units (GFLOP/s x 1e9 as
#    ..._flop_per_second, ns x 1e-9 as ..._seconds), each GPU's score with
#    its class and each node's Slurm weight (1 + round(10 x slowdown %)); a
#    label value with a quote, a backslash and a newline reads back as it
#    was; without --figures all, no study medians;
# 2. the write is atomic: an existing file is refused without --force, with
#    --force replaced whole, mode 0644 under umask 077, no temporary file left;
#    --prom FILE alone (neither --node nor --fleet) is refused, exit 2;
# 3. a host run with a wrong result on rank 1: per-GPU verdict gauges (2 for
#    the FAIL), FAIL causes and the worst cause with its rule and test; the
#    fleet file carries each test's judged figure only (--figures all: every
#    figure); --node keeping one node's series, without figures; --prom DIR
#    one file per node (mcfleet-<node>.prom), holding the same series as
#    --node; --drain-lines prints one `scontrol update ... State=DRAIN
#    'Reason=mcfleet: ...'` naming the GPU and the test, exit 1; a healthy
#    run prints none, exit 0.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
"${PYTHON_H5:-/usr/bin/python3}" -c 'import prometheus_client.parser' 2>/dev/null ||
    { echo "SKIP: no Prometheus text parser (apt-get install python3-prometheus-client)"; exit 77; }
PY=${PYTHON_H5:-/usr/bin/python3}
study="$srcdir/tests/data/study-fixture.json"
cd "$work"

# ---- 1. the study's textfile
"$MCFLEET" export --study "$study" --prom study.prom --fleet --figures all >out 2>&1 ||
    { cat out; fail "export --prom: exit $?"; }
expect_in out "wrote study.prom: "
"$PY" - study.prom "$study" <<'PY' || fail "the study's textfile"
import json, math, re, sys
from prometheus_client.parser import text_string_to_metric_families
text = open(sys.argv[1]).read()
study = json.load(open(sys.argv[2]))
fams = {f.name: f for f in text_string_to_metric_families(text)}
assert fams, "nothing parsed"
name_ok = re.compile(r"[a-zA-Z_:][a-zA-Z0-9_:]*$")
for name, f in fams.items():
    assert name.startswith("mcfleet_") and name_ok.match(name), name
    assert "# HELP %s " % name in text and "# TYPE %s gauge" % name in text, name
    for s in f.samples:
        assert all(re.match(r"[a-zA-Z_][a-zA-Z0-9_]*$", k) and not k.startswith("__") for k in s.labels), s
        assert math.isfinite(s.value), s
def sample(name, **labels):
    got = [s for s in fams[name].samples if all(s.labels.get(k) == v for k, v in labels.items())]
    assert len(got) == 1, (name, labels, got)
    return got[0].value
scale = {"GFLOP/s": ("flop_per_second", 1e9), "GB/s": ("bytes_per_second", 1e9), "ns": ("seconds", 1e-9)}
n = 0
for fig in study["figures"]:
    suffix, factor = scale[fig["unit"]]
    for g in fig["gpus"]:
        v = sample("mcfleet_study_figure_" + suffix, gpu=g["gpu"], node=g["host"], test=fig["test"],
                   metric=fig["metric"])
        assert math.isclose(v, g["median"] * factor, rel_tol=1e-12), (fig["test"], g, v)
        n += 1
assert n == 24, n
for kind, block in study["classes"].items():
    for gpu, c in block["gpus"].items():
        assert math.isclose(sample("mcfleet_gpu_class_score_ratio", gpu=gpu, kind=kind, **{"class": c["class"]}),
                            c["score"] / 100)
    for node, c in block["nodes"].items():
        assert sample("mcfleet_node_class", node=node, kind=kind, **{"class": c["class"]}) == 1
# weight = 1 + round(10 x the node's largest class slowdown in percent)
assert {s.labels["node"]: s.value for s in fams["mcfleet_node_slurm_weight"].samples} == \
    {"n1": 1, "n2": 44, "n3": 33, "n4": 68}, fams["mcfleet_node_slurm_weight"].samples
PY
# a label value that needs escaping reads back as it was
"$PY" - "$study" weird.json <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))
s["figures"][0]["gpus"][0]["host"] = 'we"ird\\node\nx'
json.dump(s, open(sys.argv[2], "w"))
PY
"$MCFLEET" export --study weird.json --prom weird.prom --fleet --figures all >out 2>&1 ||
    { cat out; fail "export of weird.json"; }
"$PY" - weird.prom <<'PY' || fail "label escaping"
import sys
from prometheus_client.parser import text_string_to_metric_families
hosts = {s.labels.get("node") for f in text_string_to_metric_families(open(sys.argv[1]).read()) for s in f.samples}
assert 'we"ird\\node\nx' in hosts, hosts
PY

# ---- 2. atomic: refused without --force, replaced whole with it, 0644, no temporary file
mkdir d && head -c 300000 /dev/urandom | base64 >d/m.prom && cp d/m.prom old
rc=0; "$MCFLEET" export --study "$study" --prom d/m.prom --fleet --figures all >out 2>&1 || rc=$?
[ $rc = 2 ] || { cat out; fail "an existing --prom without --force: exit $rc, expected 2"; }
expect_in out "exists"
cmp -s d/m.prom old || fail "a refused --prom changed the file"
(umask 077 && "$MCFLEET" export --study "$study" --prom d/m.prom --fleet --figures all --force) >out 2>&1 ||
    { cat out; fail "--force"; }
cmp -s d/m.prom study.prom || fail "the file was not replaced whole by the new text"
[ "$(stat -c %a d/m.prom)" = 644 ] || fail "mode $(stat -c %a d/m.prom), expected 644 (node_exporter reads it)"
[ "$(ls -A d)" = m.prom ] || fail "left in the directory: $(ls -A d)"
rc=0; "$MCFLEET" export --study "$study" --prom other.prom >out 2>&1 || rc=$?
[ $rc = 2 ] && [ ! -e other.prom ] || { cat out; fail "--prom FILE without --node or --fleet: exit $rc"; }
expect_in out "give a directory (one file per node"
"$MCFLEET" export --study "$study" --prom plain.prom --fleet >out 2>&1 || { cat out; fail "--fleet"; }
! grep -q '^mcfleet_study_figure' plain.prom || fail "the study's medians without --figures all"

# ---- 3. a run: verdicts, figures, one node, drain lines
MCFLEET_INJECT_FAULT='tiny-triad@1' SLURMD_NODENAME=n3 mpi 2 --backend host --deck "$srcdir/tests/decks/tiny.yaml" -o bad.h5
expect_rc 1
"$MCFLEET" export bad.h5 --study "$study" --prom run.prom --fleet >out 2>&1 || { cat out; fail "export of a run"; }
"$MCFLEET" export bad.h5 --prom all.prom --fleet --figures all >out 2>&1 || { cat out; fail "--figures all"; }
"$MCFLEET" export bad.h5 --prom n3.prom --node n3 >out 2>&1 || { cat out; fail "export --node"; }
mkdir per-node
"$MCFLEET" export bad.h5 --prom per-node >out 2>&1 || { cat out; fail "export --prom DIR"; }
expect_in out "wrote 1 file in per-node: "
[ "$(ls per-node)" = mcfleet-n3.prom ] || fail "per-node: $(ls per-node)"
cmp -s per-node/mcfleet-n3.prom n3.prom || fail "the node's file in DIR differs from --node's"
"$PY" - run.prom n3.prom all.prom "$work/bad.h5" <<'PY' || fail "the run's textfile"
import sys
from prometheus_client.parser import text_string_to_metric_families
fams = {f.name: f for f in text_string_to_metric_families(open(sys.argv[1]).read())}
v = {s.labels["gpu"]: s.value for s in fams["mcfleet_gpu_verdict"].samples}
assert len(v) == 2 and sorted(v.values())[-1] == 2, v            # rank 1 FAILs
bad = [g for g, x in v.items() if x == 2][0]
assert bad.endswith("#local1"), bad                               # the host backend's GPU: machine + local rank
assert all(s.labels["node"] == "n3" for s in fams["mcfleet_gpu_verdict"].samples)
flops = [s for s in fams["mcfleet_gpu_figure_flop_per_second"].samples if s.labels["test"] == "tiny-valu"]
assert len(flops) == 2 and all(s.value > 1e6 for s in flops), flops   # GFLOP/s in FLOP/s
worst = fams["mcfleet_gpu_worst_cause_deviation_ratio"].samples if "mcfleet_gpu_worst_cause_deviation_ratio" in fams \
    else []
assert all(s.labels["gpu"] == bad or s.labels["level"] == "WARN" for s in worst), worst
assert {s.labels["gpu"]: s.value for s in fams["mcfleet_gpu_fail_causes"].samples}[bad] >= 1
# the fleet file: each test's judged metric (its first summary metric) alone; --figures all: every one
import h5py
f = h5py.File(sys.argv[4], "r")
judged = {t: f["results"][t].attrs["summary_metrics"].decode().split(",")[0] for t in f["results"]}
figs = [s for name, x in fams.items() if name.startswith("mcfleet_gpu_figure") for s in x.samples]
assert figs and all(judged[s.labels["test"]] == s.labels["metric"] for s in figs), figs
every = {f.name: f for f in text_string_to_metric_families(open(sys.argv[3]).read())}
allfigs = [s for name, x in every.items() if name.startswith("mcfleet_gpu_figure") for s in x.samples]
# (the host backend's tests judge one metric each: all = judged here; the study's medians show the difference)
assert {(s.labels["test"], s.labels["metric"]) for s in figs} <= \
    {(s.labels["test"], s.labels["metric"]) for s in allfigs}, (len(figs), len(allfigs))
assert "mcfleet_study_figure_flop_per_second" not in fams and "mcfleet_node_slurm_weight" in fams
one = {f.name: f for f in text_string_to_metric_families(open(sys.argv[2]).read())}
nodes = {s.labels.get("node") for f in one.values() for s in f.samples}
assert nodes == {"n3"}, nodes
assert not any(n.startswith("mcfleet_study") for n in one), "no study given, none of its series"
assert not any(n.startswith("mcfleet_gpu_figure") for n in one), "a node's file carries no figures by default"
assert "mcfleet_run_gpus" not in one, "fleet-wide series in a node's file"
PY
rc=0; "$MCFLEET" export bad.h5 --drain-lines >lines 2>err || rc=$?
[ $rc = 1 ] || { cat lines err; fail "--drain-lines of a FAIL: exit $rc, expected 1"; }
[ "$(wc -l <lines)" = 1 ] || { cat lines; fail "one drain line expected"; }
grep -qE "^scontrol update NodeName=n3 State=DRAIN 'Reason=mcfleet: GPU machine-id:[0-9a-f]+#local1 tiny-triad FAIL wrong results'\$" lines ||
    { cat lines; fail "the drain line"; }
rc=0; "$MCFLEET" export bad.h5 --drain-lines --node n9 >lines 2>err || rc=$?
[ $rc = 0 ] && [ ! -s lines ] || { cat lines err; fail "--drain-lines --node n9: exit $rc"; }
rc=0; "$MCFLEET" export --study "$study" >out 2>&1 || rc=$?
[ $rc = 2 ] || { cat out; fail "nothing to do: exit $rc, expected 2"; }
echo "export prom ok"
