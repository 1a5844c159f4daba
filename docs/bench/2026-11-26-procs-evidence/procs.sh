#!/bin/bash
# On one GPU: the deck alone, then beside torch's matmul loop; what NVML and
# nvidia-smi list as compute processes during each.
O=${OUT:-/tmp/out}; R=$O/r; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi --query-gpu=index,name,uuid,serial,pci.bus_id,driver_version --format=csv; } >"$R/version.txt" 2>&1
apps() { while :; do { date -u +%T; nvidia-smi --query-compute-apps=pid,process_name,used_memory --format=csv,noheader; } >>"$R/apps-$1.txt" 2>&1; sleep 2; done; }
D=devbin/procs.yaml
apps alone & A=$!
timeout -s USR1 200 mpirun -np 1 devbin/mcfleet --deck $D -o "$R/alone.h5" >"$R/alone.log" 2>&1; echo "exit $?" >>"$R/alone.log"
kill $A
python3 tools/torch_gemm_reference.py sustain --seconds 400 -o "$R/torch.json" >"$R/torch.log" 2>&1 & T=$!
sleep 10
apps shared & A=$!
timeout -s USR1 300 mpirun -np 1 devbin/mcfleet --deck $D -o "$R/shared.h5" >"$R/shared.log" 2>&1; echo "exit $?" >>"$R/shared.log"
kill $A; kill -TERM $T; wait $T
for r in alone shared; do devbin/mcfleet report "$R/$r.h5" >"$R/$r-report.txt" 2>&1; tail -2 "$R/$r.log"; done
grep -h "" "$R"/apps-*.txt | sort -u | head; tail -2 "$R/torch.log"
