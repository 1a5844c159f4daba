#!/bin/sh
# The sanitizer build checks itself (configure --enable-sanitizers; skips in
# any other build), with the options and suppressions the harness exports:
# 1. each kind of finding is reported, from ranks under mpirun, naming the
#    faulting function, and stops the process: a leak in our code after
#    MPI_Init, a heap overflow, a use after free (in report files), a signed
#    overflow (UBSan, on stderr);
# 2. MPI and hwloc used as mcfleet uses them report nothing (what
#    tests/sanitizers/lsan.supp suppresses is theirs alone);
# 3. tests/sanitizers/run_test.sh fails a test one of whose processes
#    reported, or whose output holds a UBSan report, whatever the test's own
#    status (0, or 77), and otherwise passes the test's status through.
[ -n "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: not a sanitizer build (configure --enable-sanitizers)"; exit 77; }
. "$srcdir/tests/lib.sh"
need_mpirun
leaky=$builddir/tests/sanitizers/leaky
[ -x "$leaky" ] || fail "$leaky not built"

# run NAME NP MODE: leaky on NP ranks; its status in $rc, its ASan reports
# in $work/NAME/asan.PID and all of them in $work/NAME.txt, its output in $work/NAME/out
run() {
    d=$work/$1
    mkdir -p "$d"
    rc=0
    ASAN_OPTIONS="$ASAN_OPTIONS:log_path=$d/asan" \
        "$MPIRUN" -np "$2" --oversubscribe --mca btl self,vader,tcp --bind-to none \
        "$leaky" "$3" >"$d/out" 2>&1 || rc=$?
    cat "$d"/asan.* >"$work/$1.txt" 2>/dev/null || :
}

# ---- 1. findings
expect_report() {   # expect_report NAME NP MODE TEXT...
    name=$1 np=$2 mode=$3
    shift 3
    run "$name" "$np" "$mode"
    [ "$rc" != 0 ] || { cat "$work/$name/out"; fail "$mode: exit 0 despite the finding"; }
    n=$(ls "$work/$name" | grep -c '^asan\.')
    [ "$n" = "$np" ] || { cat "$work/$name/out" "$work/$name.txt"; fail "$mode: $n report(s) from $np rank(s)"; }
    for text; do expect_in "$work/$name.txt" "$text"; done
    echo "$mode: reported by $np rank(s), exit $rc"
}
expect_report leak 2 leak "ERROR: LeakSanitizer: detected memory leaks" "in main" "leaky.c"
expect_report overflow 1 overflow "ERROR: AddressSanitizer: heap-buffer-overflow" "in main"
expect_report uaf 1 use-after-free "ERROR: AddressSanitizer: heap-use-after-free" "in main"
# UBSan (gcc's separate runtime) reports on stderr and aborts the rank
run ubsan 1 ubsan
[ "$rc" != 0 ] || { cat "$work/ubsan/out"; fail "ubsan: exit 0 despite the finding"; }
expect_in "$work/ubsan/out" "leaky.c"
expect_in "$work/ubsan/out" "runtime error: signed integer overflow"
echo "ubsan: reported on stderr, exit $rc"

# ---- 2. MPI and hwloc alone: nothing
run clean 2 clean
[ "$rc" = 0 ] || { cat "$work/clean/out" "$work/clean.txt"; fail "clean: exit $rc"; }
[ ! -s "$work/clean.txt" ] || { cat "$work/clean.txt"; fail "clean: MPI and hwloc as mcfleet uses them gave a report"; }
echo "clean: MPI_Init/MPI_Finalize and an hwloc topology on 2 ranks, no report"

# ---- 3. the harness's wrapper
mkdir -p "$work/wb"
wrap() {    # wrap NAME TEST-STATUS MODE: a test that runs leaky MODE and exits TEST-STATUS
    printf '"%s" %s >/dev/null 2>&1\nexit %s\n' "$leaky" "$3" "$2" >"$work/$1.sh"
    rc=0
    builddir=$work/wb sh "$srcdir/tests/sanitizers/run_test.sh" sh "$work/$1.sh" >"$work/$1.log" 2>&1 || rc=$?
}
wrap passing 0 leak
[ "$rc" = 1 ] || { cat "$work/passing.log"; fail "run_test.sh: a passing test with a leak gave $rc, expected 1"; }
expect_in "$work/passing.log" "---- sanitizer report"
expect_in "$work/passing.log" "detected memory leaks"
wrap skipped 77 leak
[ "$rc" = 1 ] || { cat "$work/skipped.log"; fail "run_test.sh: a skipped test with a leak gave $rc, expected 1"; }
wrap quiet 77 clean
[ "$rc" = 77 ] || { cat "$work/quiet.log"; fail "run_test.sh: a clean skipped test gave $rc, expected 77"; }
[ ! -e "$work/wb/tests/sanitizer-reports/quiet.sh" ] || fail "run_test.sh left the empty report directory of a clean test"
wrap failing 1 clean
[ "$rc" = 1 ] || fail "run_test.sh: a clean failing test gave $rc, expected 1"
printf '"%s" ubsan\nexit 0\n' "$leaky" >"$work/ub.sh"
rc=0
builddir=$work/wb sh "$srcdir/tests/sanitizers/run_test.sh" sh "$work/ub.sh" >"$work/ub.log" 2>&1 || rc=$?
[ "$rc" = 1 ] || { cat "$work/ub.log"; fail "run_test.sh: a passing test that printed a UBSan report gave $rc, expected 1"; }
echo "run_test.sh: reports fail the test whatever its status; clean tests keep theirs"
echo "sanitizer self-test ok"
