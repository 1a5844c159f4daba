#!/bin/sh
# analysis/mcfleet_sc22.py: the SC22 variability study's per-run rows as a
# study table. The fixture (tests/data/sc22) is made up: the layouts and
# column names of the released files (docs/study-sc22.md), none of their rows.
#   longhorn: the header; SGEMM kept in ms (perf / kernel period = 1), PageRank
#   from us (2 periods), BERT in ms (perf = 1000 x perf_s), its warm-up row
#   skipped (kept with --keep-warmup) and its junk train_time ignored; host
#   c002-003 and loc:cabinet c002 from cabinet c002, node 3; the row without a
#   location takes its GPU's; each refused row named FILE:LINE (a copy, NaN,
#   a negative perf, an unreadable location, a second row of one GPU and run,
#   a cut trace line, a ts that is no unix time) and counted; a row without
#   ts is a run of its own;
#   the raw nvprof trace: us to ms, the mean of the instances strictly inside
#   the main kernel's span, the medians of the samples in it (mW to W);
#   frontera: s to ms, host c197-101; Nsight Compute's ns to ms; ls6 one run;
#   summit: a01n02 / b17n05 as loc:row and loc:cabinet;
#   --benchmark, --located-only, convert() importable;
#   PAL's derived file named: exit 2; no unit to tell: exit 2, --perf-unit
#   reads it; an existing output: exit 2, --force replaces it; a symlink is
#   refused even with --force; an output that cannot be written: exit 3.
. "$srcdir/tests/lib.sh"
need_h5py
PY=${PYTHON_H5:-/usr/bin/python3}
R="$PY $srcdir/analysis/mcfleet_sc22.py"
D="$srcdir/tests/data/sc22"
T="$work/t"
mkdir "$T"
run() { rc=0; $R "$@" >"$work/out" 2>"$work/err" || rc=$?; }
row() {   # row FILE GPU RUN: the table's row of that GPU and run, without the header's comments
    grep -v '^#' "$1" | grep -F "$2," | grep -F ",$3," || { cat "$1" >&2; fail "no row $2 run $3 in $1"; }
}

run "$D" -o "$T/lh.csv" --cluster longhorn --source "example/repo 0123abc"
expect_rc 0
expect_in "$work/out" "wrote $T/lh.csv: 11 rows, 8 GPUs, 4 nodes; 6 refused, 1 warm-up skipped, 1 located"
h=$(grep -v '^#' "$T/lh.csv" | head -1)
[ "$h" = "gpu,host,loc:cabinet,sku,test,metric,unit,better,kind,run,time,value,cov:power_w,cov:power_w_mean,cov:sm_mhz,cov:sm_mhz_mean,cov:temp_c,cov:temp_c_mean" ] ||
    fail "header: $h"
