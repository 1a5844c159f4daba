#!/usr/bin/env python3
"""A synthetic fleet with planted structure, as a study table (docs/study.md),
for tests/study_synthetic.sh: HPE Cray xnames (cabinet > chassis > slot >
board > node), --gpus GPUs a node, several runs of R repetitions, three
figures (a matrix, a memory and a power-limited one). Each figure is

    value = median x exp((cabinet + chassis + node + GPU + run + repetition) / 100)

with the cabinet effect planted (one cabinet --slow percent in the kinds of
--slow-kinds; 0 with --slow 0), the chassis, node, GPU and run effects
drawn normal with the given sds (the chassis' 0 unless --chassis-sd), and
the repetition term drawn from REAL repetitions: each rank's repetitions of
the same figure in a results file measured on the device (100 ln(value /
that rank's own median)), resampled. The clock under load (cov:sm_mhz)
follows the GPU's effect, --mhz-per-pct MHz per percent, plus 2 MHz of
noise (so a regression of the figure on the clock sees the slope
1/mhz_per_pct diluted by that noise: sm_mhz_slope in the truth, percent
per MHz); the temperature (cov:temp_c) follows nothing.

The '# ' header says where the noise came from (file, test, metric, ranks
x repetitions, the real spread) and the planted truth as one JSON line,
'# planted: {...}': per figure the realised sd of each level's drawn
effects (what the study should find), the slow cabinet, the covariates'
rule. Deterministic given --seed; the default sizes (6 x 2 x 2 x 2 nodes,
192 GPUs, 3 runs of 8) write 13,824 rows in well under a second.

  study_fleet.py SOURCE.h5 -o FLEET.csv [--seed S] [--slow PCT] [--slow-kinds K,K]
                 [--cabinets N] [--chassis N] [--slots N] [--nodes N] [--gpus N] [--runs N] [--reps N]
                 [--chassis-sd SD] [--node-sd SD] [--gpu-sd SD] [--run-sd SD] [--mhz-per-pct M]
                 [--run-per-node]
"""
import argparse
import json
import os
import sys

import numpy as np

FIGURES = [  # test in the source file, its kind in the study
    ("matrix-fp16", "matrix"),
    ("hbm-triad", "memory"),
    ("sustained-gemm-fp16", "power"),
]


def real_noise(path):
    """per figure: the real repetitions, each relative to its own rank's
    median (percent), and where they came from"""
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
    from mcfleet_results import BadFile, Results
    try:
        r = Results(path)
        out = {}
        for name, gname, g in r.tests():
            if name not in dict(FIGURES):
                continue
            m = r.summary_metric(g, gname)
            v = np.asarray(r.figures(g, gname, m), float)
            rel = 100 * np.log(v / np.nanmedian(v, axis=1, keepdims=True))
            draws = rel[np.isfinite(rel)]
            out[name] = {"metric": m, "unit": r.unit(g, gname, m), "median": float(np.nanmedian(v)), "draws": draws,
                         "ranks": int(v.shape[0]), "reps": int(v.shape[1]), "sd_real": float(np.std(draws, ddof=1))}
    except BadFile as e:
        sys.exit("study_fleet.py: %s" % e)
    missing = [t for t, _ in FIGURES if t not in out]
    if missing:
        sys.exit("study_fleet.py: %s lacks %s" % (path, ", ".join(missing)))
    return out


def sd(x):
    x = np.asarray(list(x), float).ravel()
    return float(np.std(x, ddof=1)) if x.size > 1 else 0.0


def parse():
    p = argparse.ArgumentParser(description="a synthetic fleet with planted structure, as a study table")
    p.add_argument("source", help="a results file holding %s" % ", ".join(t for t, _ in FIGURES))
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slow", type=float, default=-3.0, help="the slow cabinet's effect, percent (0: none)")
    p.add_argument("--slow-kinds", default="matrix,power", help="the kinds the slow cabinet is slow in")
    p.add_argument("--cabinets", type=int, default=6)
    p.add_argument("--chassis", type=int, default=2, help="chassis per cabinet")
    p.add_argument("--slots", type=int, default=2, help="slots per chassis")
    p.add_argument("--nodes", type=int, default=2, help="nodes per slot")
    p.add_argument("--gpus", type=int, default=4, help="GPUs per node")
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--run-per-node", action="store_true", help="each node measured in runs of its own (a fleet "
                   "measured node by node): run ids N-<node>, not shared across nodes")
    p.add_argument("--chassis-sd", type=float, default=0.0)
    p.add_argument("--node-sd", type=float, default=0.8)
    p.add_argument("--gpu-sd", type=float, default=0.5)
    p.add_argument("--run-sd", type=float, default=0.4)
    p.add_argument("--mhz-per-pct", type=float, default=15.0, help="the clock's planted rise per percent of GPU effect")
    a = p.parse_args()
    for k in ("cabinets", "chassis", "slots", "nodes", "gpus", "runs", "reps"):
        if getattr(a, k) < 1:
            p.error("--%s must be at least 1" % k)
    kinds = {k for _, k in FIGURES}
    a.slow_kinds = [k for k in a.slow_kinds.split(",") if k]
    if not set(a.slow_kinds) <= kinds:
        p.error("--slow-kinds: of %s" % ", ".join(sorted(kinds)))
    return a


