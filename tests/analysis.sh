#!/bin/sh
# The plotting script reads a real results file and draws both figures; the
# roofline draws one roof per memory level with how the file says the level
# was hit (/meta level_method_<level>).
. "$srcdir/tests/lib.sh"
need_mpirun
need_matplotlib
cat >"$work/roof.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - name: peak
    kernel: valu
    dtype: fp64
    iterations: 20000
  - name: triad
    kernel: memory
    op: triad
    bytes: 4MiB
  - name: l2r
    kernel: memory
    level: l2
    op: read
    bytes: 256KiB
  - name: ai
    kernel: memory
    op: fma
    bytes: 2MiB
    intensity: [1, 8, 64]
YAML
mpi 2 --backend host --deck "$work/roof.yaml" -o "$work/r.h5"
expect_rc 0
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.png" >"$work/p" || fail "variation plot"
expect_in "$work/p" "(6 tests)"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/r.h5" -o "$work/rl.png" >"$work/p" || fail "roofline plot"
expect_in "$work/p" "(3 intensity points, 2 roofs)"
expect_in "$work/p" "hbm ceiling"
expect_in "$work/p" "l2 ceiling"
expect_in "$work/p" "(l2r): the level targeted by the arrays' size alone"
[ -s "$work/v.png" ] && [ -s "$work/rl.png" ] || fail "no PNG written"
# fp64 FMA sweep at 1, 8, 64 FMAs per element: 2k FLOP per 16 bytes, taken from
# the file (a copy with the work doubled moves the points; a copy without the
# attributes, as older files are, gets the same points from the kernel's keys)
expect_in "$work/p" "(FLOP/byte, the file's flop_per_unit / bytes_per_unit): 0.125 1 8"
cp "$work/r.h5" "$work/w2.h5"; cp "$work/r.h5" "$work/old.h5"
"$PYTHON_H5" - "$work/w2.h5" "$work/old.h5" <<'PY' || fail "editing the copies"
import sys, h5py
with h5py.File(sys.argv[1], "r+") as h:
    for t in h["results"]:
        if t.startswith("ai"):
            h["results"][t].attrs["flop_per_unit"] *= 2
with h5py.File(sys.argv[2], "r+") as h:
    for t in h["results"]:
        del h["results"][t].attrs["flop_per_unit"], h["results"][t].attrs["bytes_per_unit"]
    for k in [k for k in h["meta"].attrs if k.startswith("verdict_")]:
        del h["meta"].attrs[k]
    del h["results"].attrs["status_codes"]
PY
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/w2.h5" -o "$work/x.png" --force >"$work/p" || fail "roofline, work doubled"
expect_in "$work/p" "flop_per_unit / bytes_per_unit): 0.25 2 16"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/old.h5" -o "$work/x.png" --force >"$work/p" || fail "roofline, older file"
expect_in "$work/p" "flop_per_unit / bytes_per_unit): 0.125 1 8"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/old.h5" -o "$work/x.png" --force >"$work/p" || fail "variation, older file"
# the one reader: the file's own constants, the report's rules among them
"$PYTHON_H5" - "$srcdir/analysis" "$work/r.h5" "$work/old.h5" <<'PY' || fail "analysis/mcfleet_results.py"
import sys
sys.path.insert(0, sys.argv[1])
import mcfleet_results as m
r = m.Results(sys.argv[2])
codes = r.status_codes()
assert codes[1] == "verified" and codes[0] == "wrong" and codes[-3] == "not run" and len(codes) == 7, codes
rules = r.rules()
assert rules == {"warn_rel": 0.035, "fail_rel": 0.07, "alpha": 0.01, "k_min": 3.5, "small_n": 2.5,
                 "clock_rel": 0.02}, rules
work = {n: r.work(g, gn) for n, gn, g in r.tests()}
assert work["triad"] == (2.0, 24.0) and work["peak"] == (2.0, 0.0), work
old = m.Results(sys.argv[3])
assert old.rules() is None and old.status_codes() == codes, "an older file: no rules, the old codes"
assert all(old.work(g, gn) is None for _, gn, g in old.tests())
try:
    m.parse_status_codes(b"1=verified,zero")
    raise SystemExit("a malformed status_codes was accepted")
except ValueError as e:
    assert "'zero'" in str(e), e
