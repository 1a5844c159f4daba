#!/bin/bash
# Issue 29, one call on a 4 x H100 machine: the links.
# 1. gpu_transfer.sh: host <-> GPU and the 4 x 4 peer matrix beside nvbandwidth;
# 2. collective.sh: NCCL allreduce/allgather/reducescatter beside nccl-tests;
# 3. the acceptance deck's link tests on the 4 GPUs (links.yaml), its report in
#    every form; then the same with GPU 2's host link made 4 times slower
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
[ -x $B/gpu_transfer.sh ] || chmod +x $B/*.sh
echo "##### gpu_transfer.sh"; timeout 240 bash $B/gpu_transfer.sh 2>&1 | tail -60
echo "##### collective.sh"; timeout 200 bash $B/collective.sh 2>&1 | tail -40
M="--mca pml ob1 --mca btl self,vader --bind-to none"
L=$O/links
echo "##### links.yaml on 4 GPUs"
timeout -s KILL 200 mpirun -np 4 $M devbin/mcfleet --deck $B/links.yaml -o "$L/links.h5" >"$L/links.log" 2>&1
echo "links exit $?"
devbin/mcfleet report "$L/links.h5" >"$L/links.report.txt" 2>&1
devbin/mcfleet report "$L/links.h5" --format json >"$L/links.report.json" 2>/dev/null
devbin/mcfleet report "$L/links.h5" --format csv >"$L/links.report.csv" 2>/dev/null
grep -A40 "^test metric" "$L/links.report.txt" | head -45
echo "##### GPU 2's host link 4 times slower"
MCFLEET_INJECT_SLOW='link-host-*@2' MCFLEET_INJECT_SLOW_FACTOR=4 timeout -s KILL 200 mpirun -np 4 $M \
    devbin/mcfleet --deck $B/links.yaml -o "$L/slow.h5" >"$L/slow.log" 2>&1
echo "slow exit $?"
devbin/mcfleet report "$L/slow.h5" >"$L/slow.report.txt" 2>&1
sed -n '/^Flagged/,/^test metric/p' "$L/slow.report.txt" | head -30
cd "$O" && tar czf links.tgz links && rm -rf links
