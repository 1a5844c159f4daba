#!/bin/bash
# One NVIDIA GPU: the smoke deck and --quick with this commit's binary
# (devbin/mcfleet, built on the lead's machine), full logs under $OUT.
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version --format=csv; } >"$R/version.txt" 2>&1
D=docs/bench/2026-11-26-cuda-smoke/smoke.yaml
timeout -s USR1 200 mpirun -np 1 devbin/mcfleet --deck $D -o "$R/smoke.h5" >"$R/smoke.log" 2>&1; echo "exit $?" >>"$R/smoke.log"
timeout -s USR1 120 mpirun -np 1 devbin/mcfleet --quick -o "$R/quick.h5" >"$R/quick.log" 2>&1; echo "exit $?" >>"$R/quick.log"
for r in smoke quick; do devbin/mcfleet report "$R/$r.h5" >"$R/$r-report.txt" 2>&1; echo "report exit $?" >>"$R/$r-report.txt"; tail -2 "$R/$r.log"; done
cat "$R/version.txt"; head -30 "$R/smoke-report.txt"
