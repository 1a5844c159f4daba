#!/bin/sh
# The plotting script reads a real results file and draws both figures.
. "$srcdir/tests/lib.sh"
need_mpirun
"$PYTHON_H5" -c 'import h5py, numpy, matplotlib' 2>/dev/null || { echo "SKIP: no matplotlib"; exit $SKIP; }
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
  - name: ai
    kernel: memory
    op: fma
    bytes: 2MiB
    intensity: [1, 8, 64]
YAML
mpi 2 --backend host --deck "$work/roof.yaml" -o "$work/r.h5"
expect_rc 0
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" variation "$work/r.h5" -o "$work/v.png" >"$work/p" || fail "variation plot"
expect_in "$work/p" "(5 tests)"
"$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/r.h5" -o "$work/rl.png" >"$work/p" || fail "roofline plot"
expect_in "$work/p" "(3 intensity points)"
[ -s "$work/v.png" ] && [ -s "$work/rl.png" ] || fail "no PNG written"
rc=0; "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$srcdir/tests/decks/tiny.yaml" 2>/dev/null || rc=$?
[ $rc != 0 ] || fail "a YAML file was accepted as results"
echo "analysis ok"
