#!/bin/bash
# On a machine with an NVIDIA GPU: mcfleet's CUDA figures and, measured in the
# same run on the same GPU, the references (cuBLAS through torch, torch's
# copy), side by side. Also checks the SASS of the real binary with cuobjdump.
# Use: bench/cuda.sh MCFLEET_BINARY OUTDIR [DECK]
set -u
bin=${1:?usage: bench/cuda.sh MCFLEET OUTDIR [DECK]}
out=${2:?usage: bench/cuda.sh MCFLEET OUTDIR [DECK]}
here=$(cd "$(dirname "$0")" && pwd)
deck=${3:-$here/cuda-bench.yaml}
mkdir -p "$out"
[ "$(id -u)" = 0 ] && export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
{
    date -u +%FT%TZ
    nvidia-smi --query-gpu=name,uuid,pci.bus_id,driver_version,clocks.sm,clocks.max.sm,power.draw,power.limit,temperature.gpu --format=csv
} | tee "$out/device.txt"
echo "== SASS of the binary"
bash "$here/../tests/cuda_sass.sh" "$bin" 2>&1 | tee "$out/sass.txt" | tail -25
echo "== mcfleet $deck"
mpirun -np 1 "$bin" --backend cuda -v --deck "$deck" -o "$out/bench.h5" >"$out/mcfleet.log" 2>&1
echo "mcfleet exit $?"
grep -E "FAILED|ERROR|WRONG|tests:" "$out/mcfleet.log" | tail -20
echo "== torch references"
PYTHONUNBUFFERED=1 python3 "$here/torch_reference.py" >"$out/torch.jsonl" 2>"$out/torch.err" || tail -5 "$out/torch.err"
python3 "$here/compare.py" "$out/bench.h5" "$out/torch.jsonl" | tee "$out/compare.txt"
