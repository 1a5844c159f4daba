#!/bin/bash
# Issue 30's health mode on a lent GPU machine (H100 or H200, CUDA 13.0), with
# devbin/mcfleet built on the lead's machine (the pattern of
# docs/bench/2026-11-27-issue26/run.sh). Logs, files and a summary in
# $OUT/issue30-health.tgz. About 2 minutes:
#   1. generic: input/health.yaml on every GPU, timed: must verify, end well
#      under 60 s, the sm_80 and CDNA matrix tests unsupported, the rest run
#   2. health: analysis/mcfleet_health.py (its default deck: health-sm_90.yaml
#      where nvidia-smi says 9.0) 3 times to build the baseline (exit 0,
#      "baseline still building"), a 4th judged run (exit 0: no false
#      problem at the default 5 % threshold), then a 5th with the last GPU's
#      matrix-bf16 at half speed (MCFLEET_INJECT_SLOW, factor 2): exit 1, the
#      first line "mcfleet: GPU <its PCI bus> matrix-bf16 ~50% below its
#      baseline". Each run's wall time must stay under 60 s.
# Check in summary.txt: the exit codes above, the times, the first lines.
# Step 2 needs a python3 with h5py and numpy on the machine (else it says so).
O=${OUT:-/tmp/out}; R=/tmp/issue30-health; rm -rf "$R"; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader OMPI_MCA_hwloc_base_binding_policy=none
N=$(nvidia-smi -L | grep -c '^GPU')
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,compute_cap --format=csv; } >"$R/env.txt" 2>&1
pack() { tar czf "$O/issue30-health.tgz" -C /tmp issue30-health; }
say() { echo "$*" | tee -a "$R/summary.txt"; }
say "GPUs: $N"
t0=$(date +%s.%N)
timeout -s KILL 120 mpirun -np "$N" devbin/mcfleet --deck input/health.yaml -o "$R/generic.h5" >"$R/generic.log" 2>&1
rc=$?; t1=$(date +%s.%N)
say "$(printf 'generic health.yaml: exit %d, %.1f s' $rc "$(awk "BEGIN{print $t1 - $t0}")")"
grep -E "^[0-9]+ tests:|unsupported on|verdict:" "$R/generic.log" | head -8 | tee -a "$R/summary.txt"
pack
if ! python3 -c 'import h5py, numpy' 2>/dev/null; then
    say "no python3 with h5py and numpy here: mcfleet health not run"; pack; exit 0
fi
export MCFLEET_BIN=$PWD/devbin/mcfleet
health() {   # health NAME: one mcfleet health run; its exit code, time and first lines
    local name=$1 t0 t1 rc
    t0=$(date +%s.%N)
    timeout -s KILL 150 python3 analysis/mcfleet_health.py --history "$R/hist" --node dev --np "$N" \
        --prom "$R/$name.prom" >"$R/$name.out" 2>&1
    rc=$?; t1=$(date +%s.%N)
    say "$(printf '%-8s exit %d, %.1f s | %s' "$name" $rc "$(awk "BEGIN{print $t1 - $t0}")" "$(head -1 "$R/$name.out")")"
    sed -n '2,6p' "$R/$name.out" | sed 's/^/           /' | tee -a "$R/summary.txt"
    pack
}
for i in 1 2 3 4; do health "base$i"; done
export MCFLEET_INJECT_SLOW="matrix-bf16@$((N - 1))" MCFLEET_INJECT_SLOW_FACTOR=2
health slow
unset MCFLEET_INJECT_SLOW MCFLEET_INJECT_SLOW_FACTOR
ls -R "$R/hist" >"$R/hist.txt"; cat "$R/hist/dev/status.json" >>"$R/summary.txt"
pack
