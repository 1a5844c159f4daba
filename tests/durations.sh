#!/bin/bash
# Each test's wall time in the last run of the suite (the .time files that
# tests/timed-driver.sh writes beside the logs), the slowest first, and their
# sum. Use: tests/durations.sh [BUILD_DIR] [N]  (N: only the N slowest)
dir=${1:-.}
n=${2:-0}
shopt -s nullglob
files=("$dir"/tests/*.time "$dir"/tests/*/*.time)
[ ${#files[@]} -gt 0 ] || { echo "durations: no tests/*.time under $dir (run make check first)" >&2; exit 2; }
for f in "${files[@]}"; do
    name=${f#"$dir"/}
    printf '%s %s\n' "$(cat "$f")" "${name%.time}"
done | sort -k1,1 -g -r | awk -v n="$n" '
    { sum += $1; if (n == 0 || NR <= n) printf "  %7.1f s  %s\n", $1, $2; count++ }
    END { printf "  %7.1f s  in all, %d tests (run in parallel: the wall time is less)\n", sum, count }'
