#!/usr/bin/env python3
"""Issue 29: mcfleet's host and peer links beside nvbandwidth's matching tests.

usage: compare.py DIR   (DIR holds transfer.h5 and nvbandwidth.json from gpu_transfer.sh)

Rank r of mcfleet's run uses GPU r (one rank per GPU, every GPU visible), so
row r of a peer matrix is GPU r's links, column j the peer GPU j, as in
nvbandwidth's matrices (row: the GPU that runs the copy or the chase).

  mcfleet test     nvbandwidth test(s)                            compared
  host-in-copy     host_to_device_memcpy_ce                       per GPU
  host-out-copy    device_to_host_memcpy_ce                       per GPU
  host-both-copy   host_to_device_bidirectional_memcpy_ce and     the lower of the two (each is one
                   device_to_host_bidirectional_memcpy_ce         direction's rate under the other)
  host-in-sm       host_to_device_memcpy_sm                       per GPU
  host-out-sm      device_to_host_memcpy_sm                       per GPU
  host-both-sm     host_to_device_bidirectional_memcpy_sm (and    one direction's rate (nvbandwidth:
                   device_to_host_..., the same split-warp copy)  half the two directions' total)
  peer-in-copy     device_to_device_memcpy_read_ce                [i][j]: GPU i pulls from GPU j
  peer-out-copy    device_to_device_memcpy_write_ce               [i][j]: GPU i writes to GPU j
  peer-both-copy   device_to_device_bidirectional_memcpy_read_ce  total / 2 of each (nvbandwidth issues
                   and ..._write_ce                               one direction from each GPU; mcfleet
                                                                  both from GPU i, two streams)
  peer-in-sm       device_to_device_memcpy_read_sm                [i][j]
  peer-out-sm      device_to_device_memcpy_write_sm               [i][j]
  peer-both-sm     device_to_device_bidirectional_memcpy_read_sm  total / 2 of each
                   and ..._write_sm
  peer-latency     device_to_device_latency_sm                    ns, [i][j]; the ratio is nvbandwidth's
                                                                  over mcfleet's (>= 0.95: not slower)
The ratio printed is mcfleet / nvbandwidth for bandwidths (>= 0.95 wanted).
"""
import json
import math
import os
import statistics
import sys

import h5py


def nv_matrices(path):
    """name -> list of matrices (a bidirectional test appends read1, read2, total)"""
    with open(path) as f:
        text = f.read()
    doc = json.loads(text[text.index("{"):])
    out = {}
    for tc in doc["nvbandwidth"].get("testcases", []):
        rows = tc.get("bandwidth_matrix")
        if not rows:
            continue
        rows = [[float(v) if v not in ("N/A", "") else math.nan for v in r] for r in rows]
        ncol = len(rows[0])
        per = ncol if len(rows) >= ncol and len(rows) % ncol == 0 else 1   # host tests: one row
        out[tc["name"]] = [rows[k:k + per] for k in range(0, len(rows), per)]
    return out


def median(v):
    v = [x for x in v if not math.isnan(x)]
    return statistics.median(v) if v else math.nan


def ours(f, test, metric):
    """per-rank medians of a metric over the repetitions; None when absent"""
    g = f["results"].get(test)
    if g is None or metric not in g:
        return None
    return [median(list(row)) for row in g[metric][...]]


def fmt(x):
    return "   -  " if x is None or math.isnan(x) else "%6.1f" % x


