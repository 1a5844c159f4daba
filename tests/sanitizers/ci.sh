#!/bin/bash
# CI step (.ci/run): what sanitizers find, in a sanitizer build,
#     tests/sanitizers/ci.sh [BUILD-DIR] [all]  (default: build-sanitizers)
# configured with --enable-sanitizers beside the ordinary build/: the tests
# of SANITIZER_TESTS (Makefile.am: every C unit test, the parsers on their
# corpora, report/compare/baseline on hostile files, small runs on 2 and 3
# ranks), or with "all" the whole suite (an hour on 2 cores). Prints the
# configure summary's sanitizer lines, each skipped test with its reason, the
# failing tests' logs (their sanitizer reports included) and the harness
# summary. docs/reliability.md, "Sanitizers", says what runs and what skips.
# Exit: 0 every test passed or skipped, 1 a test failed, 3 autogen, configure
# or the build failed.
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 3
top=$(pwd)
dir=${1:-build-sanitizers}
which=${2:-stage}
case $which in stage|all) ;; *) echo "usage: tests/sanitizers/ci.sh [BUILD-DIR] [all]" >&2; exit 2 ;; esac
jobs=$(nproc 2>/dev/null || echo 2)
say() { printf '\033[1m== sanitizer build: %s\033[0m\n' "$*"; }

[ -x configure ] || ./autogen.sh >/dev/null || { say "autogen.sh failed"; exit 3; }
mkdir -p "$dir" && cd "$dir" || exit 3
if [ ! -f Makefile ] || [ "$top/configure" -nt Makefile ] || ! ./config.status --config | grep -q -- --enable-sanitizers; then
    say "configure --enable-sanitizers in $dir"
    "$top/configure" --enable-sanitizers >configure.log 2>&1 || { tail -n 30 configure.log; say "configure failed"; exit 3; }
fi
sed -n 's/^ *\(sanitizers\|cuda\|hip\): */  \1: /p' config.log | tail -n 3
say "make -j$jobs"
make -j"$jobs" >make.log 2>&1 || { tail -n 40 make.log; say "the build failed"; exit 3; }
say "make check (ASan+UBSan+LSan): $([ "$which" = all ] && echo "the whole suite" || echo "SANITIZER_TESTS")"
start=$(date +%s)
status=0
rm -f tests/*.log tests/*.trs tests/*/*.log tests/*/*.trs tests/*.time tests/*/*.time
tests=()
[ "$which" = all ] || tests=(TESTS='$(SANITIZER_TESTS)')
# the plots of hostile files are Python, the same in both builds: run once, in
# the first (HOSTILE_PLOT=0 here saves minutes; the report's C still runs)
HOSTILE_PLOT=0 make -j"$jobs" check "${tests[@]}" >check.log 2>&1 || status=1
log=test-suite.log
[ -f "$log" ] || { tail -n 40 check.log; say "no $log: the harness did not run"; exit 3; }
for f in $(grep -l '^SKIP ' tests/*.log tests/*/*.log 2>/dev/null); do
    echo "skipped: ${f%.log}: $(grep -m1 '^SKIP:' "$f" | sed 's/^SKIP: *//')"
done
for f in $(grep -l -E '^(FAIL|ERROR) ' tests/*.log tests/*/*.log 2>/dev/null); do
    echo "---- $f"; tail -n 60 "$f"
done
n() { sed -n "s/^# $1: *//p" "$log"; }
bash "$top/tests/durations.sh" . 5 || true
say "$(n PASS) passed, $(( $(n FAIL) + $(n ERROR) )) failed, $(n SKIP) skipped of $(n TOTAL) in $(( $(date +%s) - start )) s"
exit $status
