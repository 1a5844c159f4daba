#!/bin/sh
# 2:4 sparse matrix tests through the host backend: verified against the
# pruned A's product; gflops dense-equivalent and gflops_executed half of it;
# "measured" names the sparsity only where a test has it; the report puts
# each sparse test beside its dense twin; a corrupted element fails; a k
# that is no multiple of 4 is a deck error naming the test and key.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
mpi 1 --backend host --deck "$srcdir/tests/decks/sparse.yaml" -o "$work/s.h5"
expect_rc 0
schema "$work/s.h5" 1
"${PYTHON_H5:-/usr/bin/python3}" - "$work/s.h5" <<'PY' || fail "sparse results"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
t = f["results"]
def measured(g):
    v = g.attrs["measured"]
    return v.decode() if isinstance(v, bytes) else v
for name in ("fp64-sparse", "fp32-sparse-exact"):
    g = t[name]
    assert measured(g).endswith(" sparsity=2:4"), measured(g)
    gf, ex = g["gflops"][...], g["gflops_executed"][...]
    assert np.all(gf > 0) and np.allclose(ex, gf / 2), (gf, ex)
assert "sparsity" not in measured(t["fp64-dense"])
assert "gflops_executed" not in t["fp64-dense"]
print("ok")
PY
"$MCFLEET" report "$work/s.h5" >"$work/report"
expect_in "$work/report" "2:4 sparse beside dense"
grep -E "^  fp64-sparse +[0-9.e+]+ +fp64-dense +[0-9.e+]+ +[0-9.]+x$" "$work/report" >/dev/null ||
    { cat "$work/report"; fail "no fp64 sparse/dense line"; }
grep -E "^  fp32-sparse-lat .* fp32-dense-lat .*x  \(latency, cycles\)$" "$work/report" >/dev/null ||
    grep -E "^  fp32-sparse-lat +- " "$work/report" >/dev/null || { cat "$work/report"; fail "no latency pair line"; }
grep -q "fp32-sparse-exact" "$work/report" && ! grep -E "^  fp32-sparse-exact " "$work/report" >/dev/null ||
    fail "a sparse test without a dense twin was paired"

MCFLEET_INJECT_FAULT='fp64-sparse' mpi 1 --backend host --deck "$srcdir/tests/decks/sparse.yaml" -o "$work/f.h5"
expect_rc 1
"$MCFLEET" report "$work/f.h5" >"$work/freport"
expect_in "$work/freport" "fp64-sparse: FAILED VERIFICATION"

printf 'tests:\n  - { name: odd-k, kernel: matrix, dtype: fp64, shape: [8, 8, 6], sparsity: 2:4 }\n' >"$work/bad.yaml"
mpi 1 --backend host --deck "$work/bad.yaml" -o "$work/b.h5"
expect_rc 2
expect_in "$work/err" "test 'odd-k': 'sparsity: 2:4' needs the shape's k (the uncompressed k) a multiple of 4, got 6"
printf 'tests:\n  - { name: bad-sp, kernel: matrix, dtype: fp64, shape: [8, 8, 8], sparsity: 1:4 }\n' >"$work/bad2.yaml"
mpi 1 --backend host --deck "$work/bad2.yaml" -o "$work/b2.h5"
expect_rc 2
expect_in "$work/err" "sparsity"
echo "sparse matrix ok"
