#!/bin/sh
# A bad deck stops every rank before any work, with file:line:col and exit 2.
. "$srcdir/tests/lib.sh"
need_mpirun
deck="$srcdir/tests/decks/bad-unknown-key.yaml"
mpi 2 --deck "$deck" -o "$work/x.h5"
expect_rc 2
expect_in "$work/err" "$deck:7:5: unknown key 'iters' in test 'fp64-peak'"
# printed once, by rank 0, not once per rank
[ "$(grep -c "unknown key" "$work/err")" = 1 ] || fail "the message was printed more than once"
[ ! -e "$work/x.h5" ] && [ ! -e "$work/x.h5.partial" ] || fail "a bad deck left a file"

mpi 2 --deck "$work/does-not-exist.yaml"
expect_rc 2
expect_in "$work/err" "does-not-exist.yaml: No such file or directory"
echo "bad deck ok"
