#!/bin/bash
# Issue 28, first device call: where mma.sp reads its metadata
# (devbin/mma_sp_probe, tools/probe/mma_sp_probe.cu), then the sparse deck
# (sparse.yaml: mma.sp and sparse wgmma beside their dense forms) on GPU 0,
# and whether cuSPARSELt is on the machine. Everything under $OUT/run1.
O=${OUT:-/tmp/out}/run1; mkdir -p "$O" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L;
  nvidia-smi --query-gpu=index,name,uuid,pci.bus_id,driver_version,power.limit,clocks.max.sm --format=csv; } >"$O/env.txt" 2>&1
{ ldconfig -p | grep -i -E "sparselt|cublasLt"; ls /usr/local/cuda/lib64 | grep -i -E "sparse|blasLt";
  find / -xdev -name 'libcusparseLt*' 2>/dev/null | head; find / -xdev -name 'libhipsparselt*' 2>/dev/null | head; } >"$O/libs.txt" 2>&1
timeout 60 devbin/mma_sp_probe >"$O/probe.txt" 2>&1; echo "probe exit $?" >>"$O/probe.txt"
tail -6 "$O/probe.txt"
CUDA_VISIBLE_DEVICES=0 timeout -s KILL 240 mpirun -np 1 --mca pml ob1 --mca btl self,vader --bind-to none \
    devbin/mcfleet --deck docs/bench/2026-11-27-issue28/sparse.yaml -o "$O/sparse.h5" >"$O/sparse.log" 2>&1
echo "mcfleet exit $?"
devbin/mcfleet report "$O/sparse.h5" >"$O/sparse.report.txt" 2>&1
grep -E "gflops|latency|FAIL|verif|unsupported" "$O/sparse.log" | head -60
cat "$O/libs.txt"
