#!/bin/bash
# Run 2 in its own session: torch's cuBLAS fp16 matmul loop on GPU 1 alone,
# from 12 s before the deck's first test until mcfleet ends.
cd "$(dirname "$0")/.." && . devbin/common.sh
ident 2
CUDA_VISIBLE_DEVICES=1 timeout 1300 python3 tools/torch_gemm_reference.py sustain --seconds 1200 -o "$R/torch-disturber.json" >"$R/torch.log" 2>&1 & T=$!
sleep 12
run_deck run2-disturbed input/acceptance/sm_90.yaml 950
kill -INT $T 2>/dev/null; sleep 3; kill $T 2>/dev/null; wait $T 2>/dev/null
date -u >"$R/run2.done"
