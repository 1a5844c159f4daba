#!/bin/bash
# The host backend's STREAM triad against a plain C triad loop compiled with
# the same flags (tests/triad_reference.c), interleaved in one session on the
# same array sizes, one thread each. Prints each pair and the medians.
# Use: bench/host-triad.sh BUILD_DIR [PAIRS]
set -euo pipefail
build=${1:?usage: bench/host-triad.sh BUILD_DIR [PAIRS]}
pairs=${2:-7}
here=$(cd "$(dirname "$0")/.." && pwd)
n=$((1 << 25))            # elements per array, as in tests/decks/triad-sanity.yaml
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
make -C "$build" -s tests/triad_reference >/dev/null
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
echo "# $(date -u +%FT%TZ) $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs), $(uname -r)"
echo "# arrays 3 x $((n * 8 >> 20)) MiB, 10 repetitions after 2 warm-ups, medians per run"
printf "%-6s %14s %14s %8s\n" pair "mcfleet GB/s" "plain C GB/s" ratio
for p in $(seq 1 "$pairs"); do
    ref=$("$build/tests/triad_reference" $n 10)
    ours=$(MCFLEET_HOST_THREADS=1 mpirun -np 1 "$build/mcfleet" --backend host --deck "$here/tests/decks/triad-sanity.yaml" \
           -o "$tmp/t.h5" | awk '$1 == "triad" && $2 == "bandwidth_gbs" { print $5 }')
    printf "%-6s %14s %14s %8.3f\n" "$p" "$ours" "$ref" "$(awk -v a="$ours" -v b="$ref" 'BEGIN { print a / b }')"
done | tee "$tmp/pairs"
med() { sort -g | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
col() { awk -v c="$1" '{ print $c }' "$tmp/pairs"; }
printf "%-6s %14s %14s %8s   (ratio min %s, max %s, %d pairs)\n" median "$(col 2 | med)" "$(col 3 | med)" \
    "$(col 4 | med)" "$(col 4 | sort -g | head -1)" "$(col 4 | sort -g | tail -1)" "$pairs"
