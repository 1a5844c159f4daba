#!/bin/bash
# The links in the report (issue 29): a real run of the transfer family on 4
# host ranks (host link, peer matrix and latency, an all-reduce) reported as
# text, JSON, links-csv and the page, the peer matrix checked cell by cell
# against the file's own per-rank medians; each network test's worst pair per
# node, on a copy of that file made into two nodes with a network test written
# in the runner's layout (one machine has one node: the network test needs
# two); and a slow host link (MCFLEET_INJECT_SLOW on rank 2, 8 times the copy
# per repetition, measured) FAILed alone against a profile made from the
# healthy run (floor a quarter of its median: host ranks' peer causes are never
# more than WARN), its cause naming the link and the next step checking it.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
need_matplotlib
cd "$work"
cat >links.yaml <<'EOF'
name: links
defaults:
  repetitions: 8
  warmup: 1
  time_limit: 30
tests:
  - {name: h2d, kernel: transfer, link: host, bytes: 1MiB}
  - {name: peer, kernel: transfer, link: peer, bytes: 1MiB}
  - {name: peer-lat, kernel: transfer, link: peer, mode: latency, engine: sm, bytes: 64KiB, iterations: 2}
  - {name: allreduce, kernel: transfer, link: collective, bytes: 64KiB, iterations: 2}
EOF

# 1. a healthy run: the peer matrices in every form, with the file's numbers
mpi 4 --backend host --deck links.yaml --power off -o healthy.h5
expect_rc 0
"$MCFLEET" report healthy.h5 >healthy.txt 2>&1 || true
"$MCFLEET" report healthy.h5 --format json >healthy.json 2>/dev/null || true
"$MCFLEET" report healthy.h5 --format links-csv >healthy.csv 2>/dev/null || true
"$MCFLEET" report healthy.h5 --html healthy.html >/dev/null 2>html.err || true
expect_in healthy.txt "Links between the GPUs of a node"
expect_in healthy.txt "allreduce busbw_gbs"
expect_in healthy.html "Links between the GPUs of each node"
expect_in healthy.html 'alt="link matrix of node 0"'
"$PYTHON_H5" - healthy.h5 healthy.json healthy.csv healthy.txt <<'PY' || fail "the peer matrices"
import csv, json, sys, warnings
import h5py, numpy as np
warnings.simplefilter("ignore")
f = h5py.File(sys.argv[1], "r")
rep = json.load(open(sys.argv[2]))
rows = list(csv.DictReader(open(sys.argv[3], newline="")))
text = open(sys.argv[4]).read()
local = f["ranks/local_rank"][...]
links = {x["test"]: x for x in rep["links"]}
assert set(links) == {"peer", "peer-lat"}, sorted(links)
assert rep["gpus"][0]["figures"].get("allreduce busbw_gbs") is not None, "busbw_gbs is not judged"
for test, unit, lat in (("peer", "GB/s", False), ("peer-lat", "ns", True)):
    g = f["results"][test]
    want = np.full((4, 4), np.nan)
    for r in range(4):
        for j in range(4):
            v = g["peer%d_%s" % (j, "ns" if lat else "gbs")][r]
            want[local[r], j] = np.nanmedian(np.where(v > 0, v, np.nan))
    assert np.isnan(np.diag(want)).all() and np.isfinite(want[~np.eye(4, dtype=bool)]).all(), want
    x = links[test]
    assert x["link"] == "peer" and x["unit"] == unit and x["mode"] == ("latency" if lat else "throughput"), x
    (node,) = x["nodes"]
    got = np.array([[np.nan if v is None else v for v in row] for row in node["matrix"]])
    assert np.allclose(got, want, rtol=1e-12, equal_nan=True), (test, got, want)
    assert [gpu["local_rank"] for gpu in node["gpus"]] == [0, 1, 2, 3]
    wv = np.nanmax(want) if lat else np.nanmin(want)
    i, j = [int(k[0]) for k in np.where(want == wv)]
    w = node["worst"]
    assert (w["from_local_rank"], w["to_local_rank"]) == (i, j) and abs(w["value"] - wv) <= 1e-12 * wv, (w, i, j, wv)
    cells = [r for r in rows if r["test"] == test]
    assert len(cells) == 12, len(cells)
    for c in cells:
        assert c["link"] == "peer" and c["unit"] == unit and c["host"] == c["to_host"], c
        assert abs(float(c["value"]) - want[int(c["from_local_rank"]), int(c["to_local_rank"])]) <= 1e-12 * wv, c
    (worst,) = [c for c in cells if c["node_worst"] == "1"]
    assert (int(worst["from_local_rank"]), int(worst["to_local_rank"])) == (i, j), worst
    line = "%s (%s), node 0 (%s): worst %.4g %s, local rank %d \u2192 %d" % (
        test, unit, rep["gpus"][0]["host"], wv, unit, i, j)
    assert line in text, line
    assert ("%8.4g*" % wv) in text, "the worst cell is not marked"
