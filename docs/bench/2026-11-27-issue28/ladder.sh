#!/bin/bash
# Issue 28, the memory-level GEMM ladder (the ladder family, seed 002), on one
# GPU, devbin/mcfleet built on the lead's machine (devbin/commit.txt). About a
# minute of device time. Every run's log, file and report go to
# $OUT/ladder.tgz; $OUT/summary.txt holds what to check:
#   1. deck:  input/ladder.yaml as shipped (size 576): exit 0, 9 tests
#             verified (the three rungs, the library gemm, the fp64 vector and
#             matrix-core peaks, HBM and L2 bandwidth)
#   2. big:   the same at size 3840 (the rungs fill the GPU: 3600 register
#             blocks), fp64; 3. big32: fp32
#   4. fault: big with MCFLEET_INJECT_FAULT='ladder-*': exit 1, the three
#             rungs FAILED VERIFICATION naming C[i][j], the rest verified
#   each: the rungs' GFLOP/s and clock (report), their intensity (the
#   formula, docs/decks.md "ladder"), and the roofline plot where this
#   python3 has h5py and matplotlib (else plot the .h5 from the tgz with
#   analysis/mcfleet_plot.py roofline FILE).
# Check: every rung verified; gflops naive < shared < register < library
# gemm (expected on a GPU; a different order is a finding, not a failure of
# the script); register below the fp64 vector peak (peak-fp64); the clock_mhz
# of the rungs near the SM clock; the plot shows the three rungs under the
# roofs and the gemm line near the matrix-fp64 ceiling.
O=${OUT:-/tmp/out}; R=/tmp/issue28; rm -rf "$R"; mkdir -p "$R" /tmp/miss "$O"
[ -f .devdeps/install-mpi-debs.sh ] && bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi --query-gpu=index,name,uuid,clocks.max.sm,driver_version,power.limit --format=csv; } >"$R/env.txt" 2>&1
sed 's/size: 576/size: 3840/' input/ladder.yaml >"$R/big.yaml"
# fp32: the rungs and the library gemm only (the peaks and bandwidths stay as they are)
awk '/kernel:/ {k = $2} /dtype: fp64$/ && (k == "ladder" || k == "gemm") {sub(/fp64/, "fp32")} {print}' \
    "$R/big.yaml" | sed 's/name: gemm-fp64/name: gemm-fp32/' >"$R/big32.yaml"
M="--mca pml ob1 --mca btl self,vader --bind-to none"
pack() { tar czf "$O/ladder.tgz" -C /tmp issue28; cp "$R/summary.txt" "$O/summary.txt" 2>/dev/null; }
run() {   # run NAME DECK [ENV=VALUE]: one rank on GPU 0; exit codes, the rungs' figures, the plot
    local name=$1 deck=$2 envs=(); [ -n "${3:-}" ] && envs=(-x "$3")
    local t0=$(date +%s.%N)
    env ${3:-} CUDA_VISIBLE_DEVICES=0 timeout -s KILL 150 mpirun -np 1 $M "${envs[@]}" devbin/mcfleet --deck "$deck" \
        -o "$R/$name.h5" >"$R/$name.log" 2>&1
    local rc=$? t1=$(date +%s.%N)
    devbin/mcfleet report "$R/$name.h5" >"$R/$name.report.txt" 2>&1; local rr=$?
    {
        printf '== %s: run exit %d, report exit %d, %.0f s\n' "$name" $rc $rr "$(awk "BEGIN{print $t1 - $t0}")"
        grep -E "^[0-9]+ tests:|FAILED VERIFICATION|unsupported \(" "$R/$name.log" | head -8
        grep -E "^(ladder-|gemm-|peak-|matrix-|hbm-|l2-)" "$R/$name.report.txt" | head -20
        n=$(awk '/size:/ {print $2; exit}' "$deck"); es=8; grep -q 'dtype: fp32' "$deck" && es=4
        for t in naive:1 shared:16 register:64; do
            awk -v n="$n" -v t="${t#*:}" -v es="$es" -v r="${t%%:*}" 'BEGIN{c=int((n+t-1)/t);
                printf "  intensity %-8s n=%d: %.4g FLOP/byte (2n/((2 ceil(n/%d)+1) es))\n", r, n, 2*n/((2*c+1)*es), t}'
        done
        # the script finds a python3 with h5py, numpy and matplotlib itself (exit 3: none here)
        timeout 60 python3 analysis/mcfleet_plot.py roofline "$R/$name.h5" -o "$R/$name-roofline.png" \
            >"$R/$name-plot.txt" 2>&1
        case $? in
        0) grep -E "placed|ceiling|wrote" "$R/$name-plot.txt" ;;
        3) echo "  (no python3 with h5py and matplotlib here: plot $name.h5 from the tgz)" ;;
        *) echo "  roofline plot failed:"; tail -3 "$R/$name-plot.txt" ;;
        esac
    } | tee -a "$R/summary.txt"
    pack
}
run deck input/ladder.yaml
run big "$R/big.yaml"
run big32 "$R/big32.yaml"
run fault "$R/big.yaml" MCFLEET_INJECT_FAULT='ladder-*'
pack
