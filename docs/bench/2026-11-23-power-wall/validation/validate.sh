#!/bin/bash
# First device call of issue 11: the gemm family on every type, then the
# entropy helper's check of the own matrix kernels; torch's rates beside.
set -u
O=${OUT:-/tmp/out}; mkdir -p "$O/gemm"
bash .devdeps/install-mpi-debs.sh .devdeps >"$O/install.log" 2>&1
mkdir -p /tmp/miss
for l in $(ldd devbin/mcfleet | awk '/not found/ {print $1}'); do ln -sf "$PWD/devbin/lib/$l" /tmp/miss/; done
export LD_LIBRARY_PATH=/tmp/miss:/usr/local/cuda/lib64 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 PYTHONUNBUFFERED=1
ls /usr/local/cuda/lib64/libcublasLt* >"$O/gemm/libs.txt" 2>&1
timeout 100 python3 tools/torch_gemm_reference.py rate --dtypes fp16,bf16,fp8-e4m3,tf32 -o "$O/gemm/torch-rate.json" >"$O/gemm/torch.log" 2>&1
timeout 150 mpirun --bind-to none -np 1 devbin/mcfleet --deck devbin/gemm-deck.yaml -o "$O/gemm/gemm.h5" >"$O/gemm/run.log" 2>&1
echo "gemm mpirun exit $?" >>"$O/gemm/run.log"
devbin/mcfleet report "$O/gemm/gemm.h5" >"$O/gemm/report.txt" 2>&1
cat "$O/gemm/torch.log"; grep -E " (gflops|peak_fraction|clock_mhz|test_avg_power_w) |tests:|FAIL|unsupp" "$O/gemm/run.log" | awk '{print $1, $2, $5}' | head -80
OUT="$O/entropy" timeout 330 bash devbin/entropy-check.sh >"$O/entropy-check.log" 2>&1
tail -40 "$O/entropy-check.log"
cd "$O" && tar czf /tmp/validate.tgz gemm entropy entropy-check.log && rm -rf gemm entropy && mv /tmp/validate.tgz "$O/"
