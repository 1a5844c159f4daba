#!/bin/bash
# Issue 28, device call A (one GPU): the sparse instructions, cuSPARSELt
# beside cuBLASLt, the cuBLASLt path after the shared-code move.
B=docs/bench/2026-11-27-issue28
echo "##### sparse.sh"; bash $B/sparse.sh
echo "##### sparselt.sh"; bash $B/sparselt.sh 2>&1 | tail -40
echo "##### gemm_shared.sh"; bash $B/gemm_shared.sh 2>&1 | tail -16
