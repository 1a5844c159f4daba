# Helpers for the integration tests. Sourced; the harness sets MCFLEET,
# MPIRUN, PYTHON_H5, srcdir and builddir. Exit 77 means "skipped".
set -u
SKIP=77
work=$(mktemp -d "${TMPDIR:-/tmp}/mcfleet-test.XXXXXX")
trap 'rm -rf "$work"' EXIT
# the Python tools run directly take a test's keys from this build's C report
# (analysis/mcfleet_creport.py), as `mcfleet TOOL` has them do
[ -n "${MCFLEET:-}" ] && { MCFLEET_BIN=${MCFLEET_BIN:-$MCFLEET}; export MCFLEET_BIN; }

fail() { echo "FAIL: $*" >&2; exit 1; }
need_mpirun() { [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] || { echo "SKIP: no mpirun"; exit $SKIP; }; }
need_h5py() { "${PYTHON_H5:-/usr/bin/python3}" -c 'import h5py' 2>/dev/null || { echo "SKIP: no h5py"; exit $SKIP; }; }
need_matplotlib() { "${PYTHON_H5:-/usr/bin/python3}" -c 'import h5py, numpy, matplotlib' 2>/dev/null ||
                    { echo "SKIP: no matplotlib"; exit $SKIP; }; }

# mpi NP ARGS...: runs mcfleet on NP ranks over loopback; output in $work/out, status in $rc
mpi() {
    local np=$1; shift
    rc=0
    "$MPIRUN" -np "$np" --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" "$@" >"$work/out" 2>"$work/err" || rc=$?
    return 0
}

# alive PID: the process has not ended (a zombie has: killed ranks whose
# parent, mpirun, is gone wait for init to reap them)
alive() { s=$(ps -o stat= -p "$1" 2>/dev/null); [ -n "$s" ] && [ "${s#Z}" = "$s" ]; }

expect_rc() {
    [ "$rc" = "$1" ] || { cat "$work/out" "$work/err" >&2; fail "exit code $rc, expected $1"; }
}

# self_compared RC OUT: true when `mcfleet compare F F` (a run against itself,
# text output in OUT) found nothing, or only erratic repetitions: a host run
# beside a busy CPU may scatter them past compare's caps (a triad spread 103 %
# in a CI run), a finding about the noise, not about what such a test checks
self_compared() {
    [ "$1" = 0 ] || { [ "$1" = 1 ] && grep -q "^DRIFT: 0 of" "$2" && grep -q "^ERRATIC: [1-9]" "$2"; }
}
expect_in() {   # expect_in FILE TEXT
    grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$2' not in $1"; }
}

schema() {      # schema FILE NRANKS [extra args]
    "${PYTHON_H5:-/usr/bin/python3}" "$srcdir/tests/check_schema.py" "$@" || fail "schema check of $1"
}

# launch NP PATTERN ARGS...: mcfleet on NP ranks in the background ($pid is
# mpirun's), output in $work/out; returns once PATTERN is there (60 s at most)
launch() {
    local np=$1 pattern=$2 i=0
    shift 2
    : >"$work/out"   # emptied here: the child's redirection may come after the first grep
    "$MPIRUN" -np "$np" --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" "$@" >"$work/out" 2>&1 &
    pid=$!
    while ! grep -q -- "$pattern" "$work/out" 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 600 ] || { kill -9 $pid; cat "$work/out"; fail "the run never reached '$pattern'"; }
        sleep 0.1
    done
}

# await WHAT: waits for the launched run to end, 120 s at most (a stop or a
# hung rank must not stall it); its exit code in $rc
await() {
    local i=0
    while kill -0 $pid 2>/dev/null; do
        i=$((i + 1)); [ $i -lt 1200 ] || { kill -9 $pid; cat "$work/out"; fail "$1: the run did not end"; }
        sleep 0.1
    done
    rc=0
    wait $pid || rc=$?
}
