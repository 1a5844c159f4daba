#!/bin/sh
# automake's test driver, timed: runs the driver given as arguments (LOG_DRIVER
# in Makefile.am) and writes the test's wall seconds to NAME.time beside its
# log, for tests/durations.sh (the slowest first, at the suite's end).
log=
prev=
for a in "$@"; do
    [ "$prev" = --log-file ] && log=$a
    prev=$a
done
t0=$(date +%s.%N)
"$@"
rc=$?
t1=$(date +%s.%N)
[ -n "$log" ] && awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f\n", b - a }' >"${log%.log}.time"
exit $rc
