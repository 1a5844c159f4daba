#!/bin/sh
# The output file: a second run with the same -o is refused and never harms
# the first's; an existing file is not overwritten without --force; a killed
# run's .partial is kept until the user removes it or passes --force; a disk
# too small is refused before any test, and a disk that fills during the run
# is reported as such, the results saved elsewhere, nothing crashes.
. "$srcdir/tests/lib.sh"
need_mpirun
need_h5py
mnt=""
trap '[ -n "$mnt" ] && umount "$mnt" 2>/dev/null; rm -rf "$work"' EXIT
tiny="$srcdir/tests/decks/tiny.yaml"

# 1. while a run writes x.h5, a second one with the same output is refused
: >"$work/first"
"$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    "$MCFLEET" --backend host --deck "$srcdir/tests/decks/long.yaml" -o "$work/x.h5" >"$work/first" 2>&1 &
first=$!
i=0
while ! grep -q "long-chase" "$work/first" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || { kill -9 $first; fail "the first run never started"; }
    sleep 0.1
done
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5"
expect_rc 2
expect_in "$work/err" "is being written by another mcfleet run"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5" --force   # not even with --force
expect_rc 2
[ -e "$work/x.h5.partial" ] || fail "the second run removed the first's .partial"
kill -USR1 $first
wait $first || true
[ -e "$work/x.h5" ] || { cat "$work/first"; fail "the first run lost its results"; }
"$PYTHON_H5" -c "import h5py,sys; f=h5py.File(sys.argv[1]); assert list(f['results/quick-one/status'][:])==[1,1]" \
    "$work/x.h5" || fail "the first run's file"

# 2. an existing output is not overwritten; --force replaces it
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5"
expect_rc 2
expect_in "$work/err" "'$work/x.h5' exists: mcfleet does not overwrite results"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5" --force
expect_rc 0
"$PYTHON_H5" -c "import h5py,sys; f=h5py.File(sys.argv[1]); assert 'tiny-matrix' in f['results']" "$work/x.h5" ||
    fail "--force did not replace the file"

# 3. a killed run's .partial stays until removed or replaced with --force
: >"$work/k.h5.partial"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/k.h5"
expect_rc 2
expect_in "$work/err" "left by a run that was killed"
[ -e "$work/k.h5.partial" ] || fail "the leftover .partial was removed"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/k.h5" --force
expect_rc 0
[ -e "$work/k.h5" ] && [ ! -e "$work/k.h5.partial" ] || fail "--force over a leftover .partial"

# 4. full disks, on a small tmpfs (root only)
mnt="$work/small"
mkdir "$mnt"
if ! mount -t tmpfs -o size=4m tmpfs "$mnt" 2>/dev/null; then
    mnt=""
    echo "full-disk cases skipped: mounting a tmpfs needs root"
    echo "output file ok"
    exit 0
fi
# full before the run: refused before any test
dd if=/dev/zero of="$mnt/filler" bs=1k count=3900 2>/dev/null || true
mpi 2 --backend host --quick --deck "$tiny" -o "$mnt/r.h5"
expect_rc 3
expect_in "$work/err" "not enough space for the results"
expect_in "$work/err" "No space left on device"
grep -q "tiny-matrix" "$work/out" && fail "tests ran on a full disk"
[ -z "$(ls "$mnt" | grep -v filler)" ] || fail "files left on the full disk: $(ls "$mnt")"
rm -f "$mnt/filler"
# full during the run: the write fails with ENOSPC, the results go to TMPDIR
mkdir "$work/rescue"
: >"$work/out"
TMPDIR="$work/rescue" "$MPIRUN" -x TMPDIR -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
    "$MCFLEET" --backend host --deck "$srcdir/tests/decks/slow.yaml" -o "$mnt/r.h5" >"$work/out" 2>"$work/err" &
pid=$!
i=0
while ! grep -q "slow-chase" "$work/out" 2>/dev/null; do
    i=$((i + 1)); [ $i -lt 600 ] || { kill -9 $pid; cat "$work/out" "$work/err"; fail "the run never started"; }
    sleep 0.1
done
dd if=/dev/zero of="$mnt/filler" bs=1k count=8192 2>/dev/null || true   # fills it
kill -USR1 $pid
rc=0; wait $pid || rc=$?
[ "$rc" = 3 ] || { cat "$work/out" "$work/err"; fail "full disk during the run: exit $rc, expected 3"; }
expect_in "$work/err" "No space left on device"
expect_in "$work/err" "they were saved to $work/rescue/"
grep -q "Segmentation\|signal 11\|core dumped" "$work/out" "$work/err" && fail "a crash on a full disk"
[ ! -e "$mnt/r.h5" ] && [ ! -e "$mnt/r.h5.partial" ] || fail "a file left on the full disk: $(ls "$mnt")"
rescued=$(ls "$work/rescue"/mcfleet-rescued-*-r.h5)
"$PYTHON_H5" -c "import h5py,sys; f=h5py.File(sys.argv[1]); assert int(f['meta'].attrs['complete'])==0" "$rescued" ||
    fail "the rescued file"
echo "output file ok"
