#!/bin/sh
# The study recovers planted structure (issue 30): synthetic fleets of 48
# nodes in 6 cabinets (HPE Cray xnames), 192 GPUs, 3 runs, whose repetition
# noise is real (each GPU's repetitions in a results file measured on the
# device, resampled; tests/study_fleet.py): two fleets on 2 x H200
# repetitions, one on 2 x H100's (heavier-tailed: one H100's fp16 scatters
# by 1 %) with a chassis effect planted too and one node per slot, one
# measured node by node (a run per node: GPU and run merged), and a null
# fleet. First the fleets themselves are checked without the study
# (numpy on the table, h5py on the source): the slow cabinet is 3 % slow
# where planted, the repetitions scatter as the source's do. Then the study
# must find every planted level's sd inside its 95 % interval (a level
# merged with the ones it cannot be told from holds their sum), its
# repetition level as the real data's spread, name the planted cabinet and
# no other (its deviation's interval holding -3 %), find the clock's planted
# effect (15 MHz per percent: 6.67 % per 100 MHz, diluted by the clock's
# 2 MHz of noise to about 6.2) and none in the temperature, and put the slow cabinet's GPUs in a slower class; in the
# null fleet no cabinet stands out, and the memory figure, planted without
# the cabinet, has one class. tests/study_coverage.py runs many seeds: how
# often each check holds (docs/study-bench.md).
. "$srcdir/tests/lib.sh"
need_h5py
h200="$srcdir/docs/bench/2026-11-26-x2-disturbed/run1-clean.h5"
h100="$srcdir/docs/bench/2026-11-25-h100x2-fleet/run1-acceptance.h5"
gen() { "$PYTHON_H5" "$srcdir/tests/study_fleet.py" "$@" || fail "generator: $*"; }
gen "$h200" -o "$work/fleet1.csv" --seed 1
gen "$h200" -o "$work/fleet2.csv" --seed 2
gen "$h100" -o "$work/fleet3.csv" --seed 4 --chassis-sd 0.6 --slots 4 --nodes 1
gen "$h200" -o "$work/bynode.csv" --seed 5 --runs 1 --run-per-node
gen "$h200" -o "$work/null.csv" --seed 3 --slow 0
# the same seed, the same fleet
gen "$h200" -o "$work/again.csv" --seed 1
cmp -s "$work/fleet1.csv" "$work/again.csv" || fail "the generator is not deterministic given its seed"

# the fleets as planted, by numpy alone: the study is not trusted to check its own input
"$PYTHON_H5" - "$work" "$h200" "$h100" <<'PY' || fail "the synthetic fleets are not what was planted"
import csv, json, sys
import h5py, numpy as np
w, src = sys.argv[1], {"h200": sys.argv[2], "h100": sys.argv[3]}
def real_sd(path, test, metric):   # the source's repetitions, each relative to its rank's median
    with h5py.File(path, "r") as f:
        v = f["results"][test][metric][()].astype(float)
    rel = 100 * np.log(v / np.median(v, axis=1, keepdims=True))
    return np.std(rel, ddof=1)
for name, source in (("fleet1", "h200"), ("fleet3", "h100"), ("null", "h200")):
    path = "%s/%s.csv" % (w, name)
    lines = open(path).read().splitlines()
    truth = json.loads(next(l for l in lines if l.startswith("# planted: "))[len("# planted: "):])
    rows = list(csv.DictReader(l for l in lines if not l.startswith("#")))
    for test, t in truth["figures"].items():
        r = [x for x in rows if x["test"] == test]
        y = 100 * np.log(np.array([float(x["value"]) for x in r]))
        cell = np.unique(["%s/%s" % (x["gpu"], x["run"]) for x in r], return_inverse=True)[1]
        resid = y - (np.bincount(cell, y) / np.bincount(cell))[cell]
        rep = np.sqrt((resid ** 2).sum() / (y.size - cell.max() - 1))
        want = real_sd(src[source], test, t["metric"])
        assert abs(rep / want - 1) < 0.1, (name, test, "repetitions", rep, want)
        cab = np.array([x["host"][1:5] for x in r])
        med = {c: np.median(y[cab == c]) for c in set(cab)}
        slow = med.pop(truth["slow_cabinet"]) - np.median(list(med.values()))
        planted = truth["slow"] if t["slow_here"] else 0.0
        # the cabinet's median moves with its chassis' and nodes' draws too (sd about 0.5 with chassis)
        assert abs(slow - planted) < 1.5, (name, test, "slow cabinet", slow, planted)
        assert t["slow_here"] == (truth["slow"] != 0 and t["kind"] in truth["slow_kinds"]), (name, test)
PY

for f in fleet1 fleet2 fleet3 bynode null; do
    "$MCFLEET" study "$work/$f.csv" --format json -o "$work/$f.json" || fail "study of $f"
done
"$PYTHON_H5" - "$work" <<'PY' || fail "planted structure not recovered"
import json, sys
w = sys.argv[1]
def planted(path):
    for line in open(path):
        if line.startswith("# planted: "):
            return json.loads(line[len("# planted: "):])
def truth_sd(t, level):   # a merged level ("slot+board") holds the sum of its parts' variances
    return sum(t["sd"].get(p, 0.0) ** 2 for p in level.split("+")) ** 0.5
levels = {"fleet1": ["cabinet", "chassis", "slot+board", "node", "gpu", "run", "repetition"],
          "fleet3": ["cabinet", "chassis", "slot+board+node", "gpu", "run", "repetition"]}
