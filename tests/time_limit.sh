#!/bin/sh
# A run that stops itself in time (issue 25): --time-limit 20s on a deck of
# minutes exits 3 within 25 s of its launch, the finished tests written and
# verified, complete = 0, the stop and the test in hand named; and inside a
# Slurm job (its end given as SLURM_JOB_END_TIME, as Slurm 23.02 and later
# set it) the default limit is the job's time left less the margin.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
deck=$srcdir/tests/decks/minutes.yaml
py=${PYTHON_H5:-/usr/bin/python3}

t0=$(date +%s.%N)
mpi 2 --backend host --power off --deck "$deck" --time-limit 20s -o "$work/a.h5"
took=$(awk "BEGIN { print $(date +%s.%N) - $t0 }")
echo "--time-limit 20s: exit $rc after $took s"
expect_rc 3
expect_in "$work/out" "time limit: --time-limit 20 s from the start"
expect_in "$work/out" "stopped by the run's time limit (--time-limit)"
awk "BEGIN { exit !($took < 25) }" || fail "the run took $took s under --time-limit 20s"
[ -f "$work/a.h5" ] && [ ! -e "$work/a.h5.journal" ] && [ ! -e "$work/a.h5.partial" ] || fail "a.h5, or a leftover"
"$py" - "$work/a.h5" <<'PY' || fail "a.h5: the finished tests"
import sys, h5py
import numpy as np
with h5py.File(sys.argv[1], "r") as f:
    meta = f["/meta"].attrs
    assert meta["complete"] == 0, "complete"
    assert b"--time-limit" in meta["stop_reason"], meta["stop_reason"]
    done = [n for n in f["/results"] if f["/results"][n]["verified"][()].all()]
    assert 3 <= len(done) < 60, f"{len(done)} tests verified"
    not_run = [x.decode() for x in f["/meta/tests_not_run_list"][()]]
    cut = meta["cut_test"].decode()
    assert not_run and not set(not_run) & set(done), (not_run, done)
    # the test in hand: the first not run, or one cut short with its repetitions so far kept
    assert cut == not_run[0] or (cut in f["/results"] and np.isnan(f["/results"][cut]["latency_ns"][()]).any()), cut
    print(f"{len(done)} tests verified, cut: {cut}")
PY
"$MCFLEET" report "$work/a.h5" >"$work/report" 2>&1; rc=$?
expect_rc 3
expect_in "$work/report" "the run's time limit (--time-limit)"

# The Slurm default: 36 s left, less the 30 s margin and 2 s for the file
end=$(($(date +%s) + 36))
SLURM_JOB_ID=4242 SLURM_JOB_END_TIME=$end mpi 2 --backend host --power off --deck "$deck" -o "$work/b.h5"
expect_in "$work/out" "time limit: the Slurm job has"
expect_in "$work/out" "stopped by the run's time limit"
[ "$(date +%s)" -lt "$end" ] || fail "the run outlived its Slurm job's end"
# ... which 'none' turns off (a run of one test, to its end)
SLURM_JOB_ID=4242 SLURM_JOB_END_TIME=$(($(date +%s) + 5)) mpi 2 --backend host --power off --time-limit none \
    --deck "$srcdir/bench/scale.yaml" -o "$work/c.h5"
expect_rc 0
grep -q "time limit" "$work/out" && fail "--time-limit none printed a limit"
# bad values name the option (exit 2)
for v in 0 1.5s 400d; do
    mpi 1 --backend host --time-limit "$v" --list
    expect_rc 2
    expect_in "$work/err" "--time-limit: '$v' is not a duration"
done
echo PASS
