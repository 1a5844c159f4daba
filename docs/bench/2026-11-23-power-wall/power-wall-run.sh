#!/bin/bash
# Issue 11 on an H100/H200, in one call: an independent nvidia-smi sampler at
# 100 ms throughout; torch's cuBLAS rates and a 60 s sustained cuBLAS fp16 on
# randn (the power reference); then the power-wall deck; torch's rates again.
# Usage: bash devbin/power-wall-run.sh [DECK] [TORCH_SECONDS]
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O"
DECK=${1:-input/power-wall.yaml}; TS=${2:-60}
nvidia-smi --query-gpu=name,driver_version,uuid,serial,pci.bus_id,power.limit,enforced.power.limit,clocks.max.sm,temperature.gpu --format=csv >"$O/gpu.txt" 2>&1
nvidia-smi -q >"$O/smi-q.txt" 2>&1
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
{ devbin/mcfleet --version; cat devbin/commit.txt 2>/dev/null; date -u; } >"$O/version.txt" 2>&1
Q=timestamp,power.draw.instant,power.draw.average,clocks.sm,temperature.gpu,clocks_event_reasons.active,enforced.power.limit
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 >"$O/smi.csv" 2>"$O/smi.err" &
SMI=$!
sleep 3
if [ "$TS" != 0 ]; then
  timeout 120 python3 tools/torch_gemm_reference.py rate -o "$O/torch-rate-before.json" >"$O/torch.log" 2>&1
  timeout 150 python3 tools/torch_gemm_reference.py sustain --seconds "$TS" -o "$O/torch-sustain.json" >>"$O/torch.log" 2>&1
  sleep 15   # cool down a little, as between any two tests
fi
S=$(date +%s)
timeout 420 mpirun --bind-to none -np 1 devbin/mcfleet --deck "$DECK" -o "$O/run.h5" >"$O/run.log" 2>&1
echo "mpirun exit $? after $(( $(date +%s) - S )) s" >>"$O/run.log"
[ "$TS" != 0 ] && timeout 120 python3 tools/torch_gemm_reference.py rate -o "$O/torch-rate-after.json" >>"$O/torch.log" 2>&1
kill $SMI
devbin/mcfleet report "$O/run.h5" >"$O/report.txt" 2>&1; echo "report exit $?" >>"$O/report.txt"
cat "$O/torch.log" 2>/dev/null; grep -E "sustained|steady|gflops |clock_mhz |power_w |tests:" "$O/run.log" | awk '{print $1, $2, $5}' | head -90; head -12 "$O/report.txt"
cd "$O" && tar czf /tmp/pw.tgz . && find . -mindepth 1 -delete && mv /tmp/pw.tgz "$O/"
