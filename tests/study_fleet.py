#!/usr/bin/env python3
"""A synthetic fleet with planted structure, as a study table (docs/study.md),
for tests/study_synthetic.sh: HPE Cray xnames (cabinet > chassis > slot >
board > node), 4 GPUs a node, several runs of R repetitions, three figures
(a matrix, a memory and a power-limited one). Each figure is

    value = median x exp((cabinet + node + GPU + run + repetition) / 100)

with the cabinet effect planted (one cabinet --slow percent; 0 with
--slow 0), the node, GPU and run effects drawn normal with the given sds,
and the repetition term drawn from REAL repetitions: each rank's
repetitions of the same figure in a results file measured on H200s
(100 ln(value / its own median)), resampled. The clock under load
(cov:sm_mhz) follows the GPU's effect, 15 MHz per percent; the temperature
(cov:temp_c) follows nothing. The planted truth is a '# planted: {json}'
line: the realised sd of each level's drawn effects, the slow cabinet.

  study_fleet.py SOURCE.h5 -o FLEET.csv [--seed S] [--slow PCT] [--cabinets N] [--runs N] [--reps N]
"""
import argparse
import json
import os
import sys

import numpy as np

FIGURES = [  # test in the source file, its kind in the study, planted in it?
    ("matrix-fp16", "matrix", True),
    ("hbm-triad", "memory", False),
    ("sustained-gemm-fp16", "power", True),
]


def real_noise(path):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "analysis"))
    from mcfleet_results import Results
    r = Results(path)
    out = {}
    for name, gname, g in r.tests():
        for test, _, _ in FIGURES:
            if name == test:
                m = r.summary_metric(g, gname)
                v = np.asarray(r.figures(g, gname, m), float)
                rel = 100 * np.log(v / np.nanmedian(v, axis=1, keepdims=True))
                out[test] = {"metric": m, "unit": r.unit(g, gname, m), "median": float(np.nanmedian(v)),
                             "draws": rel[np.isfinite(rel)]}
    missing = [t for t, _, _ in FIGURES if t not in out]
    if missing:
        sys.exit("study_fleet.py: %s lacks %s" % (path, ", ".join(missing)))
    return out


def main():
    p = argparse.ArgumentParser()
    p.add_argument("source")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--slow", type=float, default=-3.0)
    p.add_argument("--cabinets", type=int, default=6)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--reps", type=int, default=8)
    p.add_argument("--node-sd", type=float, default=0.8)
    p.add_argument("--gpu-sd", type=float, default=0.5)
    p.add_argument("--run-sd", type=float, default=0.4)
    a = p.parse_args()
    rng = np.random.default_rng(a.seed)
    noise = real_noise(a.source)
    nodes = ["x%dc%ds%db0n%d" % (1000 + c, ch, s, n) for c in range(a.cabinets) for ch in range(2) for s in range(2)
             for n in range(2)]
    slow_cab = "%d" % (1000 + a.cabinets // 2)
    gpus = [(nd, "GPU-%s-%d" % (nd, k)) for nd in nodes for k in range(4)]
    planted = {"slow_cabinet": slow_cab, "slow": a.slow, "source": os.path.basename(a.source), "figures": {}}
    rows = []
    for test, kind, planted_here in FIGURES:
        cab = {c: (a.slow if planted_here and c == slow_cab else 0.0) for c in {nd[1:5] for nd in nodes}}
        node = dict(zip(nodes, a.node_sd * rng.standard_normal(len(nodes))))
        gpu = dict(zip([g for _, g in gpus], a.gpu_sd * rng.standard_normal(len(gpus))))
        run = a.run_sd * rng.standard_normal((len(gpus), a.runs))
        cab_eff = np.array([cab[nd[1:5]] for nd in nodes])
        draws = noise[test]["draws"]
        reps_used = []
        for i, (nd, g) in enumerate(gpus):
            clock = 1755 + 15 * gpu[g] + rng.normal(0, 2)
            temp = rng.normal(60, 3)
            for r in range(a.runs):
                e = rng.choice(draws, a.reps)
                reps_used.append(e)
                y = cab[nd[1:5]] + node[nd] + gpu[g] + run[i, r] + e
                for k, yk in enumerate(y):
                    rows.append((g, nd, test, noise[test]["metric"], noise[test]["unit"], kind, r + 1, k,
                                 noise[test]["median"] * np.exp(yk / 100), clock, temp))
        planted["figures"][test] = {
            "kind": kind, "metric": noise[test]["metric"],
            "sd": {"cabinet": float(np.std(cab_eff[::8], ddof=1)), "node": float(np.std(list(node.values()), ddof=1)),
                   "gpu": float(np.std(list(gpu.values()), ddof=1)), "run": float(np.std(run, ddof=1)),
                   "repetition": float(np.std(np.concatenate(reps_used), ddof=1)),
                   "chassis": 0.0, "slot": 0.0}}
    with open(a.output, "w") as f:
        f.write("# source: synthetic fleet by tests/study_fleet.py, repetition noise from %s\n" % a.source)
        f.write("# planted: %s\n" % json.dumps(planted))
        f.write("gpu,host,test,metric,unit,kind,run,rep,value,cov:sm_mhz,cov:temp_c\n")
        for r in rows:
            f.write("%s,%s,%s,%s,%s,%s,%d,%d,%.6g,%.1f,%.1f\n" % r)


if __name__ == "__main__":
    main()
