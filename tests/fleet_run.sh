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

# The verdict: host ranks sharing two loaded CPUs may differ by more than the
# peer rule's 7 % (a FAIL, exit 1, is then right); nothing else may fail
rc=0; "$MCFLEET" report "$work/tiny.h5" >"$work/report" || rc=$?
[ $rc = 0 ] || [ $rc = 1 ] || fail "report exit $rc"
expect_in "$work/report" "VERDICT: "
"$MCFLEET" report "$work/tiny.h5" --format json >"$work/report.json" && rc=0 || rc=$?
"$PYTHON_H5" - "$work/report.json" $rc <<'PY' || fail "the JSON verdict"
import json, sys
r = json.load(open(sys.argv[1]))
assert r["exit_code"] == int(sys.argv[2]), (r["exit_code"], sys.argv[2])
assert r["counts"]["gpus"] == 4 and len(r["gpus"]) == 4
rules = {c["rule"] for g in r["gpus"] for c in g["causes"]}
assert rules <= {"fleet-peer", "node-peer"}, rules
assert r["verdict"] == ("FAIL" if any(c["level"] == "FAIL" for g in r["gpus"] for c in g["causes"]) else
                        "WARN" if rules else "PASS"), r["verdict"]
PY
expect_in "$work/report" "4 ranks on 1 node"
expect_in "$work/report" "tiny-chase:working_set=4096 latency_ns"
expect_in "$work/report" "tiny-fp16: unsupported on 4 of 4 ranks"
expect_in "$work/report" "7 tests: 6 verified on every rank, 1 unsupported, 0 failed verification"

# The issue's acceptance run: the default deck, quick, 8 ranks.
mpi 8 --backend host --quick -o "$work/x.h5"
expect_rc 0
# mpirun --oversubscribe makes Open MPI yield: no warning is due
! grep -q "oversubscribed" "$work/out" "$work/err" || fail "warned of oversubscription under mpirun --oversubscribe"
schema "$work/x.h5" 8
# the write strategy as recorded: asked for, and chosen by --hdf5-mode auto (8 ranks: gather)
"$PYTHON_H5" - "$work/tiny.h5" "$work/x.h5" <<'PY' || fail "hdf5_write_mode"
import sys, h5py
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert s(h5py.File(sys.argv[1], "r")["meta"].attrs["hdf5_write_mode"]) == "collective"
assert s(h5py.File(sys.argv[2], "r")["meta"].attrs["hdf5_write_mode"]) == "gather"
PY
# more ranks than CPUs, the MPI not told to yield (slots declared, no
# --oversubscribe): the run warns, and records it
n=$(( $(getconf _NPROCESSORS_ONLN) + 1 ))
rc=0
"$MPIRUN" -np $n --host localhost:$n --bind-to none --mca btl self,vader,tcp \
    "$MCFLEET" --backend host --quick --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/ov.h5" >"$work/out" 2>&1 || rc=$?
expect_rc 0
expect_in "$work/out" "warning: 1 node oversubscribed: rank 0's has $n ranks on $((n - 1)) online CPUs"
"$PYTHON_H5" -c "
import h5py, sys
sys.exit(0 if int(h5py.File('$work/ov.h5', 'r')['meta'].attrs['oversubscribed_nodes']) == 1 else 1)" \
    || fail "oversubscribed_nodes not recorded"
echo "fleet run ok"