print("ok: peer matrices")
PY

# 2. two nodes and a network test (runner's layout: round<r>_gbs, round<r>_partner,
#    bandwidth_gbs the median partner), rank 3's card slow: worst pairs 3.0 and 2.5
"$PYTHON_H5" - healthy.h5 net.h5 <<'PY' || fail "making the two-node file"
import shutil, sys
import h5py, numpy as np
shutil.copy(sys.argv[1], sys.argv[2])
f = h5py.File(sys.argv[2], "r+")
for name, v in (("node", [0, 0, 1, 1]), ("local_rank", [0, 1, 0, 1])):
    f["ranks"][name][...] = np.array(v, dtype=np.int64)
del f["ranks/hostname"]
f["ranks"].create_dataset("hostname", data=np.array([b"hostA", b"hostA", b"hostB", b"hostB"], dtype="S6"))
f["meta"].attrs["nnodes"] = 2
for t in ("peer", "peer-lat", "allreduce"):
    del f["results"][t]
g = f["results"].create_group("net")
h = f["results/h2d"]
for a in h.attrs:
    g.attrs[a] = h.attrs[a]
g.attrs["test"] = "net"
g.attrs["label"] = "transfer network 1MiB, 2 rounds"
g.attrs["measured"] = ("kernel=transfer link=network direction=in engine=copy host_memory=local mode=throughput "
                       "bytes=1048576 collective=allreduce scope=node rounds=2")
g.attrs["link"], g.attrs["rounds"] = np.bytes_("network"), np.int64(2)   # its keys, as the runner records them
metrics = ["bandwidth_gbs", "worst_gbs", "round0_gbs", "round0_partner", "round1_gbs", "round1_partner", "time_s"]
g.attrs["metrics"] = ",".join(metrics)
g.attrs["summary_metrics"] = "bandwidth_gbs"
for d in ("status", "verified", "message", "start_skew_us", "warmup_runs", "rep_start_s", "rep_end_s"):
    if d in h:
        h.copy(d, g)
reps = 8
gbs = np.array([[10.0, 10.0], [10.0, 3.0], [np.nan, 10.0], [2.5, 2.5]])   # rank 2 sat out round 0
partner = np.array([[2, 2], [3, 3], [np.nan, 0], [1, 1]], dtype=float)
def put(name, v, unit, better):
    d = g.create_dataset(name, data=np.repeat(np.asarray(v, float)[:, None], reps, axis=1))
    d.attrs["unit"], d.attrs["better"] = unit, better
put("bandwidth_gbs", np.nanmedian(gbs, axis=1), "GB/s", "higher")
put("worst_gbs", np.nanmin(gbs, axis=1), "GB/s", "none")
for r in range(2):
    put("round%d_gbs" % r, gbs[:, r], "GB/s", "none")
    put("round%d_partner" % r, partner[:, r], "rank", "none")
put("time_s", np.full(4, 1e-3), "s", "none")
f["results"].attrs["ntests"] = len(f["results"])
PY
"$MCFLEET" report net.h5 >net.txt 2>&1 || true
"$MCFLEET" report net.h5 --format json >net.json 2>/dev/null || true
"$MCFLEET" report net.h5 --format links-csv >net.csv 2>/dev/null || true
"$MCFLEET" report net.h5 --html net.html >/dev/null 2>>html.err || true
expect_in net.txt "Network, each node's worst pair"
expect_in net.txt "net (GB/s), node 0 (hostA): worst 3 GB/s, rank 1 (local rank 1) with world rank 3 on hostB, round 1"
expect_in net.txt "net (GB/s), node 1 (hostB): worst 2.5 GB/s, rank 3 (local rank 1) with world rank 1 on hostA, round 0"
expect_in net.txt "the link: network: node hostB (worst with hostA)"
expect_in net.txt "next: "
expect_in net.html "Network: each node's worst pair"
expect_in net.html "<td>hostB</td><td>3</td><td>1</td><td>1</td><td>hostA</td><td>0</td><td>2.5</td>"
"$PYTHON_H5" - net.json net.csv <<'PY' || fail "the network's worst pairs in JSON and CSV"
import csv, json, sys
rep = json.load(open(sys.argv[1]))
(net,) = [x for x in rep["links"] if x["test"] == "net"]
w = {n["host"]: n["worst"] for n in net["nodes"]}
assert w["hostA"] == {"rank": 1, "local_rank": 1, "round": 1, "partner_world_rank": 3, "partner_host": "hostB",
                      "value": 3.0}, w
