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
#   an existing output, several SKUs without --sku, bad files: exit 2;
#   a run path holding a newline and "sku: x" gives a profile that loads.
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
expect_in "$y" "\"triad\": {metric: bandwidth_gbs, measured: \"kernel=memory dtype=fp64 level=hbm op=triad bytes=4194304 "
expect_in "$y" ", expected: 100, floor: 93,"
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
[ $rc = 2 ] && grep -qF -- "-o '$work/prof/base.yaml' exists: mcfleet does not overwrite results" "$work/e" || { cat "$work/e"; fail "existing output: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/two.h5" -o "$work/x.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "several SKUs ('CPU A', 'CPU B'): choose one with --sku" "$work/e" || { cat "$work/e"; fail "two SKUs: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/two.h5" "$work/two.h5" --sku "CPU B" -o "$work/x.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/e"; fail "--sku: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/deck.yaml" -o "$work/y.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -qF "$work/deck.yaml" "$work/e" && ! grep -q Traceback "$work/e" || { cat "$work/e"; fail "a deck as input: exit $rc"; }
[ ! -e "$work/y.yaml" ] || fail "a failed baseline left its output"

# ---- issue 26: baselines that load.
# 1. the shipped H200 files (a file older than the verdict rules and the
#    measured attribute, and one of 2026-11-26): plain figures (1676990, not
#    1.67699e+06), the report loads it, a GPU 10 % below it FAILs
mkdir "$work/h200"
b1="$srcdir/docs/bench/2026-11-23-h200-acceptance/acc.h5" b2="$srcdir/docs/bench/2026-11-26-x2-disturbed/run1-clean.h5"
rc=0; "$MCFLEET" baseline "$b1" "$b2" -o "$work/h200/h200.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline of the H200 files: exit $rc"; }
! grep -q "e+0" "$work/h200/h200.yaml" || { cat "$work/h200/h200.yaml"; fail "a figure with an exponent"; }
expect_in "$work/h200/h200.yaml" "\"matrix-fp8\": {metric: gflops, measured: \"kernel=matrix dtype=fp8-e4m3 dtype_b=fp8-e4m3 shape=64x256x32 mode=throughput path=wgmma-ss"
# every test of both files, the older one (no measured attribute) rebuilt as this build records it
for t in matrix-fp64 matrix-tf32 matrix-fp16 matrix-bf16 matrix-int8 valu-fp64 valu-fp32 hbm-triad hbm-read chase-hbm; do
    grep -q "^  \"$t\": {metric: " "$work/h200/h200.yaml" || { cat "$work/h200/h200.yaml"; fail "$t not in the H200 baseline"; }
done
rc=0; "$MCFLEET" report --profiles "$work/h200" "$b2" >"$work/r1" 2>&1 || rc=$?
[ $rc = 0 ] && grep -q "profile NVIDIA H200 baseline" "$work/r1" || { cat "$work/r1"; fail "report of the H200 pair with its baseline: exit $rc"; }
cp "$b2" "$work/slow.h5"
"$PYTHON_H5" - "$work/slow.h5" <<'PY' || fail "making the slow GPU"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as h:
    d = h["results/matrix-fp16/gflops"]
    v = d[...]
    v[1] *= 0.9
    d[...] = v
PY
"$MCFLEET" report --profiles "$work/h200" --format json "$work/slow.h5" >"$work/r2.json" 2>/dev/null
"$PYTHON_H5" - "$work/r2.json" <<'PY' || fail "a GPU 10 % below the H200 baseline"
import json, sys
d = json.load(open(sys.argv[1]))
g = {x["rank"]: x for x in d["gpus"]}
prof = [(c["test"], c["level"]) for c in g[1]["causes"] if c["rule"] == "profile"]
assert ("matrix-fp16", "FAIL") in prof, g[1]["causes"]
assert not [c for c in g[0]["causes"] if c["rule"] == "profile"], g[0]["causes"]
PY
# 2. a run with sweep tests: its points' names load as profile tests
cat >"$work/sweep.yaml" <<YAML
defaults:
  repetitions: 4
  warmup: 1
tests:
  - {name: intensity, kernel: memory, op: fma, bytes: 1MiB, intensity: [1, 16]}
YAML
mpi 2 --backend host --deck "$work/sweep.yaml" -o "$work/s1.h5"
expect_rc 0
mpi 2 --backend host --deck "$work/sweep.yaml" -o "$work/s2.h5"
expect_rc 0
# (steady figures, as above: the host's own are as noisy as the machine is loaded)
"$PYTHON_H5" - "$work/s1.h5" "$work/s2.h5" <<'PY' || fail "steadying the sweep's figures"
import sys, h5py, numpy as np
for path in sys.argv[1:]:
    with h5py.File(path, "r+") as h:
        for t in h["results"]:
            g = h["results"][t]
            for m in g.attrs["summary_metrics"].decode().split(","):
                if m in g:
                    v = g[m][()]
                    v[...] = np.resize([100.0, 100.1, 99.9, 100.05], v.shape)
                    g[m][...] = v
