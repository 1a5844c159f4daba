#!/bin/sh
# mcfleet health judges a figure only against runs of the same measurement,
# and what a measurement is comes from the file's schema (/meta/families):
# every key of the test, the amounts (iterations, sweeps, seed) included, as
# health compares runs of one deck. The health deck's valu-fp64 iterations
# changed from 4096 to 8 is "not the same measurement" (exit 0, nothing
# judged against the old baseline), as a change of bytes always was; before
# the schema, health judged the new figure against the old baseline ("61 %
# below its baseline", exit 1, a healthy node drained). The same deck again
# is compared as before.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cd "$work"
cp "$srcdir/input/health-host.yaml" same.yaml
sed 's/kernel: valu, dtype: fp64, iterations: 4096/kernel: valu, dtype: fp64, iterations: 8/' same.yaml >fewer.yaml
grep -q "iterations: 8}" fewer.yaml || fail "the deck was not changed"
check() {   # check DECK
    rc=0
    "$MCFLEET" health --np 2 --deck "$1" --node n5 --history "$work/hist" --baseline-runs 1 --threshold 0.9 \
        --launcher "$MPIRUN -np {np} --oversubscribe --mca btl self,vader,tcp --bind-to none" \
        -- --backend host >out 2>err || rc=$?
}
check same.yaml
[ $rc = 0 ] || { cat out err; fail "the first check: exit $rc"; }
check same.yaml
[ $rc = 0 ] || { cat out err; fail "the same deck again: exit $rc"; }
! grep -q "not the same measurement" out err || { cat out err; fail "the same deck is not the same measurement"; }
check fewer.yaml
[ $rc = 0 ] || { cat out err; fail "iterations changed: exit $rc, expected 0 (not the same measurement)"; }
cat out err >all
expect_in all "valu-fp64 not compared: not the same measurement as in"
expect_in all "iterations differs (4096 in"
! grep -q "valu-fp64 .* below its baseline" all || { cat all; fail "judged against another measurement"; }
echo "health: a changed iterations is not the same measurement"
