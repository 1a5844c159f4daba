#!/bin/sh
# The studies of docs/study-bench.md, on this machine (no GPU needed), from
# the repository root: MCFLEET=build/mcfleet sh docs/bench/2026-11-28-issue30/study-bench/run.sh
# Writes each study's text beside this script; the coverage runs
# (tests/study_coverage.py, about 100 s each) only with COVERAGE=1.
set -eu
M=${MCFLEET:-build/mcfleet}
P=${PYTHON:-/usr/bin/python3}
B=docs/bench
H=$B/2026-11-28-issue30/study-bench
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
health=$(ls $B/2026-11-28-issue30/health-h200x2/hist/dev/baseline/*.h5)
failed=$(ls $B/2026-11-28-issue30/health-h200x2/hist/dev/failed/*.h5)
# one VM at a time: 2 GPUs on one node
"$M" study $health > $H/health-4runs.txt
"$M" study $health $failed > $H/health-5runs.txt
"$M" study $B/2026-11-26-x2-disturbed/run1-clean.h5 $B/2026-11-26-x2-disturbed/run2-disturbed.h5 > $H/x2-disturbed.txt
"$M" study $B/2026-11-26-x2-disturbed/run1-clean.h5 $B/2026-11-26-x2-disturbed/run3-sustained.h5 > $H/h200-1126.txt
"$M" study $B/2026-11-25-h100x2-fleet/run1-acceptance.h5 $B/2026-11-25-h100x2-fleet/run3-sustained.h5 > $H/h100-1125.txt
"$M" study $B/2026-11-27-issue26/acc.h5 $B/2026-11-27-issue26/slow.h5 > $H/issue26-acc-slow.txt
"$M" study $B/2026-11-27-issue26/acc.h5 $B/2026-11-27-issue26/env.h5 > $H/issue26-acc-env.txt
"$M" study $B/2026-11-26-x2-disturbed/run1-clean.h5 $B/2026-11-25-h100x2-fleet/run1-acceptance.h5 > $H/h200-h100.txt
"$M" study $B/2026-11-28-issue30/health-h200x2/generic.h5 > $H/generic.txt
"$M" study $B/2026-11-27-issue26/def.h5 > $H/def.txt
# two decks' matrix-fp16 under one name (mma.sync 16x8x16 and wgmma 64x256x16)
"$M" study $B/2026-11-27-issue26/def.h5 $B/2026-11-27-issue26/acc.h5 --test matrix-fp16 > $H/two-decks.txt
# three lent VMs, each its own node (every VM calls itself "vm"): 6 H200s
"$P" $H/vm_table.py $B/2026-11-26-x2-disturbed/run1-clean.h5=1126 $B/2026-11-27-issue26/acc.h5=1127 \
    $(for f in $health; do printf '%s=1128 ' "$f"; done) -o "$T/vms.csv"
"$M" study "$T/vms.csv" > $H/vms.txt
if [ "${COVERAGE:-0}" = 1 ]; then
    h200=$B/2026-11-26-x2-disturbed/run1-clean.h5
    h100=$B/2026-11-25-h100x2-fleet/run1-acceptance.h5
    "$P" tests/study_coverage.py $h200 --fleets 100 > $H/coverage-h200.txt
    "$P" tests/study_coverage.py $h100 --fleets 100 > $H/coverage-h100.txt
    "$P" tests/study_coverage.py $h200 --fleets 100 -- --slow 0 > $H/coverage-null.txt
    "$P" tests/study_coverage.py $h100 --fleets 100 -- --chassis-sd 0.6 --slots 4 --nodes 1 > $H/coverage-chassis.txt
    "$P" tests/study_coverage.py $h200 --fleets 100 -- --runs 1 --run-per-node > $H/coverage-bynode.txt
fi
