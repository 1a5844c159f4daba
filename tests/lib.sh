# Helpers for the integration tests. Sourced; the harness sets MCFLEET,
# MPIRUN, PYTHON_H5, srcdir and builddir. Exit 77 means "skipped".
set -u
SKIP=77
work=$(mktemp -d "${TMPDIR:-/tmp}/mcfleet-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*" >&2; exit 1; }
need_mpirun() { [ -n "${MPIRUN:-}" ] && [ -x "$MPIRUN" ] || { echo "SKIP: no mpirun"; exit $SKIP; }; }
need_h5py() { "${PYTHON_H5:-/usr/bin/python3}" -c 'import h5py' 2>/dev/null || { echo "SKIP: no h5py"; exit $SKIP; }; }

# mpi NP ARGS...: runs mcfleet on NP ranks over loopback; output in $work/out, status in $rc
mpi() {
    local np=$1; shift
    rc=0
    "$MPIRUN" -np "$np" --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$MCFLEET" "$@" >"$work/out" 2>"$work/err" || rc=$?
    return 0
}

expect_rc() {
    [ "$rc" = "$1" ] || { cat "$work/out" "$work/err" >&2; fail "exit code $rc, expected $1"; }
}

expect_in() {   # expect_in FILE TEXT
    grep -qF -- "$2" "$1" || { echo "--- $1:" >&2; cat "$1" >&2; fail "'$2' not in $1"; }
}

schema() {      # schema FILE NRANKS [extra args]
    "${PYTHON_H5:-/usr/bin/python3}" "$srcdir/tests/check_schema.py" "$@" || fail "schema check of $1"
}
