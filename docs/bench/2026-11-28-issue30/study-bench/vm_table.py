#!/usr/bin/env python3
"""Results files of several lent machines as one study table (docs/study.md),
each machine its own node. Every lent VM calls itself "vm", so mcfleet study
would put all their GPUs on one node; here each GPU's node is "vm-LABEL",
LABEL given per file (FILE=LABEL; default: the file's directory name). The
observations are mcfleet study's own reading of the files
(analysis/mcfleet_study_data.py), written back unchanged: one row per
repetition, with the run, its start time, the SKU and the covariates.

  vm_table.py FILE.h5[=LABEL] ... -o TABLE.csv
"""
import argparse
import csv
import math
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "..", "..", "analysis"))
from mcfleet_study_data import read_inputs   # noqa: E402


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("inputs", nargs="+")
    p.add_argument("-o", "--output", required=True)
    a = p.parse_args()
    paths, label = [], {}
    for x in a.inputs:
        path, _, lab = x.partition("=")
        paths.append(path)
        label[path] = lab or os.path.basename(os.path.dirname(os.path.abspath(path)))
    t = read_inputs(paths)
    arr = t.arrays()
    node_of = {}   # a GPU's node: the VM of the first file it was seen in
    for u, r in zip(arr["unit"], arr["run"]):
        node_of.setdefault(int(u), "%s-%s" % (t.units[u]["node"], label[t.runs[r]["path"]]))
    covs = sorted(arr["cov"])
    rep = {}
    with open(a.output, "w", newline="") as f:
        f.write("# source: %s by %s\n" % (" ".join(a.inputs), os.path.basename(__file__)))
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["gpu", "host", "sku", "test", "metric", "unit", "better", "kind", "run", "rep", "time", "value"]
                   + ["cov:" + c for c in covs])
        for i in range(arr["value"].size):
            fi, u, r = int(arr["fig"][i]), int(arr["unit"][i]), int(arr["run"][i])
            fig, run = t.figures[fi], t.runs[r]
            k = rep[fi, u, r] = rep.get((fi, u, r), -1) + 1
            cv = [arr["cov"][c][i] for c in covs]
            w.writerow([t.units[u]["gpu"], node_of[u], fig["sku"], fig["test"], fig["metric"], fig["unit"],
                        fig["better"], fig["kind"], run["id"], k, "" if math.isnan(run["time"]) else "%.0f" % run["time"],
                        repr(float(arr["value"][i]))] + ["" if math.isnan(x) else repr(float(x)) for x in cv])
    print("%s: %d rows, %d GPUs on %d nodes, %d runs" % (a.output, arr["value"].size, len(node_of),
                                                       len(set(node_of.values())), len(t.runs)))


if __name__ == "__main__":
    main()