PY
mkdir "$work/sw"
rc=0; "$MCFLEET" baseline "$work/s1.h5" "$work/s2.h5" -o "$work/sw/sweep.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline of a sweep: exit $rc"; }
expect_in "$work/sw/sweep.yaml" "\"intensity:intensity=16\": {metric:"
rc=0; "$MCFLEET" report --profiles "$work/sw" "$work/s2.h5" >"$work/r3" 2>&1 || rc=$?
[ $rc -le 1 ] || { cat "$work/r3"; fail "report with a sweep's baseline: exit $rc"; }
grep -q "^  intensity:intensity=16 .* bandwidth_gbs" "$work/r3" && ! grep -q "not judged" "$work/r3" ||
    { cat "$work/r3"; fail "the sweep's points not judged against their baseline"; }
# 3. a --quick run is refused, unless told
# (a steady copy marked as a --quick run: the host's own quick figures are noise)
cp "$work/a1.h5" "$work/q.h5"
"$PYTHON_H5" -c "import h5py, sys; h5py.File(sys.argv[1], 'r+')['meta'].attrs['quick'] = 1" "$work/q.h5" ||
    fail "marking a --quick run"
rc=0; "$MCFLEET" baseline "$work/q.h5" "$work/b1.h5" -o "$work/q.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -q "q.h5: a --quick run (small sizes, few repetitions), not what a full run reaches" "$work/e" ||
    { cat "$work/e"; fail "a --quick run baselined: exit $rc"; }
rc=0; "$MCFLEET" baseline "$work/q.h5" "$work/b1.h5" --allow-quick -o "$work/q.yaml" >"$work/e" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/e"; fail "--allow-quick: exit $rc"; }
# 4. one broken profile beside the good one: named, skipped, the good one used
printf 'sku: broken\nmatch: {arch: [x86_64], device_name: ["zzz"]}\nsources: {}\ntests:\n  peak: {metric: gflop}\n' >"$work/prof/broken.yaml"
rc=0; "$MCFLEET" report --profiles "$work/prof" "$work/good.h5" >"$work/r4" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/r4"; fail "a broken profile beside the good one: exit $rc"; }
expect_in "$work/r4" "SKU profile not used, it does not load: $work/prof/broken.yaml:3:10: 'sources' is empty"
grep -q "baseline (" "$work/r4" || { cat "$work/r4"; fail "the good profile not used beside a broken one"; }
# ---- issue 27: text from the files and their names goes into the profile
# shown, never obeyed: a run whose path holds a newline and "sku: x" (and a
# CR, U+2028, NEL) gives a profile of one line per comment, the path's
# control characters shown as '?', which the report loads and uses
nl=$(printf '%s/run\nsku: x\r\342\200\250\302\205.h5' "$work")
cp "$work/a1.h5" "$nl"
mkdir "$work/nlprof"
rc=0; "$MCFLEET" baseline "$nl" "$work/b1.h5" -o "$work/nlprof/base.yaml" >"$work/out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/out"; fail "baseline of a run whose path holds a newline: exit $rc"; }
y="$work/nlprof/base.yaml"
[ "$(grep -c '^sku:' "$y")" = 1 ] || { cat "$y"; fail "the path's newline made a key of the profile"; }
expect_in "$y" "#   [0] $work/run?sku: x???.h5  started "
! LC_ALL=C grep -q "$(printf '\r')" "$y" || fail "a CR in the profile"
rc=0; "$MCFLEET" report --profiles "$work/nlprof" "$work/good.h5" >"$work/r5" 2>&1 || rc=$?
[ $rc = 0 ] && grep -q "baseline (" "$work/r5" && ! grep -q "does not load" "$work/r5" ||
    { cat "$y" "$work/r5"; fail "the profile of a run whose path holds a newline: report exit $rc, or not used"; }
# the same name in the report's text and compare's lines: one line, the
# controls shown (an escape sequence in a name must not reach a terminal)
esc=$(printf '%s/run\033[2J\nsku: x\342\200\256.h5' "$work")
cp "$work/a1.h5" "$esc"
"$MCFLEET" report "$esc" >"$work/r6" 2>&1
"$MCFLEET" compare "$work/b1.h5" "$esc" >"$work/c6" 2>&1
for o in r6 c6; do
    ! grep -q "$(printf '\033')" "$work/$o" && ! grep -q "^sku: x" "$work/$o" && grep -qF "$work/run?[2J?sku: x?.h5" "$work/$o" ||
        { cat -A "$work/$o"; fail "a file name with an escape, a newline and U+202E in $o: not shown on one line"; }
done
echo "baseline ok"
