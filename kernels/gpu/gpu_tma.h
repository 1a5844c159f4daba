/* Hopper's TMA and DSM kernels (gpu_tma.cu, sm_90a code only) and what the
 * host side (gpu_hopper.cu) needs to launch them. CUDA only. */
#ifndef MCF_GPU_TMA_H
#define MCF_GPU_TMA_H

#include <cuda.h> /* CUtensorMap and its enums (types only: libcuda is not linked) */

#include "gpu.h"

#define TBLOCK 256 /* tma throughput: threads per CTA */
#define STAGES 4 /* tma throughput: copies in flight per CTA */
#define DBLOCK 512 /* dsm throughput: threads per CTA */
#define ROW 256 /* tensor-2d: a box is 256 bytes wide ... */
#define GROW 4096 /* ... of a tensor whose rows are 4096 bytes */
#define SLOTS 1024 /* per-SM clock slots */

/* per SM: the earliest CTA start and the latest end, cycles and ns */
struct sm_clock {
    unsigned long long first[2 * SLOTS], last[2 * SLOTS];
};

/* The kernels, for cudaLaunchKernelExC; [0] fp64, [1] fp32. Arguments:
 *   tma_read(const unsigned char *src, CUtensorMap map, int tensor, unsigned load, unsigned long
 * long tiles, unsigned long long total, int box_x, int box_rows, unsigned *partial, sm_clock *clk)
 *   dsm_read(unsigned n, int passes, int pattern, unsigned *partial, sm_clock *clk)
 *   fill(T *a, size_t n)
 *   chain_fill(unsigned *g, unsigned load, unsigned long long nslots, unsigned long long step)
 *   tma_chase(const unsigned char *g, unsigned load, unsigned steps, unsigned long long start_tma,
 *             unsigned long long start_base, unsigned long long *out)
 *   dsm_chase(unsigned n, unsigned step, unsigned steps, int pattern, unsigned long long *out) */
struct hop_kernels {
    const void *tma_read;
    const void *dsm_read[2];
    const void *fill[2];
    const void *chain_fill;
    const void *tma_chase;
    const void *dsm_chase;
};
extern const struct hop_kernels hop_kernels;
/* the memory family's tma and dsm levels (gpu_hopper.cu), for gpu_mlevel.cu */
extern const struct mcf_kernel_ops cuda_hopper_ops;

#endif
