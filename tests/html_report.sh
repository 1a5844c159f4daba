#!/bin/sh
# mcfleet report FILE --html OUT (analysis/mcfleet_html.py through the binary):
# one self-contained page with the verdict of the same binary. A host run on
# 2 ranks with a wrong result injected on rank 1: the page says FAIL and
# names that GPU, shows the rank as not measured, embeds its plots (no link
# to anything outside the page), and the command exits with the verdict's
# code. A SIMULATED 10,000-GPU file (tools/fleetsim.py from the real H200
# bench run) gives a page under 20 MB naming its flagged GPUs; the time it
# took is printed (docs/acceptance.md has the measured figure; a loaded
# machine is slower, so it is not asserted). Bad input: exit 2 naming it.
# The browser's view is tests/html_browser.sh.
. "$srcdir/tests/lib.sh"
need_mpirun
need_matplotlib
cat >"$work/deck.yaml" <<YAML
defaults:
  repetitions: 3
  warmup: 1
tests:
  - {name: peak, kernel: valu, dtype: fp64, iterations: 20000}
  - {name: triad, kernel: memory, op: triad, bytes: 4MiB}
  - {name: ai, kernel: memory, op: fma, bytes: 2MiB, intensity: [1, 8]}
  - {name: mm, kernel: matrix, dtype: fp64, shape: [8, 8, 4], iterations: 2000, occupancy: [1, 2]}
YAML
export MCFLEET_INJECT_FAULT='triad@1'
mpi 2 --backend host --deck "$work/deck.yaml" -o "$work/r.h5"
unset MCFLEET_INJECT_FAULT
rc=0; "$MCFLEET" report "$work/r.h5" --html "$work/r.html" >"$work/out" 2>&1 || rc=$?
[ $rc = 1 ] || { cat "$work/out"; fail "report --html of a FAIL run: exit $rc, expected 1"; }
[ -f "$work/r.html" ] || { cat "$work/out"; fail "report --html of a FAIL run: no page"; }
expect_in "$work/r.html" "VERDICT: FAIL"
# rank 1 (the wrong result); rank 0 too where the loaded machine made the
# host pair differ by a warning's worth (host ranks: WARN at most)
grep -qE "Flagged GPUs \((1|2)\)" "$work/r.html" || fail "not 1 or 2 GPUs flagged"
expect_in "$work/r.html" "verification: triad"
expect_in "$work/r.html" "<td>triad</td><td>wrong</td><td>1</td>"
expect_in "$work/r.html" "Empirical roofline"
expect_in "$work/r.html" "Occupancy fits (rank 0)"
expect_in "$work/r.html" "fp64 8x8x4"
expect_in "$work/r.html" "No history given"
# no power source, no sustained test on this run: those sections are absent, not empty
! grep -q "Power against throughput\|Sustained at the limit" "$work/r.html" || fail "an empty power or sustained section"
[ "$(grep -o 'data:image/png;base64' "$work/r.html" | wc -l)" -ge 3 ] || fail "fewer than 3 embedded plots"
! grep -Eq '(src|href)="(https?:|//|file:)' "$work/r.html" || fail "the page links outside itself"
# the text report agrees
"$MCFLEET" report "$work/r.h5" >"$work/txt" 2>&1
expect_in "$work/txt" "VERDICT: FAIL"
# 10,000 GPUs, simulated
"$PYTHON_H5" "$srcdir/tools/fleetsim.py" --template "$srcdir/docs/bench/2026-11-23-detection/h200-bench-template.json" \
    -n 10000 -g 8 --seed 3 --degrade 17:10 --fail-verify 4242 -o "$work/f.h5" >"$work/sim" 2>&1 \
    || { cat "$work/sim"; fail "fleetsim"; }
t0=$(date +%s)
rc=0; "$MCFLEET" report "$work/f.h5" --html "$work/f.html" >"$work/out" 2>&1 || rc=$?
t1=$(date +%s)
[ $rc = 1 ] || { cat "$work/out"; fail "10,000 GPUs: exit $rc, expected 1 (FAIL)"; }
size=$(wc -c <"$work/f.html")
[ "$size" -le 20000000 ] || fail "10,000 GPUs: the page is $size bytes"
grep -q "VERDICT: FAIL</span> &nbsp; GPUs: 99[0-9][0-9] PASS" "$work/f.html" || fail "10,000 GPUs: no FAIL verdict with the GPUs counted"
grep -q "<td>4242</td>" "$work/f.html" && grep -q "<td>17</td>" "$work/f.html" \
    || fail "10,000 GPUs: the flagged GPUs 17 and 4242 not named"
echo "10,000 GPUs: page of $size bytes in $((t1 - t0)) s"
# bad input
rc=0; "$MCFLEET" report "$work/none.h5" --html "$work/x.html" >"$work/e" 2>&1 || rc=$?
[ $rc = 2 ] && grep -qF "$work/none.h5" "$work/e" && [ ! -e "$work/x.html" ] || { cat "$work/e"; fail "a missing file: exit $rc"; }
rc=0; "$MCFLEET" report "$work/r.h5" --html "$work/no/such/dir/x.html" >"$work/e" 2>&1 || rc=$?
[ $rc = 3 ] || { cat "$work/e"; fail "an unwritable page: exit $rc, expected 3"; }
! grep -q Traceback "$work/e" || fail "a traceback"
echo "html report ok"
