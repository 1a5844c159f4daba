#!/bin/bash
# Issue 28, the 2:4 sparse matrix instructions on one NVIDIA GPU: where
# mma.sp reads its metadata (devbin/mma_sp_probe, tools/probe/mma_sp_probe.cu:
# must agree with kernels/cuda/mma_sp_traits.cuh for every type), then
# sparse_power.yaml (each sparse mma.sp / wgmma beside its dense form, 0.4 s
# repetitions: the clock, the power and GFLOP/W of each test measured), then
# sparse.yaml's exact-input and latency tests. Everything under $OUT/sparse.
O=${OUT:-/tmp/out}/sparse; mkdir -p "$O" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,power.limit,clocks.max.sm --format=csv; } >"$O/env.txt" 2>&1
timeout 60 devbin/mma_sp_probe >"$O/probe.txt" 2>&1; echo "probe exit $?" >>"$O/probe.txt"
grep -E "nibbles|exit" "$O/probe.txt"
M="--mca pml ob1 --mca btl self,vader --bind-to none"
B=docs/bench/2026-11-27-issue28
CUDA_VISIBLE_DEVICES=0 timeout -s KILL 200 mpirun -np 1 $M devbin/mcfleet --deck $B/sparse_power.yaml \
    -o "$O/power.h5" >"$O/power.log" 2>&1
echo "sparse_power exit $?"
devbin/mcfleet report "$O/power.h5" >"$O/power.report.txt" 2>&1
devbin/mcfleet report "$O/power.h5" --format json >"$O/power.report.json" 2>/dev/null
sed -n '/2:4 sparse beside/,/^$/p' "$O/power.report.txt"
grep -E "tests:|^verdict" "$O/power.report.txt"
CUDA_VISIBLE_DEVICES=0 timeout -s KILL 100 mpirun -np 1 $M devbin/mcfleet --deck $B/sparse.yaml \
    -o "$O/short.h5" >"$O/short.log" 2>&1
echo "sparse (short, exact, latency) exit $?"
devbin/mcfleet report "$O/short.h5" >"$O/short.report.txt" 2>&1
sed -n '/2:4 sparse beside/,/^$/p' "$O/short.report.txt"
grep -E "tests:|FAILED" "$O/short.report.txt" | head
