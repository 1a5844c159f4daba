#!/bin/bash
# quickstart.sh waits for another apt or dpkg instead of failing on its lock
# (tools/apt-wait.sh): a lock held on a stand-in file (APT_LOCKS) is found with
# its holder named, waited out with a message, or given up on after the limit
# (exit 1); no lock, no wait and no output. Also: run mode's package list
# holds none of check mode's test-only tools.
. "$srcdir/tests/lib.sh"
wait_sh="$srcdir/tools/apt-wait.sh"
py=${PYTHON_H5:-/usr/bin/python3}
"$py" -c 'import fcntl' 2>/dev/null || { echo "SKIP: no python3 to hold a lock"; exit $SKIP; }
lock=$work/lock-frontend
: >"$lock"
export APT_LOCKS="$work/missing $lock" APT_WAIT_POLL=1

# hold LOCKFILE SECONDS: an fcntl write lock, as apt takes one, in the background ($holder)
hold() {
    "$py" -c 'import fcntl, sys, time
f = open(sys.argv[1], "w"); fcntl.lockf(f, fcntl.LOCK_EX); open(sys.argv[1] + ".held", "w").close()
time.sleep(float(sys.argv[2]))' "$1" "$2" &
    holder=$!
    for _ in $(seq 50); do [ -e "$1.held" ] && return 0; sleep 0.1; done
    fail "the lock holder did not start"
}

# ---- free: nothing to say
out=$(bash "$wait_sh" 30) || fail "apt-wait.sh on a free lock: exit $?"
[ -z "$out" ] || fail "apt-wait.sh on a free lock said '$out'"
[ -z "$(bash "$wait_sh" --holder)" ] || fail "--holder named someone for a free lock"

# ---- held for 3 s: named, waited for, then free
hold "$lock" 3
got=$(bash "$wait_sh" --holder)
case "$got" in "$holder ("*")") ;; *) fail "--holder gave '$got', expected '$holder (NAME)'" ;; esac
rc=0; bash "$wait_sh" 60 >"$work/wait.out" 2>&1 || rc=$?
[ $rc = 0 ] || { cat "$work/wait.out"; fail "apt-wait.sh 60 while held 3 s: exit $rc"; }
expect_in "$work/wait.out" "apt is busy: process $got holds its lock; waiting for it to finish (up to 60 s)"
expect_in "$work/wait.out" "apt is free after"
wait "$holder" 2>/dev/null
rm -f "$lock.held"

# ---- held longer than the limit: gives up, exit 1, saying so
hold "$lock" 10
rc=0; bash "$wait_sh" 1 >"$work/wait.out" 2>&1 || rc=$?
kill "$holder" 2>/dev/null; wait "$holder" 2>/dev/null
[ $rc = 1 ] || { cat "$work/wait.out"; fail "apt-wait.sh 1 while held: exit $rc, expected 1"; }
expect_in "$work/wait.out" "apt is still held by process $holder ("
rc=0; bash "$wait_sh" soon >/dev/null 2>&1 || rc=$?
[ $rc = 2 ] || fail "apt-wait.sh soon: exit $rc, expected 2"

# ---- run mode installs no test-only package (the lists in quickstart.sh)
run_list=$(sed -n '/^packages=(/,/)/p' "$srcdir/quickstart.sh")
for p in libcmocka-dev hdf5-tools slurm-wlm munge debootstrap clang hipcc chromium; do
    ! echo "$run_list" | grep -qw -- "$p" || fail "run mode's package list has the test-only $p"
done
grep -q 'if \[ "\$mode" = check \]' "$srcdir/quickstart.sh" || fail "quickstart.sh has no check-mode-only part"
echo "apt-wait.sh: waits for a held lock, names its holder, gives up after its limit; run mode lists no test-only package"
