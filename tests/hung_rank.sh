#!/bin/sh
# One hung rank must not stall the fleet. A rank stopped with SIGSTOP (as a
# GPU that never returns would leave it) misses the end of its test; the
# watchdog at rank 0 waits until the test's time limit and a grace have
# passed (or 10 s after a stop signal), lists it as hung with its host and
# device, and the others write the file without it and end the job (exit 3).
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
victim=""
# the stopped rank, only while it is still ours (its pid may be reused once it is gone)
ours() { [ -n "$victim" ] && grep -q "mcfleet" "/proc/$victim/cmdline" 2>/dev/null; }
trap 'ours && kill -KILL $victim; rm -rf "$work"' EXIT

# run OUTPUT RANK [MPIRUN_ARGS...] [-- MCFLEET_ARGS]: 3 ranks in the background;
# once chase-a runs, world rank RANK is stopped ($victim its pid, $pid mpirun's)
run() {
    out=$1 who=$2; shift 2
    launch 3 chase-a --backend host --deck "$srcdir/tests/decks/hang.yaml" -o "$out" "$@"
    victim=""
    for p in $(pgrep -f -- "-o $out" || true); do
        if tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "OMPI_COMM_WORLD_RANK=$who"; then victim=$p; fi
    done
    [ -n "$victim" ] || { kill -9 $pid; fail "no process for rank $who"; }
    kill -STOP "$victim"
}

finish() {  # at most 120 s: a watchdog that waits for ever is the defect
    await "$1 (the fleet waited for the hung rank)"
    if ours; then kill -KILL "$victim"; fi   # mpirun's abort normally ended it
    victim=""
    [ "$rc" = 3 ] || { cat "$work/out"; fail "$1: exit code $rc, expected 3"; }
}

check() {   # check FILE HUNG_RANK WHAT
    [ -e "$1" ] || { cat "$work/out"; fail "$3: no results file"; }
    "$PYTHON_H5" - "$1" "$2" <<'PY' || { cat "$work/out"; fail "$3: the file"; }
import sys, h5py
f = h5py.File(sys.argv[1], "r")
hung = int(sys.argv[2])
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
m = f["meta"].attrs
assert int(m["complete"]) == 0 and int(m["world_size"]) == 3 and int(m["nranks"]) == 2, dict(m)
assert int(m["nhung"]) == 1 and s(m["hung_ranks"]) == str(hung), m["hung_ranks"]
assert sorted(f["ranks/world_rank"][:]) == sorted(set([0, 1, 2]) - {hung})
h = f["hung"]
assert list(h["world_rank"][:]) == [hung]
assert s(h["test"][0]) == "chase-a" and s(h["hostname"][0]) and s(h["device_uuid"][0]), [s(x) for x in h["test"][:]]
assert list(f["results/chase-b/status"][:]) == [-3, -3]
assert "hung" in s(f["results/chase-b/message"][0])
assert f["results/chase-a/status"].shape == (2,)
PY
    "$MCFLEET" report "$1" >"$work/report" 2>&1 && fail "$3: report exits 0 on a run with a hung rank"
    expect_in "$work/report" "HUNG"
}

# the test's time limit: chase-a may take 3 s; rank 2 never reaches its end
run "$work/a.h5" 2
finish "time limit"
expect_in "$work/out" "HUNG rank 2"
check "$work/a.h5" 2 "time limit"

# a stop signal while a rank is stopped: the others do not wait for it
sed '/time_limit/d' "$srcdir/tests/decks/hang.yaml" >"$work/nolimit.yaml"
grep -q time_limit "$work/nolimit.yaml" && fail "test setup: the deck edit"
run "$work/b.h5" 1 --deck "$work/nolimit.yaml"
sleep 1
kill -USR1 $pid
finish "SIGUSR1"
check "$work/b.h5" 1 "SIGUSR1"

# collective mode: the file opened by all three is left, rank 0 writes alone
mpi 2 --backend host --quick --deck "$srcdir/tests/decks/tiny.yaml" --hdf5-mode collective -o "$work/p.h5"
if [ "$rc" = 0 ]; then
    run "$work/c.h5" 2 --hdf5-mode collective
    finish "collective mode"
    check "$work/c.h5" 2 "collective mode"
else
    echo "collective mode skipped: this HDF5 has no MPI-IO"
fi
# a time limit without a hang: the test stops itself, nothing is hung, exit 3
cat >"$work/limit.yaml" <<'EOF'
defaults:
  repetitions: 3
  warmup: 1000
tests:
  - name: warm-too-long
    kernel: latency
    working_set: 1MiB
    iterations: 2000000
    time_limit: 1
  - name: after
    kernel: latency
    working_set: 4KiB
EOF
mpi 2 --backend host --deck "$work/limit.yaml" -o "$work/d.h5"
expect_rc 3
"$PYTHON_H5" - "$work/d.h5" <<'PY' || fail "time limit: the file"
import sys, h5py
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
m = f["meta"].attrs
assert int(m["complete"]) == 1 and int(m["nhung"]) == 0, dict(m)
g = f["results/warm-too-long"]
assert list(g["status"][:]) == [-5, -5], g["status"][:]
assert "before any repetition was timed" in s(g["message"][0]), g["message"][0]
assert list(f["results/after/status"][:]) == [1, 1]
PY
echo "hung rank ok"
