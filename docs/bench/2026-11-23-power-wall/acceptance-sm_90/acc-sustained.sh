#!/bin/bash
# The sm_90 acceptance deck with its sustained GEMM, one rank, an nvidia-smi
# sampler beside it; everything into one tarball under $OUT.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O/acc"
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/acc/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ devbin/mcfleet --version; cat devbin/commit.txt; date -u; nvidia-smi --query-gpu=name,uuid,serial,power.limit,temperature.gpu --format=csv; } >"$O/acc/version.txt" 2>&1
Q=timestamp,power.draw.instant,power.draw.average,clocks.sm,temperature.gpu,clocks_event_reasons.active,enforced.power.limit
nvidia-smi --query-gpu=$Q --format=csv,noheader,nounits -lms 100 >"$O/acc/smi.csv" 2>"$O/acc/smi.err" &
SMI=$!
S=$(date +%s)
timeout 520 mpirun --bind-to none -np 1 devbin/mcfleet --deck input/acceptance/sm_90.yaml -o "$O/acc/acc.h5" >"$O/acc/run.log" 2>&1
echo "mpirun exit $? after $(( $(date +%s) - S )) s" >>"$O/acc/run.log"
kill $SMI
devbin/mcfleet report "$O/acc/acc.h5" >"$O/acc/report.txt" 2>&1; echo "report exit $?" >>"$O/acc/report.txt"
tail -4 "$O/acc/run.log"; head -40 "$O/acc/report.txt"; grep -A12 "^Sustained" "$O/acc/report.txt"
cd "$O" && tar czf /tmp/acc.tgz acc && rm -rf acc && mv /tmp/acc.tgz "$O/"
