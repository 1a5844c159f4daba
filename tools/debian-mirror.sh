#!/bin/bash
# debian-mirror.sh [SUITE] [--sources|--list]
# The Debian archive this machine's own apt configuration uses for SUITE
# (default: bookworm), read at run time so that no archive host is written
# into the project:
#   (default)   one line: URI, then the Signed-By keyring path if it has one
#   --sources   the deb822 stanzas (*.sources) that serve SUITE or SUITE-*
#               (updates, security), whole, to copy into a root's
#               sources.list.d/NAME.sources
#   --list      the same from the one-line files, for NAME.list
# Reads /etc/apt/sources.list.d/*.sources, /etc/apt/sources.list and
# /etc/apt/sources.list.d/*.list (APT_ETC overrides /etc/apt, for tests).
# Exit 0; 2 when nothing of the kind asked for serves SUITE.
set -eu
suite=${1:-bookworm}
mode=${2:-uri}
etc=${APT_ETC:-/etc/apt}
shopt -s nullglob
deb822=("$etc"/sources.list.d/*.sources)
oneline=()
[ -f "$etc/sources.list" ] && oneline+=("$etc/sources.list")
oneline+=("$etc"/sources.list.d/*.list)

# deb822: stanzas separated by blank lines; print each matching stanza whole
# (--sources) or its first URI and Signed-By path (uri), "Enabled: no" skipped.
from_deb822() {
    [ ${#deb822[@]} -gt 0 ] || return 0
    awk -v suite="$suite" -v mode="$mode" '
        function flush(   i, n, s, ok, u) {
            if (text == "") return
            ok = (types ~ /(^|[ \t])deb([ \t]|$)/) && tolower(enabled) != "no"
            n = split(suites, s, /[ \t]+/)
            serves = 0; exact = 0
            for (i = 1; i <= n; i++) {
                if (s[i] == suite) { serves = 1; exact = 1 }
                else if (index(s[i], suite "-") == 1) serves = 1
            }
            if (ok && mode != "uri" && serves) printf "%s\n", text
            if (ok && mode == "uri" && exact && !done) {
                split(uris, u, /[ \t]+/)
                printf "%s", u[1]; if (signed ~ /^\//) printf " %s", signed; printf "\n"
                done = 1
            }
            text = ""; types = ""; suites = ""; uris = ""; signed = ""; enabled = ""
        }
        /^[ \t]*$/ { flush(); next }
        /^[ \t]*#/ { next }
        {
            text = text $0 "\n"
            line = $0; sub(/^[^:]*:[ \t]*/, "", line)
            key = tolower($1)
            if (key == "types:") types = line
            else if (key == "suites:") suites = line
            else if (key == "uris:") uris = line
            else if (key == "signed-by:") signed = line
            else if (key == "enabled:") enabled = line
        }
        END { flush() }
    ' "${deb822[@]}"
}

# one-line format: deb [options] URI SUITE COMPONENTS...
from_oneline() {
    [ ${#oneline[@]} -gt 0 ] || return 0
    awk -v suite="$suite" -v mode="$mode" '
        $1 != "deb" { next }
        {
            line = $0; opts = ""
            if ($2 ~ /^\[/) { match(line, /\[[^]]*\]/); opts = substr(line, RSTART + 1, RLENGTH - 2)
                              line = substr(line, 1, RSTART - 1) substr(line, RSTART + RLENGTH) }
            n = split(line, f, /[ \t]+/)
            if (n < 3) next
            if (mode != "uri") { if (f[3] == suite || index(f[3], suite "-") == 1) print $0; next }
            if (f[3] != suite || done) next
            signed = ""
            if (match(opts, /signed-by=[^ \t]+/)) signed = substr(opts, RSTART + 10, RLENGTH - 10)
            printf "%s", f[2]; if (signed ~ /^\//) printf " %s", signed; printf "\n"
            done = 1
        }
    ' "${oneline[@]}"
}
case "$mode" in
    uri|--sources|--list) ;;
    *) echo "debian-mirror.sh: unknown option '$mode' (--sources or --list)" >&2; exit 2 ;;
esac

if [ "$mode" = --sources ]; then
    out=$(from_deb822)
elif [ "$mode" = --list ]; then
    out=$(from_oneline)
else
    out=$( { from_deb822; from_oneline; } | head -n 1)
fi
if [ -z "$out" ]; then
    echo "debian-mirror.sh: no enabled 'deb' entry for '$suite' in $etc/sources.list or $etc/sources.list.d/" >&2
    exit 2
fi
printf '%s\n' "$out"