print("mcfleet_results: codes, rules and work from the file")
PY
# input it cannot use: exit 2, one line naming the file, no traceback
for bad in "$srcdir/tests/decks/tiny.yaml" "$work/none.h5" "$work"; do
    rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$bad" -o "$work/x.png" --force 2>"$work/e" || rc=$?
    [ $rc = 2 ] || { cat "$work/e"; fail "roofline on $bad: exit $rc, expected 2"; }
    grep -qF "$bad" "$work/e" && ! grep -q Traceback "$work/e" || { cat "$work/e"; fail "roofline on $bad: message"; }
done
rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" --tests 'no-such-*' -o "$work/x.png" --force \
    2>"$work/e" || rc=$?
[ $rc = 2 ] || { cat "$work/e"; fail "no test matching: exit $rc, expected 2"; }
rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/no/such/dir/v.png" \
    2>"$work/e" || rc=$?
[ $rc = 3 ] || { cat "$work/e"; fail "an unwritable figure: exit $rc, expected 3"; }

# the throughput model fit of a matrix occupancy sweep (host: threads; no clock)
cat >"$work/occ.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - name: mm
    kernel: matrix
    dtype: fp64
    shape: [8, 8, 4]
    iterations: 2000
    occupancy: [1, 2, 4]
YAML
mpi 1 --backend host --deck "$work/occ.yaml" -o "$work/o.h5"
expect_rc 0
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" occupancy "$work/o.h5" -o "$work/o.png" --csv "$work/o.csv" >"$work/p" \
    || { cat "$work/p"; fail "occupancy fit"; }
expect_in "$work/p" "fp64 8x8x4"
expect_in "$work/p" "(1 sweeps)"
[ "$(wc -l <"$work/o.csv")" = 4 ] || { cat "$work/o.csv"; fail "expected 3 points in the CSV"; }
# the CSV's model column is the printed fit, a * min(N, S) (no clock on the host)
"$PYTHON_H5" - "$work/o.csv" "$work/p" <<'PY' || fail "model column"
import csv, re, sys
rows = list(csv.DictReader(open(sys.argv[1])))
m = re.search(r"a = ([0-9.e+-]+) FLOP/s per wave \(no clock\), saturates at N = (\d+)", open(sys.argv[2]).read())
a, s = float(m.group(1)), int(m.group(2))
assert [int(r["waves"]) for r in rows] == sorted(int(r["waves"]) for r in rows)
assert s in [int(r["waves"]) for r in rows]
for r in rows:
    want = a * min(int(r["waves"]), s) / 1e9
    assert float(r["gflops"]) > 0 and abs(float(r["model_gflops"]) - want) <= 1e-3 * want, (r, want)
PY
rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" occupancy "$work/r.h5" -o "$work/x.png" --force 2>/dev/null || rc=$?
[ $rc = 2 ] || fail "a file without an occupancy sweep: exit $rc, expected 2"

# the heatmap of node x local GPU: a rank with a wrong result is counted as
# without a figure (drawn grey), never dropped; an unknown --metric is named
MCFLEET_INJECT_FAULT='triad@1' mpi 2 --backend host --deck "$work/roof.yaml" -o "$work/f.h5"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" heatmap "$work/f.h5" --metric triad:bandwidth_gbs -o "$work/h.png" \
    >"$work/p" 2>&1 || { cat "$work/p"; fail "heatmap"; }
expect_in "$work/p" "(triad bandwidth_gbs, 2 GPUs, 1 without a figure)"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" heatmap "$work/r.h5" -o "$work/h.png" --force >"$work/p" 2>&1 \
    || { cat "$work/p"; fail "heatmap, default figure"; }
expect_in "$work/p" "2 GPUs, 0 without a figure"
rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" heatmap "$work/r.h5" --metric nosuch -o "$work/x.png" --force 2>"$work/e" || rc=$?
[ $rc = 2 ] && grep -q "^mcfleet_plot: --metric nosuch: .*there are: peak:gflops" "$work/e" \
    || { cat "$work/e"; fail "heatmap --metric nosuch: exit $rc, expected 2 naming the figures"; }
# no power source, no sustained test: exit 2 saying so
for sub in power sustained; do
    rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" $sub "$work/r.h5" -o "$work/$sub.png" 2>"$work/e" || rc=$?
    [ $rc = 2 ] && grep -qF "$work/r.h5: no " "$work/e" && ! grep -q Traceback "$work/e" \
        || { cat "$work/e"; fail "$sub of a file without its figures: exit $rc, expected 2"; }
    [ ! -e "$work/$sub.png" ] || fail "$sub: a figure written for a file without its figures"
done
echo "analysis ok"
