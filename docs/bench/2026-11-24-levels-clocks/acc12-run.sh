#!/bin/bash
# Issue 12, third device call: the sm_90 acceptance deck with the clock
# check, and the final L1/LDS/VALU beside their peers.
set -u
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p "$R"
bash .devdeps/install-mpi-debs.sh .devdeps >"$R/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,clocks.max.sm,power.limit --format=csv; } >"$R/version.txt" 2>&1
for p in l1_bw_128_l1_bw_128 shared_bw_shared_bw MaxFlops_MaxFlops; do for i in 1 2 3; do echo "-- $p"; timeout 30 devbin/peers/$p; done; done >"$R/peers.txt" 2>&1
timeout 100 mpirun --bind-to none -np 1 devbin/mcfleet --deck devbin/acc12.yaml -o "$R/levels.h5" >"$R/levels.log" 2>&1; echo "exit $?" >>"$R/levels.log"
for p in l1_bw_128_l1_bw_128 shared_bw_shared_bw MaxFlops_MaxFlops; do for i in 1 2 3; do echo "-- $p"; timeout 30 devbin/peers/$p; done; done >>"$R/peers.txt" 2>&1
grep -E "^(l1|lds|valu)[^ ]* (bandwidth_gbs|gflops|clock_mhz) " "$R/levels.log" | awk '{print $1,$2,$5}'
grep -E "bandwidth|FLOP" "$R/peers.txt" | awk '{print $1,$2,$(NF-1)}' | sort | uniq -c
nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm,temperature.gpu --format=csv,noheader -lms 100 >"$R/smi.csv" 2>&1 & smi=$!
timeout 420 mpirun --bind-to none -np 1 devbin/mcfleet --deck input/acceptance/sm_90.yaml -o "$R/acc.h5" >"$R/acc.log" 2>&1
echo "exit $?" >>"$R/acc.log"; kill $smi
devbin/mcfleet report "$R/acc.h5" >"$R/acc-report.txt" 2>&1; echo "report exit $?" >>"$R/acc-report.txt"
head -40 "$R/acc-report.txt"
cd "$O" && tar czf acc12.tgz r && rm -rf r
