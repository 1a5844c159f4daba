#!/bin/sh
# mcfleet baseline (analysis/mcfleet_baseline.py through the binary's
# subcommand): a SKU profile from a center's own runs, which mcfleet report
# then judges with. Two real runs of the host backend on 2 ranks; copies get
# steady figures per GPU (the host's own are as noisy as the machine is
# loaded), 4 GPU medians per test, one of them 20 % low:
#   the low one is removed as an outlier, named with its run, and the
#   expected figure is the median of the other three (100), its floor 7 %
#   below (the files' verdict rules);
#   mcfleet report --profiles with the baseline: a GPU below its floor FAILs
#   (rule profile), one above the expected figure is not "suspect";
#   an existing output, several SKUs without --sku, bad files: exit 2.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 5
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 20000}
  - {name: triad, kernel: memory, op: triad, bytes: 4MiB}
YAML
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/a.h5"
expect_rc 0
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/b.h5"
expect_rc 0
"$PYTHON_H5" - "$work" <<'PY' || fail "making the copies"
import shutil, sys, h5py, numpy as np
w = sys.argv[1]
def steady(src, dst, uuids, base, names=None):
    shutil.copy(src, dst)
    with h5py.File(dst, "r+") as h:
        h["ranks/device_uuid"][...] = np.array(uuids, dtype=h["ranks/device_uuid"].dtype)
        if names:
            h["ranks/device_name"][...] = np.array(names, dtype=h["ranks/device_name"].dtype)
        for t in h["results"]:
            g = h["results"][t]
            for m in g.attrs["summary_metrics"].decode().split(","):
                if m in g:
                    v = g[m][()]
                    for r in range(v.shape[0]):
                        v[r] = base[r] * np.resize([1.0, 1.001, 0.999, 1.0005, 0.9995], v.shape[1])
                    g[m][...] = v
steady(w + "/a.h5", w + "/a1.h5", ("GPU-aaaa", "GPU-bbbb"), (100.0, 100.5))
steady(w + "/b.h5", w + "/b1.h5", ("GPU-cccc", "GPU-dddd"), (99.5, 80.0))
steady(w + "/b.h5", w + "/good.h5", ("GPU-cccc", "GPU-dddd"), (99.0, 104.0))
steady(w + "/b.h5", w + "/bad.h5", ("GPU-cccc", "GPU-dddd"), (99.0, 90.0))
steady(w + "/b.h5", w + "/two.h5", ("GPU-cccc", "GPU-dddd"), (99.0, 99.0), names=("CPU A", "CPU B"))
PY
mkdir "$work/prof"
rc=0; "$MCFLEET" baseline "$work/a1.h5" "$work/b1.h5" -o "$work/prof/base.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline: exit $rc"; }
expect_in "$work/out" "2 tests from 2 runs"
y="$work/prof/base.yaml"
expect_in "$y" "# triad: removed GPU-dddd in run [1]: 80, -19.8% from the median"
expect_in "$y" "# GPUs (4): GPU-aaaa, GPU-bbbb, GPU-cccc, GPU-dddd"
expect_in "$y" "\"triad\": {metric: bandwidth_gbs, expected: 100, floor: 93,"
expect_in "$y" "source: \"measured: "
expect_in "$y" "$work/a1.h5 (started "
# the report judges with it
rc=0; "$MCFLEET" report --profiles "$work/prof" "$work/good.h5" >"$work/rg" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/rg"; fail "report of a good file with the baseline: exit $rc"; }
expect_in "$work/rg" "profile "
grep -q "baseline (" "$work/rg" || { cat "$work/rg"; fail "the baseline profile not chosen"; }
! grep -q suspect "$work/rg" || { cat "$work/rg"; fail "a figure above a measured baseline called suspect"; }
# the same figures cited from a document (a datasheet's peak): 104 above 100 is suspect
mkdir "$work/ds"
sed 's/source: "measured: [^"]*"/source: runs/' "$y" >"$work/ds/ds.yaml"
"$MCFLEET" report --profiles "$work/ds" "$work/good.h5" >"$work/rs" 2>&1
expect_in "$work/rs" "WARN suspect: peak gflops 104"
"$MCFLEET" report --profiles "$work/prof" --format json "$work/bad.h5" >"$work/rb.json" 2>/dev/null
"$PYTHON_H5" - "$work/rb.json" <<'PY' || fail "the GPU below the baseline's floor (json above)"
import json, sys
d = json.load(open(sys.argv[1]))
got = []
def walk(x, rank=None):
    if isinstance(x, dict):
        rank = x.get("rank", rank)
        if x.get("rule") == "profile":
            got.append((rank, x.get("test"), x.get("level")))
        for v in x.values():
            walk(v, rank)
    elif isinstance(x, list):
        for v in x:
            walk(v, rank)
walk(d)
assert sorted(set(got)) == [(1, "peak", "FAIL"), (1, "triad", "FAIL")], got
print("below the baseline's floor:", sorted(set(got)))
PY
# bad input
rc=0; "$MCFLEET" baseline "$work/a1.h5" -o "$work/prof/base.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "exists: give --force" "$work/e" || { cat "$work/e"; fail "existing output: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/two.h5" -o "$work/x.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "several SKUs ('CPU A', 'CPU B'): choose one with --sku" "$work/e" || { cat "$work/e"; fail "two SKUs: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/two.h5" "$work/two.h5" --sku "CPU B" -o "$work/x.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/e"; fail "--sku: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/deck.yaml" -o "$work/y.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -qF "$work/deck.yaml" "$work/e" && ! grep -q Traceback "$work/e" || { cat "$work/e"; fail "a deck as input: exit $rc"; }
[ ! -e "$work/y.yaml" ] || fail "a failed baseline left its output"
echo "baseline ok"
