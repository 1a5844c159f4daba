# Helpers for tests/killed_run.sh, killed_long.sh and killed_hogs.sh (sourced
# after tests/lib.sh): how the stops go through mpirun, a stoppable run, CPU
# hogs, a stop in a repetition of hours.

# mpirun sends SIGKILL 1 s after SIGTERM. mcfleet's stop takes 0.07-0.15 s
# at a load of 11 (docs/reliability.md), but on a machine loaded enough (the
# suite beside CPU hogs, or under ASan) a rank may not even be scheduled
# within 1 s: a test bound to that launcher policy fails by the load, not by
# mcfleet (14 of 15 with two hogs). So the ranks get 5 s, over 30 times what
# the stop takes, and the test checks what they write. Not more: Open MPI
# 4.1's mpirun sleeps twice this timeout after a SIGTERM or SIGINT, however
# soon the ranks are gone (58 s a stop with 30 s, measured 2026-11-27).
export OMPI_MCA_odls_base_sigkill_timeout=5
# A rank's exit code 3 (a stopped run) would make mpirun abort the job, which
# sleeps that timeout twice more. These tests check the files; a stopped
# run's exit 3 is checked through Slurm (slurm_launch.sh: ExitCode=3:0).
export OMPI_MCA_orte_abort_on_non_zero_status=0
hogs=""
trap 'for h in $hogs; do kill $h 2>/dev/null; done; rm -rf "$work"' EXIT

start() {   # start OUTPUT [DECK] [WAIT_FOR]: mcfleet on 2 ranks in the background, $pid its mpirun
    launch 2 "${3:-slow-chase}" --backend host --deck "${2:-$srcdir/tests/decks/slow.yaml}" -o "$1"
    sleep 1
}

finish() {  # finish WHAT
    await "$1"
}

hog() {     # one busy loop per core, beside the ranks
    for c in 1 2; do
        sh -c 'while :; do :; done' &
        hogs="$hogs $!"
    done
}

# long SIGNAL ROUND: a stop in a repetition that would last for hours
# (tests/decks/long.yaml): the one in hand is cut, the file written.
long() {    # long SIGNAL ROUND
    rm -f "$work/x.h5" "$work/x.h5.partial"
    start "$work/x.h5" "$srcdir/tests/decks/long.yaml" long-chase
    kill -"$1" $pid
    finish "SIG$1 ($2)"
    [ -e "$work/x.h5" ] || { cat "$work/out"; fail "SIG$1 ($2): no results file"; }
    "$PYTHON_H5" - "$work/x.h5" "$1" <<'PY' || { cat "$work/out"; fail "SIG$1 ($2): the partial file"; }
import sys, h5py
f = h5py.File(sys.argv[1], "r")
s = lambda x: x.decode() if isinstance(x, bytes) else str(x)
m = f["meta"].attrs
assert int(m["complete"]) == 0, m["complete"]
assert list(f["results/quick-one/status"][:]) == [1, 1]           # finished before: kept
# the repetition in hand was cut, before any was timed: not run, no figure
assert list(f["results/long-chase/status"][:]) == [-3, -3], f["results/long-chase/status"][:]
assert [s(x) for x in f["meta/tests_not_run_list"][:]] == ["long-chase", "never-reached"]
PY
}
