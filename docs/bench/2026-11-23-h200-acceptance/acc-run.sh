#!/bin/bash
# 2026-11-23: the sm_90 acceptance deck once on 1 GPU (one rank), logs under $OUT.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
T0=$(date +%s.%N)
nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,power.limit,memory.total,clocks.max.sm --format=csv >"$O/gpu.txt" 2>&1
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ devbin/mcfleet --version; ldd devbin/mcfleet | grep -E "not found|mpi|hdf5|yaml"; command -v mpirun; } >"$O/version.txt" 2>&1
S=$(date +%s.%N)
timeout 530 mpirun --bind-to none -np 1 devbin/mcfleet --deck input/acceptance/sm_90.yaml -o /tmp/acc.h5 >"$O/run.log" 2>&1
rc=$?
E=$(date +%s.%N)
echo "mpirun exit $rc; wall $(awk -v a="$E" -v b="$S" 'BEGIN{printf "%.1f", a-b}') s" | tee -a "$O/run.log"
devbin/mcfleet report /tmp/acc.h5 >"$O/report.txt" 2>&1; echo "report exit $?" >>"$O/report.txt"
cp /tmp/acc.h5 "$O/acc.h5" 2>/dev/null
echo "setup $(awk -v a="$S" -v b="$T0" 'BEGIN{printf "%.1f", a-b}') s" >>"$O/version.txt"
