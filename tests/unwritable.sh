#!/bin/sh
# An output path that cannot be written fails fast with exit 3 and leaves nothing.
. "$srcdir/tests/lib.sh"
need_mpirun
mpi 2 --quick --deck "$srcdir/tests/decks/tiny.yaml" -o /nonexistent-mcfleet-dir/r.h5
expect_rc 3
expect_in "$work/err" "cannot create results file '/nonexistent-mcfleet-dir/r.h5.partial': No such file or directory"
expect_in "$work/err" "mcfleet:"
# no test ran before the failure
if grep -q "tiny-matrix" "$work/out"; then fail "tests ran before the output was checked"; fi

# A directory the run may not write. Root writes anywhere, so as root the run
# is made by an unprivileged user (setpriv, util-linux), else the directory is
# a read-only bind mount; if neither can be had, this half is skipped.
mkdir "$work/ro"; chmod 555 "$work/ro"
ro_half=""
if [ "$(id -u)" != 0 ]; then
    mpi 2 --quick --deck "$srcdir/tests/decks/tiny.yaml" -o "$work/ro/r.h5"
    ro_half="as $(id -un)"; why="Permission denied"
else
    # what the user runs must be readable by it (the build may sit under /root)
    chmod 755 "$work"
    cp "$MCFLEET" "$work/mcfleet" && cp "$srcdir/tests/decks/tiny.yaml" "$work/tiny.yaml" && chmod 755 "$work/mcfleet" \
        && chmod 644 "$work/tiny.yaml" || fail "test setup: copying mcfleet"
    user=nobody
    as_user() { setpriv --reuid="$user" --regid="$(id -g "$user")" --clear-groups env HOME="$work" "$@"; }
    if command -v setpriv >/dev/null 2>&1 && id "$user" >/dev/null 2>&1 && as_user "$work/mcfleet" --version >/dev/null 2>&1; then
        rc=0
        as_user "$MPIRUN" -np 2 --oversubscribe --mca btl self,vader,tcp --bind-to none \
            "$work/mcfleet" --quick --deck "$work/tiny.yaml" -o "$work/ro/r.h5" >"$work/out" 2>"$work/err" || rc=$?
        ro_half="as $user (setpriv)"; why="Permission denied"
    elif mount --bind "$work/ro" "$work/ro" 2>/dev/null; then
        trap 'umount "$work/ro" 2>/dev/null; rm -rf "$work"' EXIT
        mount -o remount,bind,ro "$work/ro" || fail "test setup: remounting $work/ro read-only"
        mpi 2 --quick --deck "$work/tiny.yaml" -o "$work/ro/r.h5"
        ro_half="on a read-only bind mount"; why="Read-only file system"
    else
        echo "SKIP (this half only): as root, with neither setpriv and user '$user' nor permission to mount," \
             "no directory can be made unwritable"
    fi
fi
if [ -n "$ro_half" ]; then
    expect_rc 3
    expect_in "$work/err" "cannot create results file '$work/ro/r.h5.partial': $why"
    [ -z "$(ls -A "$work/ro")" ] || fail "files left in the unwritable directory"
    echo "unwritable directory checked $ro_half"
fi
echo "unwritable ok"
