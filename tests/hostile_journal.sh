#!/bin/sh
# `mcfleet report` on damaged journals (issue 25): a real journal of a killed
# run, cut short at 20 points, with a byte changed (the segment's CRC catches
# it), and forged (a byte changed and the CRC recomputed, so that the parser
# meets the damage). Every one is rebuilt as far as it is whole (exit 3),
# refused (exit 2, no file), or rebuilt as forged and the file judged
# malformed by the report (exit 2): within seconds, never a crash, no
# .partial left.
# In the sanitizer stage: the journal's parser is C that reads hostile bytes.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
deck=$srcdir/tests/decks/journal.yaml
launch 2 "^\[ *6/12 " --backend host --power off --deck "$deck" -o "$work/k.h5"
ranks=$(pgrep -P $pid | tr '\n' ' ')
kill -9 $ranks $pid 2>/dev/null
wait $pid 2>/dev/null
for r in $ranks; do while alive $r; do sleep 0.05; done; done
[ -s "$work/k.h5.journal" ] || fail "the killed run left no journal"
mkdir "$work/h"
"${PYTHON_H5:-/usr/bin/python3}" "$srcdir/tests/hostile_journals.py" "$work/k.h5.journal" "$work/h" || fail "making the journals"
n=0 rebuilt=0 refused=0 malformed=0 kept=0
for j in "$work"/h/*.h5.journal; do
    out=${j%.journal}
    rc=0
    timeout 60 "$MCFLEET" report "$out" >"$work/out" 2>"$work/err" || rc=$?
    n=$((n + 1))
    case $rc in
    3) rebuilt=$((rebuilt + 1))
       [ -f "$out" ] || fail "$(basename "$j"): exit 3 but no file"
       # a journal damaged before its end is kept (and said so); one only cut short goes
       if grep -q "the journal is kept" "$work/err"; then kept=$((kept + 1)); [ -e "$j" ] || fail "$(basename "$j"): kept?"
       else [ ! -e "$j" ] || fail "$(basename "$j"): rebuilt, and the journal stayed"; fi ;;
    2) if [ -e "$out" ]; then   # rebuilt as the forged journal said: the report finds the file malformed
           malformed=$((malformed + 1))
           grep -qi "malformed\|not an mcfleet results file" "$work/out" "$work/err" \
               || { cat "$work/out" "$work/err"; fail "$(basename "$j"): exit 2 with a file, not called malformed"; }
       else
           refused=$((refused + 1))
           [ -e "$j" ] || fail "$(basename "$j"): refused, and the journal is gone"
       fi ;;
    *) cat "$work/err"; fail "$(basename "$j"): report exit $rc" ;;
    esac
    if grep -q "crashed\|AddressSanitizer\|runtime error" "$work/err"; then cat "$work/err"; fail "$(basename "$j"): crashed"; fi
    [ ! -e "$out.partial" ] || fail "$(basename "$j"): a .partial left behind"
done
echo "$n damaged journals: $rebuilt rebuilt (the whole segments; $kept of them damaged, their journal kept), $refused refused, $malformed rebuilt as forged and judged malformed"
[ $rebuilt -gt 0 ] && [ $refused -gt 0 ] || fail "expected both outcomes"
echo PASS
