#!/usr/bin/env python3
"""How often mcfleet study's intervals hold the planted truth: many synthetic
fleets (tests/study_fleet.py, one seed each), each studied, and per figure
and level the share of fleets whose 95 % interval holds the planted sd; the
slow cabinet named alone, its deviation's interval holding the planted
effect; the clock's slope; a cabinet named where none was planted. Not part
of the suite (about a second a fleet): tests/study_synthetic.sh checks a few
seeds, this says whether passing them is luck (docs/study-bench.md).

  study_coverage.py SOURCE.h5 [--fleets N] [--first-seed S] [-- GENERATOR OPTIONS]
"""
import argparse
import collections
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "analysis"))


def planted(path):
    with open(path) as f:
        for line in f:
            if line.startswith("# planted: "):
                return json.loads(line[len("# planted: "):])
    raise SystemExit("%s: no planted truth" % path)


def truth_sd(t, level):
    """a merged level ("slot+board+node") holds the sum of its parts' variances"""
    parts = level.split("+")
    return sum(t["sd"].get(p, 0.0) ** 2 for p in parts) ** 0.5


def inside(x, ci, tol=1e-9):
    return ci[0] is not None and ci[0] - tol <= x <= ci[1] + tol


def main():
    argv = sys.argv[1:]
    gen = []
    if "--" in argv:
        i = argv.index("--")
        argv, gen = argv[:i], argv[i + 1:]
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("source")
    p.add_argument("--fleets", type=int, default=40)
    p.add_argument("--first-seed", type=int, default=100)
    a = p.parse_args(argv)
    import mcfleet_study as ms
    hit, tot = collections.Counter(), collections.Counter()
    misses = collections.defaultdict(list)
    cab = collections.Counter()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "fleet.csv")
        for seed in range(a.first_seed, a.first_seed + a.fleets):
            subprocess.run([sys.executable, os.path.join(HERE, "study_fleet.py"), a.source, "-o", out,
                            "--seed", str(seed)] + gen, check=True)
            truth = planted(out)
            slope = truth["covariates"]["sm_mhz"]["mhz_per_pct"]
            res = ms.jsonable(ms.study([out], ms.parse_args([out])))
            for f in res["figures"]:
                t = truth["figures"][f["test"]]
                for c in f["components"]:
                    k = (f["test"], c["level"])
                    sd = truth_sd(t, c["level"])
                    tot[k] += 1
                    if inside(sd, c["sd_ci"]):
                        hit[k] += 1
                    else:
                        misses[k].append("%.3f not in [%.3f, %.3f]" % (sd, c["sd_ci"][0], c["sd_ci"][1]))
                found = [g["group"] for g in f["groups"] if g["stands_out"] and g["level"] == "cabinet"]
                key = f["test"]
                if t.get("slow_here"):
                    cab[key, "planted"] += 1
                    cab[key, "named alone"] += found == [truth["slow_cabinet"]]
                    cab[key, "named (alone or not)"] += truth["slow_cabinet"] in found
                    g = [g for g in f["groups"] if g["level"] == "cabinet" and g["group"] == truth["slow_cabinet"]]
                    cab[key, "deviation's interval holds it"] += bool(g) and inside(truth["slow"], g[0]["ci"])
                else:
                    cab[key, "not planted"] += 1
                    cab[key, "a cabinet named anyway"] += bool(found)
                cov = {c["name"]: c for c in f["covariates"]}
                cab[key, "sm_mhz: rho > 0, p < 0.01"] += cov["sm_mhz"]["rho_ci"][0] > 0 and cov["sm_mhz"]["p"] < 0.01
                cab[key, "sm_mhz: slope's interval holds 1/%g %%/MHz" % slope] += inside(1 / slope,
                                                                                        cov["sm_mhz"]["slope_ci"])
                cab[key, "sm_mhz: slope's interval holds the diluted slope"] += inside(t["sm_mhz_slope"],
                                                                                      cov["sm_mhz"]["slope_ci"])
                cab[key, "temp_c: rho's interval holds 0"] += inside(0.0, cov["temp_c"]["rho_ci"])
    print("%d fleets, seeds %d.., source %s, generator options: %s" % (a.fleets, a.first_seed, a.source,
                                                                        " ".join(gen) or "(defaults)"))
    for k in sorted(tot):
        print("  %-22s %-16s sd interval holds the planted sd: %3d of %d  %s"
              % (k[0], k[1], hit[k], tot[k], "; ".join(misses[k][:3])))
    for k in sorted(cab):
        print("  %-22s %-45s %3d" % (k[0], k[1], cab[k]))


if __name__ == "__main__":
    main()
