#!/bin/sh
# The harness's log compiler in a sanitizer build (configure
# --enable-sanitizers; Makefile.am puts this script in front of every test):
#     run_test.sh TEST-COMMAND...
# Every instrumented process the test starts (mcfleet under mpirun or srun,
# `mcfleet report`, the unit tests, the stub libraries they load) writes its
# AddressSanitizer and LeakSanitizer reports into a directory of this test
# instead of its stderr. Any report fails the test, whatever the test's own
# verdict: a test that expects mcfleet to fail, or ignores an exit status,
# cannot let a finding through, and ASan's exit cannot pass for mcfleet's
# exit 1 (wrong result). The reports are printed into the test's log.
# UBSan cannot follow: gcc's libubsan is a runtime apart from libasan, and
# its own log_path is never set (its call to __sanitizer_set_report_path
# binds to libasan's). Its reports stay on the process's stderr and stop the
# process (SIGABRT); the test's own output is also searched for them.
# Exit: the test's own status, or 1 when any sanitizer reported.
set -u
[ $# -gt 0 ] || { echo "usage: run_test.sh TEST-COMMAND..." >&2; exit 2; }
for last in "$@"; do :; done
name=$(basename "$last")
dir=${builddir:-$(pwd)}/tests/sanitizer-reports/$name
rm -rf "$dir" && mkdir -p "$dir" || { echo "ERROR: cannot make $dir" >&2; exit 99; }
# log_path: each process writes DIR/asan.PID
ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}log_path=$dir/asan"
export ASAN_OPTIONS
# the test's output goes to the log as it comes, and to a copy searched after
out=$(mktemp "${TMPDIR:-/tmp}/run_test.XXXXXX") || exit 99
{ "$@"; echo $? >"$out.rc"; } 2>&1 | tee "$out"
rc=$(cat "$out.rc" 2>/dev/null || echo 99)
found=0
for f in "$dir"/asan.*; do
    [ -f "$f" ] || continue
    found=$((found + 1))
    echo "---- sanitizer report $f"
    cat "$f"
done
n=$(grep -c -E ': runtime error: |^==[0-9]+==ERROR: (Address|Leak)Sanitizer' "$out")
rm -f "$out" "$out.rc"
[ "$n" = 0 ] || { echo "---- $n sanitizer report line(s) in the test's output, above"; found=$((found + n)); }
if [ $found -gt 0 ]; then
    echo "FAIL: $found sanitizer report(s) from $name (its own exit status: $rc)"
    exit 1
fi
rmdir "$dir" 2>/dev/null
exit $rc
