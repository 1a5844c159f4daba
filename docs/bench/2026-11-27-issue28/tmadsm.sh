#!/bin/bash
# Issue 28 on one H100 (or H200): Hopper's TMA and distributed shared memory.
# Needs devbin/mcfleet (built with this branch) and devbin/hopper-ref/ (the
# 004 seed paper's artifact built by hopper_ref_build.sh, carried as
# devbin/hopper-ref.tar.xz). Under 3 minutes:
#   1. sass: the sm_90a instructions in the binary (UTMALDG, UBLKCP, the
#      cluster loads) and that the tma/dsm kernels are only in sm_90a code
#   2. deck: input/hopper.yaml (TMA load size x CTAs, 1D and 2D; TMA latency
#      in the L2 and beyond; DSM cluster size x pattern; DSM latency), ~30 s
#   3. fault: every tma/dsm kernel once more with MCFLEET_INJECT_FAULT: each
#      must FAIL VERIFICATION (exit 1), never give a figure
#   4. ref: the paper's own TMA and DSM binaries, same call, same GPU
#   5. ncu: one launch of each kind with the counters that show the level:
#      DRAM and L2 bytes for TMA (and no LSU global loads), the distributed
#      shared memory counters for DSM; the device's own list of TMA / DSM
#      metric names is queried first and every one of them is collected
#   6. side by side: mcfleet's figure and the paper binaries' figures
# Everything goes to $OUT/issue28.tgz; the summary is printed.
set -u
O=${OUT:-/tmp/out}; R=/tmp/issue28; rm -rf "$R"; mkdir -p "$R" /tmp/miss "$O"
bash .devdeps/install-mpi-debs.sh .devdeps >"$R/install.log" 2>&1
# the reference binaries travel compressed (the device call's 64 MiB)
[ -d devbin/hopper-ref ] || tar xJf devbin/hopper-ref.tar.xz -C devbin
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export PATH=$PATH:/usr/local/cuda/bin
M="--bind-to none --mca pml ob1 --mca btl self,vader"
pack() { tar czf "$O/issue28.tgz" -C /tmp issue28; }
{ date -u; cat devbin/commit.txt 2>/dev/null; git log --oneline -1 2>/dev/null; devbin/mcfleet --version
  nvidia-smi --query-gpu=name,uuid,driver_version,clocks.max.sm,power.limit --format=csv; } >"$R/env.txt" 2>&1
cat "$R/env.txt"

echo "== 1. sass"
if command -v cuobjdump >/dev/null; then
    cuobjdump -sass devbin/mcfleet >"$R/sass.txt" 2>&1
    for op in UTMALDG UBLKCP SYNCS 'LD.*DSMEM|LDS.*CLUSTER|LD\.E.*SHARED' ; do
        printf '%-28s %s\n' "$op" "$(grep -cE "$op" "$R/sass.txt")"; done | tee "$R/sass-counts.txt"
    cuobjdump -lelf devbin/mcfleet 2>&1 | sort | uniq -c | tee -a "$R/sass-counts.txt" | head
else echo "no cuobjdump" | tee "$R/sass-counts.txt"; fi

echo "== 2. mcfleet input/hopper.yaml"
t0=$(date +%s)
timeout -s KILL 120 mpirun -np 1 $M devbin/mcfleet --deck input/hopper.yaml -o "$R/hopper.h5" >"$R/hopper.log" 2>&1
echo "exit $? in $(( $(date +%s) - t0 )) s" | tee -a "$R/hopper.log"
devbin/mcfleet report "$R/hopper.h5" >"$R/hopper.report.txt" 2>&1
grep -E "unsupported|FAILED|error" "$R/hopper.log" | head -20
pack

echo "== 3. fault injection (each must fail verification)"
cat >"$R/fault.yaml" <<'DECK'
name: fault
defaults: {repetitions: 1, warmup: 0}
tests:
  - {name: f-tma-bulk, kernel: memory, level: tma, dtype: fp32, bytes: 64MiB, load: 4KiB}
  - {name: f-tma-2d, kernel: memory, level: tma, tma: tensor-2d, dtype: fp64, bytes: 64MiB, load: 4KiB}
  - {name: f-tma-lat, kernel: memory, level: tma, mode: latency, load: 16, bytes: 8MiB}
  - {name: f-dsm-ring, kernel: memory, level: dsm, pattern: ring, cluster: 4}
  - {name: f-dsm-pair16, kernel: memory, level: dsm, pattern: pair, cluster: 16, dtype: fp32}
  - {name: f-dsm-lat, kernel: memory, level: dsm, mode: latency, cluster: 2}