assert w["hostB"]["rank"] == 3 and w["hostB"]["partner_host"] == "hostA" and w["hostB"]["value"] == 2.5, w
rows = [r for r in csv.DictReader(open(sys.argv[2], newline="")) if r["test"] == "net"]
assert len(rows) == 7, rows   # 8 rounds, one sat out
worst = sorted((r["host"], r["from_rank"], r["to_rank"], r["to_host"], r["round"], float(r["value"]))
               for r in rows if r["node_worst"] == "1")
assert worst == [("hostA", "1", "3", "hostB", "1", 3.0), ("hostB", "3", "1", "hostA", "0", 2.5)], worst
cause = [c for g in rep["gpus"] if g["rank"] == 3 for c in g["causes"] if c["test"] == "net"]
assert cause and "network: node hostB" in cause[0]["text"], cause
print("ok: network worst pairs")
PY

# 3. a slow host link on rank 2: FAIL alone, its link named
mkdir prof
"$PYTHON_H5" - healthy.h5 prof/host.yaml <<'PY' || fail "making the profile"
import sys, h5py, numpy as np
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
f = h5py.File(sys.argv[1], "r")
g = f["results/h2d"]
e = float(np.median(np.nanmedian(g["bandwidth_gbs"][...], axis=1)))
open(sys.argv[2], "w").write("\n".join([
    "sku: this machine's host ranks",
    "match: {arch: [%s], device_name: [\"%s\"]}" % (s(f["ranks/device_arch"][0]).split(":")[0],
                                                   s(f["ranks/device_name"][0])),
    "sources: {healthy: \"the healthy run of tests/report_links.sh\"}", "tests:",
    '  h2d: {metric: bandwidth_gbs, measured: "%s", expected: %.6f, floor: %.6f, source: "measured: host, %s, '
    'healthy.h5"}' % (s(g.attrs["measured"]), e, e / 4, s(f["meta"].attrs["start_time"])[:10])]) + "\n")
PY
MCFLEET_INJECT_SLOW='h2d@2' MCFLEET_INJECT_SLOW_FACTOR=8 mpi 4 --backend host --deck links.yaml --power off -o slow.h5
expect_rc 0
rc=0
"$MCFLEET" report --profiles prof slow.h5 >slow.txt 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat slow.txt; fail "a slow host link: report exit $rc, expected 1 (FAIL)"; }
expect_in slow.txt "FAIL rank 2 (world 2)"
expect_in slow.txt "- FAIL profile: h2d bandwidth_gbs"
expect_in slow.txt "; the link: host link (PCIe) of GPU none"
expect_in slow.txt "next: check the GPU's host link: its PCIe width and generation"
n=$(grep -c "^  FAIL" slow.txt || true)
[ "$n" = 1 ] || { cat slow.txt; fail "$n ranks FAIL, expected rank 2 alone"; }
"$MCFLEET" report --profiles prof slow.h5 --format json >slow.json 2>/dev/null || true
"$PYTHON_H5" -c "
import json, sys
rep = json.load(open('slow.json'))
bad = [g['rank'] for g in rep['gpus'] if g['verdict'] == 'FAIL']
assert bad == [2], bad
c = [c for c in rep['gpus'][2]['causes'] if c['rule'] == 'profile'][0]
assert 'host link (PCIe) of GPU' in c['text'] and 'PCIe width' in c['next'], c" || fail "the JSON of the slow run"
echo "ok: peer matrices (text, JSON, links-csv, page), network worst pairs, a slow host link FAILed alone and named"
