#!/bin/sh
# mcfleet health prunes by what it can read as a run of this node
# (docs/operations.md, "The history"): in baseline/ lie garbage named
# run-<a future time>.h5 (random bytes, an empty file), another node's run
# and a copy of this node's first run renamed to a future time. Four checks
# with --baseline-runs 1 --keep 2 (host backend, 2 ranks) keep the first real
# run and the newest two, by their recorded start; the renamed copy is
# pruned as the old run it is; the garbage and the other node's run are
# moved to aside/ with their logs and named, never counted, never deleted.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
cd "$work"
H="$work/hist"
check() {
    rc=0
    "$MCFLEET" health --np 2 --deck health-host.yaml --node n3 --history "$H" --baseline-runs 1 --keep 2 \
        --threshold 0.9 --launcher "$MPIRUN -np {np} --oversubscribe --mca btl self,vader,tcp --bind-to none" \
        -- --backend host >out 2>err || rc=$?
    [ $rc = 0 ] || { cat out err; fail "health check: exit $rc"; }
}
check   # the first real run: the anchor
first=$(ls "$H/n3/baseline" | grep '\.h5$')
[ "$(echo "$first" | wc -l)" = 1 ] || fail "after one check: $first"
head -c 5000 /dev/urandom >"$H/n3/baseline/run-20991231T000000.000000Z.h5"
echo "its log" >"$H/n3/baseline/run-20991231T000000.000000Z.log"
: >"$H/n3/baseline/run-20991231T000001.000000Z.h5"
cp "$H/n3/baseline/$first" "$H/n3/baseline/run-20991231T000002.000000Z.h5"   # this node's, an old start
"$PYTHON_H5" - "$H/n3/baseline/$first" "$H/n3/baseline/run-20991231T000003.000000Z.h5" <<'PY'
import shutil, sys, h5py
shutil.copy(sys.argv[1], sys.argv[2])
with h5py.File(sys.argv[2], "r+") as f:   # another node's run
    del f["ranks"]["slurm_nodename"]
    f["ranks"].create_dataset("slurm_nodename", data=[b"n9", b"n9"])
PY
check
for g in 20991231T000000 20991231T000001 20991231T000003; do
    expect_in out "hist/n3/baseline/run-$g.000000Z.h5 is not a health run of this node ("
    [ -e "$H/n3/aside/run-$g.000000Z.h5" ] || fail "run-$g not moved aside"
done
expect_in out "run-20991231T000003.000000Z.h5 is not a health run of this node (its ranks ran on 'n9', not n3)"
[ -e "$H/n3/aside/run-20991231T000000.000000Z.log" ] || fail "the garbage's log not moved with it"
check
check
check
kept=$(ls "$H/n3/baseline" | grep '\.h5$')
[ "$(echo "$kept" | wc -l)" = 3 ] || { echo "$kept"; fail "expected the anchor and the newest two"; }
[ "$(echo "$kept" | head -1)" = "$first" ] || { echo "$kept"; fail "the first run (the anchor) was pruned"; }
! echo "$kept" | grep -q 2099 || { echo "$kept"; fail "a file named for the future was kept as the newest"; }
# the two kept besides the anchor are the two newest checks (their names are their start, UTC)
newest=$(ls "$H/n3/baseline" "$H/n3/failed" | grep '^run-2026\|^run-20[0-8]' | grep '\.h5$' | sort | tail -2)
[ "$(echo "$kept" | tail -2)" = "$newest" ] || { echo "kept: $kept"; echo "newest: $newest"; fail "not the newest"; }
"$PYTHON_H5" -c 'import json, sys; s = json.load(open(sys.argv[1])); assert s["baseline_runs"] == 3, s' \
    "$H/n3/status.json" || fail "status.json's baseline_runs"
echo "health keep ok"
