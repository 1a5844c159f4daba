#!/bin/bash
# Does clock64 count while a time-sliced context is switched out? bench/clock_truth
# alone, then beside torch's matmul loop on the same GPU: cycles per %globaltimer
# second, and work per counted cycle, for each load.
O=${OUT:-/tmp/out}; mkdir -p "$O"
nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version --format=csv >"$O/ts-version.txt"
timeout 120 devbin/clock_truth 1.0 >"$O/ts-alone.txt" 2>&1
python3 tools/torch_gemm_reference.py sustain --seconds 300 -o "$O/ts-torch.json" >"$O/ts-torch.log" 2>&1 & T=$!
sleep 10
timeout 200 devbin/clock_truth 1.0 >"$O/ts-shared.txt" 2>&1
kill -TERM $T; wait $T
tail -6 "$O/ts-alone.txt" "$O/ts-shared.txt"; tail -1 "$O/ts-torch.log"
