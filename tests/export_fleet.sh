#!/bin/sh
# The Prometheus textfiles sized for a scrape (docs/operations.md, "Prometheus"):
# a SIMULATED fleet of 2,000 GPUs on 250 nodes (tools/fleetsim.py from the
# H200 acceptance run of 2026-11-23: 11 tests), with a study JSON that
# classes every GPU in all six workload kinds (the most a study makes).
# --prom DIR writes one file per node; their series total at most 20 a GPU
# (4, a worst cause where there is one, 6 classes, and 7 a node: 11.0
# measured), and the fleet file (--fleet) at most 40 (with the 11 judged
# figures: 22.0); the counts written on standard error
# are the series there; every file parses with Prometheus' own parser
# (python3-prometheus-client); each node's file holds its 8 GPUs alone.
# The counts a GPU do not depend on the fleet's size: docs/operations.md
# has them measured at 10,000 GPUs.
. "$srcdir/tests/lib.sh"
need_h5py
"$PYTHON_H5" -c 'import prometheus_client.parser' 2>/dev/null ||
    { echo "SKIP: no Prometheus text parser (apt-get install python3-prometheus-client)"; exit 77; }
cd "$work"
"$PYTHON_H5" "$srcdir/tools/fleetsim.py" --template "$srcdir/docs/bench/2026-11-23-h200-acceptance/acc.h5" \
    -n 2000 -g 8 --seed 3 --degrade 17:10 -o f.h5 >sim 2>&1 || { cat sim; fail "fleetsim"; }
"$PYTHON_H5" - f.h5 study.json <<'PY' || fail "the study fixture"
import json, sys, h5py
f = h5py.File(sys.argv[1], "r")
nodes = [x.decode() for x in f["ranks/slurm_nodename"][:]]
gpus = [x.decode() for x in f["ranks/device_uuid"][:]]
kinds = ("matrix", "compute", "memory", "power", "link", "other")
classes = {}
for j, k in enumerate(kinds):
    cls = {g: ("B" if (i + j) % 7 == 0 else "A") for i, g in enumerate(gpus)}
    classes[k] = {"k": 2, "rule": "fixture", "noise": 0.5,
                  "classes": [{"name": "A", "n_gpus": 0, "centre": 0.0, "slowdown": 0.0},
                              {"name": "B", "n_gpus": 0, "centre": -3.0, "slowdown": 3.0}],
                  "gpus": {g: {"class": cls[g], "score": -3.0 if cls[g] == "B" else 0.1, "host": n}
                           for g, n in zip(gpus, nodes)},
                  "nodes": {n: {"class": "A", "score": 0.0} for n in nodes}}
    for g, n in zip(gpus, nodes):
        if cls[g] == "B":
            classes[k]["nodes"][n] = {"class": "B", "score": -3.0}
json.dump({"tool": "mcfleet study", "fixture": "tests/export_fleet.sh", "figures": [], "classes": classes},
          open(sys.argv[2], "w"), indent=1)
PY
mkdir nodes
"$MCFLEET" export f.h5 --study study.json --prom nodes >out 2>err || { cat err; fail "--prom DIR"; }
"$MCFLEET" export f.h5 --study study.json --prom fleet.prom --fleet >out 2>>err || { cat err; fail "--fleet"; }
"$PYTHON_H5" - nodes fleet.prom err <<'PY' || fail "the textfiles' sizes"
import os, re, sys
from prometheus_client.parser import text_string_to_metric_families
d, fleet, err = sys.argv[1:4]
def series(text):
    return [s for fam in text_string_to_metric_families(text) for s in fam.samples]
files = sorted(os.listdir(d))
assert len(files) == 250 and all(re.fullmatch(r"mcfleet-nid\d{6}\.prom", x) for x in files), files[:3]
total = 0
for x in files:
    s = series(open(os.path.join(d, x)).read())
    node = x[len("mcfleet-"):-len(".prom")]
    assert {v.labels["node"] for v in s} == {node}, (x, {v.labels["node"] for v in s})
    assert len({v.labels["gpu"] for v in s if "gpu" in v.labels}) == 8, x
    total += len(s)
f = series(open(fleet).read())
said = [int(m.group(1)) for m in re.finditer(r": (\d+) series for 2000 GPUs", open(err).read())]
print("per node: %d series, %.1f a GPU; the fleet: %d, %.1f a GPU" % (total, total / 2000, len(f), len(f) / 2000))
assert said == [total, len(f)], (said, total, len(f))
assert total <= 20 * 2000, total
assert len(f) <= 40 * 2000, len(f)
judged = [v for v in f if v.name.startswith("mcfleet_gpu_figure")]
assert len(judged) == 11 * 2000, len(judged)   # each test's judged figure, per GPU
PY
echo "export fleet ok"
