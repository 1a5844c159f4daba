#!/bin/sh
# An output path that cannot be written fails fast with exit 3 and leaves nothing.
. "$srcdir/tests/lib.sh"
need_mpirun
mpi 2 --quick --deck "$srcdir/tests/decks/tiny.yaml" -o /nonexistent-mcfleet-dir/r.h5
expect_rc 3
expect_in "$work/err" "cannot create results file '/nonexistent-mcfleet-dir/r.h5.partial': No such file or directory"
expect_in "$work/err" "mcfleet:"
# no test ran before the failure
if grep -q "tiny-matrix" "$work/out"; then fail "tests ran before the output was checked"; fi

mkdir "$work/ro"; chmod 555 "$work/ro"
if [ "$(id -u)" != 0 ]; then     # root writes anywhere: the check only means something for users
    mpi 2 --quick --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/ro/r.h5"
    expect_rc 3
    expect_in "$work/err" "Permission denied"
fi
[ -z "$(ls -A "$work/ro")" ] || fail "files left in the read-only directory"
echo "unwritable ok"
