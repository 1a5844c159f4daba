#!/bin/bash
# Issue 28, after the dense and sparse kernels came to share their chain and
# store code (mma_chain.cuh, wg_chain): sparse.yaml again (every mma, mma.sp,
# wgmma and sparse wgmma test of the issue, exact and random inputs, latency)
# and the probe; every test must verify and the rates match runA's.
O=${OUT:-/tmp/out}/recheck; mkdir -p "$O" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; nvidia-smi --query-gpu=name,uuid,driver_version --format=csv; } >"$O/env.txt" 2>&1
timeout 60 devbin/mma_sp_probe 2>&1 | grep -E "nibbles" | tee "$O/probe.txt"
timeout -s KILL 120 mpirun -np 1 --mca pml ob1 --mca btl self,vader --bind-to none devbin/mcfleet \
    --deck docs/bench/2026-11-27-issue28/sparse.yaml -o "$O/short.h5" >"$O/short.log" 2>&1
echo "exit $?"
devbin/mcfleet report "$O/short.h5" >"$O/short.report.txt" 2>&1
sed -n '/2:4 sparse beside/,/^$/p' "$O/short.report.txt"; grep -E "tests:" "$O/short.report.txt"
rm -f "$O/short.h5"
