#!/bin/sh
# Nothing lost to a kill (issue 25): a run of 12 short tests on 2 ranks is
# killed with SIGKILL at 21 points spread over it (twice in each of the first
# ten tests, once after the last), no signal handler runs, nothing is
# written at the end: every process of the run at once at half of the
# points; mpirun alone at the others, its ranks 0 to 0.8 s later (on one
# node they are mpirun's children and run on without it: they may even
# finish the run).
# Each time, every test whose successor had begun (its progress line came
# through mpirun before the kill) is in the file that `mcfleet report`
# rebuilds from the journal, verified, and the file says complete = 0 and the
# test in hand; a kill after the end finds the whole file. Then journals
# damaged as a kill or a disk would: the torn last segment is left out, and
# a file that is no journal is refused (exit 2).
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
deck=$srcdir/tests/decks/journal.yaml
py=${PYTHON_H5:-/usr/bin/python3}

# the highest test whose progress line is in $work/out (0: none)
progress() { sed -n 's/^\[ *\([0-9]*\)\/12 .*/\1/p' "$work/out" | tail -1 | grep . || echo 0; }

point=0
for k in 1 1 2 2 3 3 4 4 5 5 6 6 7 7 8 8 9 9 10 10 13; do
    point=$((point + 1))
    out=$work/p$point.h5
    if [ $k -le 12 ]; then
        launch 2 "^\[ *$k/12 " --backend host --power off --deck "$deck" -o "$out"
    else   # after the last test: the kill may come while the file is written, or after
        launch 2 "^\[12/12 " --backend host --power off --deck "$deck" -o "$out"
    fi
    sleep "0.0$((point % 3 * 4))"   # 0, 40 or 80 ms into the test
    ranks=$(pgrep -P $pid | tr '\n' ' ')
    if [ $((point % 2)) = 1 ]; then
        how=mpirun; kill -9 $pid; finished=$(($(progress) - 1)); sleep "0.$((point % 5 * 2))"; kill -9 $ranks 2>/dev/null
    else
        how=all; kill -9 $ranks $pid; finished=$(($(progress) - 1))
    fi
    wait $pid 2>/dev/null
    for r in $ranks; do
        while alive $r; do sleep 0.05; done
    done
    rc=0
    "$MCFLEET" report "$out" >"$work/report" 2>"$work/report.err" || rc=$?
    if [ $finished -le 0 ] && [ ! -f "$out" ]; then   # no journal, or one of the start alone: refused
        [ $rc = 2 ] || { cat "$work/report.err"; fail "point $point: no file, report exit $rc"; }
        [ ! -f "$out.journal" ] || expect_in "$work/report.err" "killed before its first test finished"
        echo "point $point (kill $how in test 1): no test had finished, no file"
        continue
    fi
    [ -f "$out" ] || { cat "$work/out" "$work/report.err"; fail "point $point (kill $how): no file, $finished tests had finished"; }
    case $rc in 0|3) ;; *) cat "$work/report" "$work/report.err"; fail "point $point: report exit $rc" ;; esac
    [ ! -e "$out.journal" ] || fail "point $point: the journal is still there after the rebuild"
    "$py" "$srcdir/tests/journal_check.py" "$out" "$finished" "$([ $k -gt 12 ] || [ $how = mpirun ] && echo 1 || echo 0)" 12 \
        || { cat "$work/report.err"; fail "point $point (kill $how)"; }
    # a rebuilt file names the test in hand, unless every test had finished
    # (on a loaded machine the kill may land after the last one, before the file)
    if grep -q "rebuilt from its journal" "$work/report.err" && ! grep -q "^12 tests: " "$work/report"; then
        expect_in "$work/report" "the test in hand when it stopped"
    fi
done

# A journal cut in its last segment (the kill came in the write): the torn
# segment is left out. One with a byte changed in a segment: the same (CRC).
launch 2 "^\[ *9/12 " --backend host --power off --deck "$deck" -o "$work/t.h5"
ranks=$(pgrep -P $pid | tr '\n' ' ')
kill -9 $pid $ranks; wait $pid 2>/dev/null
for r in $ranks; do while alive $r; do sleep 0.05; done; done
cp "$work/t.h5.journal" "$work/u.h5.journal"
size=$(stat -c %s "$work/t.h5.journal")
truncate -s $((size - 7)) "$work/t.h5.journal"
"$MCFLEET" report "$work/t.h5" >/dev/null 2>"$work/err"; rc=$?
expect_rc 3
expect_in "$work/err" "the last segment, cut by the kill, left out"
n=$("$py" -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['/results']))" "$work/t.h5")
"$py" -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['/results']))" "$work/u.h5" 2>/dev/null && fail "u.h5 exists"
printf 'X' | dd of="$work/u.h5.journal" bs=1 seek=$((size - 100)) conv=notrunc 2>/dev/null
"$MCFLEET" report "$work/u.h5" >/dev/null 2>"$work/err"; rc=$?
expect_rc 3
m=$("$py" -c "import h5py,sys; print(len(h5py.File(sys.argv[1])['/results']))" "$work/u.h5")
[ "$n" = "$m" ] && [ "$n" -ge 7 ] || fail "torn journal: $n tests, damaged one: $m (7 or more expected, the same)"
echo "torn and damaged journals: $n tests kept, the last segment left out"
# what is no journal is refused, and nothing is made of it
printf 'not a journal' >"$work/v.h5.journal"
"$MCFLEET" report "$work/v.h5" >/dev/null 2>"$work/err"; rc=$?
expect_rc 2
expect_in "$work/err" "is not an mcfleet journal"
[ ! -e "$work/v.h5" ] || fail "a file was made from what is no journal"
# a new run onto a killed run's output (its .partial and journal) is refused, naming the rebuild
: >"$work/w.h5.partial"
: >"$work/w.h5.journal"
mpi 2 --backend host --power off --deck "$deck" -o "$work/w.h5"
expect_rc 2
expect_in "$work/err" "rebuilds its results from the journal"
rm "$work/w.h5.partial"   # the journal alone: the same advice
mpi 2 --backend host --power off --deck "$deck" -o "$work/w.h5"
expect_rc 2
expect_in "$work/err" "rebuilds its results"
# report while a run is going: its journal is locked, nothing of the run is touched
launch 2 "^\[ *3/12 " --backend host --power off --deck "$deck" -o "$work/live.h5"
"$MCFLEET" report "$work/live.h5" >/dev/null 2>"$work/err"; rc=$?
expect_rc 2
expect_in "$work/err" "belongs to a live mcfleet run"
[ -e "$work/live.h5.partial" ] && [ -e "$work/live.h5.journal" ] || fail "report took a live run's files"
await "the live run"
expect_rc 0
[ -f "$work/live.h5" ] && [ ! -e "$work/live.h5.journal" ] || fail "the live run's file, after a report beside it"
echo "PASS: $point kill points, every finished test kept"
