#!/bin/bash
# apt-wait.sh SECONDS    waits until no other process holds apt's or dpkg's
#                        locks (another apt-get, dpkg, unattended-upgrades), at
#                        most SECONDS, saying whom it waits for and, every 30 s,
#                        for how long. Exit 0 free; 1 still held after SECONDS.
# apt-wait.sh --holder   prints "PID (NAME)" of a process holding one, nothing
#                        when none does; exit 0.
# quickstart.sh waits so before each apt-get: apt-get install can wait by
# itself (-o DPkg::Lock::Timeout), apt-get update cannot.
# apt and dpkg lock these files with fcntl; /proc/locks lists each lock with
# its holder's pid and the file's inode, readable without root and without
# fuser or lsof (not in a minimal Debian).
# For tests: APT_LOCKS (space-separated paths) replaces the files,
# APT_WAIT_POLL the seconds between looks (default 5).
set -u
locks=${APT_LOCKS:-/var/lib/dpkg/lock-frontend /var/lib/dpkg/lock /var/lib/apt/lists/lock /var/cache/apt/archives/lock}
poll=${APT_WAIT_POLL:-5}

holder() {
    local f ino pid
    [ -r /proc/locks ] || return 0
    for f in $locks; do
        ino=$(stat -c %i "$f" 2>/dev/null) || continue
        # "1: POSIX  ADVISORY  WRITE 1234 fd:01:5678 0 EOF"; a waiter's line has
        # "->" after the number; an OFD lock's pid is -1 (no process to name)
        pid=$(awk -v ino="$ino" '$2 != "->" { n = split($6, d, ":"); if (n == 3 && d[3] == ino && $5 > 0) { print $5; exit } }' \
              /proc/locks 2>/dev/null)
        [ -n "$pid" ] && [ -d "/proc/$pid" ] || continue
        printf '%s (%s)\n' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo '?')"
        return 0
    done
}

case "${1:-}" in
    --holder) holder; exit 0 ;;
    ''|*[!0-9]*) echo "apt-wait.sh: expected SECONDS or --holder, got '${1:-}'" >&2; exit 2 ;;
esac
limit=$1
h=$(holder)
[ -n "$h" ] || exit 0
echo "apt is busy: process $h holds its lock; waiting for it to finish (up to $limit s)"
start=$(date +%s); said=$start
while [ -n "$h" ]; do
    now=$(date +%s)
    if [ $((now - start)) -ge "$limit" ]; then
        echo "apt is still held by process $h after $((now - start)) s: giving up" >&2
        exit 1
    fi
    if [ $((now - said)) -ge 30 ]; then
        echo "   ... still waiting for process $h ($((now - start)) s)"; said=$now
    fi
    sleep "$poll"
    h=$(holder)
done
echo "apt is free after $(( $(date +%s) - start )) s"
exit 0
