#!/bin/sh
# The whole pipeline on 4 and 8 host ranks: file, schema, report.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py

mpi 4 --backend host --hdf5-mode collective --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/tiny.h5"
expect_rc 0
expect_in "$work/out" "[ 1/7"
expect_in "$work/out" "tiny-triad bandwidth_gbs"
schema "$work/tiny.h5" 4 --nnodes 1
[ ! -e "$work/tiny.h5.partial" ] || fail "the .partial file was left behind"

"$MCFLEET" report "$work/tiny.h5" >"$work/report" || fail "report exit $?"
expect_in "$work/report" "4 ranks on 1 node"
expect_in "$work/report" "tiny-chase:working_set=4096 latency_ns"
expect_in "$work/report" "tiny-fp16: unsupported on 4 of 4 ranks"
expect_in "$work/report" "7 tests: 6 verified on every rank, 1 unsupported, 0 failed verification"

# The issue's acceptance run: the default deck, quick, 8 ranks.
mpi 8 --backend host --quick -o "$work/x.h5"
expect_rc 0
schema "$work/x.h5" 8
# the write strategy as recorded: asked for, and chosen by --hdf5-mode auto (8 ranks: gather)
"$PYTHON_H5" - "$work/tiny.h5" "$work/x.h5" <<'PY' || fail "hdf5_write_mode"
import sys, h5py
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert s(h5py.File(sys.argv[1], "r")["meta"].attrs["hdf5_write_mode"]) == "collective"
assert s(h5py.File(sys.argv[2], "r")["meta"].attrs["hdf5_write_mode"]) == "gather"
PY
echo "fleet run ok"
