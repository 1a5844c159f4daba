#!/bin/bash
# The README's two commands on a truly fresh Debian 12: a minimal root
# (debootstrap --variant=minbase) with only git and ca-certificates added, the
# project's current commit cloned into it, then exactly
#     ./quickstart.sh            and            ./quickstart.sh check
# each logged. Both must pass: whatever the build and the tests call must be
# installed by quickstart.sh, or skipped by the test that needs it.
#
# Not part of `make check` (the suite runs inside the root); a CI step
# (.ci/run) when its inputs changed since the last recorded pass
# (docs/fresh-debian.md). By hand, as root, from the checkout:
#     tests/fresh_debian.sh            about 15 minutes on 2 cores
#     tests/fresh_debian.sh --record   the same, then the pass recorded in docs/fresh-debian.md
#     tests/fresh_debian.sh --hash     prints the hash of the inputs and exits
# The archive is the one this machine's apt sources name for bookworm
# (tools/debian-mirror.sh); those sources (Debian's entries) and apt's Acquire
# settings are copied into the root, so it reaches the archive as the host does.
# Environment:
#   MCFLEET_FRESH_CACHE=FILE.tar  keep the debootstrapped base (nothing added
#                                 yet) in FILE and start from it on later runs;
#                                 default: debootstrap afresh, nothing kept
#   MCFLEET_FRESH_DIR=DIR         where the run's directory (root and logs) is
#                                 made (default /var/tmp); the logs are kept
#                                 when a command fails, everything is removed
#                                 after a pass unless MCFLEET_FRESH_KEEP=1
#   MCFLEET_FRESH_TIMEOUT=SECONDS per command (default 5400)
# Exit: 0 both passed; 1 either failed (the logs' tails printed); 2 a bad
# option or setting; 3 setting the root up failed; 77 cannot run here (not
# root, no debootstrap, mounting not permitted, no Debian 12 archive in the
# apt sources, not a git checkout).
set -u
{   # read whole before it runs: an edit or checkout of this file meanwhile cannot change a run
top=$(cd "$(dirname "$0")/.." && pwd)
suite=bookworm
# what the result depends on beyond the code the suite itself tests
inputs=(quickstart.sh configure.ac Makefile.am autogen.sh tests tools jobscripts)

inputs_hash() {   # inputs_hash [COMMIT]: of committed content (CI works on a clean clone)
    git -C "$top" ls-tree -r "${1:-HEAD}" -- "${inputs[@]}" | sha256sum | cut -d' ' -f1
}

action=run
case "${1:-}" in
    "") ;;
    --record) action=record ;;
    --hash) inputs_hash; exit $? ;;
    -h|--help) sed -n '2,30p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "fresh_debian.sh: unknown option '$1' (--record, --hash or --help)" >&2; exit 2 ;;
esac
timeout_s=${MCFLEET_FRESH_TIMEOUT:-5400}
case "$timeout_s" in ''|*[!0-9]*) echo "fresh_debian.sh: MCFLEET_FRESH_TIMEOUT='$timeout_s' is not a number of seconds" >&2; exit 2 ;; esac

skip() { echo "SKIP: $*"; exit 77; }
PATH="$PATH:/usr/sbin:/sbin"
[ "$(id -u)" = 0 ] || skip "not root (debootstrap, chroot and mount need root)"
command -v debootstrap >/dev/null 2>&1 || skip "debootstrap not installed (quickstart.sh check installs it)"
command -v git >/dev/null 2>&1 && git -C "$top" rev-parse --verify -q HEAD >/dev/null \
    || skip "$top is not a git checkout (the test clones its current commit)"
read -r mirror keyring < <(bash "$top/tools/debian-mirror.sh" "$suite" 2>/dev/null) || true
[ -n "${mirror:-}" ] || skip "no Debian 12 ($suite) archive in this machine's apt sources"

parent=${MCFLEET_FRESH_DIR:-/var/tmp}
[ -d "$parent" ] || { echo "fresh_debian.sh: MCFLEET_FRESH_DIR=$parent is not a directory" >&2; exit 2; }
dir=$(mktemp -d "$parent/mcfleet-fresh.XXXXXX") || { echo "fresh_debian.sh: cannot make a directory in $parent" >&2; exit 3; }
dir=$(cd "$dir" && pwd -P)
root=$dir/root
mounted=()