levels["fleet2"] = levels["fleet1"]
# each node measured in a run of its own: a GPU's run is its GPU (merged)
levels["bynode"] = ["cabinet", "chassis", "slot+board", "node", "gpu+run", "repetition"]
for name in ("fleet1", "fleet2", "fleet3", "bynode"):
    # fleet3's chassis effect makes a cabinet's nodes share more than their cabinet; the cabinet
    # test takes that in (a design effect) and so has less power: over 100 seeds
    # (docs/bench/2026-11-28-issue30/study-bench/coverage-chassis.txt) the slow cabinet is named
    # in 75-76 of 100 (alone in all but one); its deviation's interval holds -3 % in 86-90; a cabinet is
    # named in the memory figure (none planted) in 2; the slope's interval holds the planted one
    # in 88-95; the chassis' draws are real structure the memory classes may split. Those are
    # not asserted there: the levels, no wrong cabinet, the design effect, the correlations are.
    strict = name != "fleet3"
    truth = planted("%s/%s.csv" % (w, name))
    res = json.load(open("%s/%s.json" % (w, name)))
    assert res["location"]["levels"] == ["cabinet", "chassis", "slot", "board"], res["location"]
    assert sorted(f["test"] for f in res["figures"]) == sorted(truth["figures"]), res["figures"]
    for f in res["figures"]:
        t = truth["figures"][f["test"]]
        assert [c["level"] for c in f["components"]] == levels[name], (name, f["components"])
        for c in f["components"]:
            sd = truth_sd(t, c["level"])
            lo, hi = c["sd_ci"]
            assert lo - 1e-9 <= sd <= hi + 1e-9, (name, f["test"], c["level"], sd, c)
        rep = f["components"][-1]["sd"]   # the residual: the real data's spread, resampled
        assert abs(rep / t["noise"]["sd_real"] - 1) < 0.1, (name, f["test"], rep, t["noise"])
        if truth["planted_sd"]["chassis"] > 0:
            assert f["components"][1]["sd_ci"][1] > 0, (name, "chassis planted, its interval is 0", f["components"][1])
        found = [g for g in f["groups"] if g["stands_out"] and g["level"] == "cabinet"]
        if not strict:   # only the slow cabinet may be named, and the chassis are seen
            assert [g["group"] for g in found] in ([], [truth["slow_cabinet"]] if t["slow_here"] else []), \
                (name, f["test"], found)
            cab = [g for g in f["groups"] if g["level"] == "cabinet"]
            assert cab and cab[0]["design_effect"] > 1.2, (name, f["test"], cab[:1])
            if t["slow_here"]:
                dev = [g["dev"] for g in cab if g["group"] == truth["slow_cabinet"]][0]
                assert dev < truth["slow"] / 2, (name, f["test"], dev)
        elif t["slow_here"]:
            assert [g["group"] for g in found] == [truth["slow_cabinet"]], (name, f["test"], found)
            assert found[0]["ci"][0] <= truth["slow"] <= found[0]["ci"][1], found[0]
        elif strict:
            assert not found, (name, f["test"], found)
        cov = {c["name"]: c for c in f["covariates"]}
        assert cov["sm_mhz"]["rho_ci"][0] > 0 and cov["sm_mhz"]["p"] < 0.01, cov["sm_mhz"]
        lo, hi = cov["sm_mhz"]["slope_ci"]   # percent per MHz: 1/15, diluted by the clock's own noise
        assert lo <= t["sm_mhz_slope"] <= hi or not strict, (name, f["test"], "clock slope", t["sm_mhz_slope"],
                                                             cov["sm_mhz"])
        assert cov["temp_c"]["rho_ci"][0] < 0 < cov["temp_c"]["rho_ci"][1], cov["temp_c"]
    for kind in truth["slow_kinds"]:
        c = res["classes"][kind]
        assert c["k"] >= 2, (kind, c["k"], c["rule"])
        slow = [v["class"] for g, v in c["gpus"].items() if "x%sc" % truth["slow_cabinet"] in g]
        rest = [v["class"] for g, v in c["gpus"].items() if "x%sc" % truth["slow_cabinet"] not in g]
        # most of the slow cabinet's GPUs in a class below the one most others are in
        top = max(set(rest), key=rest.count)
        assert sum(s > top for s in slow) >= 0.75 * len(slow), (kind, slow, top)
    # one run per GPU (bynode): the classes' noise is a repetition's alone (0.005 % for the memory
    # figure), the run-to-run noise unmeasured: its memory classes split a fleet planted with none
    assert res["classes"]["memory"]["k"] == 1 or not strict or name == "bynode", res["classes"]["memory"]["rule"]
null = json.load(open("%s/null.json" % w))
for f in null["figures"]:
    assert not [g for g in f["groups"] if g["stands_out"] and g["level"] == "cabinet"], f["groups"]
PY
# the classes as Slurm sees them (mcfleet export): the slow cabinet's nodes weigh more
"$MCFLEET" export --study "$work/fleet1.json" --slurm - > "$work/slurm.txt" || fail "export of the study's classes"
"$PYTHON_H5" - "$work/slurm.txt" <<'PY' || fail "the Slurm lines do not follow the classes"
import re, sys
w = {}
for line in open(sys.argv[1]):
    m = re.match(r"NodeName=(\S+) Weight=(\d+) Features=(\S+)", line)
    if m:
        w[m.group(1)] = (int(m.group(2)), m.group(3))
slow = [v for n, v in w.items() if n.startswith("x1003c")]
rest = [v for n, v in w.items() if not n.startswith("x1003c")]
assert len(w) == 48 and len(slow) == 8, len(w)
assert sorted(x[0] for x in slow)[len(slow) // 2] > sorted(x[0] for x in rest)[len(rest) // 2], (slow, rest)
assert sum("mcf_matrix_A" not in x[1] for x in slow) >= 6, slow
PY
echo "PASS: planted structure recovered"