DECK
timeout -s KILL 60 mpirun -np 1 $M devbin/mcfleet --deck "$R/fault.yaml" -o "$R/clean.h5" >"$R/clean.log" 2>&1
echo "clean: exit $? ($(grep -cE '^ *f-[^ ]+ .*(GB/s|cycles)' "$R/clean.log") figure lines)"
grep -E "tests:.*verified" "$R/clean.log"
timeout -s KILL 60 mpirun -np 1 $M -x MCFLEET_INJECT_FAULT='f-*' devbin/mcfleet --deck "$R/fault.yaml" \
    -o "$R/fault.h5" >"$R/fault.log" 2>&1
echo "fault: exit $? (expected 1)"; grep -E "FAILED VERIFICATION|tests:.*verified" "$R/fault.log" | head -8
pack

echo "== 4. the paper's binaries (devbin/hopper-ref)"
H=devbin/hopper-ref
for b in tma_bw_1d_size0 tma_bw_1d_size2 tma_bw_1d_size5 tma_bw_2d_box0 tma_bw_2d_box2 tma_bw_2d_box5; do
    echo "-- $b"; timeout 20 $H/$b 2>&1 | grep -E "Block size|Throughput|error"
done >"$R/ref-tma.txt" 2>&1
{ echo "-- tma_lat"; timeout 20 $H/tma_lat 2>&1 | tail -3; } >"$R/ref-tma-lat.txt" 2>&1
timeout 30 $H/dsm_latency >"$R/ref-dsm-lat-full.txt" 2>&1
for p in ring pair broadcast local; do echo "-- $p"; timeout 25 $H/dsm_thrpt_$p 2>&1 | grep -E "Cluster size|error"; done \
    >"$R/ref-dsm.txt" 2>&1
pack

echo "== 5. ncu"
cat >"$R/ncu.yaml" <<'DECK'
name: ncu
defaults: {repetitions: 1, warmup: 0}
tests:
  - {name: n-hbm-read, kernel: memory, level: hbm, op: read, dtype: fp32, bytes: 256MiB}
  - {name: n-tma-bulk, kernel: memory, level: tma, dtype: fp32, bytes: 256MiB, load: 4KiB, ctas: 2}
  - {name: n-tma-2d, kernel: memory, level: tma, tma: tensor-2d, dtype: fp32, bytes: 256MiB, load: 4KiB, ctas: 2}
  - {name: n-lds-read, kernel: memory, level: lds, op: read, dtype: fp32, bytes: 16KiB}
  - {name: n-dsm-ring2, kernel: memory, level: dsm, pattern: ring, cluster: 2, dtype: fp32}
  - {name: n-dsm-bcast16, kernel: memory, level: dsm, pattern: broadcast, cluster: 16, dtype: fp32}
DECK
# the device's own names for TMA and distributed shared memory counters
ncu --query-metrics --chip gh100 >"$R/ncu-metrics.txt" 2>&1 || ncu --query-metrics >"$R/ncu-metrics.txt" 2>&1
grep -iE "tma|dsmem|dshm|distributed|cluster|utma|ublk|bulk|mbarrier|syncs" "$R/ncu-metrics.txt" >"$R/ncu-hopper-metrics.txt"
# counters are summed, ratios and throughputs as they come (the query's second column)
extra=$(awk '$1 ~ /^[a-z0-9_]+__/ { if ($2 == "Counter") print $1 ".sum"; else if ($2 == "Ratio") print $1 ".ratio";
             else if ($2 == "Throughput") print $1 ".avg.pct_of_peak_sustained_elapsed" }' "$R/ncu-hopper-metrics.txt" |
        head -24 | paste -sd, -)
