#!/bin/sh
# mcfleet baseline of a lower-is-better figure that is not latency_ns: a
# test whose judged metric is a latency in cycles (what a TMA or DSM chase
# judges on a GPU; made here from a host chase by renaming its latency_ns).
# The direction is the file's (the metric's attribute better, from the family
# row), so the baseline writes a ceiling, and mcfleet report with it FAILs
# GPUs 10 % slower (more cycles) and PASSes GPUs 10 % faster. (Before the
# schema, baseline took every metric but latency_ns as higher-is-better.)
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 5
  warmup: 1
tests:
  - {name: chase, kernel: latency, working_set: 64KiB, iterations: 20000}
YAML
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/run.h5"
expect_rc 0
"$PYTHON_H5" - "$work" <<'PY' || fail "making the copies"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
def cycles(dst, uuids, base):
    shutil.copy(w + "/run.h5", dst)
    with h5py.File(dst, "r+") as h:
        h["ranks/device_uuid"][...] = np.array(uuids, dtype=h["ranks/device_uuid"].dtype)
        g = h["results/chase"]
        assert g["latency_ns"].attrs["better"] == b"lower", g["latency_ns"].attrs["better"]
        g.move("latency_ns", "latency_cycles")
        g["latency_cycles"].attrs["unit"] = np.bytes_("cycles")
        for a in ("summary_metrics", "metrics"):
            g.attrs[a] = np.bytes_(g.attrs[a].decode().replace("latency_ns", "latency_cycles"))
        v = g["latency_cycles"][()]
        for r in range(v.shape[0]):
            v[r] = base[r] * np.resize([1.0, 1.001, 0.999, 1.0005, 0.9995], v.shape[1])
        g["latency_cycles"][...] = v
cycles(w + "/a.h5", ("GPU-aaaa", "GPU-bbbb"), (100.0, 100.5))
cycles(w + "/b.h5", ("GPU-cccc", "GPU-dddd"), (99.5, 100.0))
cycles(w + "/slow.h5", ("GPU-cccc", "GPU-dddd"), (110.0, 110.0))
cycles(w + "/fast.h5", ("GPU-cccc", "GPU-dddd"), (90.0, 90.0))
PY
mkdir "$work/prof"
rc=0; "$MCFLEET" baseline "$work/a.h5" "$work/b.h5" -o "$work/prof/base.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline: exit $rc"; }
y="$work/prof/base.yaml"
expect_in "$y" "\"chase\": {metric: latency_cycles, measured: \"kernel=latency working_set=65536 stride=64\""
expect_in "$y" ", expected: 100, ceiling: 107,"
if grep -q "floor:" "$y"; then cat "$y"; fail "a latency in cycles got a floor"; fi
rc=0; "$MCFLEET" report "$work/slow.h5" --profiles "$work/prof" >"$work/slow.txt" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$work/slow.txt"; fail "10 % more cycles: exit $rc, expected 1 (FAIL)"; }
expect_in "$work/slow.txt" "chase latency_cycles 110 cycles: above the"
expect_in "$work/slow.txt" "ceiling 107"
rc=0; "$MCFLEET" report "$work/fast.h5" --profiles "$work/prof" >"$work/fast.txt" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/fast.txt"; fail "10 % fewer cycles: exit $rc, expected 0 (PASS)"; }
expect_in "$work/fast.txt" "verdict: PASS"
echo "PASS: a latency in cycles is baselined as lower-is-better: 10 % slower FAILs, 10 % faster PASSes"
