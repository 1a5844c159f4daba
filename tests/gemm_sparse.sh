#!/bin/sh
# The gemm family with a 2:4 A (sparsity: 2:4) through the host backend: a
# dense BLAS multiplies the pruned A (gemm_check.h's mask), so the masking,
# the check against the pruned operand and the figures run for real, and the
# test says there was no sparse speedup. The dense tests' "measured" text is
# what it was (the key is quiet at its default); the sparse ones name it.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<'DECK'
tests:
  - {name: d32, kernel: gemm, dtype: fp32, size: 256, iterations: 2}
  - {name: s32, kernel: gemm, dtype: fp32, size: 256, iterations: 2, sparsity: "2:4"}
  - {name: s64, kernel: gemm, dtype: fp64, size: 128, iterations: 2, sparsity: "2:4"}
  - {name: s32-exact, kernel: gemm, dtype: fp32, size: 256, iterations: 2, sparsity: "2:4", inputs: exact}
  - {name: s16, kernel: gemm, dtype: fp16, size: 256, sparsity: "2:4"}
DECK
export MCFLEET_CBLAS_LIB="$builddir/tests/libstub_cblas.so"

# 1. the stub CBLAS (a plain loop): every host type verifies against the pruned A
mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/a.h5"
expect_rc 0
expect_in "$work/out" "5 tests: 4 verified on every rank, 1 unsupported"
grep -q "MALFORMED" "$work/out" "$work/err" && fail "the 2:4 run's file is judged malformed"
expect_in "$work/out" "gemm fp32 256^3 2:4 x2"
"$PYTHON_H5" - "$work/a.h5" <<'PY' || fail "2:4 gemm figures in the file"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s = lambda v: v.decode() if isinstance(v, bytes) else str(v)
r = f["results"]
d, sp = r["d32"], r["s32"]
assert s(d.attrs["measured"]) == "kernel=gemm dtype=fp32 size=256 inputs=random", s(d.attrs["measured"])
assert s(sp.attrs["measured"]) == "kernel=gemm dtype=fp32 size=256 inputs=random sparsity=2:4", s(sp.attrs["measured"])
assert "gflops_executed" not in d and "encode_s" not in d, list(d)
for t in ("s32", "s64", "s32-exact"):
    g = r[t]
    assert g["verified"][:].tolist() == [1], (t, g["verified"][:])
    gf, ex = g["gflops"][:], g["gflops_executed"][:]
    assert np.all(gf > 0) and np.allclose(gf, ex), (t, gf, ex)   # a dense BLAS executes all of it
    assert "encode_s" not in g, list(g)   # the host encodes nothing per call: no such figure
    msg = s(g["message"][0])
    assert "host: dense BLAS" in msg and "no sparse speedup" in msg, msg
assert s(r["s16"]["message"][0]).startswith("CBLAS multiplies fp64 and fp32 only"), s(r["s16"]["message"][0])
PY

# the report puts the 2:4 gemm beside the dense one of the same type and size
"$MCFLEET" report "$work/a.h5" >"$work/report"
grep -E "^  s32 +[0-9.e+]+ +d32 +[0-9.e+]+ +[0-9.]+x$" "$work/report" >/dev/null || { cat "$work/report"; fail "no s32 / d32 line"; }
# a roofline is drawn from the dense tests: a 2:4 rate is no library line
if "$PYTHON_H5" -c 'import matplotlib' 2>/dev/null; then
    printf 'tests:\n  - {name: rung, kernel: ladder, rung: naive, dtype: fp32, size: 64}\n  - {name: d32, kernel: gemm, dtype: fp32, size: 256, iterations: 2}\n  - {name: s32, kernel: gemm, dtype: fp32, size: 256, iterations: 2, sparsity: "2:4"}\n' >"$work/roof.yaml"
    mpi 1 --backend host --deck "$work/roof.yaml" -o "$work/roof.h5"
    expect_rc 0
    "$PYTHON_H5" "$srcdir/analysis/mcfleet_plot.py" roofline "$work/roof.h5" -o "$work/roof.png" >"$work/roof" 2>&1 ||
        { cat "$work/roof"; fail "the roofline of a file with a 2:4 gemm"; }
    expect_in "$work/roof" "placed d32: library gemm"
    ! grep -q "placed s32" "$work/roof" || { cat "$work/roof"; fail "a 2:4 gemm placed on the roofline"; }
fi

# 2. a wrong element is a failed verification naming it, in a 2:4 test too
MCFLEET_INJECT_FAULT='s32-exact' mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/b.h5"
expect_rc 1
expect_in "$work/out" "s32-exact: FAILED VERIFICATION on 1 of 1 ranks (rank 0: gemm fp32: D["

# 3. the transposed-layout stub: the 2:4 tests fail as the dense one does
STUB_CBLAS_MODE=notrans mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/c.h5"
expect_rc 1
expect_in "$work/out" "s32: FAILED VERIFICATION"
expect_in "$work/out" "s64: FAILED VERIFICATION"

# 4. a 2:4 size must split into groups of four
printf 'tests:\n  - {name: odd, kernel: gemm, dtype: fp32, size: 66, sparsity: "2:4"}\n' >"$work/odd.yaml"
rc=0
"$MCFLEET" --deck "$work/odd.yaml" --list >"$work/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || { cat "$work/out"; fail "a 2:4 size of 66 gave exit code $rc, expected 2"; }
expect_in "$work/out" "'sparsity: 2:4' needs a 'size' that is a multiple of 4"
echo "gemm 2:4 on the host ok"
