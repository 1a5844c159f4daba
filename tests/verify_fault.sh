#!/bin/sh
# A wrong result on one rank is a verification failure: exit 1, recorded, no
# timing reported for it, the injection named in the file and the report.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
MCFLEET_INJECT_FAULT='tiny-triad@1' mpi 3 --backend host --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/f.h5"
expect_rc 1
schema "$work/f.h5" 3 --failed tiny-triad 1
"$MCFLEET" report "$work/f.h5" >"$work/report"
expect_in "$work/report" "FAULT INJECTED FOR TESTING: tiny-triad@1"
expect_in "$work/report" "tiny-triad: FAILED VERIFICATION on 1 of 3 ranks (rank 1: memory triad fp64 worker 0 element 0"

# each family's verification catches it
for t in tiny-matrix tiny-valu 'tiny-chase:*' tiny-streams; do
    rm -f "$work/g.h5"   # mcfleet never overwrites a result
    MCFLEET_INJECT_FAULT="$t" mpi 2 --backend host --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/g.h5"
    expect_rc 1
done
echo "verify fault ok"
