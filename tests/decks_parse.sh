#!/bin/sh
# Every shipped deck is valid, and --list shows its expanded tests.
. "$srcdir/tests/lib.sh"
need_mpirun
for d in "$srcdir"/input/*.yaml; do
    mpi 1 --list --deck "$d"
    expect_rc 0
    expect_in "$work/out" "deck $d:"
done
mpi 1 --list --deck "$srcdir/input/roofline.yaml"
expect_in "$work/out" "intensity-fp64:intensity=1024"
echo "decks ok"