base=gpu__time_duration.sum,sm__cycles_elapsed.avg.per_second,dram__bytes_read.sum,lts__t_sectors_srcunit_tex_op_read.sum,lts__t_sector_hit_rate.pct
base=$base,smsp__inst_executed_op_global_ld.sum,smsp__inst_executed_op_shared_ld.sum
base=$base,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum
echo "hopper metrics from the device: ${extra:-none found}" | tee "$R/ncu-used.txt"
timeout 100 ncu --clock-control none --target-processes all -k regex:'k_hbm|k_tma_read|k_lds_read|k_dsm_read' \
    -c 12 --metrics "$base${extra:+,$extra}" --csv --page raw \
    mpirun -np 1 $M devbin/mcfleet --deck "$R/ncu.yaml" -o "$R/ncu.h5" >"$R/ncu.csv" 2>"$R/ncu.err"
rc=$?
if [ $rc != 0 ] && [ -n "$extra" ]; then   # a name the profiler will not collect: the base set alone
    echo "ncu exit $rc with the device's names; again with the base set" | tee -a "$R/ncu-used.txt"
    timeout 60 ncu --clock-control none --target-processes all -k regex:'k_hbm|k_tma_read|k_lds_read|k_dsm_read' \
        -c 12 --metrics "$base" --csv --page raw \
        mpirun -np 1 $M devbin/mcfleet --deck "$R/ncu.yaml" -o "$R/ncu2.h5" >"$R/ncu.csv" 2>"$R/ncu.err"
    rc=$?
fi
echo "ncu exit $rc, $(wc -l <"$R/ncu.csv") lines"
python3 - "$R/ncu.csv" <<'PY' 2>&1 | tee "$R/ncu-summary.txt"
import csv, sys
rows = list(csv.reader(open(sys.argv[1])))
head = next((i for i, r in enumerate(rows) if "Kernel Name" in r), None)
if head is None:
    sys.exit("no ncu table")
h = rows[head]
k = h.index("Kernel Name")
for r in rows[head + 2:]:
    if len(r) != len(h):
        continue
    print("--", r[k][:40])
    for i, name in enumerate(h):
        if "__" in name and r[i] not in ("", "0", "0.00"):
            print("   %-70s %s" % (name, r[i]))
PY
pack

echo "== 6. side by side (mcfleet | the paper's binaries, same GPU)"
{
echo "TMA throughput, GB/s (mcfleet: 1 GiB, 4 copies in flight per CTA; paper: 4 GiB, one copy at a time per CTA, GiB/s)"
grep -E "^(hbm-read|tma-[^ ]+) +bandwidth_gbs" "$R/hopper.log" | awk '{printf "  %-28s %10s\n", $1, $5}'
grep -E "^--|Block size|Throughput" "$R/ref-tma.txt" | paste - - | sed 's/^/  ref /' | head -40
echo "TMA latency, cycles (mcfleet: latency / base / above)"
grep -E "^tma-lat[^ ]* +(latency_cycles|base_latency_cycles|above_base_cycles)" "$R/hopper.log" | awk '{printf "  %-14s %-22s %10s\n", $1, $2, $5}'
sed 's/^/  ref /' "$R/ref-tma-lat.txt"
echo "DSM throughput, GB/s (mcfleet) | TB/s (paper, 1024-thread CTAs)"
grep -E "^(lds-read|dsm-[a-z]+[^ ]*) +bandwidth_gbs" "$R/hopper.log" | awk '{printf "  %-28s %10s\n", $1, $5}'
sed 's/^/  ref /' "$R/ref-dsm.txt"
echo "DSM latency, cycles (mcfleet: peer / own / above)"
grep -E "^dsm-lat[^ ]* +(latency_cycles|base_latency_cycles|above_base_cycles)" "$R/hopper.log" | awk '{printf "  %-18s %-22s %10s\n", $1, $2, $5}'
echo "  ref (dsm_latency: rank 0 -> rank 1, per cluster size):"
awk '/^Cluster size/ {cs=$3} /^Rank  0 .*-> rank  1 / {print "  ref cluster " cs ": " $NF " cycles"}' "$R/ref-dsm-lat-full.txt"
} | tee "$R/side-by-side.txt"
pack
echo "done: $O/issue28.tgz"
