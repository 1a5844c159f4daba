#!/bin/sh
# Sanity bound, not a goal: the host backend's STREAM triad is within 30% of a
# plain C triad loop compiled the same way (tests/triad_reference.c), run here,
# now, on the same sizes, in both directions: 0.7 <= mcfleet / loop <= 1.3.
# Slower than that, the backend wastes bandwidth; faster, it lies (bytes
# miscounted, a repetition timed short, work skipped): a one-thread triad
# cannot beat the plain loop by 30%.
# Load only ever slows a side down, and a noisy neighbour may slow either one,
# so each bound is held by the attempt most favourable to it: the lower bound
# by the highest ratio seen, the upper by the lowest; the loop runs before and
# after mcfleet in each attempt and its faster figure counts. A backend off by
# more than 30% fails every attempt; one noisy attempt fails neither bound.
[ -z "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: sanitizer build: a bandwidth bound means nothing at -O1 with instrumented loads"; exit 77; }
. "$srcdir/tests/lib.sh"
need_mpirun
n=$((1 << 25))            # elements per array, as in tests/decks/triad-sanity.yaml
lo=0.7 hi=1.3
best=0 worst=1000000      # the highest and lowest ratio seen
for attempt in 1 2 3 4 5; do
    ref1=$("$TRIAD_REFERENCE" $n 10) || fail "reference triad failed"
    rm -f "$work/t.h5"   # mcfleet never overwrites a result
    MCFLEET_HOST_THREADS=1 mpi 1 --backend host --deck "$srcdir/tests/decks/triad-sanity.yaml" -o "$work/t.h5"
    expect_rc 0
    ref2=$("$TRIAD_REFERENCE" $n 10) || fail "reference triad failed"
    ours=$(awk '$1 == "triad" && $2 == "bandwidth_gbs" { print $5 }' "$work/out")
    [ -n "$ours" ] || fail "no triad figure in the report"
    ref=$(awk -v a="$ref1" -v b="$ref2" 'BEGIN { print (a > b) ? a : b }')
    ratio=$(awk -v a="$ours" -v b="$ref" 'BEGIN { printf "%.3f", a / b }')
    echo "attempt $attempt: mcfleet triad $ours GB/s, plain C loop $ref1 and $ref2 GB/s, ratio $ratio (to the faster)"
    best=$(awk -v a="$ratio" -v b="$best" 'BEGIN { print (a > b) ? a : b }')
    worst=$(awk -v a="$ratio" -v b="$worst" 'BEGIN { print (a < b) ? a : b }')
    awk -v b="$best" -v w="$worst" -v lo=$lo -v hi=$hi 'BEGIN { exit !(b >= lo && w <= hi) }' && break
done
awk -v b="$best" -v lo=$lo 'BEGIN { exit !(b >= lo) }' \
    || fail "host triad more than 30% below the plain loop in every attempt (best ratio $best)"
awk -v w="$worst" -v hi=$hi 'BEGIN { exit !(w <= hi) }' \
    || fail "host triad more than 30% above the plain loop in every attempt (lowest ratio $worst): it cannot be that fast"
echo "triad sanity ok (ratios $worst to $best)"
