#!/bin/bash
# Issue 28, device call B (one GPU): the GEMM ladder, then TMA and DSM beside
# the Hopper paper's own binaries.
B=docs/bench/2026-11-27-issue28
echo "##### ladder.sh"; bash $B/ladder.sh 2>&1 | tail -40
echo "##### tmadsm.sh"; bash $B/tmadsm.sh 2>&1 | tail -90
