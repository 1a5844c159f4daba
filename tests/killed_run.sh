#!/bin/sh
# Stopping a run. SIGTERM (Slurm's time limit, or sbatch --signal): every rank
# finishes its repetition, they stop together at the next test boundary, and
# what was measured is written, marked complete = 0 with the tests not run
# listed. SIGKILL: nothing can be written, and nothing looks complete.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py

start() {   # start OUTPUT [DECK]: mcfleet on 2 ranks in the background, $pid its mpirun
    "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" --backend host --deck "${2:-$srcdir/tests/decks/slow.yaml}" -o "$1" >"$work/out" 2>&1 &
    pid=$!
    i=0
    while ! grep -q "slow-chase" "$work/out" 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 300 ] || { kill -9 $pid; fail "the run never started"; }
        sleep 0.1
    done
    sleep 1
}

start "$work/t.h5"
kill -TERM $pid
wait $pid || true
[ -e "$work/t.h5" ] || { cat "$work/out"; fail "SIGTERM: no results file"; }
expect_in "$work/out" "stopped by signal 15"
"$PYTHON_H5" - "$work/t.h5" <<'PY' || fail "SIGTERM: the partial file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
m = f["meta"].attrs
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
assert int(m["complete"]) == 0, m["complete"]
assert s(m["tests_not_run"]) == "never-reached", m["tests_not_run"]
assert list(f["results/never-reached/status"][:]) == [-3, -3]
assert list(f["results/slow-chase/status"][:]) == [1, 1]      # what ran, verified
PY
"$MCFLEET" report "$work/t.h5" >"$work/report"
expect_in "$work/report" "INCOMPLETE RUN"
expect_in "$work/report" "never-reached: NOT RUN"

# a signal during the last test: it was cut short, so the file is not complete
sed '/never-reached/,$d' "$srcdir/tests/decks/slow.yaml" >"$work/last.yaml"
start "$work/l.h5" "$work/last.yaml"
sleep 1
kill -TERM $pid
wait $pid || true
expect_in "$work/out" "stopped by signal 15 during the last test"
"$PYTHON_H5" - "$work/l.h5" <<'PY' || fail "SIGTERM in the last test: the partial file"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
m = f["meta"].attrs
assert int(m["complete"]) == 0 and m["tests_not_run"] in (b"", ""), (m["complete"], m["tests_not_run"])
lat = f["results/slow-chase/latency_ns"][:]
assert np.isfinite(lat).any(axis=1).all() and np.isnan(lat[:, -1]).all()   # some measured, the rest not
PY

# a signal during the warm-up: no repetition was timed, so that test was not run
sed 's/^  repetitions: 1000$/  repetitions: 5\n  warmup: 1000/' "$srcdir/tests/decks/slow.yaml" >"$work/warm.yaml"
grep -q "warmup: 1000" "$work/warm.yaml" || fail "test setup: the deck edit"
start "$work/w.h5" "$work/warm.yaml"
kill -TERM $pid
wait $pid || true
expect_in "$work/out" "stopped by signal 15 before test 1 of 2"
"$PYTHON_H5" - "$work/w.h5" <<'PY' || fail "SIGTERM in the warm-up: the partial file"
import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
m = f["meta"].attrs
assert int(m["complete"]) == 0 and s(m["tests_not_run"]) == "slow-chase,never-reached", m["tests_not_run"]
g = f["results/slow-chase"]
assert list(g["status"][:]) == [-3, -3] and ("latency_ns" not in g or np.isnan(g["latency_ns"][:]).all())
assert "before its first repetition" in s(g["message"][0]), g["message"][0]
PY

start "$work/k.h5"
pkill -KILL -f "$work/k.h5" || true
wait $pid || true
[ ! -e "$work/k.h5" ] || fail "SIGKILL left $work/k.h5"
echo "killed run ok"
