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

# no file at all: what validation accepts must be writable. A test named '.'
# ran to the end and then failed to write (H5Gcreate2 "/results/.", exit 3).
deck="$srcdir/tests/decks/bad-dot-name.yaml"
mpi 2 --backend host --deck "$deck" -o "$work/dot.h5"
expect_rc 2
expect_in "$work/err" "$deck:8:11: test name must be 1-63 characters of letters, digits, '-', '_' or '.', starting with a letter or digit"
[ ! -e "$work/dot.h5" ] && [ ! -e "$work/dot.h5.partial" ] || fail "a deck with a test named '.' left a file"

# a second YAML document was ignored
deck="$srcdir/tests/decks/bad-two-documents.yaml"
mpi 2 --deck "$deck" --list
expect_rc 2
expect_in "$work/err" "$deck:6:1: a second YAML document starts here"

# not a regular file: a directory gave a size of 2^63 - 1, a FIFO blocked forever
mkdir "$work/adir"
mpi 2 --deck "$work/adir" --list
expect_rc 2
expect_in "$work/err" "--deck $work/adir: a directory, not a deck (a deck is a regular YAML file)"
mkfifo "$work/fifo" || { echo "SKIP: mkfifo failed"; exit $SKIP; }
rc=0
timeout 300 "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    "$MCFLEET" --deck "$work/fifo" --list >"$work/out" 2>"$work/err" || rc=$?
[ "$rc" != 124 ] || fail "--deck on a FIFO with no writer blocked (killed after 300 s)"
expect_rc 2
expect_in "$work/err" "--deck $work/fifo: a FIFO, not a deck"
echo "bad deck ok"