def main():
    d = sys.argv[1] if len(sys.argv) > 1 else "."
    f = h5py.File(os.path.join(d, "transfer.h5"), "r")
    nv = nv_matrices(os.path.join(d, "nvbandwidth.json"))
    status = {t: [s.decode() if isinstance(s, bytes) else str(s) for s in f["results"][t]["status"][...]]
              for t in f["results"]}
    worst = []

    def ref_row(name, which=0, half=False):
        m = nv.get(name)
        if not m or which >= len(m):
            return None
        row = m[which][0]
        return [x / 2 if half else x for x in row]

    print("== host links (GB/s per GPU; ratio mcfleet / nvbandwidth)")
    host = [("host-in-copy", ["host_to_device_memcpy_ce"]), ("host-out-copy", ["device_to_host_memcpy_ce"]),
            ("host-both-copy", ["host_to_device_bidirectional_memcpy_ce", "device_to_host_bidirectional_memcpy_ce"]),
            ("host-in-sm", ["host_to_device_memcpy_sm"]), ("host-out-sm", ["device_to_host_memcpy_sm"]),
            ("host-both-sm", ["host_to_device_bidirectional_memcpy_sm", "device_to_host_bidirectional_memcpy_sm"]),
            ("host-in-copy-remote", []), ("host-out-copy-remote", [])]
    for test, refs in host:
        mine = ours(f, test, "bandwidth_gbs")
        if mine is None:
            print("%-22s absent" % test)
            continue
        rows = [r for r in (ref_row(n) for n in refs) if r]
        ref = [min(r[g] for r in rows) for g in range(len(rows[0]))] if rows else None
        cells = []
        for g, x in enumerate(mine):
            y = ref[g] if ref and g < len(ref) else math.nan
            ratio = x / y if y and not math.isnan(y) else math.nan
            if not math.isnan(ratio):
                worst.append((ratio, test, "GPU %d" % g))
            cells.append("%s/%s %s" % (fmt(x), fmt(y), "" if math.isnan(ratio) else "%.3f" % ratio))
        print("%-22s %s   [%s]" % (test, " | ".join(cells), ",".join(sorted(set(status[test])))))

    peer = [("peer-in-copy", "gbs", [("device_to_device_memcpy_read_ce", 0, False)]),
            ("peer-out-copy", "gbs", [("device_to_device_memcpy_write_ce", 0, False)]),
            ("peer-both-copy", "gbs", [("device_to_device_bidirectional_memcpy_read_ce", 2, True),
                                       ("device_to_device_bidirectional_memcpy_write_ce", 2, True)]),
            ("peer-in-sm", "gbs", [("device_to_device_memcpy_read_sm", 0, False)]),
            ("peer-out-sm", "gbs", [("device_to_device_memcpy_write_sm", 0, False)]),
            ("peer-both-sm", "gbs", [("device_to_device_bidirectional_memcpy_read_sm", 2, True),
                                     ("device_to_device_bidirectional_memcpy_write_sm", 2, True)]),
            ("peer-latency", "ns", [("device_to_device_latency_sm", 0, False)])]
    for test, unit, refs in peer:
        if test not in f["results"]:
            print("%s absent" % test)
            continue
        n = len(f["results"][test]["status"])
        cols = [ours(f, test, "peer%d_%s" % (j, unit)) for j in range(n)]
        print("\n== %s (%s; row: the GPU that runs it, column: the peer) [%s]" %
              (test, unit, ",".join(sorted(set(status[test])))))
        for name, which, half in refs:
            m = nv.get(name)
            mat = [[x / 2 if half else x for x in r] for r in m[which]] if m and which < len(m) else None
            print("  beside %s%s" % (name, " (total / 2)" if half else ""))
            for i in range(n):
                cells = []
                for j in range(n):
                    x = cols[j][i] if cols[j] else math.nan
                    y = mat[i][j] if mat and i < len(mat) and j < len(mat[i]) else math.nan
                    if math.isnan(x) or math.isnan(y) or not y:
                        cells.append("%s/%s      " % (fmt(x), fmt(y)))
                        continue
                    ratio = y / x if unit == "ns" else x / y
                    worst.append((ratio, test, "%d->%d vs %s" % (i, j, name)))
                    cells.append("%s/%s %.3f" % (fmt(x), fmt(y), ratio))
                print("   %d: %s" % (i, " | ".join(cells)))
    for t in f["results"]:
        msgs = set(m.decode() if isinstance(m, bytes) else str(m) for m in f["results"][t]["message"][...])
        for m in sorted(msgs):
            if m:
                print("%s: %s" % (t, m[:300]))
    worst.sort()
    print("\n== lowest ratios (>= 0.95 wanted)")
    for r, t, w in worst[:12]:
        print("  %.3f %s %s" % (r, t, w))


if __name__ == "__main__":
    main()
