#!/bin/bash
# Issue 11 on an H100/H200: inputs random (full entropy), exact and zero on
# every sm_90 matrix path and dtype (devbin/entropy-deck.yaml, about 4 minutes),
# one rank. Prints per test: verification status (the message when one fails),
# median TFLOP/s, in-kernel clock and average power; an nvidia-smi sampler at
# 100 ms runs beside it as a cross-check. Needs devbin/mcfleet built with CUDA
# from a commit with full-entropy inputs (e6d28f9 or later).
# Usage: bash devbin/entropy-check.sh [DECK]
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
DECK=${1:-devbin/entropy-deck.yaml}
nvidia-smi --query-gpu=name,driver_version,uuid,pci.bus_id,power.limit,enforced.power.limit,clocks.max.sm,temperature.gpu --format=csv >"$O/gpu.txt" 2>&1
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ devbin/mcfleet --version; cat devbin/commit.txt 2>/dev/null; date -u; } >"$O/version.txt" 2>&1
Q=timestamp,power.draw.instant,power.draw.average,clocks.sm,temperature.gpu,clocks_event_reasons.active
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 >"$O/smi.csv" 2>"$O/smi.err" &
SMI=$!
S=$(date +%s)
timeout 540 mpirun --bind-to none -np 1 devbin/mcfleet --deck "$DECK" -o "$O/entropy.h5" >"$O/run.log" 2>&1
echo "mpirun exit $? after $(( $(date +%s) - S )) s" | tee -a "$O/run.log"
kill $SMI 2>/dev/null
devbin/mcfleet report "$O/entropy.h5" >"$O/report.txt" 2>&1; echo "report exit $?" >>"$O/report.txt"
PY=python3; $PY -c 'import h5py' 2>/dev/null || PY=/usr/bin/python3
if $PY -c 'import h5py' 2>/dev/null; then
    $PY devbin/entropy-summary.py "$O/entropy.h5" | tee "$O/summary.txt"
else
    echo "no h5py here: the report instead"; devbin/mcfleet report "$O/entropy.h5" --format csv >"$O/report.csv" 2>&1
    cat "$O/report.txt"
fi
grep -iE "verif|error|fail" "$O/run.log" | head -40
