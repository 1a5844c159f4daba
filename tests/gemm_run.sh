#!/bin/sh
# The gemm family through the host backend's CBLAS, for real: every input kind
# verifies, a wrong element or a wrong layout fails verification, and a
# missing or incomplete library makes the test unsupported with the reason.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cat >"$work/deck.yaml" <<'DECK'
tests:
  - {name: g64, kernel: gemm, dtype: fp64, size: [64, 300], iterations: 2}
  - {name: g32, kernel: gemm, dtype: fp32, size: 256, iterations: 2}
  - {name: g32-exact, kernel: gemm, dtype: fp32, size: 256, iterations: 2, inputs: exact}
  - {name: g32-zero, kernel: gemm, dtype: fp32, size: 256, iterations: 2, inputs: zero}
  - {name: g16, kernel: gemm, dtype: fp16, size: 256}
DECK
cblas_present=1
"$MCFLEET" --deck "$work/deck.yaml" --list >/dev/null || fail "the gemm deck does not parse"

# 1. Debian's CBLAS (OpenBLAS): everything but fp16 verifies
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/a.h5"
if grep -q "no CBLAS library" "$work/out" "$work/err"; then
    cblas_present=0
    echo "note: no CBLAS on this machine (quickstart.sh installs libopenblas0-pthread); the stub carries the test"
else
    expect_rc 0
    expect_in "$work/out" "6 tests: 5 verified on every rank, 1 unsupported"
    expect_in "$work/out" "CBLAS multiplies fp64 and fp32 only; fp16 GEMMs need a GPU library"
    schema "$work/a.h5" 2
    "$PYTHON_H5" - "$work/a.h5" <<'PY' || fail "gemm figures in the file"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
g = f["results/g64:size=300"]
assert g.attrs["kernel"] == b"gemm" or g.attrs["kernel"] == "gemm", g.attrs["kernel"]
assert int(g.attrs["size"]) == 300 and int(g.attrs["iterations"]) == 2
assert g["verified"][:].tolist() == [1, 1]
assert np.all(g["gflops"][:] > 0), g["gflops"][:]
for t, kind in (("g32", "random"), ("g32-exact", "exact"), ("g32-zero", "zero")):
    v = f["results"][t].attrs["inputs"]
    assert (v.decode() if isinstance(v, bytes) else v) == kind, (t, v)
PY
fi

# 2. one wrong element is a failed verification naming it
MCFLEET_INJECT_FAULT='g32-exact' MCFLEET_CBLAS_LIB="$builddir/tests/libstub_cblas.so" \
    mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/b.h5"
expect_rc 1
expect_in "$work/out" "g32-exact: FAILED VERIFICATION on 1 of 1 ranks (rank 0: gemm fp32: D["

# 3. the stub library: a correct loop verifies; the layout mistake does not
MCFLEET_CBLAS_LIB="$builddir/tests/libstub_cblas.so" mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/c.h5"
expect_rc 0
expect_in "$work/out" "5 verified on every rank"
STUB_CBLAS_MODE=notrans MCFLEET_CBLAS_LIB="$builddir/tests/libstub_cblas.so" \
    mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/d.h5"
expect_rc 1
expect_in "$work/out" "g64:size=64: FAILED VERIFICATION"
expect_in "$work/out" "g32: FAILED VERIFICATION"
# zero inputs cannot tell the layouts apart, and must not fail
grep -q "g32-zero: FAILED" "$work/out" && fail "zero inputs failed under a transposed layout"

# 4. a library without cblas_sgemm, or none at all: unsupported, with the reason
MCFLEET_CBLAS_LIB="$builddir/tests/libstub_cblas_nosgemm.so" mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/e.h5"
expect_rc 0
expect_in "$work/out" "libstub_cblas_nosgemm.so: lacks cblas_sgemm"
MCFLEET_CBLAS_LIB=/nonexistent/libcblas.so.3 mpi 1 --backend host --deck "$work/deck.yaml" -o "$work/f.h5"
expect_rc 0
expect_in "$work/out" "no CBLAS library (/nonexistent/libcblas.so.3: /nonexistent/libcblas.so.3: cannot open shared object file"
echo "gemm run ok (Debian CBLAS present: $cblas_present)"
