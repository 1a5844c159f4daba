#!/bin/bash
# Each matrix kernel contains the instruction it claims (HMMA/DMMA/IMMA for
# mma.sync, HGMMA/QGMMA/IGMMA for wgmma), and no kernel uses local memory.
#  - With a CUDA toolkit's cuobjdump (the GPU machines have one): the SASS of
#    the binary itself (argument 1, or $MCFLEET).
#  - Otherwise (CI): the same sources compiled by `make sass-cubins` with the
#    same flags, disassembled by the nvdisasm that tools/fetch-nvdisasm.sh
#    unpacks from Debian's nvidia-cuda-toolkit. That nvdisasm (11.8) predates
#    CUDA 13's ELF architecture encoding, so each cubin's e_flags is rewritten
#    to the old encoding first (tools/cubin-oldflags.py); the instructions
#    are untouched.
set -u
[ -z "${MCFLEET_SANITIZER_BUILD:-}" ] || { echo "SKIP: sanitizer build: no CUDA backend is built there (nvcc objects are not instrumented), and the SASS does not depend on the host flags"; exit 77; }
bin=${1:-${MCFLEET:-}}
src=${srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
build=${builddir:-.}
py=${PYTHON_H5:-python3}
work=$(mktemp -d); trap 'rm -rf "$work"' EXIT
# The checker itself must reject a kernel without its instruction, in either mode.
printf 'arch = sm_90\n.text._Z5k_mmaI7mma_f16Li4EEv:\n /*0000*/ FFMA R0, R1, R2, R3 ;\n /*0010*/ EXIT ;\n' >"$work/bad.txt"
for mode in "" --old-nvdisasm; do
    if "$py" "$src/tests/sass_check.py" $mode "$work/bad.txt" >/dev/null 2>&1; then
        echo "FAIL: sass_check.py accepted an mma kernel with no HMMA ($mode)"; exit 1
    fi
done
if [ -n "$bin" ] && ! "$bin" --version 2>/dev/null | grep -q "backends:.*cuda"; then
    echo "SKIP: this mcfleet has no CUDA backend"; exit 77
fi
if command -v cuobjdump >/dev/null 2>&1 && [ -n "$bin" ]; then
    echo "SASS of $bin (cuobjdump $(cuobjdump --version | tail -1))"
    cuobjdump --dump-sass "$bin" >"$work/dump.txt" || { echo "FAIL: cuobjdump"; exit 1; }
else
    nvdisasm=${NVDISASM:-$build/tools/nvdisasm}
    if [ ! -x "$nvdisasm" ]; then
        echo "SKIP: no cuobjdump and no $nvdisasm (tools/fetch-nvdisasm.sh fetches it)"; exit 77
    fi
    make -s -C "$build" sass-cubins >/dev/null || { echo "FAIL: make sass-cubins"; exit 1; }
    echo "SASS of the kernels rebuilt as cubins with the build's flags, via $nvdisasm"
    old=--old-nvdisasm
    for cubin in "$build"/sass/*/*.cubin; do
        arch=$(basename "$(dirname "$cubin")")
        "$py" "$src/tools/cubin-oldflags.py" "$cubin" "$work/x.cubin" || exit 1
        echo "arch = $arch" >>"$work/dump.txt"
        "$nvdisasm" "$work/x.cubin" >>"$work/dump.txt" 2>&1 || { echo "FAIL: nvdisasm $cubin"; exit 1; }
    done
fi
"$py" "$src/tests/sass_check.py" ${old:-} "$work/dump.txt"
