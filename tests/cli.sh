#!/bin/sh
# The command line: help, version, bad options and backends, report errors.
. "$srcdir/tests/lib.sh"

"$MCFLEET" --help >"$work/out" || fail "--help exit $?"
expect_in "$work/out" "Exit codes:"
expect_in "$work/out" "--deck FILE"
"$MCFLEET" --version >"$work/out" || fail "--version"
expect_in "$work/out" "mcfleet 0."

rc=0; "$MCFLEET" --frobnicate 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "unknown option gave $rc"
expect_in "$work/err" "unknown option '--frobnicate'"

rc=0; "$MCFLEET" --deck 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "missing value gave $rc"
expect_in "$work/err" "option '--deck' needs a value"

rc=0; "$MCFLEET" --backend opencl 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "unknown backend gave $rc"
expect_in "$work/err" "--backend: unknown backend 'opencl'"

rc=0; "$MCFLEET" report 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "report without file gave $rc"
rc=0; "$MCFLEET" report "$work/none.h5" 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "report of a missing file gave $rc"
expect_in "$work/err" "cannot open"
echo "not hdf5" >"$work/text.h5"
rc=0; "$MCFLEET" report "$work/text.h5" 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "report of a text file gave $rc"
# the report's own options: each bad one named, exit 2; --help teaches, exit 0
for bad in "--format xml:--format: unknown format 'xml'" "--warn 0:--warn: '0' is not a percentage" \
           "--warn 5 --fail 4:--fail 4% is below --warn 5%" "--rows -1:--rows: '-1'" "--bogus:unknown option '--bogus'" \
           "--profiles:needs a value"; do
    args=${bad%%:*}; msg=${bad#*:}
    # shellcheck disable=SC2086
    rc=0; "$MCFLEET" report "$work/text.h5" $args 2>"$work/err" || rc=$?
    [ $rc = 2 ] || fail "report $args gave $rc"
    expect_in "$work/err" "$msg"
done
rc=0; "$MCFLEET" report "$work/text.h5" "$work/text.h5" 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "report of two files gave $rc"
"$MCFLEET" report --help >"$work/out" || fail "report --help exit $?"
expect_in "$work/out" "--format text|json|csv"
expect_in "$work/out" "Exit codes: 0 PASS or WARN; 1 FAIL"

need_mpirun
# A GPU backend that is not built here (or sees no GPU) is a runtime error: exit 3.
for b in cuda hip; do
    mpi 1 --backend $b --quick -o "$work/gpu.h5"
    expect_rc 3
    grep -qE "not built into this mcfleet|sees no device|no .* GPU" "$work/err" || { cat "$work/err"; fail "--backend $b message"; }
    [ ! -e "$work/gpu.h5" ] || fail "--backend $b left a results file"
done
echo "cli ok"
