#!/bin/sh
# The files .clang-format lays out: every C, CUDA and HIP source and header
# of src/ and kernels/ but the generated ones. Run from the repository root.
find src kernels -type f \( -name '*.c' -o -name '*.h' -o -name '*.cu' -o -name '*.cuh' -o -name '*.hip' \) \
    ! -name 'wgmma_ops.cuh' ! -name 'wgmma_sp_ops.cuh' | LC_ALL=C sort
