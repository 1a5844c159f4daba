#!/bin/bash
# Package archives are taken from the machine's own apt configuration at run
# time, never written into the project:
# 1. tools/debian-mirror.sh reads both apt formats (deb822 and one-line),
#    skips disabled and deb-src entries and other suites;
# 2. no host named in this machine's apt sources appears in any file of the
#    project (git's list of files, else every file under the source tree).
. "$srcdir/tests/lib.sh"
mirror="$srcdir/tools/debian-mirror.sh"

# ---- 1. fixtures (.example is reserved for examples: no real host)
etc=$work/apt
mkdir -p "$etc/sources.list.d"
cat >"$etc/sources.list.d/a.sources" <<'EOF'
Types: deb
URIs: http://off.example/debian
Suites: bookworm
Components: main
Enabled: no

Types: deb-src
URIs: http://src.example/debian
Suites: bookworm
Components: main

# a comment between stanzas
Types: deb deb-src
URIs: http://one.example/debian http://two.example/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/one.gpg

Types: deb
URIs: http://sec.example/debian-security
Suites: bookworm-security
Components: main
EOF
cat >"$etc/sources.list" <<'EOF'
deb [arch=amd64 signed-by=/k.gpg] http://line.example/debian bookworm main
deb http://noble.example/ubuntu noble main
EOF
got=$(APT_ETC=$etc bash "$mirror" bookworm) || fail "debian-mirror.sh: exit $?"
[ "$got" = "http://one.example/debian /usr/share/keyrings/one.gpg" ] || fail "debian-mirror.sh gave '$got'"
got=$(APT_ETC=$etc bash "$mirror" bookworm --sources) || fail "debian-mirror.sh --sources: exit $?"
echo "$got" | grep -q "one.example" && echo "$got" | grep -q "sec.example" || fail "--sources: '$got'"
! echo "$got" | grep -q -e "off.example" -e "src.example" || fail "--sources kept a disabled or deb-src stanza: '$got'"
got=$(APT_ETC=$etc bash "$mirror" bookworm --list) || fail "debian-mirror.sh --list: exit $?"
[ "$got" = "deb [arch=amd64 signed-by=/k.gpg] http://line.example/debian bookworm main" ] || fail "--list: '$got'"
rm "$etc/sources.list.d/a.sources"
got=$(APT_ETC=$etc bash "$mirror" bookworm) || fail "debian-mirror.sh (one-line only): exit $?"
[ "$got" = "http://line.example/debian /k.gpg" ] || fail "debian-mirror.sh (one-line) gave '$got'"
rc=0; APT_ETC=$etc bash "$mirror" trixie >/dev/null 2>"$work/err" || rc=$?
[ $rc = 2 ] || fail "a suite nobody serves: exit $rc, expected 2"
expect_in "$work/err" "no enabled 'deb' entry for 'trixie'"

# ---- 2. this machine's archive hosts, nowhere in the project
hosts=$(cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null \
        | grep -v '^[[:space:]]*#' | grep -oE '[a-z]+://[^/[:space:]]+' | sed 's|.*://||; s|:[0-9]*$||' | sort -u)
[ -n "$hosts" ] || { echo "SKIP: no apt sources on this machine to compare with"; exit 77; }
cd "$srcdir"
if git rev-parse --is-inside-work-tree >/dev/null 2>&1 && [ "$(git rev-parse --show-toplevel)" = "$(pwd -P)" ]; then
    git ls-files -z >"$work/files"
else
    find . -path ./.git -prune -o -type f -print0 >"$work/files"
fi
found=0
for h in $hosts; do
    if xargs -0 grep -I -n -F -- "$h" <"$work/files" >"$work/hits" 2>/dev/null; then
        echo "archive host '$h' (from this machine's apt sources) written into the project:"; cat "$work/hits"
        found=1
    fi
done
[ $found = 0 ] || fail "archive hosts in the project: take them from the apt configuration at run time (tools/debian-mirror.sh)"
echo "apt sources ok: $(echo $hosts | wc -w) host(s) checked"