# ---- on every exit: stop what still runs in the root, unmount, then remove
cleanup() {
    local rc=$? p m
    trap - EXIT INT TERM HUP
    for p in /proc/[0-9]*; do   # processes started in the root (a daemon a test left), by pid
        [ "$(readlink "$p/root" 2>/dev/null)" = "$root" ] && kill -9 "${p#/proc/}" 2>/dev/null
    done
    for ((m = ${#mounted[@]} - 1; m >= 0; m--)); do
        umount -R "${mounted[m]}" 2>/dev/null || umount -R -l "${mounted[m]}" 2>/dev/null \
            || echo "fresh_debian.sh: could not unmount ${mounted[m]}" >&2
    done
    if grep -qF " $root/" /proc/self/mountinfo 2>/dev/null; then
        echo "fresh_debian.sh: mounts remain under $root: left in place" >&2
    elif [ "${MCFLEET_FRESH_KEEP:-0}" = 1 ]; then
        echo "root and logs kept: $dir"
    elif [ "$rc" = 0 ] || [ "$rc" = 77 ]; then
        rm -rf --one-file-system "$dir"
    else
        rm -rf --one-file-system "$root"
        echo "logs: $dir"
    fi
    exit "$rc"
}
trap cleanup EXIT
trap 'exit 3' INT TERM HUP

# mounting must be permitted (not in every container)
mkdir -p "$dir/probe"
if ! mount -t tmpfs mcfleet-probe "$dir/probe" 2>/dev/null; then
    rmdir "$dir/probe"; skip "mounting is not permitted here"
fi
umount "$dir/probe"; rmdir "$dir/probe"

step() { printf '\n== %s\n' "$*"; }
setup_failed() { echo "FAIL (setting up the root): $*" >&2; [ -f "$dir/setup.log" ] && tail -n 30 "$dir/setup.log" >&2; exit 3; }

commit=$(git -C "$top" rev-parse HEAD)
step "commit $(git -C "$top" log -1 --format='%h %s' HEAD)"
[ -z "$(git -C "$top" status --porcelain --untracked-files=no 2>/dev/null)" ] \
    || echo "note: the checkout has uncommitted changes; only the commit is tested"
echo "archive (from this machine's apt sources): $mirror"
echo "root and logs: $dir"

# ---- the base root
rm -rf --one-file-system "$root"
mkdir -p "$root"
cache=${MCFLEET_FRESH_CACHE:-}
if [ -n "$cache" ] && [ -s "$cache" ]; then
    step "base root from the cache $cache"
    tar -x --numeric-owner -C "$root" -f "$cache" >"$dir/setup.log" 2>&1 || setup_failed "unpacking $cache"
else
    step "debootstrap --variant=minbase $suite (a few minutes)"
    opts=(--variant=minbase)
    [ -n "${keyring:-}" ] && [ -f "$keyring" ] && opts+=(--keyring="$keyring")
    debootstrap "${opts[@]}" "$suite" "$root" "$mirror" >"$dir/setup.log" 2>&1 \
        || setup_failed "debootstrap (log: $dir/setup.log)"
    if [ -n "$cache" ]; then
        tar -c --numeric-owner -C "$root" -f "$cache.tmp" . && mv "$cache.tmp" "$cache" \
            || setup_failed "writing the cache $cache"
        echo "cached: $cache"
    fi
fi

# ---- apt: this machine's Debian sources and Acquire settings; DNS
rm -f "$root/etc/apt/sources.list" "$root"/etc/apt/sources.list.d/*
srcs=$(bash "$top/tools/debian-mirror.sh" "$suite" --sources 2>/dev/null) && printf '%s\n' "$srcs" >"$root/etc/apt/sources.list.d/debian.sources"
lines=$(bash "$top/tools/debian-mirror.sh" "$suite" --list 2>/dev/null) && printf '%s\n' "$lines" >"$root/etc/apt/sources.list.d/debian.list"
for f in /etc/apt/apt.conf /etc/apt/apt.conf.d/*; do   # network settings only: no hooks, no credentials
    [ -f "$f" ] && grep -q "Acquire::" "$f" && ! grep -qi "invoke" "$f" && cp "$f" "$root/etc/apt/apt.conf.d/" \
        && echo "apt setting copied in: $f"
done
cp -L /etc/resolv.conf "$root/etc/resolv.conf" 2>/dev/null || true
# what an installed Debian has and debootstrap does not write: /etc/hosts (the
# installer's), so that localhost and this host's name resolve
[ -s "$root/etc/hosts" ] || printf '127.0.0.1\tlocalhost\n127.0.1.1\t%s\n\n::1\tlocalhost ip6-localhost ip6-loopback\nff02::1\tip6-allnodes\nff02::2\tip6-allrouters\n' \
    "$(hostname)" >"$root/etc/hosts"

# ---- the kernel's file systems, recursively (cgroups under /sys: slurmd needs them)
for m in proc sys dev dev/pts; do
    mkdir -p "$root/$m"
    mountpoint -q "$root/$m" && continue
    mount --rbind "/$m" "$root/$m" || setup_failed "mount --rbind /$m"
    mounted+=("$root/$m")
    mount --make-rslave "$root/$m" || setup_failed "mount --make-rslave $root/$m"
done

# ---- git and ca-certificates, and nothing else; then the project
in_root() {   # in_root LOG COMMAND: a clean environment; in the background, so that a signal ends the wait
    timeout -k 60 "$timeout_s" chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb LANG=C.UTF-8 \
        PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin /bin/bash -c "$2" >>"$1" 2>&1 &
    wait $!
}
step "apt-get install git ca-certificates (in the root)"
in_root "$dir/setup.log" 'apt-get update -q && DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends git ca-certificates' \
    || setup_failed "installing git and ca-certificates in the root"
git clone -q --no-hardlinks "$top" "$root/root/mcfleet" >>"$dir/setup.log" 2>&1 \
    && git -C "$root/root/mcfleet" checkout -q --detach "$commit" >>"$dir/setup.log" 2>&1 \
    || setup_failed "cloning $top"

# ---- the README's two commands
status=0
for cmd in "./quickstart.sh" "./quickstart.sh check"; do
    log=$dir/$(echo "${cmd#./}" | tr ' .' '-_').log
    step "$cmd   (log: $log)"
    start=$(date +%s); rc=0
    in_root "$log" "cd /root/mcfleet && $cmd" || rc=$?
    echo "$cmd: exit $rc after $(( $(date +%s) - start )) s"
    if [ $rc != 0 ]; then
        status=1
        echo "---- last lines of $log"; tail -n 60 "$log"
    fi
done
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped' "$dir/quickstart_sh-check.log" 2>/dev/null | tail -n 1)
skipped=$(grep -h '^SKIP' "$root"/root/mcfleet/build/tests/*.log 2>/dev/null | sort | uniq -c)
[ -z "$skipped" ] || { echo "skipped in the root:"; echo "$skipped"; }
if [ $status != 0 ]; then
    echo "FAIL: the README's commands on a fresh Debian 12 (${summary:-no test summary})"
    exit 1
fi
echo "fresh Debian 12 ok: ./quickstart.sh and ./quickstart.sh check passed (${summary:-no summary})"

if [ "$action" = record ]; then
    rec=$top/docs/fresh-debian.md
    row="| $(date -u +%Y-%m-%d) | $(git -C "$top" rev-parse --short "$commit") | \`sha256:$(inputs_hash "$commit")\` | $(nproc) cores, $(uname -m), kernel $(uname -r) | pass: $summary |"
    if [ -f "$rec" ] && grep -q '^| date | commit | inputs |' "$rec"; then
        # the newest run first, under the table's header and its rule
        awk -v row="$row" '{ print } /^\| date \| commit \| inputs \|/ { getline; print; print row }' "$rec" >"$rec.tmp" \
            && mv "$rec.tmp" "$rec" && echo "recorded in $rec: $row"
    else
        echo "fresh_debian.sh: $rec has no record table; the row is: $row" >&2
    fi
fi
exit 0
}