def main():
    a = parse()
    rng = np.random.default_rng(a.seed)
    noise = real_noise(a.source)
    where = [(1000 + c, ch, s, n) for c in range(a.cabinets) for ch in range(a.chassis) for s in range(a.slots)
             for n in range(a.nodes)]
    nodes = ["x%dc%ds%db0n%d" % w for w in where]
    cab_of = {nd: "%d" % w[0] for nd, w in zip(nodes, where)}
    chassis_of = {nd: "%dc%d" % w[:2] for nd, w in zip(nodes, where)}
    slow_cab = "%d" % (1000 + a.cabinets // 2)
    gpus = [(nd, "GPU-%s-%d" % (nd, k)) for nd in nodes for k in range(a.gpus)]
    planted = {"slow_cabinet": slow_cab, "slow": a.slow, "slow_kinds": a.slow_kinds,
               "source": os.path.basename(a.source), "seed": a.seed,
               "planted_sd": {"chassis": a.chassis_sd, "node": a.node_sd, "gpu": a.gpu_sd, "run": a.run_sd},
               "covariates": {"sm_mhz": {"mhz_per_pct": a.mhz_per_pct, "follows": "gpu", "noise_mhz": 2.0},
                              "temp_c": {"follows": None}},
               "figures": {}}
    rows = []

    def run_id(r, nd):
        return "%d-%s" % (r + 1, nd) if a.run_per_node else "%d" % (r + 1)

    for test, kind in FIGURES:
        planted_here = a.slow != 0 and kind in a.slow_kinds
        cab = {c: (a.slow if planted_here and c == slow_cab else 0.0) for c in sorted(set(cab_of.values()))}
        node = dict(zip(nodes, a.node_sd * rng.standard_normal(len(nodes))))
        gpu = dict(zip([g for _, g in gpus], a.gpu_sd * rng.standard_normal(len(gpus))))
        run = a.run_sd * rng.standard_normal((len(gpus), a.runs))
        chassis = dict.fromkeys(sorted(set(chassis_of.values())), 0.0)
        if a.chassis_sd > 0:   # drawn only when planted: the default fleets stay what they were
            chassis = dict(zip(chassis, a.chassis_sd * rng.standard_normal(len(chassis))))
        n = noise[test]
        draws = n["draws"]
        reps_used = []
        for i, (nd, g) in enumerate(gpus):
            clock = 1755 + a.mhz_per_pct * gpu[g] + rng.normal(0, 2)
            temp = rng.normal(60, 3)
            for r in range(a.runs):
                e = rng.choice(draws, a.reps)
                reps_used.append(e)
                y = cab[cab_of[nd]] + chassis[chassis_of[nd]] + node[nd] + gpu[g] + run[i, r] + e
                for k, yk in enumerate(y):
                    rows.append((g, nd, test, n["metric"], n["unit"], kind, run_id(r, nd), k,
                                 n["median"] * np.exp(yk / 100), clock, temp))
        vg = sd(gpu.values()) ** 2
        planted["figures"][test] = {
            "kind": kind, "metric": n["metric"], "slow_here": planted_here,
            "noise": {"file": a.source, "test": test, "metric": n["metric"], "ranks": n["ranks"], "reps": n["reps"],
                      "sd_real": n["sd_real"]},
            # the clock's slope a regression can see: 1/mhz_per_pct diluted by the clock's own 2 MHz noise
            "sm_mhz_slope": a.mhz_per_pct * vg / (a.mhz_per_pct ** 2 * vg + 4.0),
            "sd": {"cabinet": sd(cab.values()), "chassis": sd(chassis.values()), "slot": 0.0, "node": sd(node.values()),
                   "gpu": sd(gpu.values()), "run": sd(run), "repetition": sd(np.concatenate(reps_used))}}
    with open(a.output, "w") as f:
        f.write("# source: synthetic fleet by tests/study_fleet.py (seed %d), repetition noise from %s\n"
                % (a.seed, a.source))
        for test, _ in FIGURES:
            n = noise[test]
            f.write("# noise: %s %s: %d ranks x %d repetitions, each relative to its rank's median, sd %.4f %%\n"
                    % (test, n["metric"], n["ranks"], n["reps"], n["sd_real"]))
        f.write("# planted: %s\n" % json.dumps(planted))
        f.write("gpu,host,test,metric,unit,kind,run,rep,value,cov:sm_mhz,cov:temp_c\n")
        for r in rows:
            f.write("%s,%s,%s,%s,%s,%s,%s,%d,%.6g,%.1f,%.1f\n" % r)


if __name__ == "__main__":
    main()