expect_in "$T/lh.csv" "# source: example/repo 0123abc $D/aggregated_data/sim/sgemm-longhorn-agg.csv"
expect_in "$T/lh.csv" "sgemm-longhorn-agg.csv: layout kernel, 11 rows; perf unit ms: perf / kernel period (s) = 1000 (median of 11 rows): 1.000 periods in ms"
expect_in "$T/lh.csv" "pagerank-longhorn-agg.csv: layout kernel, 2 rows; perf unit us"
expect_in "$T/lh.csv" "bert-longhorn-agg.csv: layout iter, 3 rows; perf unit ms: perf = 1000 x perf_s in all 3 rows"
expect_in "$T/lh.csv" "# rows: read 17, written 11, refused 6, warmup 1, located 1, other_benchmark 0"
U=GPU-00000000-0000-0000-0000-0000000000
r=$(row "$T/lh.csv" ${U}0a 1600000000)
[ "$r" = "${U}0a,c002-003,c002,longhorn,sgemm,kernel_ms,ms,-1,matrix,1600000000,1600000000,1000.5,290.5,,1380,,60," ] || fail "sgemm row: $r"
r=$(row "$T/lh.csv" ${U}0a 1600007200)   # cabinet -1 in the file: its GPU's other rows say c002-003
[ "$r" = "${U}0a,c002-003,c002,longhorn,sgemm,kernel_ms,ms,-1,matrix,1600007200,1600007200,1002,290,,1365,,62," ] || fail "located row: $r"
r=$(row "$T/lh.csv" ${U}0c 1600000100)   # never located: no host
[ "$r" = "${U}0c,,,longhorn,sgemm,kernel_ms,ms,-1,matrix,1600000100,1600000100,990,289,,1400,,55," ] || fail "unlocated row: $r"
r=$(row "$T/lh.csv" ${U}0f L10)          # ts -1: a run of its own, no time
[ "$r" = "${U}0f,c003-012,c003,longhorn,sgemm,kernel_ms,ms,-1,matrix,L10,,1010,293,,1385,,59," ] || fail "no-ts row: $r"
r=$(row "$T/lh.csv" ${U}1a 1600100000)   # 66000 us
[ "$r" = "${U}1a,c005-004,c005,longhorn,pagerank,kernel_ms,ms,-1,other,1600100000,1600100000,66,78.5,,1530,,33," ] || fail "pagerank row: $r"
r=$(row "$T/lh.csv" c009-3-1 1650000500)
[ "$r" = "c009-3-1,c009-003,c009,longhorn,bert,iter_ms,ms,-1,other,1650000500,1650000500,245,152,141.5,1530,1490.5,53,52.5" ] || fail "bert row: $r"
grep -q '^c009-3-1,.*,1650000000,' "$T/lh.csv" && fail "the warm-up row was kept"
r=$(row "$T/lh.csv" ${U}5a 1600300000)   # the trace: (1900 + 2100) / 2 us; medians 1350 MHz, 295 W, 62 C
[ "$r" = "${U}5a,,,longhorn,sgemm,kernel_ms,ms,-1,matrix,1600300000,1600300000,2,295,,1350,,62," ] || fail "trace row: $r"
expect_in "$T/lh.csv" "kernel volta_sgemm_128x64_nn on Tesla V100-SXM2-16GB (0): 4 instances, 2 between the first and last start"
S=$D/aggregated_data/sim/sgemm-longhorn-agg.csv
expect_in "$work/err" "$S:6: a copy of line 4 (every cell the same): row refused"
expect_in "$work/err" "$S:8: perf 'nan' is not finite: row refused"
expect_in "$work/err" "$S:9: cabinet 'x9', node '7': no location rule reads them"
expect_in "$work/err" "$S:11: perf -5 is not a positive duration: row refused"
expect_in "$work/err" "$S:12: GPU ${U}0b run 1600000000 again ($S:4): one row per GPU and run: row refused"
expect_in "$work/err" "longhorn_traces/sgemm_nvidia_1024_4_${U}5a_0_1600300000.csv:22: 2 cells, the header has 21: row refused"
expect_in "$work/err" "32gpu-variability.csv: PAL's derived per-GPU factors (PerfVar_class*), not measured rows: skipped"
expect_in "$work/err" "frontera-resnet-agg.csv: the path names frontera, not longhorn: skipped"
# fewer messages named, all counted
run "$D" -o "$T/lh2.csv" --cluster longhorn --max-messages 2
expect_rc 0
[ "$(grep -c 'row refused' "$work/err")" = 2 ] || fail "--max-messages 2: $(cat "$work/err")"
expect_in "$work/err" "4 more refused rows not named (--max-messages)"
run "$D/aggregated_data/sim/bert-longhorn-agg.csv" -o "$T/w.csv" --keep-warmup
expect_rc 0
row "$T/w.csv" c009-3-1 1650000000 >/dev/null
run "$D" -o "$T/sg.csv" --cluster longhorn --benchmark SGEMM --located-only
expect_rc 0
expect_in "$T/sg.csv" "# rows: read 17, written 5, refused 6, warmup 0, located 1, other_benchmark 5, unlocated 2"
grep -v '^#' "$T/sg.csv" | sed 1d | cut -d, -f5 | sort -u | grep -qvx sgemm && fail "--benchmark sgemm kept another"

