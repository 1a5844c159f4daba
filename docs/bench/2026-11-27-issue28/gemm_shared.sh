#!/bin/bash
# Issue 28, hipBLASLt helper: the cuBLASLt path after its clock probe, timed
# repetition and 64-element check moved to kernels/gpu/gpu_gemm_common.h
# (shared with AMD's kernels/hip/gemm.hip). One GPU, devbin/mcfleet built on
# the lead's machine; about 1 minute. Logs and files to $OUT/gemm_shared.tgz.
# What must hold (printed at the end as CHECK lines):
#   1. every type verifies on sm_90 (fp64 fp32 tf32 fp16 bf16 fp8 int8, and
#      fp16 exact): "8 tests: 8 verified on every rank", exit 0, and the
#      fp16 8192^3 rate in line with docs/performance.md (about 650 TFLOP/s
#      on an H100 SXM);
#   2. MCFLEET_INJECT_FAULT on one test: exit 1, its verification fails
#      naming the element (the shared check still catches a wrong element).
O=${OUT:-/tmp/out}; R=/tmp/gemm_shared; rm -rf "$R"; mkdir -p "$R" /tmp/miss
bash .devdeps/install-mpi-debs.sh .devdeps >/tmp/install.log 2>&1
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do cp devbin/lib/$l /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{ date -u; cat devbin/commit.txt; devbin/mcfleet --version; nvidia-smi -L; } >"$R/env.txt" 2>&1
cat >"$R/gemm.yaml" <<'DECK'
tests:
  - {name: gemm-fp64, kernel: gemm, dtype: fp64, size: 4096, iterations: 4}
  - {name: gemm-fp32, kernel: gemm, dtype: fp32, size: 4096, iterations: 4}
  - {name: gemm-tf32, kernel: gemm, dtype: tf32, size: 4096, iterations: 4}
  - {name: gemm-fp16, kernel: gemm, dtype: fp16, size: 8192, iterations: 8}
  - {name: gemm-bf16, kernel: gemm, dtype: bf16, size: 8192, iterations: 8}
  - {name: gemm-fp8, kernel: gemm, dtype: fp8-e4m3, size: 8192, iterations: 8}
  - {name: gemm-int8, kernel: gemm, dtype: int8, size: 8192, iterations: 8}
  - {name: gemm-fp16-exact, kernel: gemm, dtype: fp16, size: 4096, inputs: exact}
DECK
M="--mca pml ob1 --mca btl self,vader --bind-to none"
timeout -s KILL 150 mpirun -np 1 $M devbin/mcfleet -v --deck "$R/gemm.yaml" -o "$R/gemm.h5" >"$R/gemm.log" 2>&1
echo "CHECK 1: exit $? (want 0); $(grep -m1 -E '[0-9]+ tests:' "$R/gemm.log")" | tee "$R/summary.txt"
grep -E "gemm-fp16 |gflops" "$R/gemm.log" | head -12 | tee -a "$R/summary.txt"
{ echo tests:; grep gemm-fp16-exact "$R/gemm.yaml"; } >"$R/fault.yaml"
MCFLEET_INJECT_FAULT='gemm-fp16-exact' timeout -s KILL 60 mpirun -np 1 $M -x MCFLEET_INJECT_FAULT devbin/mcfleet \
    --deck "$R/fault.yaml" -o "$R/fault.h5" >"$R/fault.log" 2>&1
echo "CHECK 2: exit $? (want 1); $(grep -m1 -iE 'wrong|element' "$R/fault.log")" | tee -a "$R/summary.txt"
tar czf "$O/gemm_shared.tgz" -C /tmp gemm_shared
