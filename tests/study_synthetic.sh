#!/bin/sh
# The study recovers planted structure (issue 30): a synthetic fleet of 48
# nodes in 6 cabinets (HPE Cray xnames), 192 GPUs, 3 runs, whose repetition
# noise is real (each H200's repetitions in a results file measured on the
# device, resampled; tests/study_fleet.py), with a cabinet 3 % slower in the
# matrix and power-limited figures, node, GPU and run effects. The study must
# find every planted level's sd inside its 95 % interval, name the planted
# cabinet and no other (its deviation's interval holding -3 %), find the
# clock's planted effect (15 MHz per percent: 6.67 % per 100 MHz) and none in
# the temperature, and put the slow cabinet's GPUs in a slower class; in a
# fleet without the slow cabinet no cabinet stands out and the memory figure,
# planted without it, has one class.
. "$srcdir/tests/lib.sh"
need_h5py
src="$srcdir/docs/bench/2026-11-26-x2-disturbed/run1-clean.h5"
for seed in 1 2; do
    "$PYTHON_H5" "$srcdir/tests/study_fleet.py" "$src" -o "$work/fleet$seed.csv" --seed $seed || fail "generator"
    "$MCFLEET" study "$work/fleet$seed.csv" --format json -o "$work/s$seed.json" || fail "study of fleet $seed"
done
"$PYTHON_H5" "$srcdir/tests/study_fleet.py" "$src" -o "$work/null.csv" --seed 3 --slow 0 || fail "generator"
"$MCFLEET" study "$work/null.csv" --format json -o "$work/null.json" || fail "study of the null fleet"
"$PYTHON_H5" - "$work" <<'PY' || fail "planted structure not recovered"
import json, sys
w = sys.argv[1]
def planted(path):
    for line in open(path):
        if line.startswith("# planted: "):
            return json.loads(line[len("# planted: "):])
for seed in (1, 2):
    truth = planted("%s/fleet%d.csv" % (w, seed))
    res = json.load(open("%s/s%d.json" % (w, seed)))
    assert res["location"]["levels"] == ["cabinet", "chassis", "slot", "board"], res["location"]
    for f in res["figures"]:
        t = truth["figures"][f["test"]]
        comps = {c["level"]: c for c in f["components"]}
        assert set(comps) == {"cabinet", "chassis", "slot+board", "node", "gpu", "run", "repetition"}, comps.keys()
        for level, sd in t["sd"].items():
            c = comps["slot+board" if level == "slot" else level]
            lo, hi = c["sd_ci"]
            assert lo - 1e-9 <= sd <= hi + 1e-9, (seed, f["test"], level, sd, c)
        found = [g for g in f["groups"] if g["stands_out"] and g["level"] == "cabinet"]
        if t["kind"] in ("matrix", "power"):
            assert [g["group"] for g in found] == [truth["slow_cabinet"]], (seed, f["test"], found)
            assert found[0]["ci"][0] <= truth["slow"] <= found[0]["ci"][1], found[0]
        else:
            assert not found, (seed, f["test"], found)
        cov = {c["name"]: c for c in f["covariates"]}
        assert cov["sm_mhz"]["rho_ci"][0] > 0 and cov["sm_mhz"]["p"] < 0.01, cov["sm_mhz"]
        lo, hi = cov["sm_mhz"]["slope_ci"]
        assert lo <= 1 / 15 <= hi, ("clock slope", cov["sm_mhz"])   # percent per MHz planted
        assert cov["temp_c"]["rho_ci"][0] < 0 < cov["temp_c"]["rho_ci"][1] or cov["temp_c"]["p"] > 0.01, cov["temp_c"]
    for kind in ("matrix", "power"):
        c = res["classes"][kind]
        assert c["k"] >= 2, (kind, c["k"], c["rule"])
        slow = [v["class"] for g, v in c["gpus"].items() if "x%sc" % truth["slow_cabinet"] in g]
        rest = [v["class"] for g, v in c["gpus"].items() if "x%sc" % truth["slow_cabinet"] not in g]
        # most of the slow cabinet's GPUs in a class below the one most others are in
        top = max(set(rest), key=rest.count)
        assert sum(s > top for s in slow) >= 0.75 * len(slow), (kind, slow, top)
    assert res["classes"]["memory"]["k"] == 1, res["classes"]["memory"]["rule"]
null = json.load(open("%s/null.json" % w))
for f in null["figures"]:
    assert not [g for g in f["groups"] if g["stands_out"] and g["level"] == "cabinet"], f["groups"]
PY
# the classes as Slurm sees them (mcfleet export): the slow cabinet's nodes weigh more
"$MCFLEET" export --study "$work/s1.json" --slurm - > "$work/slurm.txt" || fail "export of the study's classes"
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