run "$D" -o "$T/fr.csv" --cluster frontera
expect_rc 0
r=$(row "$T/fr.csv" ${U}2a other,0)
[ "$r" = "${U}2a,c197-101,c197,frontera,resnet,iter_ms,ms,-1,other,0,123.4" ] || fail "frontera resnet row: $r"
r=$(row "$T/fr.csv" ${U}3a other,1)
[ "$r" = "${U}3a,c198-041,c198,frontera,pagerank,kernel_ms,ms,-1,other,1,1.291" ] || fail "frontera pagerank row: $r"
expect_in "$T/fr.csv" "frontera-resnet-agg.csv: layout iter, 3 rows; perf unit s: median perf 0.125"
run "$D/aggregated_data/ls6" -o "$T/ls6.csv"
expect_rc 0
r=$(row "$T/ls6.csv" c302-1-0 other,1)
[ "$r" = "c302-1-0,c302-001,c302,ls6,resnet,iter_ms,ms,-1,other,1,25.5" ] || fail "ls6 row: $r"
run "$D" -o "$T/su.csv" --cluster summit
expect_rc 0
grep -v '^#' "$T/su.csv" | head -1 | grep -q '^gpu,host,loc:row,loc:cabinet,sku,' || fail "summit header: $(cat "$T/su.csv")"
r=$(row "$T/su.csv" ${U}4a 1600200000)
[ "$r" = "${U}4a,b17n05,b,b17,summit,sgemm,kernel_ms,ms,-1,matrix,1600200000,1600200000,1000,295,1400,55" ] || fail "summit row: $r"
r=$(row "$T/su.csv" ${U}5b 1600300500)   # a trace named by its node: (3.5 ms) the one inner instance
[ "$r" = "${U}5b,a01n02,a,a01,summit,pagerank,kernel_ms,ms,-1,other,1600300500,1600300500,3.5,,," ] || fail "summit trace: $r"

"$PY" - "$srcdir/analysis" "$D" <<'EOF' || fail "convert() as a module"
import sys
sys.path.insert(0, sys.argv[1])
import mcfleet_sc22
r = mcfleet_sc22.convert([sys.argv[2] + "/aggregated_data/frontera"], benchmark="resnet")
assert [x["value"] for x in r.rows] == ["123.4", "125", "130"], r.rows
assert r.counts["other_benchmark"] == 2 and r.counts["refused"] == 0, r.counts
assert {x["loc:cabinet"] for x in r.rows} == {"c197"}
EOF

# refusals
run "$D/aggregated_data/32gpu-variability.csv" -o "$T/pal.csv"
expect_rc 2
expect_in "$work/err" "PAL's derived per-GPU factors (PerfVar_class*), not measured rows: nothing to convert"
[ -e "$T/pal.csv" ] && fail "an output was written for PAL's file"
awk -F, -v OFS=, 'NR > 1 { $11 = 1 } 1' "$D/aggregated_data/sim/sgemm-longhorn-agg.csv" >"$work/sgemm-one.csv"   # num_kerns 1: no window
run "$work/sgemm-one.csv" -o "$T/one.csv"
expect_rc 2
expect_in "$work/err" "sgemm-one.csv: no row with a kernel window (kern_min_start, kern_max_start, num_kerns >= 2) to tell perf's unit from: give --perf-unit"
run "$work/sgemm-one.csv" -o "$T/one.csv" --perf-unit s
expect_rc 0
row "$T/one.csv" ${U}0a 1600003600 | grep -q ',1001500,' || fail "--perf-unit s: $(cat "$T/one.csv")"
printf 'exp,uuid,perf,min_iter_dur,max_iter_dur,cabinet,node,device,ts\nresnet,G1,0.1,0.1,0.2,c001,1,0,1e30\nresnet,G2,0.1,0.1,0.2,c001,1,1,1600000000\n' >"$work/ts.csv"
run "$work/ts.csv" -o "$T/ts.csv"
expect_rc 0
expect_in "$work/err" "ts.csv:2: ts '1e30' is no start time (unix seconds): row refused"
run "$work/missing.csv" -o "$T/m.csv"
expect_rc 2
expect_in "$work/err" "missing.csv: no such file or directory"
run "$D/aggregated_data/ls6" -o "$T/ls6.csv"
expect_rc 2
expect_in "$work/err" "ls6.csv' exists: mcfleet does not overwrite results"
run "$D/aggregated_data/ls6" -o "$T/ls6.csv" --force
expect_rc 0
ln -s "$T/ls6.csv" "$T/link.csv"
run "$D/aggregated_data/ls6" -o "$T/link.csv" --force
expect_rc 2
expect_in "$work/err" "is a symlink"
run "$D/aggregated_data/ls6" -o "$work/no/such/dir/t.csv"
expect_rc 3
expect_in "$work/err" "cannot write"
run --help -o x
expect_rc 0
expect_in "$work/out" "Units: perf's unit is not in the files."
echo "PASS"
