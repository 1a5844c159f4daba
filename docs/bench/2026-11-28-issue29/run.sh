#!/bin/bash
# Issue 29, one call on a 4 x H100 machine: the links.
# (gpu_transfer.sh and collective.sh, the comparisons with nvbandwidth and
# nccl-tests, run in a call of their own)
# 3. the acceptance deck's link tests on the 4 GPUs (links.yaml), its report in
#    every form; then the same with GPU 1's host link made 4 times slower
#    (MCFLEET_INJECT_SLOW): it alone must FAIL, its link named.
# NVLink multicast stays off (NCCL_NVLS_ENABLE=0) for NCCL and nccl-tests.
B=docs/bench/2026-11-28-issue29
O=${OUT:-/tmp/out}; mkdir -p "$O/links" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/ 2>/dev/null; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export NCCL_NVLS_ENABLE=0
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; nvidia-smi topo -m;
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,pcie.link.gen.max,pcie.link.width.max --format=csv;
  lscpu | grep -i numa; } >"$O/env.txt" 2>&1
NG=${NG:-$(nvidia-smi -L | wc -l)}
M="--mca pml ob1 --mca btl self,vader --bind-to none"
L=$O/links
echo "##### links.yaml on every GPU"
timeout -s KILL 200 mpirun -np $NG $M devbin/mcfleet --deck $B/links.yaml -o "$L/links.h5" >"$L/links.log" 2>&1
echo "links exit $?"
devbin/mcfleet report "$L/links.h5" >"$L/links.report.txt" 2>&1
devbin/mcfleet report "$L/links.h5" --format json >"$L/links.report.json" 2>/dev/null
devbin/mcfleet report "$L/links.h5" --format links-csv >"$L/links.report.csv" 2>/dev/null
grep -A40 "^test metric" "$L/links.report.txt" | head -45
echo "##### GPU 1's host link 4 times slower"
MCFLEET_INJECT_SLOW='link-host-*@1' MCFLEET_INJECT_SLOW_FACTOR=4 timeout -s KILL 200 mpirun -np $NG $M \
    devbin/mcfleet --deck $B/links.yaml -o "$L/slow.h5" >"$L/slow.log" 2>&1
echo "slow exit $?"
devbin/mcfleet report "$L/slow.h5" >"$L/slow.report.txt" 2>&1
sed -n '/^Flagged/,/^test metric/p' "$L/slow.report.txt" | head -30
echo "##### linkhealth.sh"; timeout 120 bash $B/linkhealth.sh 2>&1 | tail -30
cd "$O" && tar czf links.tgz links && rm -rf links
