#!/bin/bash
# Issue 16, call B: run 2, the same acceptance deck with a torch matmul loop
# (cuBLAS fp16, randn, back to back) on GPU 1 only, from before the first test
# to after the last
. devbin/fleet16-common.sh
ident b
smi_start b
CUDA_VISIBLE_DEVICES=1 timeout 330 python3 tools/torch_gemm_reference.py sustain --seconds 300 -o "$R/torch-disturber.json" >"$R/torch.log" 2>&1 & T=$!
sleep 12
run_deck run2-disturbed input/acceptance/sm_90.yaml 330
kill $T 2>/dev/null; wait $T 2>/dev/null
smi_stop
tail -3 "$R/torch.log"
pack fleet16b
