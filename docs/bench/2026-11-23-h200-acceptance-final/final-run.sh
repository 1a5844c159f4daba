#!/bin/bash
# 2026-11-23, issue 10's done-when on an H200: the sm_90 acceptance deck, one
# rank, with the final binary; the report as text, JSON and CSV; logs to $OUT.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,driver_version,uuid,serial,pci.bus_id,power.limit,clocks.max.sm,pcie.link.gen.max,pcie.link.width.max,ecc.errors.uncorrected.volatile.total --format=csv >"$O/gpu.txt" 2>&1
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ devbin/mcfleet --version; git log --oneline -1 2>/dev/null; } >"$O/version.txt" 2>&1
S=$(date +%s.%N)
timeout 540 mpirun --bind-to none -np 1 devbin/mcfleet --deck input/acceptance/sm_90.yaml -o "$O/acc.h5" >"$O/run.log" 2>&1
rc=$?
E=$(date +%s.%N)
echo "mpirun exit $rc; wall $(awk -v a="$E" -v b="$S" 'BEGIN{printf "%.1f", a-b}') s" | tee -a "$O/run.log"
devbin/mcfleet report "$O/acc.h5" >"$O/report.txt" 2>&1; echo "report exit $?" >>"$O/report.txt"
devbin/mcfleet report "$O/acc.h5" --format json >"$O/report.json" 2>&1; echo "json exit $?" >>"$O/run.log"
devbin/mcfleet report "$O/acc.h5" --format csv >"$O/report.csv" 2>&1; echo "csv exit $?" >>"$O/run.log"
tail -n 3 "$O/report.txt"
