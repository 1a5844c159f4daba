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
launch 2 long-chase --backend host --deck "$srcdir/tests/decks/long.yaml" -o "$work/x.h5"
first=$pid
cp "$work/out" "$work/first"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5"
expect_rc 2
expect_in "$work/err" "is being written by another mcfleet run"
mpi 2 --backend host --quick --deck "$tiny" -o "$work/x.h5" --force   # not even with --force
expect_rc 2
[ -e "$work/x.h5.partial" ] || fail "the second run removed the first's .partial"
kill -USR1 $first
pid=$first
await "the first run"
[ -e "$work/x.h5" ] || { cat "$work/out"; fail "the first run lost its results"; }
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
export TMPDIR="$work/rescue"   # where the results go when their disk is full
launch 2 slow-chase --backend host --deck "$srcdir/tests/decks/slow.yaml" -o "$mnt/r.h5"
unset TMPDIR
dd if=/dev/zero of="$mnt/filler" bs=1k count=8192 2>/dev/null || true   # fills it
kill -USR1 $pid
await "full disk during the run"
[ "$rc" = 3 ] || { cat "$work/out"; fail "full disk during the run: exit $rc, expected 3"; }
expect_in "$work/out" "No space left on device"
expect_in "$work/out" "they were saved to $work/rescue/"
grep -q "Segmentation\|signal 11\|core dumped" "$work/out" && fail "a crash on a full disk"
[ ! -e "$mnt/r.h5" ] && [ ! -e "$mnt/r.h5.partial" ] || fail "a file left on the full disk: $(ls "$mnt")"
rescued=$(ls "$work/rescue"/mcfleet-rescued-*-r.h5)
"$PYTHON_H5" -c "import h5py,sys; f=h5py.File(sys.argv[1]); assert int(f['meta'].attrs['complete'])==0" "$rescued" ||
    fail "the rescued file"
echo "output file ok"
