#!/bin/sh
# mcfleet compare tells the same story as mcfleet report: the real H100
# files of docs/bench/2026-11-26-procs-evidence, the same GPU alone and then
# shared with another job (its process records show it). compare's DRIFT of
# that GPU names the environment on each figure the other job was there
# for, with the report's next step (rerun exclusive), in text and JSON, as
# the report attributes those figures; the clean pair (alone against itself)
# has no such words.
. "$srcdir/tests/lib.sh"
need_h5py
b="$srcdir/docs/bench/2026-11-26-procs-evidence"
rc=0; "$MCFLEET" compare "$b/alone.h5" "$b/shared.h5" >"$work/c.txt" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$work/c.txt"; fail "compare of the shared run: exit $rc, expected 1 (drift)"; }
expect_in "$work/c.txt" "DRIFT: 1 of 1 GPUs compared (1 with another job on the GPU: the environment's, as mcfleet report says)"
expect_in "$work/c.txt" "matrix-fp16 gflops: "
expect_in "$work/c.txt" "[environment: another job on the GPU]"
expect_in "$work/c.txt" "the environment's (mcfleet report): another job on the GPU: 1 compute process not mcfleet's during the test"
expect_in "$work/c.txt" "next: rerun with the GPU exclusive"
rc=0; "$MCFLEET" compare "$b/alone.h5" "$b/shared.h5" --format json >"$work/c.json" 2>&1 || rc=$?
rc2=0; "$MCFLEET" report "$b/shared.h5" --format json >"$work/r.json" 2>&1 || rc2=$?
"$PYTHON_H5" - "$work/c.json" "$work/r.json" <<'PY' || fail "compare's JSON does not say what the report says"
import json, sys
c, r = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
env = {d["test"] for d in c["drift"] if d.get("environment")}
assert env and all("rerun with the GPU exclusive" in d["next"] for d in c["drift"] if d.get("environment")), c["drift"]
g = r["gpus"][0]
assert g["attribution"] == "environment", g["attribution"]
said = {e["test"] for e in g["environment"]}
assert env <= said, (env, said)
assert {c_["test"] for c_ in g["causes"] if c_["attribution"] == "environment"} <= said
PY
rc=0; "$MCFLEET" compare "$b/alone.h5" "$b/alone.h5" >"$work/same.txt" 2>&1 || rc=$?
! grep -q "environment" "$work/same.txt" || { cat "$work/same.txt"; fail "the GPU alone: environment named"; }
echo "compare names the environment where the report does"
